//! Suspensions: the [`Request`] a tool raises, the [`Answer`] a host gives back, and
//! [`Suspend`], the value a tool returns to raise a request.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The key under which a request's wire form carries, in its `data`, the state of the
/// halted agent runs it came up through (see [`Client::as_tool`](crate::Client::as_tool)).
pub const AGENT_STATE_KEY: &str = "toolnexus.agent";

/// The key under which a request's `data` carries a suspended script's state (code mode:
/// `toolnexus::code::CODE_STATE_KEY`).
pub(crate) const CODE_STATE_KEY: &str = "toolnexus.code";

/// Something a tool needs from outside before it can finish: typed input, a login, an
/// approval, an answer to a question.
///
/// A tool raises it by returning [`Suspend`] (or [`ToolResult::pending`](crate::ToolResult::pending));
/// the host resolves it with an [`Answer`] carrying the same `id`, and the tool runs again
/// with that answer in [`Context::answer`](crate::Context::answer).
///
/// Wire keys: `id, kind, prompt, url?, data?, expiresAt?, trace?` (absent optionals omitted).
///
/// ```
/// use toolnexus::Request;
///
/// let req = Request::authorization("https://example.com/login", "Log in");
/// assert_eq!(req.kind, "authorization");
/// assert_eq!(req.url.as_deref(), Some("https://example.com/login"));
/// assert!(!req.id.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Unique id; the [`Answer`] that resolves this request carries the same one.
    pub id: String,
    /// What is asked for. An open vocabulary: `"input"`, `"authorization"`,
    /// `"approval"`, `"question"`, …
    pub kind: String,
    /// The sentence shown to whoever resolves the request (and to the model).
    pub prompt: String,
    /// Where to go to resolve it (an authorization page, say).
    pub url: Option<String>,
    /// Anything else the host needs: choices, a schema for the expected input, …
    pub data: Option<Value>,
    /// When the request stops being answerable, as an RFC 3339 timestamp.
    pub expires_at: Option<String>,
    /// The trace context of the run that halted on this request, set by the loop when a
    /// tracing subscriber with the `otel` layer records the run: a resume links its span
    /// to that run's. `None` otherwise, and in requests serialized before it existed.
    /// (Boxed: most requests have none, and requests travel inside results and errors.)
    pub trace: Option<Box<crate::trace::TraceContext>>,
    /// What the tools that relay this request up carry in it to take its answer back
    /// down: the state of a halted agent run as a tool, and that agent's id path. On the
    /// wire they ride in `data` (under [`AGENT_STATE_KEY`] and the contract's `path`); in
    /// memory `data` is the asking tool's own.
    carried: Option<Box<Carried>>,
}

impl Request {
    /// A request of any `kind`, with a freshly generated unique id.
    pub fn new(kind: impl Into<String>, prompt: impl Into<String>) -> Self {
        Request {
            id: new_request_id(),
            kind: kind.into(),
            prompt: prompt.into(),
            url: None,
            data: None,
            expires_at: None,
            trace: None,
            carried: None,
        }
    }

    /// Asks for typed input (`kind: "input"`).
    pub fn input(prompt: impl Into<String>) -> Self {
        Request::new("input", prompt)
    }

    /// Asks the user to authorize at `url` (`kind: "authorization"`).
    pub fn authorization(url: impl Into<String>, prompt: impl Into<String>) -> Self {
        Request::new("authorization", prompt).with_url(url)
    }

    /// Asks for a yes/no approval (`kind: "approval"`).
    pub fn approval(prompt: impl Into<String>) -> Self {
        Request::new("approval", prompt)
    }

    /// Asks a free-form question (`kind: "question"`).
    pub fn question(prompt: impl Into<String>) -> Self {
        Request::new("question", prompt)
    }

    /// Replaces the generated id (for fixed ids in tests or durable workflows).
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    /// Sets the URL.
    #[must_use]
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// Sets the extra data.
    #[must_use]
    pub fn with_data(mut self, data: impl Into<Value>) -> Self {
        self.data = Some(data.into());
        self
    }

    /// Sets the expiry (an RFC 3339 timestamp).
    #[must_use]
    pub fn with_expires_at(mut self, expires_at: impl Into<String>) -> Self {
        self.expires_at = Some(expires_at.into());
        self
    }

    /// A positive [`Answer`] to this request, carrying `data`.
    pub fn answer(&self, data: impl Into<Value>) -> Answer {
        Answer::accept(&self.id).with_data(data)
    }

    /// A negative [`Answer`] to this request (declined or expired), with a reason.
    pub fn decline(&self, reason: impl Into<String>) -> Answer {
        Answer::decline(&self.id, reason)
    }

