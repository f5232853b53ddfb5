//! The chain of links that left `Builtins::root`: inside the root `d -> .` and
//! `esc -> <a folder outside>`, and the path `d/` × 40 + `esc/secret`. Every tool that
//! takes a path refuses it (and the shorter chains), and nothing outside the root is
//! read or written. Without a root the same paths are followed, as before.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use toolnexus::builtins::Builtins;
use toolnexus::{Context, ToolResult, Toolkit};

use crate::fixture::Scratch;

const SECRET: &str = "the outside secret";

async fn run(toolkit: &Toolkit, tool: &str, args: Value) -> ToolResult {
    toolkit.execute(tool, args, Context::default()).await
}

/// A root with `d -> .`, `esc -> outside` (absolute) and `up -> ../outside` (relative),
/// and the folder outside with its secret; (root, outside's parent).
fn layout() -> (Scratch, Scratch) {
    let outer = Scratch::new("links-outside");
    outer.write("outside/secret", SECRET);
    let root = Scratch::new("links-root");
    root.write("inside.txt", "inside\n");
    let outside = outer.path().join("outside");
    std::os::unix::fs::symlink(".", root.path().join("d")).expect("d -> .");
    std::os::unix::fs::symlink(&outside, root.path().join("esc")).expect("esc -> outside");
    let relative = Path::new("..").join(
        outer
            .path()
            .strip_prefix(root.path().parent().expect("a parent"))
            .expect("siblings"),
    );
    std::os::unix::fs::symlink(relative.join("outside"), root.path().join("up"))
        .expect("up -> ../outside");
    (root, outer)
}

/// Every file outside with its bytes.
fn outside_files(outer: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(outer.join("outside"))
        .expect("the folder outside")
        .map(|entry| {
            let path = entry.expect("an entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read(&path).expect("a file"))
        })
        .collect();
    files.sort();
    files
}

fn calls(path: &str, folder: &str) -> Vec<(&'static str, Value)> {
    let patch =
        |body: String| json!({"patchText": format!("*** Begin Patch\n{body}\n*** End Patch")});
    vec![
        ("read", json!({"path": path})),
        ("write", json!({"path": path, "content": "overwritten"})),
        (
            "write",
            json!({"path": format!("{folder}/created"), "content": "x"}),
        ),
        (
            "edit",
            json!({"path": path, "oldString": "secret", "newString": "changed"}),
        ),
        ("grep", json!({"pattern": "secret", "path": folder})),
        ("glob", json!({"pattern": "**", "path": folder})),
        (
            "apply_patch",
            patch(format!("*** Update File: {path}\n@@\n-{SECRET}\n+changed")),
        ),
        ("apply_patch", patch(format!("*** Delete File: {path}"))),
        (
            "apply_patch",
            patch(format!("*** Add File: {folder}/created\n+x")),
        ),
        (
            "apply_patch",
            patch(format!(
                "*** Update File: inside.txt\n*** Move to: {folder}/moved\n@@\n-inside\n+moved"
            )),
        ),
    ]
}

#[tokio::test]
async fn no_chain_of_links_leaves_the_root() {
    let (root, outer) = layout();
    let before = outside_files(outer.path());
    let toolkit = Toolkit::new().with_builtins(Builtins::all().root(root.path()));
    let outside = outer.path().join("outside");
    let absolute = outside.join("secret").to_string_lossy().into_owned();
    let mut paths: Vec<(String, String)> = [1, 39, 40, 41, 80]
        .into_iter()
        .map(|n| {
            let chain = "d/".repeat(n);
            (format!("{chain}esc/secret"), format!("{chain}esc"))
        })
        .collect();
    paths.extend([
        ("esc/secret".to_owned(), "esc".to_owned()),
        ("up/secret".to_owned(), "up".to_owned()),
        (format!("{}up/secret", "d/".repeat(40)), "d/d/up".to_owned()),
        (
            "../".repeat(20) + &absolute[1..],
            "../".repeat(20) + &outside.to_string_lossy()[1..],
        ),
        (absolute.clone(), outside.to_string_lossy().into_owned()),
        ("d/../inside.txt/../../x".to_owned(), "d/..".to_owned()),
    ]);
    for (path, folder) in &paths {
        for (tool, args) in calls(path, folder) {
            let result = run(&toolkit, tool, args.clone()).await;
            assert!(
                result.is_error,
                "{tool} {args} was not refused: {}",
                result.output
            );
            assert!(
                !result.output.contains(SECRET) && !result.output.contains("changed"),
                "{tool} {args} read outside: {}",
                result.output
            );
        }
    }
    assert_eq!(
        outside_files(outer.path()),
        before,
        "nothing outside was written"
    );
    assert_eq!(
        fs::read_to_string(root.path().join("inside.txt")).unwrap(),
        "inside\n",
        "a refused patch changes nothing inside either"
    );
    // The refusal names the path and the root.
    let refused = run(&toolkit, "read", json!({"path": "esc/secret"})).await;
    assert_eq!(
        refused.output,
        format!(
            "read: esc/secret resolves outside baseDir {}",
            root.path().display()
        )
    );

    // Walks from the root list neither the links nor what is behind them.
    for (tool, args) in [
        ("grep", json!({"pattern": "secret"})),
        ("glob", json!({"pattern": "**"})),
    ] {
        let result = run(&toolkit, tool, args.clone()).await;
        assert!(!result.is_error, "{tool}: {}", result.output);
        assert!(
            !result.output.contains("secret") && !result.output.contains("esc"),
            "{tool} {args}: {}",
            result.output
        );
    }
    // Links that stay inside still work.
    let inside = run(&toolkit, "read", json!({"path": "d/d/d/inside.txt"})).await;
    assert_eq!(inside.output, "inside\n");
}

#[tokio::test]
async fn without_a_root_the_links_are_followed_as_before() {
    let (root, _outer) = layout();
    let toolkit = Toolkit::new().with_builtins(Builtins::all().base_dir(root.path()));
    let read = run(&toolkit, "read", json!({"path": "d/d/d/esc/secret"})).await;
    assert_eq!((read.output.as_str(), read.is_error), (SECRET, false));
    let up = run(&toolkit, "read", json!({"path": "up/secret"})).await;
    assert_eq!(up.output, SECRET);
}
