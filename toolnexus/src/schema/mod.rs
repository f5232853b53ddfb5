//! Schemas: the canonical JSON schema of a tool's arguments, the provider
//! [`profile`]s that rewrite it into each provider's dialect, and the shared
//! [`Listing`]s built from them ([`Toolkit::to_openai`](crate::Toolkit::to_openai) and
//! its siblings).

pub(crate) mod canonical;
pub(crate) mod entry;
pub(crate) mod listing;
pub(crate) mod output;
pub mod profile;

pub use listing::Listing;
