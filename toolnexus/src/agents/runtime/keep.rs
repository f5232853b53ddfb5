//! Durable handles: a runtime opened on a run store ([`RuntimeBuilder::open`]) keeps its
//! handle table there, one row per handle (its place in the tree, status, budget carved
//! and spent, inbox, and the halted turn of a suspended one), and each handle's turn is a
//! run of the same store, so the store's journal settles every tool call once. Another
//! process that opens the same store under the same name gets the same tree back.
//!
//! The rows are written behind the table: every transition wakes one writer that stores
//! the handles whose state changed since its last pass, in one transaction;
//! [`Runtime::flush`] runs a pass and waits for it.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use tokio::sync::{Mutex as AsyncMutex, Notify};

use crate::agent::client::Client;
use crate::agent::journal::record::new_id;
use crate::agent::journal::{Durable, Journal, StoreError};
use crate::agent::run::RunResult;
use crate::model::message::Message;
use crate::tool::request::Request;

use super::{Inner, ROOT, Runtime, RuntimeBuilder};
use crate::agents::table::{Node, Pool};
use crate::agents::types::{HandleState, InboxItem, TaskResult, TaskStatus};

/// One handle's row: its id, its state (`idle`, `running`, `suspended`, `closed`: what
/// retention reads) and its whole state as JSON.
pub(crate) struct HandleRow {
    pub(crate) id: String,
    #[cfg_attr(not(feature = "__store"), allow(dead_code))] // read by `toolnexus::store`
    pub(crate) state: &'static str,
    pub(crate) json: String,
}

/// The rows a run store keeps a durable runtime's handles in (`store/handles.rs`), handed
/// out by [`Journal::part`] for [`SharedHandles`], per runtime name.
pub(crate) trait HandleRows: Send + Sync + std::fmt::Debug {
    /// Stores `rows` of runtime `runtime`, replacing those of the same ids, all or none.
    fn save<'a>(
        &'a self,
        runtime: &'a str,
        rows: &'a [HandleRow],
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Every row of runtime `runtime`, by id.
    fn load<'a>(
        &'a self,
        runtime: &'a str,
    ) -> BoxFuture<'a, Result<Vec<(String, String)>, StoreError>>;
}

/// What [`Journal::part`] hands out for the handle rows.
pub(crate) type SharedHandles = Arc<dyn HandleRows>;

/// A durable runtime's store: the journal its turns run on, its handle rows, its name in
/// the store, and the writer's state.
pub(crate) struct Keep {
    pub(crate) journal: Arc<dyn Journal>,
    pub(crate) name: String,
    /// The lease of its turns' runs ([`RuntimeBuilder::lease`]).
    lease: Duration,
    rows: SharedHandles,
    pub(crate) wake: Notify,
    /// The JSON last stored per handle: a pass writes only the handles that changed.
    written: AsyncMutex<HashMap<Arc<str>, String>>,
}

/// One handle as its row holds it.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Saved {
    agent: String,
    parent: Option<String>,
    depth: u32,
    state: HandleState,
    inbox: Vec<InboxItem>,
    ticks: u32,
    drained: Vec<InboxItem>,
    drained_ticks: u32,
    children: Vec<String>,
    seq: u32,
    tokens_left: Option<i64>,
    tool_calls_left: Option<i64>,
    max_turns: u32,
    max_concurrent: u32,
    max_depth: u32,
    max_children: Option<u32>,
    max_wall_ms: Option<u64>,
    spawned_at_ms: u64,
    usage_total: u64,
    own_total: u64,
    turns_total: u32,
    last: Option<TaskResult>,
    queue: Vec<(String, Option<String>)>,
    queued: bool,
    generation: u64,
    halted: Option<RunResult>,
    pending: Option<Request>,
    transcript: Option<Vec<Message>>,
    task_key: Option<String>,
    /// The stored run of its current (or last) turn.
    #[serde(default)]
    run: Option<String>,
    /// The input of its current (or last) fresh turn.
    #[serde(default)]
    input: Option<String>,
}

