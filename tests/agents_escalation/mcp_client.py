"""The official Python MCP SDK (2.3) calls an agent tree served as one MCP tool, and
answers the approval its grandchild asks for; prints what it saw as one JSON object.

usage: mcp_client.py MODE URL

MODE `2026-07-28`: the SDK's retry driver fulfils the `input_required` result; `legacy`:
its session answers `elicitation/create` during the call. Either way the elicitation
callback accepts, and records the parameters it was given (with their `_meta`).
"""

import json
import sys

import anyio
from mcp import types
from mcp.client import Client


async def main(mode: str, url: str) -> None:
    seen = []

    async def answer(context, params):
        seen.append(params.model_dump(mode="json", by_alias=True, exclude_none=True))
        return types.ElicitResult(action="accept", content={})

    async with Client(url, mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("lead", {"prompt": "Ship the release."})
        protocol = client.session.protocol_version
    print(json.dumps({
        "protocol": protocol,
        "text": "\n".join(c.text for c in result.content if c.type == "text"),
        "isError": bool(result.is_error),
        "elicitations": seen,
    }))


anyio.run(main, sys.argv[1], sys.argv[2])
