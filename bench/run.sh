#!/bin/sh
# SPDX-License-Identifier: ISC
# Benchmarks for warrant (bench/README.md). They print figures next to
# their aims and assert nothing: the exit status is 0 unless a benchmark
# could not be set up at all.
# usage: sh bench/run.sh BUILD_DIR
# Environment: BENCH_RUNS (request runs, default 200), BENCH_SCALE_RUNS
# (runs per store size, default 100), BENCH_HASH_RUNS (default 7),
# BENCH_BIG (largest store, default 100000), BENCH_BASELINE (another
# warrant binary timed beside this one in benchmark 1), BENCH_ONLY=request
# (benchmark 1 alone) or gc (3b alone), BENCH_APPROVALS (3b, default
# 1000), BENCH_KEEP=1 (keep the
# temporary directory with its stores, for a closer look). Benchmarks 4
# and 5 (the root runner) are bench/runner.sh, 6 and 7 (the reviewer's
# daemon) bench/serve.sh, 9 (remote machines over ssh) bench/remote.sh,
# each with its own knobs.
set -eu
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
warrant=$build/warrant
runs=${BENCH_RUNS:-200}
scale_runs=${BENCH_SCALE_RUNS:-100}
hash_runs=${BENCH_HASH_RUNS:-7}
big=${BENCH_BIG:-100000}
mid=$((big / 10))

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 is required" >&2; exit 1; }
}
need cc
need sqlite3
need openssl
[ -x "$warrant" ] || { echo "bench: $warrant is not built" >&2; exit 1; }
sqlite=$(command -v sqlite3)
. "$top/bench/aim.sh"
openssl=$(command -v openssl)

work=$(mktemp -d /tmp/warrant-bench.XXXXXX)
chmod 700 "$work"
if [ "${BENCH_KEEP:-0}" = 1 ]; then
	trap 'echo "bench: kept $work"' EXIT
else
	trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM
started=$(date +%s)

# --- tools, compiled fresh into the throwaway directory --------------------
cflags="-O2 -g -D_GNU_SOURCE -std=c17 -Wall -Wextra"
cc $cflags -o "$work/timeit" "$top/bench/timeit.c"
if pkg-config --exists jansson sqlite3 libcrypto 2>/dev/null; then
	pc_cflags=$(pkg-config --cflags jansson sqlite3 libcrypto)
	pc_libs=$(pkg-config --libs libcrypto jansson)
else
	pc_cflags=
	pc_libs="-lcrypto -ljansson"
fi
# shellcheck disable=SC2086
cc $cflags -I"$build" -I"$top/src" $pc_cflags -o "$work/hashfile" \
    "$top/bench/hashfile.c" "$top/src/root/sha256.c" "$top/src/root/util.c" -I"$top/src/root" $pc_libs
timeit=$work/timeit

# field FILE LABEL KEY: one figure from timeit's output.
field() {
	awk -v l="$2" -v k="$3" '$1 == l { for (i = 2; i <= NF; i++) {
	    split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"
}
# calc EXPR: a figure, two decimals.
calc() {
	awk "BEGIN { printf \"%.2f\", $1 }"
}
# failures FILE: say so when some timed runs did not exit 0.
failures() {
	awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^fail=/ && $i != "fail=0")
	    printf "  WARNING: %s: %s timed runs did not exit 0\n", $1, substr($i, 6) }' "$1"
}

# newhome NAME: a fresh state directory, mode 0700.
newhome() {
	mkdir -m 700 "$work/$1"
	echo "$work/$1"
}

cat >"$work/req3.json" <<'EOF'
{"reason":"bench","gate_timeout_seconds":86400,"commands":[
 {"id":"a","argv":["/usr/bin/true"],"why":"w"},
 {"id":"b","argv":["/usr/bin/ls","/"],"why":"w"},
 {"id":"c","argv":["/usr/bin/id"],"why":"w"}]}
EOF

