//! [`Runtime`]: the handle table and the six verbs, `spawn`, `post`, `wake`, `wait`,
//! `interrupt` and `close`, with the read-only `list` and `inspect`.

pub(crate) mod keep;
pub(crate) mod task;
pub(crate) mod turn;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures_util::future::{BoxFuture, Either, select};
use tokio::sync::{Semaphore, oneshot};

use crate::model::Model;

use super::clock::{Clock, SystemClock};
use super::def::{Agent, AgentDef};
use super::table::{Node, Table};
use super::types::{
    Budget, Handle, HandleState, HandleView, InboxItem, Limit, RuntimeError, SpawnError,
    TaskResult, TaskStatus, Woken,
};

/// The runtime's own root handle, parent of the handles the host spawns.
pub const ROOT: &str = "root";

/// How many model calls may be in flight at once, across the runtime, by default.
pub const DEFAULT_MAX_CONCURRENT_TURNS: usize = 8;
/// Inbox slots per handle by default.
pub const DEFAULT_INBOX_CAP: usize = 8;
/// How long a graceful close lets a running turn finish, by default.
pub const DEFAULT_SHUTDOWN: Duration = Duration::from_millis(200);

pub(crate) struct Inner {
    pub(crate) registry: BTreeMap<String, Arc<AgentDef>>,
    pub(crate) model: Arc<dyn Model>,
    pub(crate) gate: Arc<Semaphore>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) inbox_cap: usize,
    pub(crate) shutdown: Duration,
    table: Mutex<Table>,
    trace: Mutex<Vec<String>>,
    /// The store of a durable runtime ([`RuntimeBuilder::open`]).
    pub(crate) keep: Option<Arc<keep::Keep>>,
}

impl Inner {
    pub(crate) fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn note(&self, line: String) {
        self.trace
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(line);
        self.touched();
    }

    /// The table changed: a durable runtime's writer stores what did.
    pub(crate) fn touched(&self) {
        if let Some(keep) = &self.keep {
            keep.wake.notify_one();
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The writer finds the runtime gone and stops.
        self.touched();
    }
}

/// Hosts many agents at once, each a [`Handle`] with the contract's state machine.
///
/// Every turn runs the crate's loop ([`Client`](crate::Client)) on a tokio task; the
/// verbs must be called within a tokio runtime. Clones share one runtime.
///
/// ```
/// use toolnexus::agents::{Agent, Runtime, TaskStatus};
/// use toolnexus::{Reply, ScriptedModel};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let helper = Agent::new("helper").does("Answers questions.");
/// let rt = Runtime::new(ScriptedModel::new([Reply::text("42")]), &helper);
/// let h = rt.spawn(&rt.root(), "helper", None).unwrap();
/// rt.wake(&h, Some("The answer?".into())).unwrap();
/// let result = rt.wait(&h, None).await;
/// assert_eq!((result.status, result.text.as_str()), (TaskStatus::Done, "42"));
/// # });
/// ```
#[derive(Clone)]
pub struct Runtime {
    pub(crate) inner: Arc<Inner>,
}

/// Options for a [`Runtime`] ([`Runtime::builder`]).
pub struct RuntimeBuilder {
    model: Arc<dyn Model>,
    registry: BTreeMap<String, Arc<AgentDef>>,
    clock: Arc<dyn Clock>,
    inbox_cap: usize,
    max_concurrent_turns: usize,
    shutdown: Duration,
    /// The lease of a durable runtime's turns (`RuntimeBuilder::lease`).
    pub(crate) lease: Duration,
}

impl RuntimeBuilder {
    /// Registers `agent` and every agent of its team graph.
    #[must_use]
    pub fn agent(mut self, agent: &Agent) -> Self {
        agent.registry(&mut self.registry);
        self
    }

    /// The clock of every timer, timeout and deadline ([`SystemClock`] by default).
    #[must_use]
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Inbox slots per handle ([`DEFAULT_INBOX_CAP`]); a post beyond is refused.
    #[must_use]
    pub fn inbox_cap(mut self, cap: usize) -> Self {
        self.inbox_cap = cap;
        self
    }

    /// Model calls in flight at once across the runtime
    /// ([`DEFAULT_MAX_CONCURRENT_TURNS`]). The gate wraps the model call alone, never a
    /// whole run, and a run that dies releases it.
    #[must_use]
    pub fn max_concurrent_turns(mut self, n: usize) -> Self {
        self.max_concurrent_turns = n.max(1);
        self
    }

    /// How long a graceful [`close`](Runtime::close) lets a running turn finish
    /// ([`DEFAULT_SHUTDOWN`]).
    #[must_use]
    pub fn shutdown(mut self, grace: Duration) -> Self {
        self.shutdown = grace;
        self
    }

