//! Running a Node script of the suite with the official MCP TypeScript SDK, and finding
//! the SDK's 2.x packages (`bash .ci/test` installs them into `$TOOLNEXUS_NODE_DIR`).

#![allow(dead_code)] // each test file uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;

/// `node SCRIPT` with `NODE_PATH` at `$TOOLNEXUS_NODE_MODULES` (installed by `.ci/test`);
/// panics when it is not set: the tests that need the SDK do not skip.
pub(crate) fn node_command(script: impl AsRef<std::ffi::OsStr>) -> Command {
    let modules = std::env::var("TOOLNEXUS_NODE_MODULES").unwrap_or_else(|_| {
        panic!(
            "TOOLNEXUS_NODE_MODULES is not set: this test drives the official MCP TypeScript \
             SDK and does not skip. Run it through .ci/test, which installs the SDK"
        )
    });
    let mut command = Command::new(std::env::var("TOOLNEXUS_NODE").unwrap_or("node".into()));
    command.env("NODE_PATH", modules).arg(script);
    command
}

/// The node_modules that hold `@modelcontextprotocol/{package}` 2.x.
pub(crate) fn node_modules(package: &str) -> PathBuf {
    let dir = std::env::var_os("TOOLNEXUS_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/node/node_modules"));
    assert!(
        dir.join("@modelcontextprotocol").join(package).is_dir(),
        "the MCP TypeScript SDK 2.x {package} is missing from {} (`bash .ci/test` installs \
         @modelcontextprotocol/{package}@2.4.0; set TOOLNEXUS_NODE_MODULES)",
        dir.display()
    );
    dir
}
