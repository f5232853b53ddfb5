"""The AG-UI Python SDK (ag-ui-protocol 1.0) parses every event of a stream: reads JSON
lines of {"check", "events": [...]}, validates each event against the SDK's event models,
and prints how many it parsed; exits 1 on the first it rejects."""

import json
import sys

from pydantic import TypeAdapter

from ag_ui.core import Event

adapter = TypeAdapter(Event)
parsed = 0
for line in sys.stdin:
    record = json.loads(line)
    for event in record.get("events", []):
        model = adapter.validate_python(event)
        # What the SDK would send back is the same event.
        again = json.loads(model.model_dump_json(by_alias=True, exclude_none=True))
        assert again["type"] == event["type"], (again, event)
        parsed += 1
print(f"parsed {parsed}")
