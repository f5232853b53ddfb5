//! Fixtures of the durable-run tests and the crash worker: a model driven by the
//! transcript alone (so that any process can continue a run), tools that count, and
//! `on_both!`, a check run on both stores.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolnexus::model::FnModel;
use toolnexus::{Message, Reply, Request, Tool, ToolCall, ToolResult};

/// `on_both!(name, check)`: two tests, `name::sqlite` and `name::postgres`, each awaiting
/// `check(opened)`, where `opened` is what the calling file's `sqlite(name)` or `pg(name)`
/// opens under the test's name (a store, or a store and a second connection to it). The
/// name is a PostgreSQL database's: at most 63 bytes with the file's prefix.
#[allow(unused_macros)] // the crash worker and some test files run no check on both
macro_rules! on_both {
    ($name:ident, $check:ident) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$check(super::sqlite(stringify!($name)).await).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$check(super::pg(stringify!($name)).await).await;
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use on_both;

/// A model that makes one call of `tool` per turn, `calls` turns in all (`{"n": i}` for
/// the i-th), then answers `"done"`; it reads only the transcript, so a run it began can
/// be continued by any process.
pub(crate) fn steps(tool: &'static str, calls: usize) -> FnModel {
    FnModel::new_sync(move |transcript, _| {
        let done = transcript
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .count();
        Ok(if done < calls {
            Reply::calls([ToolCall::new(
                format!("call_{done}"),
                tool,
                json!({"n": done}).to_string(),
            )])
        } else {
            Reply::text("done")
        })
    })
}

/// The executions a tool saw: the `n` argument, the idempotency key, and the answer's
/// id when there was one.
pub(crate) type Seen = Arc<Mutex<Vec<(i64, Option<String>, Option<String>)>>>;

/// Records one execution in `seen`; the call's `n`.
fn record(seen: &Seen, args: &serde_json::Value, ctx: &toolnexus::Context) -> i64 {
    let n = args["n"].as_i64().unwrap_or(-1);
    let key = ctx.idempotency_key().map(str::to_owned);
    let answer = ctx.answer().map(|a| a.id.clone());
    seen.lock().unwrap().push((n, key, answer));
    n
}

/// A tool `count` that records every execution and says `ok n`.
pub(crate) fn counting(seen: Seen) -> Tool {
    Tool::new_sync(
        "count",
        "Counts.",
        json!({"type": "object"}),
        move |args, ctx| {
            let n = record(&seen, &args, ctx);
            ToolResult::ok(format!("ok {n}"))
        },
    )
}

/// A tool `approve` that asks for approval (request id `approve-<tag>-<n>`, expiring at
/// `expires` when given) until answered, then says who approved; records executions.
pub(crate) fn approving(seen: Seen, tag: &'static str, expires: Option<&'static str>) -> Tool {
    Tool::new_sync(
        "approve",
        "Asks first.",
        json!({"type": "object"}),
        move |args, ctx| {
            let n = record(&seen, &args, ctx);
            match ctx.answer() {
                Some(answer) => {
                    ToolResult::ok(format!("approved {n} by {}", answer.text().unwrap_or("?")))
                }
                None => {
                    let mut request = Request::approval(format!("May I do step {n}?"))
                        .with_id(format!("approve-{tag}-{n}"));
                    if let Some(at) = expires {
                        request = request.with_expires_at(at);
                    }
                    ToolResult::pending(request)
                }
            }
        },
    )
}
