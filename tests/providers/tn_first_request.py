"""Runs the contract's Python port (toolnexus 0.21.0) from a unified client config, for
tests/contract_model_config.rs: the same config and skills folder, against the same local mock.

Usage: tn_first_request.py CONFIG_JSON SKILLS_DIR PROMPT. Prints JSON {"system": the
system prompt the port builds, "text": the run's answer}. The request bodies it sent are
what the mock recorded.
"""

import asyncio
import json
import sys

from toolnexus import create_client, create_toolkit


async def main():
    config = json.loads(sys.argv[1])
    names = {"baseUrl": "base_url", "apiKey": "api_key", "systemPrompt": "system_prompt",
             "maxTurns": "max_turns", "style": "style", "model": "model", "headers": "headers",
             "retries": "retries", "retryBaseMs": "retry_base_ms", "timeoutMs": "timeout_ms"}
    client = create_client(**{names[k]: v for k, v in config.items()})
    toolkit = await create_toolkit(skills_dir=sys.argv[2], builtins=False)
    result = await client.run(sys.argv[3], toolkit=toolkit)
    print(json.dumps({"system": client._system(toolkit), "text": result.text}))


asyncio.run(main())
