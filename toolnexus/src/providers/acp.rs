//! [`Acp`]: an agent spoken to over the Agent Client Protocol (JSON-RPC 2.0, one object a
//! line, over a child process's stdin and stdout) as a [`Model`].

use std::collections::HashMap;
use std::fmt;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};

use crate::model::message::Message;
use crate::model::{
    Model, ModelError, ModelErrorKind, ModelFuture, ModelInfo, ModelRequest, Reply,
};

/// The marker naming the current turn as superseding the rest of the prompt, as the
/// contract's Python port (0.21.0, `acp.py`) writes it.
pub const SUPERSEDES_MARKER: &str = "SUPERSEDES-ALL-PRIOR";

/// An agent spoken to over the [Agent Client Protocol](https://agentclientprotocol.com)
/// (`devin acp`, Gemini CLI, Zed's agents, any agent built on the ACP SDKs), as a
/// [`Model`]: the process is started once, `initialize` and `session/new` open one
/// session, and each model turn is one `session/prompt` on it.
///
/// It behaves as the contract's Python port (0.21.0, `acp.py`) does:
///
/// - **The prompt**: the session keeps its own history, and the loop sends the whole
///   transcript every turn; so each turn's prompt is the transcript as `role: text`
///   lines, ended by the line `SUPERSEDES-ALL-PRIOR: <the last user text>`, which names
///   the current turn as superseding the rest ([`SUPERSEDES_MARKER`]).
/// - **The reply**: only `agent_message_chunk` updates form it; the agent's thoughts and
///   its tool-call narration are dropped. The agent runs its own tools: the toolkit is
///   not offered to it, and its replies carry no tool calls.
/// - **Permissions**: a `session/request_permission` is answered at once with the first
///   option whose kind starts with `allow` (or `cancelled` when there is none), never
///   left waiting; any other request from the agent gets an empty result.
/// - A turn without its `session/prompt` reply within [`Acp::timeout`] (default
///   5 minutes) fails with a [`Timeout`](ModelErrorKind::Timeout) error.
///
/// Turns on one `Acp` are one conversation: they run one at a time. The process is
/// killed when the last clone is dropped.
///
/// ```no_run
/// # async fn demo() -> Result<(), toolnexus::ModelError> {
/// use toolnexus::providers::Acp;
/// use toolnexus::{Client, Toolkit};
///
/// let agent = Acp::spawn("gemini", ["--experimental-acp"]).await?;
/// let run = Client::new(agent).run("Summarize README.md", &Toolkit::new()).await;
/// # let _ = run; Ok(()) }
/// ```
#[derive(Clone)]
pub struct Acp {
    inner: Arc<Inner>,
    timeout: Duration,
}

struct Inner {
    command: String,
    session: String,
    next: AtomicU64,
    writer: mpsc::UnboundedSender<String>,
    pending: Arc<Pending>,
    chunks: Arc<Mutex<String>>,
    turn: tokio::sync::Mutex<()>,
    _child: Child,
}

