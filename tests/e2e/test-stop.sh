#!/bin/sh
# SPDX-License-Identifier: ISC
# warrant stop end to end, with the host's real sudo and PAM (docs/
# execution.md, "Stopping a batch"): a ROOT batch (detached and attached),
# a YOU-only batch (run by `warrant answer` itself) and a YOU command in a
# detached runner batch are stopped from the CLI; the running command's
# whole tree (a sleeper it started in a new session, a command that
# ignores SIGTERM) is gone, the command after it never runs, the ledger
# and the audit chain say who stopped it. The agent on another uid cannot
# stop anything; a gate that does not run is refused. The running
# command's live output (live.json, and `warrant show`) follows it.
# Needs root: it uses the reviewer users of sudo-lib.sh (wt-reviewer, a
# canary password typed into sudo's prompt through a pty; wt-reviewer2 is
# the agent here).
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-stop.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the real-sudo tests create users and run as root"

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-stop-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
OPT=/opt/wt-stop-$TAG
BIN=$OPT/bin
RM=/root/wt-stop-$TAG       # ROOT markers: $RM-x (never to appear)
YOU=$SR_DIR/you             # YOU markers: $YOU/x
# sleep durations no other process on the machine uses: pgrep finds ours
rnd() { od -An -N3 -tu4 /dev/urandom | tr -d ' '; }
S_A="601.$(rnd)" S_B="602.$(rnd)" S_C="603.$(rnd)" S_D="604.$(rnd)" S_L="605.$(rnd)" S_P="606.$(rnd)"
BG=""

