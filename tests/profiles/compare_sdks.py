"""Runs the providers' own schema conversions over toolnexus's canonical schemas.

Input: a JSON file {tool name: canonical schema}. Output (stdout): JSON
{"versions": {...}, "results": {tool: {"openai": {"ok": schema} | {"error": text},
"anthropic": {...}}}, "absent": {sdk: why}}.

- OpenAI: the Python SDK's strict-schema helper, `openai.lib._pydantic._ensure_strict_json_schema`
  (what `to_strict_json_schema` and `pydantic_function_tool` apply to a model's schema).
- Anthropic: the Python SDK's `transform_schema` (`anthropic.lib._parse._transform`),
  what it applies to schemas for structured outputs and strict tools. It is written for
  pydantic's schemas, which never use a list of types; it fails on `"type": ["T", "null"]`
  (an assertion). So the schema is first rewritten the way pydantic writes `Optional[T]`,
  `anyOf: [T, {"type": "null"}]` with the description outside: the same rewrite
  toolnexus's anthropic_strict profile does, so that what is compared is everything else.

Exit code 3 when the OpenAI SDK is not installed at all.
"""

import copy
import json
import sys


def run(function, schema):
    try:
        return {"ok": function(copy.deepcopy(schema))}
    except Exception as error:  # the SDK's refusal is a result to compare, not a crash
        return {"error": f"{type(error).__name__}: {error}"}


def pydantic_style(schema):
    """`{"type": ["T", "null"], ...}` -> `{"anyOf": [{"type": "T", ...}, {"type": "null"}]}`."""
    if isinstance(schema, list):
        return [pydantic_style(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: pydantic_style(value) for key, value in schema.items()}
    kinds = schema.get("type")
    if isinstance(kinds, list) and "enum" not in schema and "const" not in schema:
        outside = {key: schema.pop(key) for key in ("description", "title") if key in schema}
        schema.pop("type")
        variants = [dict(schema, type=kind) if kind != "null" else {"type": "null"} for kind in kinds]
        return {"anyOf": variants, **outside}
    return schema


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        corpus = json.load(file)
    try:
        import openai
        from openai.lib._pydantic import _ensure_strict_json_schema
    except ImportError as error:
        print(json.dumps({"missing": f"openai: {error}"}))
        sys.exit(3)
    versions = {"openai": openai.__version__}
    absent = {}
    sdks = {
        "openai": lambda schema: _ensure_strict_json_schema(schema, path=(), root=schema),
    }
    try:
        import anthropic
        from anthropic.lib._parse._transform import transform_schema

        versions["anthropic"] = anthropic.__version__
        sdks["anthropic"] = lambda schema: transform_schema(pydantic_style(schema))
    except ImportError as error:
        absent["anthropic"] = f"no schema transform in this anthropic package: {error}"
    results = {
        name: {sdk: run(function, schema) for sdk, function in sdks.items()}
        for name, schema in corpus.items()
    }
    print(json.dumps({"versions": versions, "results": results, "absent": absent}))


if __name__ == "__main__":
    main()
