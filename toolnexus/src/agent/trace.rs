//! The spans of a run (`invoke_agent`) and of its model turns (`chat {model}`); the tool
//! calls' spans are the tool layer's (`crate::trace`).

use std::future::Future;

use futures_util::future::Either;

use tracing::field::Empty;
use tracing::{Instrument as _, Span};

use crate::agent::client::Client;
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::model::settings::ModelSettings;
use crate::model::{FinishReason, Model, ModelError, Reply, Usage};

/// The span of one run; `resumed` is the id of the request whose answer it continues.
#[inline]
pub(crate) fn run_span(client: &Client, resumed: Option<&str>) -> Span {
    if !crate::trace::listening() {
        return Span::none();
    }
    open_run_span(client, resumed)
}

fn open_run_span(client: &Client, resumed: Option<&str>) -> Span {
    let agent = client.name.as_deref();
    let name = || {
        agent.map_or_else(
            || "invoke_agent".to_owned(),
            |n| format!("invoke_agent {n}"),
        )
    };
    crate::trace::span!("invoke_agent", name();
        "gen_ai.operation.name" = "invoke_agent",
        "gen_ai.agent.name" = agent,
        "gen_ai.provider.name" = client.model.describe().provider,
        "gen_ai.request.model" = client.model.describe().name,
        "toolnexus.resume.request.id" = resumed,
        "gen_ai.usage.input_tokens" = Empty,
        "gen_ai.usage.output_tokens" = Empty,
        "gen_ai.usage.cache_read.input_tokens" = Empty,
        "gen_ai.usage.cache_creation.input_tokens" = Empty,
        "gen_ai.usage.reasoning.output_tokens" = Empty,
        "toolnexus.run.status" = Empty,
        "error.type" = Empty,
        otel.status_code = Empty,
        otel.status_description = Empty,
    )
}

/// Records how the run ended on its span.
#[inline]
pub(crate) fn run_ended(span: &Span, run: &RunResult) {
    if !span.is_disabled() {
        record_end(span, run);
    }
}

fn record_end(span: &Span, run: &RunResult) {
    record_usage(span, &run.usage);
    let status = match &run.status {
        RunStatus::Done => "done",
        RunStatus::Pending => "pending",
        RunStatus::Incomplete { reason } => {
            span.record("error.type", stop_kind(reason));
            span.record("otel.status_code", "error");
            span.record("otel.status_description", reason.to_string().as_str());
            "incomplete"
        }
    };
    span.record("toolnexus.run.status", status);
}

fn stop_kind(reason: &StopReason) -> &'static str {
    match reason {
        StopReason::MaxTurns { .. } => "max_turns",
        StopReason::ModelError { .. } => "model_error",
        StopReason::Cancelled => "cancelled",
        StopReason::Deadline { .. } => "deadline",
        StopReason::WaitFor { .. } => "wait_for",
        StopReason::Hook { .. } => "hook",
        StopReason::Aborted { .. } => "aborted",
        StopReason::Store { .. } => "store",
        StopReason::TokenLimit { .. } => "token_limit",
        StopReason::RequestLimit { .. } => "request_limit",
        StopReason::ToolCallLimit { .. } => "tool_call_limit",
        StopReason::Compaction { .. } => "compaction",
        StopReason::InvalidOutput { .. } => "invalid_output",
        StopReason::SpendLimit { .. } => "spend_limit",
        StopReason::Guardrail { .. } => "guardrail",
        StopReason::Completion { .. } => "completion",
        StopReason::Named { .. } => "named",
    }
}

/// Runs one model turn inside its `chat` span, then records its usage and finish reason
/// (or its error). `compacted` is what compaction did before the turn, if it did:
/// `(messages summarized, tokens shown)`.
///
/// Not an `async fn`: one would hold `turn` twice (its argument, and the future it
/// awaits). With the span disabled, the future is `turn` itself; a live span's is boxed.
#[inline]
pub(crate) fn chat<'a, F>(
    model: &dyn Model,
    settings: &ModelSettings,
    compacted: Option<(usize, usize)>,
    turn: F,
) -> impl Future<Output = Result<Reply, ModelError>> + 'a
where
    F: Future<Output = Result<Reply, ModelError>> + 'a,
{
    if !crate::trace::listening() {
        return Either::Left(turn);
    }
    let span = chat_span(model, settings);
    if span.is_disabled() {
        return Either::Left(turn);
    }
    if let Some((summarized, tokens)) = compacted {
        span.record("toolnexus.compaction.summarized", summarized);
        span.record("toolnexus.compaction.tokens", tokens);
    }
    Either::Right(Box::pin(async move {
        let reply = turn.instrument(span.clone()).await;
        match &reply {
            Ok(reply) => {
                record_usage(&span, &reply.usage);
                if let Some(model) = &reply.model {
                    span.record("gen_ai.response.model", model.as_str());
                }
                if let Some(reason) = &reply.finish_reason {
                    span.record("gen_ai.response.finish_reasons", finish_reason(reason));
                }
            }
            Err(error) => {
                span.record("error.type", error.kind().as_str());
                span.record("otel.status_code", "error");
                span.record("otel.status_description", error.to_string().as_str());
            }
        }
        reply
    }))
}

