//! `Builtins::root`: every path the tools take is confined to the root, after `..` and
//! symlinks are resolved; nothing outside it is read, listed, run in or changed.
//! `Builtins::approval`: the mutating tools ask first. The toggles and the precedence.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use toolnexus::builtins::Builtins;
use toolnexus::source::McpConfig;
use toolnexus::{Context, Tool, ToolResult, Toolkit};

use crate::fixture::{Scratch, tree};

/// Every file under `dir` with its bytes (symlinks as their targets' text).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("a folder") {
            let path = entry.expect("an entry").path();
            let meta = fs::symlink_metadata(&path).expect("metadata");
            let rel = path
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).expect("a link");
                files.insert(rel, target.to_string_lossy().into_owned().into_bytes());
            } else if meta.is_dir() {
                stack.push(path);
            } else {
                files.insert(rel, fs::read(&path).expect("a file"));
            }
        }
    }
    files
}

async fn run(toolkit: &Toolkit, tool: &str, args: Value) -> ToolResult {
    toolkit
        .execute(tool, args, Context::new().with_call_id("call-1"))
        .await
}

#[tokio::test]
async fn nothing_outside_the_root_is_read_listed_or_changed() {
    let outer = Scratch::new("outer");
    outer.write("outside/secret.txt", "top secret\n");
    outer.write("outside/sub/keep.txt", "keep\n");
    let root = tree("confined");
    let outside = outer.path().join("outside");
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, root.path().join(name)).expect("a link")
    };
    link(&outside, "escape_dir");
    link(&outside.join("secret.txt"), "escape_file");
    link(&outside.join("created.txt"), "dangling");
    link(&outside.join("sub"), "hop");
    link(Path::new("src/main.rs"), "inner_link");
    let before = snapshot(outer.path());
    let toolkit = Toolkit::new().with_builtins(Builtins::all().root(root.path()));
    let secret = outside.join("secret.txt").to_string_lossy().into_owned();
    let patch =
        |body: &str| json!({"patchText": format!("*** Begin Patch\n{body}\n*** End Patch")});

    let refused: Vec<(&str, Value)> = vec![
        ("read", json!({"path": "../outside/secret.txt"})),
        ("read", json!({"path": secret})),
        ("read", json!({"path": "escape_dir/secret.txt"})),
        ("read", json!({"path": "escape_file"})),
        // `hop/..` is the parent of the link's target (outside), not the root.
        ("read", json!({"path": "hop/../secret.txt"})),
        ("read", json!({"path": "src/../../outside/secret.txt"})),
        (
            "write",
            json!({"path": "../outside/created.txt", "content": "x"}),
        ),
        ("write", json!({"path": "dangling", "content": "x"})),
        (
            "write",
            json!({"path": "escape_dir/created.txt", "content": "x"}),
        ),
        (
            "write",
            json!({"path": "no/such/../../../outside/created.txt", "content": "x"}),
        ),
        (
            "edit",
            json!({"path": "escape_file", "oldString": "top", "newString": "no"}),
        ),
        ("grep", json!({"pattern": "secret", "path": "../outside"})),
        ("grep", json!({"pattern": "secret", "path": "escape_dir"})),
        ("glob", json!({"pattern": "**", "path": "/"})),
        (
            "bash",
            json!({"command": "echo x > created.txt", "workdir": "../outside"}),
        ),
        (
            "bash",
            json!({"command": "echo x > created.txt", "workdir": "escape_dir"}),
        ),
        (
            "apply_patch",
            patch("*** Add File: ../outside/created.txt\n+x"),
        ),
        (
            "apply_patch",
            patch("*** Update File: escape_file\n@@\n-top secret\n+leaked"),
        ),
        ("apply_patch", patch(&format!("*** Delete File: {secret}"))),
        // One path outside refuses the whole patch: the file inside is not made either.
        (
            "apply_patch",
            patch("*** Add File: inside_ok.txt\n+fine\n*** Add File: dangling\n+x"),
        ),
    ];
    for (tool, args) in refused {
        let result = run(&toolkit, tool, args.clone()).await;
        assert!(
            result.is_error && result.output.contains("resolves outside baseDir"),
            "{tool} {args} was not refused: {}",
            result.output
        );
    }
    assert!(!root.path().join("inside_ok.txt").exists());
    assert_eq!(
        snapshot(outer.path()),
        before,
        "nothing outside the root changed"
    );

    // Inside the root everything works, absolute paths and inner symlinks included.
    let main = root
        .path()
        .join("src/main.rs")
        .to_string_lossy()
        .into_owned();
    for (tool, args) in [
        ("read", json!({"path": main})),
        ("read", json!({"path": "inner_link"})),
        ("read", json!({"path": "src/nested/../main.rs"})),
        ("grep", json!({"pattern": "println"})),
        ("bash", json!({"command": "pwd", "workdir": "src"})),
        ("write", json!({"path": "made/here.txt", "content": "ok"})),
    ] {
        let result = run(&toolkit, tool, args.clone()).await;
        assert!(!result.is_error, "{tool} {args}: {}", result.output);
    }
    assert_eq!(
        fs::read_to_string(root.path().join("made/here.txt")).unwrap(),
        "ok"
    );
    // Listings never follow symlinks, so nothing behind `escape_dir` shows up.
    let listed = run(&toolkit, "glob", json!({"pattern": "**"})).await;
    assert!(!listed.output.contains("secret"), "{}", listed.output);
}

