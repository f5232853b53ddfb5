//! What the tools know of the host: the directory relative paths mean, whether paths
//! are confined to it, the shell, and the output caps; and the argument and error
//! helpers every tool shares.

use std::io;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use crate::tool::result::ToolResult;

/// The settings the tools run with, taken from a [`Builtins`](super::Builtins) when the
/// tools are made.
#[derive(Debug, Clone)]
pub(super) struct Env {
    /// What a relative path means (the process's working directory when `None`).
    pub(super) base: Option<PathBuf>,
    /// Refuse every path whose resolved form leaves `base`.
    pub(super) confine: bool,
    /// The interpreter `bash` runs its command with (the command is its last argument).
    pub(super) shell: Vec<String>,
    /// The most bytes of a command's output kept.
    pub(super) output_limit: usize,
    /// The most bytes of a fetched body read.
    pub(super) fetch_limit: usize,
}

/// A path a tool was given, resolved.
pub(super) struct Resolved {
    /// The path as the tool shows it in messages: the given one, joined to the base
    /// when relative (what the Python port shows).
    pub(super) shown: PathBuf,
    /// The path the tool opens: `shown`, or with confinement its resolved form (every
    /// symlink and `..` already followed), so what was checked is what is opened.
    pub(super) real: PathBuf,
}

impl Env {
    /// The directory searches and commands run in when no path is given.
    pub(super) fn dir(&self) -> io::Result<PathBuf> {
        match &self.base {
            Some(base) => Ok(base.clone()),
            None => std::env::current_dir(),
        }
    }

    /// Maps a path a tool was given onto the filesystem: relative to the base (or the
    /// working directory), and, with confinement, refused unless its resolved form is
    /// inside the base.
    pub(super) fn resolve(&self, given: &str) -> Result<Resolved, String> {
        let shown = match &self.base {
            Some(base) if !Path::new(given).is_absolute() => base.join(given),
            _ => PathBuf::from(given),
        };
        if !self.confine {
            return Ok(Resolved {
                real: shown.clone(),
                shown,
            });
        }
        let base = self.base.as_deref().unwrap_or(Path::new("."));
        let root = resolved_form(base);
        let real = resolved_form(&shown);
        if real.starts_with(&root) {
            Ok(Resolved { shown, real })
        } else {
            Err(format!(
                "{given} resolves outside baseDir {}",
                base.display()
            ))
        }
    }

    /// [`Env::resolve`] of an optional directory argument, else [`Env::dir`] (confined
    /// like any other path).
    pub(super) fn resolve_dir(&self, given: Option<&str>) -> Result<Resolved, String> {
        match given {
            Some(given) => self.resolve(given),
            None => {
                let dir = self.dir().map_err(|e| e.to_string())?;
                if self.confine {
                    let real = resolved_form(&dir);
                    Ok(Resolved { shown: dir, real })
                } else {
                    Ok(Resolved {
                        real: dir.clone(),
                        shown: dir,
                    })
                }
            }
        }
    }
}

/// The path the kernel would reach for `path`, whether or not it exists yet: each
/// component is followed in order, as the kernel does, a symlink replaced by its target
/// (a dangling one too: writing through it would create its target), `..` taken from
/// the folder reached so far. Unlike a lexical clean-up first (which reads `link/..` as
/// the folder `link` sits in, though the kernel goes to the parent of the link's
/// target), the result is where an open of `path` lands.
pub(super) fn resolved_form(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let mut out = PathBuf::new();
    follow(&mut out, &absolute, 0);
    out
}

/// The most symlinks followed in one resolution (Linux's own limit); past it the path
/// is left as reached, which the kernel would refuse to open anyway.
const MAX_LINKS: usize = 40;

fn follow(out: &mut PathBuf, path: &Path, mut links: usize) -> usize {
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                *out = PathBuf::from(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                let next = out.join(name);
                match std::fs::symlink_metadata(&next) {
                    Ok(meta) if meta.file_type().is_symlink() && links < MAX_LINKS => {
                        match std::fs::read_link(&next) {
                            // A relative target is read from the link's folder (`out`).
                            Ok(target) => links = follow(out, &target, links + 1),
                            Err(_) => *out = next,
                        }
                    }
                    _ => *out = next,
                }
            }
        }
    }
    links
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

    #[cfg(unix)]
    #[test]
    fn resolved_form_follows_links_in_order() {
        let base = std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("toolnexus-resolve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("inside/deep")).unwrap();
        std::os::unix::fs::symlink(base.join("inside/deep"), base.join("inside/link")).unwrap();
        std::os::unix::fs::symlink("../nowhere/file", base.join("inside/dangling")).unwrap();
        // The missing tail is taken as written.
        assert_eq!(resolved_form(&base.join("no-such/../x")), base.join("x"));
        // `link/..` is the parent of the link's target, not the link's own folder.
        assert_eq!(
            resolved_form(&base.join("inside/link/../y")),
            base.join("inside/y")
        );
        // A dangling link resolves to where a write through it would land.
        assert_eq!(
            resolved_form(&base.join("inside/dangling")),
            base.join("nowhere/file")
        );
        std::fs::remove_dir_all(&base).unwrap();
    }
}
