"""Call the conformance example's logging and progress tools with the official Python MCP
SDK and print, as JSON, what reached the client: the negotiated protocol version, the log
notifications after `logging/setLevel` to `warning` and to `debug`, and the progress
notifications of one call.

    python talk_back.py URL

The Rust test (tests/tool_talking_back.rs) makes the assertions.
"""

import json
import sys
import warnings

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


# Logging is deprecated by 2026-07-28 (SEP-2577); this client negotiates an earlier version.
warnings.filterwarnings("ignore", message=".*deprecated as of 2026-07-28.*")


async def main(url: str) -> None:
    logs: list[dict] = []

    async def on_log(params) -> None:
        logs.append({"level": params.level, "data": params.data})

    report: dict = {}
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            init = await session.initialize()
            version = init.protocol_version
            report["protocolVersion"] = version
            legacy = version < "2026-07-28"
            if legacy:
                await session.set_logging_level("warning")
            await session.call_tool("test_tool_with_logging", {})
            report["logsAtWarning"] = list(logs)
            logs.clear()
            if legacy:
                await session.set_logging_level("debug")
            await session.call_tool("test_tool_with_logging", {})
            report["logsAtDebug"] = list(logs)
            progress: list[list] = []

            async def on_progress(done, total, message) -> None:
                progress.append([done, total, message])

            await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
            report["progress"] = progress
    print(json.dumps(report))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
