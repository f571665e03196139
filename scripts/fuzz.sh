#!/bin/sh
# SPDX-License-Identifier: ISC
# Run each libFuzzer target of tests/fuzz, built in FUZZ_BUILD (meson
# -Dfuzz=true: clang, ASan + UBSan), for SECONDS on its corpus: the seeds
# in tests/fuzz/seeds/NAME and what earlier runs added in
# FUZZ_BUILD/corpus/NAME. As many targets run at once as there are CPUs,
# each for its full SECONDS. Speaks TAP, one test per target, in the
# targets' order; a crash, leak, undefined behaviour or a 10 s input fails
# it and leaves the input in FUZZ_BUILD. `make check` runs this briefly,
# `make fuzz` for longer.
# usage: scripts/fuzz.sh FUZZ_BUILD SECONDS
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
secs=$2
jobs=$(nproc 2>/dev/null || echo 1)
# the targets that store gates (MCP) keep them here, one directory each
home="$build/fuzz-home"
rm -rf "$home"
mkdir -m 700 "$home" || exit 1

# fuzz N NAME: run target NAME; its TAP line (number N) in FUZZ_BUILD/NAME.tap.
fuzz() {
	n=$1 name=$2
	log="$build/$name.log"
	mkdir -p "$build/corpus/$name"
	mkdir -m 700 "$home/$name" || { echo "not ok $n - $name: no directory $home/$name"; return; }
	if [ ! -x "$build/$name" ]; then
		echo "not ok $n - $name is not built (ninja -C $build fuzz)"
		return
	fi
	# libFuzzer's own lines and any report stay; the target's chatter goes
	if WARRANT_HOME="$home/$name" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
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
}

n=0 names=
for t in "$top"/tests/fuzz/fuzz-*.c; do
	name=$(basename "$t" .c)
	n=$((n + 1))
	names="$names $name"
	rm -f "$build/$name.tap"
	fuzz "$n" "$name" >"$build/$name.tap" &
	# a batch of $jobs at a time
	[ $((n % jobs)) -eq 0 ] && wait
done
wait
for name in $names; do
	cat "$build/$name.tap" 2>/dev/null || echo "not ok - $name reported nothing"
	rm -f "$build/$name.tap"
done
echo "1..$n"
rm -rf "$home"
