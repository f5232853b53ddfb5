//! The Rust builtins and the contract's Python port (toolnexus==0.21.0, run as a child
//! process) side by side: the same listings, and the same outputs, `isError` and
//! metadata for a table of calls on two copies of one fixture tree. Each side's tree
//! path is replaced by `<ROOT>` and each suspension's id by `<ID>` (ids are random in
//! the Python port, derived from the call here); nothing else is normalized.

use serde_json::{Value, json};
use toolnexus::builtins::Builtins;
use toolnexus::{Answer, Context, Toolkit};

use crate::fixture::{python_port, tree};

/// How the two sides' answers to one command are compared.
#[derive(Clone, Copy)]
enum Check {
    /// Identical after normalization.
    Same,
    /// Both errors, both starting with this text (the rest is the regex engine's or the
    /// HTTP stack's own wording).
    ErrorPrefix(&'static str),
    /// The listings: OpenAI, Anthropic and MCP byte for byte; Gemini's is the Python
    /// port's schemas through this crate's Gemini profile (which leaves out
    /// `additionalProperties: false`, as Gemini's schema dialect has no such keyword).
    Listings,
}

fn call(tool: &str, args: Value) -> (Value, Check) {
    (
        json!({"op": "call", "tool": tool, "args": args}),
        Check::Same,
    )
}

fn answer(tool: &str, args: Value, answer: Value) -> (Value, Check) {
    (
        json!({"op": "call", "tool": tool, "args": args, "answer": answer}),
        Check::Same,
    )
}

fn with(check: Check, (command, _): (Value, Check)) -> (Value, Check) {
    (command, check)
}

fn table() -> Vec<(Value, Check)> {
    let patch_ok = "*** Begin Patch\n*** Add File: patched/new.txt\n+line one\n+line two\n*** Update File: docs/notes.txt\n@@\n one\n-two\n+TWO\n three\n*** Delete File: ignored.log\n*** End Patch";
    let patch_bad = "*** Begin Patch\n*** Add File: should_not_exist.txt\n+nope\n*** Update File: README.md\n@@\n-hello world\n+HELLO\n*** Update File: src/main.rs\n@@\n-this line is not there\n+x\n*** End Patch";
    let questions = json!({"questions": [
        {"question": "Which colour?", "header": "Colour", "options": ["red", "green"], "multiple": false},
        {"question": "Why?"},
        {"question": "Proceed?", "options": []}
    ]});
    vec![
        (json!({"op": "list"}), Check::Listings),
        // read: whole files, windows (past the end too), errors.
        call("read", json!({"path": "README.md"})),
        call(
            "read",
            json!({"path": "docs/notes.txt", "offset": 2, "limit": 2}),
        ),
        call(
            "read",
            json!({"path": "docs/notes.txt", "offset": 5, "limit": 10}),
        ),
        call("read", json!({"path": "docs/notes.txt", "offset": 50})),
        call(
            "read",
            json!({"path": "docs/notes.txt", "offset": 0, "limit": 2}),
        ),
        call("read", json!({"path": "docs/notes.txt", "limit": 0})),
        call(
            "read",
            json!({"path": "docs/notes.txt", "offset": 2.9, "limit": 1.5}),
        ),
        call("read", json!({"path": "docs/ünïcödé.txt"})),
        call("read", json!({"path": "link_to_readme"})),
        call("read", json!({"path": "missing.txt"})),
        call("read", json!({"path": "src"})),
        call("read", json!({"path": "blob.bin"})),
        call("read", json!({"path": ""})),
        // Byte for byte, the part's `name` included.
        call("read", json!({"path": "pixel.png"})),
        // write, then read back.
        call(
            "write",
            json!({"path": "out/new/file.txt", "content": "héllo\n"}),
        ),
        call("read", json!({"path": "out/new/file.txt"})),
        call("write", json!({"path": "src", "content": "x"})),
        // edit: repeated, missing, replaceAll, unique.
        call(
            "edit",
            json!({"path": "dup.txt", "oldString": "x = 1", "newString": "x = 2"}),
        ),
        call(
            "edit",
            json!({"path": "dup.txt", "oldString": "zzz", "newString": "q"}),
        ),
        call(
            "edit",
            json!({"path": "dup.txt", "oldString": "x = 1", "newString": "x = 3", "replaceAll": true}),
        ),
        call(
            "edit",
            json!({"path": "dup.txt", "oldString": "y = 2", "newString": "y = 4"}),
        ),
        call("read", json!({"path": "dup.txt"})),
        call(
            "edit",
            json!({"path": "missing.txt", "oldString": "a", "newString": "b"}),
        ),
        call(
            "edit",
            json!({"path": "dup.txt", "oldString": "", "newString": "b"}),
        ),
        // grep: include globs, the cap, a folder, unicode, limits.
        call("grep", json!({"pattern": "hello", "include": "*.txt"})),
        call(
            "grep",
            json!({"pattern": "hello", "include": "*.txt", "limit": 5}),
        ),
        call("grep", json!({"pattern": "h.llo", "include": "**/*.rs"})),
        call("grep", json!({"pattern": "hello", "path": "src"})),
        call("grep", json!({"pattern": "w.rld", "path": "docs"})),
        call("grep", json!({"pattern": "^$", "path": "src/nested"})),
        call("grep", json!({"pattern": "hello", "path": "link_dir"})),
        call("grep", json!({"pattern": "hello", "path": "no/such/dir"})),
        call(
            "grep",
            json!({"pattern": "hello", "include": "many/f0?.txt", "limit": 0}),
        ),
        with(
            Check::ErrorPrefix("grep: invalid regex: "),
            call("grep", json!({"pattern": "(unclosed"})),
        ),
        // glob: `**`, file-name globs, folders, the cap.
        call("glob", json!({"pattern": "**/*.txt"})),
        call("glob", json!({"pattern": "**"})),
        call("glob", json!({"pattern": "*.rs"})),
        call("glob", json!({"pattern": "src/**"})),
        call("glob", json!({"pattern": "docs/*.txt"})),
        call("glob", json!({"pattern": "**/*.txt", "limit": 3})),
        call("glob", json!({"pattern": "*.md", "path": "docs"})),
        call("glob", json!({"pattern": "f?.txt", "path": "many"})),
        call("glob", json!({"pattern": "*.txt", "limit": 100})),
        // apply_patch: add + update + delete at once, then a bad hunk that changes nothing.
        call("apply_patch", json!({"patchText": patch_ok})),
        call("read", json!({"path": "patched/new.txt"})),
        call("read", json!({"path": "docs/notes.txt"})),
        call("read", json!({"path": "ignored.log"})),
        call("apply_patch", json!({"patchText": patch_bad})),
        call("read", json!({"path": "should_not_exist.txt"})),
        call("read", json!({"path": "README.md"})),
        call("read", json!({"path": "src/main.rs"})),
        call("apply_patch", json!({"patchText": "*** Add File: x\n+1\n"})),
        call(
            "apply_patch",
            json!({"patchText": "*** Begin Patch\nnot a marker\n*** End Patch"}),
        ),
        call(
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Add File: README.md\n+again\n*** End Patch"}),
        ),
        call(
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch"}),
        ),
        call(
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Update File: dup.txt\n+appended\n*** End Patch"}),
        ),
        call("read", json!({"path": "dup.txt"})),
        // question: a suspension, with and without options, then answered.
        call("question", questions.clone()),
        answer(
            "question",
            questions,
            json!({"ok": true, "data": {"answers": ["red", "é"], "n": 1.5}}),
        ),
        call("question", json!({"questions": []})),
        // todowrite.
        call(
            "todowrite",
            json!({"todos": [
                {"id": "1", "text": "write tests", "completed": true},
                {"id": "2", "text": "ship", "completed": false}
            ]}),
        ),
        call("todowrite", json!({"todos": []})),
        // bash: output, exit codes, a signal, a folder, the timeout.
        call(
            "bash",
            json!({"command": "echo hello; echo oops 1>&2; printf 'é'"}),
        ),
        call("bash", json!({"command": "exit 3"})),
        call(
            "bash",
            json!({"command": "echo partial; exit 2", "description": "fails"}),
        ),
        call("bash", json!({"command": "pwd"})),
        call("bash", json!({"command": "pwd", "workdir": "src"})),
        call("bash", json!({"command": "kill -9 $$"})),
        call(
            "bash",
            json!({"command": "echo before; sleep 5; echo after", "timeout": 300}),
        ),
        call("bash", json!({"command": ""})),
    ]
}

/// The Rust side of one command.
async fn rust_side(
    toolkit: &Toolkit,
    index: usize,
    command: &Value,
    last: &mut Option<String>,
) -> Value {
    if command["op"] == "list" {
        return json!({
            "openai": *toolkit.to_openai(),
            "anthropic": *toolkit.to_anthropic(),
            "gemini": *toolkit.to_gemini(),
            "mcp": *toolkit.to_mcp(),
            "sources": toolkit.tools().iter().map(|t| t.source()).collect::<Vec<_>>(),
        });
    }
    // An answer goes to the call that suspended (the one before), as the loop sends it.
    let call = if command.get("answer").is_some() {
        index - 1
    } else {
        index
    };
    let mut ctx = Context::new().with_call_id(format!("call-{call}"));
    if let Some(answer) = command.get("answer") {
        let id = last.clone().expect("a suspension to answer");
        let mut reply = if answer["ok"] == true {
            Answer::accept(id)
        } else {
            Answer::decline(id, "declined")
        };
        if let Some(data) = answer.get("data") {
            reply = reply.with_data(data.clone());
        }
        ctx = ctx.with_answer(reply);
    }
    let tool = command["tool"].as_str().expect("a tool");
    let result = toolkit.execute(tool, command["args"].clone(), ctx).await;
    if let Some(request) = result.pending_request() {
        *last = Some(request.id.clone());
    }
    serde_json::to_value(&result).expect("a result as JSON")
}

/// The JSON text of a value, keys in their order: what is compared, so a key out of
/// place is a difference (`Value`'s own `==` ignores the order of keys).
fn bytes(value: &Value) -> String {
    serde_json::to_string(value).expect("JSON")
}

fn listings_agree(py: &Value, rs: &Value) -> bool {
    let same = |key: &str| bytes(&py[key]) == bytes(&rs[key]);
    let gemini_of_python: Vec<Value> = py["gemini"][0]["functionDeclarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .map(|declaration| {
            let mut declaration = declaration.clone();
            declaration["parameters"] =
                toolnexus::schema::profile::gemini(&declaration["parameters"])
                    .expect("a Gemini schema");
            declaration
        })
        .collect();
    let gemini = json!([{ "functionDeclarations": gemini_of_python }]);
    for key in ["openai", "anthropic", "mcp", "sources"] {
        assert!(
            same(key),
            "the {key} listing differs:\n  python: {}\n  rust:   {}",
            py[key],
            rs[key]
        );
    }
    assert_eq!(
        gemini.to_string(),
        rs["gemini"].to_string(),
        "the Gemini listing"
    );
    true
}

