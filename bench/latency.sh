#!/bin/sh
# SPDX-License-Identifier: ISC
# Benchmark 8: latency of the console, the MCP server and wait
# (bench/latency.py; bench/README.md). usage: sh bench/latency.sh BUILD_DIR
set -eu
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "8. skipped: python3 is required"; exit 0; }
exec python3 "$top/bench/latency.py" "$build/warrant" "${BENCH_LATENCY_RUNS:-20}"
