// The official A2A JavaScript SDK's client (@a2a-js/sdk 1.3, A2A 1.0), one step of a task
// at a time, so that the server may be killed, restarted or swapped for a replica in
// between:
//   node js_steps.cjs ask BASE_URL TASK_TEXT
//   node js_steps.cjs answer BASE_URL TASK_ID CONTEXT_ID ANSWER
//   node js_steps.cjs get BASE_URL TASK_ID
// `ask` sends the text (streaming) and prints the task it leaves; `answer` sends the
// answer on that task (streaming), and prints the state it ends in and the task as
// `GetTask` gives it; `get` prints the task, or the error the SDK raised. One JSON
// object each.
const { randomUUID } = require("node:crypto");
const { ClientFactory } = require("@a2a-js/sdk/client");
const { Role, TaskState } = require("@a2a-js/sdk");

(async () => {

const [step, base, ...rest] = process.argv.slice(2);
const client = await new ClientFactory().createFromUrl(base);

const message = (text, extra = {}) => ({
  messageId: randomUUID(), contextId: "", taskId: "", role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata: undefined, extensions: [], referenceTaskIds: [], ...extra,
});
const textOf = (parts) => (parts || []).filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("\n");
const described = (task) => ({
  id: task.id,
  context_id: task.contextId,
  state: TaskState[task.status.state],
  status_text: textOf(task.status.message?.parts),
  answer: (task.artifacts || []).map((a) => textOf(a.parts)).join("\n"),
  history_roles: (task.history || []).map((m) => Role[m.role]),
});

async function send(msg) {
  let task;
  for await (const response of client.sendMessageStream({ tenant: "", message: msg, configuration: undefined, metadata: undefined })) {
    const { $case, value } = response.payload ?? response;
    if ($case === "task") task = value;
    else if ($case === "statusUpdate") task.status = value.status;
    else if ($case === "artifactUpdate") task.artifacts.push(value.artifact);
  }
  return task;
}

const get = (id) => client.getTask({ tenant: "", id, historyLength: undefined });

let out;
if (step === "ask") {
  out = described(await send(message(rest[0])));
} else if (step === "answer") {
  const [taskId, contextId, answer] = rest;
  const done = await send(message(answer, { taskId, contextId }));
  out = { final_state: TaskState[done.status.state], fetched: described(await get(taskId)) };
} else if (step === "get") {
  try {
    out = described(await get(rest[0]));
  } catch (error) {
    out = { error: error.constructor.name };
  }
} else {
  throw new Error(`unknown step ${step}`);
}
console.log(JSON.stringify(out));
})().catch((error) => { console.error(error); process.exit(1); });
