"""An MCP server written with the official Python SDK 2.3 (`MCPServer`) whose tool asks for
input the 2026-07-28 way, by returning an `InputRequiredResult`, for tests/mcp_client_suspend.rs
to drive through `toolnexus::mcp::McpClient`.

    python python_server.py                  # stdio
    python python_server.py --http PORT      # streamable HTTP at http://127.0.0.1:PORT/mcp

The SDK seals the tool's `request_state` itself (AES-GCM, a key of this process).
"""

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

server = MCPServer("python-asks")


@server.tool()
async def book(city: str, ctx: Context) -> str | InputRequiredResult:
    """Book a hotel; asks how many nights."""
    answer = (ctx.input_responses or {}).get("nights")
    if not isinstance(answer, ElicitResult):
        return InputRequiredResult(
            input_requests={
                "nights": ElicitRequest(
                    params=ElicitRequestFormParams(
                        message=f"How many nights in {city}?",
                        requested_schema={
                            "type": "object",
                            "properties": {"nights": {"type": "integer", "minimum": 1}},
                            "required": ["nights"],
                        },
                    )
                )
            },
            request_state=f"asked:{city}",
        )
    if ctx.request_state != f"asked:{city}":
        return f"unexpected state {ctx.request_state!r}"
    if answer.action != "accept":
        return f"booking in {city}: {answer.action}"
    return f"booked {answer.content['nights']} nights in {city}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
