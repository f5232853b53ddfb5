//! Schemas: the canonical JSON schema of a tool's arguments, the provider profiles that
//! rewrite it into each provider's dialect, and the shared listings built from them.

pub(crate) mod canonical;
pub(crate) mod entry;
pub(crate) mod listing;
pub(crate) mod output;
pub mod profile;
