#!/bin/sh
# SPDX-License-Identifier: ISC
# Root-runner benchmarks for warrant (bench/README.md, benchmarks 4 and 5),
# called from bench/run.sh; they print figures next to their aims and
# assert nothing. Needs root: it creates a throwaway reviewer user with a
# NOPASSWD sudoers drop-in, drives `warrant answer --run` as that user in a
# pseudo-terminal (script(1)), and removes the user, the drop-in and every
# temporary file on exit. Each runner run appends its lines to the root log
# (/var/log/warrant.log), as any approval does.
# usage: sh bench/runner.sh BUILD_DIR
# Environment: BENCH_RUNNER_RUNS (rounds of benchmark 4, default 20),
# BENCH_FLOOD_BYTES (benchmark 5's output, default 1073741824),
# BENCH_LINES (benchmark 5's context runs, seq 1 N, default 1000000),
# BENCH_USER (the throwaway user, default wt-bench; it must not exist),
# BENCH_NO_INSTALL=1 (skip instead of installing the build when the
# installed runner differs from BUILD_DIR's), BENCH_KEEP=1 (keep the
# temporary directory; the user and the drop-in are removed all the same).
set -eu
build=$(cd "${1:-build}" && pwd)
warrant=$build/warrant
runs=${BENCH_RUNNER_RUNS:-20}
flood=${BENCH_FLOOD_BYTES:-1073741824}
lines=${BENCH_LINES:-1000000}
user=${BENCH_USER:-wt-bench}
dropin=/etc/sudoers.d/$user

skip() {
	echo "  skipped: $*"
	exit 0
}

echo "4. post-authentication execution of a 10-command ROOT batch vs sudo -n and direct exec"
if [ "$(id -u)" -ne 0 ]; then
	skip "needs root (it creates a reviewer user and a sudoers drop-in)"
fi
for p in bash sudo setpriv script useradd userdel visudo stat sha256sum pgrep; do
	command -v "$p" >/dev/null 2>&1 || skip "$p is required"
done
[ -x "$warrant" ] || { echo "bench: $warrant is not built" >&2; exit 1; }
runner=$(sed -n 's/^#define WARRANT_RUNNER_PATH "\(.*\)"$/\1/p' "$build/config.h")
[ -n "$runner" ] || { echo "bench: no WARRANT_RUNNER_PATH in $build/config.h" >&2; exit 1; }
if ! cmp -s "$build/warrant-runner" "$runner" 2>/dev/null; then
	[ "${BENCH_NO_INSTALL:-0}" != 1 ] ||
	    skip "$runner is not the build's runner (BENCH_NO_INSTALL=1)"
	echo "  $runner is missing or not the build's: meson install -C $build --no-rebuild"
	(umask 022 && meson install -C "$build" --no-rebuild >/dev/null) ||
	    { echo "bench: meson install failed" >&2; exit 1; }
fi
if id "$user" >/dev/null 2>&1; then
	skip "user $user already exists; remove it (userdel $user) or set BENCH_USER"
fi
[ ! -e "$dropin" ] || skip "$dropin already exists"

