"""The durable-run workload of benches/durable.rs on LangGraph with its SqliteSaver.

One run: a scripted model makes 10 turns of 3 tool calls (add, upper, echo), then
answers; every step is checkpointed to a SQLite file (WAL, as RunStore uses). Also the
same graph with no checkpointer. Prints the mean time per run of each, in microseconds.

    python benches/langgraph/run.py [runs]

Versions: langgraph==1.2.22 langgraph-checkpoint-sqlite==3.1.2 (see BENCHMARKS.md).
"""

import os
import sqlite3
import sys
import tempfile
import time
import uuid

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

TURNS, CALLS = 10, 3


@tool
def add(a: int, b: int) -> str:
    """Adds."""
    return str(a + b)


@tool
def upper(s: str) -> str:
    """Upper-cases."""
    return s.upper()


@tool
def echo(s: str) -> str:
    """Echoes."""
    return s


def model(state: MessagesState):
    """Scripted by the transcript alone, as the Rust bench's model."""
    done = sum(isinstance(m, ToolMessage) for m in state["messages"])
    turn = done // CALLS
    if turn >= TURNS:
        return {"messages": [AIMessage(content="done")]}
    calls = [
        {"id": f"a{turn}", "name": "add", "args": {"a": 20, "b": 22}},
        {"id": f"u{turn}", "name": "upper", "args": {"s": "abc"}},
        {"id": f"e{turn}", "name": "echo", "args": {"s": "hi"}},
    ]
    return {"messages": [AIMessage(content="", tool_calls=calls)]}


def route(state: MessagesState):
    return "tools" if state["messages"][-1].tool_calls else END


def graph(checkpointer):
    g = StateGraph(MessagesState)
    g.add_node("model", model)
    g.add_node("tools", ToolNode([add, upper, echo]))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", route, ["tools", END])
    g.add_edge("tools", "model")
    return g.compile(checkpointer=checkpointer)


def run_once(app, durable):
    config = {"recursion_limit": 100}
    if durable:
        config["configurable"] = {"thread_id": uuid.uuid4().hex}
    out = app.invoke({"messages": [HumanMessage(content="go")]}, config)
    tool_messages = sum(isinstance(m, ToolMessage) for m in out["messages"])
    assert tool_messages == TURNS * CALLS, tool_messages
    assert out["messages"][-1].content == "done"


def measure(app, durable, runs):
    for _ in range(3):  # warm-up
        run_once(app, durable)
    start = time.perf_counter()
    for _ in range(runs):
        run_once(app, durable)
    return (time.perf_counter() - start) / runs * 1e6


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    path = os.path.join(tempfile.mkdtemp(), "langgraph.db")
    conn = sqlite3.connect(path, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    saver = SqliteSaver(conn)
    no_store = measure(graph(None), False, runs)
    sqlite_saver = measure(graph(saver), True, runs)
    print(f"langgraph/no_checkpointer: {no_store:.0f} us per run ({runs} runs)")
    print(f"langgraph/sqlite_saver: {sqlite_saver:.0f} us per run ({runs} runs)")


if __name__ == "__main__":
    main()
