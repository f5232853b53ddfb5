"""The toolnexus Python port's compactor (SPEC §7F) on the cases given on stdin.

stdin: a JSON list of cases, each {"messages": [...], "max_tokens": n, "keep_tail": n,
"flush": bool}. stdout: a JSON list, for each case the compacted messages (or null for a
no-op), serialized as the port serializes messages (compact, unspaced, non-ASCII as is).
The summarizer is the contract fixture's: "summarized <N> messages".
"""
import asyncio
import json
import sys

from toolnexus.agents.compaction import compactor, estimate_tokens


async def main() -> None:
    cases = json.load(sys.stdin)
    out = []
    for case in cases:
        hook = compactor(
            max_tokens=case["max_tokens"],
            keep_tail=case.get("keep_tail"),
            flush_to_memory=case.get("flush", False),
            summarize=lambda older: f"summarized {len(older)} messages",
        )
        result = await hook({"messages": case["messages"]})
        out.append(
            {
                "estimate": estimate_tokens(case["messages"]),
                "messages": None if result is None else result["messages"],
            }
        )
    sys.stdout.write(json.dumps(out, separators=(",", ":"), ensure_ascii=False))


asyncio.run(main())
