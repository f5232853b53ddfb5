//! `read`, `edit` and `grep` load at most `Builtins::read_limit` bytes of a file, and
//! say so past it.

use serde_json::json;
use toolnexus::builtins::Builtins;
use toolnexus::{Context, Toolkit};

use crate::fixture::Scratch;

#[tokio::test]
async fn a_file_past_the_read_limit_is_not_loaded() {
    let dir = Scratch::new("limits");
    dir.write("small.txt", "needle ".repeat(14) + "\n"); // 99 bytes
    dir.write("big.txt", "needle ".repeat(20)); // 140 bytes
    for builtins in [
        Builtins::all().base_dir(dir.path()).read_limit(100),
        Builtins::all().root(dir.path()).read_limit(100),
    ] {
        let toolkit = Toolkit::new().with_builtins(builtins);
        let run = |tool: &'static str, args: serde_json::Value| {
            let toolkit = &toolkit;
            async move { toolkit.execute(tool, args, Context::default()).await }
        };
        let small = run("read", json!({"path": "small.txt"})).await;
        assert!(!small.is_error, "{}", small.output);
        let big = run("read", json!({"path": "big.txt"})).await;
        assert!(big.is_error);
        assert_eq!(
            big.output,
            "read: big.txt is too large: 140 bytes or more, and this tool loads at most 100 \
             bytes of a file"
        );
        let windowed = run("read", json!({"path": "big.txt", "offset": 1, "limit": 1})).await;
        assert!(windowed.is_error, "{}", windowed.output);
        let edit = run(
            "edit",
            json!({"path": "big.txt", "oldString": "needle", "newString": "pin", "replaceAll": true}),
        )
        .await;
        assert!(
            edit.is_error && edit.output.starts_with("edit: big.txt is too large"),
            "{}",
            edit.output
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("big.txt")).unwrap(),
            "needle ".repeat(20)
        );
        let grep = run("grep", json!({"pattern": "needle"})).await;
        assert!(!grep.is_error);
        assert_eq!(
            grep.output,
            format!(
                "small.txt:1:{}\n[not searched, larger than 100 bytes: big.txt]",
                "needle ".repeat(14)
            )
        );
        assert_eq!(grep.metadata.unwrap()["count"], 1);
        let patch = run(
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Delete File: big.txt\n*** End Patch"}),
        )
        .await;
        assert!(patch.is_error, "{}", patch.output);
        assert!(dir.path().join("big.txt").exists(), "not deleted");
    }
    assert_eq!(toolnexus::builtins::DEFAULT_READ_LIMIT, 16 << 20);
}
