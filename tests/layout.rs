//! The runtime crate's layout keeps its architecture: data flows one way (tool → schema →
//! agent → mcp), so nothing in the tool or schema layers names the loop or MCP, and no
//! source file grows past 600 lines (split it by concern instead).

use std::fs;
use std::path::{Path, PathBuf};

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
    files
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name).join("src")
}

#[test]
fn the_tool_and_schema_layers_import_nothing_from_the_loop_mcp_or_builtins() {
    let mut offending = Vec::new();
    for layer in ["tool", "schema"] {
        for file in sources(&crate_src("toolnexus").join(layer)) {
            let text = fs::read_to_string(&file).expect("readable source");
            for (number, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                if code.contains("crate::agent")
                    || code.contains("crate::mcp")
                    || code.contains("crate::builtins")
                {
                    offending.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        offending.is_empty(),
        "upward imports:\n{}",
        offending.join("\n")
    );
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