# request HOME: one gate now, failing loudly (set-up, not timed).
request() {
	WARRANT_HOME=$1 "$warrant" request <"$work/req3.json" >/dev/null
}

echo "warrant benchmarks ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
echo "  host: $(uname -sr), $(nproc) CPU(s), $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
echo "  sqlite3 $($sqlite --version | cut -d' ' -f1), $($openssl version | cut -d' ' -f1-2)," \
    "/tmp on $(df -T "$work" | awk 'NR == 2 { print $2 }')"
echo "  binary: $warrant"
echo "  times are wall-clock per process (spawn to exit); median and p90 in ms"
echo "  load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews every figure)"
echo

if [ "${BENCH_ONLY:-}" != gc ]; then
if [ "${BENCH_ONLY:-}" != list ]; then
# --- 1. request latency against two floors ----------------------------------
echo "1. warrant request (3 commands) vs floors, $runs interleaved runs each"
h1=$(newhome request)
request "$h1"
floor=$work/floor.db
$sqlite -batch -init /dev/null "$floor" \
    "PRAGMA journal_mode=WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL);" >/dev/null
out1=$work/bench1.txt
# BENCH_BASELINE=PATH: another build of warrant (say, before a change),
# timed in the same interleaved rounds against a store of its own.
set --
if [ -n "${BENCH_BASELINE:-}" ]; then
	[ -x "$BENCH_BASELINE" ] || { echo "bench: $BENCH_BASELINE is not executable" >&2; exit 1; }
	h1b=$(newhome request_baseline)
	WARRANT_HOME=$h1b "$BENCH_BASELINE" request <"$work/req3.json" >/dev/null
	set -- baseline "$work/req3.json" "WARRANT_HOME=$h1b" "$BENCH_BASELINE" request :::
fi
"$timeit" -n "$runs" -w 10 "$@" \
    request "$work/req3.json" "WARRANT_HOME=$h1" "$warrant" request ::: \
    true - /bin/true ::: \
    sqlite3 - "$sqlite" -batch -init /dev/null "$floor" \
    "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; INSERT INTO t (v) VALUES (hex(randomblob(1024)));" ::: \
    version - "$warrant" --version ::: \
    sqlite3_version - "$sqlite" -version \
    >"$out1"
r_med=$(field "$out1" request median)
t_med=$(field "$out1" true median)
s_med=$(field "$out1" sqlite3 median)
printf "  request (3 commands): median %s ms (p90 %s); floor exec /bin/true %s ms (p90 %s);" \
    "$r_med" "$(field "$out1" request p90)" "$t_med" "$(field "$out1" true p90)"
printf " floor sqlite3 WAL+FULL commit %s ms (p90 %s); ratio %sx (%s)\n" \
    "$s_med" "$(field "$out1" sqlite3 p90)" "$(calc "$r_med / $s_med")" \
    "$(aim "$(calc "$r_med / $s_med")" le 1.25 x)"
if [ -n "${BENCH_BASELINE:-}" ]; then
	b_med=$(field "$out1" baseline median)
	printf "  baseline %s: median %s ms (p90 %s); ratio %sx to the floor; this build / baseline %sx\n" \
	    "$BENCH_BASELINE" "$b_med" "$(field "$out1" baseline p90)" \
	    "$(calc "$b_med / $s_med")" "$(calc "$r_med / $b_med")"
fi
printf "  (net of launch: request - /bin/true %s ms, sqlite3 - /bin/true %s ms; ratio %sx)\n" \
    "$(calc "$r_med - $t_med")" "$(calc "$s_med - $t_med")" "$(calc "($r_med - $t_med) / ($s_med - $t_med)")"
v_med=$(field "$out1" version median)
sv_med=$(field "$out1" sqlite3_version median)
printf "  (context, no aim) start-up alone: warrant --version %s ms, sqlite3 -version %s ms;" \
    "$v_med" "$sv_med"
printf " beyond start-up: request %s ms, sqlite3 commit %s ms\n" \
    "$(calc "$r_med - $v_med")" "$(calc "$s_med - $sv_med")"
