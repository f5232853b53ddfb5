//! Runs one script: starts the interpreter, turns each batch of its calls into ordinary
//! tool calls through the toolkit (concurrently within a batch), serves a replay's calls
//! from the record, and suspends the script when a call suspends.

use std::collections::BTreeMap;

use futures_util::future::join_all;
use serde_json::{Value, json};

use crate::agent::ToolDecision;
use crate::code::CodeMode;
use crate::code::engine::{self, Failure, Finished, HostEvent, Queued};
use crate::code::record::{Made, Suspended};
use crate::model::ToolCall;
use crate::tool::{Answer, Context, LogLevel, Request, ToolResult};

/// The metadata key of a script's result: how many calls it made, and how many of them
/// a replay served from the record.
pub const CODE_KEY: &str = "code";

/// The answer a replay hands to the call that suspended, with that call's request.
struct Resuming {
    at: usize,
    answer: Answer,
    request: Request,
}

pub(crate) async fn run(mode: &CodeMode, script: &str, ctx: Context) -> ToolResult {
    let (mut made, resuming) = match resumed(script, &ctx) {
        Ok(Some((state, resuming))) => (
            state.calls.into_iter().map(|m| (m.seq, m)).collect(),
            Some(resuming),
        ),
        Ok(None) => (BTreeMap::new(), None),
        Err(text) => return ToolResult::error(text),
    };
    let replayed = made.len();
    let names = mode
        .toolkit
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    let mut running = match engine::start(script.to_owned(), names, mode.limits.clone()) {
        Ok(running) => running,
        Err(e) => return ToolResult::error(format!("the interpreter could not start: {e}")),
    };
    let mut resuming = resuming;
    let mut total = 0;
    loop {
        let batch = match running.events.recv().await {
            Some(HostEvent::Calls(batch)) => batch,
            Some(HostEvent::Done(finished)) => {
                return finish(mode, script, finished, total, replayed);
            }
            None => return ToolResult::error("the interpreter stopped without a result"),
        };
        total += batch.len();
        let mut replies = Vec::with_capacity(batch.len());
        let mut fresh = Vec::new();
        for queued in batch {
            let args = serde_json::from_str(&queued.args).unwrap_or(Value::Null);
            match made.get(&queued.seq) {
                Some(m) if m.tool == queued.name && m.args == args => {
                    replies.push((queued.seq, m.reply()));
                }
                Some(m) => {
                    return ToolResult::error(format!(
                        "the replay of the script diverged at call {} (line {}): it called \
                         `{}` with {args} where the first run called `{}` with {}; a script \
                         that waits on a request must make the same calls when it runs again \
                         (no clock or random values in calls before it)",
                        queued.seq + 1,
                        queued.line,
                        queued.name,
                        m.tool,
                        m.args
                    ));
                }
                None => fresh.push((queued, args)),
            }
        }
        let answers: Vec<Option<Resuming>> = fresh
            .iter()
            .map(|(queued, _)| match &resuming {
                Some(r) if r.at == queued.seq => resuming.take(),
                _ => None,
            })
            .collect();
        let results = join_all(
            fresh
                .iter()
                .zip(answers)
                .map(|((queued, _), answer)| call(mode, queued, answer, &ctx)),
        )
        .await;
        let mut suspended: Option<(usize, Request)> = None;
        for ((queued, args), result) in fresh.into_iter().zip(results) {
            report(&ctx, &queued, &result);
            if let Some(request) = result.pending_request() {
                suspended.get_or_insert((queued.seq, request));
                continue;
            }
            let m = settled(mode, &queued, args, &result);
            replies.push((queued.seq, m.reply()));
            made.insert(queued.seq, m);
        }
        if let Some((at, inner)) = suspended {
            // Dropping the interpreter stops the script; the answer replays it.
            drop(running);
            let state = Suspended::new(script, &made, at, &inner);
            return ToolResult::pending(state.request(&inner));
        }
        if !running.reply(replies) {
            return ToolResult::error("the interpreter stopped without a result");
        }
    }
}

/// Tells the run's listener (an [`Event::Log`](crate::Event::Log) of the `run_code`
/// call, and `tracing`) that one of the script's calls settled or suspended.
fn report(ctx: &Context, queued: &Queued, result: &ToolResult) {
    let how = if result.is_pending() {
        "suspended"
    } else if result.is_error {
        "error"
    } else {
        "ok"
    };
    ctx.log(
        LogLevel::Debug,
        format!(
            "tools.{} #{} (line {}): {how}",
            queued.name,
            queued.seq + 1,
            queued.line
        ),
    );
}

/// The state of the script this call resumes, and the answer for its suspended call;
/// `None` for a first run.
fn resumed(script: &str, ctx: &Context) -> Result<Option<(Suspended, Resuming)>, String> {
    let Some(answer) = ctx.answer() else {
        return Ok(None);
    };
    let Some(request) = ctx.request() else {
        return Err(
            "the script was answered without the request it suspended on, so it cannot be \
             replayed; run it again"
                .into(),
        );
    };
    let Some(state) = Suspended::read(request)? else {
        return Ok(None);
    };
    if state.script != script {
        return Err("the answer is for another script than this call's; run it again".into());
    }
    let inner = state.inner()?;
    let resuming = Resuming {
        at: state.at,
        answer: answer.clone(),
        request: inner,
    };
    Ok(Some((state, resuming)))
}

