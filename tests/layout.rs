//! The runtime crate's layout keeps its architecture, read from its imports alone:
//!
//! - the top-level modules stand in one order (below), and no module imports one above
//!   it, so no two of them import each other;
//! - no two files in different folders import each other;
//! - no new circle of imports forms among the files of one module, and none of those
//!   that stand (`KNOWN_CIRCLES`) grows;
//! - no source file grows past 600 lines (split it by concern instead);
//! - no code outside `store/` compiles differently by store feature.
//!
//! The imports are every `crate::…` path in the code of `toolnexus/src` (comments, doc
//! comments and `#[cfg(test)]` modules left out), and `super::…` paths for the files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[path = "layout/setters.rs"]
mod setters;

/// The top-level modules, lowest first: each may import only those before it. The order
/// is the code's own: each line says what the module imports.
const LAYERS: &[&str] = &[
    "time",      // RFC 3339 timestamps: nothing
    "env",       // `${NAME}` expansion of configured header values: nothing
    "schema",    // schemas, provider profiles, listings: nothing
    "trace",     // the names and attributes of the spans: nothing
    "web",       // the Host, Origin and body checks of the HTTP surfaces: nothing
    "tool",      // tools, their context, results and toolkit: schema, trace
    "primitive", // MCP resources and prompts, defined like tools: tool, schema
    "otel",      // exporting the spans: trace
    "search",    // tool search: tool
    "builtins",  // the contract's built-in tools: tool
    "model",     // messages, the Model trait, usage, settings, prices: tool, trace
    "agent", // the loop, and the journal durable runs are written to: tool, schema, trace, otel, search
    "agents", // the agent runtime (handles, verbs, budgets, teams): agent, tool, schema
    "providers", // models over HTTP: agent, tool, schema
    "translate", // one provider call, no loop: agent, tool, schema
    "mcp",   // the MCP server and client: agent, tool, schema, trace, otel, web
    "a2a",   // A2A agents as tools, and a Client served as one: agent, tool, env, time, web
    // The run stores: they implement the loop's journal and the task storage of the MCP
    // and A2A servers (a trait each consumer owns, as the journal is the loop's): agent,
    // tool, time, mcp (task rows), a2a (task rows), agents (handle rows).
    "store",
    "source", // tools from MCP configs, skills folders, HTTP endpoints: mcp, tool, builtins, a2a
    "dispatch", // a facade over the tool layer's plumbing and the loop's resume: tool, agent
    "ui",     // runs a web page drives (AG-UI, the AI SDK's stream): agent, tool, web
    "code",   // code mode, scripts that call the toolkit's tools: agent, tool, schema
    "restate", // a Client and Toolkit served as a Restate virtual object: agent, tool
    "_guide", // documentation
    "lib",    // the crate root
];

/// Arrows that break the rules today, each named with where it is, so that no other can
/// hide behind it (none now: an entry here must name a real arrow, or the test fails).
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// Files in different folders that import each other today (none now).
const KNOWN_FILE_PAIRS: &[(&str, &str)] = &[];

/// Circles of imports among the files of one module that stand today, each named by its
/// smallest file and its size, so that none grows and no other appears (none now; a
/// file's use of its own `mod.rs` is not a circle: that is a child using its parent).
const KNOWN_CIRCLES: &[(&str, usize)] = &[];

fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name).join("src")
}

/// The code of a source file: comments dropped, and `#[cfg(test)]` modules.
fn code(text: &str) -> String {
    let mut kept = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            // Skip the module: up to the line that closes its first brace.
            let mut depth = 0i32;
            for line in lines.by_ref() {
                depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
                if depth <= 0 && line.contains('}') {
                    break;
                }
            }
            continue;
        }
        kept.push_str(line.split("//").next().unwrap_or_default());
        kept.push('\n');
    }
    kept
}

