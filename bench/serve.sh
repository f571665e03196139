#!/bin/sh
# SPDX-License-Identifier: ISC
# Daemon benchmarks for warrant (bench/README.md, benchmarks 6, 7 and 11),
# called from bench/run.sh; they print figures next to their aims and
# assert nothing. Needs root: it creates a throwaway reviewer and 32
# requester users, makes them requesters (`warrant requesters add`), runs
# the reviewer's `warrant serve` on /run/warrant/REVIEWER/req.sock, and
# removes the users, their group, the directory and the tmpfiles.d entry
# on exit.
# usage: sh bench/serve.sh BUILD_DIR
# Benchmark 11 repeats 7's load twice, idle and while another requester's
# 64 MiB snapshots are copied, and compares their p99.
# Environment: BENCH_SOCKET_RUNS (benchmark 6, default 200),
# BENCH_LOAD_REQUESTS (benchmark 7, requests per requester, default 50;
# the bench's daemon allows as many in a minute with --rate), BENCH_SERVE_USERS (the users' name prefix,
# default wt-bsv: wt-bsv-rev, wt-bsv-a1…a16, wt-bsv-b1…b16; none may
# exist), BENCH_KEEP=1 (keep the temporary directory, with the store and
# the daemon's log; the users are removed all the same).
set -eu
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
warrant=$build/warrant
runs=${BENCH_SOCKET_RUNS:-200}
per=${BENCH_LOAD_REQUESTS:-50}
prefix=${BENCH_SERVE_USERS:-wt-bsv}
nusers=16
rev=$prefix-rev
grp=warrant-$rev
sock=/run/warrant/$rev/req.sock

skip() {
	echo "  skipped: $*"
	exit 0
}

echo "6. warrant request (3 commands) through the daemon's socket vs directly on the reviewer's store"
if [ "$(id -u)" -ne 0 ]; then
	skip "needs root (it creates a reviewer and requester users)"
fi
for p in setpriv useradd userdel groupdel sqlite3 cc pgrep; do
	command -v "$p" >/dev/null 2>&1 || skip "$p is required"
done
[ -x "$warrant" ] || { echo "bench: $warrant is not built" >&2; exit 1; }
users="$rev"
i=1
while [ "$i" -le "$nusers" ]; do
	users="$users $prefix-a$i $prefix-b$i"
	i=$((i + 1))
done
for u in $users; do
	! id "$u" >/dev/null 2>&1 || skip "user $u already exists; remove it or set BENCH_SERVE_USERS"
done
! getent group "$grp" >/dev/null || skip "group $grp already exists"
[ ! -e "/run/warrant/$rev" ] || skip "/run/warrant/$rev already exists"
[ ! -e "/etc/tmpfiles.d/$grp.conf" ] || skip "/etc/tmpfiles.d/$grp.conf already exists"

