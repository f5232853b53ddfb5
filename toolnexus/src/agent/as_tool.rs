//! [`Client::as_tool`]: an agent, with its own model, prompt and toolkit, run as one tool of
//! another agent; its suspensions surface as the outer call's and resume back down.

use std::borrow::Cow;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::agent::client::Client;
use crate::agent::events::{Event, Listener};
use crate::agent::run::{RunResult, RunStatus};
use crate::model::Usage;
use crate::model::message::Message;
use crate::schema::canonical::schema_for;
use crate::tool::args::Args;
use crate::tool::context::Context;
use crate::tool::def::Tool;
use crate::tool::kit::Toolkit;
use crate::tool::request::{Answer, Request};
use crate::tool::result::ToolResult;

/// How deep agents run as tools may nest (an agent that reaches itself stops here). Each
/// level's run is polled from inside the level above it, on the same thread's stack; four
/// levels leave room on a 2 MiB thread stack (tokio's default) even in a debug build.
pub const DEFAULT_MAX_DEPTH: u32 = 4;

/// The key of a suspended agent's state in its request's `data`, in the request's wire
/// form (in memory the request keeps it apart from `data`).
pub use crate::tool::request::AGENT_STATE_KEY;

/// The key, in an agent tool's result `metadata`, of the agent's name (beside `turns`,
/// `totalTokens` and `usage` of its run).
pub const AGENT_KEY: &str = "agent";

/// Where a run stands among agents run as tools: how deep, under which agents, and the
/// nearest listener above (which gets the events of every run below, tagged).
#[derive(Clone, Default)]
pub(crate) struct AgentScope {
    pub(crate) depth: u32,
    pub(crate) path: Vec<String>,
    pub(crate) listener: Option<Arc<Listener>>,
}

tokio::task_local! {
    pub(crate) static SCOPE: AgentScope;
}

/// The scope of the current task (the top level when none was set).
pub(crate) fn current() -> AgentScope {
    SCOPE.try_with(Clone::clone).unwrap_or_default()
}

/// What an inner run keeps while it is halted: enough to resume it, from data alone. It
/// rides in the request it halted on ([`Request`]'s carried state).
#[derive(Serialize, Deserialize)]
struct AgentState {
    transcript: Vec<Message>,
    turns: u32,
    usage: Usage,
}

/// How a call's arguments become the inner run's prompt (or an error naming the field).
type Prompt = Box<dyn Fn(Value) -> Result<String, String> + Send + Sync>;

impl Client {
    /// This agent as one [`Tool`] of another agent: its input schema takes the task as
    /// `{"prompt": string}` (the contract's, §7D); a call runs this client (its model,
    /// system prompt, limits, hooks and events) on `toolkit` with that prompt, and the
    /// result is the run's final text, with the contract's metadata `{"agent": name,
    /// "turns", "totalTokens"}` of the inner run, and this crate's `usage` (the full
    /// breakdown, which the outer run adds to its own).
    ///
    /// - When a tool of the inner run suspends, the call suspends on the same [`Request`]
    ///   (id, kind, prompt, URL and data), which carries the inner run's state (in the
    ///   request's serialized form, inside `data` under [`AGENT_STATE_KEY`], non-object
    ///   data moving under `"value"`). Answering it, by
    ///   `wait_for` or by [`resume`](Client::resume) after a halt, resumes the inner run
    ///   where it stopped: no settled call runs again, at any depth.
    /// - The outer run's cancellation (and deadline) cancels the inner run. An inner run
    ///   that stops early (max turns, deadline, model error) is an error result saying why.
    /// - Agents nest at most [`DEFAULT_MAX_DEPTH`] deep; deeper, the call is an error.
    /// - The inner run's events reach the outer run's listener as [`Event::Agent`], tagged
    ///   with the path of agent names.
    ///
    /// ```
    /// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
    ///
    /// let researcher = Client::new(ScriptedModel::new([Reply::text("Rust is a language.")]))
    ///     .system("You research topics.")
    ///     .as_tool("research", "Research a topic.", Toolkit::new());
    /// let lead = Client::new(ScriptedModel::new([
    ///     Reply::call("c1", "research", r#"{"prompt": "Rust"}"#),
    ///     Reply::text("Done."),
    /// ]));
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// let run = rt.block_on(lead.run("Tell me about Rust.", &Toolkit::new().with(researcher)));
    /// assert_eq!(run.tool_calls[0].result.output, "Rust is a language.");
    /// ```
    pub fn as_tool(
        &self,
        name: impl Into<String>,
        description: impl Into<String>,
        toolkit: Toolkit,
    ) -> Tool {
        let schema = json!({
            "type": "object",
            "properties": {"prompt": {"type": "string", "description": "The task for the agent."}},
            "required": ["prompt"],
        });
        let name = crate::tool::def::sanitize_name(&name.into());
        let label = name.clone();
        let prompt: Prompt = Box::new(move |args: Value| match args.get("prompt") {
            Some(Value::String(prompt)) => Ok(prompt.clone()),
            _ => Err(format!(
                "agent `{label}`: the argument `prompt` must be a string (the task)"
            )),
        });
        self.agent_tool(name, description.into(), schema, toolkit, prompt)
    }

