// Drives a stdio MCP server (spawned from the command line given) with the official
// TypeScript MCP SDK, for tests/mcp_stdio.rs, and prints one JSON report:
//
//     NODE_PATH=$TOOLNEXUS_NODE_MODULES node client.cjs CONCURRENCY ROUNDS BIG_BYTES COMMAND [ARG...]
//
// 1. load: ROUNDS rounds of CONCURRENCY concurrent `add` calls over one connection, each
//    with a 5 s timeout; every answer is checked.
// 2. over-long requests (BIG_BYTES of argument; skipped when 0): a `tools/call` made by
//    the SDK's client (it writes the id last), then, through the SDK's stdio transport,
//    hand-ordered messages with the id first, last, and absent (a notification), each
//    followed by a ping to show the connection still serves.
"use strict";

const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const CALL_TIMEOUT_MS = 5000;

function spawnParams(command) {
  return { command: command[0], args: command.slice(1), stderr: "inherit" };
}

async function load(concurrency, rounds, command) {
  const client = new Client({ name: "stdio-load", version: "0" });
  await client.connect(new StdioClientTransport(spawnParams(command)));
  const report = { calls: 0, correct: 0, wrong: 0, lost: 0, errors: [] };
  const started = Date.now();
  for (let round = 0; round < rounds; round++) {
    const calls = Array.from({ length: concurrency }, async (_, i) => {
      const a = round * 100000 + i;
      const b = i * 7;
      report.calls++;
      try {
        const result = await client.callTool({ name: "add", arguments: { a, b } }, undefined, {
          timeout: CALL_TIMEOUT_MS,
        });
        if (result.content?.[0]?.text === String(a + b)) report.correct++;
        else report.wrong++;
      } catch (error) {
        report.lost++;
        if (report.errors.length < 5) report.errors.push(String(error));
      }
    });
    await Promise.all(calls);
  }
  report.seconds = (Date.now() - started) / 1000;
  // The SDK's client writes its over-long request with the id last.
  const big = Number(process.argv[4]);
  if (big > 0) {
    try {
      await client.callTool({ name: "add", arguments: { a: 1, b: 2, pad: "x".repeat(big) } }, undefined, {
        timeout: CALL_TIMEOUT_MS,
      });
      report.big_call = { result: "answered" };
    } catch (error) {
      report.big_call = { code: error.code ?? null, message: String(error.message ?? error) };
    }
  }
  await client.close();
  return report;
}

// Hand-ordered messages through the SDK's own stdio transport (its framing, its parser).
async function raw(big, command) {
  const transport = new StdioClientTransport(spawnParams(command));
  const answers = [];
  let wake = () => {};
  transport.onmessage = (message) => {
    answers.push(message);
    wake();
  };
  // A line the SDK's own parser refuses (an error with `"id": null`, say) is reported here.
  transport.onerror = (error) => {
    answers.push({ sdk_error: String(error) });
    wake();
  };
  await transport.start();
  const next = (timeoutMs) =>
    new Promise((resolve) => {
      const done = () => resolve(answers.shift() ?? null);
      if (answers.length) return done();
      const timer = setTimeout(() => {
        wake = () => {};
        done();
      }, timeoutMs);
      wake = () => {
        wake = () => {};
        clearTimeout(timer);
        done();
      };
    });
  await transport.send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  });
  await next(CALL_TIMEOUT_MS);
  await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const pad = "x".repeat(big);
  const params = { name: "add", arguments: { a: 1, b: 2, pad } };
  const cases = {
    id_first: { id: "first", jsonrpc: "2.0", method: "tools/call", params },
    id_last: { jsonrpc: "2.0", method: "tools/call", params, id: "last" },
    id_absent: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: pad } },
  };
  const report = {};
  let ping = 100;
  for (const [name, message] of Object.entries(cases)) {
    // The ping right behind it: once it is answered, a message without an id has had its
    // answer, if any, so nothing is waited for with a timeout.
    await transport.send(message);
    await transport.send({ jsonrpc: "2.0", id: ++ping, method: "ping" });
    // A server may answer the ping first: wait for the message's own id too, if it has one.
    const got = [];
    let pinged = false;
    let answer;
    while ((!pinged || ("id" in message && !got.some((a) => a.id === message.id))) &&
      (answer = await next(CALL_TIMEOUT_MS))) {
      if (answer.id === ping) pinged = true;
      else got.push(answer);
    }
    report[name] = { answers: got, ping_answered: pinged };
  }
  await transport.close();
  return report;
}

async function main() {
  const [concurrency, rounds, big, ...command] = process.argv.slice(2);
  const report = { load: await load(Number(concurrency), Number(rounds), command) };
  if (Number(big) > 0) report.over_long = await raw(Number(big), command);
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