    pub(crate) fn to_value(&self) -> Value {
        // Serializing a struct of strings and JSON values into a `Value` cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The contract's `data.path` of a request an agent run as a tool relayed: the id
    /// path of the agent it came up through (`["root", "researcher.1"]`), as the Python
    /// port's agent runtime writes it; `None` for a request no agent relayed, and for one
    /// written by an earlier build of this crate. (On the wire it is `data.path`; in
    /// memory `data` stays the asking tool's own.)
    pub fn path(&self) -> Option<&[String]> {
        self.carried.as_ref()?.path.as_deref()
    }

    /// The state of the halted agent run (run as a tool) this request came up through:
    /// the nearest one above the tool that asked, which holds those further down. A
    /// request whose `data` was written by hand in the wire form carries it there.
    pub(crate) fn agent_state(&self) -> Option<&Value> {
        match &self.carried {
            Some(carried) => Some(&carried.state),
            None => self.data.as_ref()?.get(AGENT_STATE_KEY),
        }
    }

    /// Whether this request carries a halted agent run's state (an answer to it, even a
    /// decline, goes back to the agent tool, which takes it down to the call that asked).
    pub(crate) fn carries_agent_state(&self) -> bool {
        self.agent_state().is_some()
    }

    /// Whether this request carries a suspended script's state (code mode, see
    /// `toolnexus::code`): an answer to it, even a decline, goes back to `run_code`,
    /// which replays the script; and the replay may suspend again, on the script's next
    /// request.
    pub(crate) fn carries_code_state(&self) -> bool {
        self.data
            .as_ref()
            .is_some_and(|data| data.get(CODE_STATE_KEY).is_some())
    }

    /// This request carrying `state`, the state of the halted agent run it came up
    /// through, and that agent's id `path`, in place of any it carried.
    #[must_use]
    pub(crate) fn with_agent_state(mut self, state: Value, path: Vec<String>) -> Self {
        self.carried = Some(Box::new(Carried {
            state,
            path: Some(path),
        }));
        self
    }

    /// This request as whoever answers it may see it: without any halted run's state, its
    /// data as the tool that asked wrote it. (A server that hands a request to a client
    /// keeps the whole one to itself, sealed, and gives it back to the agent tool with
    /// the answer.)
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))] // only MCP hands requests out
    pub(crate) fn shown(&self) -> Cow<'_, Request> {
        let written = self
            .data
            .as_ref()
            .is_some_and(|data| data.get(AGENT_STATE_KEY).is_some());
        if self.carried.is_none() && !written {
            return Cow::Borrowed(self);
        }
        let mut shown = self.clone();
        shown.carried = None;
        if written {
            shown.data = wire::split(shown.data.take()).0;
        }
        Cow::Owned(shown)
    }
}

/// What a request carries for the agent runs it came up through: their state (opaque
/// here: the agent layer writes and reads it) and the relaying agent's id path.
#[derive(Debug, Clone, PartialEq)]
struct Carried {
    state: Value,
    /// `None` in a request written before paths were.
    path: Option<Vec<String>>,
}

/// A [`Request`]'s wire form: the fields, with a carried state inside `data`.
mod wire {
    use super::*;

    /// Set in a carried state when the request's own `data` was not an object and moved
    /// under `"value"` beside it.
    const WRAPPED: &str = "wrapped";

    /// The contract's key of the relaying agent's id path in `data`.
    const PATH: &str = "path";

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Written<'a> {
        id: &'a str,
        kind: &'a str,
        prompt: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<&'a String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<Cow<'a, Value>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        expires_at: Option<&'a String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        trace: Option<&'a crate::trace::TraceContext>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Read {
        id: String,
        kind: String,
        prompt: String,
        #[serde(default)]
        url: Option<String>,
        #[serde(default)]
        data: Option<Value>,
        #[serde(default)]
        expires_at: Option<String>,
        #[serde(default)]
        trace: Option<Box<crate::trace::TraceContext>>,
    }

