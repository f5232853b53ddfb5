"""The official Python MCP SDK's client, with OpenTelemetry on, calling one tool.

    python otel_client.py URL TOOL ARGUMENTS_JSON

The SDK opens a CLIENT span per request and puts its W3C trace context in `_meta`
(SEP-414). The spans go to the SDK's in-memory exporter and are printed on stdout as
JSON, with the tool's result, for tests/tracing_mcp.rs to compare with the server's spans.
"""

import json
import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

import anyio  # noqa: E402  (after the provider, so the SDK's tracer resolves to it)
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402


def span_json(span):
    parent = span.parent
    return {
        "name": span.name,
        "kind": span.kind.name,
        "trace_id": format(span.context.trace_id, "032x"),
        "span_id": format(span.context.span_id, "016x"),
        "parent_span_id": format(parent.span_id, "016x") if parent else None,
        "attributes": {key: str(value) for key, value in span.attributes.items()},
    }


async def main(url: str, tool: str, arguments: dict) -> None:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(tool, arguments)
    report = {
        "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
        "spans": [span_json(span) for span in exporter.get_finished_spans()],
    }
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    anyio.run(main, sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))
