//! `bash` stops every process a command started, on its timeout and when the call is
//! dropped (a cancelled run, the context's timeout), and caps what it keeps of the
//! output.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use toolnexus::builtins::Builtins;
use toolnexus::{Context, Toolkit};

use crate::fixture::Scratch;

/// Whether the process `pid` is still running (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or_default()
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// The pid a command wrote to `file`, once it is there.
async fn pid_in(file: &Path) -> u32 {
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no pid in {}",
            file.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn gone(pid: u32) {
    let started = Instant::now();
    while alive(pid) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "process {pid} still runs"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_stops_the_whole_process_group() {
    let dir = Scratch::new("bash-timeout");
    let toolkit = Toolkit::new().with_builtins(Builtins::all().base_dir(dir.path()));
    // A background child that would outlive its shell, and keeps the output pipe open.
    let command = "sleep 30 & echo $! > child.pid; echo started; wait";
    let result = toolkit
        .execute(
            "bash",
            json!({"command": command, "timeout": 500}),
            Context::default(),
        )
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.output,
        "bash: command timed out after 500ms\nstarted\n"
    );
    let metadata = result.metadata.unwrap();
    assert_eq!(
        (metadata["timedOut"].clone(), metadata["killedTree"].clone()),
        (json!(true), json!(true))
    );
    gone(pid_in(&dir.path().join("child.pid")).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_stops_the_whole_process_group() {
    let dir = Scratch::new("bash-drop");
    let toolkit = Toolkit::new().with_builtins(Builtins::all().base_dir(dir.path()));
    let command = "sleep 30 & echo $! > child.pid; wait";
    // The context's timeout drops the call's future.
    let ctx = Context::default().with_timeout(Duration::from_millis(300));
    let result = toolkit
        .execute("bash", json!({"command": command}), ctx)
        .await;
    assert!(
        result.is_error && result.output.contains("timed out"),
        "{}",
        result.output
    );
    gone(pid_in(&dir.path().join("child.pid")).await).await;
}

#[tokio::test]
async fn the_output_is_capped_and_says_so() {
    let toolkit = Toolkit::new().with_builtins(Builtins::all().output_limit(1000));
    let result = toolkit
        .execute(
            "bash",
            json!({"command": "head -c 300000 /dev/zero | tr '\\0' 'y'"}),
            Context::default(),
        )
        .await;
    assert!(!result.is_error, "{}", result.output);
    assert_eq!(
        result.output,
        format!(
            "{}\n[output truncated: 299000 more bytes not shown]",
            "y".repeat(1000)
        )
    );
    assert_eq!(result.metadata.unwrap()["truncated"], true);
    // stdin is empty, never the host's.
    let cat = toolkit
        .execute("bash", json!({"command": "cat"}), Context::default())
        .await;
    assert_eq!((cat.output.as_str(), cat.is_error), ("", false));
}