failures "$out1"
echo
if [ "${BENCH_ONLY:-}" = request ]; then
	# --- 10. ROOT commands under the supervisor (bench/confine.sh: needs root) ---
sh "$top/bench/confine.sh" "$build" || echo "  WARNING: benchmark 10 failed"
echo
echo "total bench time $(($(date +%s) - started)) s; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

# --- 2. SHA-256 throughput ----------------------------------------------------
echo "2. SHA-256 of a 256 MiB file: sha256_fd vs openssl dgst, $hash_runs interleaved runs each"
big_file=$work/random.bin
empty=$work/empty.bin
head -c 268435456 /dev/urandom >"$big_file"
: >"$empty"
cat "$big_file" >/dev/null	# warm the page cache; nothing is dropped
out2=$work/bench2.txt
"$timeit" -n "$hash_runs" -w 1 \
    sha256_fd - "$work/hashfile" "$big_file" ::: \
    openssl - "$openssl" dgst -sha256 "$big_file" >"$out2"
# Start-up costs, measured on an empty file and taken off the totals.
"$timeit" -n 50 -w 3 \
    sha256_fd_empty - "$work/hashfile" "$empty" ::: \
    openssl_empty - "$openssl" dgst -sha256 "$empty" >>"$out2"
inproc=$work/inproc.txt
: >"$inproc"
i=0
while [ "$i" -lt "$hash_runs" ]; do
	"$work/hashfile" "$big_file" | cut -d' ' -f2 >>"$inproc"
	i=$((i + 1))
done
in_med=$(sort -n "$inproc" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
d_ours=$("$work/hashfile" "$big_file" | cut -d' ' -f1)
d_ssl=$("$openssl" dgst -sha256 -r "$big_file" | cut -d' ' -f1)
w_med=$(field "$out2" sha256_fd median)
o_med=$(field "$out2" openssl median)
w0=$(field "$out2" sha256_fd_empty median)
o0=$(field "$out2" openssl_empty median)
mb=268.435456	# 256 MiB in MB (10^6 bytes)
w_mbs=$(calc "$mb / (($w_med - $w0) / 1000)")
o_mbs=$(calc "$mb / (($o_med - $o0) / 1000)")
printf "  sha256_fd %.0f MB/s (process %s ms, start-up %s ms; inside sha256_fd alone %.0f MB/s);" \
    "$w_mbs" "$w_med" "$w0" "$(calc "$mb / $in_med")"
printf " openssl dgst %.0f MB/s (process %s ms, start-up %s ms); ratio %sx (%s)\n" \
    "$o_mbs" "$o_med" "$o0" "$(calc "$w_mbs / $o_mbs")" "$(aim "$(calc "$w_mbs / $o_mbs")" ge 0.9 x)"
if [ "$d_ours" = "$d_ssl" ]; then
	echo "  digests agree"
else
	echo "  WARNING: digests differ: sha256_fd $d_ours, openssl $d_ssl"
fi
failures "$out2"
rm -f "$big_file"
echo

fi	# BENCH_ONLY=list skips 1-2

# --- 3. request and list latency by store size --------------------------------
# seed HOME N: make HOME hold N pending gates. Four are real (made by
# warrant request); the rest are SQL clones of them with fresh ids
# ("w-" + 10 base32 characters of a counter), created_at spread one second
# apart into the past, expires_at 30 days ahead, and their commands and
# request events cloned alongside. The clones' manifest_sha256 and event
# hashes are copied, so `warrant log --verify` would reject this store;
# nothing here verifies it.
seed() {
	home=$1
	n=$2
	for _ in 1 2 3 4; do
		request "$home"
	done
	[ "$n" -gt 4 ] || return 0
	b32=
	for k in 9 8 7 6 5 4 3 2 1 0; do
		b32="$b32 || substr('abcdefghijklmnopqrstuvwxyz234567', ((m.n >> $((k * 5))) & 31) + 1, 1)"
	done
	$sqlite -batch -init /dev/null "$home/warrant.db" >/dev/null <<EOF
PRAGMA synchronous = OFF;
BEGIN;
CREATE TEMP TABLE seedg AS
  SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM gates;
CREATE TEMP TABLE cnt AS
  WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < $n - 5)
  SELECT n FROM c;
CREATE TEMP TABLE map AS
  SELECT m.n AS n, 'w-' $b32 AS id, s.id AS src
  FROM cnt m JOIN seedg s ON s.k = m.n % 4;
CREATE TEMP TABLE base AS
  SELECT CAST(strftime('%s', 'now') AS INTEGER) AS now,
         (SELECT max(seq) FROM events) AS seq;
INSERT INTO gates (id, state, created_at, expires_at, settled_at, requester,
    requester_uid, agent, project, host, machine, reason, run_as, cwd, env,
    stop_on_failure, output_to_agent, next_prompt, risk_badges, root_count,
    user_count, manifest, manifest_sha256, feedback)
  SELECT m.id, 'pending', b.now - 1 - m.n, b.now + 30 * 86400, NULL, g.requester,
    g.requester_uid, g.agent, g.project, g.host, g.machine, g.reason, g.run_as,
    g.cwd, g.env, g.stop_on_failure, g.output_to_agent, g.next_prompt,
    g.risk_badges, g.root_count, g.user_count, replace(g.manifest, g.id, m.id),
    g.manifest_sha256, NULL
  FROM map m JOIN gates g ON g.id = m.src, base b ORDER BY m.n;
INSERT INTO commands (gate_id, idx, id, as_user, argv, command, given_path, path,
    executable_sha256, why, cwd, timeout_seconds, badges)
  SELECT m.id, c.idx, c.id, c.as_user, c.argv, c.command, c.given_path, c.path,
    c.executable_sha256, c.why, c.cwd, c.timeout_seconds, c.badges
  FROM map m JOIN commands c ON c.gate_id = m.src ORDER BY m.n, c.idx;
INSERT INTO events (seq, at, gate_id, kind, detail, prev_sha256, sha256)
  SELECT b.seq + 1 + m.n, b.now - 1 - m.n, m.id, e.kind, e.detail,
    e.prev_sha256, e.sha256
  FROM map m JOIN events e ON e.gate_id = m.src AND e.kind = 'request', base b
  ORDER BY m.n;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
EOF
}

