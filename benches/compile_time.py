#!/usr/bin/env python3
"""Compile time of 100 `#[tool]` functions against a control crate, and against rmcp.

Generates a small workspace under `target/compile-bench/` with three library crates that
declare the same 100 functions (four shapes, cycled: two integers; one string; a string and
an `Option`; a nested struct and an enum):

- `control`: the plain functions, and beside each a hand-written argument struct with
  `#[derive(Deserialize, JsonSchema)]` (what a schema for the tool costs without a macro);
- `with_toolnexus`: the functions, each under `#[toolnexus::tool]`;
- `with_rmcp` (unless `--no-rmcp`): the same tools as rmcp `#[tool]` methods in one
  `#[tool_router]` impl, each taking `Parameters<ArgsStruct>` with a hand-written argument
  struct, as rmcp requires.

Dependencies are built first and not counted. Then, `--runs` times (default 3), for each
crate in turn: touch its `lib.rs` and time `cargo build -p CRATE` (and `cargo check`),
with incremental compilation off so that every run compiles the crate from scratch.
Prints the median seconds and the ratio of each crate to the control crate, twice: in
wall-clock time, and in CPU time (user + system time of every compiler thread), which
other load on a shared machine disturbs less.

Usage (from the repository root):

    python3 benches/compile_time.py [--runs 3] [--no-rmcp] [--json target/compile-bench/result.json]
"""

import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "target" / "compile-bench"
TOOLS = 100

# (parameters as (name, type, doc), return type, body, rmcp body, description)
SHAPES = [
    (
        [("a", "i64", "The first number."), ("b", "i64", "The second number.")],
        "Result<i64, Infallible>",
        "Ok(a + b + {n})",
        "(a + b + {n}).to_string()",
        "Add two numbers, then {n}.",
    ),
    (
        [("name", "String", "Who to greet.")],
        "Result<String, Infallible>",
        'Ok(format!("hello {{name}} from {n}"))',
        'format!("hello {{name}} from {n}")',
        "Greet someone from tool {n}.",
    ),
    (
        [
            ("query", "String", "What to look for."),
            ("limit", "Option<u32>", "At most this many results."),
        ],
        "Result<String, Infallible>",
        'Ok(format!("{{query}}: {{}} results from {n}", limit.unwrap_or(10)))',
        'format!("{{query}}: {{}} results from {n}", limit.unwrap_or(10))',
        "Search for something, tool {n}.",
    ),
    (
        [
            ("order", "u64", "The order number."),
            ("to", "Address", "Where to ship it."),
            ("speed", "Speed", "How fast."),
        ],
        "Result<String, Infallible>",
        'Ok(format!("{{order}} to {{}} ({{:?}}) by {n}", to.city, speed))',
        'format!("{{order}} to {{}} ({{:?}}) by {n}", to.city, speed)',
        "Ship an order, tool {n}.",
    ),
]

SHARED_TYPES = """
/// A postal address.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Address {
    /// Street and number.
    pub street: String,
    /// The city.
    pub city: String,
    /// The postal code, if known.
    pub zip: Option<String>,
}

/// How fast to ship.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Speed {
    /// A few days.
    Standard,
    /// Tomorrow.
    Express,
}
"""


def camel(n):
    return f"Tool{n:03}Args"


def args_struct(n, params):
    """The hand-written argument struct of tool `n` (the control's and rmcp's form)."""
    out = [f"/// Arguments of `tool_{n:03}`.", "#[derive(Deserialize, JsonSchema)]"]
    out.append(f"pub struct {camel(n)} {{")
    for name, ty, doc in params:
        out.append(f"    /// {doc}")
        out.append(f"    pub {name}: {ty},")
    out.append("}")
    return out


def control_crate():
    out = [
        "//! Control: plain functions and hand-written argument structs.",
        "#![allow(dead_code, clippy::all)]",
        "use std::convert::Infallible;",
        "use schemars::JsonSchema;",
        "use serde::Deserialize;",
        SHARED_TYPES,
    ]
    for n in range(TOOLS):
        params, ret, body, _, desc = SHAPES[n % len(SHAPES)]
        out.extend(args_struct(n, params))
        out.append(f"/// {desc.format(n=n)}")
        sig = ", ".join(f"{name}: {ty}" for name, ty, _ in params)
        out.append(f"pub fn tool_{n:03}({sig}) -> {ret} {{ {body.format(n=n)} }}")
    return "\n".join(out) + "\n"


def toolnexus_crate():
    out = [
        "//! 100 `#[tool]` functions.",
        "#![allow(dead_code, clippy::all)]",
        "use std::convert::Infallible;",
        "use schemars::JsonSchema;",
        "use serde::Deserialize;",
        "use toolnexus::tool;",
        SHARED_TYPES,
    ]
    for n in range(TOOLS):
        params, ret, body, _, desc = SHAPES[n % len(SHAPES)]
        out.append(f"/// {desc.format(n=n)}")
        out.append("#[tool]")
        out.append(f"pub fn tool_{n:03}(")
        for name, ty, doc in params:
            out.append(f"    /// {doc}")
            out.append(f"    {name}: {ty},")
        out.append(f") -> {ret} {{ {body.format(n=n)} }}")
    return "\n".join(out) + "\n"


