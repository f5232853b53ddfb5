//! For benches whose binary is also the MCP server it measures: the bench starts itself
//! again with `TOOLNEXUS_BENCH_SERVE=1`, so client and server are two processes joined by
//! stdio pipes, as in production.

use toolnexus::Toolkit;
use toolnexus::mcp::{McpClient, McpClientBuilder, McpServer};

const SERVE: &str = "TOOLNEXUS_BENCH_SERVE";

/// A client of this binary started again as the server.
pub fn itself() -> McpClientBuilder {
    let exe = std::env::current_exe().expect("the bench binary");
    McpClient::stdio(exe, Vec::<String>::new()).env(SERVE, "1")
}

/// Runs the bench, or, in the copy started by [`itself`], serves `toolkit` over stdio.
pub fn main(toolkit: fn() -> Toolkit, bench: fn(&mut criterion::Criterion)) {
    if std::env::var_os(SERVE).is_some() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(McpServer::new(toolkit()).serve_stdio())
            .expect("served");
        return;
    }
    let mut criterion = criterion::Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