impl Saved {
    fn of(n: &Node) -> Saved {
        Saved {
            agent: n.def.name.clone(),
            parent: n.parent.as_deref().map(str::to_owned),
            depth: n.depth,
            state: n.state,
            inbox: n.inbox.clone(),
            ticks: n.ticks,
            drained: n.drained.clone(),
            drained_ticks: n.drained_ticks,
            children: n.children.iter().map(|c| c.to_string()).collect(),
            seq: n.seq,
            tokens_left: n.pool.tokens,
            tool_calls_left: n.pool.tool_calls,
            max_turns: n.max_turns,
            max_concurrent: n.max_concurrent,
            max_depth: n.max_depth,
            max_children: n.max_children,
            max_wall_ms: n.max_wall.map(|w| w.as_millis() as u64),
            spawned_at_ms: n.spawned_at.as_millis() as u64,
            usage_total: n.usage_total,
            own_total: n.own_total,
            turns_total: n.turns_total,
            last: n.last.clone(),
            queue: n
                .queue
                .iter()
                .map(|(id, prompt)| (id.to_string(), prompt.clone()))
                .collect(),
            queued: n.queued,
            generation: n.generation,
            halted: n.halted.clone(),
            pending: n.pending.clone(),
            transcript: n.transcript.clone(),
            task_key: n.task_key.clone(),
            run: n.run_id.clone(),
            input: n.input.clone(),
        }
    }

    /// The node back, on `def` (the registered agent of its name).
    fn node(self, id: &str, def: Arc<crate::agents::def::AgentDef>) -> Node {
        let mut n = Node::new(Arc::from(id), def, None, Duration::ZERO, None);
        n.parent = self.parent.map(Arc::from);
        n.depth = self.depth;
        n.state = self.state;
        n.inbox = self.inbox;
        n.ticks = self.ticks;
        n.drained = self.drained;
        n.drained_ticks = self.drained_ticks;
        n.children = self.children.into_iter().map(Arc::from).collect();
        n.seq = self.seq;
        n.pool = Pool {
            tokens: self.tokens_left,
            tool_calls: self.tool_calls_left,
        };
        n.max_turns = self.max_turns;
        n.max_concurrent = self.max_concurrent;
        n.max_depth = self.max_depth;
        n.max_children = self.max_children;
        n.max_wall = self.max_wall_ms.map(Duration::from_millis);
        n.spawned_at = Duration::from_millis(self.spawned_at_ms);
        n.usage_total = self.usage_total;
        n.own_total = self.own_total;
        n.turns_total = self.turns_total;
        n.last = self.last;
        n.queue = self
            .queue
            .into_iter()
            .map(|(id, prompt)| (Arc::from(id), prompt))
            .collect();
        n.queued = self.queued;
        n.generation = self.generation;
        n.halted = self.halted;
        n.pending = self.pending;
        n.transcript = self.transcript;
        n.task_key = self.task_key;
        n.run_id = self.run;
        n.input = self.input;
        n
    }
}

impl Keep {
    /// The run id of turn `generation` of handle `id`:
    /// `agents:<runtime>:<handle>#<turn>-<suffix>` (the suffix keeps a turn number that a
    /// stop left unsaved from colliding).
    pub(crate) fn run_id(&self, id: &str, generation: u64) -> String {
        let suffix = new_id("");
        format!(
            "agents:{}:{id}#{generation}-{}",
            self.name,
            &suffix[..8.min(suffix.len())]
        )
    }

    /// `client` recording its runs in the store (a fresh one as `run_id`), under the
    /// runtime's lease.
    pub(crate) fn client(&self, mut client: Client, run_id: Option<String>) -> Client {
        client.store = Some(Durable {
            store: Arc::clone(&self.journal),
            lease: self.lease,
            run_id,
        });
        client
    }

