"""Drive a stdio MCP server with the official Python MCP SDK, for tests/mcp_stdio.rs, and
print one JSON report (the same shape as client.cjs):

    python client.py CONCURRENCY ROUNDS BIG_BYTES COMMAND [ARG...]

1. load: ROUNDS rounds of CONCURRENCY concurrent `add` calls over one connection, each
   with a 5 s timeout; every answer is checked.
2. over-long requests (BIG_BYTES of argument; skipped when 0): a `tools/call` made by the
   SDK's session (it writes the id first), then, through the SDK's stdio streams, a
   request and a notification (no id) of that size, each followed by a ping.
"""

import json
import sys
import time

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCNotification, JSONRPCRequest

CALL_TIMEOUT = 5.0


async def load(concurrency: int, rounds: int, big: int, params) -> dict:
    report = {"calls": 0, "correct": 0, "wrong": 0, "lost": 0, "errors": []}
    started = time.monotonic()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(a: int, b: int) -> None:
                report["calls"] += 1
                try:
                    result = await session.call_tool(
                        "add", {"a": a, "b": b}, read_timeout_seconds=CALL_TIMEOUT
                    )
                    text = result.content[0].text if result.content else None
                    report["correct" if text == str(a + b) else "wrong"] += 1
                except Exception as error:  # a timeout or any other failure: lost
                    report["lost"] += 1
                    if len(report["errors"]) < 5:
                        report["errors"].append(repr(error))

            for round_ in range(rounds):
                async with anyio.create_task_group() as group:
                    for i in range(concurrency):
                        group.start_soon(call, round_ * 100000 + i, i * 7)
            report["seconds"] = time.monotonic() - started
            if big > 0:
                try:
                    await session.call_tool(
                        "add",
                        {"a": 1, "b": 2, "pad": "x" * big},
                        read_timeout_seconds=CALL_TIMEOUT,
                    )
                    report["big_call"] = {"result": "answered"}
                except MCPError as error:
                    report["big_call"] = {"code": error.code, "message": error.message}
                except Exception as error:
                    report["big_call"] = {"code": None, "message": repr(error)}
    return report


async def raw(big: int, params) -> dict:
    report = {}
    async with stdio_client(params) as (read, write):

        async def send(message) -> None:
            await write.send(SessionMessage(message))

        async def answer():
            with anyio.move_on_after(CALL_TIMEOUT):
                message = await read.receive()
                if isinstance(message, Exception):
                    return {"sdk_error": repr(message)}
                return message.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
            return None

        await send(
            JSONRPCRequest(
                jsonrpc="2.0",
                id=0,
                method="initialize",
                params={
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            )
        )
        await answer()
        await send(JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized"))
        pad = "x" * big
        cases = {
            "id_first": JSONRPCRequest(
                jsonrpc="2.0",
                id="first",
                method="tools/call",
                params={"name": "add", "arguments": {"a": 1, "b": 2, "pad": pad}},
            ),
            "id_absent": JSONRPCNotification(
                jsonrpc="2.0",
                method="notifications/message",
                params={"level": "info", "data": pad},
            ),
        }
        ping = 100
        for name, message in cases.items():
            # The ping right behind it: once it is answered, a message without an id has
            # had its answer, if any, so nothing is waited for with a timeout.
            await send(message)
            ping += 1
            await send(JSONRPCRequest(jsonrpc="2.0", id=ping, method="ping"))
            # A server may answer the ping first: wait for the message's own id too.
            own = getattr(message, "id", None)
            answers, pinged = [], False
            while not pinged or (own is not None and all(a.get("id") != own for a in answers)):
                got = await answer()
                if got is None:
                    break
                if got.get("id") == ping:
                    pinged = True
                else:
                    answers.append(got)
            keep = ("id", "error", "result", "sdk_error")
            report[name] = {
                "answers": [{k: v for k, v in a.items() if k in keep} for a in answers],
                "ping_answered": pinged,
            }
    return report


async def main(argv: list[str]) -> None:
    concurrency, rounds, big = int(argv[0]), int(argv[1]), int(argv[2])
    params = StdioServerParameters(command=argv[3], args=argv[4:])
    report = {"load": await load(concurrency, rounds, big, params)}
    if big > 0:
        report["over_long"] = await raw(big, params)
    print(json.dumps(report))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
