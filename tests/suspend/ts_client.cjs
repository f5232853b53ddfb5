// Drive a server whose tools suspend with the official MCP TypeScript SDK 2.x client
// (`@modelcontextprotocol/client`), and print what happened as JSON; the Rust test
// (tests/mcp_server_suspend.rs) makes the assertions.
//
//     node ts_client.cjs complete MODE stdio COMMAND [ARG...]
//     node ts_client.cjs complete MODE http URL
//     node ts_client.cjs tamper URL_A URL_B URL_C
//
// `complete` (MODE `2026-07-28` or `legacy`) calls every tool through the SDK's own
// machinery, answering with an `elicitation/create` handler: in 2026-07-28 the SDK's
// multi-round-trip driver fulfils the `input_required` results, in legacy the handler
// answers the server's `elicitation/create` requests.
//
// `tamper` drives the retry by hand (`allowInputRequired: true`) on 2026-07-28 servers: A
// and C share a key and a store, B has another key, C's states expire at once. It replays
// states with a flipped byte, with other arguments, to another tool, from another key,
// and after expiry, then once correctly, then again on both.
// Run with NODE_PATH set to the node_modules that hold the SDK.
const { Client, ProtocolError, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
const { StdioClientTransport } = require("@modelcontextprotocol/client/stdio");

function outcome(result) {
  return {
    text: result.content
      .filter((c) => c.type === "text")
      .map((c) => c.text)
      .join("\n"),
    isError: Boolean(result.isError),
  };
}

function negotiation(mode) {
  return mode === "legacy" ? undefined : { mode: { pin: mode } };
}

function transport(kind, rest) {
  if (kind === "stdio") {
    const [command, ...args] = rest;
    return new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  }
  return new StreamableHTTPClientTransport(new URL(rest[0]));
}

async function complete(mode, kind, rest) {
  const seen = [];
  const client = new Client(
    { name: "toolnexus-suspend-ts", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      versionNegotiation: negotiation(mode),
    },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    const params = request.params;
    seen.push(params);
    if (params.message.includes("keep")) return { action: "decline" };
    if (params.mode === "url") return { action: "accept" };
    const properties = params.requestedSchema?.properties ?? {};
    if ("size" in properties) return { action: "accept", content: { size: "l", toppings: ["olive"] } };
    if ("answer" in properties) return { action: "accept", content: { answer: "prod" } };
    return { action: "accept", content: {} };
  });
  await client.connect(transport(kind, rest));
  const calls = {};
  for (const [label, name, args] of [
    ["input", "deploy", { service: "api" }],
    ["approval", "delete_repo", { name: "scratch" }],
    ["authorization", "connect_account", {}],
    ["schema", "pick", {}],
    ["declined", "delete_repo", { name: "keep" }],
    ["unsendable", "ship", {}],
  ]) {
    try {
      calls[label] = outcome(await client.callTool({ name, arguments: args }));
    } catch (error) {
      calls[label] = { error: String(error?.message ?? error) };
    }
  }
  const protocol = client.getNegotiatedProtocolVersion?.() ?? null;
  await client.close();
  return { protocol, calls, elicitations: seen };
}

/** The state with one byte of its sealed body flipped. */
function flip(state) {
  const dot = state.indexOf(".");
  const raw = Buffer.from(state.slice(dot + 1), "base64url");
  raw[Math.floor(raw.length / 2)] ^= 0x01;
  return state.slice(0, dot + 1) + raw.toString("base64url");
}

async function manual(url) {
  const client = new Client(
    { name: "toolnexus-suspend-ts", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function ask(client, name, args) {
  const first = await client.callTool({ name, arguments: args }, { allowInputRequired: true });
  if (first.resultType !== "input_required") throw new Error(`not input_required: ${JSON.stringify(first)}`);
  const [[key, request]] = Object.entries(first.inputRequests);
  return [key, request, first.requestState];
}

async function retry(client, name, args, key, state, action = "accept", content = undefined) {
  const response = content === undefined ? { action } : { action, content };
  const params = { name, arguments: args, inputResponses: { [key]: response } };
  if (state !== null) params.requestState = state;
  let result;
  try {
    result = await client.callTool(params, { allowInputRequired: true });
  } catch (error) {
    if (error instanceof ProtocolError) {
      return { error: { code: error.code, message: error.message, data: error.data } };
    }
    return { error: { message: String(error?.message ?? error) } };
  }
  if (result.resultType === "input_required") return { inputRequired: true };
  return outcome(result);
}

async function sleep(ms) {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

async function tamper(urlA, urlB, urlC) {
  const report = {};
  const repo = { name: "prod-db" };
  const [a, b, c] = [await manual(urlA), await manual(urlB), await manual(urlC)];
  const [key, request, state] = await ask(a, "delete_repo", repo);
  report.request = { key, request, state };
  report.flipped = await retry(a, "delete_repo", repo, key, flip(state));
  report.other_arguments = await retry(a, "delete_repo", { name: "scratch" }, key, state);
  report.other_tool = await retry(a, "deploy", { service: "api" }, key, state);
  const [bKey, , bState] = await ask(b, "delete_repo", repo);
  report.other_key = await retry(a, "delete_repo", repo, bKey, bState);
  const [cKey, , cState] = await ask(c, "delete_repo", repo);
  await sleep(50);
  report.expired = await retry(c, "delete_repo", repo, cKey, cState);
  report.no_state = await retry(a, "delete_repo", repo, key, null);
  const [noKey, , noState] = await ask(a, "delete_repo", repo);
  report.declined = await retry(a, "delete_repo", repo, noKey, noState, "decline");
  // A replica with the same key (and store) runs A's state once; then neither does.
  report.replica = await retry(c, "delete_repo", repo, key, state);
  report.replayed = await retry(a, "delete_repo", repo, key, state);
  report.replayed_there = await retry(c, "delete_repo", repo, key, state);
  // An input tool by hand: the answer's one field reaches the tool.
  const [dKey, , dState] = await ask(a, "deploy", { service: "web" });
  report.input = await retry(a, "deploy", { service: "web" }, dKey, dState, "accept", { answer: "eu" });
  await Promise.all([a.close(), b.close(), c.close()]);
  return report;
}

async function main(argv) {
  let report;
  if (argv[0] === "complete" && argv.length >= 4) {
    report = await complete(argv[1], argv[2], argv.slice(3));
  } else if (argv[0] === "tamper" && argv.length === 4) {
    report = await tamper(argv[1], argv[2], argv[3]);
  } else {
    console.error("usage: ts_client.cjs complete MODE (stdio COMMAND [ARG...] | http URL) | tamper URL_A URL_B URL_C");
    process.exit(2);
  }
  console.log(JSON.stringify(report, null, 2));
  process.exit(0);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exit(1);
});
