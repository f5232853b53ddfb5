// An MCP Apps server written with the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`
// 1.32, pinned in .ci/test), over streamable HTTP on 127.0.0.1 (a free port), for
// tests/mcp_app_host.rs: the chat page must render a view it did not write, served by a
// server it did not write.
// - `tasks` ({"tasks": [..]}) lists the tasks, all open; its view (`ui://tasks/view.html`,
//   the extension SDK's `App`, loaded from the URL in MCP_APP_SDK) shows them.
// - `complete_task` ({"open", "done", "task"}) moves a task to done; listed for the view
//   only (`_meta.ui.visibility: ["app"]`): the model never sees it.
// The view's "Done" buttons call `complete_task` through the host, and its "Send to chat"
// button posts the state as a user message (`ui/message`).
// Prints `listening on URL` first; stops when its stdin closes.
// Usage: NODE_MODULES=… MCP_APP_SDK=http://127.0.0.1:PORT/app-with-deps.js node ts_server.mjs
import http from "node:http";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_MODULES.replace(/\/?$/, "/"));
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { z } = require("zod");

const sdk = process.env.MCP_APP_SDK;
if (!sdk) throw new Error("MCP_APP_SDK (the URL of the SDK's app-with-deps.js) is not set");
const VIEW_URI = "ui://tasks/view.html";
const MIME = "text/html;profile=mcp-app";

const VIEW = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tasks</title>
<style>
  body { font-family: system-ui, sans-serif; margin: .5rem; }
  li { margin: .2rem 0; }
  .done { text-decoration: line-through; color: #5f6368; }
</style>
</head>
<body>
<p id="summary">Waiting for the tasks…</p>
<ul id="open"></ul>
<ul id="done"></ul>
<p><button id="share" type="button">Send to chat</button></p>
<p id="status"></p>
<script type="module">
import { App } from "${sdk}";

const app = new App({ name: "tasks-view", version: "1.0.0" });
let state = { open: [], done: [] };

function draw(next) {
  state = next;
  document.getElementById("summary").textContent = \`Open: \${state.open.length}, done: \${state.done.length}\`;
  document.getElementById("open").replaceChildren(...state.open.map((task) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Done";
    button.setAttribute("aria-label", \`Done: \${task}\`);
    button.addEventListener("click", () => complete(task));
    item.append(task, " ", button);
    return item;
  }));
  document.getElementById("done").replaceChildren(...state.done.map((task) => {
    const item = document.createElement("li");
    item.className = "done";
    item.textContent = task;
    return item;
  }));
}

async function complete(task) {
  const status = document.getElementById("status");
  status.textContent = "";
  try {
    const result = await app.callServerTool({ name: "complete_task", arguments: { ...state, task } });
    if (result.isError) status.textContent = result.content?.[0]?.text ?? "complete_task failed";
    else draw(result.structuredContent);
  } catch (error) {
    status.textContent = String(error);
  }
}

app.ontoolresult = (result) => {
  if (result.structuredContent) draw(result.structuredContent);
};

document.getElementById("share").addEventListener("click", async () => {
  const text = \`Tasks done: \${state.done.join(", ") || "none"}; open: \${state.open.join(", ") || "none"}.\`;
  const result = await app.sendMessage({ role: "user", content: [{ type: "text", text }] });
  if (result.isError) document.getElementById("status").textContent = "The host did not take the message.";
});

await app.connect();
</script>
</body>
</html>
`;

// A tool result the view reads (`structuredContent`) and a model reads (the text).
function answer(state) {
  return {
    content: [{ type: "text", text: JSON.stringify(state) }],
    structuredContent: state,
  };
}

function server() {
  const mcp = new McpServer({ name: "ts-tasks-app", version: "1.0.0" });
  const stateShape = { open: z.array(z.string()), done: z.array(z.string()) };
  mcp.registerTool(
    "tasks",
    {
      description: "Shows a task list, every task open.",
      inputSchema: { tasks: z.array(z.string()).describe("The tasks.") },
      outputSchema: stateShape,
      _meta: { ui: { resourceUri: VIEW_URI } },
    },
    async ({ tasks }) => answer({ open: tasks, done: [] }),
  );
  mcp.registerTool(
    "complete_task",
    {
      description: "Marks a task of the list done.",
      inputSchema: { ...stateShape, task: z.string() },
      outputSchema: stateShape,
      _meta: { ui: { resourceUri: VIEW_URI, visibility: ["app"] } },
    },
    async ({ open, done, task }) => {
      if (!open.includes(task)) {
        return { content: [{ type: "text", text: `no open task \`${task}\`` }], isError: true };
      }
      return answer({ open: open.filter((t) => t !== task), done: [...done, task] });
    },
  );
  const ui = { csp: { resourceDomains: [new URL(sdk).origin] }, prefersBorder: true };
  mcp.registerResource(
    "tasks_view",
    VIEW_URI,
    { description: "The task list, with a button to mark each done.", mimeType: MIME, _meta: { ui } },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: MIME, text: VIEW, _meta: { ui } }] }),
  );
  return mcp;
}

// One server and transport per session, as the SDK's own examples do.
const sessions = new Map();
const listener = http.createServer(async (req, res) => {
  try {
    if (new URL(req.url, "http://127.0.0.1").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers["mcp-session-id"];
    let transport = id && sessions.get(id);
    if (!transport) {
      if (id) {
        res.writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: `no session ${id}` } }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await server().connect(transport);
    }
    await transport.handleRequest(req, res);
  } catch (error) {
    if (!res.headersSent) res.writeHead(500).end(String(error));
  }
});
listener.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${listener.address().port}/mcp`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
