//! Concurrency, timeouts and cancellation: thousands of calls at once on a multi-threaded
//! runtime each get their own result; panicking, timed-out and cancelled calls mixed in
//! leave the healthy ones untouched; a cancelled run drops its in-flight tools.
//!
//! No assertion depends on how long anything takes: "all at once" is proven with a
//! barrier that only opens when every call is inside its tool, and the only clock is
//! the hang protection.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Barrier, mpsc, oneshot};
use toolnexus::tool::CancellationToken;
use toolnexus::{Client, Context, Reply, ScriptedModel, Tool, ToolCall, ToolResult, Toolkit, tool};

/// Hang protection only.
const PATIENCE: Duration = Duration::from_secs(120);

/// Every task's output, in order; fails if one panicked or if any is still running after
/// `PATIENCE` (a hang means calls were not concurrent, or one was lost).
async fn join_each<T>(tasks: Vec<tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut results = Vec::with_capacity(tasks.len());
    for task in tasks {
        let joined = tokio::time::timeout(PATIENCE, task)
            .await
            .expect("every call finishes (a hang means the calls were not concurrent)");
        results.push(joined.expect("no task panicked"));
    }
    results
}

fn multi_threaded() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap()
}

/// The panics these tests cause on purpose are expected; keep them off the test output.
fn quiet_expected_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str));
            if !message.is_some_and(|m| m.starts_with("expected panic")) {
                default(info);
            }
        }));
    });
}

/// Tags its input with its own call id.
#[tool]
fn tag(n: u64, text: String, ctx: &Context) -> Result<String, Infallible> {
    Ok(format!("{}|{n}|{text}", ctx.call_id().unwrap_or("?")))
}

/// Yields a few times, then tags its input.
#[tool]
async fn tag_later(n: u64, ctx: Context) -> Result<String, Infallible> {
    for _ in 0..(n % 4) {
        tokio::task::yield_now().await;
    }
    Ok(format!("{}|{n}|later", ctx.call_id().unwrap_or("?")))
}

/// Panics after a yield.
#[tool]
async fn boom(n: u64) -> Result<String, Infallible> {
    tokio::task::yield_now().await;
    panic!("expected panic {n}")
}

/// Counts the futures dropped before they finished.
#[derive(Clone, Default)]
struct Drops(Arc<AtomicUsize>);

