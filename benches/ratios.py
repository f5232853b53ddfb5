#!/usr/bin/env python3
"""Ratios between the benchmarks of one criterion run, as a Markdown table.

Reads every `target/criterion/**/new/benchmark.json` (for the benchmark's id) and the
`estimates.json` beside it, takes criterion's median per-iteration time of each benchmark,
and prints, for each comparison the project makes, the ratio and whether its target
holds. A second ratio column uses each benchmark's fastest sample (from `sample.json`):
on a shared, loaded machine other processes only ever add time, so the two columns
bracket the truth, and a verdict is only as firm as their agreement. Absolute times are
printed for context only; the claims are the ratios.

Usage (from the repository root, after `cargo bench`):

    python3 benches/ratios.py [--criterion target/criterion] [--estimate median|mean]
"""

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def load(directory, estimate):
    times = {}
    for meta in directory.glob("**/new/benchmark.json"):
        full_id = json.loads(meta.read_text())["full_id"]
        if estimate == "min":
            # The least disturbed sample: on a shared machine, load only ever adds time.
            sample = json.loads((meta.parent / "sample.json").read_text())
            times[full_id] = min(t / n for t, n in zip(sample["times"], sample["iters"]))
        else:
            estimates = json.loads((meta.parent / "estimates.json").read_text())
            times[full_id] = estimates[estimate]["point_estimate"]
    return times


def human(ns):
    for unit, size in (("ms", 1e6), ("µs", 1e3)):
        if ns >= size:
            return f"{ns / size:.2f} {unit}"
    return f"{ns:.0f} ns"