type Pending = Mutex<HashMap<u64, oneshot::Sender<Value>>>;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Acp {
    /// Starts `command` with `args` in the current directory and opens a session.
    pub async fn spawn<I, S>(command: &str, args: I) -> Result<Acp, ModelError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let cwd = std::env::current_dir()
            .map_err(|e| ModelError::with_source("acp: cannot read the current directory", e))?;
        Acp::spawn_in(command, args, &cwd).await
    }

    /// Starts `command` with `args` in `cwd` (an absolute path, which `session/new`
    /// also gets) and opens a session.
    pub async fn spawn_in<I, S>(
        command: &str,
        args: I,
        cwd: &std::path::Path,
    ) -> Result<Acp, ModelError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let cwd = std::path::absolute(cwd).map_err(|e| {
            ModelError::with_source(format!("acp: bad directory {}", cwd.display()), e)
        })?;
        let mut child = Command::new(command)
            .args(args)
            .current_dir(&cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ModelError::with_source(format!("acp: could not start `{command}`"), e))?;
        let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ModelError::new(
                "acp: the child process has no stdin or stdout",
            ));
        };
        let (writer, mut lines) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(line) = lines.recv().await {
                if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let pending: Arc<Pending> = Arc::default();
        let chunks: Arc<Mutex<String>> = Arc::default();
        tokio::spawn(read(
            stdout,
            writer.clone(),
            Arc::clone(&pending),
            Arc::clone(&chunks),
        ));
        let mut inner = Inner {
            command: command.to_owned(),
            session: String::new(),
            next: AtomicU64::new(0),
            writer,
            pending,
            chunks,
            turn: tokio::sync::Mutex::new(()),
            _child: child,
        };
        let handshake = Duration::from_secs(30);
        let capabilities = json!({"fs": {"readTextFile": false, "writeTextFile": false}});
        let init = json!({"protocolVersion": 1, "clientCapabilities": capabilities});
        inner.call("initialize", init, handshake).await?;
        let params = json!({"cwd": cwd.to_string_lossy(), "mcpServers": []});
        let session = inner.call("session/new", params, handshake).await?;
        inner.session = match session.get("sessionId").and_then(Value::as_str) {
            Some(id) => id.to_owned(),
            None => {
                return Err(ModelError::new(format!(
                    "acp: `{command}` answered session/new without a sessionId: {session}"
                )));
            }
        };
        Ok(Acp {
            inner: Arc::new(inner),
            timeout: Duration::from_secs(300),
        })
    }

    /// Sets how long a turn may wait for its `session/prompt` reply.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Acp {
        self.timeout = timeout;
        self
    }

    /// The session's id, as the agent named it.
    pub fn session_id(&self) -> &str {
        &self.inner.session
    }

    async fn turn(&self, transcript: &[Message]) -> Result<Reply, ModelError> {
        let inner = &self.inner;
        let _one_at_a_time = inner.turn.lock().await;
        lock(&inner.chunks).clear();
        let params = json!({"sessionId": inner.session,
            "prompt": [{"type": "text", "text": render(transcript)}]});
        inner.call("session/prompt", params, self.timeout).await?;
        let text = std::mem::take(&mut *lock(&inner.chunks));
        Ok(Reply::text(text))
    }
}

impl Inner {
    /// One request, and its result (or the error it got).
    async fn call(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ModelError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let command = &self.command;
        if self.writer.send(format!("{line}\n")).is_err() {
            return Err(ModelError::new(format!(
                "acp: `{command}` has exited; {method} was not sent"
            ))
            .with_kind(ModelErrorKind::Connection));
        }
        let answer = match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => {
                return Err(ModelError::new(format!(
                    "acp: `{command}` closed the connection during {method}"
                ))
                .with_kind(ModelErrorKind::Connection));
            }
            Err(_) => {
                lock(&self.pending).remove(&id);
                return Err(ModelError::new(format!(
                    "acp: {method} to `{command}` got no reply within {:.0} s",
                    timeout.as_secs_f64()
                ))
                .with_kind(ModelErrorKind::Timeout));
            }
        };
        if let Some(error) = answer.get("error") {
            return Err(ModelError::new(format!(
                "acp: `{command}` refused {method}: error {}: {}",
                error.get("code").unwrap_or(&Value::Null),
                error.get("message").and_then(Value::as_str).unwrap_or("")
            ))
            .with_kind(ModelErrorKind::Refused));
        }
        Ok(answer.get("result").cloned().unwrap_or(Value::Null))
    }
}