fn chat_span(model: &dyn Model, client: &ModelSettings) -> Span {
    let info = model.describe();
    let name = info.name;
    let merged;
    let settings = match info.settings {
        Some(own) if !client.is_empty() => {
            merged = client.over(own);
            &merged
        }
        Some(own) => own,
        None => client,
    };
    let stop = settings
        .stop
        .as_ref()
        .and_then(|stop| serde_json::to_string(stop).ok());
    let full_name = || name.map_or_else(|| "chat".to_owned(), |n| format!("chat {n}"));
    crate::trace::span!("chat", full_name();
        otel.kind = "client",
        "gen_ai.operation.name" = "chat",
        "gen_ai.provider.name" = info.provider,
        "gen_ai.request.model" = name,
        "gen_ai.request.temperature" = settings.temperature,
        "gen_ai.request.top_p" = settings.top_p,
        "gen_ai.request.max_tokens" = settings.max_tokens,
        "gen_ai.request.seed" = settings.seed,
        "gen_ai.request.stop_sequences" = stop.as_deref(),
        "gen_ai.usage.input_tokens" = Empty,
        "gen_ai.usage.output_tokens" = Empty,
        "gen_ai.usage.cache_read.input_tokens" = Empty,
        "gen_ai.usage.cache_creation.input_tokens" = Empty,
        "gen_ai.usage.reasoning.output_tokens" = Empty,
        "gen_ai.response.finish_reasons" = Empty,
        "gen_ai.response.model" = Empty,
        "toolnexus.compaction.summarized" = Empty,
        "toolnexus.compaction.tokens" = Empty,
        "error.type" = Empty,
        otel.status_code = Empty,
        otel.status_description = Empty,
    )
}

/// Records `usage` on a run's or a turn's span: input and output always, the cache and
/// reasoning parts when the provider reported them.
fn record_usage(span: &Span, usage: &Usage) {
    span.record("gen_ai.usage.input_tokens", usage.prompt_tokens);
    span.record("gen_ai.usage.output_tokens", usage.completion_tokens);
    let parts = [
        (
            "gen_ai.usage.cache_read.input_tokens",
            usage.cache_read_tokens,
        ),
        (
            "gen_ai.usage.cache_creation.input_tokens",
            usage.cache_write_tokens,
        ),
        (
            "gen_ai.usage.reasoning.output_tokens",
            usage.reasoning_tokens,
        ),
    ];
    for (name, tokens) in parts {
        if tokens > 0 {
            span.record(name, tokens);
        }
    }
}

/// The OpenTelemetry spelling of a finish reason (the providers' common vocabulary).
fn finish_reason(reason: &FinishReason) -> &str {
    match reason {
        FinishReason::Stop => "stop",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::Length => "length",
        FinishReason::Refusal => "refusal",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Other(other) => other,
    }
}

/// Keeps the current run span's trace context in the request a call suspended on (in
/// `result`'s `metadata.pending`), so that the run that resumes it, here or in another
/// process after the run was serialized or checkpointed, can link to this run. Only the
/// `otel` feature can read a span's context; without it, or without a subscriber, this
/// does nothing.
pub(crate) fn keep_context(result: &mut crate::tool::result::ToolResult) {
    #[cfg(feature = "otel")]
    {
        use crate::tool::result::PENDING_KEY;
        let Some(pending) = result
            .metadata
            .as_mut()
            .and_then(|m| m.get_mut(PENDING_KEY))
            .and_then(serde_json::Value::as_object_mut)
        else {
            return;
        };
        let Some(trace) = crate::otel::link::context_of(&Span::current()) else {
            return;
        };
        if let Ok(trace) = serde_json::to_value(trace) {
            pending.insert("trace".to_owned(), trace);
        }
    }
    #[cfg(not(feature = "otel"))]
    let _ = result;
}

/// Links a resumed run's span (not yet entered) to the span of the run that halted on
/// the request it answers, when that run kept its context (feature `otel`).
pub(crate) fn link_to_halted(span: &Span, halted: Option<&crate::trace::TraceContext>) {
    #[cfg(feature = "otel")]
    if let Some(trace) = halted {
        crate::otel::link::link(span, trace);
    }
    #[cfg(not(feature = "otel"))]
    let _ = (span, halted);
}
