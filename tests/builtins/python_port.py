"""Runs the contract's Python port (toolnexus==0.21.0) on the calls tests/builtins_parity.rs
sends, so the Rust builtins can be compared with it side by side.

stdin: one JSON object a line. The first is {"config": <the builtins config>}; each
following one is {"op": "list"} (every listing of the ten tools) or
{"op": "call", "tool": NAME, "args": {...}, "answer": {"ok": .., "data": ..}?}, where an
answer answers the request of the last suspension. Everything is read before anything
runs, so a command cannot read the driver's own input. stdout: one JSON line a command.
"""
import asyncio
import dataclasses
import json
import sys

from toolnexus.adapters import to_anthropic, to_gemini, to_openai
from toolnexus.builtin import select_builtins
from toolnexus.types import Answer, ToolContext


def wire(value):
    if dataclasses.is_dataclass(value):
        return {k: v for k, v in dataclasses.asdict(value).items() if v is not None}
    raise TypeError(f"not JSON: {value!r}")


def emit(obj):
    sys.stdout.write(json.dumps(obj, default=wire, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def main():
    lines = [json.loads(line) for line in sys.stdin.read().splitlines() if line.strip()]
    tools = select_builtins(lines[0]["config"])
    by_name = {t.name: t for t in tools}
    last_request = None
    for command in lines[1:]:
        if command["op"] == "list":
            emit({
                "openai": to_openai(tools),
                "anthropic": to_anthropic(tools),
                "gemini": to_gemini(tools),
                "mcp": [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools],
                "sources": [t.source for t in tools],
            })
            continue
        ctx = None
        if command.get("answer") is not None:
            answer = command["answer"]
            ctx = ToolContext(answer=Answer(id=last_request.id, ok=answer["ok"], data=answer.get("data")))
        result = await by_name[command["tool"]].execute(command["args"], ctx)
        out = {"output": result.output, "isError": result.is_error}
        if result.parts is not None:
            out["parts"] = result.parts
        if result.metadata is not None:
            out["metadata"] = result.metadata
            if "pending" in result.metadata:
                last_request = result.metadata["pending"]
        emit(out)


asyncio.run(main())
