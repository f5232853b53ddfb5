"""Runs the contract's Python port (toolnexus 0.21.0) for tests/wire_client.rs: the
client options of one scenario against the scripted OpenAI-compatible server the test
started.

Usage: port.py BASE_URL SCENARIO. Prints one JSON object.

Scenarios: ``metrics`` (a run that calls ``add`` then answers, then a run the server
fails with a 400: "records" are what ``on_metric`` got, "text" is ``metrics()``),
``registry`` (reads a JSON list of records on stdin and prints, as "text", what a fresh
``MetricsRegistry`` renders from them), ``suspend`` (the agent ``researcher`` runs on its
own and its ``approve`` tool suspends: "request" is the pending request the run gives),
``transform`` (a ``body_transform`` sets ``user`` and drops ``tool_choice``; one run),
``on_error`` (an ``on_error`` that retries a 400 and fails a 503, over two runs: "infos"
is what it was told, "errors" what the runs raised), ``on_text`` (``ask`` by id with an
``on_text`` callback: "deltas" it got, "text" the answer, "kept" the messages the
conversation store holds for the id), ``statuses`` (``retryable_statuses=[520]``: a 520,
then the answer; "text" is the run's).
"""

import asyncio
import dataclasses
import json
import sys

from toolnexus import create_client, create_toolkit
from toolnexus.client import MetricsRegistry
from toolnexus.agents import agent
from toolnexus.native import define_tool
from toolnexus.types import Tool, pending


def add(a: float, b: float) -> str:
    """Adds two numbers."""
    total = a + b
    return str(int(total)) if total == int(total) else str(total)


async def main():
    base_url, scenario = sys.argv[1], sys.argv[2]
    out = {}
    if scenario == "registry":
        registry = MetricsRegistry()
        for record in json.load(sys.stdin):
            registry.record(record)
        out["text"] = registry.render()
        print(json.dumps(out))
        return
    if scenario == "suspend":
        async def approve(args=None, ctx=None):
            return pending(kind="approval", prompt="Ship it?", id="req-1")

        tool = Tool(name="approve", description="Asks for approval.",
                    input_schema={"type": "object", "properties": {}}, source="custom",
                    execute=approve)
        researcher = agent("researcher", does="Researches.", uses={"tools": [tool]})
        llm = {"base_url": base_url, "style": "openai", "model": "gpt-wire", "api_key": "sk-test"}
        run = await researcher.run("ship", llm=llm)
        out["status"] = run.status
        out["request"] = dataclasses.asdict(run.pending)
        print(json.dumps(out))
        return
    records = []
    infos = []
    options = dict(base_url=base_url, style="openai", model="gpt-wire", api_key="sk-test")
    if scenario == "metrics":
        options["on_metric"] = records.append
    if scenario == "transform":
        def transform(body):
            body = dict(body)
            body["user"] = "wire-test"
            body.pop("tool_choice", None)
            return body
        options["body_transform"] = transform
    if scenario == "on_error":
        def on_error(info):
            infos.append({k: v for k, v in info.items() if k != "error"})
            return "retry" if info.get("status") == 400 else "fail"
        options["on_error"] = on_error
        options["retry_base_ms"] = 1
    if scenario == "statuses":
        options["retryable_statuses"] = [520]
        options["retry_base_ms"] = 1
    client = create_client(**options)
    tools = [define_tool(add, name="add", description="Adds two numbers.", source="custom")]
    toolkit = await create_toolkit(extra_tools=tools, builtins=False)
    prompt = "What is 2 + 3?"
    if scenario == "metrics":
        await client.run(prompt, toolkit)
        try:
            await client.run(prompt, toolkit)
        except Exception as error:  # the server fails the second run
            out["error"] = str(error)
        out["records"] = records
        out["text"] = client.metrics()
    if scenario == "on_text":
        deltas = []
        run = await client.ask(prompt, toolkit, id="chat-1", on_text=deltas.append)
        out["deltas"] = deltas
        out["text"] = run.text
        out["kept"] = len(await client.conversation_store.get("chat-1"))
    if scenario == "transform":
        out["result"] = dataclasses.asdict(await client.run(prompt, toolkit))
    if scenario == "on_error":
        out["errors"] = []
        for _ in range(2):
            try:
                out["text"] = (await client.run(prompt, toolkit)).text
            except Exception as error:  # the 503 fails the second run
                out["errors"].append(str(error))
        out["infos"] = infos
    if scenario == "statuses":
        out["text"] = (await client.run(prompt, toolkit)).text
    print(json.dumps(out))


asyncio.run(main())
