"""The transport benchmark's optional row: the official Python MCP SDK (2.3) serving the
same `add(a, b)` tool over stateless streamable HTTP with JSON responses, on uvicorn.
Prints `listening on URL` once bound (port 0: any free port)."""

import asyncio
import socket

import uvicorn
from mcp.server import MCPServer

server = MCPServer("bench")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


async def main() -> None:
    app = server.streamable_http_app(stateless_http=True, json_response=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    await uvicorn.Server(config).serve(sockets=[sock])


asyncio.run(main())
