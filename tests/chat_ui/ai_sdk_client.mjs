// The AI SDK (npm `ai` 7) against toolnexus::ui::ai_sdk: its own chat transport
// (DefaultChatTransport, which checks every chunk against the SDK's chunk schema) sends
// the chat, its own reader (readUIMessageStream) builds the assistant message; the tool
// part asks for approval, the approval response goes back the way useChat sends it, and
// the continued message shows the tool's output and the answer. A decline and a reused
// approval too. Usage: node ai_sdk_client.mjs URL (NODE_MODULES in the environment).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(process.env.NODE_MODULES.replace(/\/?$/, "/"));
const ai = await import(pathToFileURL(require.resolve("ai")).href);
const { DefaultChatTransport, readUIMessageStream, lastAssistantMessageIsCompleteWithApprovalResponses } = ai;

const api = process.argv[2];
const transport = new DefaultChatTransport({ api });

async function send(chatId, messages, message) {
  const stream = await transport.sendMessages({
    chatId, messages, trigger: "submit-message", messageId: undefined,
    abortSignal: new AbortController().signal,
  });
  const errors = [];
  let last;
  for await (const m of readUIMessageStream({ message: message && structuredClone(message), stream, onError: (e) => errors.push(String(e)), terminateOnError: false })) {
    last = structuredClone(m);
  }
  return { message: last, errors };
}

function user(text) {
  return { id: "u-" + Math.random().toString(36).slice(2), role: "user", parts: [{ type: "text", text }] };
}

function toolPart(message) {
  return message.parts.find((p) => p.type === "dynamic-tool" || p.type.startsWith("tool-"));
}

function respond(message, approved, reason) {
  const answered = structuredClone(message);
  const part = toolPart(answered);
  part.state = "approval-responded";
  part.approval = { ...part.approval, approved, ...(reason ? { reason } : {}) };
  return answered;
}

function text(message) {
  return message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
}

async function asked(chatId, what) {
  const first = user(what);
  const { message, errors } = await send(chatId, [first]);
  assert.deepEqual(errors, []);
  const part = toolPart(message);
  assert.equal(part.toolName, "deploy");
  assert.equal(part.state, "approval-requested", JSON.stringify(message));
  assert.deepEqual(part.input, { service: what });
  assert.ok(part.approval.id);
  return { first, message };
}

// Approved.
{
  const { first, message } = await asked("chat-approve", "web");
  const answered = respond(message, true);
  const messages = [first, answered];
  assert.ok(lastAssistantMessageIsCompleteWithApprovalResponses({ messages }), "useChat would send this");
  const { message: done, errors } = await send("chat-approve", messages, answered);
  assert.deepEqual(errors, []);
  assert.equal(done.id, message.id);
  const part = toolPart(done);
  assert.equal(part.state, "output-available", JSON.stringify(done));
  assert.equal(part.output, "deployed web");
  assert.ok(text(done).includes("Done: deployed web."), JSON.stringify(done));
  console.log(JSON.stringify({ check: "approved", parts: done.parts.map((p) => p.type) }));

  // The same approval again.
  const replay = await send("chat-approve", messages, answered);
  assert.ok(replay.errors.some((e) => e.includes("answered already")), JSON.stringify(replay.errors));
  console.log(JSON.stringify({ check: "answered twice", errors: replay.errors }));
}

// Declined.
{
  const { first, message } = await asked("chat-decline", "db");
  const answered = respond(message, false, "not today");
  const { message: done, errors } = await send("chat-decline", [first, answered], answered);
  assert.deepEqual(errors, []);
  assert.equal(toolPart(done).state, "output-denied", JSON.stringify(done));
  assert.ok(text(done).includes("Not deployed"), JSON.stringify(done));
  console.log(JSON.stringify({ check: "declined", text: text(done) }));
}

// An approval of one chat answered in another.
{
  const { first, message } = await asked("chat-owner", "api");
  const answered = respond(message, true);
  const stolen = await send("chat-thief", [first, answered], answered);
  // Refused as unknown: the other chat learns nothing of it.
  assert.ok(stolen.errors.some((e) => e.includes("no approval with the id")), JSON.stringify(stolen.errors));
  console.log(JSON.stringify({ check: "other chat", errors: stolen.errors }));
}
console.log(JSON.stringify({ check: "all" }));
