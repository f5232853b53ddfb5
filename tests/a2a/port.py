"""The toolnexus contract's Python port (toolnexus 0.21.0): its A2A `agent()` and `serve`,
for comparing wire shapes with the Rust crate on the same inputs.

usage:
  port.py agent CARD_URL TASK [TIMEOUT_MS]  one JSON object: the agent's tools, and the
                                            result of calling the first with TASK
  port.py serve NAME DESCRIPTION VERSION SKILL...
                                            serves an echo agent (`echo: <text>`) whose card
                                            lists SKILLs; prints `listening on URL` first,
                                            stops when stdin closes
"""
import asyncio
import json
import sys

from toolnexus import SkillDef, create_in_process_client, create_toolkit
from toolnexus.a2a import agent, agent_tools


async def run_agent(card, task, timeout):
    tools = await agent_tools(agent(card, poll_every=20, timeout=timeout))
    out = {"tools": [{"name": t.name, "description": t.description,
                      "inputSchema": t.input_schema, "source": t.source} for t in tools]}
    if tools:
        result = await tools[0].execute({"task": task})
        out["result"] = {"output": result.output, "isError": result.is_error,
                         "metadata": result.metadata}
    print(json.dumps(out))


def echo(request):
    users = [m for m in request["messages"] if m.get("role") == "user"]
    return {"content": f"echo: {users[-1]['content']}"}


async def serve(name, description, version, skills):
    toolkit = await create_toolkit(
        skills=[SkillDef(name=s, content=f"# {s}", description=f"The {s} skill.") for s in skills])
    client = create_in_process_client(model="echo", generate=echo)
    handle = await toolkit.serve("127.0.0.1:0", client=client, a2a={
        "name": name, "description": description, "version": version})
    print(f"listening on {handle.url}", flush=True)
    await asyncio.to_thread(sys.stdin.read)
    await handle.stop()


if sys.argv[1] == "agent":
    timeout = int(sys.argv[4]) if len(sys.argv) > 4 else None
    asyncio.run(run_agent(sys.argv[2], sys.argv[3], timeout))
else:
    asyncio.run(serve(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]))