/// `<ROOT>` for the tree's path, `<ID>` for a suspension's id.
fn normalize(value: &Value, root: &std::path::Path) -> Value {
    let text = value
        .to_string()
        .replace(&*root.to_string_lossy(), "<ROOT>");
    let mut value: Value = serde_json::from_str(&text).expect("JSON");
    if let Some(id) = value.pointer_mut("/metadata/pending/id") {
        *id = json!("<ID>");
    }
    value
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_port_and_these_builtins_agree_call_for_call() {
    let (py_tree, rs_tree) = (tree("py"), tree("rs"));
    let cases = table();
    let commands: Vec<Value> = cases.iter().map(|(command, _)| command.clone()).collect();
    let py_config = json!({"base_dir": py_tree.path()});
    let python = tokio::task::spawn_blocking(move || python_port(&py_config, &commands));

    let toolkit = Toolkit::new().with_builtins(Builtins::all().base_dir(rs_tree.path()));
    let mut last = None;
    let mut rust = Vec::new();
    for (index, (command, _)) in cases.iter().enumerate() {
        rust.push(rust_side(&toolkit, index, command, &mut last).await);
    }
    let python = python.await.expect("the Python port");

    let mut differences = Vec::new();
    for (index, ((command, check), (py, rs))) in
        cases.iter().zip(python.iter().zip(&rust)).enumerate()
    {
        let py = normalize(py, py_tree.path());
        let rs = normalize(rs, rs_tree.path());
        let agree = match check {
            Check::Same => bytes(&py) == bytes(&rs),
            Check::Listings => listings_agree(&py, &rs),
            Check::ErrorPrefix(prefix) => {
                let starts = |v: &Value| {
                    v["isError"] == true
                        && v["output"].as_str().is_some_and(|o| o.starts_with(prefix))
                };
                starts(&py) && starts(&rs)
            }
        };
        if !agree {
            differences.push(format!(
                "#{index} {command}\n  python: {py}\n  rust:   {rs}"
            ));
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {} differ:\n{}",
        differences.len(),
        cases.len(),
        differences.join("\n")
    );
}

/// The differences the guide's chapter writes down, held to: each side does what the
/// chapter says it does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_differences_hold() {
    let (py_tree, rs_tree) = (tree("py-diff"), tree("rs-diff"));
    for dir in [&py_tree, &rs_tree] {
        dir.write("nul.txt", "text\0with a NUL\n");
    }
    let file_url = |dir: &std::path::Path| format!("file://{}/README.md", dir.display());
    let cases = |dir: &std::path::Path| {
        vec![
            json!({"op": "call", "tool": "grep", "args": {"pattern": "hello"}}),
            json!({"op": "call", "tool": "read", "args": {"path": "nul.txt"}}),
            json!({"op": "call", "tool": "write", "args": {"path": "five.txt", "content": 5}}),
            json!({"op": "call", "tool": "webfetch", "args": {"url": file_url(dir), "format": "html"}}),
        ]
    };
    let (py_commands, rs_commands) = (cases(py_tree.path()), cases(rs_tree.path()));
    let py_config = json!({"base_dir": py_tree.path()});
    let py = tokio::task::spawn_blocking(move || python_port(&py_config, &py_commands))
        .await
        .expect("the Python port");
    let toolkit = Toolkit::new().with_builtins(Builtins::all().base_dir(rs_tree.path()));
    let mut rs = Vec::new();
    let mut last = None;
    for (index, command) in rs_commands.iter().enumerate() {
        rs.push(rust_side(&toolkit, index, command, &mut last).await);
    }
    let text = |v: &Value| v["output"].as_str().unwrap_or_default().to_owned();

    // grep: a file that is not UTF-8 stops the Python port's search; here it is skipped.
    assert!(
        py[0]["isError"] == true && text(&py[0]).contains("codec can't decode"),
        "{}",
        py[0]
    );
    assert!(
        rs[0]["isError"] == false && text(&rs[0]).starts_with("README.md:2:hello world\n"),
        "{}",
        rs[0]
    );
    // read: a NUL byte is text to the Python port, binary here.
    assert_eq!(text(&py[1]), "text\0with a NUL\n");
    assert_eq!(
        text(&rs[1]),
        "read: nul.txt is a binary file (it contains NUL bytes), not text"
    );
    // A number where a string belongs: coerced there, refused here.
    assert_eq!(text(&py[2]), "Wrote 1 bytes to five.txt");
    assert_eq!(
        text(&rs[2]),
        "write: content must be a string, not a number"
    );
    // file:// URLs: fetched by the Python port's urllib, refused here.
    assert_eq!(text(&py[3]), "# Fixture\nhello world\n");
    assert!(
        rs[3]["isError"] == true && text(&rs[3]).ends_with("is not an http:// or https:// URL"),
        "{}",
        rs[3]
    );
}
