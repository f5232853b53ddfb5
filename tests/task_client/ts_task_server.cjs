// A server written with the official MCP TypeScript SDK 1.32 whose tools are tasks in the
// 2025-11-25 form (`server.experimental.tasks.registerToolTask`, an in-memory task store),
// over stdio, for tests/mcp_client_tasks.rs. In that form a client asks for a task per
// call (`params.task`); toolnexus's McpClient does not, so:
// - `bake` (taskSupport "optional"): the SDK runs the task and answers synchronously;
// - `bake_strict` (taskSupport "required"): the SDK refuses the call.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { InMemoryTaskStore } = require("@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js");
const { z } = require("zod");

const taskStore = new InMemoryTaskStore();
const server = new McpServer(
  { name: "ts-tasks", version: "1.0.0" },
  { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore },
);

function register(name, taskSupport) {
  server.experimental.tasks.registerToolTask(
    name,
    {
      description: "Bakes for `ms` milliseconds.",
      inputSchema: { ms: z.number().default(100) },
      execution: { taskSupport },
    },
    {
      async createTask({ ms }, { taskStore, taskRequestedTtl }) {
        const task = await taskStore.createTask({ ttl: taskRequestedTtl, pollInterval: 50 });
        setTimeout(() => {
          taskStore.storeTaskResult(task.taskId, "completed", {
            content: [{ type: "text", text: `baked for ${ms}ms` }],
          });
        }, ms);
        return { task };
      },
      async getTask(_args, { taskId, taskStore }) {
        return await taskStore.getTask(taskId);
      },
      async getTaskResult(_args, { taskId, taskStore }) {
        return await taskStore.getTaskResult(taskId);
      },
    },
  );
}

register("bake", "optional");
register("bake_strict", "required");
server.connect(new StdioServerTransport());
