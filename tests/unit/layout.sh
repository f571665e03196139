#!/bin/sh
# SPDX-License-Identifier: ISC
# The layout's bars (docs/map.md): no circle of calls of more than 3
# files inside a folder (bench/circles.sh, from the objects of BUILD_DIR),
# and no two source files with one name. Positive control: the circles
# are found at all (src/tui's review and hand-off call each other).
# usage: sh tests/unit/layout.sh BUILD_DIR
top=$(cd "$(dirname "$0")/../.." && pwd)
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
echo "1..3"
out=$(sh "$top/bench/circles.sh" "$1") || { echo "not ok 1 - bench/circles.sh ran"; exit 1; }
if printf '%s\n' "$out" | grep -q 'src/tui: a circle of [0-9]* files: handoff.c review.c'; then
	ok "bench/circles.sh finds the circles (src/tui's review and hand-off)"
else
	not_ok "bench/circles.sh finds the circles (src/tui's review and hand-off)"
fi
largest=$(printf '%s\n' "$out" | sed -n 's/.*largest circle of calls inside a folder: \([0-9]*\) files.*/\1/p')
if [ -n "$largest" ] && [ "$largest" -le 3 ]; then
	ok "no circle of calls inside a folder has more than 3 files (largest $largest)"
else
	not_ok "no circle of calls inside a folder has more than 3 files (largest ${largest:-?})"
	printf '%s\n' "$out" | sed 's/^/# /'
fi
same=$(cd "$top" && find src -name '*.[ch]' -printf '%f\n' | sort | uniq -d)
if [ -z "$same" ]; then
	ok "no two source files share a name"
else
	not_ok "no two source files share a name"
	printf '# %s\n' $same
fi
exit $((failed > 0))
