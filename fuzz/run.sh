#!/usr/bin/env bash
# Runs the fuzz targets (cargo fuzz + libFuzzer) on the stable toolchain.
#
#   fuzz/run.sh [TARGET|all] [SECONDS]
#
# TARGET is args, mcp_message, mcp_stdio or mcp_stdio_split; the default, all, runs them
# in turn.
# SECONDS per target, default 180. The working corpus is fuzz/corpus/TARGET (not in git),
# started from the seeds in fuzz/seeds/TARGET; a finding is written to
# fuzz/artifacts/TARGET/ and stops the script.
#
# Why RUSTC_BOOTSTRAP=1: cargo fuzz passes nightly-only `-Z` flags to rustc (for the
# sanitizer, `-Zsanitizer=address`), which a stable rustc refuses ("the option `Z` is only
# accepted on the nightly compiler"). RUSTC_BOOTSTRAP=1 lets the stable compiler accept
# them, so no nightly toolchain is needed.
set -euo pipefail
cd "$(dirname "$0")"

target="${1:-all}"
seconds="${2:-180}"
if [ "$target" = all ]; then
  targets=(args mcp_message mcp_stdio mcp_stdio_split)
else
  targets=("$target")
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "+ cargo install cargo-fuzz --locked"
  cargo install cargo-fuzz --locked
fi

for target in "${targets[@]}"; do
  if [ ! -d "seeds/$target" ]; then
    echo "unknown target: $target (expected args, mcp_message, mcp_stdio, mcp_stdio_split or all)" >&2
    exit 2
  fi
  # The mcp_stdio targets run a whole MCP session per input: a longer per-input limit.
  case "$target" in
    mcp_stdio | mcp_stdio_split) timeout=20 ;;
    *) timeout=10 ;;
  esac
  mkdir -p "corpus/$target"
  cmd=(cargo +stable fuzz run -O "$target" "corpus/$target" "seeds/$target"
    -- -max_total_time="$seconds" -timeout="$timeout")
  echo "+ (in fuzz/) RUSTC_BOOTSTRAP=1 ${cmd[*]}"
  RUSTC_BOOTSTRAP=1 "${cmd[@]}"
done