/// One of the script's calls, as an ordinary call of the toolkit: through the hooks, with
/// a call id (and idempotency key) of its own, derived from the `run_code` call's and
/// the call's number, so that they are the same when the script is replayed.
async fn call(
    mode: &CodeMode,
    queued: &Queued,
    resuming: Option<Resuming>,
    outer: &Context,
) -> ToolResult {
    let id = format!(
        "{}#{}",
        outer.call_id().unwrap_or("run_code"),
        queued.seq + 1
    );
    let mut ctx = Context::new().with_call_id(id.clone());
    if let Some(timeout) = outer.timeout() {
        ctx = ctx.with_timeout(timeout);
    }
    if let Some(token) = outer.cancellation() {
        ctx = ctx.with_cancellation(token.clone());
    }
    if let Some(caller) = outer.caller() {
        ctx = ctx.with_caller(caller.clone());
    }
    if let Some(key) = outer.idempotency_key() {
        ctx = ctx.with_idempotency_key(format!("{key}#{}", queued.seq + 1));
    }
    if let Some(resuming) = resuming {
        // As the loop does for a call of its own: a declined request does not run the
        // call again (unless an agent run below takes the decline down itself).
        if !resuming.answer.ok && !resuming.request.carries_agent_state() {
            let why = resuming.answer.reason.as_deref().unwrap_or("declined");
            return ToolResult::error(format!(
                "declined/expired: {} ({why})",
                resuming.request.prompt
            ));
        }
        ctx = ctx
            .with_answer(resuming.answer)
            .with_request(resuming.request);
    }
    let mut call = ToolCall::new(id, queued.name.clone(), queued.args.clone());
    if let Some(hooks) = &mode.hooks {
        match hooks.before_tool(&call).await {
            ToolDecision::Deny { reason } => {
                return ToolResult::error(format!("denied: {reason}"));
            }
            ToolDecision::Rewrite { arguments } => call.arguments = arguments,
            _ => {}
        }
    }
    let mut result = mode
        .toolkit
        .execute_json(&call.name, &call.arguments, ctx)
        .await;
    if let Some(hooks) = &mode.hooks {
        hooks.after_tool(&call, &mut result).await;
    }
    result
}

/// What the script gets from a settled call: the structured value of a tool with an
/// output schema, else the text parsed as JSON when it is JSON, else the text; or the
/// error, named with the tool and the line.
fn settled(mode: &CodeMode, queued: &Queued, args: Value, result: &ToolResult) -> Made {
    let value = if result.is_error {
        Value::from(format!(
            "tools.{} (line {}): {}",
            queued.name, queued.line, result.output
        ))
    } else {
        let tool = mode.toolkit.get(&queued.name);
        match (result.structured(), tool) {
            (Some(structured), Some(tool)) if tool.output_wrapped() => {
                structured.get("result").cloned().unwrap_or(Value::Null)
            }
            (Some(structured), _) => structured.clone(),
            (None, _) => serde_json::from_str(&result.output)
                .unwrap_or_else(|_| Value::from(result.output.clone())),
        }
    };
    Made {
        seq: queued.seq,
        tool: queued.name.clone(),
        args,
        ok: !result.is_error,
        value,
    }
}

/// The `run_code` call's result: what the script printed, and its value or its error.
fn finish(
    mode: &CodeMode,
    script: &str,
    finished: Finished,
    calls: usize,
    replayed: usize,
) -> ToolResult {
    let Finished { output, result } = finished;
    let meta = json!({"calls": calls, "replayed": replayed});
    match result {
        Ok(value) => {
            let mut text = output;
            match value {
                Some(value) => text.push_str(&value),
                None if text.is_empty() => {
                    text.push_str("(the script printed nothing and returned nothing)")
                }
                None => {}
            }
            ToolResult::ok(text.trim_end().to_owned()).with_metadata(CODE_KEY, meta)
        }
        Err(failure) => {
            let mut text = explain(mode, script, &failure);
            if !output.is_empty() {
                text.push_str("\nIt printed, before it stopped:\n");
                text.push_str(output.trim_end());
            }
            ToolResult::error(text).with_metadata(CODE_KEY, meta)
        }
    }
}

/// A failure in words the model can act on: the line, and which limit when one was hit.
fn explain(mode: &CodeMode, script: &str, failure: &Failure) -> String {
    let limits = &mode.limits;
    let mut message = failure.message.clone();
    if message.contains("out of memory") {
        message = format!(
            "the script ran out of memory (its limit is {} bytes) and was stopped",
            limits.memory_limit()
        );
    } else if message.contains("stack overflow") || message.contains("call stack size") {
        message = format!(
            "{message}: the script went past its stack limit ({} bytes); recursion too deep",
            limits.stack_limit()
        );
    }
    let line_text = failure
        .line
        .and_then(|line| script.lines().nth(line as usize - 1))
        .unwrap_or_default();
    if message.contains("could not load module")
        || (message.starts_with("SyntaxError") && line_text.trim_start().starts_with("import"))
    {
        message.push_str(
            " (there are no modules to import here: the tools are called through `tools`)",
        );
    }
    match failure.line {
        Some(line) => format!("line {line}: {message}"),
        None => message,
    }
}