echo "3. request latency by store size ($scale_runs interleaved runs each), list at $big"
h0=$(newhome store0)
hm=$(newhome store_mid)
hb=$(newhome store_big)
t0=$(date +%s)
seed "$hm" "$mid"
seed "$hb" "$big"
request "$h0"
count() {
	$sqlite -batch -init /dev/null "$1/warrant.db" \
	    "SELECT count(*) FROM gates WHERE state = 'pending'"
}
echo "  seeded in $(($(date +%s) - t0)) s: $(count "$hm") and $(count "$hb") pending gates," \
    "database $(du -m "$hb/warrant.db" | cut -f1) MiB at $big"
out3=$work/bench3.txt
"$timeit" -n "$scale_runs" -w 5 \
    r0 "$work/req3.json" "WARRANT_HOME=$h0" "$warrant" request ::: \
    rmid "$work/req3.json" "WARRANT_HOME=$hm" "$warrant" request ::: \
    rbig "$work/req3.json" "WARRANT_HOME=$hb" "$warrant" request >"$out3"
"$timeit" -n 50 -w 3 \
    lbig - "WARRANT_HOME=$hb" "$warrant" list -j ::: \
    lmid - "WARRANT_HOME=$hm" "$warrant" list -j ::: \
    l0 - "WARRANT_HOME=$h0" "$warrant" list -j ::: \
    lversion - "$warrant" --version >>"$out3"
# the floor of list: the sqlite3 CLI running the very SELECT of store_list
# (src/store/gates.c, parameters filled in) with -json output, same file
cols="id, state, created_at, expires_at, settled_at, requester, requester_uid, agent,\
 project, host, machine, reason, run_as, cwd, env, stop_on_failure, output_to_agent,\
 next_prompt, risk_badges, root_count, user_count, manifest_sha256, feedback,\
 requester_pid, requester_start"
