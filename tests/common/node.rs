//! Running a Node script of the suite with the official MCP TypeScript SDK.

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
