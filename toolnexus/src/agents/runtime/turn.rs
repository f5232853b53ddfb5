//! One turn of a handle: admission, the run on a tokio task, its end (or its abort), and
//! the hand-over of the parent's concurrency slot to the next queued wake.

use std::sync::Arc;

use crate::agent::client::Client;
use crate::agent::run::{RunResult, RunStatus, StopReason};
use crate::model::message::Message;
use crate::model::{Model, ModelError, ModelFuture, ModelInfo, ModelRequest, Reply};
use crate::tool::kit::Toolkit;
use crate::tool::request::{Answer, Request};

use super::Inner;
use crate::agents::def::{AgentDef, WaitFor};
use crate::agents::table::{Table, with_path};
use crate::agents::types::{HandleState, Limit, TaskResult, TaskStatus};

pub(crate) enum Mode {
    Fresh {
        input: String,
        transcript: Option<Vec<Message>>,
    },
    Resume {
        halted: Box<RunResult>,
        answer: Answer,
    },
    /// A turn whose process stopped: its stored run, taken over and driven on; or, when
    /// the stop came before the run was written, the turn again from its `input`.
    Recover {
        run: String,
        input: Option<String>,
        transcript: Option<Vec<Message>>,
    },
}

pub(crate) struct Job {
    id: Arc<str>,
    generation: u64,
    def: Arc<AgentDef>,
    max_turns: u32,
    mode: Mode,
    /// The stored run a fresh turn records (a durable runtime's).
    run_id: Option<String>,
}

pub(crate) enum Launch {
    Started(Job),
    Settled(TaskResult),
}

impl Inner {
    /// Admits idle `id`'s turn: the budget walk, the drain, the state flip and the
    /// parent's slot, in one step under the lock.
    pub(crate) fn launch(&self, t: &mut Table, id: &str, prompt: Option<String>) -> Launch {
        let now = self.clock.now();
        let exhausted = t.exhausted(id, now);
        let Some(node) = t.get_mut(id) else {
            return Launch::Settled(TaskResult::error(format!("no handle {id}")));
        };
        if node.state == HandleState::Closed {
            return Launch::Settled(node.result(TaskStatus::Closed, "closed"));
        }
        if let Some(limit) = exhausted {
            let mut r = node.result(
                TaskStatus::Incomplete,
                format!("budget exhausted ({limit}); partial work preserved"),
            );
            r.limit = Some(limit);
            node.settle(r.clone());
            self.note(format!("{id}: wake refused (budget exhausted: {limit})"));
            return Launch::Settled(r);
        }
        let input = node.drain(prompt);
        node.state = HandleState::Running;
        node.generation += 1;
        node.live_limit = None;
        node.run_id = self.new_run_id(id, node.generation);
        node.input = node.run_id.as_ref().map(|_| input.clone());
        let job = Job {
            run_id: node.run_id.clone(),
            id: Arc::clone(&node.id),
            generation: node.generation,
            def: Arc::clone(&node.def),
            max_turns: node.max_turns,
            mode: Mode::Fresh {
                input,
                transcript: node.transcript.clone(),
            },
        };
        let parent = node.parent.clone();
        if let Some(p) = parent.as_deref().and_then(|p| t.get_mut(p)) {
            p.running_children += 1;
        }
        self.note(format!("{id}: idle→running (wake)"));
        Launch::Started(job)
    }

    /// Admits the resume of suspended `id` with `answer`: `suspended→idle` (the answer
    /// accepted), then `idle→running`, unless the budget walk says no.
    pub(crate) fn launch_resume(&self, t: &mut Table, id: &str, answer: Answer) -> Launch {
        let now = self.clock.now();
        let exhausted = t.exhausted(id, now);
        let Some(node) = t.get_mut(id) else {
            return Launch::Settled(TaskResult::error(format!("no handle {id}")));
        };
        let halted = node.halted.take();
        node.pending = None;
        node.state = HandleState::Idle;
        node.consume();
        self.note(format!(
            "{id}: suspended→idle (Answer ok={} accepted)",
            answer.ok
        ));
        let Some(halted) = halted else {
            let r = node.result(TaskStatus::Error, format!("{id} holds no halted run"));
            node.settle(r.clone());
            return Launch::Settled(r);
        };
        if let Some(limit) = exhausted {
            let mut r = node.result(
                TaskStatus::Incomplete,
                format!("budget exhausted ({limit}); partial work preserved"),
            );
            r.limit = Some(limit);
            node.halted = Some(halted);
            node.settle(r.clone());
            return Launch::Settled(r);
        }
        node.state = HandleState::Running;
        node.generation += 1;
        node.live_limit = None;
        node.run_id = halted.id.clone();
        let job = Job {
            run_id: None,
            id: Arc::clone(&node.id),
            generation: node.generation,
            def: Arc::clone(&node.def),
            max_turns: node.max_turns,
            mode: Mode::Resume {
                halted: Box::new(halted),
                answer,
            },
        };
        let parent = node.parent.clone();
        if let Some(p) = parent.as_deref().and_then(|p| t.get_mut(p)) {
            p.running_children += 1;
        }
        self.note(format!("{id}: idle→running (resume)"));
        Launch::Started(job)
    }

