//! `bash`: one shell command through tokio's process API, its stdout and stderr in one
//! pipe (interleaved as written), the whole process group stopped on a timeout.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::AsyncReadExt as _;

use super::env::{Args, Env};
use crate::tool::result::ToolResult;

/// How long a timed-out command's group gets between SIGTERM and SIGKILL (the Python
/// port's `KILL_GRACE_MS`).
const KILL_GRACE: Duration = Duration::from_millis(2000);

/// The default timeout, in milliseconds.
const DEFAULT_TIMEOUT_MS: f64 = 60_000.0;

/// The shell when none is configured: `/bin/sh -c` where it exists, else `sh` on the
/// `PATH`.
pub(super) fn default_shell() -> Vec<String> {
    if cfg!(windows) {
        let comspec = std::env::var("COMSPEC").unwrap_or_else(|_| "cmd.exe".to_owned());
        return vec![comspec, "/d".into(), "/s".into(), "/c".into()];
    }
    let program = if std::path::Path::new("/bin/sh").exists() {
        "/bin/sh"
    } else {
        "sh"
    };
    vec![program.to_owned(), "-c".to_owned()]
}

/// Stops a command's process group: SIGTERM at once and SIGKILL after the grace
/// period, when dropped before the command finished (a cancelled or timed-out call).
struct Group {
    pid: Option<u32>,
}

impl Group {
    /// Sends `kill` (SIGKILL) or SIGTERM to every process of the group; whether it was
    /// delivered to at least one.
    fn signal(&self, kill: bool) -> bool {
        let Some(pid) = self.pid else { return false };
        signal_group(pid, kill)
    }
}

#[cfg(unix)]
fn signal_group(pid: u32, kill: bool) -> bool {
    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    let signal = if kill {
        Signal::SIGKILL
    } else {
        Signal::SIGTERM
    };
    killpg(Pid::from_raw(pid), signal).is_ok()
}

#[cfg(not(unix))]
fn signal_group(_pid: u32, _kill: bool) -> bool {
    // No process groups to signal: `kill_on_drop` stops the shell itself.
    false
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.pid.is_none() {
            return;
        }
        self.signal(false);
        let pid = self.pid.take();
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn(async move {
                    tokio::time::sleep(KILL_GRACE).await;
                    Group { pid }.signal(true);
                });
            }
            Err(_) => {
                Group { pid }.signal(true);
            }
        }
    }
}

/// The output of a command: the first `limit` bytes kept, the rest counted.
struct Captured {
    kept: Vec<u8>,
    dropped: u64,
    limit: usize,
}

impl Captured {
    fn push(&mut self, chunk: &[u8]) {
        let room = self.limit.saturating_sub(self.kept.len());
        let take = room.min(chunk.len());
        self.kept.extend_from_slice(&chunk[..take]);
        self.dropped += (chunk.len() - take) as u64;
    }

    fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            text.push_str(&format!(
                "\n[output truncated: {} more bytes not shown]",
                self.dropped
            ));
        }
        text
    }
}

