// Calls through a load balancer in front of stateless MCP replicas, with the official
// TypeScript MCP SDK; one replica is killed halfway (tests/mcp_lb.rs). The same protocol
// and report as client.py:
//
//     NODE_PATH=$TOOLNEXUS_NODE_MODULES node client.cjs URL CALLS SLOW_CALLS
"use strict";

const readline = require("node:readline");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

const CONCURRENCY = 32;
const PATIENCE_MS = 30000;

// A small seeded generator (mulberry32), so runs are repeatable.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function pool(jobs, limit) {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, jobs.length) }, async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      await job();
    }
  });
  await Promise.all(workers);
}

async function main() {
  const [url, callsArg, slowArg] = process.argv.slice(2);
  const calls = Number(callsArg);
  const slowCalls = Number(slowArg);
  const random = rng(11);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const tally = { results: new Map(), failures: [], hangs: 0, lost: 0, duplicates: 0 };
  const began = Date.now();

  const client = new Client({ name: "lb-test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));

  const one = (index, phase, a, b, ms) => async () => {
    const name = ms === undefined ? "add" : "slow_add";
    const args = ms === undefined ? { a, b } : { a, b, ms };
    for (let attempt = 1; attempt <= 3; attempt++) {
      let result;
      try {
        result = await client.callTool({ name, arguments: args }, undefined, { timeout: PATIENCE_MS });
      } catch (error) {
        if (error && error.code === -32001 /* request timeout */) {
          tally.hangs++;
          return;
        }
        tally.failures.push({ call: index, attempt, phase, code: error?.code ?? null, message: String(error?.message ?? error) });
        continue;
      }
      const text = result.content?.[0]?.text ?? "";
      const [value, replica] = text.split(" from ");
      if (tally.results.has(index)) tally.duplicates++;
      tally.results.set(index, { correct: value === String(a + b) && !result.isError, replica, attempt, phase });
      return;
    }
    tally.lost++;
  };
  const batch = (start, count, phase) =>
    Array.from({ length: count }, (_, k) => one(start + k, phase, int(-1e9, 1e9), int(-1e9, 1e9)));

  const lines = readline.createInterface({ input: process.stdin });
  const nextLine = () => new Promise((resolve) => lines.once("line", resolve));
  const half = Math.floor(calls / 2);
  await pool(batch(0, half, "before"), CONCURRENCY);
  process.stdout.write("ready\n");
  await nextLine();
  const slow = Promise.all(
    Array.from({ length: slowCalls }, (_, k) => one(calls + k, "slow", int(0, 1000), int(0, 1000), 3000)()),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.stdout.write("slow-calls-sent\n");
  await nextLine();
  lines.close();
  await pool(batch(half, calls - half, "after"), CONCURRENCY);
  await slow;
  await client.close();

  const phases = {};
  let correct = 0;
  let maxAttempts = 0;
  for (const r of tally.results.values()) {
    const entry = (phases[r.phase] ??= { answered: 0, correct: 0, replicas: {}, retried: {} });
    entry.answered++;
    entry.correct += r.correct ? 1 : 0;
    entry.replicas[r.replica] = (entry.replicas[r.replica] ?? 0) + 1;
    if (r.attempt > 1) entry.retried[r.replica] = (entry.retried[r.replica] ?? 0) + 1;
    correct += r.correct ? 1 : 0;
    maxAttempts = Math.max(maxAttempts, r.attempt);
  }
  const report = {
    sdk: "typescript",
    calls: calls + slowCalls,
    answered: tally.results.size,
    correct,
    duplicates: tally.duplicates,
    hangs: tally.hangs,
    lost: tally.lost,
    failed_attempts: tally.failures.length,
    failures: tally.failures.slice(0, 20),
    max_attempts: maxAttempts,
    phases,
    seconds: (Date.now() - began) / 1000,
  };
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
