"""An ACP agent built on the official Python SDK (`agent-client-protocol`), after the
SDK's echo agent example, with a tool call on every turn: it thinks aloud (a thought
chunk, which a client must drop), starts a tool call, asks permission to run it (the
client must answer), finishes it, then answers in two message chunks: the option the
client picked and the prompt it was sent, so the caller can compare prompts.

Run by tests/acp.rs, with TOOLNEXUS_PYTHON_ACP.
"""

import asyncio
from typing import Any
from uuid import uuid4

from acp import (
    Agent,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
    start_tool_call,
    text_block,
    update_agent_message,
    update_agent_thought_text,
    update_tool_call,
)
from acp.interfaces import Client
from acp.schema import PermissionOption, ToolCallUpdate


class ToolAgent(Agent):
    _conn: Client

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, client_capabilities=None, client_info=None, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd: str, mcp_servers=None, **kwargs: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=uuid4().hex)

    async def prompt(self, prompt, session_id: str, **kwargs: Any) -> PromptResponse:
        text = "".join(
            block.get("text", "") if isinstance(block, dict) else getattr(block, "text", "") or ""
            for block in prompt
        )
        await self._conn.session_update(session_id=session_id, update=update_agent_thought_text("thinking it over"))
        call = "call_" + uuid4().hex[:8]
        await self._conn.session_update(session_id=session_id, update=start_tool_call(call, "Read notes.md", kind="read", status="pending"))
        options = [
            PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
            PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
        ]
        answer = await self._conn.request_permission(
            session_id=session_id, tool_call=ToolCallUpdate(tool_call_id=call, title="Read notes.md"), options=options
        )
        picked = getattr(answer.outcome, "option_id", None) or answer.outcome.outcome
        await self._conn.session_update(session_id=session_id, update=update_tool_call(call, status="completed"))
        await self._conn.session_update(session_id=session_id, update=update_agent_message(text_block(f"[{picked}] ")))
        await self._conn.session_update(session_id=session_id, update=update_agent_message(text_block(text)))
        return PromptResponse(stop_reason="end_turn")


async def main() -> None:
    await run_agent(ToolAgent())


if __name__ == "__main__":
    asyncio.run(main())
