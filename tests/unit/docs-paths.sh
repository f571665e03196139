#!/bin/sh
# SPDX-License-Identifier: ISC
# Every source path the documents name exists: README.md, SECURITY.md,
# docs/, man/ and bench/README.md are searched for src/... (a * in it is
# a pattern that must match a file). A moved or renamed file leaves no
# stale name behind. Positive control: the search finds a path it knows.
# usage: sh tests/unit/docs-paths.sh
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
echo "1..2"
named=$(grep -o 'src/[A-Za-z0-9_./*-]*[A-Za-z0-9_*]' README.md SECURITY.md docs/*.md man/* \
    bench/README.md | sort -u)
if printf '%s\n' "$named" | grep -q ':src/root/runner\.c$'; then
	echo "ok 1 - the search finds src/root/runner.c in the documents"
else
	echo "not ok 1 - the search finds src/root/runner.c in the documents"
	exit 1
fi
missing=$(printf '%s\n' "$named" | while IFS= read -r line; do
	p=${line#*:}
	# shellcheck disable=SC2086 # a * in the name is a pattern
	set -- $p
	[ -e "$1" ] || echo "$line"
done)
if [ -z "$missing" ]; then
	echo "ok 2 - every src/ path the documents name exists"
else
	echo "not ok 2 - every src/ path the documents name exists"
	printf '%s\n' "$missing" | sed 's/^/# /'
	exit 1
fi
