// Two agents on the official A2A JavaScript SDK's server (@a2a-js/sdk 1.3, A2A 1.0, on
// its Express adapter), on one port: what tests/a2a/py_server.py serves on the Python SDK.
//
// usage: node js_server.cjs    (prints `listening on http://127.0.0.1:PORT` first; stops
// when stdin closes)
//
// - `Echo Agent` (card at /echo/.well-known/agent-card.json, no streaming): completes at
//   once with the artifact `echo: <text>`.
// - `Asker` (card at /asker/.well-known/agent-card.json, streaming): asks `Which
//   environment?` (input-required), and completes with `deploying to <answer>` once the
//   next message on the same task answers.
const { randomUUID } = require("node:crypto");
const express = require("express");
const { Role, TaskState } = require("@a2a-js/sdk");
const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = require("@a2a-js/sdk/server");
const { UserBuilder, agentCardHandler, jsonRpcHandler } = require("@a2a-js/sdk/server/express");

const textPart = (text) => ({
  content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain",
});
const textOf = (message) => (message?.parts || [])
  .filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("\n");
const status = (state, message) => ({ state, message, timestamp: new Date().toISOString() });

// Every execution publishes the task first (the SDK requires it, follow-ups included).
function started(context, bus) {
  const { taskId, contextId } = context;
  bus.publish(AgentEvent.task(context.task ?? {
    id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED, undefined),
    artifacts: [], history: [context.userMessage], metadata: undefined,
  }));
  const update = (state, message) => bus.publish(AgentEvent.statusUpdate({
    taskId, contextId, status: status(state, message), metadata: undefined,
  }));
  const artifact = (name, text) => bus.publish(AgentEvent.artifactUpdate({
    taskId, contextId, append: false, lastChunk: true, metadata: undefined,
    artifact: { artifactId: randomUUID(), name, description: "", parts: [textPart(text)],
                metadata: undefined, extensions: [] },
  }));
  return { update, artifact };
}

const cancelTask = async (taskId, bus) => bus.publish(AgentEvent.statusUpdate({
  taskId, contextId: "", status: status(TaskState.TASK_STATE_CANCELED, undefined), metadata: undefined,
}));

const echo = {
  async execute(context, bus) {
    const { update, artifact } = started(context, bus);
    update(TaskState.TASK_STATE_WORKING, undefined);
    artifact("echo", `echo: ${textOf(context.userMessage)}`);
    update(TaskState.TASK_STATE_COMPLETED, undefined);
  },
  cancelTask,
};

const asker = {
  async execute(context, bus) {
    const first = context.task === undefined;
    const { update, artifact } = started(context, bus);
    if (first) {
      update(TaskState.TASK_STATE_INPUT_REQUIRED, {
        messageId: randomUUID(), contextId: context.contextId, taskId: context.taskId,
        role: Role.ROLE_AGENT, parts: [textPart("Which environment?")], metadata: undefined,
        extensions: [], referenceTaskIds: [],
      });
      return;
    }
    update(TaskState.TASK_STATE_WORKING, undefined);
    artifact("deploy", `deploying to ${textOf(context.userMessage)}`);
    update(TaskState.TASK_STATE_COMPLETED, undefined);
  },
  cancelTask,
};

function mount(app, base, path, name, skill, executor, streaming) {
  const card = {
    name, description: `${name}, on the A2A JavaScript SDK`, version: "1.0.0",
    supportedInterfaces: [{ url: `${base}${path}/`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    capabilities: { streaming, pushNotifications: false, extensions: [] },
    securitySchemes: {}, securityRequirements: [],
    defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"],
    skills: [{ id: skill, name: skill[0].toUpperCase() + skill.slice(1), description: `The ${skill} skill.`,
               tags: [skill], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`${path}/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: handler }));
  app.use(`${path}`, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
}

const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  mount(app, base, "/echo", "Echo Agent", "echo", echo, false);
  mount(app, base, "/asker", "Asker", "deploy", asker, true);
  console.log(`listening on ${base}`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
