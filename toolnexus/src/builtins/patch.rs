//! `apply_patch`: opencode's patch grammar (`*** Begin Patch` … `*** End Patch`, with
//! `*** Add File:`, `*** Update File:`, `*** Delete File:` and `+` / `-` / context lines),
//! and an Update's `*** Move to:` line), parsed and applied as the Python port does,
//! all or nothing: the operations are played on a staged copy of the files they name
//! (so two on one path compose: an update then a move, a delete then an add), every
//! hunk is matched before any file is touched, each write is a temporary file renamed
//! into place, and a failure half-way puts back every file already changed.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use cap_std::fs::Permissions;
use regex::Regex;
use serde_json::{Map, Value};

use super::env::{Args, Env, os_error};
use super::files::{decode, read_text};
use super::fs::Target;
use crate::tool::result::ToolResult;

#[derive(Debug)]
enum Op {
    Add {
        path: String,
        content: String,
    },
    Update {
        path: String,
        body: Vec<String>,
        to: Option<String>,
    },
    Delete {
        path: String,
    },
}

impl Op {
    fn path(&self) -> &str {
        match self {
            Op::Add { path, .. } | Op::Update { path, .. } | Op::Delete { path } => path,
        }
    }

    /// Every path the operation names.
    fn paths(&self) -> impl Iterator<Item = &str> {
        let to = match self {
            Op::Update { to, .. } => to.as_deref(),
            _ => None,
        };
        std::iter::once(self.path()).chain(to)
    }
}

fn marker() -> &'static Regex {
    static MARKER: OnceLock<Regex> = OnceLock::new();
    MARKER.get_or_init(|| {
        Regex::new(r"^\*\*\* (Add|Update|Delete) File: (.+)$").expect("a valid pattern")
    })
}

/// Python's `str.strip()`: Unicode white space, and the four separator controls
/// Python counts as space.
fn strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c))
}

fn parse(text: &str) -> Result<Vec<Op>, String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut i = 0;
    while i < lines.len() && strip(lines[i]).is_empty() {
        i += 1;
    }
    if i >= lines.len() || strip(lines[i]) != "*** Begin Patch" {
        return Err("missing '*** Begin Patch'".to_owned());
    }
    i += 1;
    let mut ops = Vec::new();
    while i < lines.len() {
        let line = lines[i];
        if strip(line) == "*** End Patch" {
            return Ok(ops);
        }
        if strip(line).is_empty() {
            i += 1;
            continue;
        }
        let Some(captures) = marker().captures(line) else {
            return Err(format!("unexpected line: {line}"));
        };
        let kind = captures.get(1).map_or("", |m| m.as_str());
        let path = strip(captures.get(2).map_or("", |m| m.as_str())).to_owned();
        i += 1;
        let mut body = Vec::new();
        while i < lines.len() && strip(lines[i]) != "*** End Patch" && !marker().is_match(lines[i])
        {
            body.push(lines[i].to_owned());
            i += 1;
        }
        ops.push(match kind {
            "Add" => Op::Add {
                path,
                content: body
                    .iter()
                    .map(|l| l.strip_prefix('+').unwrap_or(l))
                    .collect::<Vec<_>>()
                    .join("\n"),
            },
            "Delete" => Op::Delete { path },
            _ => {
                let to = body
                    .first()
                    .and_then(|line| line.strip_prefix("*** Move to:"))
                    .map(|to| strip(to).to_owned());
                if to.is_some() {
                    body.remove(0);
                }
                Op::Update { path, body, to }
            }
        });
    }
    Err("missing '*** End Patch'".to_owned())
}

