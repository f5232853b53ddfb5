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

/// Set in the environment of the test binary run again as a child, so that the test
/// runs the command there, with the variables the parent gave that process.
const PROBE: &str = "TOOLNEXUS_BASH_ENV_PROBE";

#[tokio::test]
async fn provider_keys_and_cloud_credentials_do_not_reach_the_command() {
    if std::env::var_os(PROBE).is_some() {
        // The child: the command prints its whole environment.
        let toolkit = Toolkit::new().with_builtins(
            Builtins::all()
                .env("APP_GIVEN", "given by the app")
                .inherit_env(["APP_PASSED_ON"]),
        );
        let result = toolkit
            .execute("bash", json!({"command": "env"}), Context::default())
            .await;
        println!("<<<{}>>>", result.output);
        return;
    }
    // The parent: this very test again, in a process whose environment holds keys.
    let mut child = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "bash::provider_keys_and_cloud_credentials_do_not_reach_the_command",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PROBE, "1")
        .env("OPENAI_API_KEY", "sk-must-not-leak")
        .env("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
        .env("AWS_ACCESS_KEY_ID", "AKIA-must-not-leak")
        .env("AWS_SECRET_ACCESS_KEY", "aws-must-not-leak")
        .env("APP_PASSED_ON", "passed on")
        .env("LANG", "C.UTF-8")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the test binary as a child");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let started = Instant::now();
    while child.try_wait().expect("the child").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the child test did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = reader.join().expect("the child's output");
    let env = text
        .split_once("<<<")
        .and_then(|(_, rest)| rest.split_once(">>>"))
        .map(|(env, _)| env)
        .unwrap_or_else(|| panic!("no environment printed: {text}"));
    let names: Vec<&str> = env
        .lines()
        .filter_map(|line| line.split_once('=').map(|(name, _)| name))
        .collect();
    for leaked in [
        "must-not-leak",
        "OPENAI_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        PROBE,
    ] {
        assert!(
            !env.contains(leaked),
            "{leaked} reached the command:\n{env}"
        );
    }
    assert!(env.contains("APP_GIVEN=given by the app"), "{env}");
    assert!(env.contains("APP_PASSED_ON=passed on"), "{env}");
    assert!(env.contains("LANG=C.UTF-8"), "{env}");
    assert!(names.contains(&"PATH"), "{env}");
    // Nothing but the documented list and what the app asked for (and what the shell
    // sets itself).
    let shell_own = ["PWD", "SHLVL", "_", "OLDPWD"];
    for name in names {
        assert!(
            toolnexus::builtins::BASH_ENV.contains(&name)
                || ["APP_GIVEN", "APP_PASSED_ON"].contains(&name)
                || shell_own.contains(&name),
            "{name} reached the command:\n{env}"
        );
    }
}
