//! A2A (Agent2Agent) both ways: remote agents as tools ([`A2aAgent`]) and any
//! [`Client`](crate::Client) served as an A2A agent ([`A2aServer`]).
//!
//! Both speak A2A 1.0 (what the official 1.x SDKs speak: `SendMessage`, `GetTask`, …
//! with `A2A-Version: 1.0`, ProtoJSON shapes) and A2A 0.3 (`message/send`, `tasks/get`, …,
//! `kind` discriminators, `input-required`-style states), as the toolnexus contract's
//! ports do. The [guide chapter](crate::_guide::a2a) tells which is used when.

pub(crate) mod client;
mod config;
pub(crate) mod server;
use crate::time;
mod wire;

pub use client::{
    A2aAgent, A2aAgentBuilder, A2aError, DEFAULT_POLL_EVERY, DEFAULT_TIMEOUT, SOURCE,
};
pub use config::{A2aAgents, A2aConfig, A2aConfigError, AgentConfig, AgentStatus};
pub use server::{
    A2aServer, ArtifactFn, CARD_PATH, DEFAULT_LEASE, DEFAULT_MAX_ARTIFACT_BYTES,
    DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_RUNS, DEFAULT_MAX_RUNS_PER_CALLER,
    DEFAULT_MAX_STORED_BYTES, DEFAULT_MAX_STORED_TASKS, DEFAULT_MAX_UNFINISHED_TASKS_PER_CALLER,
    DEFAULT_NAME, DEFAULT_SKILL_ID, DEFAULT_TASK_TTL, DEFAULT_VERSION, DirectFn, Principal,
    PromptFn, ServedA2a,
};
pub use wire::TaskState;
