//! The agent runtime: many agents live at once, each a [`Handle`] with the contract's
//! state machine (`idle → running → idle | suspended | closed`; `suspended → running`
//! only by the answer to its request), driven by six verbs on a [`Runtime`]:
//! [`spawn`](Runtime::spawn), [`post`](Runtime::post), [`wake`](Runtime::wake),
//! [`wait`](Runtime::wait), [`interrupt`](Runtime::interrupt) and
//! [`close`](Runtime::close), with [`list`](Runtime::list) and
//! [`inspect`](Runtime::inspect) to look.
//!
//! - Two delivery rails: a tool call's result returns into the live turn; posts, ticks
//!   and events wait in the inbox and enter only as a fresh turn, the whole inbox drained
//!   as one block that says who sent what (timer ticks coalesced; senders other than the
//!   handle's ancestors marked untrusted). The drain is transactional: an aborted or
//!   failed turn puts the items back.
//! - Backpressure, always loud: a bounded inbox ([`RuntimeError::InboxFull`]), a
//!   per-parent `maxConcurrent` (wakes beyond queue and start first woken, first
//!   served), and a global gate around the model call alone
//!   ([`RuntimeBuilder::max_concurrent_turns`]).
//! - Budgets that hold across the tree ([`Budget`]): carved at spawn, checked up the
//!   chain of ancestors before each spawn, each turn and each model call, usage rolled up
//!   to every ancestor; a stop is `incomplete` with the [`Limit`] named.
//! - Delegation: an [`Agent`] with a team gets the `task {agent, prompt}` tool; an agent
//!   is a [`Tool`](crate::Tool) ([`Agent::into_tool`]).
//! - Suspensions go up to the nearest interpreter ([`Agent::wait_for`]); with none, the
//!   tree parks `pending` with `Request.data.path`, and [`Runtime::resume`] takes the
//!   answer down to the deepest suspended handle.
//! - Every timer goes through a [`Clock`]; tests use a [`ManualClock`].
//! - An agent can be a folder ([`Agent::from_dir`]: `AGENTS.md` … `MEMORY.md` make its
//!   soul), edit its own notes ([`memory_tool`]) and wake on a heartbeat
//!   ([`Runtime::heartbeat`]).
//! - With a run store (features `sqlite`, `postgres`), `RuntimeBuilder::open` keeps the
//!   handles in it and runs each turn as a run of that store: another process that opens
//!   the same store gets the tree back, answers what it waits on
//!   ([`Runtime::pending`], [`Runtime::resume`]), and no settled call runs twice.
//!
//! The guide's chapter [`agents`](crate::_guide::agents) walks through it.

mod clock;
mod def;
mod gate;
mod heartbeat;
mod home;
mod resume;
pub(crate) mod runtime;
mod surface;
mod table;
mod types;

pub use clock::{Clock, ManualClock, SystemClock};
pub use def::Agent;
pub use gate::{Completion, Verdict, all_todos_done, run_gated};
pub use heartbeat::{HEARTBEAT_OK, HEARTBEAT_PROMPT, Heartbeat};
pub use home::{BOOTSTRAP_ORDER, MAX_BOOTSTRAP_FILE_BYTES, MEMORY_TOOL, compose_soul, memory_tool};
pub use runtime::task::TASK_TOOL;
pub use runtime::{
    DEFAULT_INBOX_CAP, DEFAULT_MAX_CONCURRENT_TURNS, DEFAULT_SHUTDOWN, ROOT, Runtime,
    RuntimeBuilder,
};
pub use types::{
    Budget, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_DEPTH, DEFAULT_MAX_TURNS, Handle, HandleState,
    HandleView, InboxItem, Limit, RuntimeError, SpawnError, TaskResult, TaskStatus, Woken,
};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_home;