work=$(mktemp -d /tmp/warrant-bench-serve.XXXXXX)
chmod 755 "$work"
made=
dpid=
cleanup() {
	set +e
	if [ -n "$dpid" ]; then
		kill "$dpid" 2>/dev/null
		wait "$dpid" 2>/dev/null
	fi
	for u in $made; do
		# what is left of an interrupted run: processes of the throwaway
		# users, which this script created and nothing else uses
		for p in $(pgrep -u "$u" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	done
	for u in $made; do
		userdel "$u" 2>/dev/null || echo "bench: userdel $u failed; remove it by hand" >&2
		! getent group "$u" >/dev/null || groupdel "$u" 2>/dev/null
	done
	if [ -n "$made" ]; then
		groupdel "$grp" 2>/dev/null
		rm -rf "/run/warrant/$rev" "/etc/tmpfiles.d/$grp.conf"
		rmdir /run/warrant 2>/dev/null
	fi
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		chown -R root:root "$work"
		echo "bench: kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# --- tools and users -----------------------------------------------------------
cflags="-O2 -g -D_GNU_SOURCE -std=c17 -Wall -Wextra"
cc $cflags -o "$work/timeit" "$top/bench/timeit.c"
# shellcheck disable=SC2046
cc $cflags $(pkg-config --cflags jansson 2>/dev/null) -o "$work/sockload" \
    "$top/bench/sockload.c" $(pkg-config --libs jansson 2>/dev/null || echo -ljansson)
# A private copy of the CLI and of warrant-ui beside it, which runs serve
# (a rebuild meanwhile does not pull them away; nothing need be installed).
install -d -m 0755 "$work/bin"
install -m 0755 "$warrant" "$work/bin/warrant"
install -m 0755 "$build/warrant-ui" "$work/bin/warrant-ui"
w=$work/bin/warrant
home=$work/home
useradd -M -d "$home" -s /bin/sh -U "$rev"
made=$rev
install -d -m 0700 -o "$rev" -g "$rev" "$home"
state=$home/state
install -d -m 0700 -o "$rev" -g "$rev" "$state"
for u in $users; do
	[ "$u" = "$rev" ] && continue
	useradd -M -d /nonexistent -s /usr/sbin/nologin -U "$u"
	made="$made $u"
done
# shellcheck disable=SC2086
"$w" requesters add --reviewer "$rev" $(echo "$users" | cut -d' ' -f2-) >"$work/requesters.log" 2>&1 ||
    { echo "bench: warrant requesters add failed:" >&2; cat "$work/requesters.log" >&2; exit 1; }

cat >"$work/req3.json" <<'EOF'
{"reason":"bench","gate_timeout_seconds":86400,"commands":[
 {"id":"a","argv":["/usr/bin/true"],"why":"w"},
 {"id":"b","argv":["/usr/bin/ls","/"],"why":"w"},
 {"id":"c","argv":["/usr/bin/id"],"why":"w"}]}
EOF
chmod 644 "$work/req3.json"

# as_rev CMD...: CMD as the reviewer, on its store, in place of the shell
# that calls it (a subshell: "$(as_rev ...)" or "(as_rev ...) &", whose $!
# is then CMD's own pid, so that `kill "$dpid"` reaches the daemon).
as_rev() {
	exec setpriv --reuid="$rev" --regid="$rev" --init-groups \
	    env -i HOME="$home" USER="$rev" PATH=/usr/bin:/bin LANG=C WARRANT_HOME="$state" "$@"
}
sql() { as_rev sqlite3 -batch -init /dev/null "$state/warrant.db" "$1"; }
uids() {
	for u in "$@"; do id -u "$u"; done | paste -sd, -
}

# the rate limit raised to the load's size: benchmark 7 measures throughput
(as_rev "$w" serve --rate "$per") 2>"$work/serve.log" &
dpid=$!
i=0
while [ ! -S "$sock" ]; do
	i=$((i + 1))
	if [ "$i" -gt 100 ] || ! kill -0 "$dpid" 2>/dev/null; then
		echo "bench: warrant serve did not start; its log:" >&2
		tail -5 "$work/serve.log" >&2
		exit 1
	fi
	sleep 0.1
done

# --- 6. latency ------------------------------------------------------------------
# The daemon holds each requester to 16 pending gates and 30 requests a
# minute, so the socket's runs are spread over 16 requesters (their gates
# are left pending: at most 15 each, warm-up included).
k=$(( (runs + nusers - 1) / nusers ))
if [ "$k" -gt 15 ]; then
	echo "  (BENCH_SOCKET_RUNS=$runs: capped at 15 runs per requester, the daemon's quota)"
	k=15
fi
set --
i=1
while [ "$i" -le "$nusers" ]; do
	a=$prefix-a$i
	[ "$i" -gt 1 ] && set -- "$@" :::
	set -- "$@" socket "$work/req3.json" /usr/bin/setpriv --reuid="$a" --regid="$a" --init-groups \
	    /usr/bin/env -i HOME=/ PATH=/usr/bin:/bin LANG=C WARRANT_SOCKET="$sock" "$w" request ::: \
	    direct "$work/req3.json" /usr/bin/setpriv --reuid="$rev" --regid="$rev" --init-groups \
	    /usr/bin/env -i HOME="$home" PATH=/usr/bin:/bin LANG=C WARRANT_HOME="$state" "$w" request ::: \
	    version - /usr/bin/setpriv --reuid="$a" --regid="$a" --init-groups \
	    /usr/bin/env -i HOME=/ PATH=/usr/bin:/bin LANG=C "$w" --version
	i=$((i + 1))
done
out6=$work/bench6.txt
"$work/timeit" -n "$k" -w 1 "$@" >"$out6"
field() {
	awk -v l="$1" -v k="$2" '$1 == l { for (i = 2; i <= NF; i++) {
	    split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$out6"
}
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
. "$(dirname "$0")/aim.sh"
s_med=$(field socket median)
d_med=$(field direct median)
echo "  $nusers requesters x $k runs through the socket, interleaved with as many by the reviewer on its own"
echo "  store (1 warm-up each; every run is setpriv + env -i + warrant request, stdin the request file);"
echo "  the same store (the daemon's), WAL, fresh at the start"
printf "  through the socket (a requester -> warrant serve): median %s ms (p90 %s, n %s);" \
    "$s_med" "$(field socket p90)" "$(field socket n)"
printf " directly (the reviewer, warrant request on its store): median %s ms (p90 %s, n %s);" \
    "$d_med" "$(field direct p90)" "$(field direct n)"
printf " ratio %sx (%s)\n" "$(calc "$s_med / $d_med")" "$(aim "$(calc "$s_med / $d_med")" le 1.2 x)"
printf "  (context, no aim) setpriv + env + warrant --version alone: median %s ms;" "$(field version median)"
printf " p90 ratio socket/direct %sx\n" "$(calc "$(field socket p90) / $(field direct p90)")"
awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^fail=/ && $i != "fail=0")
    printf "  WARNING: %s: %s timed runs did not exit 0\n", $1, substr($i, 6) }' "$out6"
