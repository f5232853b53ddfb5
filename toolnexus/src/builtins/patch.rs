//! `apply_patch`: opencode's patch grammar (`*** Begin Patch` … `*** End Patch`, with
//! `*** Add File:`, `*** Update File:`, `*** Delete File:` and `+` / `-` / context lines),
//! parsed and applied as the Python port does, all or nothing: every hunk is matched
//! before any file is touched, and a write that fails half-way puts back what was
//! already written.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::env::{Args, Env, os_error};
use super::files::read_text;
use crate::tool::result::ToolResult;

#[derive(Debug)]
enum Op {
    Add { path: String, content: String },
    Update { path: String, body: Vec<String> },
    Delete { path: String },
}

impl Op {
    fn path(&self) -> &str {
        match self {
            Op::Add { path, .. } | Op::Update { path, .. } | Op::Delete { path } => path,
        }
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
            _ => Op::Update { path, body },
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

/// What a file was before the patch touched it, to put it back.
enum Before {
    Missing,
    Text(Vec<u8>),
}

/// The changes, staged: every new content computed and every check made, nothing
/// written yet.
struct Staged {
    writes: Vec<(PathBuf, String)>,
    deletes: Vec<PathBuf>,
}

fn stage(env: &Env, ops: &[Op]) -> Result<Staged, String> {
    let mut writes = Vec::new();
    let mut deletes = Vec::new();
    for op in ops {
        let resolved = env.resolve(op.path())?;
        let (real, shown) = (resolved.real, resolved.shown);
        match op {
            Op::Add { content, .. } => {
                if real.exists() {
                    return Err(format!("file already exists: {}", shown.display()));
                }
                writes.push((real, content.clone()));
            }
            Op::Delete { .. } => {
                if !real.exists() {
                    return Err(format!("file not found: {}", shown.display()));
                }
                deletes.push(real);
            }
            Op::Update { body, .. } => {
                let given = shown.to_string_lossy().into_owned();
                let current = read_text(&real, &shown, &given)?;
                writes.push((real, apply_update(&current, body)?));
            }
        }
    }
    Ok(Staged { writes, deletes })
}

/// The folders `path`'s parent needs made, outermost first.
fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
        dirs.push(d.to_path_buf());
        dir = d.parent();
    }
    dirs.reverse();
    dirs
}

/// Writes and deletes the staged changes; on a failure, puts back every file already
/// changed and removes the folders made, then reports the failure.
fn commit(staged: Staged) -> Result<(), String> {
    let mut done: Vec<(PathBuf, Before)> = Vec::new();
    let mut made: Vec<PathBuf> = Vec::new();
    let outcome = (|| {
        for (path, content) in &staged.writes {
            let before = match std::fs::read(path) {
                Ok(bytes) => Before::Text(bytes),
                Err(_) => Before::Missing,
            };
            for dir in missing_dirs(path) {
                std::fs::create_dir(&dir).map_err(|e| os_error(&e, &dir))?;
                made.push(dir);
            }
            std::fs::write(path, content).map_err(|e| os_error(&e, path))?;
            done.push((path.clone(), before));
        }
        for path in &staged.deletes {
            let bytes = match std::fs::read(path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(os_error(&e, path)),
            };
            match std::fs::remove_file(path) {
                Ok(()) => done.push((path.clone(), Before::Text(bytes))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(os_error(&e, path)),
            }
        }
        Ok(())
    })();
    if outcome.is_err() {
        for (path, before) in done.into_iter().rev() {
            let _ = match before {
                Before::Missing => std::fs::remove_file(&path),
                Before::Text(bytes) => std::fs::write(&path, bytes),
            };
        }
        for dir in made.into_iter().rev() {
            let _ = std::fs::remove_dir(&dir);
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
    if let Some(error) = ops.iter().find_map(|op| env.resolve(op.path()).err()) {
        return args.fail(error);
    }
    let staged = match stage(env, &ops) {
        Ok(staged) => staged,
        Err(error) => return args.fail(error),
    };
    if let Err(error) = commit(staged) {
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
