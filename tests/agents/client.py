"""Call a sub-agent served over MCP (tests/agents/server.rs) with the official Python MCP
SDK (2.3), and print what happened as JSON; the Rust test (tests/agents.rs) asserts.

    python client.py complete MODE VERDICT stdio COMMAND [ARG...]
    python client.py complete MODE VERDICT http URL
    python client.py tamper URL

`complete` (MODE `2026-07-28` or `legacy`, VERDICT `accept` or `decline`) calls the agent
tool `platform` through the SDK's own machinery and answers the approval asked two agents
down with an `elicitation_callback`: in 2026-07-28 the SDK's retry driver fulfils the
`input_required` result, in legacy its session answers `elicitation/create`.

`tamper` drives the retry by hand (`allow_input_required=True`): it replays the sealed
state with a flipped byte and with other arguments, then once correctly.
"""

import base64
import json
import os
import sys

import anyio
from mcp import types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

ARGS = {"prompt": "ship v2"}


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def outcome(result):
    return {
        "text": "\n".join(c.text for c in result.content if c.type == "text"),
        "isError": bool(result.is_error),
    }


async def complete(mode: str, verdict: str, target) -> dict:
    seen = []

    async def answer(context, params):
        seen.append(dump(params))
        return types.ElicitResult(action=verdict)

    async with Client(target, mode=mode, elicitation_callback=answer) as client:
        result = outcome(await client.call_tool("platform", ARGS))
        protocol = client.session.protocol_version
    return {"protocol": protocol, "result": result, "elicitations": seen}


def sealed_bytes(state: str) -> str:
    """The state's body as text (unreadable if sealed)."""
    _, _, body = state.partition(".")
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    return raw.decode("latin-1")


def flip(state: str) -> str:
    """The state with one byte of its sealed body flipped."""
    prefix, _, body = state.partition(".")
    raw = bytearray(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw[len(raw) // 2] ^= 0x01
    return prefix + "." + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


async def retry(client, args, key, state, action="accept"):
    try:
        result = await client.session.call_tool(
            "platform", args, allow_input_required=True,
            input_responses={key: {"action": action}}, request_state=state,
        )
    except MCPError as error:
        return {"error": {"code": error.code, "message": error.message, "data": error.data}}
    if isinstance(result, types.InputRequiredResult):
        return {"inputRequired": True}
    return outcome(result)


async def tamper(url: str) -> dict:
    report = {}
    async with Client(url, mode="2026-07-28") as client:
        first = await client.session.call_tool("platform", ARGS, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult), first
        (key, request), = first.input_requests.items()
        state = first.request_state
        report["key"] = key
        report["request"] = dump(request)
        report["state"] = state
        report["stateBytes"] = sealed_bytes(state)
        report["flipped"] = await retry(client, ARGS, key, flip(state))
        report["other_arguments"] = await retry(client, {"prompt": "ship v3"}, key, state)
        report["approved"] = await retry(client, ARGS, key, state)
    return report


async def main(argv: list[str]) -> None:
    if len(argv) >= 5 and argv[0] == "complete" and argv[3] == "stdio":
        target = StdioServerParameters(command=argv[4], args=argv[5:], env=dict(os.environ))
        report = await complete(argv[1], argv[2], target)
    elif len(argv) == 5 and argv[0] == "complete" and argv[3] == "http":
        report = await complete(argv[1], argv[2], argv[4])
    elif len(argv) == 2 and argv[0] == "tamper":
        report = await tamper(argv[1])
    else:
        sys.exit(__doc__)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
