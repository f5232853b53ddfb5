"""Drive task tools with the official Python MCP SDK 2.3 and print what happened as JSON;
the Rust test (tests/mcp_tasks.rs) makes the assertions.

    python client.py URL

The SDK has no task support of its own (its task types are 2025-11-25 only); it has a
generic client-extension hook, and this is the way an application uses it for the
`io.modelcontextprotocol/tasks` extension: a `ClientExtension` that declares the
extension (the SDK puts it in every request's per-request capabilities) and claims the
`tools/call` result `resultType: "task"`. Its `resolve` polls `tasks/get` through the
SDK's session, answers `inputRequests` with `tasks/update`, and returns the final
`CallToolResult`, so `client.call_tool` looks synchronous to the caller.
"""

import json
import sys
from typing import Any, ClassVar, Literal

import anyio
from mcp.client import Client
from mcp.client.extension import ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"


class TaskHandle(Result):
    """`CreateTaskResult`: a `Task` flattened next to `resultType: "task"`."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str


class DetailedTask(Result):
    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None


class TaskParams(RequestParams):
    model_config = ConfigDict(extra="allow")
    task_id: str
    input_responses: dict[str, Any] | None = None


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param: ClassVar[str | None] = "taskId"


class UpdateTask(Request[TaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param: ClassVar[str | None] = "taskId"


class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param: ClassVar[str | None] = "taskId"


SEEN: list[dict] = []


async def follow(handle: TaskHandle, ctx) -> CallToolResult:
    session = ctx.session
    record = {"tool": ctx.tool_name, "taskId": handle.task_id, "created": handle.status, "statuses": []}
    SEEN.append(record)
    answered: set[str] = set()
    with anyio.fail_after(30):
        while True:
            task = await session.send_request(GetTask(params=TaskParams(task_id=handle.task_id)), DetailedTask)
            if not record["statuses"] or record["statuses"][-1] != task.status:
                record["statuses"].append(task.status)
            if task.status == "completed":
                return CallToolResult.model_validate(task.result)
            if task.status in ("failed", "cancelled"):
                return CallToolResult(content=[{"type": "text", "text": task.status}], is_error=True)
            if task.status == "input_required":
                for key, request in (task.input_requests or {}).items():
                    if key in answered:
                        continue
                    answered.add(key)
                    record["asked"] = request["params"]["message"]
                    responses = {key: {"action": "accept", "content": {"answer": "prod"}}}
                    params = TaskParams(task_id=handle.task_id, input_responses=responses)
                    await session.send_request(UpdateTask(params=params), Result)
            if ctx.tool_name == "hang" and task.status == "working" and "cancel" not in record:
                record["cancel"] = "sent"
                await session.send_request(CancelTask(params=TaskParams(task_id=handle.task_id)), Result)
            await anyio.sleep(0.02)


class Tasks(ClientExtension):
    identifier = TASKS

    def claims(self):
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=follow)]


def text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


async def main(url: str) -> None:
    results = {}
    async with Client(url, mode="2026-07-28", extensions=[Tasks()]) as client:
        for name, args in [("build", {"ms": 50}), ("deploy", {}), ("hang", {}), ("echo", {"text": "hi"})]:
            result = await client.call_tool(name, args)
            results[name] = {"text": text(result), "isError": bool(result.is_error)}
    print(json.dumps({"results": results, "tasks": SEEN}))


anyio.run(main, sys.argv[1])
