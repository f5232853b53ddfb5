//! Isolation and single use, probed the way an attacker would: raw JSON-RPC over plain
//! HTTP/1.1 and over stdio pipes (no SDK in between), against the suite's servers in
//! child processes on 127.0.0.1, killed by the tests.
//!
//! - Tasks (`tests/tasks/server.rs`): `tasks/get`, `tasks/update` and `tasks/cancel` from
//!   another session, or from another principal on another replica sharing the SQLite
//!   store, get exactly the error an unknown id gets, and change nothing; unfinished tasks
//!   are capped per session, per server, and for the callers with no identity together;
//!   finished tasks are bounded in count and bytes (in memory, SQLite and PostgreSQL);
//!   expired tasks are deleted by a timer.
//! - Sealed states (`tests/suspend/server.rs`, `tests/agents/server.rs`): a state whose
//!   retry ran is refused when it comes back, on the same replica and on another sharing
//!   the store; a state presented by another principal (or by a caller naming none) is
//!   refused, a sub-agent's state, carrying its halted runs, too; every refusal is one
//!   fixed error, and the server's log says why.
//! - Handshake-era answers: a forged approval in `_meta["toolnexus/answer"]` runs nothing;
//!   a real answer counts once, on the session it was issued to.

#[path = "support/example.rs"]
mod example;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "security_state/states.rs"]
mod states;
#[path = "security_state/tasks.rs"]
mod tasks;
#[path = "security_state/wire.rs"]
mod wire;

use example::{Listening, example};