    /// Stores every handle whose state changed since the last pass, in one transaction.
    pub(crate) async fn pass(&self, inner: &Inner) -> Result<(), StoreError> {
        let mut written = self.written.lock().await;
        let changed: Vec<HandleRow> = {
            let t = inner.table();
            let mut changed = Vec::new();
            for (id, node) in &t.nodes {
                let json = serde_json::to_string(&Saved::of(node))
                    .map_err(|e| StoreError::corrupted(format!("handle `{id}`"), e))?;
                if written.get(id) != Some(&json) {
                    let state = match node.state {
                        HandleState::Idle => "idle",
                        HandleState::Running => "running",
                        HandleState::Suspended => "suspended",
                        HandleState::Closed => "closed",
                    };
                    changed.push(HandleRow {
                        id: id.to_string(),
                        state,
                        json,
                    });
                }
            }
            changed
        };
        if changed.is_empty() {
            return Ok(());
        }
        self.rows.save(&self.name, &changed).await?;
        for row in changed {
            written.insert(Arc::from(row.id), row.json);
        }
        Ok(())
    }
}

/// The turn of handle `id` that a stop cut off, driven on: its stored `run` taken over
/// (its settled calls are not run again). A stop after the handle's row said `running`
/// but before the run was written left nothing that ran to completion, so the turn runs
/// again from `again` (its input and transcript), under the same run id. Any other
/// failure is the turn's `error`.
pub(crate) async fn recover(
    rt: &Inner,
    id: &str,
    client: &Client,
    def: &crate::agents::def::AgentDef,
    run: &str,
    again: Option<(String, Option<Vec<Message>>)>,
    toolkit: &crate::tool::kit::Toolkit,
) -> RunResult {
    match (client.take_over_run(run, toolkit).await, again) {
        (Ok(taken), _) => taken,
        (Err(StoreError::UnknownRun(_)), Some((input, transcript))) => {
            rt.note(format!(
                "{id}: its run {run} was never written; the turn runs again from its input"
            ));
            let gate = def.completion.as_ref();
            crate::agents::gate::fresh(client, input.into(), transcript, toolkit, gate).await
        }
        (Err(error), _) => {
            let mut taken = RunResult::empty(Vec::new());
            taken.status = crate::agent::run::RunStatus::Incomplete {
                reason: crate::agent::run::StopReason::ModelError {
                    message: format!("taking over run {run}: {error}"),
                },
            };
            taken
        }
    }
}

/// The writer: a pass after each wake, until the runtime is dropped.
fn writer(inner: Weak<Inner>, keep: Arc<Keep>) {
    tokio::spawn(async move {
        loop {
            keep.wake.notified().await;
            let Some(inner) = inner.upgrade() else {
                return;
            };
            if let Err(error) = keep.pass(&inner).await {
                tracing::warn!(runtime = %keep.name, %error, "storing the agent handles failed");
            }
        }
    });
}

impl RuntimeBuilder {
    /// The lease of the runs a durable runtime's turns record (30 s by default, as
    /// [`Client::lease`]): the process driving a turn renews it; after a stop, the
    /// process that opens the runtime again takes a turn that was running over once its
    /// lease has run out, and drives it on.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// The runtime, durable: its handles kept in `store` (a `toolnexus::store::RunStore`
    /// or `RunStore`) under `name`, and each turn a run of that store. When the store
    /// already holds a runtime of that name (its process stopped), the runtime comes back
    /// with its tree: the same handles, budgets carved and spent, inboxes, and suspended
    /// handles still waiting on their requests ([`Runtime::pending`] lists them,
    /// [`Runtime::resume`] answers them, and the calls their turns settled are not run
    /// again). A turn that was running when the process stopped goes on: once its run's
    /// [`lease`](RuntimeBuilder::lease) has run out, its stored run is taken over (its
    /// settled calls are not run again; a call that was in flight runs again, with the
    /// same idempotency key), and a `task` call in flight reattaches to its child. A turn
    /// that cannot be taken over comes back idle with an `error` result saying so, its
    /// inbox restored.
    ///
    /// Errors: the store's own, a store that keeps no agent handles, and a stored handle
    /// whose agent is not registered in this builder.
    pub async fn open(
        self,
        store: impl Journal,
        name: impl Into<String>,
    ) -> Result<Runtime, StoreError> {
        let name = name.into();
        let rows = store
            .part(std::any::TypeId::of::<SharedHandles>())
            .and_then(|part| part.downcast::<SharedHandles>().ok())
            .map(|rows| *rows)
            .ok_or_else(|| StoreError::Unavailable {
                doing: format!("opening the agent runtime `{name}`"),
                source: "this store keeps no agent handles (use toolnexus::store's)".into(),
            })?;
        let saved = rows.load(&name).await?;
        let keep = Arc::new(Keep {
            journal: Arc::new(store),
            name: name.clone(),
            lease: self.lease,
            rows,
            wake: Notify::new(),
            written: AsyncMutex::new(HashMap::new()),
        });
        let mut rt = self.build();
        let inner = Arc::get_mut(&mut rt.inner).ok_or_else(|| StoreError::Corrupted {
            row: name.clone(),
            message: "the runtime was shared before it opened".into(),
        })?;
        inner.keep = Some(Arc::clone(&keep));
        restore(&rt, &name, saved)?;
        writer(Arc::downgrade(&rt.inner), Arc::clone(&keep));
        keep.pass(&rt.inner).await?;
        Ok(rt)
    }
}

