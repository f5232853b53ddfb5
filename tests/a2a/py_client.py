"""The official A2A Python SDK's client (a2a-sdk 1.3, A2A 1.0) against a served agent.

usage: py_client.py BASE_URL TASK_TEXT ANSWER [--polling]

Sends TASK_TEXT, expects the task to ask (input-required), answers it with a second
message on the same task, and prints one JSON object with what it saw: the states, the
status message (and the request in its metadata), the answer's artifact, and the errors the agent gave for bad calls.
"""
import asyncio
import json
import sys
import uuid

from a2a.client import ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import (
    CancelTaskRequest, GetTaskRequest, ListTasksRequest, Message, Part, Role,
    SendMessageRequest, TaskState,
)
from google.protobuf.json_format import MessageToDict


def state_name(state):
    return TaskState.Name(state)


def text_of(parts):
    return "\n".join(p.text for p in parts if p.HasField("text"))


async def send(client, message):
    """The events of one send, as dicts, and the task they leave."""
    events, task = [], None
    async for response in client.send_message(SendMessageRequest(message=message)):
        kind = response.WhichOneof("payload")
        events.append(kind)
        if kind == "task":
            task = response.task
        elif kind == "status_update":
            task.status.CopyFrom(response.status_update.status)
        elif kind == "artifact_update":
            task.artifacts.append(response.artifact_update.artifact)
    return events, task


async def error_of(call):
    try:
        await call
    except Exception as error:  # noqa: BLE001 - the SDK's typed errors, named
        return type(error).__name__
    return None


async def main():
    base, text, answer = sys.argv[1], sys.argv[2], sys.argv[3]
    streaming = "--polling" not in sys.argv
    client = await ClientFactory(ClientConfig(streaming=streaming)).create_from_url(base)
    out = {"streaming": streaming}
    first = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=[Part(text=text)])
    events, task = await send(client, first)
    out["first_events"] = events
    out["asked_state"] = state_name(task.status.state)
    out["asked"] = text_of(task.status.message.parts)
    out["asked_request"] = MessageToDict(task.status.message.metadata).get("toolnexus/request")
    reply = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), task_id=task.id,
                    context_id=task.context_id, parts=[Part(text=answer)])
    events, done = await send(client, reply)
    out["second_events"] = events
    out["same_task"] = done.id == task.id
    out["final_state"] = state_name(done.status.state)
    fetched = await client.get_task(GetTaskRequest(id=task.id))
    out["fetched_state"] = state_name(fetched.status.state)
    out["answer"] = "\n".join(text_of(a.parts) for a in fetched.artifacts)
    out["history_roles"] = [Role.Name(m.role) for m in fetched.history]
    listed = await client.list_tasks(ListTasksRequest(context_id=task.context_id))
    out["listed"] = [t.id for t in listed.tasks]
    # Bad calls, answered with A2A's errors (the SDK raises them typed).
    out["unknown_task"] = await error_of(client.get_task(GetTaskRequest(id="no-such-task")))
    out["cancel_completed"] = await error_of(client.cancel_task(CancelTaskRequest(id=task.id)))
    late = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), task_id=task.id,
                   parts=[Part(text="again")])
    out["message_to_completed"] = await error_of(send(client, late))
    await client.close()
    print(json.dumps(out))


asyncio.run(main())
