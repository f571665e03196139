#!/bin/sh
# SPDX-License-Identifier: ISC
# Circles of calls between the C files of one folder (issue: no circle of
# more than 3 files inside a folder): each object of BUILD_DIR's
# compile_commands.json under src/, its defined and undefined symbols
# (nm), an edge from a file to the file of the same folder that defines
# a symbol it uses, and the strongly connected components of more than
# one file. Prints each with its files, then "largest N" and the aim.
# With -v, each edge of the circles with the symbol that makes it.
# usage: sh bench/circles.sh [-v] BUILD_DIR
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
verbose=0
if [ "${1:-}" = -v ]; then verbose=1; shift; fi
build=$(cd "$1" && pwd) || exit 1
. "$top/bench/aim.sh"
out=$(python3 - "$build" "$top" "$verbose" <<'PY'
import collections, json, os, subprocess, sys
build, top, verbose = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
objs = {}
for e in json.load(open(os.path.join(build, "compile_commands.json"))):
    src = os.path.relpath(os.path.normpath(os.path.join(e["directory"], e["file"])), top)
    if not src.startswith("src/"):
        continue
    out = e.get("output")
    if out is None:
        args = e["command"].split()
        out = args[args.index("-o") + 1]
    objs[src] = os.path.join(e["directory"], out)
defs, uses = {}, {}
for src, obj in objs.items():
    d, u = set(), set()
    for line in subprocess.run(["nm", obj], capture_output=True, text=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBR":
            d.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            u.add(p[1])
    defs[src], uses[src] = d, u
owner = {}
for src, d in defs.items():
    for sym in d:
        owner.setdefault(sym, src)
folders = collections.defaultdict(list)
for src in objs:
    folders[os.path.dirname(src)].append(src)
largest = 0
sys.setrecursionlimit(10000)
for folder, files in sorted(folders.items()):
    inside = set(files)
    edges = {s: {owner[x] for x in uses[s] if owner.get(x) in inside and owner[x] != s}
             for s in files}
    index, low, stack, on, comps = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)
    for v in sorted(files):
        if v not in index:
            visit(v)
    for comp in comps:
        if len(comp) < 2:
            continue
        largest = max(largest, len(comp))
        names = " ".join(sorted(os.path.basename(c) for c in comp))
        print("  %s: a circle of %d files: %s" % (folder, len(comp), names))
        if verbose:
            for s in sorted(comp):
                for x in sorted(uses[s]):
                    if owner.get(x) in comp and owner[x] != s:
                        print("    %s -> %s (%s)" % (os.path.basename(s),
                              os.path.basename(owner[x]), x))
print(largest)
PY
) || exit 1
printf '%s\n' "$out" | sed '$d'
largest=$(printf '%s\n' "$out" | tail -n 1)
echo "  largest circle of calls inside a folder: $largest files, $(aim "$largest" le 3)"
