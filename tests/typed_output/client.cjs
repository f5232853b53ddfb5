// Call tools with typed output through the official MCP TypeScript SDK and print what it
// saw as JSON.
//
//     node client.cjs URL CALLS_JSON
//
// URL is a streamable-HTTP endpoint; CALLS_JSON is a list of [label, tool, arguments].
// `Client.callTool` checks each result's `structuredContent` against the tool's listed
// `outputSchema` (compiled with ajv when the tools are listed): a call it rejects is
// reported as {"error": message}, any other as {"result": ...}. The Rust test
// (tests/loop_typed_output.rs) makes the assertions. Packages come from NODE_PATH.

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [url, callsJson] = process.argv.slice(2);
  if (!url || !callsJson) {
    throw new Error("usage: node client.cjs URL CALLS_JSON");
  }
  const client = new Client({ name: "toolnexus-typed-output-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  // Listing the tools is what hands the client their output schemas.
  const { tools } = await client.listTools();
  const report = { tools, calls: {} };
  for (const [label, name, args] of JSON.parse(callsJson)) {
    try {
      report.calls[label] = { result: await client.callTool({ name, arguments: args }) };
    } catch (error) {
      report.calls[label] = { error: String(error && error.message ? error.message : error) };
    }
  }
  await client.close();
  process.stdout.write(JSON.stringify(report, null, 2) + "\n");
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
