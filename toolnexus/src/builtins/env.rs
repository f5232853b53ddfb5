//! What the tools know of the host: the directory relative paths mean, whether paths
//! are confined to it, the shell, and the output caps; and the argument and error
//! helpers every tool shares.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::fs::{self, Target};
use crate::tool::result::ToolResult;

/// The settings the tools run with, taken from a [`Builtins`](super::Builtins) when the
/// tools are made.
#[derive(Debug, Clone)]
pub(super) struct Env {
    /// What a relative path means (the process's working directory when `None`).
    pub(super) base: Option<PathBuf>,
    /// Open every path beneath a handle of `base`, never outside it.
    pub(super) confine: bool,
    /// The interpreter `bash` runs its command with (the command is its last argument).
    pub(super) shell: Vec<String>,
    /// The environment `bash` runs its command with, and nothing else.
    pub(super) bash_env: Vec<(String, String)>,
    /// The most bytes of a command's output kept.
    pub(super) output_limit: usize,
    /// The most bytes of a fetched body read.
    pub(super) fetch_limit: usize,
    /// The most bytes `read`, `edit`, `grep` and `apply_patch` load of one file.
    pub(super) read_limit: usize,
}

impl Env {
    /// The directory searches and commands run in when no path is given.
    pub(super) fn dir(&self) -> io::Result<PathBuf> {
        match &self.base {
            Some(base) => Ok(base.clone()),
            None => std::env::current_dir(),
        }
    }

    /// The refusal of a path that leaves the root.
    fn outside(&self, given: &str) -> String {
        let base = self.base.as_deref().unwrap_or(Path::new("."));
        format!("{given} resolves outside baseDir {}", base.display())
    }

    /// Maps a path a tool was given onto the filesystem: relative to the base (or the
    /// working directory); with confinement, opened beneath a handle of the base, and
    /// refused at once when the root's handle finds that it (or what making it would
    /// make) leaves the root.
    pub(super) fn resolve(&self, given: &str) -> Result<Target, String> {
        let shown = match &self.base {
            Some(base) if !Path::new(given).is_absolute() => base.join(given),
            _ => PathBuf::from(given),
        };
        if !self.confine {
            return Ok(Target::host(shown));
        }
        let base = self.base.as_deref().unwrap_or(Path::new("."));
        let Some(rel) = fs::beneath(base, Path::new(given)) else {
            return Err(self.outside(given));
        };
        let root = fs::open_root(base).map_err(|e| os_error(&e, base))?;
        match fs::probe(&root, &rel) {
            Err(e) if fs::is_escape(&e) => Err(self.outside(given)),
            Err(e) => Err(os_error(&e, &shown)),
            Ok(()) => Ok(Target::beneath(root, rel, shown)),
        }
    }

    /// [`Env::resolve`] of an optional directory argument, else [`Env::dir`] (the root
    /// itself, with confinement).
    pub(super) fn resolve_dir(&self, given: Option<&str>) -> Result<Target, String> {
        match given {
            Some(given) => self.resolve(given),
            None => {
                let dir = self.dir().map_err(|e| e.to_string())?;
                if self.confine {
                    let root = fs::open_root(&dir).map_err(|e| os_error(&e, &dir))?;
                    Ok(Target::beneath(root, PathBuf::from("."), dir))
                } else {
                    Ok(Target::host(dir))
                }
            }
        }
    }

    /// A file's bytes, capped at the read limit; the error as the tool gives it.
    pub(super) fn load(&self, target: &Target, given: &str) -> Result<Vec<u8>, String> {
        target.load(self.read_limit).map_err(|e| match e {
            fs::LoadError::Io(e) => os_error(&e, &target.shown),
            fs::LoadError::TooBig(size) => too_big(given, size, self.read_limit),
        })
    }
}

/// The error for a file past the read limit.
pub(super) fn too_big(given: &str, size: u64, limit: usize) -> String {
    format!(
        "{given} is too large: {size} bytes or more, and this tool loads at most {limit} \
         bytes of a file"
    )
}

/// An I/O error as the Python port words it: `[Errno 2] No such file or directory:
/// '/the/path'`, so both ports give the model the same text.
pub(super) fn os_error(error: &io::Error, path: &Path) -> String {
    match error.raw_os_error() {
        Some(code) => {
            let text = error.to_string();
            let text = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text);
            format!(
                "[Errno {code}] {text}: {}",
                py_repr(&path.to_string_lossy())
            )
        }
        None => format!("{error}: {}", py_repr(&path.to_string_lossy())),
    }
}

/// A string quoted as Python's `repr` quotes it (single quotes unless the text has a
/// single quote and no double one; backslashes, the quote and control characters
/// escaped).
fn py_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The arguments of one call, with the Python port's leniency: an absent, `null` or
/// empty value reads as absent, a number is any JSON number.
pub(super) struct Args<'a> {
    pub(super) tool: &'static str,
    map: Option<&'a Map<String, Value>>,
}

impl<'a> Args<'a> {
    pub(super) fn new(tool: &'static str, value: &'a Value) -> Self {
        Args {
            tool,
            map: value.as_object(),
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map
            .and_then(|map| map.get(key))
            .filter(|v| !v.is_null())
    }

    /// A string argument; absent, `null` or `""` is `Ok(None)`; another type is an error
    /// naming the field.
    pub(super) fn string(&self, key: &str) -> Result<Option<&'a str>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.message(format!(
                "{key} must be a string, not {}",
                crate::tool::args::kind_of(other)
            ))),
        }
    }

    /// A required string argument (`"{tool}: {key} is required"` when absent or empty).
    pub(super) fn required(&self, key: &str) -> Result<&'a str, String> {
        self.string(key)?
            .ok_or_else(|| self.message(format!("{key} is required")))
    }

    /// A string argument that may be empty (`content`, `newString`): absent or `null` is
    /// `""`.
    pub(super) fn text(&self, key: &str) -> Result<&'a str, String> {
        match self.get(key) {
            None => Ok(""),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(self.message(format!(
                "{key} must be a string, not {}",
                crate::tool::args::kind_of(other)
            ))),
        }
    }

    /// A number argument (a boolean is not one); another type reads as absent, as in the
    /// Python port.
    pub(super) fn number(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(Value::as_f64)
    }

    /// An error message, prefixed with the tool's name.
    fn message(&self, message: impl std::fmt::Display) -> String {
        format!("{}: {message}", self.tool)
    }

    /// An error result, prefixed with the tool's name.
    pub(super) fn fail(&self, message: impl std::fmt::Display) -> ToolResult {
        fail(self.tool, message)
    }
}

/// An error result, prefixed with the tool's name.
pub(super) fn fail(tool: &str, message: impl std::fmt::Display) -> ToolResult {
    ToolResult::error(format!("{tool}: {message}"))
}

/// A JSON number read as Python's `int()` reads a float: truncated toward zero,
/// saturating at the ends of `i64`.
pub(super) fn int(value: f64) -> i64 {
    value.trunc() as i64
}

/// Text read with universal newlines, as Python's text mode reads it: `\r\n` and a lone
/// `\r` both become `\n`.
pub(super) fn universal_newlines(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_repr_quotes() {
        assert_eq!(py_repr("a/b"), "'a/b'");
        assert_eq!(py_repr("it's"), "\"it's\"");
        assert_eq!(py_repr("a'\"b"), "'a\\'\"b'");
        assert_eq!(py_repr("tab\there"), "'tab\\there'");
    }
}
