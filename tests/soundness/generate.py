"""Generates argument objects from JSON schemas with hypothesis-jsonschema.

Usage: generate.py INPUT.json EXAMPLES
INPUT maps a key to a JSON Schema; prints a JSON object mapping each key to
{"examples": [...]} or, when the generator cannot take the schema, {"error": "..."}.
Deterministic unless TOOLNEXUS_SOUNDNESS_RANDOM is set (the longer run).
"""

import json
import os
import sys
import warnings

try:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis_jsonschema import from_schema
except ImportError as error:  # reported to the test, which decides whether that fails
    print(f"hypothesis-jsonschema is not installed: {error}")
    sys.exit(3)

warnings.simplefilter("ignore")


def generate(schema, count):
    found = []

    @settings(
        max_examples=count,
        database=None,
        derandomize=not os.environ.get("TOOLNEXUS_SOUNDNESS_RANDOM"),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
    )
    @given(from_schema(schema))
    def collect(value):
        found.append(value)

    collect()
    return found


def unroll(schema, root, depth):
    """Inlines local references, `depth` levels deep; past that, a reference accepts
    nothing, so the generator ends recursion through an empty list or a `null`."""
    if isinstance(schema, list):
        return [unroll(item, root, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        reference = schema["$ref"]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        if depth <= 0:
            return {"not": {}}
        target = root
        for part in reference.lstrip("#").split("/")[1:]:
            target = target[part.replace("~1", "/").replace("~0", "~")]
        target = {k: v for k, v in target.items() if k != "$defs"}
        inlined = unroll(target, root, depth - 1)
        return {"allOf": [inlined, unroll(rest, root, depth)]} if rest else inlined
    out = {
        key: (value if key in ("enum", "const", "$defs") else unroll(value, root, depth))
        for key, value in schema.items()
        if key != "$defs"
    }
    # hypothesis-jsonschema reads draft 7: a 2020-12 tuple is written the draft-7 way.
    if "prefixItems" in out:
        out["additionalItems"] = out.get("items", False) if "items" in out else True
        out["items"] = out.pop("prefixItems")
    return out


def main():
    with open(sys.argv[1]) as handle:
        schemas = json.load(handle)
    count = int(sys.argv[2])
    report = {}
    done = {}  # the profiles often list the same schema: generate once per schema
    for key, schema in schemas.items():
        text = json.dumps(schema, sort_keys=True)
        if text in done:
            report[key] = done[text]
            continue
        try:
            report[key] = {"examples": generate(unroll(schema, schema, 2), count)}
        except Exception as error:  # noqa: BLE001 - the test reports it per schema
            report[key] = {"error": f"{type(error).__name__}: {error}"[:500]}
        done[text] = report[key]
    json.dump(report, sys.stdout)


main()