    /// Runs each job on a tokio task of its own, its abort handle kept on the handle.
    pub(crate) fn start(self: &Arc<Self>, jobs: Vec<Job>) {
        for job in jobs {
            let (id, generation) = (Arc::clone(&job.id), job.generation);
            let task = tokio::spawn(Arc::clone(self).run(job));
            let mut t = self.table();
            if let Some(node) = t.get_mut(&id)
                && node.generation == generation
                && node.turn_live()
            {
                node.abort = Some(task.abort_handle());
            }
        }
    }

    async fn run(self: Arc<Self>, job: Job) {
        let Job {
            id,
            generation,
            def,
            max_turns,
            mode,
            run_id,
        } = job;
        let mut toolkit = def.toolkit.clone();
        if let Some(team) = &def.team {
            toolkit = toolkit.with(super::task::tool(&self, &id, team));
        }
        let model = Metered {
            rt: Arc::clone(&self),
            id: Arc::clone(&id),
            generation,
            model: def.model.clone().unwrap_or_else(|| Arc::clone(&self.model)),
        };
        let mut client = Client::new(model).max_turns(max_turns);
        if let Some(keep) = &self.keep {
            client = keep.client(client, run_id);
        }
        if !def.soul.is_empty() {
            client = client.system(def.soul.clone());
        }
        if let Some(wait_for) = self.escalator(&id) {
            let (rt, at) = (Arc::clone(&self), Arc::clone(&id));
            client = client.wait_for(move |request: Request| {
                let (rt, at) = (Arc::clone(&rt), Arc::clone(&at));
                let by = (Arc::clone(&wait_for.0), Arc::clone(&wait_for.1));
                async move { rt.escalate(&at, request, by).await }
            });
        }
        let run = match mode {
            Mode::Fresh { input, transcript } => {
                let gate = def.completion.as_ref();
                crate::agents::gate::fresh(&client, input.into(), transcript, &toolkit, gate).await
            }
            Mode::Recover {
                run,
                input,
                transcript,
            } => {
                let again = input.map(|input| (input, transcript));
                super::keep::recover(&self, &id, &client, &def, &run, again, &toolkit).await
            }
            Mode::Resume { halted, answer } => {
                match self.resume_turn(&client, *halted, answer, &toolkit).await {
                    Ok(run) => run,
                    Err(error) => {
                        let mut run = RunResult::empty(Vec::new());
                        run.status = RunStatus::Incomplete {
                            reason: StopReason::ModelError {
                                message: format!("resume refused: {error}"),
                            },
                        };
                        run
                    }
                }
            }
        };
        let jobs = self.finish(&id, generation, run);
        self.start(jobs);
    }

    /// The stored run id of a fresh turn, in a durable runtime.
    fn new_run_id(&self, id: &str, generation: u64) -> Option<String> {
        if let Some(keep) = &self.keep {
            return Some(keep.run_id(id, generation));
        }
        let _ = (id, generation);
        None
    }

    /// The job that takes over running `node`'s stored run `run` after its process
    /// stopped.
    pub(crate) fn recover_job(&self, node: &mut crate::agents::table::Node, run: String) -> Job {
        node.generation += 1;
        node.live_limit = None;
        Job {
            id: Arc::clone(&node.id),
            generation: node.generation,
            def: Arc::clone(&node.def),
            max_turns: node.max_turns,
            mode: Mode::Recover {
                run: run.clone(),
                input: node.input.clone(),
                transcript: node.transcript.clone(),
            },
            run_id: Some(run),
        }
    }

    /// Resumes a halted turn with `answer`: in a durable runtime through the store, as an
    /// answer to the halted run (its settled calls are not run again), else from the
    /// halted result.
    async fn resume_turn(
        &self,
        client: &Client,
        halted: RunResult,
        answer: Answer,
        toolkit: &Toolkit,
    ) -> Result<RunResult, String> {
        if self.keep.is_some()
            && let Some(run) = halted.id.as_deref()
        {
            return client
                .answer(answer, toolkit)
                .run(run)
                .await
                .map_err(|e| e.to_string());
        }
        client
            .resume(halted, answer, toolkit)
            .await
            .map_err(|e| e.to_string())
    }

