"""Drive a server whose tools suspend with the official Python MCP SDK (2.3), and print
what happened as JSON; the Rust test (tests/mcp_server_suspend.rs) makes the assertions.

    python client.py complete MODE stdio COMMAND [ARG...]
    python client.py complete MODE http URL
    python client.py tamper URL_A URL_B URL_C

`complete` (MODE `2026-07-28` or `legacy`) calls every tool through the SDK's own
machinery, answering with an `elicitation_callback`: in 2026-07-28 the SDK's retry driver
fulfils the `input_required` results, in legacy its session answers `elicitation/create`.

`tamper` drives the retry by hand (`allow_input_required=True`) on 2026-07-28 servers: A
and C share a key and a store, B has another key, C's states expire at once. It replays
states with a flipped byte, with other arguments, to another tool, from another key, and
after expiry, then once correctly, then again on both.
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


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def outcome(result):
    return {
        "text": "\n".join(c.text for c in result.content if c.type == "text"),
        "isError": bool(result.is_error),
    }


async def complete(mode: str, target) -> dict:
    seen = []

    async def answer(context, params):
        seen.append(dump(params))
        message = params.message
        if "keep" in message:
            return types.ElicitResult(action="decline")
        if params.mode == "url":
            return types.ElicitResult(action="accept")
        schema = params.requested_schema
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        if "size" in properties:
            return types.ElicitResult(action="accept", content={"size": "l", "toppings": ["olive"]})
        if "answer" in properties:
            return types.ElicitResult(action="accept", content={"answer": "prod"})
        return types.ElicitResult(action="accept", content={})

    calls = {}
    async with Client(target, mode=mode, elicitation_callback=answer) as client:
        for label, name, args in [
            ("input", "deploy", {"service": "api"}),
            ("approval", "delete_repo", {"name": "scratch"}),
            ("authorization", "connect_account", {}),
            ("schema", "pick", {}),
            ("declined", "delete_repo", {"name": "keep"}),
            ("unsendable", "ship", {}),
        ]:
            try:
                calls[label] = outcome(await client.call_tool(name, args))
            except MCPError as error:
                calls[label] = {"error": error.message}
        protocol = client.session.protocol_version
    return {"protocol": protocol, "calls": calls, "elicitations": seen}


def flip(state: str) -> str:
    """The state with one byte of its sealed body flipped."""
    prefix, _, body = state.partition(".")
    raw = bytearray(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw[len(raw) // 2] ^= 0x01
    return prefix + "." + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


async def ask(client, name, args):
    first = await client.session.call_tool(name, args, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    (key, request), = first.input_requests.items()
    return key, dump(request), first.request_state


async def retry(client, name, args, key, state, action="accept", content=None):
    response = {"action": action}
    if content is not None:
        response["content"] = content
    try:
        result = await client.session.call_tool(
            name, args, allow_input_required=True, input_responses={key: response}, request_state=state
        )
    except MCPError as error:
        return {"error": {"code": error.code, "message": error.message, "data": error.data}}
    if isinstance(result, types.InputRequiredResult):
        return {"inputRequired": True}
    return outcome(result)


async def tamper(url_a: str, url_b: str, url_c: str) -> dict:
    report = {}
    repo = {"name": "prod-db"}
    async with (
        Client(url_a, mode="2026-07-28") as a,
        Client(url_b, mode="2026-07-28") as b,
        Client(url_c, mode="2026-07-28") as c,
    ):
        key, request, state = await ask(a, "delete_repo", repo)
        report["request"] = {"key": key, "request": request, "state": state}
        report["flipped"] = await retry(a, "delete_repo", repo, key, flip(state))
        report["other_arguments"] = await retry(a, "delete_repo", {"name": "scratch"}, key, state)
        report["other_tool"] = await retry(a, "deploy", {"service": "api"}, key, state)
        b_key, _, b_state = await ask(b, "delete_repo", repo)
        report["other_key"] = await retry(a, "delete_repo", repo, b_key, b_state)
        c_key, _, c_state = await ask(c, "delete_repo", repo)
        await anyio.sleep(0.05)
        report["expired"] = await retry(c, "delete_repo", repo, c_key, c_state)
        report["no_state"] = await retry(a, "delete_repo", repo, key, None)
        no_key, _, no_state = await ask(a, "delete_repo", repo)
        report["declined"] = await retry(a, "delete_repo", repo, no_key, no_state, action="decline")
        # A replica with the same key (and store) runs A's state once; then neither does.
        report["replica"] = await retry(c, "delete_repo", repo, key, state)
        report["replayed"] = await retry(a, "delete_repo", repo, key, state)
        report["replayed_there"] = await retry(c, "delete_repo", repo, key, state)
        # An input tool by hand: the answer's one field reaches the tool.
        d_key, _, d_state = await ask(a, "deploy", {"service": "web"})
        report["input"] = await retry(a, "deploy", {"service": "web"}, d_key, d_state, content={"answer": "eu"})
    return report


async def main(argv: list[str]) -> None:
    if len(argv) >= 4 and argv[0] == "complete" and argv[2] == "stdio":
        target = StdioServerParameters(command=argv[3], args=argv[4:], env=dict(os.environ))
        report = await complete(argv[1], target)
    elif len(argv) == 4 and argv[0] == "complete" and argv[2] == "http":
        report = await complete(argv[1], argv[3])
    elif len(argv) == 4 and argv[0] == "tamper":
        report = await tamper(*argv[1:])
    else:
        sys.exit(__doc__)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