/// The spans of the inline modules (`mod name { … }`) of a file's code.
fn inline_modules(code: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for (start, _) in code.match_indices("mod ") {
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let after = &code[start + 4..];
        let name = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if name == 0 || !after[name..].trim_start().starts_with('{') {
            continue;
        }
        let open = start + 4 + name + after[name..].find('{').unwrap_or(0);
        let mut depth = 0;
        for (i, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        spans.push((open, open + i));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    spans
}

/// The paths a file's code names: `crate::a::b::C`, `super::x`, and each path of a use
/// tree (`crate::a::{b::C, D}` names `a::b::C` and `a::D`), as their segments. A
/// `super` that leaves an inline module (`mod rows { … }`) stays in the file, and is
/// dropped.
fn paths(code: &str) -> Vec<(bool, Vec<String>)> {
    let mut found = Vec::new();
    let inline = inline_modules(code);
    for (start, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let relative = code[start..].starts_with("super::");
        let mut rest = &code[start..];
        let mut prefix = Vec::new();
        if relative {
            let mut nested = inline
                .iter()
                .filter(|(a, b)| *a < start && start < *b)
                .count();
            while let Some(after) = rest.strip_prefix("super::") {
                match nested {
                    0 => prefix.push("super".to_owned()),
                    _ => nested -= 1,
                }
                rest = after;
            }
        } else {
            rest = &rest["crate::".len()..];
        }
        for segments in tree(&mut rest, prefix) {
            found.push((relative, segments));
        }
    }
    found
}

/// The paths of the use tree at the start of `rest` (`a::b`, `a::{b, c::d}`), each after
/// `prefix`; `rest` is left after the tree.
fn tree(rest: &mut &str, mut prefix: Vec<String>) -> Vec<Vec<String>> {
    loop {
        *rest = rest.trim_start();
        if let Some(inner) = rest.strip_prefix('{') {
            *rest = inner;
            let mut all = Vec::new();
            loop {
                all.extend(tree(rest, prefix.clone()));
                *rest = rest.trim_start();
                if let Some(after) = rest.strip_prefix(',') {
                    *rest = after;
                    continue;
                }
                if let Some(after) = rest.strip_prefix('}') {
                    *rest = after;
                }
                return all;
            }
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            // `self`, `*`, or the end of a group.
            if let Some(after) = rest.strip_prefix('*') {
                *rest = after;
            }
            return if prefix.is_empty() {
                Vec::new()
            } else {
                vec![prefix]
            };
        }
        prefix.push(rest[..end].to_owned());
        *rest = &rest[end..];
        match rest.strip_prefix("::") {
            Some(after) => *rest = after,
            None => {
                // `x as y`: skip the alias.
                let trimmed = rest.trim_start();
                if let Some(after) = trimmed.strip_prefix("as ") {
                    let after = after.trim_start();
                    let end = after
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(after.len());
                    *rest = &after[end..];
                }
                return vec![prefix];
            }
        }
    }
}

/// What the crate root re-exports: name → the module path it comes from.
fn root_names(lib: &str) -> BTreeMap<String, Vec<String>> {
    let mut names = BTreeMap::new();
    let flat = code(lib).replace('\n', " ");
    for statement in flat.split(';') {
        let Some(at) = statement.find("pub use ") else {
            continue;
        };
        let used = statement[at + "pub use ".len()..].trim();
        let (module, items) = match used.split_once("::{") {
            Some((module, items)) => (module, items.trim_end_matches('}').to_owned()),
            None => match used.rsplit_once("::") {
                Some((module, item)) => (module, item.to_owned()),
                None => continue,
            },
        };
        let module: Vec<String> = module.split("::").map(str::to_owned).collect();
        for item in items.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            names.insert(item.to_owned(), module.clone());
        }
    }
    names
}

/// The crate's source files, relative to `src`, and the files each one imports.
struct Graph {
    files: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn of(src: &Path) -> Graph {
        let lib = fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
        let roots = root_names(&lib);
        let exists = |rel: &str| src.join(rel).is_file();
        // The file a module path is in: `a/b.rs` or `a/b/mod.rs` (`lib.rs` for the root).
        let file_of = |module: &[String]| -> Option<String> {
            if module.is_empty() {
                return Some("lib.rs".to_owned());
            }
            let joined = module.join("/");
            [format!("{joined}.rs"), format!("{joined}/mod.rs")]
                .into_iter()
                .find(|candidate| exists(candidate))
        };
        let mut files = BTreeMap::new();
        for path in sources(src) {
            let rel = path
                .strip_prefix(src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            // The module path of this file.
            let mut here: Vec<String> = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_owned)
                .collect();
            if here.last().is_some_and(|s| s == "mod" || s == "lib") {
                here.pop();
            }
            let text = fs::read_to_string(&path).expect("readable source");
            let mut imports = BTreeSet::new();
            for (relative, segments) in paths(&code(&text)) {
                let mut module = if relative { here.clone() } else { Vec::new() };
                let mut rest = segments.as_slice();
                while rest.first().is_some_and(|s| s == "super") {
                    module.pop();
                    rest = &rest[1..];
                }
                // A name the root re-exports (not a module) stands for where it comes from.
                if module.is_empty()
                    && let Some(first) = rest.first()
                    && file_of(std::slice::from_ref(first)).is_none()
                    && let Some(origin) = roots.get(first)
                {
                    module = origin.clone();
                    rest = &rest[1..];
                }
                // The longest prefix that is a file.
                let mut target = file_of(&module);
                for segment in rest {
                    module.push(segment.clone());
                    match file_of(&module) {
                        Some(file) => target = Some(file),
                        None => break,
                    }
                }
                if let Some(target) = target.filter(|t| *t != rel) {
                    imports.insert(target);
                }
            }
            files.insert(rel, imports);
        }
        Graph { files }
    }
}

/// The top-level module a file belongs to (`lib` for the root).
fn layer(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.trim_end_matches(".rs")
}

fn folder(file: &str) -> &str {
    file.rsplit_once('/').map_or("", |(dir, _)| dir)
}

#[test]
fn no_module_imports_one_above_it() {
    let graph = Graph::of(&crate_src("toolnexus"));
    let rank = |module: &str| LAYERS.iter().position(|l| *l == module);
    let mut wrong = Vec::new();
    let mut used = BTreeSet::new();
    for (file, imports) in &graph.files {
        let from = layer(file);
        let Some(from_rank) = rank(from) else {
            wrong.push(format!(
                "{file}: `{from}` has no place in LAYERS: give it one"
            ));
            continue;
        };
        for target in imports {
            let to = layer(target);
            if to == from {
                continue;
            }
            let Some(to_rank) = rank(to) else {
                wrong.push(format!("{file} → {target}: `{to}` has no place in LAYERS"));
                continue;
            };
            if to_rank > from_rank {
                if KNOWN_UPWARD.contains(&(file.as_str(), to)) {
                    used.insert((file.clone(), to.to_owned()));
                    continue;
                }
                wrong.push(format!(
                    "{file} imports {target}: `{from}` is below `{to}` in LAYERS"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "upward imports (fix them, or move the module in LAYERS if the order itself \
         changed):\n{}",
        wrong.join("\n")
    );
    // An exemption that no longer applies is removed, not kept as a loophole.
    for (file, to) in KNOWN_UPWARD {
        assert!(
            used.contains(&(file.to_string(), to.to_string())),
            "{file} no longer imports `{to}`: remove it from KNOWN_UPWARD"
        );
    }
}

#[test]
fn no_two_files_in_different_folders_import_each_other() {
    let graph = Graph::of(&crate_src("toolnexus"));
    let mut pairs = Vec::new();
    for (file, imports) in &graph.files {
        for target in imports {
            let back = graph.files.get(target).is_some_and(|i| i.contains(file));
            if back && file < target && folder(file) != folder(target) {
                pairs.push((file.clone(), target.clone()));
            }
        }
    }
    let unknown: Vec<String> = pairs
        .iter()
        .filter(|(a, b)| !KNOWN_FILE_PAIRS.contains(&(a.as_str(), b.as_str())))
        .map(|(a, b)| format!("{a} ↔ {b}"))
        .collect();
    assert!(
        unknown.is_empty(),
        "files in different folders that import each other:\n{}",
        unknown.join("\n")
    );
    for (a, b) in KNOWN_FILE_PAIRS {
        assert!(
            pairs.iter().any(|(x, y)| x == a && y == b),
            "{a} and {b} no longer import each other: remove them from KNOWN_FILE_PAIRS"
        );
    }
}

/// The circles of `graph` (strongly connected sets of two files or more), leaving out
/// each file's arrows to the `mod.rs` files of its own folder and the folders above it.
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let names: Vec<&String> = graph.files.keys().collect();
    let index: BTreeMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let parent_of = |file: &str, target: &str| {
        target.ends_with("/mod.rs")
            && file != target
            && file.starts_with(&format!("{}/", folder(target)))
    };
    let edges: Vec<Vec<usize>> = names
        .iter()
        .map(|file| {
            graph.files[*file]
                .iter()
                .filter(|t| !parent_of(file, t))
                .filter_map(|t| index.get(t.as_str()).copied())
                .collect()
        })
        .collect();
    // Tarjan's algorithm, iteratively.
    let n = names.len();
    let (mut order, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut found) = (vec![false; n], Vec::new(), Vec::new());
    let mut next = 0;
    for start in 0..n {
        if order[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i == 0 {
                order[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*i) {
                *i += 1;
                if order[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == order[v] {
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    members.push(names[w].clone());
                    if w == v {
                        break;
                    }
                }
                if members.len() > 1 {
                    members.sort();
                    found.push(members);
                }
            }
        }
    }
    found.sort();
    found
}

#[test]
fn no_circles_inside_a_module() {
    let graph = Graph::of(&crate_src("toolnexus"));
    let found = circles(&graph);
    let named: Vec<(String, usize)> = found.iter().map(|c| (c[0].clone(), c.len())).collect();
    let known: Vec<(String, usize)> = KNOWN_CIRCLES
        .iter()
        .map(|(f, n)| (f.to_string(), *n))
        .collect();
    let shown = |c: &Vec<String>| format!("{} files: {}", c.len(), c.join(", "));
    assert_eq!(
        named,
        known,
        "circles of imports (break them: move what both sides need into a file both \
         import):\n{}",
        found.iter().map(shown).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_circle_finder_finds_circles_and_only_them() {
    let graph = |arrows: &[(&str, &str)]| {
        let mut files: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in arrows {
            files.entry(to.to_string()).or_default();
            files
                .entry(from.to_string())
                .or_default()
                .insert(to.to_string());
        }
        Graph { files }
    };
    let found = circles(&graph(&[
        ("a/x.rs", "a/y.rs"),
        ("a/y.rs", "a/z.rs"),
        ("a/z.rs", "a/x.rs"),
        ("a/z.rs", "b.rs"),
        ("a/w/q.rs", "a/mod.rs"),
        ("a/mod.rs", "a/w/q.rs"),
    ]));
    assert_eq!(found, [["a/x.rs", "a/y.rs", "a/z.rs"]]);
}

#[test]
fn the_import_reader_sees_what_it_should() {
    let text = "use crate::tool::{args::Args, Tool};\n// crate::agent in a comment\n\
                fn f() -> crate::Client { super::super::x::y() }\n\
                #[cfg(test)]\nmod tests {\n    use crate::store::Thing;\n}\n";
    let found = paths(&code(text));
    let shown: Vec<String> = found.iter().map(|(_, s)| s.join("::")).collect();
    assert_eq!(
        shown,
        [
            "tool::args::Args",
            "tool::Tool",
            "Client",
            "super::super::x::y"
        ]
    );
    let graph = Graph::of(&crate_src("toolnexus"));
    let entry = &graph.files["agent/entry.rs"];
    assert!(entry.contains("agent/drive.rs"), "{entry:?}");
    assert!(entry.contains("tool/kit.rs"), "{entry:?}");
    // A root re-export stands for its module: `crate::ToolResult` is the tool layer's.
    let state = &graph.files["tool/state.rs"];
    assert!(state.contains("tool/mod.rs"), "{state:?}");
    assert!(!state.contains("lib.rs"), "{state:?}");
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut long = Vec::new();
    for krate in ["toolnexus", "toolnexus-macros"] {
        for file in sources(&crate_src(krate)) {
            let lines = fs::read_to_string(&file)
                .expect("readable source")
                .lines()
                .count();
            if lines > 600 {
                long.push(format!("{} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "split these by concern: {}",
        long.join(", ")
    );
}

/// The files outside `store/` that may name the store features in a `cfg`: where the
/// `store` module is declared, and the MCP server's hook its `store` sets.
const STORE_CFG_ALLOWED: &[&str] = &["lib.rs", "mcp/server/task/mod.rs"];

#[test]
fn code_outside_the_store_does_not_fork_on_it() {
    // The loop and its surfaces take any journal: with no store set they run on the same
    // code, so only `store/` (and where it is declared or set) compiles by store feature.
    let src = crate_src("toolnexus");
    let mut forks = Vec::new();
    for file in sources(&src) {
        let name = file
            .strip_prefix(&src)
            .expect("below src")
            .to_string_lossy()
            .replace('\\', "/");
        if name.starts_with("store/") || STORE_CFG_ALLOWED.contains(&name.as_str()) {
            continue;
        }
        let text = fs::read_to_string(&file).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("#[cfg(") && line.contains("\"__store\"") {
                forks.push(format!("{name}:{}", n + 1));
            }
        }
    }
    assert!(
        forks.is_empty(),
        "these fork on the store features; run on any journal instead: {}",
        forks.join(", ")
    );
}

/// The rows of ARCHITECTURE.md's layer table: each module and the modules it imports.
fn architecture() -> Vec<(String, BTreeSet<String>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    text.lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').collect();
            let module = ticked(cells[1]).remove(0);
            (module, ticked(cells[3]).into_iter().collect())
        })
        .collect()
}

#[test]
fn architecture_md_shows_the_layers_as_the_code_has_them() {
    let table = architecture();
    let order: Vec<&str> = table.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        order, LAYERS,
        "ARCHITECTURE.md's table lists the modules of LAYERS, in its order"
    );
    let graph = Graph::of(&crate_src("toolnexus"));
    let mut actual: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (file, imports) in &graph.files {
        let from = layer(file);
        let entry = actual.entry(from).or_default();
        for target in imports {
            let to = layer(target);
            if to != from {
                entry.insert(to.to_owned());
            }
        }
    }
    let wrong: Vec<String> = table
        .iter()
        .filter_map(|(module, said)| {
            let has = actual.remove(module.as_str()).unwrap_or_default();
            (has != *said).then(|| format!("`{module}` imports {has:?}, the table says {said:?}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "update ARCHITECTURE.md's imports column:\n{}",
        wrong.join("\n")
    );
}
