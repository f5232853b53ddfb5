//! The fixture tree the builtins are run on, and the Python port as a child process.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A fresh folder under the system's temporary folder, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(label: &str) -> Scratch {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir()
            .canonicalize()
            .expect("a temporary folder")
            .join(format!(
                "toolnexus-builtins-{label}-{}-{}",
                std::process::id(),
                COUNT.fetch_add(1, Ordering::Relaxed)
            ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        fs::write(&path, bytes).expect("a fixture file");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A 1×1 PNG.
pub const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

/// The fixture: nested folders, a `.gitignore` and what it names, unicode names and
/// text, a binary file, an image, symlinks to a file and to a folder, a
/// `node_modules` folder, and enough matching lines to reach the cap of 100.
pub fn tree(label: &str) -> Scratch {
    let dir = Scratch::new(label);
    dir.write("README.md", "# Fixture\nhello world\n");
    dir.write(".gitignore", "ignored.log\nbuild/\n");
    dir.write("ignored.log", "hello from an ignored file\n");
    dir.write("build/out.txt", "hello build\n");
    dir.write("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    dir.write(
        "src/lib.rs",
        "pub fn hello() -> &'static str {\n    \"hello\"\n}\n",
    );
    dir.write("src/nested/deep/util.txt", "alpha\nbeta\nhello gamma\n");
    dir.write("docs/ünïcödé.txt", "héllo wörld\nzweite Zeile 😀\n");
    dir.write("docs/notes.txt", "one\ntwo\nthree\nfour\nfive\n");
    dir.write("dup.txt", "x = 1\nx = 1\ny = 2\n");
    dir.write("node_modules/pkg/index.js", "hello\n");
    for file in 0..12 {
        let text: String = (0..10)
            .map(|line| format!("hello {file}-{line}\n"))
            .collect();
        dir.write(&format!("many/f{file:02}.txt"), text);
    }
    dir.write("blob.bin", b"\x89PNG\r\n\x1a\n\x00\xff\xfe binary \xc3\x28");
    dir.write("pixel.png", PIXEL_PNG);
    std::os::unix::fs::symlink("README.md", dir.0.join("link_to_readme")).expect("a symlink");
    std::os::unix::fs::symlink("src", dir.0.join("link_dir")).expect("a symlink");
    dir
}

/// The interpreter of the venv that has the Python port (`.ci/test` installs it).
pub fn python() -> String {
    std::env::var("TOOLNEXUS_PYTHON_TOOLNEXUS").unwrap_or_else(|_| {
        let venv =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/py-venv-toolnexus/bin/python");
        venv.to_string_lossy().into_owned()
    })
}

/// Runs `tests/builtins/python_port.py` with `config` and `commands`, bounded in time;
/// one JSON value per command.
pub fn python_port(config: &Value, commands: &[Value]) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/builtins/python_port.py");
    let python = python();
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start {python} (the venv with toolnexus==0.21.0 that .ci/test installs): {e}")
        });
    let mut input = serde_json::json!({ "config": config }).to_string() + "\n";
    for command in commands {
        input.push_str(&command.to_string());
        input.push('\n');
    }
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("the commands");
    let read_all = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().expect("stdout")));
    let stderr = read_all(Box::new(child.stderr.take().expect("stderr")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the driver") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the Python port did not finish in 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (
        stdout.join().expect("stdout"),
        stderr.join().expect("stderr"),
    );
    assert!(
        status.success(),
        "the Python port failed: {}",
        String::from_utf8_lossy(&stderr)
    );
    let values: Vec<Value> = String::from_utf8(stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(values.len(), commands.len(), "one answer per command");
    values
}
