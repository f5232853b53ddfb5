"""Call the `slow` tool with the official Python MCP SDK (2.3) and print its answer as
JSON; the Rust test (tests/security_http.rs) cuts the call's stream in between, so the
SDK must resume it (GET with Last-Event-ID) to get the answer.

    python resume.py MODE URL        # MODE: legacy (a session) or 2026-07-28 (none)
"""

import json
import sys

import anyio
from mcp.client import Client


async def main(mode: str, url: str) -> None:
    progress = []

    async def on_progress(done, total, message):
        progress.append(message)

    async with Client(url, mode=mode) as client:
        # With a progress token the tool's first progress opens the stream (at 2026-07-28
        # a stream starts with its first message), so there is a stream to cut.
        result = await client.call_tool("slow", {"ms": 1500}, progress_callback=on_progress)
        text = "\n".join(c.text for c in result.content if c.type == "text")
        protocol = client.session.protocol_version
    report = {"protocol": protocol, "text": text, "isError": bool(result.is_error), "progress": progress}
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    anyio.run(main, *sys.argv[1:])
