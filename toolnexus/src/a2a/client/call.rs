//! One call of a skill's tool: send the message (or the answer to the task's question),
//! follow the task, and say how it ended as a [`ToolResult`].

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::Shared;
use super::http::{Failure, Method, SseStream};
use crate::a2a::wire::{
    self, A2aMessage, ANSWER_KEY, Artifact, Dialect, Part, REQUEST_KEY, StreamEvent, Task,
    TaskState, TaskStatus,
};
use crate::tool::context::Context;
use crate::tool::request::{Answer, Request};
use crate::tool::result::ToolResult;

/// The key of a pending request's `data` that says which remote task it belongs to.
pub(crate) const CONTINUATION_KEY: &str = "a2a";

/// Where the call stands: the task as last seen, and the counters of the metadata.
struct Track<'a> {
    shared: &'a Shared,
    task: Task,
    polls: u64,
    started: Instant,
    /// The status the task asked with, when this call answers it: a snapshot still
    /// showing it (a server may give the task as it was before taking the answer in)
    /// is not the task asking again.
    asked: Option<Asked>,
}

/// A status that asked, told apart from a later one: its time and its message's id.
#[derive(Debug, Clone, PartialEq)]
struct Asked {
    at: Option<String>,
    message_id: Option<String>,
}

impl Asked {
    fn of(status: &TaskStatus) -> Asked {
        Asked {
            at: status.timestamp.clone(),
            message_id: status
                .message
                .as_ref()
                .map(|m| m.message_id.clone())
                .filter(|id| !id.is_empty()),
        }
    }
}

impl Track<'_> {
    fn metadata(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert("agent".into(), self.shared.peer.name.clone().into());
        meta.insert("taskId".into(), self.task.id.clone().into());
        meta.insert("contextId".into(), self.task.context_id.clone().into());
        meta.insert("state".into(), self.task.status.state.as_str().into());
        meta.insert("polls".into(), self.polls.into());
        let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        meta.insert("ms".into(), ms.into());
        meta
    }

    fn finish(&self, mut result: ToolResult) -> ToolResult {
        let meta = result.metadata.get_or_insert_with(Map::new);
        for (key, value) in self.metadata() {
            meta.entry(key).or_insert(value);
        }
        result
    }

    fn error(&self, text: impl Into<String>) -> ToolResult {
        self.finish(ToolResult::error(text))
    }

    /// Takes in what an event says about the task.
    fn apply(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::Task(task) => self.task = task,
            StreamEvent::Status {
                task_id,
                context_id,
                status,
            } => {
                if self.task.id.is_empty() {
                    self.task.id = task_id;
                }
                if self.task.context_id.is_empty() {
                    self.task.context_id = context_id;
                }
                self.task.status = status;
            }
            StreamEvent::Artifact { artifact, .. } => merge_artifact(&mut self.task, artifact),
            StreamEvent::Message(message) => {
                // A direct answer: no task to follow.
                if self.task.context_id.is_empty() {
                    self.task.context_id = message.context_id.clone();
                }
                self.task.status = TaskStatus::now(TaskState::Completed, None);
                self.task.history.push(message);
            }
        }
    }
}

fn merge_artifact(task: &mut Task, artifact: Artifact) {
    match task
        .artifacts
        .iter_mut()
        .find(|a| !artifact.artifact_id.is_empty() && a.artifact_id == artifact.artifact_id)
    {
        Some(existing) => existing.parts.extend(artifact.parts),
        None => task.artifacts.push(artifact),
    }
}

/// The remote task a pending request of ours belongs to.
struct Continuation {
    task_id: String,
    context_id: String,
    /// The peer's own request id, when the peer is a toolnexus server that sent one.
    remote: Option<String>,
    /// The status that asked, when the request says (older requests do not).
    asked: Option<Asked>,
}

fn continuation(request: &Request) -> Option<Continuation> {
    let cont = request.data.as_ref()?.get(CONTINUATION_KEY)?;
    let text = |key| cont.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Continuation {
        task_id: cont.get("taskId")?.as_str()?.to_owned(),
        context_id: cont
            .get("contextId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        remote: cont
            .get("remoteRequest")
            .and_then(Value::as_str)
            .map(str::to_owned),
        asked: Some(Asked {
            at: text("statusAt"),
            message_id: text("statusMessageId"),
        })
        .filter(|asked| asked.at.is_some() || asked.message_id.is_some()),
    })
}