    /// The runtime.
    pub fn build(self) -> Runtime {
        let root_def = Arc::new(Agent::new(ROOT).does("runtime root").def);
        let now = self.clock.now();
        let mut table = Table::default();
        let root: Arc<str> = Arc::from(ROOT);
        table.nodes.insert(
            Arc::clone(&root),
            Node::new(root, root_def, None, now, None),
        );
        Runtime {
            inner: Arc::new(Inner {
                registry: self.registry,
                model: self.model,
                gate: Arc::new(Semaphore::new(self.max_concurrent_turns)),
                clock: self.clock,
                inbox_cap: self.inbox_cap,
                shutdown: self.shutdown,
                table: Mutex::new(table),
                trace: Mutex::new(Vec::new()),
                keep: None,
            }),
        }
    }
}

impl Runtime {
    /// A runtime whose agents talk to `model` (unless they have their own), with
    /// `agent`'s team graph registered and the default options.
    pub fn new(model: impl Model + 'static, agent: &Agent) -> Runtime {
        Runtime::builder(model).agent(agent).build()
    }

    /// A runtime to configure: register agents, set the clock and the caps.
    pub fn builder(model: impl Model + 'static) -> RuntimeBuilder {
        RuntimeBuilder {
            model: Arc::new(model),
            registry: BTreeMap::new(),
            clock: Arc::new(SystemClock::new()),
            inbox_cap: DEFAULT_INBOX_CAP,
            max_concurrent_turns: DEFAULT_MAX_CONCURRENT_TURNS,
            shutdown: DEFAULT_SHUTDOWN,
            lease: crate::agent::journal::DEFAULT_LEASE,
        }
    }

    /// The runtime's root handle: spawn the host's agents under it; closing it closes
    /// everything.
    pub fn root(&self) -> Handle {
        Handle(Arc::from(ROOT))
    }

    /// The runtime's clock.
    pub fn clock(&self) -> Arc<dyn Clock> {
        Arc::clone(&self.inner.clock)
    }

    /// A new child of `parent`, running the registered agent `agent`, with `budget`'s
    /// set fields over the agent's own. Its id is `parent/agent.N`, N counting
    /// `parent`'s spawns. Refused when the agent is unknown, the parent closed, or a cap
    /// of the parent's (`maxDepth`, `maxChildren`) or a pool up its chain of ancestors
    /// (`maxTokens`, `maxToolCalls`, `maxWallMs`) says no.
    pub fn spawn(
        &self,
        parent: &Handle,
        agent: &str,
        budget: Option<Budget>,
    ) -> Result<Handle, SpawnError> {
        let refuse = |message: String, limit: Option<Limit>| SpawnError { message, limit };
        let Some(def) = self.inner.registry.get(agent) else {
            let known: Vec<&str> = self.inner.registry.keys().map(String::as_str).collect();
            return Err(refuse(
                format!("unknown agent \"{agent}\" (known: {})", known.join(", ")),
                None,
            ));
        };
        let now = self.inner.clock.now();
        let mut t = self.inner.table();
        let Some(p) = t.get(parent.id()) else {
            return Err(refuse(format!("no handle {parent} in this runtime"), None));
        };
        if p.state == HandleState::Closed {
            return Err(refuse(format!("{parent} is closed"), None));
        }
        if p.depth + 1 > p.max_depth {
            return Err(refuse(
                format!("maxDepth {} exceeded: {parent} may not spawn", p.max_depth),
                Some(Limit::MaxDepth),
            ));
        }
        if let Some(max) = p.max_children
            && p.children.len() as u64 >= u64::from(max)
        {
            return Err(refuse(
                format!("maxChildren {max} exceeded: {parent} has spawned {max}"),
                Some(Limit::MaxChildren),
            ));
        }
        if let Some(limit) = t.exhausted(parent.id(), now) {
            return Err(refuse(
                format!("budget exhausted ({limit}) at {parent}; incomplete"),
                Some(limit),
            ));
        }
        let Some(p) = t.get_mut(parent.id()) else {
            return Err(refuse(format!("no handle {parent}"), None));
        };
        p.seq += 1;
        let id: Arc<str> = Arc::from(format!("{}/{agent}.{}", parent.id(), p.seq));
        p.children.push(Arc::clone(&id));
        let Some(p) = t.get(parent.id()) else {
            return Err(refuse(format!("no handle {parent}"), None));
        };
        let child = Node::new(Arc::clone(&id), Arc::clone(def), Some(p), now, budget);
        let tokens = child
            .pool
            .tokens
            .map_or_else(|| "unlimited".to_owned(), |t| t.to_string());
        t.nodes.insert(Arc::clone(&id), child);
        drop(t);
        self.inner.note(format!("{id}: spawned (tokens {tokens})"));
        if let Some(on_spawn) = &def.on_spawn {
            tokio::spawn(on_spawn(Handle(Arc::clone(&id))));
        }
        Ok(Handle(id))
    }

