#!/bin/sh
# SPDX-License-Identifier: ISC
# Run each libFuzzer target of tests/fuzz, built in FUZZ_BUILD (meson
# -Dfuzz=true: clang, ASan + UBSan), for SECONDS on its corpus: the seeds
# in tests/fuzz/seeds/NAME and what earlier runs added in
# FUZZ_BUILD/corpus/NAME. Speaks TAP, one test per target; a crash, leak,
# undefined behaviour or a 10 s input fails it and leaves the input in
# FUZZ_BUILD. `make check` runs this briefly, `make fuzz` for longer.
# usage: scripts/fuzz.sh FUZZ_BUILD SECONDS
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
secs=$2
# the MCP target stores its gates here
home="$build/fuzz-home"
rm -rf "$home"
mkdir -m 700 "$home" || exit 1
n=0
for t in "$top"/tests/fuzz/fuzz-*.c; do
	name=$(basename "$t" .c)
	n=$((n + 1))
	log="$build/$name.log"
	mkdir -p "$build/corpus/$name"
	if [ ! -x "$build/$name" ]; then
		echo "not ok $n - $name is not built (ninja -C $build fuzz)"
		continue
	fi
	# libFuzzer's own lines and any report stay; the target's chatter goes
	if WARRANT_HOME="$home" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    "$build/$name" -max_total_time="$secs" -max_len=65536 -timeout=10 \
	    -close_fd_mask=3 -artifact_prefix="$build/$name-" \
	    "$build/corpus/$name" "$top/tests/fuzz/seeds/$name" >"$log" 2>&1; then
		first=$(grep -m1 -o 'INITED cov: [0-9]*' "$log" | grep -o '[0-9]*$')
		last=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
		runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*')
		echo "ok $n - $name: $runs runs, cov ${first:-?} at start, ${last:-?} at end"
	else
		echo "not ok $n - $name: see $log"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -10 | sed 's/^/# /'
	fi
done
echo "1..$n"
rm -rf "$home"