    /// This agent as one [`Tool`] whose input is typed: its input schema is `T`'s, as
    /// `#[tool]` derives it for an `#[args]` struct (the struct's own object schema), a
    /// call's arguments are read into a `T` (arguments that do not fit are an error result
    /// naming the tool and the field, and the agent does not run), and `prompt` makes the
    /// inner run's prompt from it. Everything else is as [`as_tool`](Client::as_tool).
    ///
    /// ```
    /// use serde::Deserialize;
    /// use toolnexus::{Client, Reply, ScriptedModel, Toolkit};
    ///
    /// /// A topic to research.
    /// #[derive(Deserialize, schemars::JsonSchema)]
    /// struct Topic {
    ///     /// What to look into.
    ///     subject: String,
    ///     /// How many sources to read.
    ///     sources: u8,
    /// }
    ///
    /// let researcher = Client::new(ScriptedModel::new([Reply::text("Rust is a language.")]))
    ///     .as_typed_tool("research", "Research a topic.", Toolkit::new(), |t: Topic| {
    ///         format!("Research {} in {} sources.", t.subject, t.sources)
    ///     });
    /// assert_eq!(researcher.input_schema()["required"], serde_json::json!(["subject", "sources"]));
    /// ```
    pub fn as_typed_tool<T, F>(
        &self,
        name: impl Into<String>,
        description: impl Into<String>,
        toolkit: Toolkit,
        prompt: F,
    ) -> Tool
    where
        T: DeserializeOwned + JsonSchema + 'static,
        F: Fn(T) -> String + Send + Sync + 'static,
    {
        let name = crate::tool::def::sanitize_name(&name.into());
        let label = name.clone();
        let prompt: Prompt = Box::new(move |args: Value| {
            Args::Value(args)
                .parse::<T>(&label)
                .map(&prompt)
                .map_err(|error| ToolResult::from(error).output)
        });
        self.agent_tool(name, description.into(), schema_for::<T>(), toolkit, prompt)
    }

    fn agent_tool(
        &self,
        name: String,
        description: String,
        schema: Value,
        toolkit: Toolkit,
        prompt: Prompt,
    ) -> Tool {
        let agent = Arc::new(Agent {
            name: name.clone(),
            client: self.clone(),
            toolkit,
            prompt,
        });
        Tool::new(name, description, schema, move |args, ctx| {
            let agent = Arc::clone(&agent);
            async move { agent.call(args, ctx).await }
        })
    }
}

struct Agent {
    name: String,
    client: Client,
    toolkit: Toolkit,
    prompt: Prompt,
}

impl Agent {
    async fn call(&self, args: Value, ctx: Context) -> ToolResult {
        let parent = current();
        if parent.depth >= DEFAULT_MAX_DEPTH {
            return ToolResult::error(format!(
                "agent `{}` not run: agents run as tools nest at most {DEFAULT_MAX_DEPTH} deep \
                 (path: {} > {})",
                self.name,
                parent.path.join(" > "),
                self.name
            ));
        }
        let mut path = parent.path.clone();
        path.push(self.name.clone());
        let client = self.client_for(&ctx, &parent, &path);
        let stamp = relay_path(&path);
        let scope = AgentScope {
            depth: parent.depth + 1,
            path,
            listener: parent.listener,
        };
        let (run, before, turns) = match (ctx.answer(), ctx.request()) {
            (Some(answer), Some(request)) => {
                // Boxed, like the fresh run below: each nested agent's run lives on the
                // heap, so a deep nest does not grow the polling thread's stack by a
                // whole run's state machine per level.
                let resumed = Box::pin(self.resume(&client, answer.clone(), request));
                match SCOPE.scope(scope, resumed).await {
                    Ok(resumed) => resumed,
                    Err(message) => return ToolResult::error(message),
                }
            }
            (Some(answer), None) => {
                // Without the request there is no halted run to take the answer to, and a
                // fresh run would run its settled calls again.
                return ToolResult::error(format!(
                    "agent `{}` got an answer to request `{}` without that request, which \
                     carries its halted run; call it again without an answer to start anew",
                    self.name, answer.id
                ));
            }
            (None, _) => {
                let input = match (self.prompt)(args) {
                    Ok(input) => input,
                    Err(message) => return ToolResult::error(message),
                };
                let fresh = Box::pin(client.run(input, &self.toolkit));
                (SCOPE.scope(scope, fresh).await, Usage::default(), 0)
            }
        };
        self.result(run, before, turns, stamp)
    }

