"""Runs the contract's Python port (toolnexus 0.21.0) for tests/agents_gate.rs: its
completion gate (``toolnexus.agents.loop.run_gated`` with ``all_todos_done``) on a client
of the scripted OpenAI-compatible server the test started, with the built-in
``todowrite`` the only tool.

Usage: port.py BASE_URL MAX_ATTEMPTS. Prints one JSON object: the gated run's status,
limit, text and how many tool calls it carries (those of every attempt).
"""

import asyncio
import json
import sys

from toolnexus import create_client, create_toolkit
from toolnexus.agents.loop import Completion, all_todos_done, run_gated

OTHERS = ["read", "write", "edit", "bash", "grep", "glob", "webfetch", "question", "apply_patch"]


async def main():
    base_url, attempts = sys.argv[1], int(sys.argv[2])
    client = create_client(base_url=base_url, style="openai", model="gpt-wire", api_key="sk-test")
    toolkit = await create_toolkit(builtins={"tools": {name: False for name in OTHERS}})
    state = {"history": []}

    async def ask(text):
        result = await client.run(text, toolkit=toolkit, history=state["history"])
        state["history"] = result.messages
        return result

    gate = Completion(verify=all_todos_done, max_attempts=attempts)
    result = await run_gated(ask, "Plan the release and do it.", gate)
    print(json.dumps({
        "status": result.status,
        "limit": getattr(result, "limit", None),
        "text": result.text,
        "calls": len(result.tool_calls),
    }))


asyncio.run(main())