/// The time a call may take: the context's timeout (a little less, so that this call's
/// own message is the one given), else the agent's.
fn budget(shared: &Shared, ctx: &Context) -> Duration {
    match ctx.timeout() {
        Some(limit) => limit.saturating_sub((limit / 20).min(Duration::from_millis(250))),
        None => shared.timeout,
    }
}

pub(super) async fn execute(shared: &Shared, args: Value, ctx: Context) -> ToolResult {
    let started = Instant::now();
    let budget = budget(shared, &ctx);
    let deadline = started + budget;
    let mut track = Track {
        shared,
        task: Task {
            id: String::new(),
            context_id: String::new(),
            status: TaskStatus::now(TaskState::Submitted, None),
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        },
        polls: 0,
        started,
        asked: None,
    };
    let resumed = match (ctx.answer(), ctx.request().and_then(continuation)) {
        (Some(answer), Some(cont)) => Some((answer.clone(), cont)),
        _ => None,
    };
    let message = match resumed {
        Some((answer, cont)) => {
            track.task.id.clone_from(&cont.task_id);
            track.task.context_id.clone_from(&cont.context_id);
            track.asked.clone_from(&cont.asked);
            if !answer.ok && cont.remote.is_none() {
                return decline(&mut track, &answer, deadline).await;
            }
            answer_message(&answer, &cont)
        }
        None => match args.get("task") {
            Some(Value::String(task)) => A2aMessage::user(task.clone()),
            _ => {
                return track.error(format!(
                    "the A2A agent `{}` needs `task`, a string: the task to send",
                    shared.peer.name
                ));
            }
        },
    };
    let mut outcome = tokio::select! {
        outcome = follow(&mut track, message, deadline) => outcome,
        () = ctx.cancelled() => Err(Stop::Cancelled),
    };
    if matches!(outcome, Err(Stop::Failed(Failure::Transport(_)))) && Instant::now() >= deadline {
        // A connection cut at the deadline is the deadline.
        outcome = Err(Stop::TimedOut);
    }
    match outcome {
        Ok(()) => settle(&track),
        Err(Stop::Cancelled) => {
            track.task.status.state = TaskState::Canceled;
            track.error(format!("A2A task {} canceled", track.task.id))
        }
        Err(Stop::TimedOut) => track.error(format!(
            "A2A task {} timed out after {}ms (state={})",
            track.task.id,
            budget.as_millis(),
            track.task.status.state.as_str()
        )),
        Err(Stop::Failed(failure)) => track.error(match &track.task.id {
            id if id.is_empty() => format!("A2A agent `{}`: {failure}", shared.peer.name),
            id => format!("A2A task {id}: {failure}"),
        }),
    }
}

enum Stop {
    Cancelled,
    TimedOut,
    Failed(Failure),
}

impl From<Failure> for Stop {
    fn from(failure: Failure) -> Self {
        Stop::Failed(failure)
    }
}

/// The next message of a task that asked a question: the answer's text, and the
/// toolnexus answer itself in the metadata for a toolnexus peer.
fn answer_message(answer: &Answer, cont: &Continuation) -> A2aMessage {
    let text = match (&answer.data, answer.ok) {
        (Some(Value::String(text)), true) => text.clone(),
        (Some(other), true) => other.to_string(),
        (None, true) => "yes".to_owned(),
        (_, false) => match &answer.reason {
            Some(reason) => format!("no: {reason}"),
            None => "no".to_owned(),
        },
    };
    let mut message = A2aMessage::user(text);
    message.task_id.clone_from(&cont.task_id);
    message.context_id.clone_from(&cont.context_id);
    if let Some(remote) = &cont.remote {
        let mut theirs = answer.clone();
        theirs.id.clone_from(remote);
        let mut meta = Map::new();
        meta.insert(ANSWER_KEY.into(), wire::to_value(&theirs));
        message.metadata = Some(meta);
    }
    message
}

/// A declined question of a peer that is not toolnexus: the remote task is cancelled.
async fn decline(track: &mut Track<'_>, answer: &Answer, deadline: Instant) -> ToolResult {
    let left = deadline.saturating_duration_since(Instant::now());
    let params = json!({ "id": track.task.id });
    let reason = answer.reason.as_deref().unwrap_or("declined");
    match track
        .shared
        .transport
        .call(Method::Cancel, params, left)
        .await
    {
        Ok(value) => {
            if let Ok(task) = wire::from_json::<Task>(&value) {
                track.task = task;
            } else {
                track.task.status.state = TaskState::Canceled;
            }
        }
        Err(failure) => {
            return track.error(format!(
                "A2A task {}: the request was declined ({reason}), and cancelling the task failed: {failure}",
                track.task.id
            ));
        }
    }
    track.error(format!(
        "A2A task {} canceled: the request was declined ({reason})",
        track.task.id
    ))
}

