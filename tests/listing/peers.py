"""The quickstart's tools as Pydantic AI and the OpenAI Agents SDK list them.

Prints {"pydantic_ai": {name: entry}, "openai_agents": {name: entry}}, each entry in the
Chat Completions tool shape {"type": "function", "function": {...}} so the bytes compare.
"""
import json
import sys
from typing import Optional

from agents import function_tool
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel


def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


def divide(a: float, b: float) -> float:
    """Divide `a` by `b`.

    Args:
        a: The dividend.
        b: The divisor; must not be zero.
    """
    return a / b


def deploy_service(env: Optional[str] = None) -> str:
    """Deploy the service; asks which environment when none is given.

    Args:
        env: The environment to deploy to (`staging` or `production`).
    """
    return env or ""


def screenshot() -> str:
    """Take a screenshot of the current screen."""
    return ""


TOOLS = [add, divide, deploy_service, screenshot]


def openai_shape(name, description, parameters):
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


model = TestModel(call_tools=[])
agent = Agent(model, tools=TOOLS)
agent.run_sync("hi")
pydantic = {
    t.name: openai_shape(t.name, t.description, t.parameters_json_schema)
    for t in model.last_model_request_parameters.function_tools
}
agents = {}
for f in TOOLS:
    t = function_tool(f)
    agents[t.name] = openai_shape(t.name, t.description, t.params_json_schema)
json.dump({"pydantic_ai": pydantic, "openai_agents": agents}, sys.stdout)
