//! The contract's built-in tools (`toolnexus::builtins`): side by side with the
//! contract's Python port, confinement to a root (and the chain of links that used to
//! leave it), `webfetch` against local servers and its network rules, the read caps,
//! `bash`'s environment and `apply_patch`'s all-or-nothing writes.

#[path = "builtins/bash.rs"]
mod bash;
#[path = "builtins/fixture.rs"]
mod fixture;
#[path = "builtins/limits.rs"]
mod limits;
#[path = "builtins/links.rs"]
mod links;
#[path = "builtins/network.rs"]
mod network;
#[path = "builtins/parity.rs"]
mod parity;
#[path = "builtins/patch.rs"]
mod patch;
#[path = "builtins/root.rs"]
mod root;
#[path = "builtins/webfetch.rs"]
mod webfetch;
