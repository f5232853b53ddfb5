//! `grep` and `glob`: a walk of the tree with `ignore`, globs matched with `globset`,
//! patterns run with `regex` (ripgrep's own crates).

use std::path::PathBuf;

use globset::{Glob, GlobMatcher};
use serde_json::Value;

use super::env::{Args, Env, int, universal_newlines};
use super::fs::{LoadError, Target};
use crate::tool::result::ToolResult;

/// Folders never walked into.
const SKIPPED: [&str; 2] = ["node_modules", ".git"];

/// The cap on results when the call gives none.
const DEFAULT_LIMIT: i64 = 100;

/// Every regular file under the folder `dir` (symlinks neither listed nor followed,
/// `.git` and `node_modules` skipped, hidden files and ignored files included, as in the
/// Python port), each with its path relative to `dir` and that path `/`-separated,
/// sorted by the latter in code-point order: which results a cap keeps depends on the
/// set of files alone. Beneath a root the walk starts at the folder's real path (every
/// link in it resolved by the root's handle), and every file is then opened through the
/// root's handle, never by the listed path.
fn walk(env: &Env, dir: &Target) -> Vec<(PathBuf, String)> {
    if !dir.is_dir() {
        return Vec::new();
    }
    let Ok(start) = dir.host_path(env.base.as_deref()) else {
        return Vec::new();
    };
    let walker = ignore::WalkBuilder::new(&start)
        .standard_filters(false)
        .follow_links(false)
        .filter_entry(|entry| {
            entry.depth() == 0
                || !(entry.file_type().is_some_and(|t| t.is_dir())
                    && SKIPPED.iter().any(|name| entry.file_name() == *name))
        })
        .build();
    let mut files: Vec<(PathBuf, String)> = walker
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|entry| {
            let rel = entry.path().strip_prefix(&start).ok()?.to_path_buf();
            let shown = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            Some((rel, shown))
        })
        .collect();
    files.sort_by(|a, b| a.1.cmp(&b.1));
    files
}

/// A glob as the tools match it: against the whole relative path when it has a `/`,
/// else against the file name; `*` and `?` stop at `/`, `**` crosses folders.
struct Pattern {
    matcher: GlobMatcher,
    whole_path: bool,
}

impl Pattern {
    fn new(glob: &str) -> Result<Pattern, String> {
        let matcher = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map(|g: Glob| g.compile_matcher())
            .map_err(|e| format!("invalid glob: {e}"))?;
        Ok(Pattern {
            matcher,
            whole_path: glob.contains('/'),
        })
    }

    fn matches(&self, rel: &str) -> bool {
        if self.whole_path {
            self.matcher.is_match(rel)
        } else {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            self.matcher.is_match(name)
        }
    }
}

fn limit_of(args: &Args<'_>) -> i64 {
    args.number("limit").map_or(DEFAULT_LIMIT, int)
}

fn room(taken: usize, limit: i64) -> bool {
    i64::try_from(taken).unwrap_or(i64::MAX) < limit
}

pub(super) fn grep(env: &Env, value: &Value) -> ToolResult {
    let args = Args::new("grep", value);
    let pattern = match args.required("pattern") {
        Ok(pattern) => pattern,
        Err(error) => return ToolResult::error(error),
    };
    let regex = match regex::Regex::new(pattern) {
        Ok(regex) => regex,
        Err(e) => return args.fail(format!("invalid regex: {e}")),
    };
    let (path, include) = match (args.string("path"), args.string("include")) {
        (Ok(path), Ok(include)) => (path, include),
        (Err(error), _) | (_, Err(error)) => return ToolResult::error(error),
    };
    let root = match env.resolve_dir(path) {
        Ok(root) => root,
        Err(error) => return args.fail(error),
    };
    let include = match include.map(Pattern::new).transpose() {
        Ok(include) => include,
        Err(error) => return args.fail(error),
    };
    let limit = limit_of(&args);
    let mut matches: Vec<String> = Vec::new();
    let mut too_big: Vec<String> = Vec::new();
    for (file, rel) in walk(env, &root) {
        if !room(matches.len(), limit) {
            break;
        }
        if include.as_ref().is_some_and(|p| !p.matches(&rel)) {
            continue;
        }
        // Unreadable and binary files are skipped (ripgrep's way; the Python port stops
        // the whole search at the first file that is not UTF-8).
        let bytes = match root.child(&file).load(env.read_limit) {
            Ok(bytes) => bytes,
            Err(LoadError::TooBig(_)) => {
                too_big.push(rel);
                continue;
            }
            Err(LoadError::Io(_)) => continue,
        };
        if bytes.contains(&0) {
            continue;
        }
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let text = universal_newlines(text);
        for (number, line) in text.split('\n').enumerate() {
            if !room(matches.len(), limit) {
                break;
            }
            if regex.is_match(line) {
                matches.push(format!("{rel}:{}:{line}", number + 1));
            }
        }
    }
    let count = matches.len();
    let mut output = matches.join("\n");
    if !too_big.is_empty() {
        if !output.is_empty() {
            output.push('\n');
        }
        output.push_str(&format!(
            "[not searched, larger than {} bytes: {}]",
            env.read_limit,
            too_big.join(", ")
        ));
    }
    ToolResult::ok(output).with_metadata("count", count)
}

pub(super) fn glob(env: &Env, value: &Value) -> ToolResult {
    let args = Args::new("glob", value);
    let pattern = match args.required("pattern") {
        Ok(pattern) => pattern,
        Err(error) => return ToolResult::error(error),
    };
    let path = match args.string("path") {
        Ok(path) => path,
        Err(error) => return ToolResult::error(error),
    };
    let root = match env.resolve_dir(path) {
        Ok(root) => root,
        Err(error) => return args.fail(error),
    };
    let pattern = match Pattern::new(pattern) {
        Ok(pattern) => pattern,
        Err(error) => return args.fail(error),
    };
    let limit = limit_of(&args);
    let mut found: Vec<String> = Vec::new();
    for (_, rel) in walk(env, &root) {
        if !room(found.len(), limit) {
            break;
        }
        if pattern.matches(&rel) {
            found.push(rel);
        }
    }
    // The Python port reports min(found, limit), which a negative limit makes negative.
    let count = i64::try_from(found.len()).unwrap_or(i64::MAX).min(limit);
    ToolResult::ok(found.join("\n")).with_metadata("count", count)
}
