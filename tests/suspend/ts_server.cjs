// An MCP server written with the official TypeScript SDK 2.x (`@modelcontextprotocol/server`)
// whose tool asks for input the 2026-07-28 way, by returning `inputRequired(...)`, for
// tests/mcp_client_suspend.rs to drive through `toolnexus::mcp::McpClient` over stdio.
//
//     NODE_PATH=…/node_modules node ts_server.cjs
//
// The tool's `requestState` is sealed with the SDK's own codec (`createRequestStateCodec`,
// HMAC-SHA256 with an expiry) and verified by the SDK before the handler runs again.
const { randomBytes } = require("node:crypto");
const {
  McpServer,
  acceptedContent,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
} = require("@modelcontextprotocol/server");
const { serveStdio } = require("@modelcontextprotocol/server/stdio");

const codec = createRequestStateCodec({ key: randomBytes(32) });

/** One server per connection: `serveStdio` picks the era from the opening exchange. */
function makeServer() {
  const server = new McpServer(
    { name: "typescript-asks", version: "1.0.0" },
    { requestState: { verify: codec.verify } },
  );
  server.registerTool(
    "reserve",
    {
      description: "Reserve a table; asks for how many people.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { restaurant: { type: "string" } },
        required: ["restaurant"],
      }),
    },
    async ({ restaurant }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const seen = inputResponse(responses, "party");
      if (seen.kind === "missing") {
        return inputRequired({
          inputRequests: {
            party: inputRequired.elicit({
              message: `How many people at ${restaurant}?`,
              requestedSchema: {
                type: "object",
                properties: { people: { type: "integer", minimum: 1, maximum: 12 } },
                required: ["people"],
              },
            }),
          },
          requestState: await codec.mint({ restaurant }),
        });
      }
      const state = ctx.mcpReq.requestState();
      if (state?.restaurant !== restaurant) {
        return { content: [{ type: "text", text: `unexpected state ${JSON.stringify(state)}` }], isError: true };
      }
      if (seen.kind !== "elicit" || seen.action !== "accept") {
        return { content: [{ type: "text", text: `reservation at ${restaurant}: ${seen.action ?? seen.kind}` }] };
      }
      const { people } = acceptedContent(responses, "party") ?? {};
      return { content: [{ type: "text", text: `reserved for ${people} at ${restaurant}` }] };
    },
  );
  return server;
}

serveStdio(makeServer, { onerror: (error) => console.error(error) });
