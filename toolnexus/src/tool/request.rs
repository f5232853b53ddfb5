//! Suspensions: the [`Request`] a tool raises, the [`Answer`] a host gives back, and
//! [`Suspend`], the value a tool returns to raise a request.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// Unique id; the [`Answer`] that resolves this request carries the same one.
    pub id: String,
    /// What is asked for. An open vocabulary: `"input"`, `"authorization"`,
    /// `"approval"`, `"question"`, …
    pub kind: String,
    /// The sentence shown to whoever resolves the request (and to the model).
    pub prompt: String,
    /// Where to go to resolve it (an authorization page, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Anything else the host needs: choices, a schema for the expected input, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// When the request stops being answerable, as an RFC 3339 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// The trace context of the run that halted on this request, set by the loop when a
    /// tracing subscriber with the `otel` layer records the run: a resume links its span
    /// to that run's. `None` otherwise, and in requests serialized before it existed.
    /// (Boxed: most requests have none, and requests travel inside results and errors.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Box<crate::trace::TraceContext>>,
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
