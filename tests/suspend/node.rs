//! Where the tests find the official TypeScript SDK 2.x packages (`bash .ci/test`
//! installs them into `$TOOLNEXUS_NODE_DIR`).

use std::path::{Path, PathBuf};

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
