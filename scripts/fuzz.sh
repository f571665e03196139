#!/bin/sh
# Build the libFuzzer targets in tests/fuzz with clang (ASan + UBSan) and
# run each for SECONDS (default 60) on its seed corpus; a crash leaves
# its input in the work directory. Not part of `make check`.
# usage: scripts/fuzz.sh [SECONDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
work=${FUZZ_DIR:-$(mktemp -d /tmp/warrant-fuzz.XXXXXX)}
command -v clang >/dev/null || { echo "fuzz: clang is needed (apt-get install clang)" >&2; exit 1; }
[ -f "$top/build/config.h" ] || { echo "fuzz: run make first (build/config.h)" >&2; exit 1; }
srcs=""
for f in util shared/util shared/text shared/sha256 shared/canon shared/policy shared/capture shared/ledger shared/manifest intake/exe intake/denylist intake/validate intake/risk intake/request intake/requester intake/normalize; do
	srcs="$srcs $top/src/$f.c"
done
flags="-g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I$top/build -I$top/src -I$top/src/shared"
libs="$(pkg-config --libs jansson libcrypto) -lunistring"
status=0
for t in "$top"/tests/fuzz/fuzz-*.c; do
	name=$(basename "$t" .c)
	# shellcheck disable=SC2086
	clang $flags -o "$work/$name" "$t" $srcs $libs
	mkdir -p "$work/$name.corpus"
	[ -d "$top/tests/fuzz/seeds/$name" ] && cp "$top/tests/fuzz/seeds/$name"/* "$work/$name.corpus/" 2>/dev/null || true
	echo "== $name for ${secs}s"
	(cd "$work" && "./$name" -max_total_time="$secs" -max_len=65536 "$name.corpus") >"$work/$name.log" 2>&1 || status=1
	tail -3 "$work/$name.log"
done
echo "fuzz work directory: $work"
exit $status