impl Drops {
    fn guard(&self) -> DropGuard {
        DropGuard(self.0.clone())
    }
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

struct DropGuard(Arc<AtomicUsize>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Sleeps an hour (never, in these tests: its timeout is far shorter).
fn sleepy(drops: Drops) -> Tool {
    Tool::new(
        "sleepy",
        "Sleeps an hour.",
        json!({"type": "object"}),
        move |_, _| {
            let guard = drops.guard();
            async move {
                let _guard = guard;
                tokio::time::sleep(Duration::from_secs(3600)).await;
                ToolResult::ok("woke up")
            }
        },
    )
}

/// Says it started (to the sender registered under its `key`), then waits forever.
fn hold(drops: Drops, started: Arc<Mutex<HashMap<u64, oneshot::Sender<()>>>>) -> Tool {
    Tool::new(
        "hold",
        "Waits forever.",
        json!({"type": "object"}),
        move |args, _| {
            let guard = drops.guard();
            let key = args["key"].as_u64().unwrap_or_default();
            let tell = started.lock().unwrap().remove(&key);
            async move {
                let _guard = guard;
                if let Some(tell) = tell {
                    let _ = tell.send(());
                }
                std::future::pending::<ToolResult>().await
            }
        },
    )
}

#[test]
fn thousands_of_concurrent_calls_each_get_their_own_result() {
    const CALLS: u64 = 4000;
    // Every third call waits in the tool until all of those calls are in flight at once.
    let gathered = CALLS.div_ceil(3) as usize;
    let barrier = Arc::new(Barrier::new(gathered));
    let gather = {
        let barrier = barrier.clone();
        Tool::new(
            "gather",
            "Waits for the others.",
            json!({"type": "object"}),
            move |args, ctx| {
                let barrier = barrier.clone();
                async move {
                    barrier.wait().await;
                    let n = args["n"].as_u64().unwrap_or(u64::MAX);
                    ToolResult::ok(format!("{}|{n}|gathered", ctx.call_id().unwrap_or("?")))
                }
            },
        )
    };
    let toolkit = Arc::new(
        Toolkit::new()
            .with(tag::tool())
            .with(tag_later::tool())
            .with(gather),
    );

    let results = multi_threaded().block_on(async {
        let tasks: Vec<_> = (0..CALLS)
            .map(|n| {
                let toolkit = toolkit.clone();
                tokio::spawn(async move {
                    let ctx = Context::new().with_call_id(format!("call-{n}"));
                    let result = match n % 3 {
                        0 => toolkit.execute("gather", json!({"n": n}), ctx).await,
                        1 => {
                            let text = format!(r#"{{"n": {n}, "text": "t{n}"}}"#);
                            toolkit.execute_json("tag", &text, ctx).await
                        }
                        _ => toolkit.execute("tag_later", json!({"n": n}), ctx).await,
                    };
                    (n, result)
                })
            })
            .collect();
        join_each(tasks).await
    });

    assert_eq!(results.len() as u64, CALLS);
    for (n, result) in results {
        let expected = match n % 3 {
            0 => format!("call-{n}|{n}|gathered"),
            1 => format!("call-{n}|{n}|t{n}"),
            _ => format!("call-{n}|{n}|later"),
        };
        assert_eq!(result, ToolResult::ok(expected), "call {n}");
    }
}

#[test]
fn panics_timeouts_and_cancellations_leave_healthy_calls_untouched() {
    quiet_expected_panics();
    const CALLS: u64 = 2500;
    let timed_out = Drops::default();
    let cancelled = Drops::default();
    let started = Arc::new(Mutex::new(HashMap::new()));
    let toolkit = Arc::new(
        Toolkit::new()
            .with(tag::tool())
            .with(tag_later::tool())
            .with(boom::tool())
            .with(sleepy(timed_out.clone()))
            .with(hold(cancelled.clone(), started.clone())),
    );

    let results = multi_threaded().block_on(async {
        let tasks: Vec<_> = (0..CALLS)
            .map(|n| {
                let toolkit = toolkit.clone();
                let started = started.clone();
                tokio::spawn(async move {
                    let ctx = Context::new().with_call_id(format!("call-{n}"));
                    let result = match n % 5 {
                        0 => {
                            let args = json!({"n": n, "text": format!("t{n}")});
                            toolkit.execute("tag", args, ctx).await
                        }
                        1 => toolkit.execute("tag_later", json!({"n": n}), ctx).await,
                        2 => toolkit.execute("boom", json!({"n": n}), ctx).await,
                        3 => {
                            let ctx = ctx.with_timeout(Duration::from_millis(5));
                            toolkit.execute("sleepy", json!({}), ctx).await
                        }
                        _ => {
                            // Cancelled midway: once the tool has started, not before.
                            let token = CancellationToken::new();
                            let (tell, is_running) = oneshot::channel();
                            started.lock().unwrap().insert(n, tell);
                            let ctx = ctx.with_cancellation(token.clone());
                            let call = toolkit.execute("hold", json!({"key": n}), ctx);
                            let cancel = async {
                                is_running.await.expect("the tool starts");
                                token.cancel();
                            };
                            tokio::join!(call, cancel).0
                        }
                    };
                    (n, result)
                })
            })
            .collect();
        join_each(tasks).await
    });

    let mut counts = [0usize; 5];
    for (n, result) in results {
        counts[(n % 5) as usize] += 1;
        let expected = match n % 5 {
            0 => ToolResult::ok(format!("call-{n}|{n}|t{n}")),
            1 => ToolResult::ok(format!("call-{n}|{n}|later")),
            2 => ToolResult::error(format!("boom panicked: expected panic {n}")),
            3 => ToolResult::error("sleepy timed out after 5ms"),
            _ => ToolResult::error("hold was cancelled"),
        };
        assert_eq!(result, expected, "call {n}");
    }
    assert_eq!(counts, [500; 5]);
    // Every timed-out and every cancelled call had its future dropped, not leaked.
    assert_eq!(timed_out.count(), 500);
    assert_eq!(cancelled.count(), 500);
    assert!(
        started.lock().unwrap().is_empty(),
        "every held call started"
    );
}

#[tokio::test]
async fn a_per_call_timeout_is_an_error_result_saying_so() {
    let drops = Drops::default();
    let toolkit = Toolkit::new().with(sleepy(drops.clone()));
    let ctx = Context::new().with_timeout(Duration::from_millis(50));
    let result = tokio::time::timeout(PATIENCE, toolkit.execute("sleepy", Value::Null, ctx))
        .await
        .expect("the timeout ends the call");
    assert_eq!(result, ToolResult::error("sleepy timed out after 50ms"));
    assert_eq!(drops.count(), 1, "the tool's future was dropped");

    // The same through the loop's own option.
    let model = ScriptedModel::new([
        Reply::call("c1", "sleepy", "{}"),
        Reply::text("gave up waiting"),
    ]);
    let client = Client::new(model).tool_timeout(Duration::from_secs(1));
    let run = tokio::time::timeout(PATIENCE, client.run("go", &toolkit))
        .await
        .expect("the run finishes");
    assert!(run.is_done());
    assert_eq!(
        run.tool_calls[0].result,
        ToolResult::error("sleepy timed out after 1s")
    );
    assert_eq!(drops.count(), 2);
}

#[tokio::test]
async fn cancelling_through_the_context_drops_the_tool_and_says_so() {
    let drops = Drops::default();
    let started = Arc::new(Mutex::new(HashMap::new()));
    let toolkit = Toolkit::new().with(hold(drops.clone(), started.clone()));
    let (tell, is_running) = oneshot::channel();
    started.lock().unwrap().insert(1, tell);
    let token = CancellationToken::new();
    let ctx = Context::new().with_cancellation(token.clone());
    let call = toolkit.execute("hold", json!({"key": 1}), ctx);
    let cancel = async {
        is_running.await.unwrap();
        assert_eq!(drops.count(), 0, "still running before the cancellation");
        token.cancel();
    };
    let (result, ()) = tokio::time::timeout(PATIENCE, async { tokio::join!(call, cancel) })
        .await
        .expect("the cancellation ends the call");
    assert_eq!(result, ToolResult::error("hold was cancelled"));
    assert_eq!(drops.count(), 1);

    // Cancelled before it starts: the tool never runs to its await point.
    let token = CancellationToken::new();
    token.cancel();
    let ctx = Context::new().with_cancellation(token);
    let result = toolkit.execute("hold", json!({"key": 2}), ctx).await;
    assert_eq!(result, ToolResult::error("hold was cancelled"));
}

#[test]
fn a_cancelled_run_drops_its_in_flight_tools_and_returns() {
    let drops = Drops::default();
    let started = Arc::new(Mutex::new(HashMap::new()));
    let toolkit = Toolkit::new()
        .with(hold(drops.clone(), started.clone()))
        .with(tag::tool());
    let mut running = Vec::new();
    for key in 0..3u64 {
        let (tell, is_running) = oneshot::channel();
        started.lock().unwrap().insert(key, tell);
        running.push(is_running);
    }
    // One turn asks for three calls that never finish and one that does.
    let model = ScriptedModel::new([
        Reply::calls([
            ToolCall::new("c0", "hold", r#"{"key": 0}"#),
            ToolCall::new("c1", "tag", r#"{"n": 1, "text": "quick"}"#),
            ToolCall::new("c2", "hold", r#"{"key": 1}"#),
            ToolCall::new("c3", "hold", r#"{"key": 2}"#),
        ]),
        Reply::text("never reached"),
    ]);
    let client = Client::new(model);
    let (stop_tx, mut stop) = mpsc::unbounded_channel::<()>();

    let outcome = multi_threaded().block_on(async {
        let user = async move {
            for is_running in running {
                is_running.await.expect("each held call starts");
            }
            // Every held call is in flight: this is the user pressing stop.
            stop_tx.send(()).unwrap();
        };
        let run = async {
            tokio::select! {
                run = client.run("go", &toolkit) => Some(run),
                _ = stop.recv() => None,
            }
        };
        tokio::time::timeout(PATIENCE, async { tokio::join!(run, user).0 })
            .await
            .expect("the cancelled run returns")
    });

    assert!(outcome.is_none(), "the run was cancelled, not finished");
    assert_eq!(drops.count(), 3, "each in-flight tool's future was dropped");
}