    /// The nearest interpreter up the chain (the handle's own first), if any.
    fn escalator(&self, id: &str) -> Option<(Arc<str>, WaitFor)> {
        let t = self.table();
        t.chain(id)
            .into_iter()
            .find_map(|n| n.def.wait_for.clone().map(|w| (Arc::clone(&n.id), w)))
    }

    async fn escalate(
        &self,
        id: &str,
        request: Request,
        (who, wait_for): (Arc<str>, WaitFor),
    ) -> Answer {
        {
            let mut t = self.table();
            if let Some(node) = t.get_mut(id) {
                node.state = HandleState::Suspended;
            }
        }
        let by = if who.as_ref() == id { "self" } else { &who };
        self.note(format!(
            "{id}: running→suspended (pending \"{}\"); {by} answers (nearest interpreter)",
            request.kind
        ));
        let answer = wait_for(request).await;
        {
            let mut t = self.table();
            if let Some(node) = t.get_mut(id)
                && node.state == HandleState::Suspended
            {
                node.state = HandleState::Running;
            }
        }
        self.note(format!("{id}: suspended→running (Answer ok={})", answer.ok));
        answer
    }

    /// Settles a turn that ran to its end (a stale one, aborted meanwhile, is dropped),
    /// and hands the parent's slot on.
    fn finish(&self, id: &str, generation: u64, run: RunResult) -> Vec<Job> {
        let mut t = self.table();
        let Some(node) = t.get_mut(id) else {
            return Vec::new();
        };
        if node.generation != generation || node.state == HandleState::Closed {
            return Vec::new();
        }
        node.abort = None;
        let live = node.live_limit.take();
        // A model call the live budget walk refused never reached the model.
        node.turns_total += run.turns - u32::from(live.is_some() && run.turns > 0);
        let incomplete = |node: &crate::agents::table::Node, limit: Limit, text: String| {
            let mut r = node.result(TaskStatus::Incomplete, text);
            r.limit = Some(limit);
            r
        };
        let result = match &run.status {
            RunStatus::Done => {
                node.state = HandleState::Idle;
                node.consume();
                node.transcript = Some(run.messages.clone());
                self.note(format!("{id}: running→idle (done, turns={})", run.turns));
                node.result(TaskStatus::Done, run.text.clone())
            }
            RunStatus::Pending => {
                node.state = HandleState::Suspended;
                node.pending = run.pending.clone();
                let kind = run
                    .pending
                    .as_ref()
                    .map(|p| p.kind.clone())
                    .unwrap_or_default();
                let mut r = node.result(TaskStatus::Pending, run.text.clone());
                r.pending = run.pending.as_ref().map(|p| with_path(p, id));
                node.halted = Some(run);
                self.note(format!(
                    "{id}: running→suspended (pending \"{kind}\", durable)"
                ));
                r
            }
            RunStatus::Incomplete {
                reason: StopReason::MaxTurns { .. },
            } => {
                node.state = HandleState::Idle;
                node.consume();
                node.transcript = Some(run.messages.clone());
                self.note(format!(
                    "{id}: running→idle (incomplete at maxTurns {})",
                    node.max_turns
                ));
                incomplete(
                    node,
                    Limit::MaxTurns,
                    "hit maxTurns without a final answer".into(),
                )
            }
            RunStatus::Incomplete {
                reason: StopReason::Completion { .. },
            } => {
                node.state = HandleState::Idle;
                node.consume();
                node.transcript = Some(run.messages.clone());
                self.note(format!("{id}: running→idle (incomplete at completion)"));
                incomplete(node, Limit::Completion, run.text.clone())
            }
            RunStatus::Incomplete { .. } if live.is_some() => {
                let limit = live.unwrap_or(Limit::MaxTokens);
                node.state = HandleState::Idle;
                node.consume();
                node.transcript = Some(run.messages.clone());
                self.note(format!(
                    "{id}: running→idle (incomplete: {limit} exhausted mid-turn)"
                ));
                incomplete(
                    node,
                    limit,
                    format!("budget exhausted ({limit}) mid-turn; partial work preserved"),
                )
            }
            RunStatus::Incomplete { reason } => {
                node.state = HandleState::Idle;
                node.restore();
                self.note(format!("{id}: running→idle (error: {reason})"));
                node.result(TaskStatus::Error, reason.to_string())
            }
        };
        node.settle(result);
        let parent = node.parent.clone();
        self.release(&mut t, parent.as_deref())
    }

