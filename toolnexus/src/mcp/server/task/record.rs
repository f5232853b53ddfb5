//! One task as every storage keeps it, and as the wire shows it.

use rmcp::model::{DetailedTask, JsonObject, Task, TaskPayload, TaskStatus};

use super::time::rfc3339;

/// A task's row: what it runs, where it stands, what it ended with. The JSON columns are
/// kept as text, as the database keeps them.
#[derive(Clone, Debug)]
pub(crate) struct TaskRow {
    pub(crate) id: String,
    pub(crate) tool: String,
    /// The call's arguments (a JSON object).
    pub(crate) args: String,
    pub(crate) status: Status,
    pub(crate) message: Option<String>,
    /// By status: the `CallToolResult` (completed), the JSON-RPC error (failed), the
    /// `inputRequests` (input_required).
    pub(crate) payload: Option<String>,
    /// While `input_required`: which request the answer goes to (a [`Pending`] as JSON).
    pub(crate) pending: Option<String>,
    /// How many times the task asked for input: makes every `inputRequests` key unique.
    pub(crate) rounds: i64,
    /// Whether `tasks/cancel` asked to stop it.
    pub(crate) cancel: bool,
    /// Until when (ms since the epoch, the store's clock) its runner holds it.
    pub(crate) lease_until: i64,
    pub(crate) created_at: i64,
    pub(crate) updated_at: i64,
    pub(crate) ttl_ms: i64,
    pub(crate) expires_at: i64,
    /// Whom the task belongs to: the binding of the session and principal that created it
    /// (`mcp/server/caller.rs`), `""` when it came with neither.
    pub(crate) caller: String,
}

/// The request a task in `input_required` waits on.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Pending {
    /// The `inputRequests` key the client answers under.
    pub(crate) key: String,
    /// The tool's own request id, which its [`Answer`](crate::Answer) carries.
    pub(crate) id: String,
    /// The form's only field, when the answer is that field's value alone.
    pub(crate) field: Option<String>,
}

/// Where a task stands. A store keeps it as its wire name (`as_str`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Its tool runs (or its runner went away, until someone reads it).
    Working,
    /// Its tool asked for input: the task waits on `tasks/update`.
    InputRequired,
    /// Its tool finished: the payload is the `CallToolResult`.
    Completed,
    /// It failed: the payload is the JSON-RPC error.
    Failed,
    /// `tasks/cancel` stopped it.
    Cancelled,
}

impl Status {
    /// Every status, in the order of the protocol's state machine.
    #[cfg_attr(not(feature = "__store"), allow(dead_code))]
    pub(crate) const ALL: [Status; 5] = [
        Status::Working,
        Status::InputRequired,
        Status::Completed,
        Status::Failed,
        Status::Cancelled,
    ];

    /// Its name on the wire and in a store's rows.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    /// The status named `name`; `None` for a name no version wrote.
    #[cfg_attr(not(feature = "__store"), allow(dead_code))]
    pub(crate) fn parse(name: &str) -> Option<Status> {
        Status::ALL
            .into_iter()
            .find(|status| status.as_str() == name)
    }

    /// Whether a task in it has ended.
    pub(crate) fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a task says when its runner went away (the server restarted, crashed or lost its
/// store) before it finished (only a store's tasks outlive their runner).
#[cfg_attr(not(feature = "__store"), allow(dead_code))]
pub(crate) const ORPHANED: &str = "the server running this task stopped (a restart or a crash) \
     before the tool finished; its work may be partly done: call the tool again to retry";

impl TaskRow {
    /// Whether the task has ended.
    pub(crate) fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }

    /// The task's base fields, as `CreateTaskResult` and `tasks/get` carry them.
    pub(crate) fn task(&self, poll_ms: u64) -> Task {
        let status = match self.status {
            Status::Working => TaskStatus::Working,
            Status::InputRequired => TaskStatus::InputRequired,
            Status::Completed => TaskStatus::Completed,
            Status::Failed => TaskStatus::Failed,
            Status::Cancelled => TaskStatus::Cancelled,
        };
        let mut task = Task::new(
            &self.id,
            status,
            rfc3339(self.created_at),
            rfc3339(self.updated_at),
        )
        .with_ttl_ms(u64::try_from(self.ttl_ms).unwrap_or(0));
        if !self.is_terminal() {
            task = task.with_poll_interval_ms(poll_ms);
        }
        match &self.message {
            Some(message) => task.with_status_message(message),
            None => task,
        }
    }

    /// The task with its result, error or input requests inline (`tasks/get`). A payload
    /// that does not read back (a corrupted row) is reported as the task's failure.
    pub(crate) fn detailed(&self, poll_ms: u64) -> DetailedTask {
        let task = self.task(poll_ms);
        let object =
            || -> Option<JsonObject> { serde_json::from_str(self.payload.as_deref()?).ok() };
        let unreadable = || TaskPayload::Failed {
            error: error_object(
                -32603,
                &format!(
                    "task `{}`: its stored {} does not read back",
                    self.id, self.status
                ),
            ),
        };
        let payload = match self.status {
            Status::InputRequired => match self
                .payload
                .as_deref()
                .and_then(|text| serde_json::from_str(text).ok())
            {
                Some(input_requests) => TaskPayload::InputRequired { input_requests },
                None => unreadable(),
            },
            Status::Completed => {
                object().map_or_else(unreadable, |result| TaskPayload::Completed { result })
            }
            Status::Failed => {
                object().map_or_else(unreadable, |error| TaskPayload::Failed { error })
            }
            Status::Cancelled => TaskPayload::Cancelled,
            Status::Working => TaskPayload::Working,
        };
        DetailedTask::new(task, payload)
    }
}

/// A JSON-RPC error object.
pub(crate) fn error_object(code: i64, message: &str) -> JsonObject {
    let mut error = JsonObject::new();
    error.insert("code".into(), code.into());
    error.insert("message".into(), message.into());
    error
}

#[cfg(test)]
mod tests {
    use super::Status;

    #[test]
    fn a_status_reads_back_from_its_name_and_nothing_else_does() {
        for status in Status::ALL {
            assert_eq!(Status::parse(status.as_str()), Some(status));
            assert_eq!(status.to_string(), status.as_str());
        }
        assert_eq!(Status::parse("input_required"), Some(Status::InputRequired));
        for name in ["", "Working", "done", "input-required"] {
            assert_eq!(Status::parse(name), None, "{name}");
        }
        let ended: Vec<_> = Status::ALL
            .into_iter()
            .filter(|s| s.is_terminal())
            .collect();
        assert_eq!(
            ended,
            [Status::Completed, Status::Failed, Status::Cancelled]
        );
    }
}
