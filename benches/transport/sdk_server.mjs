// The transport benchmark's optional row: the official TypeScript MCP SDK (1.32) serving
// the same `add(a, b)` tool over stateless streamable HTTP with JSON responses, on
// express, a new server and transport per request as the SDK's stateless example does.
// Prints `listening on URL` once bound (port 0: any free port). NODE_PATH names the
// node_modules that holds the SDK and express.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH, "noop.js"));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const express = require("express");
const { z } = require("zod");

function server() {
  const mcp = new McpServer({ name: "bench", version: "1" });
  mcp.registerTool(
    "add",
    { description: "Add two numbers.", inputSchema: { a: z.number().int(), b: z.number().int() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  return mcp;
}

const app = express();
app.use(express.json());
app.post("/mcp", async (req, res) => {
  const mcp = server();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    transport.close();
    mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
const listener = app.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${listener.address().port}/mcp`);
});
