"""The Python port's agent runtime (toolnexus==0.21.0, toolnexus.agents) on the
scenarios of tests/agents_runtime.rs, against the test's scripted OpenAI-compatible
server (argv[1]) and a virtual clock. Prints one JSON object: scenario name -> record,
in the shape the Rust side records its own."""
import asyncio
import json
import sys
import urllib.request

from toolnexus.agents import AgentDef, AgentRuntime, Budget, InboxItem, agent, compose_soul, memory_tool, start_agent
from toolnexus.types import Answer, Tool, ToolResult, pending

URL = sys.argv[1]
LLM = {"base_url": URL + "/v1", "style": "openai", "model": "m", "api_key": "k"}


class VirtualClock:
    """The runtime's injectable clock, moved by hand."""

    def __init__(self):
        self.t = 0.0
        self.timers = []

    def now(self):
        return self.t

    async def sleep(self, seconds):
        fut = asyncio.get_running_loop().create_future()
        self.timers.append((self.t + seconds, lambda: fut.done() or fut.set_result(None)))
        await fut

    def call_later(self, seconds, cb):
        entry = [self.t + seconds, cb, False]
        self.timers.append((entry[0], lambda: entry[2] or cb()))

        class H:
            def cancel(self_inner):
                entry[2] = True

        return H()

    def sleepers(self):
        return len(self.timers)

    def advance(self, seconds):
        self.t += seconds
        due = [t for t in self.timers if t[0] <= self.t]
        self.timers = [t for t in self.timers if t[0] > self.t]
        for _, cb in due:
            cb()


def get(path):
    return json.loads(urllib.request.urlopen(URL + path, timeout=10).read() or b"null")


async def until(f):
    for _ in range(5000):
        if await f():
            return
        await asyncio.sleep(0.002)
    raise RuntimeError("the condition never held")


def d(name, **kw):
    return AgentDef(name=name, description=kw.pop("description", name), system_prompt="agent:" + kw.pop("soul", name), model="inherit", **kw)


def rec(r):
    return {"status": r.status, "limit": r.limit, "text": r.text, "totalTokens": r.total_tokens, "turns": r.turns}


def views(rt):
    return [{"id": v.id, "state": v.state, "tokens": v.tokens, "inbox": v.inbox} for v in rt.list()]


async def team_budget():
    reg = {"lead": d("lead", soul="lead-budget", budget=Budget(max_tokens=100), task_targets=["worker"]), "worker": d("worker")}
    rt = AgentRuntime(registry=reg, llm=LLM, clock=VirtualClock())
    h = rt.spawn(rt.root, "lead")
    rt.wake(h, "go")
    first = await rt.wait(h)
    tools = [m["content"] for m in await rt.conversation_store.get(h.id) if m.get("role") == "tool"]
    rt.wake(h, "again")
    second = await rt.wait(h)
    return {"first": rec(first), "tools": tools, "second": rec(second), "handles": views(rt)}


async def inbox():
    rt = AgentRuntime(registry={"reader": d("reader")}, llm=LLM, clock=VirtualClock(), inbox_cap=2)
    h = rt.spawn(rt.root, "reader")
    posts = [rt.post(h, InboxItem(from_="external", channel="external", text=t)).ok for t in ("A", "B", "C")]
    rt.wake(h, "go")
    r = await rt.wait(h)
    child = rt.spawn(h, "reader")
    rt.post(child, InboxItem(from_=h.id, channel="peer", text="from your parent"))
    rt.wake(child, "go")
    c = await rt.wait(child)
    return {"posts": posts, "block": r.text, "afterInbox": rt.inspect(h).inbox, "parentBlock": c.text}


async def queue(budgeted):
    clock = VirtualClock()
    boss = Budget(max_concurrent=1, max_tokens=10) if budgeted else Budget(max_concurrent=1)
    reg = {"boss": d("boss", budget=boss), "a": d("a", soul="w10"), "b": d("b", soul="w10"), "c": d("c", soul="w10")}
    rt = AgentRuntime(registry=reg, llm=LLM, clock=clock)
    get("/log?reset=1")
    boss_h = rt.spawn(rt.root, "boss")
    a, b, c = (rt.spawn(boss_h, n) for n in "abc")
    rt.wake(a, "a")
    rt.wake(c, "c")
    rt.wake(b, "b")
    waits = {n: asyncio.ensure_future(rt.wait(h, timeout_ms=1000)) for n, h in (("a", a), ("b", b), ("c", c))}

    async def quiet():
        # Everything that can run has run: all waits answered, or nothing running.
        return all(w.done() for w in waits.values()) or (
            waits["a"].done() and waits["b"].done() and boss_h.running_children == 0
        )

    await until(quiet)
    stuck = [n for n, w in waits.items() if not w.done()]
    clock.advance(1.0)
    results = waits
    out = {n: rec(await w) for n, w in results.items()}
    order = [e["user"] for e in get("/log") if e["soul"] == "agent:w10"]
    return {"results": out, "order": order, "stuck": stuck, "bossTokens": rt.inspect(boss_h).tokens}