    /// Aborts `id`'s live turn (or cancels its request), settling it with `status`.
    pub(crate) fn abort(&self, t: &mut Table, id: &str, status: TaskStatus) -> Vec<Job> {
        let Some(node) = t.get_mut(id) else {
            return Vec::new();
        };
        let live = node.turn_live();
        if node.state == HandleState::Suspended && !live {
            node.pending = None;
            node.halted = None;
            node.restore();
            node.state = HandleState::Idle;
            let r = node.result(status, format!("{status}: pending request cancelled"));
            node.settle(r);
            self.note(format!(
                "{id}: suspended→idle ({status}, pending request cancelled)"
            ));
            return Vec::new();
        }
        if !live {
            return Vec::new();
        }
        node.generation += 1;
        if let Some(task) = node.abort.take() {
            task.abort();
        }
        node.restore();
        node.state = HandleState::Idle;
        let r = node.result(status, status.to_string());
        node.settle(r);
        let inbox = node.inbox_len();
        self.note(format!(
            "{id}: running→idle ({status}; inbox intact: {inbox} items)"
        ));
        let parent = node.parent.clone();
        self.release(t, parent.as_deref())
    }

    /// Frees a slot of `parent`'s and hands it to queued wakes, first woken first; a wake
    /// the budget refuses settles at once and the next one gets the slot.
    fn release(&self, t: &mut Table, parent: Option<&str>) -> Vec<Job> {
        let Some(pid) = parent else {
            return Vec::new();
        };
        if let Some(p) = t.get_mut(pid) {
            p.running_children = p.running_children.saturating_sub(1);
        }
        self.dequeue(t, pid)
    }

    /// Hands `pid`'s free slots to its queued wakes, first woken first.
    pub(crate) fn dequeue(&self, t: &mut Table, pid: &str) -> Vec<Job> {
        let mut jobs = Vec::new();
        while let Some(p) = t.get_mut(pid) {
            if p.running_children >= p.max_concurrent {
                break;
            }
            let Some((child, prompt)) = p.queue.pop_front() else {
                break;
            };
            match t.get_mut(&child) {
                Some(c) if c.state == HandleState::Idle && c.queued => c.queued = false,
                _ => continue,
            }
            self.note(format!("{child}: DEQUEUED wake (slot freed)"));
            if let Launch::Started(job) = self.launch(t, &child, prompt) {
                jobs.push(job);
            }
        }
        jobs
    }

    /// Before a model call of `id`'s turn: the live budget walk up the chain.
    fn admit_call(&self, id: &str, generation: u64) -> Result<(), ModelError> {
        let now = self.clock.now();
        let mut t = self.table();
        let limit = t.exhausted(id, now);
        let Some(node) = t.get_mut(id) else {
            return Err(ModelError::new(format!("{id} is gone")));
        };
        if node.generation != generation {
            return Err(ModelError::new(format!("{id}: the turn was aborted")));
        }
        match limit {
            Some(limit) => {
                node.live_limit = Some(limit);
                Err(ModelError::new(format!(
                    "budget exhausted ({limit}) at {id}: the turn was stopped"
                )))
            }
            None => Ok(()),
        }
    }
}

/// The model as a turn sees it: the live budget walk before each call, the global turn
/// gate around the call alone (its permit dropped with the call, even when the run
/// dies), and the usage rolled up as each reply arrives.
struct Metered {
    rt: Arc<Inner>,
    id: Arc<str>,
    generation: u64,
    model: Arc<dyn Model>,
}

impl Metered {
    fn metered<'a>(
        &'a self,
        call: impl FnOnce() -> ModelFuture<'a> + Send + 'a,
    ) -> ModelFuture<'a> {
        Box::pin(async move {
            self.rt.admit_call(&self.id, self.generation)?;
            let permit = Arc::clone(&self.rt.gate)
                .acquire_owned()
                .await
                .map_err(|_| ModelError::new("the runtime's turn gate is closed"))?;
            let reply: Result<Reply, ModelError> = call().await;
            drop(permit);
            if let Ok(reply) = &reply {
                let mut t = self.rt.table();
                if t.get(&self.id)
                    .is_some_and(|n| n.generation == self.generation)
                {
                    t.roll_up(
                        &self.id,
                        reply.usage.total_tokens(),
                        reply.tool_calls.len() as u64,
                    );
                    drop(t);
                    self.rt.touched();
                }
            }
            reply
        })
    }
}

impl Model for Metered {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> ModelFuture<'a> {
        self.metered(move || self.model.complete(request))
    }

    fn describe(&self) -> ModelInfo<'_> {
        self.model.describe()
    }
}
