"""Calls through a load balancer in front of stateless MCP replicas, with the official
Python MCP SDK; one replica is killed halfway (tests/mcp_lb.rs).

    python client.py URL CALLS SLOW_CALLS

1. CALLS/2 `add` calls, 32 at a time; then it prints `ready` and waits for a line on
   stdin (so that both SDKs' slow calls run at the same time);
2. SLOW_CALLS `slow_add` calls (3 s each) are started; the script prints
   `slow-calls-sent` and waits for a line on stdin: the test kills a replica meanwhile;
3. the other CALLS/2 `add` calls, while the slow ones finish.

A call that fails is retried (up to 3 attempts). The last line on stdout is a JSON report;
the Rust test makes the assertions.
"""

import json
import random
import sys
import time

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

CONCURRENCY = 32
PATIENCE = 30  # seconds; a call that takes longer counts as a hang


class Tally:
    def __init__(self):
        self.results = {}  # call index -> (correct, replica, attempts, phase)
        self.failures = []  # every failed attempt
        self.hangs = 0
        self.lost = 0
        self.duplicates = 0


async def one(session, tally, limiter, index, phase, a, b, ms=None):
    tool, args = ("add", {"a": a, "b": b}) if ms is None else ("slow_add", {"a": a, "b": b, "ms": ms})
    async with limiter:
        for attempt in range(1, 4):
            try:
                with anyio.fail_after(PATIENCE):
                    result = await session.call_tool(tool, args)
            except MCPError as error:
                tally.failures.append({"call": index, "attempt": attempt, "phase": phase,
                                       "code": error.code, "message": error.message})
                continue
            except TimeoutError:
                tally.hangs += 1
                return
            text = result.content[0].text if result.content else ""
            value, _, replica = text.partition(" from ")
            if index in tally.results:
                tally.duplicates += 1
            tally.results[index] = (value == str(a + b) and not result.is_error, replica, attempt, phase)
            return
        tally.lost += 1


async def run(session, tally, limiter, rng, start, count, phase):
    async with anyio.create_task_group() as group:
        for index in range(start, start + count):
            group.start_soon(one, session, tally, limiter, index, phase,
                             rng.randint(-10**9, 10**9), rng.randint(-10**9, 10**9))


async def main(url, calls, slow_calls):
    rng = random.Random(7)
    tally = Tally()
    limiter = anyio.CapacityLimiter(CONCURRENCY)
    slow_limiter = anyio.CapacityLimiter(slow_calls or 1)
    half = calls // 2
    began = time.monotonic()
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await run(session, tally, limiter, rng, 0, half, "before")
            print("ready", flush=True)
            await anyio.to_thread.run_sync(sys.stdin.readline)
            async with anyio.create_task_group() as slow:
                for k in range(slow_calls):
                    slow.start_soon(one, session, tally, slow_limiter, calls + k, "slow",
                                    rng.randint(0, 1000), rng.randint(0, 1000), 3000)
                await anyio.sleep(0.2)
                print("slow-calls-sent", flush=True)
                await anyio.to_thread.run_sync(sys.stdin.readline)
                await run(session, tally, limiter, rng, half, calls - half, "after")
    by_phase = {}
    for correct, replica, attempts, phase in tally.results.values():
        entry = by_phase.setdefault(phase, {"answered": 0, "correct": 0, "replicas": {}, "retried": {}})
        entry["answered"] += 1
        entry["correct"] += bool(correct)
        entry["replicas"][replica] = entry["replicas"].get(replica, 0) + 1
        if attempts > 1:
            entry["retried"][replica] = entry["retried"].get(replica, 0) + 1
    report = {
        "sdk": "python",
        "calls": calls + slow_calls,
        "answered": len(tally.results),
        "correct": sum(1 for r in tally.results.values() if r[0]),
        "duplicates": tally.duplicates,
        "hangs": tally.hangs,
        "lost": tally.lost,
        "failed_attempts": len(tally.failures),
        "failures": tally.failures[:20],
        "max_attempts": max((r[2] for r in tally.results.values()), default=0),
        "phases": by_phase,
        "seconds": round(time.monotonic() - began, 2),
    }
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    anyio.run(main, sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