fn send_params(shared: &Shared, message: &A2aMessage) -> Value {
    match shared.transport.endpoint.dialect {
        Dialect::V1 => json!({
            "message": wire::to_value(message),
            "configuration": { "returnImmediately": true },
        }),
        Dialect::V03 => json!({
            "message": wire::v03::message(message),
            "configuration": { "blocking": false },
        }),
    }
}

async fn follow(track: &mut Track<'_>, message: A2aMessage, deadline: Instant) -> Result<(), Stop> {
    let shared = track.shared;
    let params = send_params(shared, &message);
    let left = || deadline.saturating_duration_since(Instant::now());
    if shared.streaming {
        let stream = within(
            deadline,
            shared.transport.stream(Method::Stream, params, left()),
        )
        .await??;
        if read_stream(track, stream, deadline).await? {
            return Ok(());
        }
    } else {
        let value = within(
            deadline,
            shared.transport.call(Method::Send, params, left()),
        )
        .await??;
        let event = StreamEvent::from_value(&value)
            .map_err(|e| Failure::Transport(format!("the answer is not A2A's: {e}")))?;
        track.apply(event);
    }
    poll(track, deadline).await
}

/// Reads a stream until the task ends or waits (`true`), or the stream ends first
/// (`false`: polling takes over).
async fn read_stream(
    track: &mut Track<'_>,
    mut stream: SseStream,
    deadline: Instant,
) -> Result<bool, Stop> {
    while let Some(event) = within(deadline, stream.next()).await? {
        track.apply(event?);
        if stopped(track) {
            return Ok(true);
        }
    }
    Ok(stopped(track))
}

fn stopped(track: &Track<'_>) -> bool {
    settled(&track.task.status, track.asked.as_ref())
}

/// Whether a task at `status` ended or asks: not when it still shows `asked`, the
/// question this call answers.
fn settled(status: &TaskStatus, asked: Option<&Asked>) -> bool {
    let state = status.state;
    if state.is_interrupted() && asked == Some(&Asked::of(status)) {
        return false;
    }
    state.is_terminal() || state.is_interrupted()
}