/// An Update's body applied to a file's text: each `@@`-separated hunk's old lines
/// (context and `-`) must occur in the text, and their first occurrence becomes the new
/// lines (context and `+`); a hunk with no old lines is appended.
fn apply_update(content: &str, body: &[String]) -> Result<String, String> {
    let mut hunks: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in body {
        if line.starts_with("@@") {
            if !current.is_empty() {
                hunks.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        hunks.push(current);
    }
    let mut result = content.to_owned();
    for hunk in hunks {
        let mut old = Vec::new();
        let mut new = Vec::new();
        for line in hunk {
            if let Some(rest) = line.strip_prefix('-') {
                old.push(rest);
            } else if let Some(rest) = line.strip_prefix('+') {
                new.push(rest);
            } else {
                let rest = line.strip_prefix(' ').unwrap_or(line);
                old.push(rest);
                new.push(rest);
            }
        }
        let (old, new) = (old.join("\n"), new.join("\n"));
        if old.is_empty() {
            let separator = if result.is_empty() || result.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            result = format!("{result}{separator}{new}");
        } else if result.contains(&old) {
            result = result.replacen(&old, &new, 1);
        } else {
            return Err("hunk does not match file contents".to_owned());
        }
    }
    Ok(result)
}

/// A file's bytes and permissions.
#[derive(Clone)]
struct Saved {
    bytes: Vec<u8>,
    /// `None` for a new file (a new file's defaults).
    permissions: Option<Permissions>,
}

/// One file the patch touches: what it was on disk, and what it becomes.
struct Slot {
    target: Target,
    /// What was on disk (`None`: nothing).
    before: Option<Saved>,
    /// What the file is after the operations played so far (`None`: nothing).
    after: Option<Saved>,
    /// Whether an operation changed it yet.
    touched: bool,
}

/// The staged copy of the files: every operation played on it, nothing written.
#[derive(Default)]
struct Stage {
    slots: Vec<Slot>,
    index: HashMap<PathBuf, usize>,
}

impl Stage {
    /// The slot of `given`, read from disk the first time (a file that is there but
    /// cannot be read is an error, so nothing is ever put back wrongly). With `fresh`,
    /// a file on disk is an error before anything is read.
    fn slot(&mut self, env: &Env, given: &str, fresh: bool) -> Result<usize, String> {
        let target = env.resolve(given)?;
        let key = target.key();
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        if fresh && target.exists() {
            return Err(format!("file already exists: {}", target.shown.display()));
        }
        let before = load(env, &target)?;
        self.slots.push(Slot {
            target,
            after: before.clone(),
            before,
            touched: false,
        });
        self.index.insert(key, self.slots.len() - 1);
        Ok(self.slots.len() - 1)
    }

    fn shown(&self, i: usize) -> String {
        self.slots[i].target.shown.display().to_string()
    }

    fn set(&mut self, i: usize, after: Option<Saved>) {
        self.slots[i].after = after;
        self.slots[i].touched = true;
    }

    fn play(&mut self, env: &Env, op: &Op) -> Result<(), String> {
        match op {
            Op::Add { path, content } => {
                let i = self.slot(env, path, true)?;
                if self.slots[i].after.is_some() {
                    return Err(format!("file already exists: {}", self.shown(i)));
                }
                let bytes = content.clone().into_bytes();
                self.set(
                    i,
                    Some(Saved {
                        bytes,
                        permissions: None,
                    }),
                );
            }
            Op::Delete { path } => {
                let i = self.slot(env, path, false)?;
                if self.slots[i].after.is_none() {
                    return Err(format!("file not found: {}", self.shown(i)));
                }
                self.set(i, None);
            }
            Op::Update { path, body, to } => {
                let i = self.slot(env, path, false)?;
                let shown = self.shown(i);
                let Some(current) = self.slots[i].after.clone() else {
                    if !self.slots[i].touched {
                        // Nothing there: the system's own words for it.
                        read_text(env, &self.slots[i].target, &shown)?;
                    }
                    return Err(format!("file not found: {shown}"));
                };
                let text = decode(current.bytes, &shown)?;
                let next = Saved {
                    bytes: apply_update(&text, body)?.into_bytes(),
                    permissions: current.permissions,
                };
                let j = match to {
                    Some(to) => self.slot(env, to, true)?,
                    None => i,
                };
                if j != i {
                    if self.slots[j].after.is_some() {
                        return Err(format!("file already exists: {}", self.shown(j)));
                    }
                    self.set(i, None);
                }
                self.set(j, Some(next));
            }
        }
        Ok(())
    }
}

/// What is on disk at `target`: `None` when nothing is there, the bytes and permissions
/// when a file is; an error for what cannot be read (a folder, a file too large, no
/// permission) or a link to nothing.
fn load(env: &Env, target: &Target) -> Result<Option<Saved>, String> {
    if !target.exists() {
        return if target.is_symlink() {
            Err(format!("{} is a link to nothing", target.shown.display()))
        } else {
            Ok(None)
        };
    }
    let bytes = env.load(target, &target.shown.display().to_string())?;
    let permissions = target.permissions().ok();
    Ok(Some(Saved { bytes, permissions }))
}

/// The folders `target`'s parent needs made, outermost first.
fn missing_dirs(target: &Target) -> Vec<Target> {
    let mut dirs = Vec::new();
    let mut dir = target.parent();
    while let Some(d) = dir.filter(|d| !d.exists()) {
        dir = d.parent();
        dirs.push(d);
    }
    dirs.reverse();
    dirs
}

/// Writes the staged files (each a temporary file renamed into place) and removes the
/// deleted ones; on a failure, puts back every file already changed as it was and
/// removes the folders made, then reports the failure.
fn commit(slots: &[Slot]) -> Result<(), String> {
    let mut done: Vec<&Slot> = Vec::new();
    let mut made: Vec<Target> = Vec::new();
    let outcome = (|| {
        for slot in slots.iter().filter(|s| s.touched) {
            let Some(after) = &slot.after else { continue };
            for dir in missing_dirs(&slot.target) {
                dir.create_dir().map_err(|e| os_error(&e, &dir.shown))?;
                made.push(dir);
            }
            slot.target
                .replace(&after.bytes, after.permissions.clone())
                .map_err(|e| os_error(&e, &slot.target.shown))?;
            done.push(slot);
        }
        for slot in slots
            .iter()
            .filter(|s| s.after.is_none() && s.before.is_some())
        {
            match slot.target.remove_file() {
                Ok(()) => done.push(slot),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(os_error(&e, &slot.target.shown)),
            }
        }
        Ok(())
    })();
    if outcome.is_err() {
        for slot in done.into_iter().rev() {
            let _ = match &slot.before {
                None => slot.target.remove_file(),
                Some(saved) => slot.target.replace(&saved.bytes, saved.permissions.clone()),
            };
        }
        for dir in made.into_iter().rev() {
            let _ = dir.remove_dir();
        }
    }
    outcome
}

pub(super) fn apply_patch(env: &Env, value: &Value) -> ToolResult {
    let args = Args::new("apply_patch", value);
    let text = match args.required("patchText") {
        Ok(text) => text,
        Err(error) => return ToolResult::error(error),
    };
    let ops = match parse(text) {
        Ok(ops) => ops,
        Err(error) => return args.fail(error),
    };
    // Every path is checked (and, with a root, confined) before anything is read.
    if let Some(error) = ops
        .iter()
        .flat_map(Op::paths)
        .find_map(|path| env.resolve(path).err())
    {
        return args.fail(error);
    }
    let mut stage = Stage::default();
    for op in &ops {
        if let Err(error) = stage.play(env, op) {
            return args.fail(error);
        }
    }
    if let Err(error) = commit(&stage.slots) {
        return args.fail(error);
    }
    let count = |f: fn(&Op) -> bool| ops.iter().filter(|op| f(op)).count();
    let mut metadata = Map::new();
    metadata.insert(
        "added".into(),
        Value::from(count(|op| matches!(op, Op::Add { .. }))),
    );
    metadata.insert(
        "updated".into(),
        Value::from(count(|op| matches!(op, Op::Update { .. }))),
    );
    metadata.insert(
        "deleted".into(),
        Value::from(count(|op| matches!(op, Op::Delete { .. }))),
    );
    let plural = if ops.len() == 1 { "" } else { "s" };
    let mut result = ToolResult::ok(format!(
        "Applied patch: {} file operation{plural}",
        ops.len()
    ));
    result.metadata = Some(metadata);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_replaces_the_first_match_and_appends_a_bare_insertion() {
        let body = |lines: &[&str]| lines.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            apply_update("a\nb\nc\n", &body(&["@@", " a", "-b", "+B"])).unwrap(),
            "a\nB\nc\n"
        );
        assert_eq!(apply_update("a", &body(&["+z"])).unwrap(), "a\nz");
        assert!(apply_update("a", &body(&["-q"])).is_err());
    }

    #[test]
    fn the_grammar_needs_both_ends() {
        assert!(
            parse("*** Add File: x\n+1")
                .unwrap_err()
                .contains("Begin Patch")
        );
        assert!(
            parse("*** Begin Patch\n*** Add File: x\n+1")
                .unwrap_err()
                .contains("End Patch")
        );
        assert!(
            parse("*** Begin Patch\nnonsense\n*** End Patch")
                .unwrap_err()
                .contains("unexpected line")
        );
    }
}