    /// Appends `item` to `h`'s inbox; no state changes. It enters only as part of the
    /// next wake's turn. Refused at the inbox cap (timer ticks coalesce into one slot,
    /// so a tick is refused only when the first one finds the inbox full) and after close.
    pub fn post(&self, h: &Handle, item: InboxItem) -> Result<(), RuntimeError> {
        let mut t = self.inner.table();
        let node = known(&mut t, h)?;
        if node.state == HandleState::Closed {
            return Err(RuntimeError::Closed {
                handle: h.to_string(),
            });
        }
        let tick = item.channel == "timer";
        if tick && node.ticks > 0 {
            node.ticks += 1;
            drop(t);
            self.inner.touched();
            return Ok(());
        }
        if node.inbox_len() >= self.inner.inbox_cap {
            drop(t);
            self.inner.note(format!(
                "{h}: post REJECTED (inbox full, cap {}) from {}",
                self.inner.inbox_cap, item.from
            ));
            return Err(RuntimeError::InboxFull {
                handle: h.to_string(),
                cap: self.inner.inbox_cap,
            });
        }
        if tick {
            node.ticks = 1;
        } else {
            node.inbox.push(item);
        }
        drop(t);
        self.inner.touched();
        Ok(())
    }

    /// Starts a turn of idle `h`: its input is `prompt` and the whole inbox, drained as
    /// one block. Admission is one step under the runtime's lock (the parent's
    /// `maxConcurrent`, the budget walk up the chain of ancestors, the state flip): over
    /// the parent's `maxConcurrent` the wake queues, and a finishing sibling hands its
    /// slot to the earliest queued wake. A budget that says no settles `h` `incomplete`.
    pub fn wake(&self, h: &Handle, prompt: Option<String>) -> Result<Woken, RuntimeError> {
        let mut t = self.inner.table();
        let node = known(&mut t, h)?;
        match node.state {
            HandleState::Closed => {
                return Err(RuntimeError::Closed {
                    handle: h.to_string(),
                });
            }
            HandleState::Running | HandleState::Suspended => return Ok(Woken::Busy),
            HandleState::Idle if node.queued => return Ok(Woken::Queued),
            HandleState::Idle => {}
        }
        let parent = node.parent.clone();
        if let Some(pid) = parent.as_deref()
            && let Some(p) = t.get_mut(pid)
            && p.running_children >= p.max_concurrent
        {
            let max = p.max_concurrent;
            p.queue.push_back((Arc::clone(&h.0), prompt));
            if let Some(node) = t.get_mut(h.id()) {
                node.queued = true;
            }
            drop(t);
            self.inner
                .note(format!("{h}: wake QUEUED (parent concurrency {max})"));
            return Ok(Woken::Queued);
        }
        let launched = self.inner.launch(&mut t, h.id(), prompt);
        drop(t);
        Ok(match launched {
            turn::Launch::Started(job) => {
                self.inner.start(vec![job]);
                Woken::Started
            }
            turn::Launch::Settled(result) => Woken::Settled(Box::new(result)),
        })
    }

    /// The next result of `h`, or its last one when it is settled (idle with a result,
    /// suspended, closed). With a `timeout` (on the runtime's clock), a `timeout` result
    /// when it passes; `h` keeps running.
    pub async fn wait(&self, h: &Handle, timeout: Option<Duration>) -> TaskResult {
        let rx = {
            let mut t = self.inner.table();
            let Some(node) = t.get_mut(h.id()) else {
                return unknown_result(h);
            };
            if let Some(settled) = node.settled() {
                return settled;
            }
            let (tx, rx) = oneshot::channel();
            node.waiters.push(tx);
            rx
        };
        let lost = |h: &Handle| {
            let mut r = unknown_result(h);
            r.text = format!("{h}: the runtime dropped the wait");
            r
        };
        match timeout {
            None => rx.await.unwrap_or_else(|_| lost(h)),
            Some(timeout) => match select(rx, self.inner.clock.sleep(timeout)).await {
                Either::Left((r, _)) => r.unwrap_or_else(|_| lost(h)),
                Either::Right(((), _)) => {
                    let t = self.inner.table();
                    let (state, mut r) = match t.get(h.id()) {
                        Some(n) => (n.state, n.result(TaskStatus::Timeout, "")),
                        None => return unknown_result(h),
                    };
                    r.text = format!(
                        "wait timeout after {}ms (child still {state})",
                        timeout.as_millis()
                    );
                    r.limit = Some(Limit::Timeout);
                    r
                }
            },
        }
    }