async fn poll(track: &mut Track<'_>, deadline: Instant) -> Result<(), Stop> {
    while !stopped(track) {
        if track.task.id.is_empty() {
            return Err(Stop::Failed(Failure::Transport(
                "the agent gave no task id to follow".to_owned(),
            )));
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(Stop::TimedOut);
        }
        tokio::time::sleep(track.shared.poll_every.min(deadline - now)).await;
        if Instant::now() >= deadline {
            return Err(Stop::TimedOut);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let params = json!({ "id": track.task.id });
        let value = within(
            deadline,
            track.shared.transport.call(Method::Get, params, left),
        )
        .await??;
        track.polls += 1;
        let task: Task = wire::from_json(&value)
            .map_err(|e| Failure::Transport(format!("GetTask did not answer a task: {e}")))?;
        track.task = task;
    }
    Ok(())
}

async fn within<F: std::future::Future>(deadline: Instant, work: F) -> Result<F::Output, Stop> {
    let left = deadline.saturating_duration_since(Instant::now());
    tokio::time::timeout(left, work)
        .await
        .map_err(|_| Stop::TimedOut)
}

/// The result for a task that ended or waits.
fn settle(track: &Track<'_>) -> ToolResult {
    let task = &track.task;
    match task.status.state {
        TaskState::Completed => {
            let mut text = task.answer_text();
            if text.is_empty() {
                text = data_text(task);
            }
            track.finish(ToolResult::ok(text))
        }
        TaskState::InputRequired | TaskState::AuthRequired => {
            track.finish(ToolResult::pending(pending_request(track)))
        }
        state => {
            let detail = task.status_text();
            let mut text = format!("A2A task {} {}", task.id, state.as_str());
            if !detail.is_empty() {
                text = format!("{text}: {detail}");
            }
            track.error(text)
        }
    }
}

/// The JSON of the data parts of a task's artifacts, one per line: the output of a task
/// that answered with data only.
fn data_text(task: &Task) -> String {
    let data: Vec<String> = task
        .artifacts
        .iter()
        .flat_map(|a| &a.parts)
        .filter_map(|p| p.data.as_ref().map(Value::to_string))
        .collect();
    data.join("\n")
}

/// The request a waiting task becomes: the peer's own toolnexus request when it sent
/// one, else `input` (or `authorization`, with the URL the status message gives).
fn pending_request(track: &Track<'_>) -> Request {
    let task = &track.task;
    let message = task.status.message.as_ref();
    let theirs: Option<Request> = message
        .and_then(|m| m.metadata.as_ref())
        .and_then(|meta| meta.get(REQUEST_KEY))
        .and_then(|value| serde_json::from_value(value.clone()).ok());
    let prompt = match task.status_text() {
        text if !text.is_empty() => text,
        _ => format!(
            "The agent `{}` needs {} to go on with task {}.",
            track.shared.peer.name,
            if task.status.state == TaskState::AuthRequired {
                "an authorization"
            } else {
                "more input"
            },
            task.id
        ),
    };
    let mut cont = Map::new();
    cont.insert("agent".into(), track.shared.peer.name.clone().into());
    cont.insert("taskId".into(), task.id.clone().into());
    cont.insert("contextId".into(), task.context_id.clone().into());
    cont.insert("state".into(), task.status.state.as_str().into());
    let asked = Asked::of(&task.status);
    if let Some(at) = asked.at {
        cont.insert("statusAt".into(), at.into());
    }
    if let Some(id) = asked.message_id {
        cont.insert("statusMessageId".into(), id.into());
    }
    let mut request = match theirs {
        Some(theirs) => {
            cont.insert("remoteRequest".into(), theirs.id.clone().into());
            let mut local = Request::new(theirs.kind, theirs.prompt);
            local.url = theirs.url;
            local.expires_at = theirs.expires_at;
            local.data = theirs.data;
            local
        }
        None if task.status.state == TaskState::AuthRequired => {
            let mut request = Request::new("authorization", prompt);
            request.url = message.and_then(find_url);
            request
        }
        None => Request::input(prompt),
    };
    let mut data = match request.data.take() {
        Some(Value::Object(map)) => map,
        Some(other) => Map::from_iter([("value".to_owned(), other)]),
        None => Map::new(),
    };
    data.insert(CONTINUATION_KEY.into(), Value::Object(cont));
    request.data = Some(Value::Object(data));
    request
}

/// The URL an authorization message points to: a URL part, a `url` in a data part, or
/// the first `http(s)://` word of its text.
fn find_url(message: &A2aMessage) -> Option<String> {
    let parts: &[Part] = &message.parts;
    if let Some(url) = parts.iter().find_map(|p| p.url.clone()) {
        return Some(url);
    }
    if let Some(url) = parts.iter().find_map(|p| {
        p.data
            .as_ref()?
            .get("url")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }) {
        return Some(url);
    }
    message
        .text()
        .split_whitespace()
        .find(|w| w.starts_with("https://") || w.starts_with("http://"))
        .map(|w| w.trim_end_matches(['.', ',', ')', ';']).to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Asked, TaskStatus, continuation, settled};
    use crate::a2a::wire::{A2aMessage, TaskState};
    use crate::tool::request::Request;

    fn asking(at: &str, message_id: &str) -> TaskStatus {
        let mut message = A2aMessage::user("Which environment?");
        message.message_id = message_id.to_owned();
        TaskStatus {
            state: TaskState::InputRequired,
            message: Some(message),
            timestamp: Some(at.to_owned()),
        }
    }

    #[test]
    fn the_question_being_answered_is_not_a_new_one() {
        let asked = asking("2026-01-01T00:00:00.000Z", "q1");
        let mut request = Request::input("Which environment?");
        request.data = Some(json!({"a2a": {
            "taskId": "t", "contextId": "c",
            "statusAt": "2026-01-01T00:00:00.000Z", "statusMessageId": "q1",
        }}));
        let cont = continuation(&request).expect("a continuation");
        let kept = cont.asked.expect("the status that asked");
        assert_eq!(kept, Asked::of(&asked));
        // The task still showing that question: not settled; it goes on.
        assert!(!settled(&asked, Some(&kept)));
        // A new question (a new message, or a later time) stops the call, as does the end.
        assert!(settled(
            &asking("2026-01-01T00:00:00.000Z", "q2"),
            Some(&kept)
        ));
        assert!(settled(
            &asking("2026-01-01T00:00:01.000Z", "q1"),
            Some(&kept)
        ));
        let done = TaskStatus::now(TaskState::Completed, None);
        assert!(settled(&done, Some(&kept)));
        assert!(!settled(
            &TaskStatus::now(TaskState::Working, None),
            Some(&kept)
        ));
        // Without a kept status (older requests), any question stops it.
        assert!(settled(&asked, None));
        request.data = Some(json!({"a2a": {"taskId": "t"}}));
        assert_eq!(continuation(&request).expect("a continuation").asked, None);
    }
}
