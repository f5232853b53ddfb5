// The AG-UI client SDK (@ag-ui/client 1.0) against toolnexus::ui::ag_ui: HttpAgent runs
// to an interrupt, resumes it with resume[], and sees the approved tool's result; a
// decline; an unknown interrupt, one answered twice, and one resumed on another thread
// (refused as unknown); a thread run again without answering, refused without its ids.
// HttpAgent verifies every event it reads (verifyEvents) and fails the run on a stream
// that breaks the protocol. Prints one JSON line per check; exits 1 on a failed check.
const assert = require("node:assert/strict");
const { HttpAgent, EventType } = require("@ag-ui/client");

const url = process.argv[2];

function agent(threadId) {
  return new HttpAgent({ url, threadId });
}

async function run(a, params) {
  const events = [];
  let error;
  try {
    await a.runAgent(params, { onEvent: ({ event }) => { events.push(event); } });
  } catch (e) {
    error = e;
  }
  return { events, error };
}

function say(a, text) {
  a.addMessage({ id: "u-" + Math.random().toString(36).slice(2), role: "user", content: text });
}

function finished(events) {
  return events.find((e) => e.type === EventType.RUN_FINISHED);
}

function runError(result) {
  const event = result.events.find((e) => e.type === EventType.RUN_ERROR);
  return event ? { code: event.code, message: event.message } : undefined;
}

async function interrupted(thread, text) {
  const a = agent(thread);
  say(a, text);
  const first = await run(a);
  assert.equal(first.error, undefined, String(first.error));
  const outcome = finished(first.events).outcome;
  assert.equal(outcome.type, "interrupt");
  assert.equal(outcome.interrupts.length, 1);
  const interrupt = outcome.interrupts[0];
  assert.equal(interrupt.reason, "approval");
  assert.equal(interrupt.message, "Deploy this service?");
  assert.ok(first.events.some((e) => e.type === EventType.TOOL_CALL_START && e.toolCallName === "deploy"));
  assert.equal(interrupt.toolCallId, first.events.find((e) => e.type === EventType.TOOL_CALL_START).toolCallId);
  return { a, interrupt, first };
}

(async () => {
  // Approved: the tool runs and the model's answer follows.
  {
    const { a, interrupt, first } = await interrupted("approve-thread", "web");
    const second = await run(a, { resume: [{ interruptId: interrupt.id, status: "resolved" }] });
    assert.equal(second.error, undefined, String(second.error));
    const result = second.events.find((e) => e.type === EventType.TOOL_CALL_RESULT);
    assert.equal(result.content, "deployed web");
    assert.equal(finished(second.events).outcome.type, "success");
    const text = a.messages.filter((m) => m.role === "assistant").map((m) => m.content).join("");
    assert.ok(text.includes("Done: deployed web."), JSON.stringify(a.messages));
    assert.ok(a.messages.some((m) => m.role === "tool" && m.content === "deployed web"));
    console.log(JSON.stringify({ check: "approved", events: [...first.events, ...second.events] }));

    // The same interrupt again (a fresh agent, so the SDK's own check does not stop it).
    const again = agent("approve-thread");
    const replay = await run(again, { resume: [{ interruptId: interrupt.id, status: "resolved" }] });
    assert.equal(runError(replay)?.code, "interrupt_already_answered", JSON.stringify(replay.events));
    console.log(JSON.stringify({ check: "answered twice", error: runError(replay), events: replay.events }));
  }

  // Declined: the tool does not run; the model hears it was declined.
  {
    const { a, interrupt } = await interrupted("decline-thread", "db");
    const second = await run(a, { resume: [{ interruptId: interrupt.id, status: "cancelled" }] });
    assert.equal(second.error, undefined, String(second.error));
    const result = second.events.find((e) => e.type === EventType.TOOL_CALL_RESULT);
    assert.ok(!String(result.content).includes("deployed db"), result.content);
    const text = a.messages.filter((m) => m.role === "assistant").map((m) => m.content).join("");
    assert.ok(text.includes("Not deployed"), JSON.stringify(a.messages));
    console.log(JSON.stringify({ check: "declined", result: result.content, text, events: second.events }));
  }

  // An interrupt id nobody issued.
  {
    const a = agent("unknown-thread");
    const r = await run(a, { resume: [{ interruptId: "int_0000", status: "resolved" }] });
    assert.equal(runError(r)?.code, "unknown_interrupt", JSON.stringify(r.events));
    console.log(JSON.stringify({ check: "unknown", error: runError(r), events: r.events }));
  }

  // An interrupt of one thread answered on another: refused, and still answerable on its own.
  {
    const { a, interrupt } = await interrupted("owner-thread", "api");
    const thief = agent("other-thread");
    const stolen = await run(thief, { resume: [{ interruptId: interrupt.id, status: "resolved" }] });
    // Refused as unknown: the other thread learns nothing of it.
    assert.equal(runError(stolen)?.code, "unknown_interrupt", JSON.stringify(stolen.events));
    const own = await run(a, { resume: [{ interruptId: interrupt.id, status: "resolved" }] });
    assert.equal(own.error, undefined, String(own.error));
    assert.equal(own.events.find((e) => e.type === EventType.TOOL_CALL_RESULT).content, "deployed api");
    console.log(JSON.stringify({ check: "other thread", error: runError(stolen), events: [...stolen.events, ...own.events] }));
  }

  // A thread with an open interrupt, run again without answering it.
  {
    const { interrupt } = await interrupted("unanswered-thread", "cache");
    const fresh = agent("unanswered-thread");
    say(fresh, "something else");
    const r = await run(fresh);
    assert.equal(runError(r)?.code, "interrupt_not_answered", JSON.stringify(r.events));
    // The refusal names no interrupt: whoever knows a thread id cannot learn its ids.
    assert.ok(!runError(r).message.includes(interrupt.id), runError(r).message);
    console.log(JSON.stringify({ check: "unanswered", error: runError(r), events: r.events }));
  }
  console.log(JSON.stringify({ check: "all" }));
})().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