    /// Aborts `h`'s running turn: `h` goes idle, what the turn drained is back in its
    /// inbox, and waiters get an `interrupted` result. On a suspended `h`, cancels its
    /// request the same way. Never a kill: `h` stays, and its children run on.
    pub fn interrupt(&self, h: &Handle) {
        let jobs = {
            let mut t = self.inner.table();
            self.inner.abort(&mut t, h.id(), TaskStatus::Interrupted)
        };
        self.inner.start(jobs);
    }

    /// Closes `h` gracefully: its children first (leaf-first), then a running turn gets
    /// the runtime's shutdown grace (on its clock) before it is aborted (`force` aborts at
    /// once), then its agent's [`on_close`](Agent::on_close) hook runs. Waiters get
    /// `closed`; the last result stays readable.
    pub fn close(&self, h: &Handle, force: bool) -> BoxFuture<'_, ()> {
        let h = h.clone();
        Box::pin(async move {
            let children = {
                let t = self.inner.table();
                match t.get(h.id()) {
                    Some(n) if n.state != HandleState::Closed => n.children.clone(),
                    _ => return,
                }
            };
            for child in children.iter().rev() {
                self.close(&Handle(Arc::clone(child)), force).await;
            }
            let running = self
                .inner
                .table()
                .get(h.id())
                .is_some_and(super::table::Node::turn_live);
            if running && !force {
                let _ = self.wait(&h, Some(self.inner.shutdown)).await;
            }
            let (jobs, on_close) = {
                let mut t = self.inner.table();
                let jobs = self.inner.abort(&mut t, h.id(), TaskStatus::Closed);
                (jobs, t.get(h.id()).and_then(|n| n.def.on_close.clone()))
            };
            self.inner.start(jobs);
            if let Some(on_close) = on_close {
                let reason = if force { "interrupted" } else { "closed" };
                on_close(h.clone(), reason.to_owned()).await;
            }
            let jobs = {
                let mut t = self.inner.table();
                let jobs = self.inner.abort(&mut t, h.id(), TaskStatus::Closed);
                if let Some(node) = t.get_mut(h.id()) {
                    let prior = node.state;
                    node.state = HandleState::Closed;
                    let closed = node.result(TaskStatus::Closed, "closed");
                    for waiter in node.waiters.drain(..) {
                        let _ = waiter.send(closed.clone());
                    }
                    if node.last.is_none() {
                        node.last = Some(closed);
                    }
                    let queued = std::mem::take(&mut node.queued);
                    let parent = node.parent.clone();
                    if queued && let Some(p) = parent.as_deref().and_then(|p| t.get_mut(p)) {
                        p.queue.retain(|(id, _)| id.as_ref() != h.id());
                    }
                    self.inner.note(format!("{h}: {prior}→closed"));
                }
                jobs
            };
            self.inner.start(jobs);
        })
    }

    /// Every handle but the root, depth first in spawn order.
    pub fn list(&self) -> Vec<HandleView> {
        let t = self.inner.table();
        let mut out = Vec::new();
        let mut stack: Vec<Arc<str>> = t
            .get(ROOT)
            .map(|r| r.children.iter().rev().cloned().collect())
            .unwrap_or_default();
        while let Some(id) = stack.pop() {
            if let Some(n) = t.get(&id) {
                out.push(view(n));
                stack.extend(n.children.iter().rev().cloned());
            }
        }
        out
    }

    /// One handle's view.
    pub fn inspect(&self, h: &Handle) -> Result<HandleView, RuntimeError> {
        let t = self.inner.table();
        t.get(h.id())
            .map(view)
            .ok_or_else(|| RuntimeError::Unknown {
                handle: h.to_string(),
            })
    }

    /// The transition trace so far, one line per event (`root/a.1: idle→running (wake)`).
    pub fn trace(&self) -> Vec<String> {
        self.inner
            .trace
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The transcript of `h`'s completed turns (`None` before its first).
    pub fn transcript(&self, h: &Handle) -> Option<Vec<crate::model::message::Message>> {
        self.inner.table().get(h.id())?.transcript.clone()
    }
}

fn known<'t>(t: &'t mut Table, h: &Handle) -> Result<&'t mut Node, RuntimeError> {
    t.get_mut(h.id()).ok_or_else(|| RuntimeError::Unknown {
        handle: h.to_string(),
    })
}

fn view(n: &Node) -> HandleView {
    HandleView {
        id: n.id.to_string(),
        state: n.state,
        tokens: n.usage_total,
        inbox: n.inbox_len(),
    }
}

fn unknown_result(h: &Handle) -> TaskResult {
    TaskResult::error(format!("no handle {h} in this runtime"))
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("agents", &self.inner.registry.keys().collect::<Vec<_>>())
            .field("handles", &self.list())
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for RuntimeBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RuntimeBuilder")
            .field("agents", &self.registry.keys().collect::<Vec<_>>())
            .field("inbox_cap", &self.inbox_cap)
            .finish_non_exhaustive()
    }
}
