"""Two agents on the official A2A Python SDK's server (a2a-sdk 1.3, A2A 1.0), on one port.

usage: py_server.py    (prints `listening on http://127.0.0.1:PORT` first; stops when
stdin closes)

- `Echo Agent` (card at /echo/.well-known/agent-card.json, no streaming): completes at
  once with the artifact `echo: <text>`.
- `Streaming Echo` (card at /secho/.well-known/agent-card.json): the echo agent with
  streaming, for the round-trip benchmark.
- `Asker` (card at /asker/.well-known/agent-card.json, streaming): asks `Which
  environment?` (input-required), and completes with `deploying to <answer>` once the
  next message on the same task answers.
"""
import asyncio
import socket
import sys
import threading

import uvicorn
from starlette.applications import Starlette

from a2a.server.agent_execution.agent_executor import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks.inmemory_task_store import InMemoryTaskStore
from a2a.server.tasks.task_updater import TaskUpdater
from a2a.types import (
    AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part, Task, TaskState, TaskStatus,
)


class Echo(AgentExecutor):
    async def execute(self, context, event_queue):
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            await event_queue.enqueue_event(Task(
                id=context.task_id, context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED), history=[context.message]))
        await updater.start_work()
        await updater.add_artifact([Part(text=f"echo: {context.get_user_input()}")], name="echo")
        await updater.complete()

    async def cancel(self, context, event_queue):
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


class Asker(AgentExecutor):
    async def execute(self, context, event_queue):
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            await event_queue.enqueue_event(Task(
                id=context.task_id, context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED), history=[context.message]))
            await updater.requires_input(
                updater.new_agent_message([Part(text="Which environment?")]))
            return
        await updater.start_work()
        answer = context.get_user_input()
        await updater.add_artifact([Part(text=f"deploying to {answer}")], name="deploy")
        await updater.complete()

    async def cancel(self, context, event_queue):
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def agent(base, path, name, skill, executor, streaming):
    card = AgentCard(
        name=name, description=f"{name}, on the A2A Python SDK", version="1.0.0",
        supported_interfaces=[AgentInterface(
            url=f"{base}{path}/", protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=streaming, push_notifications=False),
        default_input_modes=["text/plain"], default_output_modes=["text/plain"],
        skills=[AgentSkill(id=skill, name=skill.title(), description=f"The {skill} skill.",
                           tags=[skill])],
    )
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    return (create_agent_card_routes(agent_card=card, card_url=f"{path}/.well-known/agent-card.json")
            + create_jsonrpc_routes(request_handler=handler, rpc_url=f"{path}/"))


async def main():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn accepts them
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    routes = (agent(base, "/echo", "Echo Agent", "echo", Echo(), False)
              + agent(base, "/secho", "Streaming Echo", "echo", Echo(), True)
              + agent(base, "/asker", "Asker", "deploy", Asker(), True))
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=routes), log_level="warning"))

    def watch_stdin():
        sys.stdin.read()
        server.should_exit = True

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"listening on {base}", flush=True)
    await server.serve(sockets=[sock])


asyncio.run(main())
