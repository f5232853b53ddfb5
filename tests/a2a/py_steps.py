"""The official A2A Python SDK's client (a2a-sdk 1.3, A2A 1.0), one step of a task at a
time, so that the server may be killed, restarted or swapped for a replica in between.

usage: py_steps.py ask BASE_URL TASK_TEXT
       py_steps.py answer BASE_URL TASK_ID CONTEXT_ID ANSWER
       py_steps.py get BASE_URL TASK_ID

`ask` sends TASK_TEXT (streaming) and prints the task it leaves: its id, context id,
state and status message. `answer` sends ANSWER on that task (streaming) and prints the
state it ends in, then the task as `GetTask` gives it. `get` prints the task as
`GetTask` gives it, or the error the SDK raised. Each prints one JSON object.
"""
import asyncio
import json
import sys
import uuid

from a2a.client import ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState


def text_of(parts):
    return "\n".join(p.text for p in parts if p.HasField("text"))


def described(task):
    return {
        "id": task.id,
        "context_id": task.context_id,
        "state": TaskState.Name(task.status.state),
        "status_text": text_of(task.status.message.parts),
        "answer": "\n".join(text_of(a.parts) for a in task.artifacts),
        "history_roles": [Role.Name(m.role) for m in task.history],
    }


async def send(client, message):
    task = None
    async for response in client.send_message(SendMessageRequest(message=message)):
        kind = response.WhichOneof("payload")
        if kind == "task":
            task = response.task
        elif kind == "status_update":
            task.status.CopyFrom(response.status_update.status)
        elif kind == "artifact_update":
            task.artifacts.append(response.artifact_update.artifact)
    return task


async def main():
    step, base = sys.argv[1], sys.argv[2]
    client = await ClientFactory(ClientConfig(streaming=True)).create_from_url(base)
    if step == "ask":
        message = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()),
                          parts=[Part(text=sys.argv[3])])
        out = described(await send(client, message))
    elif step == "answer":
        task_id, context_id, answer = sys.argv[3], sys.argv[4], sys.argv[5]
        message = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), task_id=task_id,
                          context_id=context_id, parts=[Part(text=answer)])
        done = await send(client, message)
        out = {"final_state": TaskState.Name(done.status.state)}
        out["fetched"] = described(await client.get_task(GetTaskRequest(id=task_id)))
    elif step == "get":
        try:
            out = described(await client.get_task(GetTaskRequest(id=sys.argv[3])))
        except Exception as error:  # noqa: BLE001 - the SDK's typed errors, named
            out = {"error": type(error).__name__}
    else:
        raise SystemExit(f"unknown step {step!r}")
    await client.close()
    print(json.dumps(out))


asyncio.run(main())
