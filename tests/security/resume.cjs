// Calls the `slow` tool with the official TypeScript MCP SDK (1.32, protocol 2025-11-25,
// a session) and prints its answer as JSON; the Rust test (tests/security_http.rs) cuts
// the call's stream in between, so the SDK must resume it (GET with Last-Event-ID).
//
//     NODE_PATH=$TOOLNEXUS_NODE_MODULES node resume.cjs URL
"use strict";

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [url] = process.argv.slice(2);
  const client = new Client({ name: "resume-probe", version: "0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    reconnectionOptions: {
      initialReconnectionDelay: 500,
      maxReconnectionDelay: 3000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 5,
    },
  });
  await client.connect(transport);
  const result = await client.callTool({ name: "slow", arguments: { ms: 1500 } }, undefined, {
    timeout: 30000,
  });
  const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
  console.log(JSON.stringify({ protocol: transport.protocolVersion, text, isError: !!result.isError }));
  await client.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
