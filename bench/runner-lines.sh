#!/bin/sh
# SPDX-License-Identifier: ISC
# The lines of C linked into BUILD_DIR's warrant-runner, exactly: the
# build's own link command run again with the linker's --trace, which
# names every object it takes (of a static library only the members
# something needs), each mapped back to its source through
# compile_commands.json (objects not built there, such as the C
# library's start files or static libcrypto's, are not counted, nor are
# headers). Prints "LINES FILES"; with -v, each source file's lines first.
# usage: sh bench/runner-lines.sh [-v] BUILD_DIR
set -u
verbose=0
if [ "${1:-}" = -v ]; then verbose=1; shift; fi
build=$(cd "$1" && pwd) || exit 1
link=$(ninja -C "$build" -t commands warrant-runner | tail -n 1)
case $link in
*" -o warrant-runner "*) ;;
*) echo "runner-lines: no link command for warrant-runner in $build" >&2; exit 1 ;;
esac
tmp=$(mktemp -d /tmp/warrant-runner-lines.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
link=$(printf '%s\n' "$link" | sed "s| -o warrant-runner | -o $tmp/runner -Wl,--trace |")
(cd "$build" && eval "$link") >"$tmp/trace" 2>&1 || {
	echo "runner-lines: the link failed:" >&2
	tail -5 "$tmp/trace" >&2
	exit 1
}
python3 - "$build" "$tmp/trace" "$verbose" <<'PY'
import json, os, re, sys
build, trace, verbose = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
source = {}
for c in json.load(open(os.path.join(build, "compile_commands.json"))):
    path = os.path.normpath(os.path.join(c["directory"], c["file"]))
    source[c["output"]] = path
    # a member of a regular archive is traced as (libX.a)member.o
    d, b = os.path.split(c["output"])
    if d.endswith(".p"):
        source["(%s)%s" % (d[:-2], b)] = path
files = set()
for line in open(trace):
    line = line.strip()
    # objects not built here (crt files, static libcrypto's) are not ours
    if line.endswith(".o") and line in source:
        files.add(source[line])
if not any(f.endswith("/src/root/runner.c") for f in files):
    sys.exit("runner-lines: the trace names no runner object")
total = 0
for f in sorted(files):
    n = sum(1 for _ in open(f, "rb"))
    total += n
    if verbose:
        print("%6d %s" % (n, os.path.relpath(f, os.path.dirname(build))))
print(total, len(files))
PY
