"""Drive an MCP server with the official Python MCP SDK and print what it saw as JSON.

    python client.py stdio COMMAND [ARG...]   # spawn the server, speak over its stdio
    python client.py http URL                 # connect to a streamable-HTTP endpoint

The report on stdout has the server's `initialize` answer, its `tools/list` entries, the
outcome of each call in CALLS (a result, or the protocol error it raised), and what the
client read of the server's resources and prompts (READS). The Rust
test (tests/mcp.rs) makes the assertions; this script only drives the client and fails
loudly (non-zero exit) when the client itself cannot run.
"""

import json
import sys

import anyio
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

# (label, resource URI)
READS = [
    ("readme", "docs://readme"),
    ("template", "deploy://staging/status"),
    ("not_found", "deploy://moon/status"),
    ("unknown", "nothing://here"),
]

# (label, tool name, arguments)
CALLS = [
    ("success", "add", {"a": 2, "b": 3}),
    ("failure", "divide", {"a": 1, "b": 0}),
    ("bad_arguments", "add", {"a": "two"}),
    ("image", "screenshot", {}),
    ("pending", "deploy_service", {}),
    ("unknown", "no_such_tool", {}),
]


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def drive(session: ClientSession) -> dict:
    init = await session.initialize()
    tools = await session.list_tools()
    calls = {}
    for label, name, arguments in CALLS:
        try:
            calls[label] = {"result": dump(await session.call_tool(name, arguments))}
        except MCPError as error:
            calls[label] = {"error": {"code": error.code, "message": error.message}}
    # The connection still works after every kind of call above.
    calls["after"] = {"result": dump(await session.call_tool("add", {"a": 40, "b": 2}))}
    reads = {}
    for label, uri in READS:
        try:
            reads[label] = {"result": dump(await session.read_resource(uri))}
        except MCPError as error:
            reads[label] = {"error": {"code": error.code, "message": error.message}}
    prompt = await session.get_prompt("plan_deploy", {"env": "staging", "changes": "a fix"})
    try:
        missing = {"result": dump(await session.get_prompt("plan_deploy", {}))}
    except MCPError as error:
        missing = {"error": {"code": error.code, "message": error.message}}
    completion = await session.complete(
        types.PromptReference(type="ref/prompt", name="plan_deploy"),
        {"name": "env", "value": "st"},
    )
    template_completion = await session.complete(
        types.ResourceTemplateReference(type="ref/resource", uri="deploy://{env}/status"),
        {"name": "env", "value": "p"},
    )
    return {
        "initialize": dump(init),
        "tools": [dump(tool) for tool in tools.tools],
        "calls": calls,
        "resources": dump(await session.list_resources()),
        "templates": dump(await session.list_resource_templates()),
        "reads": reads,
        "prompts": dump(await session.list_prompts()),
        "prompt": dump(prompt),
        "prompt_missing_argument": missing,
        "completion": dump(completion),
        "template_completion": dump(template_completion),
    }


async def main(argv: list[str]) -> None:
    if len(argv) >= 2 and argv[0] == "stdio":
        params = StdioServerParameters(command=argv[1], args=argv[2:])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                report = await drive(session)
    elif len(argv) == 2 and argv[0] == "http":
        async with streamable_http_client(argv[1]) as (read, write):
            async with ClientSession(read, write) as session:
                report = await drive(session)
    else:
        sys.exit(__doc__)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1:])
