//! A browser run of the tests: node running one of the suite's playwright-core scripts
//! (Debian's chromium, no browser download), bounded by `timeout` at 120 seconds, with
//! `TOOLNEXUS_UI_NODE_MODULES` as its modules (`NODE_PATH` for CommonJS scripts,
//! `NODE_MODULES` for the ES modules that import by path).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Child, ChildStdout, Command, Stdio};

/// The playwright-core modules `.ci/test` installs; a test that needs them does not skip.
pub(crate) fn modules() -> String {
    std::env::var("TOOLNEXUS_UI_NODE_MODULES").unwrap_or_else(|_| {
        panic!("TOOLNEXUS_UI_NODE_MODULES is not set: this test drives chromium with playwright-core and does not skip; run it through .ci/test")
    })
}

fn command(script: &str, args: &[&str]) -> Command {
    let modules = modules();
    let node = std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into());
    let mut command = Command::new("timeout");
    command
        .args([
            "120",
            &node,
            &format!("{}/tests/{script}", env!("CARGO_MANIFEST_DIR")),
        ])
        .args(args)
        .env("NODE_PATH", &modules)
        .env("NODE_MODULES", &modules);
    command
}

/// Runs `script` (a path under `tests/`) with `args` to its end and gives back what it
/// printed; panics with its output when it fails.
#[allow(dead_code)]
pub(crate) fn run(script: &str, args: &[&str]) -> String {
    let output = command(script, args).output().expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the browser run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A script run the test talks to between its lines (it waits on its stdin).
#[allow(dead_code)]
pub(crate) struct Session {
    child: Child,
    said: BufReader<ChildStdout>,
}

#[allow(dead_code)]
impl Session {
    /// Starts `script` (a path under `tests/`) with `args`, its stdin and stdout piped.
    pub(crate) fn start(script: &str, args: &[&str]) -> Session {
        let mut child = command(script, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node runs");
        let said = BufReader::new(child.stdout.take().expect("stdout"));
        Session { child, said }
    }

    /// The script's next line; panics with its errors when it is not `expected`.
    pub(crate) fn expect_line(&mut self, expected: &str) {
        let mut line = String::new();
        let _ = self.said.read_line(&mut line);
        if line.trim() != expected {
            let _ = self.child.kill();
            let mut errors = String::new();
            if let Some(mut stderr) = self.child.stderr.take() {
                let _ = stderr.read_to_string(&mut errors);
            }
            panic!("the browser said {line:?}, not {expected:?}:\n{errors}");
        }
    }

    /// Tells the script to go on, then waits for its end: its last line, or a panic with
    /// its errors when it failed.
    pub(crate) fn go_on(mut self) -> String {
        self.child
            .stdin
            .take()
            .expect("stdin")
            .write_all(b"go\n")
            .expect("the browser reads its stdin");
        let mut line = String::new();
        let _ = self.said.read_line(&mut line);
        let status = self.child.wait().expect("the browser ends");
        let mut errors = String::new();
        if let Some(mut stderr) = self.child.stderr.take() {
            let _ = stderr.read_to_string(&mut errors);
        }
        assert!(status.success(), "the browser run failed: {line}\n{errors}");
        line
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
