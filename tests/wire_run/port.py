"""Runs the contract's Python port (toolnexus 0.21.0) for tests/wire_run.rs: one run of
one scenario against the scripted OpenAI-compatible server the test started.

Usage: port.py BASE_URL SCENARIO. Prints one JSON object: "result" (the RunResult, as
``dataclasses.asdict`` gives it), or "error" (what the run raised); "events" (the stream's
events, the done event's result as a dict) for the ``stream`` scenario; "hooks" (what
the hooks saw) and "runs" (how many times the tool ran).

Scenarios: ``run`` (a plain run), ``stream`` (the same run, streamed), ``rewrite`` (a
before-LLM hook puts a system message first and keeps only the ``add`` tool), ``answer``
(a before-tool hook answers the ``add`` call itself), ``abort`` (a before-LLM hook
stops the run before its second turn), ``raw`` (an after-LLM hook keeps the response),
``concurrent`` (streamed: one turn asks ``first`` then ``second``, and ``first`` finishes
only after ``second`` has run).
"""

import asyncio
import dataclasses
import json
import sys

from toolnexus import ToolResult, create_client, create_toolkit
from toolnexus.native import define_tool

RUNS = {"add": 0}


def add(a: float, b: float) -> str:
    """Adds two numbers."""
    RUNS["add"] += 1
    total = a + b
    return str(int(total)) if total == int(total) else str(total)


def echo(text: str) -> str:
    """Says the text back."""
    return text


GATE = {}


async def first(text: str) -> str:
    """Waits for second, then says the text back."""
    await GATE["second ran"].wait()
    return "first " + text


async def second(text: str) -> str:
    """Lets first finish, then says the text back."""
    GATE["second ran"].set()
    return "second " + text


def plain(value):
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    return value


async def main():
    base_url, scenario = sys.argv[1], sys.argv[2]
    seen = []

    def before_llm(ev):
        seen.append({"hook": "before", "turn": ev["turn"], "model": ev["model"],
                     "messages": len(ev["messages"]),
                     "tools": [t["function"]["name"] for t in ev["tools"]]})
        if scenario == "rewrite" and ev["turn"] == 0:
            return {"messages": [{"role": "system", "content": "Answer with digits only."}]
                    + ev["messages"][-1:],
                    "tools": [t for t in ev["tools"] if t["function"]["name"] == "add"]}
        if scenario == "abort" and ev["turn"] == 1:
            raise RuntimeError("budget spent")
        return None

    def before_tool(ev):
        seen.append({"hook": "before_tool", "name": ev["name"], "args": ev["args"],
                     "id": ev["id"]})
        if scenario == "answer" and ev["name"] == "add":
            return {"result": ToolResult(output="cached: 5", is_error=False)}
        return None

    def after_llm(ev):
        if scenario == "raw":
            seen.append({"hook": "after", "turn": ev["turn"], "model": ev["model"],
                         "response": ev["response"]})

    client = create_client(
        base_url=base_url, style="openai", model="gpt-wire", api_key="sk-test",
        hooks={"before_llm": before_llm, "before_tool": before_tool, "after_llm": after_llm},
    )
    tools = [define_tool(add, name="add", description="Adds two numbers."),
             define_tool(echo, name="echo", description="Says the text back.")]
    if scenario == "concurrent":
        GATE["second ran"] = asyncio.Event()
        tools += [define_tool(first, name="first", description="Waits for second."),
                  define_tool(second, name="second", description="Lets first finish.")]
    toolkit = await create_toolkit(extra_tools=tools, builtins=False)
    out = {}
    prompt = "What is 2 + 3?"
    try:
        if scenario in ("stream", "concurrent"):
            events = []
            async for ev in client.stream(prompt, toolkit):
                events.append({k: plain(v) for k, v in ev.items()})
            out["events"] = events
            out["result"] = events[-1]["result"]
        else:
            out["result"] = dataclasses.asdict(await client.run(prompt, toolkit))
    except Exception as error:  # the abort scenario's hook raises
        out["error"] = str(error)
    out["hooks"] = seen
    out["runs"] = RUNS["add"]
    print(json.dumps(out))


asyncio.run(main())
