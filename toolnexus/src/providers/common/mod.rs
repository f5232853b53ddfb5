//! What every provider shares: the HTTP transport and its retries, server-sent events,
//! the skeleton of one turn, the settings checks, structured output and the wire helpers
//! (assembling a reply, merging turns, describing parts).

pub(crate) mod http;
pub(crate) mod output;
pub(crate) mod retry;
pub(crate) mod settings;
pub(crate) mod skeleton;
pub(crate) mod sse;
pub(crate) mod wire;