pub(super) async fn bash(env: &Env, value: Value) -> ToolResult {
    let args = Args::new("bash", &value);
    let command = match args.required("command") {
        Ok(command) => command,
        Err(error) => return ToolResult::error(error),
    };
    let workdir = match args.string("workdir") {
        Ok(workdir) => workdir,
        Err(error) => return ToolResult::error(error),
    };
    let workdir = match env.resolve_dir(workdir) {
        Ok(dir) => match dir.host_path(env.base.as_deref()) {
            Ok(path) => path,
            Err(e) => return args.fail(super::env::os_error(&e, &dir.shown)),
        },
        Err(error) => return args.fail(error),
    };
    let timeout_ms = args.number("timeout").unwrap_or(DEFAULT_TIMEOUT_MS);
    let Some((program, shell_args)) = env.shell.split_first() else {
        return args.fail("no shell interpreter configured");
    };
    let mut metadata = Map::new();
    metadata.insert("shell".into(), Value::from(env.shell.join(" ")));

    // One pipe for both streams, so the output interleaves as the command wrote it.
    let (reader, writer) = match std::io::pipe() {
        Ok(pipe) => pipe,
        Err(e) => return args.fail(format!("cannot make a pipe: {e}")),
    };
    let stderr = match writer.try_clone() {
        Ok(stderr) => stderr,
        Err(e) => return args.fail(format!("cannot make a pipe: {e}")),
    };
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(shell_args)
        .arg(command)
        .current_dir(&workdir)
        .env_clear()
        .envs(env.bash_env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(stderr)
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let spawned = cmd.spawn();
    // The command object holds this process's copies of the pipe's write end: closed
    // here, so the pipe ends when the command's processes are done with it.
    drop(cmd);
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            // Named as Python names it: the folder when that is what is missing.
            let named = if workdir.is_dir() {
                std::path::PathBuf::from(program)
            } else {
                workdir
            };
            return args.fail(super::env::os_error(&e, &named));
        }
    };
    let mut group = Group { pid: child.id() };
    let mut output = Captured {
        kept: Vec::new(),
        dropped: 0,
        limit: env.output_limit,
    };
    let mut pipe = match pipe_reader(reader) {
        Ok(pipe) => pipe,
        Err(e) => return args.fail(format!("cannot read the command's output: {e}")),
    };

    let deadline = Duration::from_secs_f64((timeout_ms / 1000.0).clamp(0.0, 1e9));
    let finished = tokio::time::timeout(deadline, drain(&mut pipe, &mut child, &mut output)).await;
    let status = match finished {
        Ok(status) => status,
        Err(_) => {
            // Ask, wait out the grace period, then insist.
            let mut killed = group.signal(false);
            let graceful =
                tokio::time::timeout(KILL_GRACE, drain(&mut pipe, &mut child, &mut output)).await;
            if graceful.is_err() {
                killed = group.signal(true) || killed;
                let _ = tokio::time::timeout(KILL_GRACE, drain(&mut pipe, &mut child, &mut output))
                    .await;
            }
            group.pid = None;
            metadata.insert("timedOut".into(), Value::Bool(true));
            metadata.insert("killedTree".into(), Value::Bool(killed));
            let mut result = ToolResult::error(format!(
                "bash: command timed out after {}ms\n{}",
                super::env::int(timeout_ms),
                output.text()
            ));
            result.metadata = Some(metadata);
            return result;
        }
    };
    group.pid = None;
    let text = output.text();
    let code = match status {
        Ok(code) => code,
        Err(e) => return args.fail(format!("cannot wait for the command: {e}")),
    };
    metadata.insert("exitCode".into(), Value::from(code));
    if output.dropped > 0 {
        metadata.insert("truncated".into(), Value::Bool(true));
    }
    let mut result = if code == 0 {
        ToolResult::ok(text)
    } else {
        ToolResult::error(format!("{text}\nbash: command exited with code {code}"))
    };
    result.metadata = Some(metadata);
    result
}

#[cfg(unix)]
type PipeReader = tokio::net::unix::pipe::Receiver;

#[cfg(unix)]
fn pipe_reader(reader: std::io::PipeReader) -> std::io::Result<PipeReader> {
    tokio::net::unix::pipe::Receiver::from_owned_fd(std::os::fd::OwnedFd::from(reader))
}

#[cfg(not(unix))]
type PipeReader = tokio::process::ChildStdout;

#[cfg(not(unix))]
fn pipe_reader(_reader: std::io::PipeReader) -> std::io::Result<PipeReader> {
    Err(std::io::Error::other(
        "the bash builtin reads its output through a Unix pipe",
    ))
}

/// Reads the pipe to its end and waits for the shell: its exit code (a signal's number
/// negated, as Python reports one).
async fn drain(
    pipe: &mut PipeReader,
    child: &mut tokio::process::Child,
    output: &mut Captured,
) -> std::io::Result<i32> {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = pipe.read(&mut buffer).await?;
        if n == 0 {
            break;
        }
        output.push(&buffer[..n]);
    }
    let status = child.wait().await?;
    Ok(exit_code(status))
}

#[cfg(unix)]
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    status
        .code()
        .or_else(|| status.signal().map(|s| -s))
        .unwrap_or(-1)
}

#[cfg(not(unix))]
fn exit_code(status: std::process::ExitStatus) -> i32 {
    status.code().unwrap_or(-1)
}
