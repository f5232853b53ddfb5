//! Following a task (the `io.modelcontextprotocol/tasks` extension, SEP-2663): a
//! `tools/call` answered with `resultType: "task"` is polled with `tasks/get` at the
//! server's `pollIntervalMs` until it ends, within the call's deadline.
//!
//! - `completed`: the task's `result` is the call's result, read as any `tools/call`
//!   result is;
//! - `failed`: an error result with the server's JSON-RPC error, for the model to read;
//! - `cancelled`: an error result saying the server cancelled the task;
//! - `input_required`: a pending result whose request id carries the task's id and the
//!   server's name, so the answer — in this process or another — goes back to the same
//!   task with `tasks/update`, and the following goes on.
//!
//! A call that stops following without an end (its run was cancelled, its deadline
//! passed, its future was dropped) sends `tasks/cancel`. A task id is the server's data:
//! it is checked before it is used, and a resumed call sends it only to the server it
//! came from (the same command line or URL).

use std::collections::HashSet;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    CancelTaskParams, GetTaskParams, GetTaskResult, InputResponses, JsonObject, TaskPayload,
    UpdateTaskParams,
};
use rmcp::service::{Peer, ServiceError};
use serde_json::Value;
use tokio::time::Instant;

use super::result::tool_result;
use super::retry::{TaskRef, request_for_task_input};
use super::{Shared, humanize};
use crate::tool::context::Context;
use crate::tool::result::ToolResult;

/// The shortest wait between two polls, whatever the server suggests.
pub(super) const MIN_POLL_INTERVAL: Duration = Duration::from_millis(50);
/// The longest wait between two polls, whatever the server suggests.
pub(super) const MAX_POLL_INTERVAL: Duration = Duration::from_secs(10);
/// The wait between two polls when the server suggests none.
pub(super) const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// The longest task id this client accepts from a server (or a resumed request).
const MAX_TASK_ID_LEN: usize = 256;
/// How long a `tasks/cancel` may take before the call gives up on its acknowledgement.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);

/// The wait before the next poll: the server's `pollIntervalMs`, clamped to
/// [`MIN_POLL_INTERVAL`]..=[`MAX_POLL_INTERVAL`], or [`DEFAULT_POLL_INTERVAL`].
pub(super) fn poll_interval(suggested_ms: Option<u64>) -> Duration {
    match suggested_ms {
        Some(ms) => Duration::from_millis(ms).clamp(MIN_POLL_INTERVAL, MAX_POLL_INTERVAL),
        None => DEFAULT_POLL_INTERVAL,
    }
}

/// Whether `id` may be a task id: 1 to 256 characters, none of them a control character.
pub(super) fn valid_task_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_TASK_ID_LEN && !id.chars().any(char::is_control)
}

/// What a task is polled, acknowledged and cancelled through: the connection's peer (a
/// trait so that the timing is tested on a paused clock without a server).
pub(super) trait TaskPeer: Clone + Send + Sync + 'static {
    /// `tasks/get`.
    fn get(&self, id: &str) -> impl Future<Output = Result<GetTaskResult, ServiceError>> + Send;
    /// `tasks/cancel`.
    fn cancel(&self, id: &str) -> impl Future<Output = Result<(), ServiceError>> + Send;
}

impl TaskPeer for Peer<RoleClient> {
    fn get(&self, id: &str) -> impl Future<Output = Result<GetTaskResult, ServiceError>> + Send {
        self.get_task(GetTaskParams::new(id))
    }

    fn cancel(&self, id: &str) -> impl Future<Output = Result<(), ServiceError>> + Send {
        self.cancel_task(CancelTaskParams::new(id))
    }
}

/// Sends `tasks/cancel` when dropped while armed: a call whose future is dropped (the
/// run was cancelled, an outer timeout) leaves no task running for nobody.
struct CancelOnDrop<P: TaskPeer> {
    peer: P,
    id: String,
    armed: bool,
}

impl<P: TaskPeer> Drop for CancelOnDrop<P> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (peer, id) = (self.peer.clone(), std::mem::take(&mut self.id));
            runtime.spawn(async move {
                let _ = tokio::time::timeout(CANCEL_TIMEOUT, peer.cancel(&id)).await;
            });
        }
    }
}

/// Who is asking, for the messages: the remote tool's name and the server.
pub(super) struct Labels {
    pub(super) remote: String,
    pub(super) server: String,
    /// Where the server is (its command line or URL), which a task is bound to.
    pub(super) endpoint: String,
}

