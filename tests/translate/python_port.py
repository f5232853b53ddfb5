"""Runs the contract's Python port (toolnexus==0.21.0) `Client.translate` on the cases
tests/translate.rs sends, so the Rust translation can be compared with it side by side.

stdin: a JSON list of cases, each {"style": "openai" | "anthropic", "url": the base URL of
the test's local server, "request": {"messages", "tools"?, "tool_choice"?, "system"?,
"max_tokens"?}, "toolkit": [{"name", "description", "input_schema"}]?}.
stdout: one JSON line a case, {"result": {...}, "hooks": {...}} (the result in the
contract's shape, and how often each hook fired), or {"error": "..."}.
"""
import asyncio
import json
import sys

from toolnexus import Client, create_toolkit, define_tool


async def run(case):
    fired = {"before": 0, "after": 0, "tool": 0}

    def count(key):
        async def hook(event):
            fired[key] += 1
            return None

        return hook

    client = Client(
        base_url=case["url"],
        style=case["style"],
        model="m",
        api_key="k",
        retries=0,
        timeout_ms=10_000,
        hooks={
            "before_llm": count("before"),
            "after_llm": count("after"),
            "before_tool": count("tool"),
            "after_tool": count("tool"),
        },
    )

    async def never(args):
        raise AssertionError("translate ran a declared tool")

    toolkit = None
    if case.get("toolkit") is not None:
        toolkit = await create_toolkit(
            builtins=False,
            extra_tools=[
                define_tool(never, name=t["name"], description=t["description"], input_schema=t["input_schema"])
                for t in case["toolkit"]
            ],
        )
    request = case["request"]
    try:
        result = await client.translate(
            request["messages"],
            tools=request.get("tools"),
            toolkit=toolkit,
            tool_choice=request.get("tool_choice"),
            system=request.get("system"),
            max_tokens=request.get("max_tokens") or 0,
        )
    finally:
        if toolkit is not None:
            await toolkit.close()
    return {
        "result": {
            "text": result.text,
            "toolCalls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in result.tool_calls],
            "finishReason": result.finish_reason,
            "usage": result.usage,
            "model": result.model,
        },
        "hooks": fired,
    }


async def main():
    for case in json.loads(sys.stdin.read()):
        try:
            out = await run(case)
        except Exception as error:  # reported to the test, which names the case
            out = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        sys.stdout.flush()


asyncio.run(main())