def rmcp_crate():
    out = [
        "//! The same 100 tools with rmcp's macros.",
        "#![allow(dead_code, clippy::all)]",
        "use rmcp::handler::server::wrapper::Parameters;",
        "use rmcp::{tool, tool_router};",
        "use schemars::JsonSchema;",
        "use serde::Deserialize;",
        SHARED_TYPES,
    ]
    for n in range(TOOLS):
        out.extend(args_struct(n, SHAPES[n % len(SHAPES)][0]))
    out.append("/// The tools.")
    out.append("pub struct Tools;")
    out.append('#[tool_router(vis = "pub")]')
    out.append("impl Tools {")
    for n in range(TOOLS):
        params, _, _, rbody, desc = SHAPES[n % len(SHAPES)]
        fields = ", ".join(name for name, _, _ in params)
        out.append(f"    /// {desc.format(n=n)}")
        out.append("    #[tool]")
        out.append(
            f"    pub fn tool_{n:03}(&self, Parameters({camel(n)} {{ {fields}, .. }}): "
            f"Parameters<{camel(n)}>) -> String {{ {rbody.format(n=n)} }}"
        )
    out.append("}")
    return "\n".join(out) + "\n"


SERDE = 'serde = { version = "1", features = ["derive"] }'
SCHEMARS = 'schemars = { version = "1", features = ["preserve_order"] }'


def generate(with_rmcp):
    crates = {
        "control": ([SERDE, SCHEMARS], control_crate()),
        "with_toolnexus": (
            # serde and schemars only for the two shared types, as a user's crate would.
            [f'toolnexus = {{ path = "{ROOT / "toolnexus"}" }}', SERDE, SCHEMARS],
            toolnexus_crate(),
        ),
    }
    if with_rmcp:
        crates["with_rmcp"] = (
            [
                'rmcp = { version = "3.11", default-features = false, features = ["macros", "server"] }',
                SERDE,
                SCHEMARS,
            ],
            rmcp_crate(),
        )
    OUT.mkdir(parents=True, exist_ok=True)
    members = ", ".join(f'"{name}"' for name in crates)
    (OUT / "Cargo.toml").write_text(
        f'[workspace]\nmembers = [{members}]\nresolver = "3"\n\n'
        "[profile.dev]\ndebug = true\n"
    )
    # The same dependency versions as the project itself.
    lock = OUT / "Cargo.lock"
    if not lock.exists():
        shutil.copy(ROOT / "Cargo.lock", lock)
    for name, (deps, source) in crates.items():
        src = OUT / name / "src"
        src.mkdir(parents=True, exist_ok=True)
        manifest = (
            f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
            "[dependencies]\n" + "\n".join(deps) + "\n"
        )
        (OUT / name / "Cargo.toml").write_text(manifest)
        lib = src / "lib.rs"
        if not lib.exists() or lib.read_text() != source:
            lib.write_text(source)
    return list(crates)


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cargo(command, crate, env):
    """Wall-clock and CPU seconds (user + system, all threads) of one cargo command."""
    args = ["cargo", command, "--quiet", "-p", crate]
    started, cpu_started = time.perf_counter(), cpu_seconds()
    done = subprocess.run(args, cwd=OUT, env=env, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
    if done.returncode != 0:
        sys.exit(f"`{' '.join(args)}` failed:\n{done.stderr}")
    return elapsed, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-rmcp", action="store_true")
    parser.add_argument("--json", type=pathlib.Path)
    options = parser.parse_args()

    crates = generate(not options.no_rmcp)
    env = dict(os.environ)
    env["CARGO_TARGET_DIR"] = str(OUT / "target")
    env["CARGO_INCREMENTAL"] = "0"
    env.pop("RUSTFLAGS", None)

    print("prebuilding dependencies ...", file=sys.stderr)
    for command in ("build", "check"):
        done = subprocess.run(["cargo", command, "--quiet", "--workspace"], cwd=OUT, env=env)
        if done.returncode != 0:
            sys.exit(f"cargo {command} of the generated workspace failed")

    times = {(command, crate): [] for command in ("build", "check") for crate in crates}
    cpu = {key: [] for key in times}
    for run in range(options.runs):
        for command in ("build", "check"):
            for crate in crates:
                (OUT / crate / "src" / "lib.rs").touch()
                seconds, cpu_used = cargo(command, crate, env)
                times[(command, crate)].append(seconds)
                cpu[(command, crate)].append(cpu_used)
                print(
                    f"run {run + 1}: cargo {command} -p {crate}: {seconds:.2f} s "
                    f"({cpu_used:.2f} s CPU)",
                    file=sys.stderr,
                )

    # Wall-clock time is what a developer waits; CPU time (every thread's user + system
    # time) is the work done, and moves less when other processes share the machine.
    for title, measured in (("wall-clock", times), ("CPU", cpu)):
        median = {key: statistics.median(values) for key, values in measured.items()}
        print()
        print(
            f"Compile time of {TOOLS} tools, {title} seconds, median of {options.runs} "
            "(ratio to control)"
        )
        print()
        print("| crate | cargo build | ratio | cargo check | ratio |")
        print("|---|---:|---:|---:|---:|")
        for crate in crates:
            build, check = median[("build", crate)], median[("check", crate)]
            rb = build / median[("build", "control")]
            rc = check / median[("check", "control")]
            print(f"| {crate} | {build:.2f} | {rb:.2f}x | {check:.2f} | {rc:.2f}x |")
    if options.json:
        options.json.write_text(
            json.dumps(
                {
                    f"{kind}/{command}/{crate}": values
                    for kind, measured in (("wall", times), ("cpu", cpu))
                    for (command, crate), values in measured.items()
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
