"""An MCP server written with the official Python SDK (`MCPServer`), OpenTelemetry on.

    python otel_server.py SPANS_FILE     # stdio

The SDK's `OpenTelemetryMiddleware` wraps every request in a SERVER span that continues
the caller's trace from `_meta.traceparent`. Each finished span is appended to SPANS_FILE
as one JSON line, for tests/tracing_mcp.rs to read.
"""

import json
import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class JsonLines(SpanExporter):
    def __init__(self, path: str):
        self.path = path

    def export(self, spans):
        with open(self.path, "a", encoding="utf-8") as out:
            for span in spans:
                parent = span.parent
                out.write(
                    json.dumps(
                        {
                            "name": span.name,
                            "kind": span.kind.name,
                            "trace_id": format(span.context.trace_id, "032x"),
                            "span_id": format(span.context.span_id, "016x"),
                            "parent_span_id": format(parent.span_id, "016x") if parent else None,
                            "parent_is_remote": bool(parent and parent.is_remote),
                            "attributes": {k: str(v) for k, v in span.attributes.items()},
                        }
                    )
                    + "\n"
                )
        return SpanExportResult.SUCCESS


if len(sys.argv) != 2:
    sys.exit(__doc__)
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(JsonLines(sys.argv[1])))
trace.set_tracer_provider(provider)

from mcp.server.mcpserver import MCPServer  # noqa: E402

server = MCPServer("python-traced")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    server.run()
