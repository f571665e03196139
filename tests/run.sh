#!/bin/sh
# SPDX-License-Identifier: ISC
# Run every test: the cmocka unit tests in the normal and the ASan+UBSan
# builds, each libFuzzer target for FUZZ_SECONDS (when FUZZ_BUILD_DIR is
# given), then the end-to-end scripts on the binaries of E2E_BUILD_DIR, a
# build configured with a private prefix (make check: /opt/warrant-test)
# that tests/e2e/setup.sh installs before the suites and removes after,
# with the users they created. Every test speaks TAP; this sums the
# results into one "N passed, N failed" line. With --e2e, only the named
# end-to-end scripts, between the same install and teardown (make chaos).
# usage: tests/run.sh BUILD_DIR ASAN_BUILD_DIR E2E_BUILD_DIR [FUZZ_BUILD_DIR [FUZZ_SECONDS]]
#        tests/run.sh --e2e E2E_BUILD_DIR SCRIPT...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --e2e ]; then
	e2e=$(cd "$2" && pwd)
	shift 2
	suites=$*
else
	build=$(cd "$1" && pwd)
	asan=$(cd "$2" && pwd)
	e2e=$(cd "$3" && pwd)
	suites=$(ls "$top"/tests/e2e/test-*.sh)
fi
build=${build:-} asan=${asan:-}
log=$(mktemp -d /tmp/warrant-tests.XXXXXX)
chmod 755 "$log"
passed=0
failed=0

# run NAME COMMAND...: runs one TAP producer, tallies ok / not ok lines.
run() {
	name=$1
	shift
	out="$log/$(echo "$name" | tr '/ ' '__').tap"
	"$@" >"$out" 2>"$out.err"
	status=$?
	p=$(grep -cE '^ok ' "$out")
	f=$(grep -cE '^not ok ' "$out")
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited $status" >>"$out"
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name ran no test" >>"$out"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	echo "== $name: $p passed, $f failed"
	if [ "$f" -ne 0 ]; then
		grep -E '^not ok|^#' "$out" | head -40
		tail -20 "$out.err"
	fi
}

if [ -n "${build:-}" ]; then
	for t in "$build"/test-*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		run "unit/$(basename "$t")" env CMOCKA_MESSAGE_OUTPUT=TAP "$t"
	done
	for t in "$asan"/test-*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		run "asan/$(basename "$t")" env CMOCKA_MESSAGE_OUTPUT=TAP \
		    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$t"
	done
	if [ $# -ge 4 ]; then
		run fuzz sh "$top/scripts/fuzz.sh" "$4" "${5:-15}"
	fi
fi
# The teardown runs even when the run is interrupted (quietly then).
setup() { env WARRANT_BUILD="$e2e" WARRANT_TOP="$top" sh "$top/tests/e2e/setup.sh" "$1"; }
trap 'setup teardown >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM HUP
run "e2e/setup install" setup install
for t in $suites; do
	[ -f "$t" ] || { run "e2e/$t" false; continue; }
	run "e2e/$(basename "$t")" env WARRANT_BUILD="$e2e" WARRANT_TOP="$top" sh "$t"
done
run "e2e/setup teardown" setup teardown
trap - EXIT

# the logs matter only when something failed
if [ "$failed" -ne 0 ]; then echo "logs in $log"; else rm -rf "$log"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
