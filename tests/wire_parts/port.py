"""The Python port's side of tests/wire_parts.rs.

`port.py write FIXTURE_PNG` prints {"toolResult", "transcript"}: a ToolResult and a
transcript holding every kind of part, built with the Python port's own constructors
(toolnexus.content) and its own transcript builders (toolnexus.client).

`port.py read` reads the same shape on stdin, loads every part through the port
(from_dict, validate, to_dict; ToolResult through its dataclass) and prints it back.
"""

import json
import sys

from toolnexus import content as parts_
from toolnexus.client import _prompt_content, _tool_message
from toolnexus.types import ToolResult


def every_part(png_path):
    return [
        parts_.text("Here is what the camera saw."),
        parts_.image(png_path),
        parts_.image("https://example.com/cat.png"),
        parts_.file(b"%PDF-1.7\n", mime_type="application/pdf", name="report.pdf"),
        parts_.file("https://example.com/paper.pdf", name="paper.pdf"),
        parts_.audio(b"RIFF\x24\x00\x00\x00WAVE", mime_type="audio/wav"),
        parts_.audio("data:audio/mpeg;base64,SUQzBAA="),
    ]


def result_wire(result):
    """The contract's ToolResult keys: output, isError, parts?, metadata?."""
    out = {"output": result.output, "isError": result.is_error}
    if result.parts:
        out["parts"] = parts_.normalize_parts(result.parts)
    if result.metadata:
        out["metadata"] = result.metadata
    return out


def write(png_path):
    every = every_part(png_path)
    result = ToolResult(
        output="a picture, a report and a sound",
        is_error=False,
        metadata={"title": "snapshot"},
        parts=parts_.normalize_parts(every),
    )
    call = {"id": "call_1", "type": "function", "function": {"name": "snapshot", "arguments": "{}"}}
    transcript = [
        {"role": "system", "content": "You look at things."},
        {"role": "user", "content": _prompt_content(every[1:3] + [parts_.text("What is this?")])},
        {"role": "assistant", "tool_calls": [call]},
        _tool_message("call_1", "snapshot", result),
        {"role": "assistant", "content": "A cat, a report and a sound."},
        {"role": "user", "content": _prompt_content("Thanks.")},
    ]
    return {"toolResult": result_wire(result), "transcript": transcript}


def reload_parts(items):
    return [parts_.to_dict(parts_.validate(parts_.from_dict(p))) for p in items]


def read(doc):
    wire = doc["toolResult"]
    result = ToolResult(
        output=wire["output"],
        is_error=wire["isError"],
        metadata=wire.get("metadata"),
        parts=reload_parts(wire["parts"]) if "parts" in wire else None,
    )
    transcript = []
    for message in doc["transcript"]:
        message = dict(message)
        if message["role"] == "user" and isinstance(message["content"], list):
            message["content"] = _prompt_content(reload_parts(message["content"]))
        if message["role"] == "tool" and "parts" in message:
            message["parts"] = reload_parts(message["parts"])
        transcript.append(message)
    return {"toolResult": result_wire(result), "transcript": transcript}


if __name__ == "__main__":
    if sys.argv[1] == "write":
        out = write(sys.argv[2])
    else:
        out = read(json.load(sys.stdin))
    json.dump(out, sys.stdout, sort_keys=True, separators=(",", ":"))
