//! Where the test suite finds a built example.

use std::path::PathBuf;

/// The path of a built example, next to the running test binary
/// (`target/<profile>/examples`; `cargo test` builds every example first).
pub(crate) fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "example {name} is not built at {}",
        path.display()
    );
    path
}

/// A server example started as a child process that prints `listening on URL` first;
/// killed (SIGKILL) when dropped.
#[allow(dead_code)]
pub(crate) struct Listening {
    pub(crate) child: std::process::Child,
    pub(crate) url: String,
}

#[allow(dead_code)]
impl Listening {
    /// Starts example `name` with `args` (stdin piped, so it stops when the test goes
    /// away; stderr discarded) and reads its URL.
    pub(crate) fn start(name: &str, args: &[&str]) -> Listening {
        Listening::start_with(name, args, &[])
    }

    /// As [`Listening::start`], with `env` set for the example.
    pub(crate) fn start_with(name: &str, args: &[&str], env: &[(&str, &str)]) -> Listening {
        use std::io::BufRead as _;
        use std::process::{Command, Stdio};
        let mut child = Command::new(example(name))
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("example {name} does not start: {e}"));
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the example's first line");
        let Some(url) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            panic!("example {name} printed {line:?}, not `listening on URL`");
        };
        let url = url.to_owned();
        Listening { child, url }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