# --- the throwaway reviewer -------------------------------------------------
home=$(mktemp -d /tmp/warrant-bench-runner.XXXXXX)
made_user=0
cleanup() {
	set +e
	rm -f "$dropin"
	if [ "$made_user" = 1 ]; then
		# what is left of an interrupted loop: processes of the throwaway
		# user, which this script created and nothing else uses
		left=$(pgrep -u "$user" 2>/dev/null)
		if [ -n "$left" ]; then
			for p in $left; do kill "$p" 2>/dev/null; done
			sleep 1
		fi
		rm -f "/run/sudo/ts/$user" "/var/run/sudo/ts/$user" "/var/lib/sudo/ts/$user"
		userdel "$user" 2>/dev/null || echo "bench: userdel $user failed; remove it by hand" >&2
		! getent group "$user" >/dev/null || groupdel "$user" 2>/dev/null
	fi
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		chown -R root:root "$home"
		echo "bench: kept $home"
	else
		rm -rf "$home"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

useradd -M -d "$home" -s /bin/sh -U "$user"
made_user=1
chown "$user:" "$home"
chmod 700 "$home"
printf '%s ALL=(ALL:ALL) NOPASSWD: ALL\n' "$user" >"$home/sudoers.tmp"
visudo -cqf "$home/sudoers.tmp" || { echo "bench: the drop-in does not parse" >&2; exit 1; }
install -m 0440 -o root -g root "$home/sudoers.tmp" "$dropin"
rm -f "$home/sudoers.tmp"
visudo -cq || { echo "bench: sudoers does not parse with the drop-in" >&2; exit 1; }
state=$home/state
install -d -m 0700 -o "$user" -g "$user" "$state"
# A private copy of the CLI, so a rebuild of BUILD_DIR meanwhile does not
# pull it from under the loop (the runner is the installed one).
install -d -m 0755 "$home/bin"
install -m 0755 "$build/warrant" "$home/bin/warrant"
warrant=$home/bin/warrant

# as CMD...: run CMD as the reviewer, clean login-like environment.
as() {
	setpriv --reuid="$user" --regid="$user" --init-groups \
	    env -i HOME="$home" USER="$user" LOGNAME="$user" SHELL=/bin/sh \
	    PATH=/usr/local/bin:/usr/bin:/bin LANG=C TERM=xterm WARRANT_HOME="$state" "$@"
}
# in_pty CMD...: the same, with a controlling terminal (script(1)); the
# terminal's output goes to $home/pty.log.
in_pty() {
	as script -qec "$*" /dev/null </dev/null >>"$home/pty.log" 2>&1
}

# The batch: 10 cheap commands (no argument may be exactly "-c").
cat >"$home/cmds" <<'EOF'
/usr/bin/true
/usr/bin/id -u
/usr/bin/date
/usr/bin/uname -a
/usr/bin/hostname
/usr/bin/whoami
/usr/bin/pwd
/usr/bin/nproc
/usr/bin/ls /
/usr/bin/echo bench
EOF
awk 'BEGIN { printf "{\"reason\":\"bench\",\"gate_timeout_seconds\":3600,\"commands\":[" }
    { printf "%s{\"id\":\"c%d\",\"argv\":[", (NR > 1 ? "," : ""), NR
      for (i = 1; i <= NF; i++) printf "%s\"%s\"", (i > 1 ? "," : ""), $i
      printf "],\"why\":\"bench\"}" }
    END { print "]}" }' "$home/cmds" >"$home/req10.json"
chmod 644 "$home/cmds" "$home/req10.json"
# One gate per round plus one warm-up, requested up front (not timed).
i=0
while [ "$i" -le "$runs" ]; do
	as "$warrant" request <"$home/req10.json" | sed -n 's/^{"request_id":"\([^"]*\)".*/\1/p'
	i=$((i + 1))
done >"$home/ids"
[ "$(wc -l <"$home/ids")" -eq $((runs + 1)) ] || { echo "bench: warrant request failed" >&2; exit 1; }

# The timed loop, run by bash inside the pty as the reviewer. Times are
# $EPOCHREALTIME (no fork), in microseconds; phase boundaries are file
# modification times (the kernel's coarse clock: a few ms of jitter).
cat >"$home/inner.bash" <<'EOF'
set -u
warrant=$1 runner=$2 dir=$3 runs=$4
mapfile -t cmds <"$dir/cmds"
mapfile -t ids <"$dir/ids"
res=$dir/results
: >"$res"
us() { local t=${1/./}; echo $((10#$t)); }
mt() { us "$(stat -c %.6Y "$1" 2>/dev/null || echo 0.0)"; }
manifest= hash=
for ((r = 0; r <= runs; r++)); do
	id=${ids[r]}
	# (1) warrant answer, end to end
	t0=$EPOCHREALTIME
	"$warrant" answer "$id" --run --no-detach -j >"$dir/answer-$r.json" 2>"$dir/answer-$r.err"
	rc=$?
	t1=$EPOCHREALTIME
	g=$(echo "$WARRANT_HOME/runs/$id".*)
	grep -q '"outcome":"completed"' "$dir/answer-$r.json" || rc=1
	if ((r == 0)); then
		manifest=$g/manifest.json
		hash=$(sha256sum "$manifest" | cut -d' ' -f1)
	else
		a=$(us "$t0") b=$(us "$t1") m=$(mt "$g/manifest.json") s=$(mt "$g/started.json") l=$(mt "$g/ledger.json")
		echo "answer $((b - a)) $rc"
		echo "handoff $((b - m)) $rc"
		echo "answer_auth $((m - a)) $rc"
		echo "answer_verify $((s - m)) $rc"
		echo "answer_commands $((l - s)) $rc"
		echo "answer_settle $((b - l)) $rc"
		((rc == 0)) && echo "ledger $g/ledger.json"
	fi >>"$res"
	# (2) sudo -n RUNNER on a fresh copy of the warm-up's run directory
	c=$dir/copy-$r
	mkdir -m 700 "$c" && cp "$manifest" "$c/manifest.json"
	t0=$EPOCHREALTIME
	/usr/bin/sudo -n -- "$runner" --manifest "$c/manifest.json" --expected-sha256 "$hash"
	rc=$?
	t1=$EPOCHREALTIME
	if ((r > 0)); then
		a=$(us "$t0") b=$(us "$t1") s=$(mt "$c/started.json") l=$(mt "$c/ledger.json")
		echo "runner $((b - a)) $rc"
		echo "runner_verify $((s - a)) $rc"
		echo "runner_commands $((l - s)) $rc"
		echo "runner_exit $((b - l)) $rc"
	fi >>"$res"
	# (3) ten consecutive sudo -n calls of the same commands
	rc=0
	t0=$EPOCHREALTIME
	for c in "${cmds[@]}"; do
		/usr/bin/sudo -n -- $c || rc=1
	done
	t1=$EPOCHREALTIME
	((r > 0)) && echo "sudo $(($(us "$t1") - $(us "$t0"))) $rc" >>"$res"
	# (4) direct exec of the same commands, as the reviewer
	rc=0
	t0=$EPOCHREALTIME
	for c in "${cmds[@]}"; do
		$c || rc=1
	done
	t1=$EPOCHREALTIME
	((r > 0)) && echo "direct $(($(us "$t1") - $(us "$t0"))) $rc" >>"$res"
done
echo done >>"$res"
EOF
chmod 644 "$home/inner.bash"

res=$home/results
# stat LABEL KEY: median (nearest rank) or p90 of LABEL's figures, in ms.
stat_of() {
	awk -v l="$1" '$1 == l && $3 == 0 { print $2 / 1000 }' "$res" | sort -n |
	    awk -v k="$2" '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		i = k == "p90" ? int(0.9 * NR + 0.999999) : int((NR + 1) / 2)
		printf "%.1f", v[i < 1 ? 1 : i] }'
}
med() { stat_of "$1" median; }
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
. "$(dirname "$0")/aim.sh"
fails() {
	awk -v l="$1" '$1 == l && $3 != 0 { n++ } END { if (n) printf \
	    "  WARNING: %s: %d timed runs failed (left out of the figures)\n", l, n }' "$res"
}

if sudo -l -U "$user" 2>/dev/null | sed -n '/^Matching Defaults/,/^$/p' | grep -qw use_pty; then
	use_pty=on
else
	use_pty=off
fi
echo "  sudo $(sudo -V | sed -n '1s/^Sudo version //p') (use_pty $use_pty: each sudo on a terminal runs its command in a new pty)"
echo "  reviewer $user (NOPASSWD drop-in $dropin), in a pty; $runs interleaved rounds after 1 warm-up;"
echo "  times in ms, median (p90); the batch: $(paste -sd';' "$home/cmds" | sed 's|/usr/bin/||g; s/;/; /g')"
t0=$(date +%s)
in_pty bash "$home/inner.bash" "$warrant" "$runner" "$home" "$runs" || true
grep -q '^done$' "$res" 2>/dev/null || {
	echo "bench: the timed loop did not finish; the terminal said:" >&2
	tail -20 "$home/pty.log" >&2
	exit 1
}
ans=$(med answer) hand=$(med handoff) run=$(med runner) sud=$(med sudo) dir=$(med direct)
# the runner's own duration_ms per command, summed per batch
awk '$1 == "ledger" { print $2 }' "$res" >"$home/ledgers"
while read -r l; do
	[ -f "$l" ] || continue
	grep -o '"duration_ms":[0-9]*' "$l" | awk -F: '{ s += $2 } END { print "cmdsum", s * 1000, 0 }'
done <"$home/ledgers" >>"$res"
printf "  warrant answer --run --no-detach, end to end: %s (%s)\n" "$ans" "$(stat_of answer p90)"
printf "    phases: start-up and authentication (store, sudo -k, sudo -v) %s |" "$(med answer_auth)"
printf " manifest written -> runner's started.json (sudo -n -v, sudo, runner start-up, 10 policy checks, hashing) %s\n" \
    "$(med answer_verify)"
printf "    | the 10 commands (started.json -> ledger.json) %s | ledger.json -> exit (sudo -k, ledger check, settle) %s\n" \
    "$(med answer_commands)" "$(med answer_settle)"
printf "  post-authentication (manifest written -> gate settled, answer exits): %s (%s)\n" "$hand" "$(stat_of handoff p90)"
printf "  sudo -n warrant-runner alone on a copy of the run: %s (%s); phases: up to started.json %s" \
    "$run" "$(stat_of runner p90)" "$(med runner_verify)"
printf " | commands %s | ledger.json -> sudo returns %s\n" "$(med runner_commands)" "$(med runner_exit)"
printf "  baseline 10 x sudo -n CMD: %s (%s); direct exec of the 10: %s (%s)\n" \
    "$sud" "$(stat_of sudo p90)" "$dir" "$(stat_of direct p90)"
printf "  ratio post-authentication / 10 x sudo -n: %sx (%s); / direct exec: %sx\n" \
    "$(calc "$hand / $sud")" "$(aim "$(calc "$hand / $sud")" le 1.2 x)" "$(calc "$hand / $dir")"
printf "  (context, no aim) runner alone / 10 x sudo -n: %sx; answer end to end / 10 x sudo -n: %sx;" \
    "$(calc "$run / $sud")" "$(calc "$ans / $sud")"
printf " runner's summed duration_ms of the 10 commands: %s vs direct %s\n" "$(med cmdsum)" "$dir"
for l in answer handoff runner sudo direct; do fails "$l"; done
for f in "$home"/answer-*.json; do
	grep -q '"outcome":"completed"' "$f" 2>/dev/null && continue
	echo "  first failed answer: $(cat "$f" "${f%.json}.err" 2>/dev/null | tr -s '\n' ' ' | cut -c1-300)"
	break
done

# Context: what the runner's policy checks cost on their own (10 x sudo -l -U
# as root, the way the runner asks), 5 rounds.
for _ in 1 2 3 4 5; do
	a=$(date +%s%N)
	while read -r p rest; do
		# shellcheck disable=SC2086
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C \
		    /usr/bin/sudo -n -l -U "$user" -u root -- "$p" $rest </dev/null >/dev/null 2>&1 ||
		    echo "  WARNING: sudo -l -U $user refused $p"
	done <"$home/cmds"
	echo "policy $(( ($(date +%s%N) - a) / 1000 )) 0" >>"$res"
done
printf "  (context, no aim) the runner's 10 policy checks alone (sudo -n -l -U as root): %s (%s) over 5 rounds\n" \
    "$(med policy)" "$(stat_of policy p90)"
echo "  benchmark 4 took $(($(date +%s) - t0)) s"
echo

# --- 5. runner peak RSS under an output flood ---------------------------------
echo "5. warrant-runner peak RSS under a $(calc "$flood / 1048576") MiB output flood (head --bytes=$flood /dev/zero)"
printf '{"reason":"bench","gate_timeout_seconds":3600,"timeout_seconds":900,"commands":[{"id":"flood","argv":["/usr/bin/head","--bytes=%s","/dev/zero"],"why":"bench"}]}\n' \
    "$flood" >"$home/flood.json"
chmod 644 "$home/flood.json"
fid=$(as "$warrant" request <"$home/flood.json" | sed -n 's/^{"request_id":"\([^"]*\)".*/\1/p')
[ -n "$fid" ] || { echo "bench: warrant request (flood) failed" >&2; exit 1; }
# Sample every warrant-runner whose manifest is under our state directory.
rm -f "$home/sampler.stop"
(
	peak=0 anon=0 file=0 seen=0
	while [ ! -e "$home/sampler.stop" ]; do
		for p in $(pgrep -x warrant-runner 2>/dev/null); do
			grep -qsF "$state/runs/" "/proc/$p/cmdline" || continue
			s=$(awk '/^VmHWM:/ { h = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 }
			    END { if (h != "") print h, a, f }' "/proc/$p/status" 2>/dev/null) || continue
			[ -n "$s" ] || continue
			# shellcheck disable=SC2086
			set -- $s
			seen=$((seen + 1))
			[ "$1" -le "$peak" ] || {
				peak=$1 anon=$2 file=$3
				# where the resident pages are, by mapping, at this peak
				awk '/^[0-9a-f]+-[0-9a-f]+ / { n = NF >= 6 ? $6 : "[anon]"; sub(".*/", "", n) }
				    /^Rss:/ { r[n] += $2 }
				    END { for (k in r) if (r[k] > 0) print r[k], k }' "/proc/$p/smaps" 2>/dev/null |
				    sort -rn | head -8 | awk '{ printf "%s%s %s KiB", (NR > 1 ? ", " : ""), $2, $1 }' \
				    >"$home/sampler.maps" || true
			}
		done
		echo "$peak $anon $file $seen" >"$home/sampler.out.tmp"
		mv "$home/sampler.out.tmp" "$home/sampler.out"
		sleep 0.05
	done
) &
sampler=$!
t1=$(date +%s%N)
in_pty "$warrant" answer "$fid" --run --no-detach -j ">$home/flood-answer.json" "2>$home/flood-answer.err" || true
wall=$(( ($(date +%s%N) - t1) / 1000000 ))
touch "$home/sampler.stop"
wait "$sampler" 2>/dev/null || true
read -r peak anon file seen <"$home/sampler.out" || peak=0 seen=0
fa=$home/flood-answer.json
obytes=$(grep -o '"output_bytes":[0-9]*' "$fa" | head -1 | cut -d: -f2)
odur=$(grep -o '"duration_ms":[0-9]*' "$fa" | head -1 | cut -d: -f2)
ostatus=$(grep -o '"status":"[a-z_]*"' "$fa" | sed -n '2s/.*:"\(.*\)"/\1/p')
log=$(echo "$state/runs/$fid".*/output-0.log)
if [ "${seen:-0}" -eq 0 ]; then
	echo "  WARNING: the runner was never seen running; no RSS figure"
else
	printf "  peak RSS (VmHWM) %s KiB = %s MiB (%s); at the peak RssAnon %s KiB, RssFile %s KiB (%s samples)\n" \
	    "$peak" "$(calc "$peak / 1024")" "$(aim "$(calc "$peak / 1024")" le 2.5 " MiB")" "$anon" "$file" "$seen"
	[ ! -s "$home/sampler.maps" ] || echo "  resident at the peak, by mapping: $(cat "$home/sampler.maps")"
	# a floor: any glibc program that looks users and groups up through
	# NSS as the runner must (getpwnam, getgrouplist) maps the same modules
	if [ -x /usr/bin/time ]; then
		idk=$(/usr/bin/time -f '%M' id "$user" 2>&1 >/dev/null | tail -1)
		printf "  floor: id %s (the same NSS lookups, nothing run) peaks at %s KiB; runner / floor %sx\n" \
		    "$user" "$idk" "$(calc "$peak / $idk")"
	fi
fi
printf "  ledger: status %s, output_bytes %s (asked for %s), duration_ms %s => %s MB/s through the capture;" \
    "${ostatus:-?}" "${obytes:-?}" "$flood" "${odur:-?}" \
    "$( [ -n "$odur" ] && [ "$odur" -gt 0 ] && calc "${obytes:-0} / $odur / 1000" || echo '?')"
printf " output-0.log %s bytes; answer wall %s ms\n" "$(stat -c %s "$log" 2>/dev/null || echo '?')" "$wall"
[ "${obytes:-0}" = "$flood" ] || echo "  WARNING: output_bytes is not the flood's size; see $fa"

# Context: the capture fed other shapes of output, N = BENCH_LINES:
# seq 1 N prints ~7-byte lines (per-line cost); seq -s = 1 N prints one
# line full of '=' (every 4 KiB piece takes the redaction's slow path).
for shape in lines equals; do
	if [ "$shape" = lines ]; then
		argv='"/usr/bin/seq","1","'$lines'"' what="seq 1 $lines (short lines)"
	else
		argv='"/usr/bin/seq","-s","=","1","'$lines'"' what="seq -s = 1 $lines (one line full of '=')"
	fi
	printf '{"reason":"bench","gate_timeout_seconds":3600,"timeout_seconds":900,"commands":[{"id":"%s","argv":[%s],"why":"bench"}]}\n' \
	    "$shape" "$argv" >"$home/$shape.json"
	chmod 644 "$home/$shape.json"
	lid=$(as "$warrant" request <"$home/$shape.json" | sed -n 's/^{"request_id":"\([^"]*\)".*/\1/p')
	[ -n "$lid" ] || { echo "bench: warrant request ($shape) failed" >&2; exit 1; }
	in_pty "$warrant" answer "$lid" --run --no-detach -j ">$home/$shape-answer.json" \
	    "2>$home/$shape-answer.err" || true
	la=$home/$shape-answer.json
	lbytes=$(grep -o '"output_bytes":[0-9]*' "$la" | head -1 | cut -d: -f2)
	ldur=$(grep -o '"duration_ms":[0-9]*' "$la" | head -1 | cut -d: -f2)
	printf "  (context, no aim) %s: output_bytes %s, duration_ms %s => %s MB/s through the capture\n" \
	    "$what" "${lbytes:-?}" "${ldur:-?}" \
	    "$( [ -n "$ldur" ] && [ "$ldur" -gt 0 ] && calc "${lbytes:-0} / $ldur / 1000" || echo '?')"
done