# (label, numerator id, denominator id, target as (op, bound) or None)
COMPARISONS = [
    ("Tools with state: #[toolset] method / free function", "stateful/toolset_method", "stateful/free_fn", ("<=", 1.1)),
    ("Tools with state: State<T> parameter / free function", "stateful/state_param", "stateful/free_fn", ("<=", 1.1)),
    ("Dispatch (a) two integers: toolnexus / floor", "dispatch/a_two_ints/toolnexus", "dispatch/a_two_ints/floor", ("<=", 1.5)),
    ("Dispatch (b) one string: toolnexus / floor", "dispatch/b_one_string/toolnexus", "dispatch/b_one_string/floor", ("<=", 1.5)),
    ("Dispatch (c) nested, Option, enum: toolnexus / floor", "dispatch/c_nested/toolnexus", "dispatch/c_nested/floor", ("<=", 1.2)),
    ("Dispatch (d) one among 50: toolnexus / floor", "dispatch/d_among_50/toolnexus", "dispatch/d_among_50/floor", None),
    ("Dispatch (a): rmcp / floor", "dispatch/a_two_ints/rmcp", "dispatch/a_two_ints/floor", None),
    ("Dispatch (b): rmcp / floor", "dispatch/b_one_string/rmcp", "dispatch/b_one_string/floor", None),
    ("Dispatch (c): rmcp / floor", "dispatch/c_nested/rmcp", "dispatch/c_nested/floor", None),
    ("Dispatch (d): rmcp / floor", "dispatch/d_among_50/rmcp", "dispatch/d_among_50/floor", None),
    ("Dispatch (a): rmcp / toolnexus", "dispatch/a_two_ints/rmcp", "dispatch/a_two_ints/toolnexus", (">=", 3.0)),
    ("Dispatch (b): rmcp / toolnexus", "dispatch/b_one_string/rmcp", "dispatch/b_one_string/toolnexus", (">=", 3.0)),
    ("Dispatch (c): rmcp / toolnexus", "dispatch/c_nested/rmcp", "dispatch/c_nested/toolnexus", None),
    ("Dispatch (d): rmcp / toolnexus", "dispatch/d_among_50/rmcp", "dispatch/d_among_50/toolnexus", None),
    ("Dispatch (a): rmcp call only / floor", "dispatch/a_two_ints/rmcp_call_only", "dispatch/a_two_ints/floor", None),
    ("Dispatch (b): rmcp call only / floor", "dispatch/b_one_string/rmcp_call_only", "dispatch/b_one_string/floor", None),
    ("Dispatch (c): rmcp call only / floor", "dispatch/c_nested/rmcp_call_only", "dispatch/c_nested/floor", None),
    ("Dispatch (a): rmcp call only / toolnexus", "dispatch/a_two_ints/rmcp_call_only", "dispatch/a_two_ints/toolnexus", None),
    ("Dispatch (b): rmcp call only / toolnexus", "dispatch/b_one_string/rmcp_call_only", "dispatch/b_one_string/toolnexus", None),
    ("Raw-text args, add: toolnexus / from_str floor", "text_args/add/toolnexus", "text_args/add/floor", None),
    ("Raw-text args, ship: toolnexus / from_str floor", "text_args/ship/toolnexus", "text_args/ship/floor", None),
    ("Raw-text args, add: rmcp / from_str floor", "text_args/add/rmcp", "text_args/add/floor", None),
    ("Raw-text args, ship: rmcp / from_str floor", "text_args/ship/rmcp", "text_args/ship/floor", None),
    ("Listing 50: rmcp list+serialize / repeated to_openai()", "listing_50/rmcp/repeated", "listing_50/openai/repeated", (">=", 5.0)),
    ("Listing 50: rmcp list+serialize / repeated listing(OpenAi).json() copied", "listing_50/rmcp/repeated", "listing_50/shared_text/repeated", (">=", 5.0)),
    ("Listing 50: rmcp list+serialize / repeated listing(Mcp).json() copied", "listing_50/rmcp/repeated", "listing_50/shared_mcp_text/repeated", None),
    ("Listing 50: rmcp list+serialize / repeated listing(OpenAi)", "listing_50/rmcp/repeated", "listing_50/shared/repeated", None),
    ("Listing 50: rmcp list+serialize / repeated to_openai()+to_string", "listing_50/rmcp/repeated", "listing_50/openai_text/repeated", (">=", 3.0)),
    ("Listing 50: rmcp list+serialize / repeated to_mcp()+to_string", "listing_50/rmcp/repeated", "listing_50/mcp_text/repeated", None),
    ("Listing 50: rmcp list+serialize / repeated to_anthropic()", "listing_50/rmcp/repeated", "listing_50/anthropic/repeated", None),
    ("Listing 50: rmcp list+serialize / repeated to_gemini()", "listing_50/rmcp/repeated", "listing_50/gemini/repeated", None),
    ("Listing 50: rmcp list+serialize / repeated to_mcp()", "listing_50/rmcp/repeated", "listing_50/mcp/repeated", None),
    ("Listing 50: to_openai() first / repeated", "listing_50/openai/first", "listing_50/openai/repeated", None),
    ("Listing 50: to_anthropic() first / repeated", "listing_50/anthropic/first", "listing_50/anthropic/repeated", None),
    ("Listing 50: to_gemini() first / repeated", "listing_50/gemini/first", "listing_50/gemini/repeated", None),
    ("Listing 50: to_mcp() first / repeated", "listing_50/mcp/first", "listing_50/mcp/repeated", None),
    ("Listing 50: rmcp first / toolnexus to_openai() first", "listing_50/rmcp/first", "listing_50/openai/first", None),
    ("Loop, 1000 calls in 1 turn: Client::run / direct execute_json", "loop_1000/run_1_turn", "loop_1000/direct", None),
    ("Loop, 1000 calls in 100 turns: Client::run / direct execute_json", "loop_1000/run_100_turns", "loop_1000/direct", None),
    ("Loop, 1000 calls in 1 turn: empty sync tool hooks, turn hooks and events / none", "loop_1000/run_1_turn_hooked_sync", "loop_1000/run_1_turn", ("<=", 1.1)),
    ("Loop, 1000 calls in 100 turns: empty sync tool hooks, turn hooks and events / none", "loop_1000/run_100_turns_hooked_sync", "loop_1000/run_100_turns", ("<=", 1.1)),
    ("Loop, 1000 calls in 1 turn: empty Hooks impl (every method at its default) and events / none", "loop_1000/run_1_turn_hooked_trait", "loop_1000/run_1_turn", ("<=", 1.1)),
    ("Loop, 1000 calls in 100 turns: empty Hooks impl (every method at its default) and events / none", "loop_1000/run_100_turns_hooked_trait", "loop_1000/run_100_turns", ("<=", 1.1)),
    ("Loop, 1000 calls in 1 turn: empty async closure hooks and events / none", "loop_1000/run_1_turn_hooked", "loop_1000/run_1_turn", ("<=", 1.1)),
    ("Loop, 1000 calls in 100 turns: empty async closure hooks and events / none", "loop_1000/run_100_turns_hooked", "loop_1000/run_100_turns", ("<=", 1.1)),
    ("Provider turn, 50 tools, 40 messages, OpenAI: build + parse / serde_json alone", "providers/openai/toolnexus", "providers/openai/serde_json", ("<=", 1.3)),
    ("Provider turn, 50 tools, 40 messages, Anthropic: build + parse / serde_json alone", "providers/anthropic/toolnexus", "providers/anthropic/serde_json", ("<=", 1.3)),
    ("Provider turn, 50 tools, 40 messages, Gemini: build + parse / serde_json alone", "providers/gemini/toolnexus", "providers/gemini/serde_json", ("<=", 1.3)),
    ("Provider turn, OpenAI: build + parse / serde_json with the tools as ready text", "providers/openai/toolnexus", "providers/openai/serde_json_shared_tools", None),
    ("Provider turn, Anthropic: build + parse / serde_json with the tools as ready text", "providers/anthropic/toolnexus", "providers/anthropic/serde_json_shared_tools", None),
    ("Provider turn, Gemini: build + parse / serde_json with the tools as ready text", "providers/gemini/toolnexus", "providers/gemini/serde_json_shared_tools", None),
    ("Provider turn, 50 tools, 40 messages, OpenAI Responses: build + parse / serde_json alone", "providers/openai_responses/toolnexus", "providers/openai_responses/serde_json", ("<=", 1.3)),
    ("Provider turn, OpenAI Responses: build + parse / serde_json with the tools as ready text", "providers/openai_responses/toolnexus", "providers/openai_responses/serde_json_shared_tools", None),
    ("Request body, 50 tools, 40 messages: Responses / Chat Completions", "providers/openai_responses/body", "providers/openai/body", None),
    ("Request body, Responses with 12 reasoning items sent back / without", "providers/openai_responses_reasoning/body", "providers/openai_responses/body", None),
    ("Code mode, 20 lookups + report, scripted model, in-process time: code / direct, one call a turn", "code_mode/code", "code_mode/direct_sequential", None),
    ("Code mode, 20 lookups + report, scripted model, in-process time: code / direct, calls in one turn", "code_mode/code", "code_mode/direct_parallel", None),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--criterion", type=pathlib.Path, default=ROOT / "target" / "criterion")
    parser.add_argument("--estimate", choices=["median", "mean", "min"], default="median")
    options = parser.parse_args()

    times = load(options.criterion, options.estimate)
    best = load(options.criterion, "min")
    if not times:
        sys.exit(f"no criterion results under {options.criterion}; run `cargo bench` first")

    print(
        f"| comparison | ratio ({options.estimate}) | ratio (fastest sample) | target | holds "
        "| numerator | denominator |"
    )
    print("|---|---:|---:|---|---|---:|---:|")
    missing = []
    for label, num, den, target in COMPARISONS:
        if num not in times or den not in times:
            missing.append(label)
            continue
        ratio = times[num] / times[den]
        fastest = best[num] / best[den]
        if target is None:
            bound, verdict = "—", "—"
        else:
            op, value = target
            bound = f"{op} {value}x"
            holds = [r <= value if op == "<=" else r >= value for r in (ratio, fastest)]
            verdict = "yes" if all(holds) else "**no**" if not any(holds) else "borderline"
        print(
            f"| {label} | {ratio:.2f}x | {fastest:.2f}x | {bound} | {verdict} "
            f"| {human(times[num])} | {human(times[den])} |"
        )
    if any(key.startswith("loop_1000/") for key in times):
        print()
        for key in (
            "loop_1000/direct",
            "loop_1000/run_1_turn",
            "loop_1000/run_100_turns",
            "loop_1000/run_1_turn_hooked",
            "loop_1000/run_100_turns_hooked",
            "loop_1000/run_1_turn_hooked_sync",
            "loop_1000/run_100_turns_hooked_sync",
            "loop_1000/run_1_turn_hooked_trait",
            "loop_1000/run_100_turns_hooked_trait",
        ):
            if key in times:
                print(f"- {key}: {human(times[key] / 1000)} per call")
    if missing:
        print()
        print("Not measured in this run: " + "; ".join(missing))


if __name__ == "__main__":
    main()
