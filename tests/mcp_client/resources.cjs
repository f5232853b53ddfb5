// Read a server's resources and prompts, and watch its notifications, through the
// official MCP TypeScript SDK; print what the client saw as JSON. The Rust test
// (tests/mcp_resources.rs) makes the assertions. Packages come from NODE_PATH.
//
//     node resources.cjs read stdio COMMAND [ARG...]   read the example server's catalog
//     node resources.cjs read http URL                 the same over streamable HTTP
//     node resources.cjs watch URL URI                 two sessions, one subscribed to URI
//
// `watch` speaks with the test over its stdin and stdout, one JSON line at a time: once
// both sessions' event streams are open and session A subscribed to URI, it prints
// {"step":"subscribed"} and waits for A to hear an update of URI and both sessions a
// resources and a prompts list change; then A unsubscribes and it prints
// {"step":"unsubscribed"}, and waits for both sessions to hear one more resources list
// change; then it prints {"step":"done", "a": [...], "b": [...]}: what each session
// heard, in order.

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const {
  ResourceUpdatedNotificationSchema,
  ResourceListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
} = require("@modelcontextprotocol/sdk/types.js");

const PATIENCE_MS = 30000;

function outcome(promise) {
  return promise.then(
    (result) => ({ result }),
    (error) => ({ error: { code: error.code, message: String(error.message) } }),
  );
}

async function read(client) {
  // Every page, following `nextCursor`, and how many pages there were.
  async function all(list, key) {
    const items = [];
    let cursor;
    let pages = 0;
    do {
      const page = await list(cursor === undefined ? {} : { cursor });
      items.push(...page[key]);
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    return { items, pages };
  }
  const resources = await all((p) => client.listResources(p), "resources");
  const templates = await all((p) => client.listResourceTemplates(p), "resourceTemplates");
  const prompts = await all((p) => client.listPrompts(p), "prompts");
  const reads = {};
  for (const resource of resources.items) {
    reads[resource.uri] = await outcome(client.readResource({ uri: resource.uri }));
  }
  return {
    capabilities: client.getServerCapabilities(),
    resources,
    templates,
    prompts,
    reads,
    template_read: await outcome(client.readResource({ uri: "deploy://production/status" })),
    not_found: await outcome(client.readResource({ uri: "deploy://moon/status" })),
    prompt: await outcome(
      client.getPrompt({ name: "plan_deploy", arguments: { env: "production" } }),
    ),
    unknown_prompt: await outcome(client.getPrompt({ name: "no_such_prompt" })),
    completion: await outcome(
      client.complete({
        ref: { type: "ref/prompt", name: "plan_deploy" },
        argument: { name: "env", value: "pro" },
      }),
    ),
  };
}

function say(value) {
  process.stdout.write(JSON.stringify(value) + "\n");
}

/// A session over HTTP whose standalone event stream (the GET the SDK opens after
/// `initialized`) has been answered, so that notifications sent from now on reach it.
async function session(url, events) {
  let streamOpen;
  const opened = new Promise((resolve) => (streamOpen = resolve));
  const fetchWatching = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? "GET") === "GET" && response.ok) streamOpen();
    return response;
  };
  const client = new Client({ name: "toolnexus-resources-test", version: "1.0.0" });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) =>
    events.push(`updated ${n.params.uri}`),
  );
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
    events.push("resources/list_changed"),
  );
  client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
    events.push("prompts/list_changed"),
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchWatching }));
  await opened;
  return client;
}

async function until(check, what) {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > PATIENCE_MS) throw new Error(`never heard ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function watch(url, uri) {
  const a = [];
  const b = [];
  const first = await session(url, a);
  const second = await session(url, b);
  await first.subscribeResource({ uri });
  say({ step: "subscribed" });
  const count = (events, event) => events.filter((e) => e === event).length;
  await until(
    () =>
      count(a, `updated ${uri}`) >= 1 &&
      count(a, "resources/list_changed") >= 1 &&
      count(a, "prompts/list_changed") >= 1 &&
      count(b, "resources/list_changed") >= 1 &&
      count(b, "prompts/list_changed") >= 1,
    "the first notifications",
  );
  await first.unsubscribeResource({ uri });
  say({ step: "unsubscribed" });
  await until(
    () => count(a, "resources/list_changed") >= 2 && count(b, "resources/list_changed") >= 2,
    "the second list change",
  );
  await first.close();
  await second.close();
  say({ step: "done", a, b });
}

async function main() {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === "watch" && rest.length === 2) {
    return watch(rest[0], rest[1]);
  }
  if (mode !== "read" || rest.length < 2) {
    throw new Error("usage: node resources.cjs read (stdio COMMAND [ARG...] | http URL) | watch URL URI");
  }
  const [transport, target, ...args] = rest;
  const client = new Client({ name: "toolnexus-resources-test", version: "1.0.0" });
  await client.connect(
    transport === "stdio"
      ? new StdioClientTransport({ command: target, args, stderr: "ignore" })
      : new StreamableHTTPClientTransport(new URL(target)),
  );
  const report = await read(client);
  await client.close();
  say(report);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
