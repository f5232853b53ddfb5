"""An MCP server written with the official Python SDK (`MCPServer`, formerly FastMCP),
for tests/mcp_client_tools.rs to drive through `toolnexus::mcp::McpClient`.

    python python_server.py                  # stdio
    python python_server.py --http PORT      # streamable HTTP at http://127.0.0.1:PORT/mcp

Its `tools/list` is paginated two tools per page, so the client must follow `nextCursor`.
"""

import asyncio
import base64
import os
import sys

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import ListToolsResult

PAGE = 2

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


class PagedServer(MCPServer):
    """Lists its tools `PAGE` at a time."""

    async def _handle_list_tools(self, ctx, params):
        tools = await self.list_tools()
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE
        return ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)


server = PagedServer("python-tools")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


class Weather(BaseModel):
    city: str
    celsius: float


@server.tool()
def weather(city: str) -> Weather:
    """The weather in a city, as structured content."""
    return Weather(city=city, celsius=21.5)


@server.tool()
def pixel() -> Image:
    """A one-pixel PNG."""
    return Image(data=PNG, format="png")


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ToolError(f"failed: {reason}")


class Environment(BaseModel):
    env: str


@server.tool()
async def deploy(service: str, ctx: Context) -> str:
    """Deploy a service; asks which environment through elicitation."""
    answer = await ctx.elicit(f"Which environment for {service}?", Environment)
    if answer.action != "accept":
        return f"deployment of {service} {answer.action}d"
    return f"deployed {service} to {answer.data.env}"


@server.tool()
async def unlock(ctx: Context) -> str:
    """Adds the `secret` tool and tells the client its tool list changed."""

    def secret() -> str:
        """The secret."""
        return "42"

    server.add_tool(secret)
    await ctx.request_context.session.send_tool_list_changed()
    return "unlocked"


@server.tool()
async def hang() -> str:
    """Never answers."""
    await asyncio.sleep(3600)
    return "late"


@server.tool()
def crash() -> str:
    """Exits the server process."""
    os._exit(3)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