impl Labels {
    pub(super) fn of(shared: &Shared, remote: &str) -> Labels {
        Labels {
            remote: remote.to_owned(),
            server: shared.server(),
            endpoint: shared.endpoint.label(),
        }
    }
}

/// Where following a task starts: its id, the wait before the first poll, and the input
/// requests already answered (a poll that still lists only those is a task that has not
/// taken the answer in yet, still working).
pub(super) struct Start {
    pub(super) id: String,
    pub(super) first: Duration,
    pub(super) answered: HashSet<String>,
}

/// Follows a task until it ends, its call's `deadline` (`limit` after the call began)
/// passes, or `ctx` is cancelled.
pub(super) async fn follow<P: TaskPeer>(
    peer: P,
    labels: Labels,
    start: Start,
    (deadline, limit): (Instant, Duration),
    ctx: &Context,
) -> ToolResult {
    let Start {
        id,
        first,
        answered,
    } = start;
    let Labels {
        remote,
        server,
        endpoint,
    } = &labels;
    if !valid_task_id(&id) {
        return ToolResult::error(format!(
            "{remote}: the MCP server {server} answered with a task whose id is not usable (empty, over {MAX_TASK_ID_LEN} bytes, or with control characters)"
        ));
    }
    let mut guard = CancelOnDrop {
        peer: peer.clone(),
        id: id.clone(),
        armed: true,
    };
    let mut wait = first;
    loop {
        let stopped = tokio::select! {
            () = tokio::time::sleep(wait) => None,
            () = tokio::time::sleep_until(deadline) => Some(Stop::Deadline),
            () = ctx.cancelled() => Some(Stop::Cancelled),
        };
        let polled = match stopped {
            Some(stop) => Err(stop),
            None => tokio::select! {
                polled = peer.get(&id) => Ok(polled),
                () = tokio::time::sleep_until(deadline) => Err(Stop::Deadline),
                () = ctx.cancelled() => Err(Stop::Cancelled),
            },
        };
        let polled = match polled {
            Ok(polled) => polled,
            Err(stop) => {
                // Still armed while the cancel is on its way: a future dropped now (as the
                // loop does when the run is cancelled) sends it again from the guard.
                let acknowledged = tokio::time::timeout(CANCEL_TIMEOUT, peer.cancel(&id))
                    .await
                    .is_ok_and(|ack| ack.is_ok());
                guard.armed = false;
                let told = match acknowledged {
                    true => "it was cancelled on the server (`tasks/cancel`)",
                    false => "`tasks/cancel` was sent, but the server did not acknowledge it",
                };
                return ToolResult::error(match stop {
                    Stop::Deadline => format!(
                        "{remote}: the task {id} on the MCP server {server} did not end within {} ({told}; the call may need a longer timeout)",
                        humanize(limit)
                    ),
                    Stop::Cancelled => format!(
                        "{remote}: the run was cancelled while the task {id} on the MCP server {server} was running ({told})"
                    ),
                });
            }
        };
        let task = match polled {
            Ok(got) => got.task,
            Err(error) => {
                // The server may still run the task, but it cannot be reached to cancel it.
                guard.armed = false;
                return ToolResult::error(lost(remote, server, &id, error));
            }
        };
        if task.task.task_id != id {
            return ToolResult::error(format!(
                "{remote}: the MCP server {server} answered `tasks/get` for the task {id} with another task's state"
            ));
        }
        match task.payload {
            TaskPayload::Completed { result } => {
                guard.armed = false;
                return tool_result(&Value::Object(result));
            }
            TaskPayload::Failed { error } => {
                guard.armed = false;
                return ToolResult::error(failed(remote, server, &id, &error));
            }
            TaskPayload::Cancelled => {
                guard.armed = false;
                let why = task
                    .task
                    .status_message
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default();
                return ToolResult::error(format!(
                    "{remote}: the task {id} on the MCP server {server} was cancelled{why}"
                ));
            }
            TaskPayload::InputRequired { input_requests }
                if !input_requests.keys().all(|key| answered.contains(key)) =>
            {
                let pending: rmcp::model::InputRequests = input_requests
                    .into_iter()
                    .filter(|(key, _)| !answered.contains(key))
                    .collect();
                let task = TaskRef {
                    id: id.clone(),
                    server: endpoint.clone(),
                };
                guard.armed = false;
                return match request_for_task_input(&pending, task) {
                    Ok(request) => ToolResult::pending(request),
                    Err(why) => {
                        let _ = tokio::time::timeout(CANCEL_TIMEOUT, peer.cancel(&id)).await;
                        ToolResult::error(format!(
                            "{remote}: the task {id} on the MCP server {server} cannot be answered: {why} (the task was cancelled)"
                        ))
                    }
                };
            }
            _ => {
                wait = poll_interval(task.task.poll_interval_ms);
            }
        }
    }
}

