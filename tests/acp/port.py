"""The same conversation through the contract's Python port (toolnexus 0.21.0, `acp.py`):
argv[1] the agent's interpreter, argv[2] the agent script, argv[3] a JSON array of
requests (each `{"messages": [...]}`), one turn each on one session. Prints the replies'
texts as a JSON array.
"""

import json
import sys

from toolnexus.acp import ACPOptions, load_acp

client = load_acp(ACPOptions(command=sys.argv[1], args=[sys.argv[2]], permission_timeout=30.0))
try:
    print(json.dumps([client.generate(request)["content"] for request in json.loads(sys.argv[3])]))
finally:
    client.close()
