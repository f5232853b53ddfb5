"""Drive a streamable-HTTP MCP server with an older official Python SDK (1.9, protocol
2025-03-26) and print what it saw as JSON; its log goes to stderr.

    python old_client.py URL

Clients of that protocol version do not know priming events (an event id with empty
data, added in 2025-11-25) and log a parse error for each: tests/mcp_old_clients.rs checks
that the server sends them none, and that the session ends without a complaint.
"""

import json
import logging
import sys

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url: str) -> None:
    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool("add", {"a": 2, "b": 3})
    print(json.dumps({
        "protocolVersion": init.protocolVersion,
        "tools": [tool.name for tool in tools.tools],
        "add": result.content[0].text,
    }))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    anyio.run(main, sys.argv[1])
