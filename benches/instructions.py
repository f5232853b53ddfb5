#!/usr/bin/env python3
"""Instructions per dispatch call, counted by callgrind: a load-independent companion to
the wall-clock ratios of `benches/dispatch.rs`.

For each dispatch case ((a) two integers, (b) one string, (c) nested struct + Option +
enum) and each side (the floor, toolnexus, rmcp with its per-call context), runs the
`dispatch` bench binary with `DISPATCH_COUNT=CASE/SIDE:N` under
`valgrind --tool=callgrind` at two counts N. The difference of the two totals, divided by
the difference of the counts, is the cost of one iteration with every setup cost
cancelled; the cost of building the argument `Value` (side `args`) is then subtracted.
What remains is one call: reading the arguments, the call, formatting the output, and
dropping the argument `Value` and the result (criterion drops the result outside its
measurement; here both sides pay for their own).

Instruction counts do not see cache misses or branch mispredictions, so they are a
companion to the timings, not a replacement; they do not move with the machine's load.

Usage (from the repository root; needs valgrind):

    python3 benches/instructions.py [--low 2000] [--high 4000]
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ["a_two_ints", "b_one_string", "c_nested"]
SIDES = ["args", "floor", "toolnexus", "rmcp"]
TARGETS = {"a_two_ints": 1.5, "b_one_string": 1.5, "c_nested": 1.2}


def bench_binary():
    done = subprocess.run(
        ["cargo", "bench", "-p", "toolnexus-suite", "--bench", "dispatch", "--no-run"],
        cwd=ROOT, capture_output=True, text=True,
    )
    if done.returncode != 0:
        sys.exit(f"building the dispatch bench failed:\n{done.stderr}")
    found = re.findall(r"Executable benches/dispatch\.rs \((.+?)\)", done.stderr)
    if not found:
        sys.exit(f"no bench executable in cargo's output:\n{done.stderr}")
    return ROOT / found[-1]


def instructions(binary, spec):
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "callgrind.out"
        env = dict(os.environ, DISPATCH_COUNT=spec)
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary)],
            cwd=ROOT, env=env, capture_output=True, text=True,
        )
        if done.returncode != 0:
            sys.exit(f"{spec} failed under callgrind:\n{done.stderr[-2000:]}")
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    sys.exit(f"no instruction total for {spec}")


def stateful(binary, options):
    """Tools with state: a `#[toolset]` method and a `State<T>` tool beside the same free
    function (target: at most 1.1x)."""
    per_call = {}
    for side in ["args", "free_fn", "toolset_method", "state_param"]:
        low = instructions(binary, f"stateful/{side}:{options.low}")
        high = instructions(binary, f"stateful/{side}:{options.high}")
        per_call[side] = (high - low) / (options.high - options.low)
    base = per_call["args"]
    free = per_call["free_fn"] - base
    print("| tool | instructions per call | / free function | target |")
    print("|---|---:|---:|---|")
    for side in ["free_fn", "toolset_method", "state_param"]:
        cost = per_call[side] - base
        verdict = "—" if side == "free_fn" else ("<= 1.1x: holds" if cost / free <= 1.1 else "<= 1.1x: **does not hold**")
        print(f"| {side} | {cost:.0f} | {cost / free:.2f}x | {verdict} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--low", type=int, default=2000)
    parser.add_argument("--high", type=int, default=4000)
    parser.add_argument("--stateful", action="store_true", help="only the tools-with-state comparison")
    options = parser.parse_args()

    binary = bench_binary()
    if options.stateful:
        return stateful(binary, options)
    per_call = {}
    for case in CASES:
        for side in SIDES:
            low = instructions(binary, f"{case}/{side}:{options.low}")
            high = instructions(binary, f"{case}/{side}:{options.high}")
            per_call[(case, side)] = (high - low) / (options.high - options.low)
            print(f"{case}/{side}: {per_call[(case, side)]:.0f} per iteration", file=sys.stderr)

    print("| case | floor | toolnexus | rmcp | toolnexus / floor | target | rmcp / floor | rmcp / toolnexus |")
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    for case in CASES:
        base = per_call[(case, "args")]
        floor, nexus, rmcp = (per_call[(case, side)] - base for side in ("floor", "toolnexus", "rmcp"))
        verdict = "holds" if nexus / floor <= TARGETS[case] else "**does not hold**"
        print(
            f"| {case} | {floor:.0f} | {nexus:.0f} | {rmcp:.0f} | {nexus / floor:.2f}x "
            f"| <= {TARGETS[case]}x: {verdict} | {rmcp / floor:.2f}x | {rmcp / nexus:.2f}x |"
        )


if __name__ == "__main__":
    main()
