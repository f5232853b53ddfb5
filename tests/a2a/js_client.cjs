// The official A2A JavaScript SDK's client (@a2a-js/sdk 1.3, A2A 1.0) against a served
// agent: usage `node js_client.cjs BASE_URL TASK_TEXT ANSWER [--polling]`. Sends the task,
// expects it to ask (input-required), answers on the same task, prints one JSON object.
const { randomUUID } = require("node:crypto");
const { ClientFactory } = require("@a2a-js/sdk/client");
const { Role, TaskState } = require("@a2a-js/sdk");

(async () => {

const [base, text, answer] = process.argv.slice(2);
const streaming = !process.argv.includes("--polling");
const client = await new ClientFactory().createFromUrl(base);

const message = (parts, extra = {}) => ({
  messageId: randomUUID(), contextId: "", taskId: "", role: Role.ROLE_USER,
  parts: parts.map((t) => ({ content: { $case: "text", value: t }, metadata: undefined, filename: "", mediaType: "" })),
  metadata: undefined, extensions: [], referenceTaskIds: [], ...extra,
});
const textOf = (parts) => (parts || []).filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("\n");

async function send(msg) {
  const events = [];
  let task;
  if (streaming) {
    for await (const response of client.sendMessageStream({ tenant: "", message: msg, configuration: undefined, metadata: undefined })) {
      const { $case, value } = response.payload ?? response;
      events.push($case);
      if ($case === "task") task = value;
      else if ($case === "statusUpdate") task.status = value.status;
      else if ($case === "artifactUpdate") task.artifacts.push(value.artifact);
    }
  } else {
    task = await client.sendMessage({ tenant: "", message: msg, configuration: undefined, metadata: undefined });
    events.push("task");
  }
  return { events, task };
}

const errorOf = async (promise) => {
  try { await promise; return null; } catch (error) { return error.constructor.name; }
};

const out = { streaming };
const first = await send(message([text]));
out.first_events = first.events;
out.asked_state = TaskState[first.task.status.state];
out.asked = textOf(first.task.status.message?.parts);
const second = await send(message([answer], { taskId: first.task.id, contextId: first.task.contextId }));
out.second_events = second.events;
out.same_task = second.task.id === first.task.id;
out.final_state = TaskState[second.task.status.state];
const fetched = await client.getTask({ tenant: "", id: first.task.id, historyLength: undefined });
out.fetched_state = TaskState[fetched.status.state];
out.answer = fetched.artifacts.map((a) => textOf(a.parts)).join("\n");
out.unknown_task = await errorOf(client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined }));
out.cancel_completed = await errorOf(client.cancelTask({ tenant: "", id: first.task.id, metadata: undefined }));
out.message_to_completed = await errorOf(send(message(["again"], { taskId: first.task.id })));
console.log(JSON.stringify(out));
})().catch((error) => { console.error(error); process.exit(1); });