/// Why a call stopped following its task before the task ended.
enum Stop {
    Deadline,
    Cancelled,
}

/// The error of a task that ended `failed`, with the server's JSON-RPC error.
fn failed(remote: &str, server: &str, id: &str, error: &JsonObject) -> String {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("no message");
    let code = match error.get("code").and_then(Value::as_i64) {
        Some(code) => format!(" (JSON-RPC error {code})"),
        None => String::new(),
    };
    format!("{remote}: the task {id} on the MCP server {server} failed: {message}{code}")
}

/// The error of a `tasks/get` or `tasks/update` that got no answer.
fn lost(remote: &str, server: &str, id: &str, error: ServiceError) -> String {
    match error {
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => format!(
            "{remote}: the connection to the MCP server {server} closed while its task {id} was running (did the server exit?); the next call reconnects"
        ),
        ServiceError::McpError(error) => format!(
            "{remote}: the MCP server {server} refused a request about its task {id}: {}",
            error.message
        ),
        error => format!(
            "{remote}: a request about the task {id} to the MCP server {server} failed: {error}"
        ),
    }
}

/// The re-execution after the answer to a task's `input_required`: checks that the task
/// belongs to this client's server, sends the answer with `tasks/update`, and follows the
/// task on.
pub(super) async fn resume(
    shared: &Shared,
    remote: &str,
    task: TaskRef,
    responses: InputResponses,
    ctx: &Context,
) -> ToolResult {
    let labels = Labels::of(shared, remote);
    let (id, server) = (task.id, &labels.server);
    if !valid_task_id(&id) {
        return ToolResult::error(format!(
            "{remote}: the answer names a task whose id is not usable; call the tool again"
        ));
    }
    if task.server != labels.endpoint {
        return ToolResult::error(format!(
            "{remote}: the answer is for the task {id} of the MCP server {}, but this client is connected to {server} {}; the answer was not sent",
            task.server, labels.endpoint
        ));
    }
    let limit = shared.options.timeout;
    let deadline = Instant::now() + limit;
    let peer = match shared.peer().await {
        Ok(peer) => peer,
        Err(error) => return ToolResult::error(format!("{remote}: {error}")),
    };
    let responses_keys: HashSet<String> = responses.keys().cloned().collect();
    let update = peer.update_task(UpdateTaskParams::new(id.clone(), responses));
    match tokio::time::timeout_at(deadline, update).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => return ToolResult::error(lost(remote, server, &id, error)),
        Err(_) => {
            return ToolResult::error(format!(
                "{remote}: the MCP server {server} did not acknowledge the answer to its task {id} within {}",
                humanize(limit)
            ));
        }
    }
    let start = Start {
        answered: responses_keys,
        id,
        first: MIN_POLL_INTERVAL,
    };
    follow(peer, labels, start, (deadline, limit), ctx).await
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use rmcp::model::{DetailedTask, Task, TaskStatus};
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    use super::*;

    /// A server's task as a script: `working` (with `interval`) for `polls_left` polls,
    /// then completed; every poll's instant and every cancel is recorded.
    #[derive(Clone)]
    struct Scripted {
        interval: Option<u64>,
        polls_left: Arc<Mutex<Option<usize>>>,
        polled: Arc<Mutex<Vec<Instant>>>,
        cancels: Arc<Mutex<usize>>,
    }

    impl Scripted {
        fn new(interval: Option<u64>, polls: Option<usize>) -> Scripted {
            Scripted {
                interval,
                polls_left: Arc::new(Mutex::new(polls)),
                polled: Default::default(),
                cancels: Default::default(),
            }
        }

        fn gaps(&self, from: Instant) -> Vec<Duration> {
            let polled = self.polled.lock().unwrap();
            let mut last = from;
            polled
                .iter()
                .map(|&at| {
                    let gap = at - last;
                    last = at;
                    gap
                })
                .collect()
        }

        fn cancels(&self) -> usize {
            *self.cancels.lock().unwrap()
        }
    }

    impl TaskPeer for Scripted {
        async fn get(&self, id: &str) -> Result<GetTaskResult, ServiceError> {
            self.polled.lock().unwrap().push(Instant::now());
            let mut left = self.polls_left.lock().unwrap();
            let mut task = Task::new(id, TaskStatus::Working, "t0", "t1");
            task.poll_interval_ms = self.interval;
            let payload = match left.as_mut() {
                Some(0) => TaskPayload::Completed {
                    result: serde_json::from_value(
                        json!({"content": [{"type": "text", "text": "built"}]}),
                    )
                    .unwrap(),
                },
                Some(n) => {
                    *n -= 1;
                    TaskPayload::Working
                }
                None => TaskPayload::Working,
            };
            Ok(GetTaskResult::new(DetailedTask::new(task, payload)))
        }

        async fn cancel(&self, _id: &str) -> Result<(), ServiceError> {
            *self.cancels.lock().unwrap() += 1;
            Ok(())
        }
    }

    fn labels() -> Labels {
        Labels {
            remote: "build".to_owned(),
            server: "`ci`".to_owned(),
            endpoint: "at http://127.0.0.1:1/mcp".to_owned(),
        }
    }

    fn start(first: Duration) -> Start {
        Start {
            id: "task-1".to_owned(),
            first,
            answered: HashSet::new(),
        }
    }

    async fn run(peer: &Scripted, limit: Duration, ctx: &Context) -> ToolResult {
        let deadline = Instant::now() + limit;
        let first = poll_interval(peer.interval);
        follow(peer.clone(), labels(), start(first), (deadline, limit), ctx).await
    }

    #[test]
    fn poll_intervals_are_the_server_s_within_bounds() {
        assert_eq!(poll_interval(Some(250)), Duration::from_millis(250));
        assert_eq!(poll_interval(Some(0)), MIN_POLL_INTERVAL);
        assert_eq!(poll_interval(Some(u64::MAX)), MAX_POLL_INTERVAL);
        assert_eq!(poll_interval(None), DEFAULT_POLL_INTERVAL);
        assert!(valid_task_id("3f2a-9c"));
        assert!(!valid_task_id(""));
        assert!(!valid_task_id("a\nb"));
        assert!(!valid_task_id(&"x".repeat(MAX_TASK_ID_LEN + 1)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_is_polled_at_the_server_s_interval_until_it_completes() {
        let peer = Scripted::new(Some(250), Some(3));
        let began = Instant::now();
        let result = run(&peer, Duration::from_secs(60), &Context::new()).await;
        assert_eq!((result.output.as_str(), result.is_error), ("built", false));
        assert_eq!(peer.gaps(began), vec![Duration::from_millis(250); 4]);
        assert_eq!(peer.cancels(), 0, "a task that ended is not cancelled");
    }

    #[tokio::test(start_paused = true)]
    async fn intervals_too_short_or_too_long_are_clamped() {
        let eager = Scripted::new(Some(1), Some(2));
        let began = Instant::now();
        run(&eager, Duration::from_secs(60), &Context::new()).await;
        assert_eq!(eager.gaps(began), vec![MIN_POLL_INTERVAL; 3]);

        let lazy = Scripted::new(Some(3_600_000), Some(1));
        let began = Instant::now();
        run(&lazy, Duration::from_secs(60), &Context::new()).await;
        assert_eq!(lazy.gaps(began), vec![MAX_POLL_INTERVAL; 2]);
    }

    #[tokio::test(start_paused = true)]
    async fn the_call_timeout_bounds_the_polling_and_cancels_the_task() {
        let peer = Scripted::new(Some(1000), None);
        let began = Instant::now();
        let result = run(&peer, Duration::from_millis(2500), &Context::new()).await;
        assert!(result.is_error);
        assert!(
            result.output.contains("did not end within 2500ms")
                && result.output.contains("cancelled on the server"),
            "{}",
            result.output
        );
        assert_eq!(peer.gaps(began), vec![Duration::from_secs(1); 2]);
        assert_eq!(Instant::now() - began, Duration::from_millis(2500));
        assert_eq!(peer.cancels(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn cancelling_the_run_cancels_the_task() {
        let peer = Scripted::new(Some(1000), None);
        let token = CancellationToken::new();
        let ctx = Context::new().with_cancellation(token.clone());
        let cancel = async {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            token.cancel();
        };
        let (result, ()) = tokio::join!(run(&peer, Duration::from_secs(60), &ctx), cancel);
        assert!(
            result.output.contains("the run was cancelled"),
            "{}",
            result.output
        );
        assert_eq!(peer.polled.lock().unwrap().len(), 1);
        assert_eq!(peer.cancels(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_dropped_call_cancels_its_task() {
        let peer = Scripted::new(Some(1000), None);
        let ctx = Context::new();
        let dropped = tokio::time::timeout(
            Duration::from_millis(1500),
            run(&peer, Duration::MAX / 4, &ctx),
        )
        .await;
        assert!(dropped.is_err());
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(peer.cancels(), 1);
    }
}
