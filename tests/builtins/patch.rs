//! `apply_patch` is all or nothing: operations on one path compose, a file that cannot
//! be read is an error (and never removed by a rollback), each write is a temporary
//! file renamed into place (keeping the file's permissions), and a failure half-way
//! puts back what was already written.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;

use serde_json::json;
use toolnexus::builtins::Builtins;
use toolnexus::{Context, ToolResult, Toolkit};

use crate::fixture::Scratch;

async fn patch(toolkit: &Toolkit, body: &str) -> ToolResult {
    let text = format!("*** Begin Patch\n{body}\n*** End Patch");
    toolkit
        .execute(
            "apply_patch",
            json!({"patchText": text}),
            Context::default(),
        )
        .await
}

fn read(dir: &Scratch, rel: &str) -> Option<String> {
    fs::read_to_string(dir.path().join(rel)).ok()
}

#[tokio::test]
async fn operations_on_one_path_compose() {
    for confined in [false, true] {
        let dir = Scratch::new("patch-compose");
        dir.write("a.txt", "one\ntwo\n");
        dir.write("old.txt", "old\n");
        let builtins = if confined {
            Builtins::all().root(dir.path())
        } else {
            Builtins::all().base_dir(dir.path())
        };
        let toolkit = Toolkit::new().with_builtins(builtins);

        // An update, then a move of the same file with a second hunk.
        let moved = patch(
            &toolkit,
            "*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: a.txt\n*** Move to: sub/b.txt\n@@\n-two\n+TWO",
        )
        .await;
        assert!(!moved.is_error, "{}", moved.output);
        assert_eq!(moved.output, "Applied patch: 2 file operations");
        assert_eq!(read(&dir, "a.txt"), None);
        assert_eq!(read(&dir, "sub/b.txt").as_deref(), Some("ONE\nTWO\n"));

        // Add then update; delete then add again; update twice.
        let composed = patch(
            &toolkit,
            "*** Add File: new.txt\n+fresh\n*** Update File: ./new.txt\n@@\n-fresh\n+updated\n\
             *** Delete File: old.txt\n*** Add File: old.txt\n+replaced\n\
             *** Update File: sub/b.txt\n@@\n-ONE\n+1\n*** Update File: sub/b.txt\n@@\n-TWO\n+2",
        )
        .await;
        assert!(!composed.is_error, "{}", composed.output);
        assert_eq!(read(&dir, "new.txt").as_deref(), Some("updated"));
        assert_eq!(read(&dir, "old.txt").as_deref(), Some("replaced"));
        assert_eq!(read(&dir, "sub/b.txt").as_deref(), Some("1\n2\n"));

        // A delete then an update of the same file: the update finds nothing.
        let gone = patch(
            &toolkit,
            "*** Delete File: new.txt\n*** Update File: new.txt\n@@\n-updated\n+x",
        )
        .await;
        assert!(gone.is_error);
        assert_eq!(
            gone.output,
            format!(
                "apply_patch: file not found: {}",
                dir.path().join("new.txt").display()
            )
        );
        assert_eq!(
            read(&dir, "new.txt").as_deref(),
            Some("updated"),
            "nothing applied"
        );
        // A move onto a file that exists is refused.
        let onto = patch(
            &toolkit,
            "*** Update File: new.txt\n*** Move to: old.txt\n+x",
        )
        .await;
        assert!(
            onto.is_error && onto.output.contains("file already exists"),
            "{}",
            onto.output
        );
    }
}

#[tokio::test]
async fn writes_are_renamed_into_place_keeping_permissions() {
    let dir = Scratch::new("patch-rename");
    dir.write("run.sh", "echo one\n");
    fs::set_permissions(dir.path().join("run.sh"), fs::Permissions::from_mode(0o751)).unwrap();
    // A second name for the same file: an in-place write would change it too.
    fs::hard_link(dir.path().join("run.sh"), dir.path().join("alias.sh")).unwrap();
    let toolkit = Toolkit::new().with_builtins(Builtins::all().root(dir.path()));
    let done = patch(
        &toolkit,
        "*** Update File: run.sh\n@@\n-echo one\n+echo two",
    )
    .await;
    assert!(!done.is_error, "{}", done.output);
    assert_eq!(read(&dir, "run.sh").as_deref(), Some("echo two\n"));
    assert_eq!(
        read(&dir, "alias.sh").as_deref(),
        Some("echo one\n"),
        "a new file took the name; the old one is untouched"
    );
    let mode = fs::metadata(dir.path().join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o751);
    // No temporary file is left behind.
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["alias.sh", "run.sh"]);
}

#[tokio::test]
async fn a_failure_half_way_puts_everything_back() {
    for confined in [false, true] {
        let dir = Scratch::new("patch-rollback");
        dir.write("a.txt", "a\n");
        dir.write("b.txt", "b\n");
        dir.write("blocker", "a file where a folder is needed\n");
        dir.write("huge.txt", "x".repeat(200));
        let builtins = if confined {
            Builtins::all().root(dir.path())
        } else {
            Builtins::all().base_dir(dir.path())
        };
        let toolkit = Toolkit::new().with_builtins(builtins.read_limit(100));

        // a.txt is written, then blocker/x cannot be: a.txt is put back, b.txt kept,
        // the folder made for new/ removed.
        let failed = patch(
            &toolkit,
            "*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new/c.txt\n+c\n\
             *** Delete File: b.txt\n*** Add File: blocker/x.txt\n+x",
        )
        .await;
        assert!(failed.is_error, "{}", failed.output);
        assert!(
            failed.output.contains("Not a directory"),
            "{}",
            failed.output
        );
        assert_eq!(read(&dir, "a.txt").as_deref(), Some("a\n"));
        assert_eq!(read(&dir, "b.txt").as_deref(), Some("b\n"));
        assert!(!dir.path().join("new").exists());

        // A file that cannot be loaded is an error before anything is written, and is
        // never removed.
        for body in [
            "*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: huge.txt",
            "*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: huge.txt\n+y",
        ] {
            let refused = patch(&toolkit, body).await;
            assert!(
                refused.is_error && refused.output.contains("huge.txt is too large"),
                "{}",
                refused.output
            );
            assert_eq!(
                read(&dir, "huge.txt").as_deref(),
                Some("x".repeat(200).as_str())
            );
            assert_eq!(read(&dir, "a.txt").as_deref(), Some("a\n"));
        }
    }
}