async def fanout():
    """Three queued `task` children, the budget spent by the first."""
    clock = VirtualClock()
    reg = {"fanout": d("fanout", budget=Budget(max_concurrent=1, max_tokens=10), task_targets=["a", "b", "c"]),
           "a": d("a", soul="w10"), "b": d("b", soul="w10"), "c": d("c", soul="w10")}
    rt = AgentRuntime(registry=reg, llm=LLM, clock=clock)
    h = rt.spawn(rt.root, "fanout")
    rt.wake(h, "go")
    w = asyncio.ensure_future(rt.wait(h, timeout_ms=1000))

    async def quiet():
        kids = h.children
        return w.done() or (len(kids) == 3 and h.running_children == 0 and all(k.state != "running" for k in kids))

    await until(quiet)
    stuck = not w.done()
    clock.advance(1.0)
    r = await w
    return {"result": rec(r), "stuck": stuck, "children": [(k.id, k.state) for k in h.children]}


async def interrupt():
    rt = AgentRuntime(registry={"slow": d("slow")}, llm=LLM, clock=VirtualClock())
    h = rt.spawn(rt.root, "slow")
    rt.post(h, InboxItem(from_="external", channel="external", text="X"))
    rt.wake(h, "go")

    async def seen():
        return (await asyncio.to_thread(get, "/hits")) >= 1

    await until(seen)
    rt.interrupt(h)
    r = await rt.wait(h)
    v = rt.inspect(h)
    await asyncio.to_thread(get, "/release")
    return {"result": rec(r), "state": v.state, "inbox": v.inbox}


async def heartbeat():
    clock = VirtualClock()
    reports = []
    pulse = agent("pulse", does="pulse", soul="agent:pulse")
    started = start_agent(pulse, every_ms=1000, on_report=reports.append, llm=LLM, clock=clock)
    h = started.handle
    for turn in (1, 2):
        await until(lambda: asyncio.sleep(0, clock.sleepers() >= 1))
        clock.advance(1.0)
        await until(lambda: asyncio.sleep(0, h.state == "idle" and h.turns_total == turn))
    for _ in range(20):
        await asyncio.sleep(0.002)
    users = [m["content"] for m in await started.rt.conversation_store.get(h.id) if m.get("role") == "user"]
    await started.stop()
    return {"reports": reports, "users": users}


def leaf_tools(runs):
    async def log(args=None, ctx=None):
        runs.append("log")
        return ToolResult(output="logged", is_error=False)

    async def approve(args=None, ctx=None):
        answered = ctx.answer.ok if ctx is not None and ctx.answer is not None else None
        runs.append(f"approve {answered}")
        if answered is None:
            return pending(kind="approval", prompt="Ship it?", id="req-1")
        return ToolResult(output="approved" if answered else "declined", is_error=not answered)

    obj = {"type": "object", "properties": {}}
    return [Tool(name="log", description="Logs.", input_schema=obj, source="native", execute=log),
            Tool(name="approve", description="Asks.", input_schema=obj, source="native", execute=approve)]


async def grandchild(answer_id):
    runs = []
    reg = {
        "lead": d("lead", soul="lead3", task_targets=["mid"]),
        "mid": d("mid", task_targets=["leaf"]),
        "leaf": d("leaf", tools=leaf_tools(runs)),
    }
    rt = AgentRuntime(registry=reg, llm=LLM, clock=VirtualClock())
    h = rt.spawn(rt.root, "lead")
    rt.wake(h, "ship")
    parked = await rt.wait(h)
    states = [(v["id"], v["state"]) for v in views(rt)]
    p = parked.pending
    done = await rt.resume(Answer(id=answer_id, ok=True))
    return {"parked": rec(parked), "request": {"id": p.id, "kind": p.kind, "prompt": p.prompt, "path": p.data.get("path")},
            "states": states, "resumed": rec(done), "runs": runs, "handles": len(rt.list())}


MEMORY_OPS = json.loads(sys.argv[3]) if len(sys.argv) > 3 else []


async def home(folder):
    """The agent home: the soul a folder composes, and the memory tool's edits."""
    soul, found = compose_soul(folder)
    tool = memory_tool(folder)
    ops = []
    for args in MEMORY_OPS:
        r = await tool.execute(args, None)
        ops.append([r.output, r.is_error])
    files = {}
    for name in ("MEMORY.md", "USER.md"):
        with open(f"{folder}/{name}", encoding="utf-8") as fh:
            files[name] = fh.read()
    return {"soul": soul, "found": found, "ops": ops, "files": files}


async def main():
    out = {}
    if len(sys.argv) > 2:
        out["home"] = await home(sys.argv[2])
    out["team_budget"] = await team_budget()
    out["inbox"] = await inbox()
    out["queue"] = await queue(False)
    out["queue_budget"] = await queue(True)
    out["fanout"] = await fanout()
    out["interrupt"] = await interrupt()
    out["heartbeat"] = await heartbeat()
    out["grandchild"] = await grandchild("req-1")
    out["grandchild_wrong_id"] = await grandchild("req-2")
    print(json.dumps(out))


asyncio.run(main())