#[tokio::test]
async fn with_approval_the_mutating_tools_ask_before_they_act() {
    let root = tree("approval");
    let toolkit = Toolkit::new().with_builtins(Builtins::all().root(root.path()).approval(true));
    let gated: Vec<&str> = toolkit
        .tools()
        .iter()
        .filter(|t| t.requires_approval())
        .map(Tool::name)
        .collect();
    assert_eq!(gated, ["bash", "write", "edit", "webfetch", "apply_patch"]);

    let args = json!({"path": "asked.txt", "content": "approved"});
    let ctx = Context::new().with_call_id("call-7");
    let asked = toolkit.execute("write", args.clone(), ctx.clone()).await;
    let request = asked.pending_request().expect("an approval request");
    assert_eq!(request.kind, "approval");
    assert!(
        !root.path().join("asked.txt").exists(),
        "nothing written before the answer"
    );

    let declined = toolkit
        .execute(
            "write",
            args.clone(),
            ctx.clone().with_answer(request.decline("no")),
        )
        .await;
    assert!(
        declined.is_error && !root.path().join("asked.txt").exists(),
        "{}",
        declined.output
    );

    let done = toolkit
        .execute("write", args, ctx.with_answer(request.answer(true)))
        .await;
    assert_eq!(done.output, "Wrote 8 bytes to asked.txt");
    assert_eq!(
        fs::read_to_string(root.path().join("asked.txt")).unwrap(),
        "approved"
    );

    // The read-only tools do not ask.
    let read = toolkit
        .execute("read", json!({"path": "asked.txt"}), Context::default())
        .await;
    assert_eq!(read.output, "approved");
}

#[test]
fn the_toggles_and_the_precedence_are_the_contracts() {
    let names = |toolkit: &Toolkit| {
        toolkit
            .tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect::<Vec<_>>()
    };
    let all = Toolkit::new().with_builtins(Builtins::all());
    assert_eq!(names(&all), toolnexus::builtins::NAMES);
    assert!(all.tools().iter().all(|t| t.source() == "builtin"));
    assert!(
        Toolkit::new()
            .with_builtins(Builtins::none().tool("bash", true))
            .is_empty()
    );
    let some =
        Toolkit::new().with_builtins(Builtins::all().without(["bash", "write", "not_a_tool"]));
    assert_eq!(some.len(), 8);
    assert!(some.get("bash").is_none() && some.get("write").is_none());

    // A host's tool of a builtin's name wins, registered before or after.
    let mine = || {
        Tool::new_sync("bash", "Sandboxed.", json!({"type": "object"}), |_, _| {
            ToolResult::ok("mine")
        })
    };
    let before = Toolkit::new().with(mine()).with_builtins(Builtins::all());
    let after = Toolkit::new().with_builtins(Builtins::all()).with(mine());
    for toolkit in [before, after] {
        assert_eq!(toolkit.len(), 10);
        assert_eq!(toolkit.get("bash").unwrap().source(), "custom");
        assert!(toolkit.rejected().is_empty());
    }

    // A config file's `builtins` section, beside the servers.
    let config = McpConfig::from_json(
        r#"{"mcpServers": {}, "builtins": {"tools": {"bash": false, "webfetch": false}}}"#,
    )
    .unwrap();
    let toolkit = Toolkit::new().with_builtins(config.builtins().clone());
    assert_eq!(toolkit.len(), 8);
    let off = McpConfig::from_json(r#"{"builtins": false}"#).unwrap();
    assert!(off.servers.is_empty() && !off.builtins().is_enabled());
    let off = McpConfig::from_json(r#"{"builtins": {"disabled": true, "tools": {"bash": true}}}"#)
        .unwrap();
    assert!(off.builtins().names().is_empty());
    let error =
        McpConfig::from_json(r#"{"mcpServers": {}, "builtins": {"tools": {"bash": "off"}}}"#)
            .unwrap_err();
    assert_eq!(
        error.to_string(),
        "MCP config, key `builtins.tools.bash`: must be a boolean, not a string"
    );
}
