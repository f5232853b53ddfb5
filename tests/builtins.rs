//! The contract's built-in tools (`toolnexus::builtins`): side by side with the
//! contract's Python port, confinement to a root, and `webfetch` against a local
//! server.

#[path = "builtins/bash.rs"]
mod bash;
#[path = "builtins/fixture.rs"]
mod fixture;
#[path = "builtins/parity.rs"]
mod parity;
#[path = "builtins/root.rs"]
mod root;
#[path = "builtins/webfetch.rs"]
mod webfetch;