q50="SELECT $cols FROM gates WHERE state = 'pending' AND (NULL IS NULL OR project = NULL)\
 AND (-1 < 0 OR requester_uid = -1) ORDER BY created_at DESC, rowid DESC LIMIT 50"
qall="SELECT $cols FROM gates WHERE (NULL IS NULL OR project = NULL)\
 AND (-1 < 0 OR requester_uid = -1)\
 ORDER BY state = 'pending' DESC, created_at DESC, rowid DESC LIMIT 1000000"
"$timeit" -n 50 -w 3 \
    l50 - "WARRANT_HOME=$hb" "$warrant" list -j ::: \
    sq50 - "$sqlite" -json -init /dev/null "$hb/warrant.db" "$q50" >>"$out3"
"$timeit" -n "${BENCH_LIST_RUNS:-5}" -w 1 \
    labig - "WARRANT_HOME=$hb" "$warrant" list -a -j -l 1000000 ::: \
    sqall - "$sqlite" -json -init /dev/null "$hb/warrant.db" "$qall" >>"$out3"
a=$(field "$out3" r0 median)
b=$(field "$out3" rmid median)
c=$(field "$out3" rbig median)
worst=$(awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { m = b > c ? b : c; printf "%.2f", m / a }')
printf "  request (3 commands): fresh store %s ms (p90 %s); %s gates %s ms (p90 %s);" \
    "$a" "$(field "$out3" r0 p90)" "$mid" "$b" "$(field "$out3" rmid p90)"
printf " %s gates %s ms (p90 %s); worst/fresh %sx (%s)\n" \
    "$big" "$c" "$(field "$out3" rbig p90)" "$worst" "$(aim "$worst" le 1.2 x)"
lines=$(WARRANT_HOME=$hb "$warrant" list -j | wc -c)
printf "  list -j (default limit 50, %s bytes of JSON) with %s pending gates: median %s ms (p90 %s)" \
    "$lines" "$big" "$(field "$out3" lbig median)" "$(field "$out3" lbig p90)"
printf " (%s); at %s: %s ms; fresh store: %s ms\n" \
    "$(aim "$(field "$out3" lbig median)" le 10 " ms")" "$mid" "$(field "$out3" lmid median)" "$(field "$out3" l0 median)"
printf "  (context, no aim) warrant --version alone %s ms; list -j at %s beyond start-up %s ms\n" \
    "$(field "$out3" lversion median)" "$big" \
    "$(calc "$(field "$out3" lbig median) - $(field "$out3" lversion median)")"
ratio() {
	printf "%sx (%s)" "$(calc "$1 / $2")" "$(aim "$(calc "$1 / $2")" le 1.2 x)"
}
printf "  list -j at %s (50 gates) vs the sqlite3 CLI's same SELECT -json on the same file: %s ms vs %s ms, %s\n" \
    "$big" "$(field "$out3" l50 median)" "$(field "$out3" sq50 median)" \
    "$(ratio "$(field "$out3" l50 median)" "$(field "$out3" sq50 median)")"
printf "  list -a -j -l 1000000 (all %s gates, %s MB of JSON) vs sqlite3 -json: %s ms vs %s ms, %s\n" \
    "$big" "$(calc "$(WARRANT_HOME=$hb "$warrant" list -a -j -l 1000000 | wc -c) / 1000000")" \
    "$(field "$out3" labig median)" "$(field "$out3" sqall median)" \
    "$(ratio "$(field "$out3" labig median)" "$(field "$out3" sqall median)")"
failures "$out3"
echo

fi	# BENCH_ONLY=gc skips 1-3
if [ "${BENCH_ONLY:-}" = list ]; then
	# --- 10. ROOT commands under the supervisor (bench/confine.sh: needs root) ---
sh "$top/bench/confine.sh" "$build" || echo "  WARNING: benchmark 10 failed"
echo
echo "total bench time $(($(date +%s) - started)) s; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	exit 0
fi

# --- 3b. disk use after many approvals (the retention policy) -----------------
approvals=${BENCH_APPROVALS:-1000}
echo "3b. disk use after $approvals YOU-only approvals with 1 MiB of output each (warrant answer prunes)"
hg=$(newhome store_gc)
printf '%s\n' '{"reason":"bench","commands":[{"id":"a","as":"user","why":"w","argv":["/usr/bin/head","--bytes=1048576","/dev/zero"]}]}' \
    >"$work/mib.json"
t0=$(date +%s)
peak=0 i=0 fails=0
while [ "$i" -lt "$approvals" ]; do
	id=$(WARRANT_HOME=$hg "$warrant" request <"$work/mib.json" | sed -n 's/^{"request_id":"\([^"]*\)".*/\1/p')
	WARRANT_HOME=$hg "$warrant" answer "$id" --run --no-detach -j </dev/null >/dev/null 2>&1 ||
	    fails=$((fails + 1))
	i=$((i + 1))
	if [ $((i % 50)) -eq 0 ]; then
		k=$(du -sk "$hg" | cut -f1)
		[ "$k" -le "$peak" ] || peak=$k
	fi
done
secs=$(($(date +%s) - t0))
state_k=$(du -sk "$hg" | cut -f1)
runs_k=$(du -sk "$hg/runs" | cut -f1)
ndirs=$(find "$hg/runs" -mindepth 1 -maxdepth 1 -type d | wc -l)
printf "  after %s approvals (%s s, %s ms each): state directory %s MiB (runs/ %s MiB in %s directories," \
    "$approvals" "$secs" "$(calc "$secs * 1000 / $approvals")" "$(calc "$state_k / 1024")" \
    "$(calc "$runs_k / 1024")" "$ndirs"
printf " database %s MiB, requests.jsonl %s MiB); peak seen %s MiB; runs/ %s (the default bound)\n" \
    "$(calc "$(stat -c %s "$hg/warrant.db") / 1048576")" \
    "$(calc "$(stat -c %s "$hg/requests.jsonl") / 1048576")" "$(calc "$peak / 1024")" \
    "$(aim "$(calc "$runs_k / 1024")" le 256 " MiB")"
printf "  without pruning it would be about %s MiB of output logs\n" "$approvals"
[ "$fails" -eq 0 ] || echo "  WARNING: $fails approvals failed"
WARRANT_HOME=$hg "$warrant" gc --vacuum -j >"$work/gc.json"
printf "  warrant gc --vacuum: %s\n" "$(cat "$work/gc.json")"
echo
[ "${BENCH_ONLY:-}" != gc ] || exit 0

# --- 8. latency of the console, the MCP server and wait (bench/latency.sh) ---
sh "$top/bench/latency.sh" "$build" || echo "  WARNING: benchmark 8 failed"
echo

# --- 4 and 5. the root runner (bench/runner.sh: needs root, skipped otherwise) --
runner_rc=0
sh "$top/bench/runner.sh" "$build" || runner_rc=$?
echo

# --- 6 and 7. the reviewer's daemon (bench/serve.sh: needs root, skipped otherwise)
serve_rc=0
sh "$top/bench/serve.sh" "$build" || serve_rc=$?
echo

# --- 9. remote machines (bench/remote.sh: needs root and sshd, skipped otherwise)
remote_rc=0
sh "$top/bench/remote.sh" "$build" || remote_rc=$?
echo
# --- 10. ROOT commands under the supervisor (bench/confine.sh: needs root) ---
sh "$top/bench/confine.sh" "$build" || echo "  WARNING: benchmark 10 failed"
echo
echo "total bench time $(($(date +%s) - started)) s; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$runner_rc" -ne 0 ] && exit "$runner_rc"
[ "$serve_rc" -ne 0 ] && exit "$serve_rc"
exit "$remote_rc"