/// Reads the agent's lines: replies to our requests, `session/update` notifications
/// (message chunks kept), and requests from the agent (answered at once).
async fn read(
    stdout: tokio::process::ChildStdout,
    writer: mpsc::UnboundedSender<String>,
    pending: Arc<Pending>,
    chunks: Arc<Mutex<String>>,
) {
    let mut lines = BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        let id = message.get("id").filter(|id| !id.is_null());
        match (message.get("method").and_then(Value::as_str), id) {
            (None, Some(id)) => {
                let waiting = id.as_u64().and_then(|id| lock(&pending).remove(&id));
                if let Some(waiting) = waiting {
                    let _ = waiting.send(message);
                }
            }
            (Some("session/update"), _) => {
                let update = &message["params"]["update"];
                if update["sessionUpdate"] == "agent_message_chunk"
                    && let Some(text) = update["content"]["text"].as_str()
                {
                    lock(&chunks).push_str(text);
                }
            }
            (Some(method), Some(id)) => {
                let result = match method {
                    "session/request_permission" => permission(&message["params"]),
                    _ => json!({}),
                };
                let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
                let _ = writer.send(format!("{answer}\n"));
            }
            _ => {}
        }
    }
    // The agent is gone: every request still waiting fails.
    lock(&pending).clear();
}

/// The answer to a permission request: its first `allow…` option, else cancelled.
fn permission(params: &Value) -> Value {
    let options = params["options"].as_array().into_iter().flatten();
    let allowed = options
        .filter(|o| o["kind"].as_str().is_some_and(|k| k.starts_with("allow")))
        .find_map(|o| o["optionId"].as_str());
    match allowed {
        Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    }
}

/// The transcript as one prompt: `role: text` lines, then the supersedes marker on the
/// last user text.
pub(crate) fn render(transcript: &[Message]) -> String {
    let mut lines = Vec::new();
    let mut last_user = None;
    for message in transcript {
        // An agent's prompt here is text: a part other than text is named, not sent.
        let user = |content: &crate::model::message::UserContent| {
            let mut text = content.text().into_owned();
            for part in content.parts().iter().filter(|p| p.as_text().is_none()) {
                text.push_str(&format!(" [{} not sent]", part.summary()));
            }
            text
        };
        let (role, text) = match message {
            Message::System { content } => ("system", Some(content.as_str().into())),
            Message::User { content } => ("user", Some(std::borrow::Cow::Owned(user(content)))),
            Message::Assistant { content, .. } => ("assistant", content.as_deref().map(Into::into)),
            Message::Tool { content, .. } => ("tool", Some(content.as_str().into())),
        };
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            continue;
        };
        lines.push(format!("{role}: {text}"));
        if role == "user" {
            last_user = Some(text.to_string());
        }
    }
    let last = last_user
        .or_else(|| lines.last().cloned())
        .unwrap_or_default();
    lines.push(format!("{SUPERSEDES_MARKER}: {last}"));
    lines.join("\n")
}

impl Model for Acp {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        if let Err(error) = request.refuse_settings() {
            return Box::pin(async move { Err(error) });
        }
        Box::pin(self.turn(request.transcript))
    }

    fn describe(&self) -> ModelInfo<'_> {
        ModelInfo::default()
            .with_name(&self.inner.command)
            .with_provider("acp")
    }
}

impl fmt::Debug for Acp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Acp")
            .field("command", &self.inner.command)
            .field("session", &self.inner.session)
            .field("timeout", &self.timeout)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_is_the_transcript_with_the_supersedes_marker() {
        let transcript = [
            Message::system("Be brief."),
            Message::user("hi"),
            Message::assistant("hello"),
            Message::user("again"),
        ];
        assert_eq!(
            render(&transcript),
            "system: Be brief.\nuser: hi\nassistant: hello\nuser: again\nSUPERSEDES-ALL-PRIOR: again"
        );
    }

    #[test]
    fn a_permission_request_takes_the_first_allow_option() {
        let params = json!({"options": [
            {"optionId": "no", "kind": "reject_once"},
            {"optionId": "yes", "kind": "allow_once"},
            {"optionId": "always", "kind": "allow_always"}]});
        assert_eq!(permission(&params)["outcome"]["optionId"], "yes");
        assert_eq!(permission(&json!({}))["outcome"]["outcome"], "cancelled");
    }
}