cleanup() {
	sr_kill_bg
	for s in "$S_A" "$S_B" "$S_C" "$S_D" "$S_L" "$S_P"; do
		for p in $(pgrep -f "sleep $s" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	done
	for p in $(pgrep -f "$BIN/" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	rm -rf "$OPT"
	rm -f "$RM"-*
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# ---------------------------------------------------------------- helpers
absent() { [ ! -e "$1" ]; }

# running N PATTERN: at least N processes match PATTERN (running_pids),
# within 60 s (a condition waited for, not a time measured).
running() {
	rn_i=0
	while [ "$(running_pids "$2" | wc -l)" -lt "$1" ]; do
		rn_i=$((rn_i + 1))
		[ "$rn_i" -le 600 ] || return 1
		sleep 0.1
	done
}

# gone PATTERN: no process matches PATTERN, within 60 s (the grace is 5 s).
gone() {
	gn_i=0
	while [ -n "$(pgrep -f "$1" 2>/dev/null)" ]; do
		gn_i=$((gn_i + 1))
		[ "$gn_i" -le 600 ] || return 1
		sleep 0.1
	done
}

# still PATTERN N: N processes match PATTERN now.
still() { [ "$(running_pids "$1" | wc -l)" -ge "$2" ]; }

# stop_as USER NAME ID [ARGS]: warrant stop as USER; output $SR_DIR/NAME.out
# (and .err), status STOP_RC.
stop_as() {
	so_u=$1 so_n=$2
	shift 2
	sr_as "$so_u" "$SR_WARRANT" stop "$@" -j >"$SR_DIR/$so_n.out" 2>"$SR_DIR/$so_n.err"
	STOP_RC=$?
	SO=$SR_DIR/$so_n.out
}

# run_dir ID: the reviewer's run directory of the gate's (one) attempt.
run_dir() { ls -d "$SR_STATE/runs/$1".* 2>/dev/null | head -1; }

# audit_stopped ID: the audit chain's settling event of ID names the
# reviewer as who stopped it.
audit_stopped() {
	sr_as "$SR_USER" "$SR_WARRANT" log -j >"$SR_DIR/log-$1.json" 2>/dev/null &&
	    jscan "any(e['gate_id'] == '$1' and e['kind'] == 'approved' and e['detail']['stopped']['by'] == '$SR_USER' and e['detail']['stopped']['at'] > 0 for e in j)" \
	    "$SR_DIR/log-$1.json" >/dev/null 2>&1
}

# ticker_gate CASE S MARK: a ROOT batch approved detached: the ticker
# (a line a second, until stopped), then a touch of MARK that must never
# run; G its id. The ticker runs from its descriptor: its argument S, not
# its path, names it for pgrep.
ticker_gate() {
	sr_gate "$1" <<EOF
{"reason":"e2e stop ($1)","commands":[
  {"id":"tk","argv":["$BIN/ticker","$2"],"why":"a line a second"},
  {"id":"tc","argv":["/usr/bin/touch","$3"],"why":"must never run"}]}
EOF
	sr_answer right "$1" "$G" --run -j
	is "($1) answer (detached) exits 0" "$ANS_RC" 0
	check "($1) the ticker runs" running 1 "$2"
}

# the ledger checks every stopped batch passes: CASE FILE RUNNING REST
stopped_ledger() {
	jcheck "($1) stop -j says stopped, with the ledger" \
	    "j['status'] == 'stopped' and j['ledger']['stopped']['by'] == '$SR_USER'" "$2"
	jcheck "($1) the running command failed: 'stopped by $SR_USER', killed by a signal" \
	    "entry(j, '$3')['status'] == 'failed' and entry(j, '$3')['error'] == 'stopped by $SR_USER' and entry(j, '$3')['signal'] is not None" "$2"
	jcheck "($1) the command after it is skipped: 'stopped by $SR_USER'" \
	    "entry(j, '$4')['status'] == 'skipped' and entry(j, '$4')['error'] == 'stopped by $SR_USER'" "$2"
	check "($1) the audit chain records who stopped it, and when" audit_stopped "$G"
}

# ============================================================ set-up
section "set-up"
if sr_need; then ok "infra: expect, setpriv, sudo, python3 and friends present"; else
	bail "infra: required programs missing"
fi
if sr_user_setup; then ok "infra: reviewer $SR_USER (group sudo, canary password) and $SR_USER2"; else
	bail "infra: cannot create the reviewer users"
fi
if sr_install; then ok "install: this build's warrant and runner are installed under $SR_PREFIX"; else
	bail "install: this build's warrant and runner are installed under a private prefix"
fi
rm -rf "$OPT"
install -d -m 0755 -o root -g root "$OPT" "$BIN"
install -d -m 0755 -o "$SR_USER" -g "$SR_GID" "$YOU"
# forker S: a daemon-like sleeper (double fork: its parent is gone before
# the stop, and it has a session of its own), then one in its group; a
# stop must end both
cat >"$BIN/forker" <<'EOF'
#!/bin/sh
( /usr/bin/setsid /usr/bin/sleep "$1" </dev/null >/dev/null 2>&1 & )
/usr/bin/sleep "$1"
EOF
# stubborn S: ignores SIGTERM, so only the SIGKILL after the grace ends it
cat >"$BIN/stubborn" <<'EOF'
#!/bin/sh
trap '' TERM
/usr/bin/sleep "$1" &
wait
/usr/bin/sleep "$1"
EOF
# ticker S: a line a second, each one numbered
cat >"$BIN/ticker" <<'EOF'
#!/bin/sh
i=0
while [ "$i" -lt 600 ]; do
	i=$((i + 1))
	echo "tick-$i token=SECRETVALUE$i"
	/usr/bin/sleep 1
done
/usr/bin/sleep "$1"
EOF
chown root:root "$BIN"/*
chmod 0755 "$BIN"/*

# ============================================================ (a) ROOT, detached
section "(a) ROOT batch, detached, stopped from the CLI"
sr_gate a <<EOF
{"reason":"e2e stop (a)","commands":[
  {"id":"sl","argv":["$BIN/forker","$S_A"],"why":"runs until stopped"},
  {"id":"tc","argv":["/usr/bin/touch","$RM-a"],"why":"must never run"}]}
EOF
GA=$G
sr_answer right a "$GA" --run -j
is "(a) answer (detached) exits 0" "$ANS_RC" 0
check "(a) the command and the sleeper it put in a new session run" running 2 "sleep $S_A"
# the agent (another uid) tries, every way it has
stop_as "$SR_USER2" a-agent "$GA"
is "(a) the agent's warrant stop is refused (exit 2)" "$STOP_RC" 2
jcheck "(a) ... with the stable code unknown_gate" "j['error']['code'] == 'unknown_gate'" "$SO"
SR_EXTRA_ENV="WARRANT_SOCKET=/run/warrant/$SR_USER/req.sock" stop_as "$SR_USER2" a-agent2 "$GA"
is "(a) the agent's warrant stop through its socket is refused (exit 2)" "$STOP_RC" 2
jcheck "(a) ... with the stable code not_reviewer" "j['error']['code'] == 'not_reviewer'" "$SO"
RD=$(run_dir "$GA")
check "(a) the run directory is the reviewer's, mode 0700" \
    [ "$(stat -c '%U %a' "$RD" 2>/dev/null)" = "$SR_USER 700" ]
sr_as "$SR_USER2" /usr/bin/touch "$RD/stop" 2>/dev/null
check "(a) the agent cannot create the stop file in it (touch fails, nothing made)" \
    absent "$RD/stop"
check "(a) after the agent's attempts the batch runs on" still "sleep $S_A" 2
stop_as "$SR_USER" a-stop "$GA"
is "(a) the reviewer's warrant stop exits 0" "$STOP_RC" 0
check "(a) the command's whole tree is gone (the new-session sleeper too)" gone "sleep $S_A"
stopped_ledger a "$SO" sl tc
check "(a) the command after it never ran: no marker" absent "$RM-a"
check "(a) the gate is approved (settled with the ledger)" sr_state_is "$GA" approved

# ============================================================ (b) ROOT, attached
section "(b) ROOT batch, attached, a command that ignores SIGTERM"
sr_gate b <<EOF
{"reason":"e2e stop (b)","commands":[
  {"id":"st","argv":["$BIN/stubborn","$S_B"],"why":"ignores SIGTERM"},
  {"id":"tc","argv":["/usr/bin/touch","$RM-b"],"why":"must never run"}]}
EOF
GB=$G
( sr_answer right b "$GB" --run --no-detach -j ) &
BG="$BG $!"
BPID=$!
check "(b) the attached batch's command runs" running 1 "sleep $S_B"
stop_as "$SR_USER" b-stop "$GB"
is "(b) warrant stop exits 0" "$STOP_RC" 0
check "(b) the command that ignores SIGTERM is gone (SIGKILL after the grace)" gone "sleep $S_B"
wait "$BPID"
jcheck "(b) the attached answer settled the batch: approved, command_failed" \
    "j['status'] == 'approved' and j['outcome'] == 'command_failed'" "$SR_DIR/b.log"
stopped_ledger b "$SO" st tc
check "(b) the command after it never ran: no marker" absent "$RM-b"

# ============================================================ (c) YOU-only
section "(c) YOU-only batch, run by warrant answer itself"
sr_gate c <<EOF
{"reason":"e2e stop (c)","commands":[
  {"id":"u1","as":"user","argv":["$BIN/forker","$S_C"],"why":"runs until stopped"},
  {"id":"u2","as":"user","argv":["/usr/bin/touch","$YOU/c"],"why":"must never run"}]}
EOF
GC=$G
( sr_as "$SR_USER" setsid -w "$SR_WARRANT" answer "$GC" --run -j </dev/null \
    >"$SR_DIR/c.json" 2>"$SR_DIR/c.err" ) &
BG="$BG $!"
CPID=$!
check "(c) the YOU command and its new-session sleeper run" running 2 "sleep $S_C"
stop_as "$SR_USER2" c-agent "$GC"
is "(c) the agent's warrant stop is refused (exit 2)" "$STOP_RC" 2
check "(c) ... and the batch runs on" still "sleep $S_C" 2
stop_as "$SR_USER" c-stop "$GC"
is "(c) the reviewer's warrant stop exits 0" "$STOP_RC" 0
check "(c) the command's whole tree is gone" gone "sleep $S_C"
wait "$CPID"
jcheck "(c) answer settled it: approved, command_failed" \
    "j['status'] == 'approved' and j['outcome'] == 'command_failed'" "$SR_DIR/c.json"
stopped_ledger c "$SO" u1 u2
check "(c) the command after it never ran: no marker" absent "$YOU/c"

# ============================================================ (d) YOU in the runner, detached
section "(d) a YOU command in a detached runner batch"
sr_gate d <<EOF
{"reason":"e2e stop (d)","commands":[
  {"id":"r1","argv":["/usr/bin/true"],"why":"a ROOT command: the runner runs the batch"},
  {"id":"u1","as":"user","argv":["$BIN/forker","$S_D"],"why":"runs until stopped"},
  {"id":"r2","argv":["/usr/bin/touch","$RM-d"],"why":"must never run"}]}
EOF
GD=$G
sr_answer right d "$GD" --run -j
is "(d) answer (detached) exits 0" "$ANS_RC" 0
check "(d) the YOU command runs under the runner" running 2 "sleep $S_D"
stop_as "$SR_USER" d-stop "$GD"
is "(d) warrant stop exits 0" "$STOP_RC" 0
check "(d) the command's whole tree is gone" gone "sleep $S_D"
jcheck "(d) the ROOT command before it ran" "entry(j, 'r1')['status'] == 'ran'" "$SO"
stopped_ledger d "$SO" u1 r2
check "(d) the command after it never ran: no marker" absent "$RM-d"

# ============================================================ (e) refusals
section "(e) what cannot be stopped"
stop_as "$SR_USER" e-settled "$GA"
is "(e) stopping a settled gate is refused (exit 2)" "$STOP_RC" 2
jcheck "(e) ... not_running" "j['error']['code'] == 'not_running'" "$SO"
sr_gate e <<EOF
{"reason":"e2e stop (e)","commands":[{"id":"t","argv":["/usr/bin/true"],"why":"pending"}]}
EOF
GE=$G
stop_as "$SR_USER" e-pending "$GE"
is "(e) stopping a pending gate is refused (exit 2)" "$STOP_RC" 2
jcheck "(e) ... not_running" "j['error']['code'] == 'not_running'" "$SO"
check "(e) ... and it stays pending, with no run directory" \
    sh -c '[ "$1" = pending ] && [ -z "$2" ]' sh "$(sr_state "$GE")" "$(run_dir "$GE")"
stop_as "$SR_USER" e-unknown "zzzzzzzzzzzz"
is "(e) stopping an unknown id is refused (exit 2)" "$STOP_RC" 2
jcheck "(e) ... unknown_gate" "j['error']['code'] == 'unknown_gate'" "$SO"
sr_as "$SR_USER" "$SR_WARRANT" stop >"$SR_DIR/e-usage.out" 2>&1
is "(e) stop without an id is a usage error (exit 2)" "$?" 2
sr_as "$SR_USER" "$SR_WARRANT" log --verify >"$SR_DIR/e-verify.out" 2>&1
is "(e) the audit chain with the stopped batches verifies" "$?" 0

# ============================================================ (l) live output
section "(l) the running command's live output"
ticker_gate l "$S_L" "$RM-l"
GL=$G
RD=$(run_dir "$GL")
# live_line N: `warrant show` shows tick-N (or a later one) as the
# running command's latest line, within 60 s
live_line() {
	ll_i=0
	while :; do
		sr_as "$SR_USER" "$SR_WARRANT" show "$GL" -j >"$SR_DIR/l-show.json" 2>/dev/null
		ll_n=$(jscan "j['live']['output'].strip().split('\n')[-1].split()[0]" \
		    "$SR_DIR/l-show.json" 2>/dev/null | sed -n 's/^tick-//p')
		[ -n "$ll_n" ] && [ "$ll_n" -ge "$1" ] && return 0
		ll_i=$((ll_i + 1))
		[ "$ll_i" -le 300 ] || return 1
		sleep 0.2
	done
}
check "(l) show -j gives the running command's latest line (tick-3 or later)" live_line 3
jcheck "(l) ... names the command running" "j['live']['command'] == 'tk'" "$SR_DIR/l-show.json"
jcheck "(l) ... with credentials redacted on the reader's side" \
    "'SECRETVALUE' not in j['live']['output'] and '[redacted]' in j['live']['output']" \
    "$SR_DIR/l-show.json"
check "(l) ... and a later line follows (tick-6 or later)" live_line 6
check "(l) live.json is root's, readable by the reviewer only through the 0700 directory" \
    [ "$(stat -c '%U %a' "$RD/live.json" 2>/dev/null)" = "root 644" ]
sr_as "$SR_USER" "$SR_WARRANT" show "$GL" >"$SR_DIR/l-show.txt" 2>/dev/null
check "(l) show (text) has the running command and its latest line" \
    sh -c 'grep -q "running tk" "$1" && grep -q "tick-[0-9]" "$1" && ! grep -q SECRETVALUE "$1"' \
    sh "$SR_DIR/l-show.txt"
stop_as "$SR_USER" l-stop "$GL"
is "(l) stop ends it" "$STOP_RC" 0
check "(l) ... its process is gone" gone "$S_L"
check "(l) the command after it never ran: no marker" absent "$RM-l"
sr_as "$SR_USER" "$SR_WARRANT" show "$GL" -j >"$SR_DIR/l-after.json" 2>/dev/null
jcheck "(l) a settled gate shows no live output" "'live' not in j" "$SR_DIR/l-after.json"

# ============================================================ (t) the console
section "(t) the console: live output, and s to stop"
if command -v tmux >/dev/null 2>&1; then
	TSOCK="wt-stop-$$"
	tm() { tmux -L "$TSOCK" -f /dev/null "$@"; }
	at_exit 'tm kill-server >/dev/null 2>&1'
	screen() { tm capture-pane -p -t "$CS" 2>/dev/null; }
	# wait_for TEXT: the console shows TEXT within 60 s
	wait_for() {
		wf=0
		while ! screen | grep -qF -- "$1"; do
			wf=$((wf + 1))
			[ "$wf" -le 600 ] || return 1
			sleep 0.1
		done
	}
	# latest_tick: the highest tick-N the console shows
	latest_tick() { screen | grep -o 'tick-[0-9]*' | sed 's/tick-//' | sort -n | tail -1; }
	# tick_after N: the console shows a tick later than N within 60 s
	tick_after() {
		ta=0
		while :; do
			lt=$(latest_tick)
			[ -n "$lt" ] && [ "$lt" -gt "$1" ] && return 0
			ta=$((ta + 1))
			[ "$ta" -le 600 ] || return 1
			sleep 0.1
		done
	}
	ticker_gate t "$S_L" "$RM-t"
	GT=$G
	CS=t
	set -f
	IFS=$SR_NL
	# shellcheck disable=SC2046
	tm new-session -d -s t -x 100 -y 30 $(sr_as_words "$SR_USER") LANG=C.UTF-8 \
	    TERM=tmux-256color "$SR_WARRANT" review "$GT"
	unset IFS
	set +f
	check "(t) the gate view says which command runs" wait_for "Running  tk"
	check "(t) ... and shows its output as it comes (a tick line)" wait_for "tick-"
	T1=$(latest_tick)
	check "(t) a later line replaces it without a key pressed (after tick-$T1)" tick_after "${T1:-0}"
	check "(t) ... its credential redacted" sh -c '! tmux -L "$1" capture-pane -p -t t | grep -q SECRETVALUE' \
	    sh "$TSOCK"
	tm send-keys -t t s
	check "(t) s asks before stopping" wait_for "Stop $GT?"
	tm send-keys -t t n
	check "(t) any other key keeps it running" wait_for "$GT keeps running"
	check "(t) ... and it does" still "$S_L" 1
	tm send-keys -t t s
	wait_for "Stop $GT?"
	tm send-keys -t t y
	check "(t) s, y stops it: the command is gone" gone "$S_L"
	check "(t) the console shows the ledger: skipped, stopped by $SR_USER" \
	    wait_for "stopped by $SR_USER"
	sr_as "$SR_USER" "$SR_WARRANT" show "$GT" -j >"$SR_DIR/t-show.json" 2>/dev/null
	jcheck "(t) the ledger names who stopped it" \
	    "j['ledger']['stopped']['by'] == '$SR_USER' and entry(j, 'tc')['status'] == 'skipped'" \
	    "$SR_DIR/t-show.json"
	check "(t) the command after it never ran: no marker" absent "$RM-t"
	tm kill-server >/dev/null 2>&1
else
	skip "(t) the console" "tmux is not installed"
fi

# ============================================================ (p) the page
section "(p) the page: live output, and Stop"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	skip "(p) the page" "chromium, node or curl is missing (scripts/deps.sh)"
else
	PORT=$(free_port)
	U=http://127.0.0.1:$PORT
	sr_page "$U"
	at_exit 'kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null'
	ticker_gate p "$S_P" "$RM-p"
	GP=$G
	ST=$(curl -s -o "$SR_DIR/p-nosession" -w '%{http_code}' -X POST \
	    -H 'Content-Type: application/json' -d '{}' "$U/api/gates/$GP/stop")
	is "(p) the stop route without a session: 401" "$ST" 401
	check "(p) ... and the batch runs on" still "$S_P" 1
	sr_as "$SR_USER" "$SR_WARRANT" pair --no-qr >"$SR_DIR/p-pair" 2>&1
	BURL=$(grep -o "$U/#token=[A-Za-z0-9_-]*" "$SR_DIR/p-pair")
	A="article[data-gate=\\\"$GP\\\"]"
	TICKS="Math.max(0, ...((document.querySelector('$A .live-output') || {textContent: ''}).textContent.match(/tick-[0-9]+/g) || []).map(x => +x.slice(5)))"
	cat >"$SR_DIR/p-steps.json" <<EOF
[{"open": "$BURL"},
 {"wait": "$TICKS > 0", "ms": 20000},
 {"eval": "window.t1 = $TICKS"},
 {"wait": "$TICKS > window.t1", "ms": 20000},
 {"eval": "document.querySelector('$A .live .result').textContent"},
 {"eval": "document.querySelector('$A .live-output').textContent"},
 {"click": "$A button.stop"},
 {"eval": "document.querySelector('$A button.stop').textContent"},
 {"eval": "document.querySelectorAll('#recent $A').length"},
 {"click": "$A button.stop"},
 {"wait": "(document.querySelector('#recent $A') || {textContent: ''}).textContent.includes('stopped by $SR_USER')", "ms": 30000}]
EOF
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome" "$SR_DIR/p-steps.json" \
	    >"$SR_DIR/p.cdp" 2>"$SR_DIR/p.cdp.err"
	pstep() { sed -n "${1}p" "$SR_DIR/p.cdp" | jscan "$2" >/dev/null 2>&1; }
	check "(p) the page shows the running command's output as it comes" pstep 2 "j['ok']"
	check "(p) ... a later line follows without a reload" pstep 4 "j['ok']"
	check "(p) ... naming the command running" pstep 5 "j['value'].startswith('Running tk')"
	check "(p) ... its credential redacted" \
	    pstep 6 "'SECRETVALUE' not in j['value'] and '[redacted]' in j['value']"
	check "(p) the first click on Stop only asks" \
	    pstep 8 "j['value'].startswith('Stop $GP: kill')"
	check "(p) ... and the batch runs on" pstep 9 "j['value'] == 0"
	check "(p) the second stops it: the gate settles with 'stopped by $SR_USER'" pstep 11 "j['ok']"
	check "(p) its command is gone" gone "$S_P"
	check "(p) the command after it never ran: no marker" absent "$RM-p"
	sr_as "$SR_USER" "$SR_WARRANT" show "$GP" -j >"$SR_DIR/p-show.json" 2>/dev/null
	jcheck "(p) the ledger names who stopped it" \
	    "j['ledger']['stopped']['by'] == '$SR_USER' and entry(j, 'tc')['status'] == 'skipped'" \
	    "$SR_DIR/p-show.json"
	if [ "$fails" -ne 0 ]; then diag "$(tail -c 1500 "$SR_DIR/p.cdp" "$SR_DIR/p.cdp.err")"; fi
	kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
fi

section end
done_testing