    impl Serialize for Request {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let data = match &self.carried {
                None => self.data.as_ref().map(Cow::Borrowed),
                Some(carried) => Some(Cow::Owned(join(self.data.as_ref(), carried))),
            };
            Written {
                id: &self.id,
                kind: &self.kind,
                prompt: &self.prompt,
                url: self.url.as_ref(),
                data,
                expires_at: self.expires_at.as_ref(),
                trace: self.trace.as_deref(),
            }
            .serialize(serializer)
        }
    }

    impl<'de> Deserialize<'de> for Request {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let read = Read::deserialize(deserializer)?;
            let (data, carried) = split(read.data);
            Ok(Request {
                id: read.id,
                kind: read.kind,
                prompt: read.prompt,
                url: read.url,
                data,
                expires_at: read.expires_at,
                trace: read.trace,
                carried,
            })
        }
    }

    /// `data` with the carried state beside it under [`AGENT_STATE_KEY`] and the path
    /// under `path`: data that is not an object moves under `"value"`, and the state says
    /// so.
    fn join(data: Option<&Value>, carried: &Carried) -> Value {
        let mut state = carried.state.clone();
        let (mut map, wrapped) = match data {
            Some(Value::Object(map)) => (map.clone(), false),
            None | Some(Value::Null) => (Map::new(), false),
            Some(other) => (Map::from_iter([("value".to_owned(), other.clone())]), true),
        };
        if let Value::Object(fields) = &mut state {
            fields.remove(WRAPPED);
            if wrapped {
                fields.insert(WRAPPED.to_owned(), Value::Bool(true));
            }
        }
        map.insert(AGENT_STATE_KEY.to_owned(), state);
        if let Some(path) = &carried.path {
            let path = path.iter().cloned().map(Value::String).collect();
            map.insert(PATH.to_owned(), Value::Array(path));
        }
        Value::Object(map)
    }

    /// The request's own data and what is carried beside it, out of wire-form `data`
    /// (a `path` is the carried one only beside a carried state: an earlier build wrote
    /// none, and a request relayed by the agent runtime has its path in its own data).
    pub(super) fn split(data: Option<Value>) -> (Option<Value>, Option<Box<Carried>>) {
        let mut map = match data {
            Some(Value::Object(map)) if map.contains_key(AGENT_STATE_KEY) => map,
            other => return (other, None),
        };
        let mut state = map.remove(AGENT_STATE_KEY).unwrap_or(Value::Null);
        let path = match map.remove(PATH) {
            Some(Value::Array(segments)) => segments
                .into_iter()
                .map(|s| match s {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect::<Option<Vec<String>>>(),
            _ => None,
        };
        let wrapped = match &mut state {
            Value::Object(fields) => fields.remove(WRAPPED) == Some(Value::Bool(true)),
            _ => false,
        };
        let data = match map.remove("value") {
            Some(value) if wrapped && map.is_empty() => Some(value),
            Some(value) => {
                map.insert("value".to_owned(), value);
                Some(Value::Object(map))
            }
            None if map.is_empty() => None,
            None => Some(Value::Object(map)),
        };
        (data, Some(Box::new(Carried { state, path })))
    }
}

fn new_request_id() -> String {
    format!("req-{}", uuid::Uuid::new_v4().simple())
}

/// The host's reply to a [`Request`]: the same `id`, whether it was granted, and any data.
///
/// Wire keys: `id, ok, data?, reason?`.
///
/// ```
/// use toolnexus::{Answer, Request};
///
/// let req = Request::input("Which environment?");
/// let answer = req.answer("staging");
/// assert!(answer.ok);
/// assert_eq!(answer.id, req.id);
/// assert_eq!(answer.data, Some("staging".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The id of the [`Request`] this answers.
    pub id: String,
    /// `true` when the request was granted / answered, `false` when declined or expired.
    pub ok: bool,
    /// The answer's payload (the typed input, a token, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Why the request was declined, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Answer {
    /// A positive answer to the request with this id, with no data yet.
    pub fn accept(id: impl Into<String>) -> Self {
        Answer {
            id: id.into(),
            ok: true,
            data: None,
            reason: None,
        }
    }

    /// A negative answer to the request with this id.
    pub fn decline(id: impl Into<String>, reason: impl Into<String>) -> Self {
        Answer {
            id: id.into(),
            ok: false,
            data: None,
            reason: Some(reason.into()),
        }
    }

    /// Sets the payload.
    #[must_use]
    pub fn with_data(mut self, data: impl Into<Value>) -> Self {
        self.data = Some(data.into());
        self
    }

    /// The payload as a string slice, when it is a JSON string.
    pub fn text(&self) -> Option<&str> {
        self.data.as_ref()?.as_str()
    }
}

/// What a tool returns to say "I cannot finish until something out-of-band happens".
///
/// Return it directly, or as the error of a `Result` (`Result<T, Suspend>`); either way it
/// becomes [`ToolResult::pending`](crate::ToolResult::pending).
///
/// `Suspend` deliberately does not implement `Display`: a suspension is not an error
/// message, and keeping it apart lets `Result<T, Suspend>` and `Result<T, E: Display>` map
/// differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Suspend(pub Request);

impl Suspend {
    /// Suspends with a `kind: "input"` request.
    pub fn input(prompt: impl Into<String>) -> Self {
        Suspend(Request::input(prompt))
    }

    /// Suspends with a `kind: "authorization"` request.
    pub fn authorization(url: impl Into<String>, prompt: impl Into<String>) -> Self {
        Suspend(Request::authorization(url, prompt))
    }

    /// Suspends with a `kind: "approval"` request.
    pub fn approval(prompt: impl Into<String>) -> Self {
        Suspend(Request::approval(prompt))
    }
}

impl From<Request> for Suspend {
    fn from(request: Request) -> Self {
        Suspend(request)
    }
}