    /// The inner client for one call: the outer call's cancellation, and a listener that
    /// also forwards to the outer one.
    fn client_for(&self, ctx: &Context, parent: &AgentScope, path: &[String]) -> Client {
        let mut client = self.client.clone();
        // The outer call's token (cancelled by the outer run's cancellation or deadline)
        // stops the inner run; one of the inner client's own stops it as well, since the
        // outer run then drops the call.
        if client.cancellation.is_none()
            && let Some(token) = ctx.cancellation()
        {
            client.cancellation = Some(token.clone());
        }
        // Inside a durable run (the call has an idempotency key) the outer run's record
        // covers this call: one store per tree of runs, so a request is parked once.
        if ctx.idempotency_key().is_some() {
            client.store = None;
        }
        if let Some(outer) = parent.listener.clone() {
            let own = client.tools.listener.clone();
            let path: Arc<[String]> = path.into();
            client.tools.listener = Some(Arc::new(move |event: &Event<'_>| {
                if let Some(own) = &own {
                    own(event);
                }
                // An agent event from further down already names its whole path; any
                // other nests in one, as a clone that borrows what the event borrows.
                match event {
                    Event::Agent { .. } => outer(event),
                    _ => outer(&Event::Agent {
                        path: Cow::Borrowed(&path),
                        event: Box::new(event.clone()),
                    }),
                }
            }));
        }
        client
    }

    /// Resumes the halted inner run whose state `request` carries, with `answer`.
    async fn resume(
        &self,
        client: &Client,
        answer: Answer,
        request: &Request,
    ) -> Result<(RunResult, Usage, u32), String> {
        let state = request.agent_state().ok_or_else(|| {
            format!(
                "agent `{}` cannot resume: request `{}` carries no `{AGENT_STATE_KEY}` state",
                self.name, request.id
            )
        })?;
        let halted = AgentState::deserialize(state).map_err(|error| {
            format!(
                "agent `{}` cannot resume: its state in request `{}` is malformed: {error}",
                self.name, request.id
            )
        })?;
        if !waits_on(&halted.transcript, &request.id) {
            return Err(format!(
                "agent `{}` cannot resume: its run is not waiting on request `{}`",
                self.name, request.id
            ));
        }
        let run = client
            .resume(halted.transcript, answer, &self.toolkit)
            .await
            .map_err(|error| format!("agent `{}` cannot resume: {error}", self.name))?;
        Ok((run, halted.usage, halted.turns))
    }

    /// The tool result for an inner run (with the usage and turns of its earlier legs);
    /// a suspension relayed up carries `path` in its `data.path`.
    fn result(&self, run: RunResult, before: Usage, turns: u32, path: Vec<String>) -> ToolResult {
        let usage = before + run.usage;
        let turns = turns + run.turns;
        let meta = |result: ToolResult| {
            result
                .with_metadata(AGENT_KEY, self.name.clone())
                .with_metadata("turns", turns)
                .with_metadata("totalTokens", usage.total_tokens())
                .with_metadata("usage", json!(usage))
        };
        match &run.status {
            RunStatus::Done => meta(ToolResult::ok(run.text)),
            RunStatus::Pending => match run.pending {
                Some(request) => {
                    let halted = AgentState {
                        transcript: run.messages,
                        turns,
                        usage,
                    };
                    ToolResult::pending(carry(request, &halted, path))
                }
                None => ToolResult::error(format!(
                    "agent `{}` halted without a request to answer",
                    self.name
                )),
            },
            RunStatus::Incomplete { reason } => {
                let last = if run.text.is_empty() {
                    String::new()
                } else {
                    format!("; its last text: {}", run.text)
                };
                meta(ToolResult::error(format!(
                    "agent `{}` stopped: {reason}{last}",
                    self.name
                )))
            }
        }
    }
}

/// The contract's `data.path` of a suspension relayed by the agent at `names` (the agents
/// from the outermost down): the id path the Python port's runtime gives the handle of an
/// agent run on its own (`root`, then each agent as its first spawn, `name.1`). Each
/// relaying level stamps its own, so the outermost agent's path is the one a host sees.
fn relay_path(names: &[String]) -> Vec<String> {
    std::iter::once("root".to_owned())
        .chain(names.iter().map(|name| format!("{name}.1")))
        .collect()
}

/// Whether `request` carries the state of a halted inner run (an answer to it, even a
/// decline, goes back to the agent tool, which takes it down to the call that asked), or
/// of a suspended script (code mode: the decline goes back to `run_code` likewise).
pub(crate) fn carries_state(request: Option<&Request>) -> bool {
    request.is_some_and(|r| r.carries_agent_state() || r.carries_code_state())
}