# shellcheck disable=SC2046
a_uids=$(uids $(i=1; while [ "$i" -le "$nusers" ]; do echo "$prefix-a$i"; i=$((i + 1)); done))
echo "  stored: $(sql "SELECT count(*) FROM gates WHERE requester_uid IN ($a_uids)") gates through the socket" \
    "(want $((nusers * (k + 1)))), $(sql "SELECT count(*) FROM gates WHERE requester_uid = $(id -u "$rev")") directly" \
    "(want $((nusers * (k + 1))))"
echo

# --- 7. throughput -----------------------------------------------------------------
echo "7. $nusers requesters x $per requests at once through one daemon (each request withdrawn at once)"
b_users=
i=1
while [ "$i" -le "$nusers" ]; do
	b_users="$b_users $prefix-b$i"
	i=$((i + 1))
done
before=$(wc -l <"$work/serve.log")
start=$(( $(date +%s%3N) + 1500 ))
pids=
for b in $b_users; do
	install -m 0644 -o "$b" -g "$b" /dev/null "$work/load-$b.txt"
	setpriv --reuid="$b" --regid="$b" --init-groups env -i PATH=/usr/bin:/bin LANG=C \
	    "$work/sockload" "$sock" "$work/req3.json" "$per" "$start" "$work/load-$b.txt" \
	    >"$work/load-$b.sum" 2>&1 </dev/null &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || true; done
cat "$work"/load-*.sum | awk -v want="$nusers" '
    { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (NF < 5) { bad++; next }
      n++; ok += v["ok"]; ref += v["refused"]; err += v["errors"]
      if (s == "" || v["start"] < s) s = v["start"]; if (v["end"] > e) e = v["end"] }
    END { wall = (e - s) / 1000
          printf "  %d of %d requesters ran; %d requests stored, %d refused, %d errors, in %.2f s:", n, want, ok, ref, err, wall
          printf " %.0f requests per second (each with its withdrawal: %.0f operations per second)\n",
              (wall > 0 ? ok / wall : 0), (wall > 0 ? 2 * ok / wall : 0)
          if (bad) printf "  WARNING: %d requesters printed no summary\n", bad
          print ok > "'"$work/ok"'" }'
pool() {
	cat "$work"/load-*.txt | awk -v l="$1" '$1 == l { print $2 }' | sort -n |
	    awk -v k="$2" '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
		i = k == "p90" ? int(0.9 * NR + 0.999999) : int((NR + 1) / 2)
		printf "%.1f", v[i < 1 ? 1 : i] }'
}
printf "  per request (connect to descriptor): median %s ms, p90 %s ms; its withdrawal: median %s ms, p90 %s ms\n" \
    "$(pool request median)" "$(pool request p90)" "$(pool withdraw median)" "$(pool withdraw p90)"
codes=$(cat "$work"/load-*.txt | awk '$1 == "refused" || $1 == "error" { print $1 " " $2 }' | sort | uniq -c |
    awk '{ printf "%s%s %s x%d", sep, $2, $3, $1; sep = ", " }')
