"""The Python port's toolkit (toolnexus 0.21.0), for tests/wire_toolkit.rs and tests/cli.rs.

python toolkit.py tools MCP_JSON SKILLS_DIR      -> {"tools": [...], "status": {...}, "skillsPrompt": "..."}
python toolkit.py inventory MCP_JSON             -> {"tools": {server: [names]}, "status": {...}}
python toolkit.py elicit MCP_JSON TOOL ARGS ANSWER -> {"requests": [...], "output": "...", "isError": bool}
    ARGS is the JSON of the call's arguments, ANSWER the JSON of the answer given to
    every request (without its id). Requests are written as the wire has them: absent
    optionals left out.
python toolkit.py run MCP_JSON SKILLS_DIR BASE_URL MODEL SYSTEM PROMPT -> {"text": "..."}

Prints one JSON document on stdout.
"""
import asyncio
import dataclasses
import json
import sys

from toolnexus import create_toolkit
from toolnexus.mcp_source import list_mcp_tools
from toolnexus.types import Answer


def tool_entry(tool):
    return {
        "name": tool.name,
        "source": tool.source,
        "description": tool.description,
        "inputSchema": tool.input_schema,
    }


async def tools(config, skills):
    tk = await create_toolkit(mcp_config=config, skills_dir=skills)
    try:
        return {
            "tools": [tool_entry(t) for t in tk.tools()],
            "status": tk.mcp_status(),
            "skillsPrompt": tk.skills_prompt(),
        }
    finally:
        await tk.close()


async def inventory(config):
    inv = await list_mcp_tools(config)
    return {
        "tools": {server: [t.name for t in defs] for server, defs in inv.tools.items()},
        "status": inv.status,
    }


async def elicit(config, tool, args, answer):
    requests = []

    def wait_for(request):
        requests.append({k: v for k, v in dataclasses.asdict(request).items() if v is not None})
        return Answer(id=request.id, **answer)

    tk = await create_toolkit(mcp_config=config, wait_for=wait_for, builtins=False)
    try:
        result = await tk.execute(tool, args)
        return {"requests": requests, "output": result.output, "isError": result.is_error}
    finally:
        await tk.close()


async def run(config, skills, base_url, model, system, prompt):
    from toolnexus import Client

    tk = await create_toolkit(mcp_config=config, skills_dir=skills)
    try:
        client = Client(base_url=base_url, style="openai", model=model, api_key="test-key",
                        system_prompt=system)
        result = await client.run(prompt, tk)
        return {"text": result.text}
    finally:
        await tk.close()


async def main(argv):
    verb = argv[0]
    if verb == "tools":
        out = await tools(argv[1], argv[2])
    elif verb == "inventory":
        out = await inventory(argv[1])
    elif verb == "elicit":
        out = await elicit(argv[1], argv[2], json.loads(argv[3]), json.loads(argv[4]))
    elif verb == "run":
        out = await run(*argv[1:7])
    else:
        raise SystemExit(f"unknown verb {verb}")
    print(json.dumps(out))


asyncio.run(main(sys.argv[1:]))
