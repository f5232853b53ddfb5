"""Validates Gemini function declarations with google-genai's own model.

Usage: check_gemini.py INPUT.json (a list of declarations); prints {name: "ok" | error}.
"""

import json
import sys

try:
    from google.genai import types
except ImportError as error:
    print(f"google-genai is not installed: {error}")
    sys.exit(3)

with open(sys.argv[1]) as handle:
    declarations = json.load(handle)
report = {}
for declaration in declarations:
    try:
        types.FunctionDeclaration.model_validate(declaration)
        report[declaration["name"]] = "ok"
    except Exception as error:  # noqa: BLE001 - reported per declaration
        report[declaration["name"]] = str(error)[:500]
json.dump(report, sys.stdout)
