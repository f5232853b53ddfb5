"""Call tools with typed output through the official Python MCP SDK and print what it saw.

    python client.py URL CALLS_JSON

URL is a streamable-HTTP endpoint; CALLS_JSON is a list of [label, tool, arguments]. The
SDK checks each successful result's `structuredContent` against the tool's listed
`outputSchema` itself (`ClientSession.call_tool`): a call it rejects is reported as
`{"error": message}`, any other as `{"result": ...}`. The Rust test (tests/loop_typed_output.rs)
makes the assertions.
"""

import json
import sys

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(url: str, calls: list) -> None:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            report = {"tools": [dump(tool) for tool in tools.tools], "calls": {}}
            for label, name, arguments in calls:
                try:
                    result = await session.call_tool(name, arguments)
                    report["calls"][label] = {"result": dump(result)}
                except Exception as error:  # the SDK's validation raises RuntimeError
                    report["calls"][label] = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    anyio.run(main, sys.argv[1], json.loads(sys.argv[2]))
