//! Where the test suite finds a built example.

use std::path::PathBuf;

/// The path of a built example, next to the running test binary
/// (`target/<profile>/examples`; `cargo test` builds every example first).
pub(crate) fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "example {name} is not built at {}",
        path.display()
    );
    path
}