[ -z "$codes" ] || echo "  refusals and errors: $codes"
# shellcheck disable=SC2086
b_uids=$(uids $b_users)
stored=$(sql "SELECT count(*) FROM gates WHERE requester_uid IN ($b_uids)")
denied=$(sql "SELECT count(*) FROM gates WHERE requester_uid IN ($b_uids) AND state = 'denied'")
acked=$(cat "$work/ok")
if [ "$stored" = "$acked" ] && [ "$denied" = "$stored" ]; then
	echo "  none lost: the reviewer's store holds $stored gates of theirs, as many as were acknowledged, all withdrawn"
else
	echo "  WARNING: acknowledged $acked, stored $stored, withdrawn $denied"
fi
kill -0 "$dpid" 2>/dev/null || echo "  WARNING: the daemon is gone; its log: $(tail -3 "$work/serve.log")"
echo "  the daemon logged $(($(wc -l <"$work/serve.log") - before)) lines meanwhile" \
    "($(grep -c 'rate limit\|pending gates' "$work/serve.log" || true) quota refusals in all)"
echo

# --- 11. the load of 7 while snapshots are copied --------------------------------
echo "11. the load of 7 while another requester's 64 MiB snapshots are read, hashed and copied"
# no quotas in the way: both rounds are the same load, the second with the copies
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null || true
(as_rev "$w" serve --rate 100000 --max-pending 100000) 2>>"$work/serve.log" &
dpid=$!
i=0
while [ ! -S "$sock" ] || ! kill -0 "$dpid" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -le 100 ] || { echo "bench: warrant serve did not start again" >&2; exit 1; }
	sleep 0.1
done
head -c 67108864 /dev/urandom >"$work/big.bin"
chmod 644 "$work/big.bin"
printf '{"reason":"bench snapshot","files":{"x":{"snapshot":"%s","mode":"0644"}},"commands":[{"id":"a","argv":["/usr/bin/true",{"file":"x"}],"why":"w"}]}\n' \
    "$work/big.bin" >"$work/snap.json"
chmod 644 "$work/snap.json"
# round NAME: the 16 sockloads of 7, their per-request latencies in NAME-*.txt
round() {
	start=$(( $(date +%s%3N) + 1500 ))
	pids=
	for b in $b_users; do
		install -m 0644 -o "$b" -g "$b" /dev/null "$work/$1-$b.txt"
		setpriv --reuid="$b" --regid="$b" --init-groups env -i PATH=/usr/bin:/bin LANG=C \
		    "$work/sockload" "$sock" "$work/req3.json" "$per" "$start" "$work/$1-$b.txt" \
		    >/dev/null 2>&1 </dev/null &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p" || true; done
}
p99() {
	cat "$work"/"$1"-*.txt | awk '$1 == "request" { print $2 }' | sort -n |
	    awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
		i = int(0.99 * NR + 0.999999); printf "%.1f", v[i < 1 ? 1 : i] }'
}
round idle
copier=$prefix-a1
install -m 0644 -o "$copier" /dev/null "$work/copies"
setpriv --reuid="$copier" --regid="$copier" --init-groups env -i HOME=/ PATH=/usr/bin:/bin LANG=C \
    WARRANT_SOCKET="$sock" sh -c 'while [ ! -e "$1.stop" ]; do
	"$2" request <"$3" >/dev/null 2>&1 && echo x >>"$1"; done' sh "$work/copies" "$w" "$work/snap.json" &
cpid=$!
round loaded
touch "$work/copies.stop"
wait "$cpid" 2>/dev/null || true
idle99=$(p99 idle)
load99=$(p99 loaded)
printf "  %d requesters x %s requests: p99 connect to descriptor idle %s ms, while copying %s ms;" \
    "$nusers" "$per" "$idle99" "$load99"
printf " ratio %sx (%s); %s snapshot requests of 64 MiB stored meanwhile\n" \
    "$(calc "$load99 / $idle99")" "$(aim "$(calc "$load99 / $idle99")" le 2 x)" \
    "$(wc -l <"$work/copies")"
# what the same run gave with the copy in the daemon's loop (issue 26, on
# dc35e1c, 2 shared cores): each copy held everyone else up
echo "  (before the intake worker, copying in the daemon's loop: idle 231.8 ms, while copying 863.2 ms, ratio 3.72x)"
