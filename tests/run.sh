#!/bin/sh
# SPDX-License-Identifier: ISC
# Run every test: the cmocka unit tests in the normal and the ASan+UBSan
# builds, each libFuzzer target for FUZZ_SECONDS (when FUZZ_BUILD_DIR is
# given), then the end-to-end scripts on the binaries of E2E_BUILD_DIR, a
# build configured with a private prefix (make check: /opt/warrant-test)
# that tests/e2e/setup.sh installs before the suites and removes after,
# with the users they created, and last the Debian package's test
# (tests/deb/test-deb.sh: build, lintian, install, some of the same suites
# on the installed package, remove), with, when WARRANT_TRIXIE_SUITES is
# set, those suites in a Debian 13 root with sudo and with sudo-rs
# (scripts/trixie.sh) before it. Every test speaks TAP; this sums the
# results into one "N passed, N failed" line. With --e2e, only the named
# end-to-end scripts, between the same install and teardown (make chaos).
# With --installed, the named end-to-end scripts on the warrant a package
# installed under PREFIX (as tests/deb/test-deb.sh runs them on /usr),
# which they neither install nor remove. With --deb, only the package's
# test (make check-deb).
# usage: tests/run.sh BUILD_DIR ASAN_BUILD_DIR E2E_BUILD_DIR [FUZZ_BUILD_DIR [FUZZ_SECONDS]]
#        tests/run.sh --e2e E2E_BUILD_DIR SCRIPT...
#        tests/run.sh --installed PREFIX SCRIPT...
#        tests/run.sh --deb
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
prefix='' deb=''
if [ "${1:-}" = --deb ]; then
	deb=1 suites=
elif [ "${1:-}" = --e2e ]; then
	e2e=$(cd "$2" && pwd)
	shift 2
	suites=$*
elif [ "${1:-}" = --installed ]; then
	prefix=$2 e2e=
	shift 2
	suites=$*
else
	build=$(cd "$1" && pwd)
	asan=$(cd "$2" && pwd)
	e2e=$(cd "$3" && pwd)
	suites=$(ls "$top"/tests/e2e/test-*.sh)
	deb=1
fi
build=${build:-} asan=${asan:-} e2e=${e2e:-}
log=$(mktemp -d /tmp/warrant-tests.XXXXXX)
chmod 755 "$log"
passed=0
failed=0

# run NAME COMMAND...: runs one TAP producer, tallies ok / not ok lines.
run() {
	name=$1
	shift
	out="$log/$(echo "$name" | tr '/ ' '__').tap"
	began=$(date +%s)
	"$@" >"$out" 2>"$out.err"
	status=$?
	took=$(($(date +%s) - began))
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
	# a result line run into other output is lost to the count: the plan
	# (1..N) says how many there should be
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$out" | head -n 1)
	if [ -n "$plan" ] && [ $((p + f)) -lt "$plan" ]; then
		f=$((f + 1))
		echo "not ok - $name planned $plan tests, reported $((p + f - 1))" >>"$out"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	echo "== $name: $p passed, $f failed ($took s)"
	if [ "$f" -ne 0 ]; then
		# each failure with the diagnostics after it: a long suite's
		# section headings would push them out of a CI log's tail
		grep -E -A8 '^not ok' "$out" | grep -E '^not ok|^#|^--' | head -60
		tail -20 "$out.err"
	fi
}

if [ -n "${build:-}" ]; then
	for t in "$build"/test-*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		run "unit/$(basename "$t")" env CMOCKA_MESSAGE_OUTPUT=TAP "$t"
	done
	# the root binary links exactly src/root/: no libunistring, no
	# redaction, no display code
	run "unit/runner-links" sh "$top/tests/unit/runner-links.sh" "$build/warrant-runner"
	run "unit/docs-paths" sh "$top/tests/unit/docs-paths.sh"
	run "unit/layout" sh "$top/tests/unit/layout.sh" "$build"
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
# e2e: what the suites and setup.sh are given (WARRANT_PREFIX empty: the
# build's private prefix).
e2e_env() { env WARRANT_BUILD="$e2e" WARRANT_PREFIX="$prefix" WARRANT_TOP="$top" "$@"; }
setup() { e2e_env sh "$top/tests/e2e/setup.sh" "$1"; }
trap 'exit 130' INT TERM HUP
# The Debian 13 root, which make check started making before its builds
# (scripts/trixie.sh --root-start), is done before the end-to-end suites
# start: the root's processes are visible to them. Its suites run after
# the host's (below).
if [ -n "$build" ] && [ -n "${WARRANT_TRIXIE_SUITES:-}" ] && [ "$(id -u)" -eq 0 ]; then
	run "trixie/root" sh "$top/scripts/trixie.sh" --root-wait
fi
if [ -n "$suites" ]; then
	trap 'setup teardown >/dev/null 2>&1' EXIT
	run "e2e/setup install" setup install
	for t in $suites; do
		[ -f "$t" ] || { run "e2e/$t" false; continue; }
		run "e2e/$(basename "$t")" e2e_env sh "$t"
	done
	run "e2e/setup teardown" setup teardown
	trap - EXIT
fi
# Debian 13 with sudo and with sudo-rs (scripts/trixie.sh): the suites
# WARRANT_TRIXIE_SUITES names (make check: a few; make check-trixie runs
# them all), in a debootstrap root, after the host's teardown.
if [ -n "$build" ] && [ -n "${WARRANT_TRIXIE_SUITES:-}" ]; then
	# shellcheck disable=SC2086
	run "trixie/scripts/trixie.sh" env -u TRIXIE_FRESH sh "$top/scripts/trixie.sh" $WARRANT_TRIXIE_SUITES
fi
# The package's test installs warrant under /usr, runs suites there and
# purges it (also when interrupted); after the teardown above, so that
# it starts without the suites' users.
if [ -n "$deb" ]; then
	run "deb/test-deb.sh" sh "$top/tests/deb/test-deb.sh"
fi

# the logs matter only when something failed
if [ "$failed" -ne 0 ]; then echo "logs in $log"; else rm -rf "$log"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