/// Whether a call re-run with the answer to request `answered` parks again rightly: a
/// script (code mode) replayed with the answer, on its next request.
pub(crate) fn parks_again(result: &ToolResult, answered: &str) -> bool {
    result
        .pending_request()
        .is_some_and(|next| next.carries_code_state() && next.id != answered)
}

/// Whether an inner run's transcript has a call parked on the request `id`.
fn waits_on(transcript: &[Message], id: &str) -> bool {
    transcript.iter().rev().any(|m| {
        matches!(m, Message::Tool {
            pending: Some(request),
            ..
        } if request.id == id)
    })
}

/// `request` carrying the inner run's state (in place of the state of any run below,
/// which that state's transcript holds).
fn carry(request: Request, halted: &AgentState, path: Vec<String>) -> Request {
    let state = serde_json::to_value(halted).unwrap_or(Value::Null);
    request.with_agent_state(state, path)
}

/// The usage of the inner run of an agent called as a tool (none for other tools).
pub(crate) fn inner_usage(call: &crate::agent::run::CallRecord) -> crate::model::Usage {
    let Some(meta) = call.result.metadata.as_ref() else {
        return crate::model::Usage::default();
    };
    if !meta
        .get(AGENT_KEY)
        .is_some_and(serde_json::Value::is_string)
    {
        return crate::model::Usage::default();
    }
    meta.get("usage")
        .and_then(|usage| <crate::model::Usage as serde::Deserialize>::deserialize(usage).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn halted() -> AgentState {
        AgentState {
            transcript: vec![Message::user("secret task")],
            turns: 1,
            usage: Usage::default(),
        }
    }

    #[test]
    fn a_shown_request_has_its_own_data_and_no_agent_state() {
        let cases = [
            None,
            Some(json!({"type": "object", "properties": {}})),
            Some(json!("a string")),
            Some(json!({"value": 3})),
        ];
        for data in cases {
            let mut asked = Request::approval("Deploy?").with_id("r1");
            asked.data = data.clone();
            // Two agents up, each time through the request's wire form (a pending tool
            // result carries it as JSON): the state rides in `data`.
            let once: Request = serde_json::from_value(
                carry(asked.clone(), &halted(), relay_path(&["a".into()])).to_value(),
            )
            .expect("the wire form reads back");
            let wire = carry(once, &halted(), relay_path(&["a".into()])).to_value();
            assert!(wire["data"].get(AGENT_STATE_KEY).is_some(), "{wire}");
            let read: Request = serde_json::from_value(wire.clone()).expect("reads back");
            assert_eq!(read.to_value(), wire, "the wire form survives a round trip");
            assert!(carries_state(Some(&read)));
            let shown = read.shown().into_owned();
            assert_eq!(shown, asked, "{data:?}");
            assert!(!carries_state(Some(&shown)));
            assert!(!shown.to_value().to_string().contains(AGENT_STATE_KEY));
        }
    }

    #[test]
    fn the_wire_form_is_the_one_of_earlier_versions_with_the_contracts_path() {
        let state = serde_json::to_value(halted()).unwrap();
        let mut wrapped = state.clone();
        wrapped["wrapped"] = json!(true);
        let asked = Request::approval("Deploy?").with_id("r1");
        let path = json!(["root", "a.1"]);
        let cases = [
            (None, json!({AGENT_STATE_KEY: state, "path": path})),
            (
                Some(json!({"env": "prod"})),
                json!({"env": "prod", AGENT_STATE_KEY: state, "path": path}),
            ),
            (
                Some(json!("a string")),
                json!({"value": "a string", AGENT_STATE_KEY: wrapped, "path": path}),
            ),
        ];
        for (data, on_the_wire) in cases {
            let mut request = asked.clone();
            request.data = data.clone();
            let wire = carry(request, &halted(), relay_path(&["a".into()])).to_value();
            assert_eq!(wire["data"], on_the_wire);
            assert_eq!(
                serde_json::to_string(&wire["data"]).unwrap(),
                serde_json::to_string(&on_the_wire).unwrap(),
                "the keys in the same order"
            );
            let read: Request = serde_json::from_value(wire.clone()).unwrap();
            assert_eq!(
                read.path(),
                Some(&["root".to_owned(), "a.1".to_owned()][..])
            );
            assert_eq!(read.data, data);
            // As earlier versions wrote it (no path), it reads back the same, pathless.
            let mut old = wire;
            old["data"].as_object_mut().unwrap().remove("path");
            let read: Request = serde_json::from_value(old).unwrap();
            assert_eq!((read.path(), &read.data), (None, &data));
            assert!(read.agent_state().is_some());
        }
    }
}
