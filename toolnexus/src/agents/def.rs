//! [`Agent`]: the contract's Level-1 `agent(name, does, uses, soul, team, budget)` as a
//! builder, and the definition the runtime keeps of it.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;

use crate::model::Model;
use crate::tool::def::Tool;
use crate::tool::kit::Toolkit;
use crate::tool::request::{Answer, Request};

use super::types::{Budget, Handle};

/// An interpreter of suspensions: answers a request while the run waits.
pub(crate) type WaitFor = Arc<dyn Fn(Request) -> BoxFuture<'static, Answer> + Send + Sync>;

/// A lifecycle hook: `on_spawn` gets the new handle, `on_close` the handle and why it
/// closes (`closed`, or `interrupted` for a forced close).
pub(crate) type OnSpawn = Arc<dyn Fn(Handle) -> BoxFuture<'static, ()> + Send + Sync>;
pub(crate) type OnClose = Arc<dyn Fn(Handle, String) -> BoxFuture<'static, ()> + Send + Sync>;

/// One agent's definition as the runtime keeps it.
#[derive(Clone)]
pub(crate) struct AgentDef {
    pub(crate) name: String,
    pub(crate) does: String,
    pub(crate) soul: String,
    pub(crate) toolkit: Toolkit,
    /// The agents its `task` tool may delegate to (sorted); `None`: no `task` tool.
    pub(crate) team: Option<Vec<String>>,
    pub(crate) budget: Budget,
    pub(crate) model: Option<Arc<dyn Model>>,
    pub(crate) wait_for: Option<WaitFor>,
    pub(crate) completion: Option<crate::agents::gate::Completion>,
    pub(crate) on_spawn: Option<OnSpawn>,
    pub(crate) on_close: Option<OnClose>,
}

/// An agent: a name, what it does (what a delegating model reads), the tools it uses,
/// its soul (system prompt), its team (the agents its `task` tool may delegate to) and
/// its budget. It compiles down to the runtime's six verbs:
/// [`Runtime::new`](super::Runtime::new) registers it with its whole team graph.
///
/// ```
/// use toolnexus::agents::{Agent, Budget};
/// use toolnexus::Toolkit;
///
/// let explore = Agent::new("explore").does("Reads the code base.");
/// let lead = Agent::new("lead")
///     .does("Plans the change.")
///     .soul("You lead a small team.")
///     .uses(Toolkit::new())
///     .team([explore])
///     .budget(Budget::new().max_tokens(10_000));
/// assert_eq!(lead.name(), "lead");
/// ```
#[derive(Clone)]
pub struct Agent {
    pub(crate) def: AgentDef,
    team: Vec<Agent>,
}

impl Agent {
    /// An agent named `name` (its handles are `…/name.N`), with no tools, no soul, no
    /// team and the default budget.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        Agent {
            def: AgentDef {
                does: String::new(),
                name,
                soul: String::new(),
                toolkit: Toolkit::new(),
                team: None,
                budget: Budget::default(),
                model: None,
                wait_for: None,
                completion: None,
                on_spawn: None,
                on_close: None,
            },
            team: Vec::new(),
        }
    }

    /// What the agent does: its description, in the `task` tool's listing and as a tool.
    #[must_use]
    pub fn does(mut self, does: impl Into<String>) -> Self {
        self.def.does = does.into();
        self
    }

    /// The tools it uses (its own view; a `task` tool is added when it has a team).
    #[must_use]
    pub fn uses(mut self, toolkit: Toolkit) -> Self {
        self.def.toolkit = toolkit;
        self
    }

    /// Adds one tool to those it uses.
    #[must_use]
    pub fn tool(mut self, tool: Tool) -> Self {
        self.def.toolkit = self.def.toolkit.with(tool);
        self
    }

    /// Its soul: the system prompt of each of its runs.
    #[must_use]
    pub fn soul(mut self, soul: impl Into<String>) -> Self {
        self.def.soul = soul.into();
        self
    }

    /// Its team: the agents its `task` tool may delegate to. Delegation is opt-in: an
    /// agent without a team has no `task` tool.
    #[must_use]
    pub fn team(mut self, team: impl IntoIterator<Item = Agent>) -> Self {
        self.team.extend(team);
        let mut names: Vec<String> = self.team.iter().map(|a| a.def.name.clone()).collect();
        names.sort();
        names.dedup();
        self.def.team = Some(names);
        self
    }

    /// Its own budget (carved at spawn against its parent's remaining).
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.def.budget = budget;
        self
    }

    /// A model of its own, instead of the runtime's.
    #[must_use]
    pub fn model(mut self, model: impl Model + 'static) -> Self {
        self.def.model = Some(Arc::new(model));
        self
    }

    /// Its interpreter of suspensions: a request from its own tools, or from any agent
    /// below it without a nearer interpreter, is answered here while the run waits.
    /// Without one anywhere up the tree, the run halts `pending` and
    /// [`Runtime::resume`](super::Runtime::resume) takes the answer.
    #[must_use]
    pub fn wait_for<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Request) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer> + Send + 'static,
    {
        self.def.wait_for = Some(Arc::new(move |request| f(request).boxed()));
        self
    }

    /// Called once for each handle spawned from this agent, before its first turn (the
    /// future it gives runs on a task of its own; the spawn does not wait for it).
    #[must_use]
    pub fn on_spawn<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Handle) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.def.on_spawn = Some(Arc::new(move |h| f(h).boxed()));
        self
    }

    /// Called when a handle of this agent closes, with why (`closed`, or `interrupted`
    /// when the close was forced): after its children closed and its turn finished or
    /// was aborted, before it reads `closed`. [`close`](super::Runtime::close) waits for
    /// it.
    #[must_use]
    pub fn on_close<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Handle, String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.def.on_close = Some(Arc::new(move |h, reason| f(h, reason).boxed()));
        self
    }

    /// Sets the agent's completion gate (the contract's `completion`): a turn ends `done`
    /// only once `completion` verifies its work, and is asked to fix it otherwise (see
    /// [`Completion`](crate::agents::Completion)). A delegated child gets the same
    /// guarantee as a root.
    #[must_use]
    pub fn completion(mut self, completion: crate::agents::Completion) -> Self {
        self.def.completion = Some(completion);
        self
    }

    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// What it does.
    pub fn description(&self) -> &str {
        &self.def.does
    }

    /// This agent and every agent reachable through teams, by name (the first
    /// definition of a name wins).
    pub(crate) fn registry(&self, into: &mut BTreeMap<String, Arc<AgentDef>>) {
        if into.contains_key(&self.def.name) {
            return;
        }
        into.insert(self.def.name.clone(), Arc::new(self.def.clone()));
        for member in &self.team {
            member.registry(into);
        }
    }
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("name", &self.def.name)
            .field("does", &self.def.does)
            .field("team", &self.def.team)
            .field("budget", &self.def.budget)
            .finish_non_exhaustive()
    }
}
