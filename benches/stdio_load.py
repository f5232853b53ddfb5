#!/usr/bin/env python3
"""4,000 concurrent calls over stdio: toolnexus's server against plain rmcp's, in one run.

    python3 benches/stdio_load.py [ROUNDS] [PEER]

Builds `tests/stdio/peer.rs` (the `stdio_peer` example) in release, then runs the
official TypeScript SDK 1.32 client (`tests/stdio/client.cjs`, `$TOOLNEXUS_NODE_MODULES`)
against each server in turn, interleaved, ROUNDS times (default 3): one connection, 20
rounds of 200 concurrent `add` calls with a 5 s timeout each, every answer checked. Prints
the wall time of the 4,000 calls (median over the runs), the calls lost, and the ratio
toolnexus / rmcp (target: <= 1.2, 0 lost). The servers are `McpServer::serve_stdio` (on
non-blocking pipes) and rmcp 3.11 on its plain `stdio()` (Tokio stdin/stdout) and on its
`stdio_pipes()`. PEER: an already built release `stdio_peer`, to skip the build.
"""

import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVERS = ["toolnexus", "rmcp", "rmcp-pipes"]


def build() -> str:
    out = subprocess.run(
        ["cargo", "build", "--release", "--quiet", "-p", "toolnexus-suite", "--all-features",
         "--example", "stdio_peer", "--message-format", "json-render-diagnostics"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("target", {}).get("name") == "stdio_peer" and msg.get("executable"):
            return msg["executable"]
    raise SystemExit("cargo did not report the stdio_peer executable")


def run(peer: str, server: str) -> dict:
    modules = os.environ.get("TOOLNEXUS_NODE_MODULES", os.path.join(ROOT, "target/node/node_modules"))
    out = subprocess.run(
        ["node", os.path.join(ROOT, "tests/stdio/client.cjs"), "200", "20", "0", peer, server],
        env={**os.environ, "NODE_PATH": modules}, check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])["load"]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    peer = sys.argv[2] if len(sys.argv) > 2 else build()
    seconds = {s: [] for s in SERVERS}
    lost = {s: 0 for s in SERVERS}
    wrong = {s: 0 for s in SERVERS}
    for _ in range(rounds):
        for server in SERVERS:
            report = run(peer, server)
            assert report["calls"] == 4000, report
            seconds[server].append(report["seconds"])
            lost[server] += report["lost"]
            wrong[server] += report["wrong"]
    base = statistics.median(seconds["rmcp"])
    print(f"| server | 4,000 calls (median of {rounds}) | runs | lost | wrong | vs rmcp stdio() |")
    print("|---|---|---|---|---|---|")
    for server in SERVERS:
        med = statistics.median(seconds[server])
        runs = ", ".join(f"{s:.2f}" for s in seconds[server])
        print(f"| {server} | {med:.2f} s | {runs} | {lost[server]} | {wrong[server]} | {med / base:.2f}x |")


if __name__ == "__main__":
    main()