/// Puts the stored handles in `rt`'s table; turns cut off by the stop become `error`
/// results, and queued wakes start where slots are free.
fn restore(rt: &Runtime, name: &str, saved: Vec<(String, String)>) -> Result<(), StoreError> {
    let inner = &rt.inner;
    let mut t = inner.table();
    let root_def = t
        .get(ROOT)
        .map(|r| Arc::clone(&r.def))
        .ok_or_else(|| StoreError::corrupted(name, "no root handle"))?;
    let mut queued = Vec::new();
    let mut recovered = Vec::new();
    for (id, json) in saved {
        let what = format!("handle `{id}` of runtime `{name}`");
        let row: Saved =
            serde_json::from_str(&json).map_err(|e| StoreError::corrupted(&what, e))?;
        let def = if id == ROOT {
            Arc::clone(&root_def)
        } else {
            let known: Vec<&str> = inner.registry.keys().map(String::as_str).collect();
            inner.registry.get(&row.agent).cloned().ok_or_else(|| {
                StoreError::corrupted(
                    &what,
                    format!(
                        "agent `{}` is not registered in this runtime (registered: {})",
                        row.agent,
                        known.join(", ")
                    ),
                )
            })?
        };
        let mut node = row.node(&id, def);
        if node.state == HandleState::Running
            && let Some(run) = node.run_id.clone()
        {
            recovered.push(inner.recover_job(&mut node, run));
            inner.note(format!(
                "{id}: running (recovered: its stored run is taken over)"
            ));
        } else if node.turn_live() {
            let run = node.generation;
            node.state = HandleState::Idle;
            node.halted = None;
            node.pending = None;
            node.restore();
            let r = node.result(
                TaskStatus::Error,
                format!(
                    "{id}: its turn (#{run}) was cut off when the process running it stopped; \
                     wake it again"
                ),
            );
            node.settle(r);
            inner.note(format!("{id}: running→idle (recovered: turn cut off)"));
        }
        if !node.queue.is_empty() {
            queued.push(Arc::clone(&node.id));
        }
        t.nodes.insert(Arc::clone(&node.id), node);
    }
    // Each recovered turn holds its parent's slot again.
    let running: Vec<Arc<str>> = t
        .nodes
        .values()
        .filter(|n| n.state == HandleState::Running)
        .filter_map(|n| n.parent.clone())
        .collect();
    for parent in running {
        if let Some(p) = t.get_mut(&parent) {
            p.running_children += 1;
        }
    }
    let mut jobs = recovered;
    for parent in queued {
        jobs.extend(inner.dequeue(&mut t, &parent));
    }
    drop(t);
    inner.start(jobs);
    Ok(())
}

impl Runtime {
    /// Stores the handles whose state changed and waits until they are stored: after it,
    /// a process that stops leaves the tree as it stands now. A durable runtime stores
    /// them behind each transition anyway; without a store this does nothing.
    pub async fn flush(&self) -> Result<(), StoreError> {
        match &self.inner.keep {
            Some(keep) => keep.pass(&self.inner).await,
            None => Ok(()),
        }
    }
}
