#!/bin/sh
# SPDX-License-Identifier: ISC
# warrant answer / wait / warrant-runner end to end, with the host's real
# sudo and PAM (docs/design.md: the promises, approval and execution).
# Needs root: it creates the reviewer user wt-reviewer (group sudo, a
# canary password generated per run) and wt-reviewer2, uses the build
# installed in its private prefix (sr_install), puts test executables under
# /opt/wt-test, and types the password into sudo's prompt through a
# pseudo-terminal (tests/e2e/pty-sudo.exp).
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-answer.sh
#
# The desktop case: the agent and the reviewer are the same uid, so every
# gate is requested and answered by wt-reviewer in its own state directory.
# Transcripts are kept in $SR_DIR when anything fails (or WT_KEEP is set).
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the real-sudo tests create users and run as root"

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-answer-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
OPT=/opt/wt-test
BIN=$OPT/bin
ORDER=$OPT/order
RM=/root/wt-m-$TAG          # ROOT markers: $RM-x
YOU=$SR_DIR/you             # YOU markers: $YOU/x
SLEEPER="307.$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')"
STUBBORN="309.$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')"
BG=""
PERMS_SAVED=""

# ---------------------------------------------------------------- cleanup
restore_perms() {
	[ -n "$PERMS_SAVED" ] || return 0
	echo "$PERMS_SAVED" | while read -r p own mode; do
		[ -n "$p" ] || continue
		chown "$own" "$p" && chmod "$mode" "$p"
	done
	PERMS_SAVED=""
}
# save_perms PATH...: remember owner and mode, restored at the end at the latest.
save_perms() {
	for p in "$@"; do
		PERMS_SAVED="$PERMS_SAVED$p $(stat -c '%u:%g %a' "$p")
"
	done
}
cleanup() {
	sr_sampler_stop
	restore_perms
	# The background pty runs: the subshell and the expect under it (a
	# held run outlives the case by up to its time limit otherwise).
	sr_kill_bg
	for p in $(pgrep -f "sleep $SLEEPER" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	rm -rf "$OPT"
	rm -f "$RM"-*
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# ---------------------------------------------------------------- helpers
absent() { [ ! -e "$1" ]; }
present() { [ -e "$1" ]; }

# mkgate NAME < request.json: create the gate; sets G (its id) and SHA.
mkgate() {
	sr_gate "$1" || { SHA=; return 1; }
	SHA=$(jscan 'j["manifest_sha256"]' "$SR_DIR/$1.json.out")
	return 0
}

# answer MODE NAME ID ARGS...: warrant answer in a pty as the reviewer.
# ANS is the transcript, ANS_RC the exit status.
answer() { sr_answer "$@"; }

# answer_notty NAME ID ARGS...: warrant answer with no controlling terminal
# and stdin /dev/null. Output in $ANS.
answer_notty() {
	ANS="$SR_DIR/$1.out"
	shift
	sr_as "$SR_USER" setsid -w "$SR_WARRANT" answer "$@" </dev/null >"$ANS" 2>"$ANS.err"
	ANS_RC=$?
}

# wait_gate ID [SECONDS]: warrant wait -j; WJ is the output, WAIT_RC the status.
wait_gate() {
	WJ="$SR_DIR/wait-$1.json"
	sr_as "$SR_USER" "$SR_WARRANT" wait "$1" -t "${2:-60}" -j >"$WJ" 2>"$WJ.err"
	WAIT_RC=$?
}

state_is() { sr_state_is "$@"; }

# after_outcome CASE: the checks every outcome must pass (k): no sudo
# ticket in the answering terminal session nor in a fresh one.
after_outcome() {
	check "[P2] ($1, k) no sudo ticket left after the outcome (same pty session, fresh pty, no tty)" \
	    no_ticket_anywhere
}

# answer_pid ID: pid of the running `warrant answer ID` of the reviewer.
answer_pid() {
	for p in $(pgrep -u "$SR_USER" -x warrant 2>/dev/null); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "answer $1"; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# batch_command_runs PATTERN: wait (up to 30 s) until a child of
# warrant-runner has a command line matching PATTERN (pgrep -f; argv
# survives the fexecve): that command of the batch is running, so sudo's
# prompt was answered and the runner passed its checks. False when none
# did in that time. (Looking for any child of any runner is not enough:
# the runner's own sudoers questions are children too, with the command's
# words in their argv, which running_pids leaves out; and with no runner
# at all `pgrep -P 0` still lists pid 1 and 2.)
batch_command_runs() {
	bc_i=0
	while [ "$bc_i" -lt 300 ]; do
		for bc_p in $(running_pids "$1"); do
			bc_pp=$(ps -o ppid= -p "$bc_p" | tr -d ' ')
			[ -n "$bc_pp" ] && [ "$(cat "/proc/$bc_pp/comm" 2>/dev/null)" = warrant-runner ] &&
			    return 0
		done
		sleep 0.1
		bc_i=$((bc_i + 1))
	done
	return 1
}

# wait_for_file FILE SECONDS
wait_for_file() {
	wf_i=0
	while [ ! -e "$1" ]; do
		wf_i=$((wf_i + 1))
		[ "$wf_i" -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}

# ============================================================ infrastructure
section "infrastructure"
if sr_need; then ok "infra: expect, setpriv, sudo, python3 and friends present"; else
	bail "infra: required programs missing"
fi
if sr_user_setup; then ok "infra: reviewer $SR_USER (group sudo, canary password) and $SR_USER2"; else
	bail "infra: cannot create the reviewer users"
fi
check "infra: no NOPASSWD / !authenticate rule applies to $SR_USER" sr_no_nopasswd

pty_rv right infra-right 60 sh -c '/usr/bin/sudo -k; /usr/bin/sudo -v'
is "infra: right password at the real prompt: sudo -v exits 0" "$PTY_RC" 0
is "infra: exactly one prompt for $SR_USER" "$(pty_prompts)" 1
is "infra: the same-session ticket probe sees the ticket sudo -v left (positive control)" \
    "$PTY_TICKET" 0
if reviewer_has_ticket; then not_ok "[P2] infra: tickets are per terminal session (fresh pty and no tty see none)"
else ok "[P2] infra: tickets are per terminal session (fresh pty and no tty see none)"; fi

pty_rv wrong infra-wrong 90 sh -c '/usr/bin/sudo -k; /usr/bin/sudo -v'
check "infra: wrong password: sudo -v exits non-zero" [ "$PTY_RC" -ne 0 ]
check "infra: wrong password: sudo asked again and gave up" [ "$(pty_prompts)" -ge 2 ]
is "[P2] infra: wrong password leaves no ticket in the session" "$PTY_TICKET" 1

pty_rv cancel infra-cancel 60 sh -c '/usr/bin/sudo -k; /usr/bin/sudo -v'
check "infra: Ctrl-C at the prompt: sudo -v exits non-zero" [ "$PTY_RC" -ne 0 ]
is "[P2] infra: Ctrl-C leaves no ticket in the session" "$PTY_TICKET" 1

check "[P2] infra: the canary search finds a planted SHA-256 of the password (positive control)" \
    sr_canary_grep_works
if [ -z "$(sr_canary_grep "$SR_DIR")" ]; then ok "[P2] infra: transcripts never hold the typed password"
else not_ok "[P2] infra: transcripts never hold the typed password"; fi
sr_forget_tickets

# ============================================================ installation
section "installation"
if sr_install; then ok "install: this build's warrant and runner are installed under $SR_PREFIX"; else
	bail "install: this build's warrant and runner are installed under a private prefix"
fi
check "[P1] install: $SR_WARRANT is root-owned, not writable by others, in root-owned dirs" \
    sr_root_owned_path "$SR_WARRANT"
check "install: $SR_WARRANT is mode 0755" [ "$(stat -c %a "$SR_WARRANT" 2>/dev/null)" = 755 ]
READY=1
if [ -f "$SR_RUNNER" ]; then
	ok "install: warrant-runner installed at $SR_RUNNER"
	check "[P1] install: the runner is root-owned 0755 in root-owned dirs" \
	    sh -c '[ "$(stat -c %a "$1")" = 755 ]' sh "$SR_RUNNER"
	check "[P1] install: no directory above the runner is writable by a non-root user" \
	    sr_root_owned_path "$SR_RUNNER"
else
	not_ok "warrant-runner not built (no $SR_RUNNER after meson install)"
	READY=0
fi
for c in answer wait; do
	if "$SR_WARRANT" help "$c" >/dev/null 2>&1; then ok "install: warrant $c exists"; else
		not_ok "warrant $c not implemented (warrant help $c fails)"
		READY=0
	fi
done

# The test executables: root-owned, in root-owned directories.
rm -rf "$OPT"
install -d -m 0755 -o root -g root "$OPT" "$BIN"
# ROOT stamps into root's log, YOU stamps into the reviewer's: root never
# writes where the requester (here the reviewer) could (promise 8)
install -d -m 0755 -o root -g root "$ORDER"
install -d -m 0755 -o "$SR_USER" -g "$SR_GID" "$YOU" "$ORDER/you"
cat >"$BIN/stamp" <<'EOF'
#!/bin/sh
# stamp LABEL: append "TIME LABEL USER" to its user's order log.
u=$(/usr/bin/id -un)
log=/opt/wt-test/order/you/log
[ "$u" = root ] && log=/opt/wt-test/order/root.log
printf '%s %s %s\n' "$(/usr/bin/date +%s%N)" "$1" "$u" >>"$log"
EOF
cat >"$BIN/forker" <<EOF
#!/bin/sh
# A command that forks a sleeper and waits: a timeout must kill both.
/usr/bin/sleep $SLEEPER &
/usr/bin/sleep $SLEEPER
EOF
cat >"$BIN/stubborn" <<EOF
#!/bin/sh
# A command that ignores SIGTERM: only SIGKILL ends it.
trap '' TERM
/usr/bin/sleep $STUBBORN
EOF
cp /usr/bin/true "$BIN/tool"
cp /usr/bin/true "$BIN/tool2"
chown root:root "$BIN"/*
chmod 0755 "$BIN"/*
# order_log: the stamps of both logs in the order they were made;
# order_reset: both emptied.
order_log() { cat "$ORDER/root.log" "$ORDER/you/log" 2>/dev/null | sort -n | cut -d' ' -f2-; }
order_reset() { rm -f "$ORDER/root.log" "$ORDER/you/log"; }
order_reset

RL=/var/log/warrant.log
RL0=$(wc -l <"$RL" 2>/dev/null || echo 0)
# The systemd journal (docs/audit.md): the host's, or, where none runs (a
# container, a machine booted without systemd), one started for this
# suite and taken down at its end with what it made.
JD=/lib/systemd/systemd-journald JD_PID= JD_MADE=
if command -v journalctl >/dev/null 2>&1 && [ -x "$JD" ] && ! pgrep -x systemd-journal >/dev/null; then
	for d in /run/systemd/journal /run/log/journal /run/log; do
		[ -e "$d" ] || JD_MADE="$JD_MADE $d"
	done
	"$JD" >/dev/null 2>&1 &
	JD_PID=$!
	at_exit 'kill "$JD_PID" 2>/dev/null; wait "$JD_PID" 2>/dev/null; for d in $JD_MADE; do rm -rf "$d"; done'
	i=0
	until [ -S /run/systemd/journal/socket ] || [ "$i" -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
fi
sr_sampler_start

# Cases need `warrant answer`, `warrant wait` and the runner. Without them
# every case fails visibly, by name.
CASES="a a2 a3 b b2 c d e f g h h2 i j m n o q r s"
if [ "$READY" -ne 1 ]; then
	for c in $CASES; do
		not_ok "($c) not run: warrant answer/wait or warrant-runner missing"
	done
	not_ok "[P2] (l) canary check not run: nothing was answered"
	not_ok "[P4] (p) root log check not run: nothing was answered"
	done_testing
	exit 1
fi

# ============================================================ (a) right password
section "(a) right password"
mkgate a <<EOF
{"reason":"e2e (a): ROOT as root, YOU as you, in order",
 "commands":[
  {"id":"r1","argv":["/usr/bin/id","-u"],"why":"uid as root"},
  {"id":"r2","argv":["/usr/bin/id","-un"],"why":"name as root"},
  {"id":"r3","argv":["$BIN/stamp","r3"],"why":"order"},
  {"id":"u1","as":"user","argv":["/usr/bin/id","-un"],"why":"name as you"},
  {"id":"u2","as":"user","argv":["$BIN/stamp","u2"],"why":"order"}]}
EOF
GA=$G SHA_A=$SHA
answer right a "$GA" --run -j
is "[P3] (a) answer --run with the right password exits 0" "$ANS_RC" 0
check "[P3] (a) sudo prompted on the reviewer's terminal" [ "$(pty_prompts)" -ge 1 ]
jcheck "[P3] (a) answer -j names the request, status approved or started" \
    "j['request_id'] == '$GA' and j['status'] in ('approved', 'started')" "$ANS"
after_outcome a
wait_gate "$GA"
is "[P3] (a) wait exits 0 (approved, every command ran)" "$WAIT_RC" 0
jcheck "[P1] (a) the ledger names the request and the sealed manifest hash" \
    "ledger(j)['request_id'] == '$GA' and ledger(j)['manifest_sha256'] == '$SHA_A'" "$WJ"
jcheck "[P4] (a) one ledger entry per command, in request order" \
    "[e['id'] for e in entries(j)] == ['r1', 'r2', 'r3', 'u1', 'u2']" "$WJ"
jcheck "[P4] (a) every entry ran with exit code 0" \
    "all(e['status'] == 'ran' and e['exit_code'] == 0 for e in entries(j))" "$WJ"
jcheck "[P3] (a) entries say who ran them (as root / user)" \
    "[e['as'] for e in entries(j)] == ['root'] * 3 + ['user'] * 2" "$WJ"
jcheck "[P3] (a) ROOT id -u ran as uid 0" "entry(j, 'r1')['output_tail'].strip() == '0'" "$WJ"
jcheck "[P3] (a) ROOT id -un ran as root" "entry(j, 'r2')['output_tail'].strip() == 'root'" "$WJ"
jcheck "[P3] (a) YOU id -un ran as $SR_USER" "entry(j, 'u1')['output_tail'].strip() == '$SR_USER'" "$WJ"
jcheck "[P3] (a) ledger entries carry output_bytes and duration_ms" \
    "entry(j, 'r1')['output_bytes'] == 2 and all(isinstance(e['duration_ms'], int) for e in entries(j))" "$WJ"
is "[P3] (a) a root-owned #! script ran as root, then the YOU one as you, in order" \
    "$(order_log | tr '\n' '|')" "r3 root|u2 $SR_USER|"
check "[P3] (a) the gate is approved" state_is "$GA" approved

# ---- (a2) YOU, ROOT, YOU attached: order across the two kinds
order_reset
mkgate a2 <<EOF
{"reason":"e2e (a2): you, root, you","commands":[
  {"id":"u1","as":"user","argv":["$BIN/stamp","u1"],"why":"order"},
  {"id":"r1","argv":["$BIN/stamp","r1"],"why":"order"},
  {"id":"u2","as":"user","argv":["$BIN/stamp","u2"],"why":"order"}]}
EOF
answer right a2 "$G" --run --no-detach -j
is "[P3] (a2) answer --no-detach exits 0" "$ANS_RC" 0
jcheck "[P3] (a2) --no-detach returns settled: status approved" \
    "j['request_id'] == '$G' and j['status'] == 'approved'" "$ANS"
is "[P3] (a2) YOU, ROOT, YOU ran in request order" \
    "$(order_log | tr '\n' '|')" "u1 $SR_USER|r1 root|u2 $SR_USER|"
after_outcome a2
wait_gate "$G" 10
is "[P3] (a2) wait exits 0" "$WAIT_RC" 0

# ---- (a3) ROOT only, default mode: detached after authentication
mkgate a3 <<EOF
{"reason":"e2e (a3): detached by default","commands":[
  {"id":"sl","argv":["/usr/bin/sleep","3"],"why":"slow"},
  {"id":"tc","argv":["/usr/bin/touch","$RM-a3"],"why":"after the sleep"}]}
EOF
GA3=$G
answer right a3 "$GA3" --run -j
is "[P3] (a3) answer (default: detached) exits 0" "$ANS_RC" 0
jcheck "[P3] (a3) ... and says started" "j['request_id'] == '$GA3' and j['status'] == 'started'" "$ANS"
check "[P3] (a3) ... returning the terminal before the batch is done" absent "$RM-a3"
check "[P3] (a3) ... and nothing detached keeps the terminal open" \
    sh -c '[ -n "$1" ] && [ "$2" != pty-held-open-after-exit ]' sh "$(pty_summary)" "$(pty_note)"
after_outcome a3
wait_gate "$GA3" 60
is "[P3] (a3) the background run settles: wait exits 0" "$WAIT_RC" 0
check "[P3] (a3) ... and the command after the sleep ran" present "$RM-a3"
check "[P3] (a3) the gate is approved" state_is "$GA3" approved

# ============================================================ (b) wrong password
section "(b) wrong password"
mkgate b <<EOF
{"reason":"e2e (b): wrong password runs nothing","commands":[
  {"id":"ub","as":"user","argv":["/usr/bin/touch","$YOU/b"],"why":"you first"},
  {"id":"rb","argv":["/usr/bin/touch","$RM-b"],"why":"root marker"}]}
EOF
GB=$G
answer wrong b "$GB" --run --no-detach -j
is "[P3] (b) wrong password: answer exits 2" "$ANS_RC" 2
jcheck "[P3] (b) outcome authentication_failed, status pending" \
    "j['request_id'] == '$GB' and j['status'] == 'pending' and j['outcome'] == 'authentication_failed' and j['message']" "$ANS"
check "[P3] (b) the YOU command before the ROOT one did not run" absent "$YOU/b"
check "[P3] (b) the ROOT command did not run" absent "$RM-b"
check "[P3] (b) the gate is still pending" state_is "$GB" pending
after_outcome b
answer right b-again "$GB" --run --no-detach -j
is "[P3] (b) answerable again: the right password now exits 0" "$ANS_RC" 0
check "[P3] (b) ... and both commands ran" sh -c '[ -e "$1" ] && [ -e "$2" ]' sh "$YOU/b" "$RM-b"
after_outcome b-again

# ============================================================ (b2) prompt timeout
section "(b2) the prompt times out"
# sudo's own prompt timeout, 0.05 minutes (3 s), for the reviewer only,
# in a drop-in that lives for this case. Nobody answers the prompt: sudo
# gives up by itself, exactly as after a wrong password (exit 1), so the
# outcome is authentication_failed (docs/execution.md, section 5) and the
# gate stays pending and answerable.
TO_DROPIN=/etc/sudoers.d/wt-answer-timeout
printf 'Defaults:%s passwd_timeout=0.05\n' "$SR_USER" >"$TO_DROPIN.tmp"
chmod 0440 "$TO_DROPIN.tmp"
if sr_is_sudo_rs; then
	# sudo-rs ignores passwd_timeout ("unknown setting"): its prompt waits
	# until answered or cancelled (test-sudors.sh (c), docs/decisions.md)
	rm -f "$TO_DROPIN.tmp"
	skip "(b2) sudo's own prompt timeout" "sudo-rs has no passwd_timeout (test-sudors.sh (c))"
elif visudo -cqf "$TO_DROPIN.tmp" >/dev/null 2>&1 && mv "$TO_DROPIN.tmp" "$TO_DROPIN"; then
	at_exit "rm -f '$TO_DROPIN' '$TO_DROPIN.tmp'"
	mkgate b2 <<EOF
{"reason":"e2e (b2): a prompt that times out runs nothing","commands":[
  {"id":"ub2","as":"user","argv":["/usr/bin/touch","$YOU/b2"],"why":"you first"},
  {"id":"rb2","argv":["/usr/bin/touch","$RM-b2"],"why":"root marker"}]}
EOF
	GB2=$G
	answer silent b2 "$GB2" --run --no-detach -j
	rm -f "$TO_DROPIN"
	is "[P3] (b2) the prompt timed out: answer exits 2" "$ANS_RC" 2
	check "[P3] (b2) sudo said its prompt timed out" grep -q "timed out reading password" "$PTY_LOG"
	jcheck "[P3] (b2) outcome authentication_failed, status pending" \
	    "j['request_id'] == '$GB2' and j['status'] == 'pending' and j['outcome'] == 'authentication_failed'" "$ANS"
	check "[P3] (b2) the YOU command did not run" absent "$YOU/b2"
	check "[P3] (b2) the ROOT command did not run" absent "$RM-b2"
	check "[P3] (b2) the gate is still pending" state_is "$GB2" pending
	after_outcome b2
	answer right b2-again "$GB2" --run --no-detach -j
	is "[P3] (b2) answerable again: the right password now exits 0" "$ANS_RC" 0
	check "[P3] (b2) ... and both commands ran" sh -c '[ -e "$1" ] && [ -e "$2" ]' sh "$YOU/b2" "$RM-b2"
else
	rm -f "$TO_DROPIN.tmp"
	not_ok "(b2) a sudoers drop-in with passwd_timeout can be installed"
fi

# ============================================================ (c) Ctrl-C
section "(c) Ctrl-C"
mkgate c <<EOF
{"reason":"e2e (c): Ctrl-C runs nothing","commands":[
  {"id":"uc","as":"user","argv":["/usr/bin/touch","$YOU/c"],"why":"you first"},
  {"id":"rc","argv":["/usr/bin/touch","$RM-c"],"why":"root marker"}]}
EOF
GC=$G
answer cancel c "$GC" --run --no-detach -j
is "[P3] (c) Ctrl-C at the prompt: answer exits 2" "$ANS_RC" 2
jcheck "[P3] (c) outcome cancellation, status pending" \
    "j['request_id'] == '$GC' and j['status'] == 'pending' and j['outcome'] == 'cancellation'" "$ANS"
check "[P3] (c) the YOU command did not run" absent "$YOU/c"
check "[P3] (c) the ROOT command did not run" absent "$RM-c"
check "[P3] (c) the gate is still pending" state_is "$GC" pending
after_outcome c
answer right c-again "$GC" --run --no-detach -j
is "[P3] (c) answerable again after Ctrl-C" "$ANS_RC" 0
check "[P3] (c) ... and both commands ran" sh -c '[ -e "$1" ] && [ -e "$2" ]' sh "$YOU/c" "$RM-c"

# ============================================================ (d) no terminal
section "(d) no terminal"
mkgate d <<EOF
{"reason":"e2e (d): no tty","commands":[
  {"id":"ud","as":"user","argv":["/usr/bin/touch","$YOU/d"],"why":"you first"},
  {"id":"rd","argv":["/usr/bin/touch","$RM-d"],"why":"root marker"}]}
EOF
GD=$G
answer_notty d "$GD" --run -j
is "[P3] (d) no controlling terminal: answer exits 2" "$ANS_RC" 2
jcheck "[P3] (d) outcome missing_tty, status pending" \
    "j['request_id'] == '$GD' and j['status'] == 'pending' and j['outcome'] == 'missing_tty'" "$ANS"
check "[P3] (d) nothing ran (YOU included)" sh -c '[ ! -e "$1" ] && [ ! -e "$2" ]' sh "$YOU/d" "$RM-d"
check "[P3] (d) the gate is still pending" state_is "$GD" pending
answer_notty d-ask "$GD"
is "[P3] (d) answer without --run/--deny and no terminal refuses (exit 2)" "$ANS_RC" 2
check "[P3] (d) ... and leaves the gate pending" state_is "$GD" pending

# ============================================================ (e) swapped executable
section "(e) swapped executable"
# e1: replaced by rename after the request; e2: overwritten in place.
mkgate e1 <<EOF
{"reason":"e2e (e1): swapped by rename","commands":[
  {"id":"re","argv":["$BIN/tool"],"why":"sealed as true"}]}
EOF
GE1=$G
printf '#!/bin/sh\n/usr/bin/touch %s\n' "$RM-e1" >"$BIN/tool.new"
chmod 0755 "$BIN/tool.new"
mv -f "$BIN/tool.new" "$BIN/tool"
mkgate e2 <<EOF
{"reason":"e2e (e2): overwritten in place","commands":[
  {"id":"re","argv":["$BIN/tool2"],"why":"sealed as true"}]}
EOF
GE2=$G
printf '#!/bin/sh\n/usr/bin/touch %s\n' "$RM-e2" >"$BIN/tool2"
for e in e1 e2; do
	case $e in e1) ge=$GE1 ;; *) ge=$GE2 ;; esac
	answer right "$e" "$ge" --run --no-detach -j
	check "[P1] ($e) the swapped executable did not run" absent "$RM-$e"
	wait_gate "$ge" 1
	if jscan "j['outcome'] == 'runner_error' and j['status'] == 'pending'" "$ANS" >/dev/null 2>&1; then
		ok "[P1] ($e) refused: the attempt failed with runner_error (gate pending)"
		check "[P1] ($e) answer exits 1 for runner_error" [ "$ANS_RC" -eq 1 ]
	else
		jcheck "[P1] ($e) refused: the ledger entry is 'refused'" \
		    "entry(j, 're')['status'] == 'refused'" "$WJ"
		check "[P1] ($e) wait reports the failure (exit 3)" [ "$WAIT_RC" -eq 3 ]
	fi
	after_outcome "$e"
done

# ---- e3: the sealed manifest edited in the store after the request
mkgate e3 <<EOF
{"reason":"e2e (e3): manifest edited in the store","commands":[
  {"id":"rm","argv":["/usr/bin/touch","$RM-e3A"],"why":"sealed with A"}]}
EOF
GE3=$G
edited=$(sr_as "$SR_USER" sqlite3 "$SR_STATE/warrant.db" \
    "UPDATE gates SET manifest = replace(manifest, '$RM-e3A', '$RM-e3B') WHERE id = '$GE3';
     SELECT changes();
     UPDATE commands SET argv = replace(argv, '$RM-e3A', '$RM-e3B') WHERE gate_id = '$GE3';
     SELECT changes();" 2>&1 | tr '\n' ' ')
is "[P1] (e3) the test edited the stored manifest and argv" "$edited" "1 1 "
answer right e3 "$GE3" --run --no-detach -j
check "[P1] (e3) neither the sealed nor the edited command ran" \
    sh -c '[ ! -e "$1" ] && [ ! -e "$2" ]' sh "$RM-e3A" "$RM-e3B"
check "[P1] (e3) answer refuses the edited manifest (non-zero exit)" [ "$ANS_RC" -ne 0 ]
after_outcome e3

# ---- e4: the runner itself, given a tampered manifest and the sealed hash
mkgate e4 <<EOF
{"reason":"e2e (e4): runner and a tampered manifest","commands":[
  {"id":"rt","argv":["/usr/bin/touch","$RM-e4A"],"why":"sealed with A"}]}
EOF
GE4=$G SHA_E4=$SHA
sr_as "$SR_USER" "$SR_WARRANT" show "$GE4" -j >"$SR_DIR/e4.show" 2>&1
PRIV="$SR_DIR/rv-private"
install -d -m 0700 -o "$SR_USER" -g "$SR_GID" "$PRIV"
"$PY" - "$SR_DIR/e4.show" "$PRIV" "$RM-e4A" "$RM-e4B" <<'EOF'
import hashlib, json, os, sys
show, priv, a, b = sys.argv[1:]
m = json.load(open(show))["manifest"]
canon = lambda o: json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
open(os.path.join(priv, "sha.good"), "w").write(hashlib.sha256(canon(m)).hexdigest())
open(os.path.join(priv, "good.json"), "wb").write(canon(m))
t = json.loads(json.dumps(m).replace(a, b))
open(os.path.join(priv, "tampered.json"), "wb").write(canon(t))
EOF
chown "$SR_USER:$SR_GID" "$PRIV"/*
chmod 0600 "$PRIV"/*
is "[P1] (e4) show -j's manifest hashes (canonical form) to the sealed manifest_sha256" \
    "$(cat "$PRIV/sha.good" 2>/dev/null)" "$SHA_E4"
pty_rv right e4 60 /usr/bin/sudo -- "$SR_RUNNER" --manifest "$PRIV/tampered.json" \
    --expected-sha256 "$SHA_E4"
check "[P1] (e4) runner under sudo refuses a manifest whose hash differs (non-zero exit)" \
    [ "$PTY_RC" -ne 0 ]
check "[P1] (e4) ... and ran neither the sealed nor the tampered command" \
    sh -c '[ ! -e "$1" ] && [ ! -e "$2" ]' sh "$RM-e4A" "$RM-e4B"
check "[P1] (e4) ... sudo really started it (one prompt)" [ "$(pty_prompts)" -eq 1 ]
sr_forget_tickets
# Control: the very same call with the untampered manifest does run, so the
# refusal above is the hash check and not a usage error.
pty_rv right e4-control 60 /usr/bin/sudo -- "$SR_RUNNER" --manifest "$PRIV/good.json" \
    --expected-sha256 "$SHA_E4"
check "[P1] (e4) control: the same runner call with the sealed manifest runs it" present "$RM-e4A"
rm -f "$RM-e4A"
sr_forget_tickets
env -u SUDO_UID -u SUDO_USER -u SUDO_GID "$SR_RUNNER" --manifest "$PRIV/good.json" \
    --expected-sha256 "$SHA_E4" >"$SR_DIR/e5.out" 2>&1
check "[P1] (e5) runner started by root without sudo (no SUDO_UID) refuses" [ $? -ne 0 ]
check "[P1] (e5) ... and runs nothing" absent "$RM-e4A"

# ============================================================ (f) subset approval
section "(f) subset approval"
mkgate f <<EOF
{"reason":"e2e (f): subset","commands":[
  {"id":"a","argv":["/usr/bin/touch","$RM-fa"],"why":"a"},
  {"id":"b","argv":["/usr/bin/touch","$RM-fb"],"why":"b"},
  {"id":"c","argv":["/usr/bin/touch","$RM-fc"],"why":"c"}]}
EOF
GF=$G
answer right f "$GF" --run -c a -c c --no-detach -j
is "[P1] (f) answer -c a -c c exits 0" "$ANS_RC" 0
check "[P1] (f) a and c ran" sh -c '[ -e "$1" ] && [ -e "$2" ]' sh "$RM-fa" "$RM-fc"
check "[P1] (f) b (not selected) did not run" absent "$RM-fb"
wait_gate "$GF" 30
is "[P1] (f) wait exits 0 (every selected command ran)" "$WAIT_RC" 0
jcheck "[P1] (f) the ledger has a and c ran; b is there, not_approved" \
    "[e['id'] for e in entries(j) if e['status'] == 'ran'] == ['a', 'c'] and [e['status'] for e in entries(j) if e['id'] == 'b'] == ['not_approved']" "$WJ"
jcheck "[P1] (f) the ledger carries the subset manifest's hash, not the full one" \
    "ledger(j)['manifest_sha256'] != '$SHA'" "$WJ"
after_outcome f

# ============================================================ (g) stop_on_failure
section "(g) stop_on_failure"
mkgate g <<EOF
{"reason":"e2e (g): stop on failure","commands":[
  {"id":"f1","argv":["/usr/bin/false"],"why":"fails"},
  {"id":"f2","argv":["/usr/bin/touch","$RM-g"],"why":"must be skipped"}]}
EOF
GG=$G
answer right g "$GG" --run --no-detach -j
check "(g) the command after the failure did not run" absent "$RM-g"
wait_gate "$GG" 30
is "(g) wait exits 3 (approved with a failed command)" "$WAIT_RC" 3
jcheck "(g) f1 failed with exit code 1, f2 skipped" \
    "entry(j, 'f1')['status'] == 'failed' and entry(j, 'f1')['exit_code'] == 1 and entry(j, 'f2')['status'] == 'skipped'" "$WJ"
after_outcome g
mkgate g2 <<EOF
{"reason":"e2e (g2): a YOU failure stops the ROOT part","commands":[
  {"id":"yf","as":"user","argv":["/usr/bin/false"],"why":"fails"},
  {"id":"rt","argv":["/usr/bin/touch","$RM-g2"],"why":"must be skipped"}]}
EOF
answer right g2 "$G" --run --no-detach -j
check "(g2) a failed YOU command stops the ROOT one after it" absent "$RM-g2"
wait_gate "$G" 30
is "(g2) wait exits 3" "$WAIT_RC" 3
after_outcome g2

# ============================================================ (h) timeout
section "(h) timeout"
mkgate h <<EOF
{"reason":"e2e (h): timeout kills the group","commands":[
  {"id":"fk","argv":["$BIN/forker"],"why":"forks a sleeper","timeout_seconds":2}]}
EOF
GH=$G
t0=$(date +%s)
answer right h "$GH" --run --no-detach -j
t1=$(date +%s)
check "(h) the timed-out run came back within 60 s" [ $((t1 - t0)) -lt 60 ]
wait_gate "$GH" 60
is "(h) wait exits 3 (the command failed)" "$WAIT_RC" 3
# at least the 2 s timeout: the forked sleeper had started (or the check
# below that it is gone would hold for a sleeper that never ran)
jcheck "(h) the entry failed (killed by its timeout, after it)" \
    "entry(j, 'fk')['status'] == 'failed' and 2000 <= entry(j, 'fk')['duration_ms'] < 30000 and 'timed out' in (entry(j, 'fk')['error'] or '')" "$WJ"
i=0
while [ -n "$(pgrep -f "sleep $SLEEPER")" ] && [ "$i" -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
check "(h) no process of the command's group survives (forked sleeper gone)" \
    [ -z "$(pgrep -f "sleep $SLEEPER")" ]
after_outcome h

# ============================================================ (h2) overall deadline
section "(h2) the runner's overall deadline"
# Two ROOT commands of 1 s each: the runner's bound is 1 + 1 + the grace
# (3 s in this build, 30 s in a normal one). The first ignores SIGTERM,
# so its own timeout's SIGKILL comes 5 s after the SIGTERM, past that
# bound: only the runner's deadline stops it before then, and then the
# second must not start. Without the deadline the second one would run
# (stop_on_failure is off: only the deadline can stop it).
if installed_mode; then
	# an installed build has no test hooks: its grace is 30 s, not 3, and
	# the stubborn command's own SIGKILL (5 s after SIGTERM) comes first
	skip "(h2) the runner's overall deadline" "the installed build's grace is 30 s (the build's e2e run checks it)"
else
	mkgate h2 <<EOF
{"reason":"e2e (h2): the runner's own deadline","stop_on_failure":false,"commands":[
  {"id":"st","argv":["$BIN/stubborn"],"why":"ignores SIGTERM","timeout_seconds":1},
  {"id":"late","argv":["/usr/bin/touch","$RM-h2"],"why":"must not start past the deadline","timeout_seconds":1}]}
EOF
	GH2=$G
	answer right h2 "$GH2" --run --no-detach -j
	wait_gate "$GH2" 60
	is "(h2) wait exits 3 (a command failed)" "$WAIT_RC" 3
	jcheck "(h2) the stubborn command was killed at the runner's overall deadline" \
	    "entry(j, 'st')['status'] == 'failed' and 'overall deadline' in (entry(j, 'st')['error'] or '')" "$WJ"
	jcheck "(h2) the command after it was skipped: the deadline had passed" \
	    "entry(j, 'late')['status'] == 'skipped' and 'overall deadline' in (entry(j, 'late')['error'] or '')" "$WJ"
	check "(h2) the command after the deadline did not run" absent "$RM-h2"
	i=0
	while [ -n "$(pgrep -f "sleep $STUBBORN")" ] && [ "$i" -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
	check "(h2) the stubborn command is gone" [ -z "$(pgrep -f "sleep $STUBBORN")" ]
	after_outcome h2
fi

# ============================================================ (i) 1 GiB of output
section "(i) 1 GiB of output"
N=118485293
BYTES=$("$PY" -c '
import sys
n, t, d = int(sys.argv[1]), 0, 1
while 10 ** (d - 1) <= n:
    t += (min(n, 10 ** d - 1) - 10 ** (d - 1) + 1) * (d + 1)
    d += 1
print(t)
' "$N")
mkgate i <<EOF
{"reason":"e2e (i): 1 GiB of output","commands":[
  {"id":"big","argv":["/usr/bin/seq","1","$N"],"why":"$BYTES bytes of output"}]}
EOF
GI=$G
echo 0 >"$SR_DIR/sampler.runner-rss"
ANSWER_LIMIT=240
answer right i "$GI" --run --no-detach -j
ANSWER_LIMIT=120
is "(i) answer exits 0 after 1 GiB of output" "$ANS_RC" 0
wait_gate "$GI" 120
is "(i) wait exits 0" "$WAIT_RC" 0
jcheck "(i) output_bytes counts every byte ($BYTES)" \
    "entry(j, 'big')['output_bytes'] == $BYTES" "$WJ"
jcheck "(i) output_tail is the last <= 8 KiB (tail policy) and ends with the last line" \
    "len(entry(j, 'big')['output_tail'].encode()) <= 8192 and entry(j, 'big')['output_tail'].endswith('$N\n')" "$WJ"
check "(i) the whole wait -j output stays small (< 64 KiB)" [ "$(wc -c <"$WJ")" -lt 65536 ]
rss=$(cat "$SR_DIR/sampler.runner-rss")
if [ "$rss" -gt 0 ]; then
	check "(i) runner memory stayed flat (peak RSS $rss KiB < 64 MiB)" [ "$rss" -lt 65536 ]
else
	diag "(i) the sampler never saw warrant-runner running; memory not measured"
fi
after_outcome i
# The I/O log kept the whole gigabyte of seq's digits: this suite's own
# artifact, removed, or every run would leave one more in the host's log.
IOS=$(jscan "entry(j, 'big').get('iolog') or ''" "$WJ" 2>/dev/null)
case $IOS in
??/??/??) rm -rf "${IOS:+$(iolog_dir)/$IOS}" ;;
*) diag "(i) no I/O log session in the ledger: nothing removed" ;;
esac

# ============================================================ (j) YOU environment
section "(j) YOU environment"
# The agent's environment (the requester's and the answering shell's)
# carries preload, bash hooks, an exported function, a private variable
# and a world-writable PATH entry. None may reach a YOU command.
LIBM=$(ldconfig -p 2>/dev/null | awk '/libm\.so\.6 /{print $NF; exit}')
printf 'echo BASH-ENV-SOURCED\n' >"$SR_DIR/bashenv"
chmod 0644 "$SR_DIR/bashenv"
SR_EXTRA_ENV="WT_AGENT_SECRET_VAR=1
LD_PRELOAD=${LIBM:-}
LD_LIBRARY_PATH=/tmp
BASH_ENV=$SR_DIR/bashenv
ENV=$SR_DIR/bashenv
BASH_FUNC_wtfunc%%=() { echo wtfunc-ran; }"
SR_PATH=/tmp:/usr/local/bin:/usr/bin:/bin
mkgate j <<'EOF'
{"reason":"e2e (j): the YOU environment","output_to_agent":"full","commands":[
  {"id":"env","as":"user","why":"show the environment",
   "command":"env; echo \"FUNCS:$(declare -F | tr '\\n' ' ')\"; echo \"STAT:$(cut -d' ' -f6,7 /proc/$$/stat) PID:$$\"; echo \"STDIN:$(readlink /proc/$$/fd/0)\"; echo \"PATHIS:$PATH\""}]}
EOF
GJ=$G
answer none j "$GJ" --run --no-detach -j
SR_EXTRA_ENV=
SR_PATH=
is "[P6] (j) YOU-only answer exits 0" "$ANS_RC" 0
is "[P3] (q) YOU-only needs no password: no sudo prompt" "$(pty_prompts)" 0
wait_gate "$GJ" 30
is "[P6] (j) wait exits 0" "$WAIT_RC" 0
jscan "entry(j, 'env')['output_tail']" "$WJ" >"$SR_DIR/j.env" 2>&1
check "[P6] (j) the YOU command's environment is in the ledger" grep -q '^PATHIS:' "$SR_DIR/j.env"
for v in LD_PRELOAD LD_LIBRARY_PATH BASH_ENV 'ENV=' BASH_FUNC WT_AGENT_SECRET_VAR wtfunc BASH-ENV-SOURCED; do
	check "[P6] (j) the YOU command does not see $v" \
	    sh -c 'grep -q "^PATHIS:" "$2" && ! grep -q -- "$1" "$2"' sh "$v" "$SR_DIR/j.env"
done
YPATH=$(sed -n 's/^PATHIS://p' "$SR_DIR/j.env")
check "[P6] (j) YOU PATH is set" [ -n "$YPATH" ]
check "[P6] (j) YOU PATH has only absolute, existing-or-not, non-world-writable dirs (no /tmp)" \
    "$PY" -c '
import os, stat, sys
for d in sys.argv[1].split(":"):
    if not d.startswith("/") or d.rstrip("/") in ("/tmp", "/var/tmp", "/dev/shm"):
        sys.exit(1)
    try:
        if os.stat(d).st_mode & stat.S_IWOTH:
            sys.exit(1)
    except FileNotFoundError:
        pass
' "$YPATH"
check "[P6] (j) YOU HOME is the reviewer's home (passwd entry)" grep -qx "HOME=$SR_HOME" "$SR_DIR/j.env"
STAT=$(sed -n 's/^STAT:\([0-9]*\) \([0-9]*\) PID:\([0-9]*\)$/\1 \2 \3/p' "$SR_DIR/j.env")
check "[P6] (j) the YOU command leads its own session" \
    sh -c 'set -- $1; [ -n "$1" ] && [ "$1" = "$3" ]' sh "$STAT"
check "[P6] (j) the YOU command has no controlling terminal" \
    sh -c 'set -- $1; [ "$2" = 0 ]' sh "$STAT"
check "[P6] (j) the YOU command's stdin is /dev/null (or closed)" \
    sh -c 'x=$(sed -n "s/^STDIN://p" "$1"); [ "$x" = /dev/null ] || [ -z "$x" ]' sh "$SR_DIR/j.env"
after_outcome j

# ---- (q) YOU-only without a terminal at all
order_reset
mkgate q <<EOF
{"reason":"e2e (q): YOU only, no tty","commands":[
  {"id":"q1","as":"user","argv":["$BIN/stamp","q1"],"why":"order"}]}
EOF
answer_notty q "$G" --run --no-detach -j
is "[P3] (q) a YOU-only request is approved without a terminal (no password)" "$ANS_RC" 0
is "[P3] (q) ... and ran as the reviewer" "$(order_log)" "q1 $SR_USER"

# ============================================================ (m) lease contention
section "(m) lease contention"
mkgate m1 <<EOF
{"reason":"e2e (m1): holds the lease","commands":[
  {"id":"m","argv":["/usr/bin/touch","$RM-m1"],"why":"first"}]}
EOF
GM1=$G
mkgate m2 <<EOF
{"reason":"e2e (m2): contends","commands":[
  {"id":"m","argv":["/usr/bin/touch","$RM-m2"],"why":"second"}]}
EOF
GM2=$G
( pty_rv hold m1 120 "$SR_WARRANT" answer "$GM1" --run --no-detach -j; echo "$PTY_RC" >"$SR_DIR/m1.rc" ) &
BG="$BG $!"
if wait_for_file "$SR_DIR/m1.at-prompt" 30; then
	ok "[P7] (m) the first answer sits at the sudo prompt"
	HOLDER=$(answer_pid "$GM1")
	t0=$(date +%s)
	answer none m2 "$GM2" --run --no-detach -j
	t1=$(date +%s)
	is "[P7] (m) a second answer of another gate fails: exit 2" "$ANS_RC" 2
	check "[P7] (m) ... at once (< 5 s) without a sudo prompt" \
	    sh -c '[ "$1" -lt 5 ] && [ "$2" = 0 ]' sh $((t1 - t0)) "$(pty_prompts)"
	jcheck "[P7] (m) outcome lock_contention, status pending" \
	    "j['request_id'] == '$GM2' and j['status'] == 'pending' and j['outcome'] == 'lock_contention'" "$ANS"
	jcheck "[P7] (m) the message names the holding request, user and pid ($HOLDER)" \
	    "'$GM1' in j['message'] and '$SR_USER' in j['message'] and '${HOLDER:-nopid}' in j['message']" "$ANS"
	# The lease is per user: wt-reviewer2 answers its own YOU-only gate meanwhile.
	printf '{"reason":"e2e (m3): another user","commands":[{"id":"u","as":"user","argv":["/usr/bin/true"],"why":"x"}]}' \
	    >"$SR_DIR/m3.json"
	G3=$(sr_as "$SR_USER2" "$SR_WARRANT" request <"$SR_DIR/m3.json" 2>/dev/null | jscan 'j["request_id"]')
	sr_as "$SR_USER2" setsid -w "$SR_WARRANT" answer "${G3:-none}" --run --no-detach -j \
	    </dev/null >"$SR_DIR/m3.out" 2>&1
	is "[P7] (m) the lease is per user: $SR_USER2 answers its own gate meanwhile" "$?" 0
	touch "$SR_DIR/m1.go"
else
	not_ok "[P7] (m) the first answer sits at the sudo prompt"
	touch "$SR_DIR/m1.abort"
fi
wait_for_file "$SR_DIR/m1.rc" 90
is "[P7] (m) the lease holder then completes with the right password" "$(cat "$SR_DIR/m1.rc" 2>/dev/null)" 0
check "[P7] (m) ... and ran its command; the contender's did not run" \
    sh -c '[ -e "$1" ] && [ ! -e "$2" ]' sh "$RM-m1" "$RM-m2"
check "[P7] (m) the contender's gate is still pending" state_is "$GM2" pending
answer right m2-again "$GM2" --run --no-detach -j
is "[P7] (m) the lease is free again: the contender's gate is answered" "$ANS_RC" 0
after_outcome m

# ============================================================ (n) writable runner
section "(n) writable runner"
RDIR=$(dirname "$SR_RUNNER")
save_perms "$RDIR" "$SR_RUNNER"
for v in n1 n2; do
	mkgate "$v" <<EOF
{"reason":"e2e ($v): runner writable by a user","commands":[
  {"id":"rn","argv":["/usr/bin/touch","$RM-$v"],"why":"must not run"}]}
EOF
	case $v in
	n1) chown "$SR_USER" "$RDIR"; what="its directory owned by $SR_USER" ;;
	n2) chmod 0757 "$SR_RUNNER"; what="the runner world-writable" ;;
	esac
	answer none "$v" "$G" --run --no-detach -j
	restore_perms
	save_perms "$RDIR" "$SR_RUNNER"
	check "[P1] ($v) $what: refused before sudo is called (no prompt, non-zero exit)" \
	    sh -c '[ "$1" = 0 ] && [ "$2" -ne 0 ]' sh "$(pty_prompts)" "$ANS_RC"
	jcheck "[P1] ($v) ... reported as a failed attempt, gate pending" \
	    "j['request_id'] == '$G' and j['status'] == 'pending' and j['outcome'] in ('runner_error', 'missing_tty', 'authentication_failed', 'cancellation', 'timeout', 'lock_contention', 'execution_in_progress')" "$ANS"
	check "[P1] ($v) ... and nothing ran" absent "$RM-$v"
done
restore_perms

# ============================================================ (o) deny
section "(o) deny"
mkgate o <<EOF
{"reason":"e2e (o): denied","next":{"prompt":"carry on"},"commands":[
  {"id":"ro","argv":["/usr/bin/touch","$RM-o"],"why":"denied"}]}
EOF
GO=$G
answer_notty o "$GO" --deny -f "use apt instead" -j
is "[P4] (o) answer --deny needs no terminal: exit 0" "$ANS_RC" 0
wait_gate "$GO" 10
is "[P4] (o) wait exits 4 (denied)" "$WAIT_RC" 4
jcheck "[P4] (o) wait -j reports the feedback" "has_text(j, 'use apt instead')" "$WJ"
check "[P4] (o) nothing ran" absent "$RM-o"
check "[P4] (o) the gate is denied" state_is "$GO" denied

# ============================================================ (r) kill -9 recovery
section "(r) kill -9 recovery"
# r1: kill the answering process group while sudo prompts.
mkgate r1 <<EOF
{"reason":"e2e (r1): killed at the prompt","commands":[
  {"id":"k","argv":["/usr/bin/touch","$RM-r1"],"why":"after recovery"}]}
EOF
GR1=$G
( pty_rv hold r1 120 "$SR_WARRANT" answer "$GR1" --run --no-detach -j ) &
BG="$BG $!"
if wait_for_file "$SR_DIR/r1.at-prompt" 30 && P=$(answer_pid "$GR1"); then
	PG=$(cut -d' ' -f5 "/proc/$P/stat")
	# (no "--": dash's kill refuses it, and a fallback to answer alone
	# used to leave sudo at its prompt)
	if kill -9 "-$PG"; then
		ok "(r1) killed answer's process group (answer, and sudo at its prompt)"
	else
		not_ok "(r1) killed answer's process group (answer, and sudo at its prompt)"
	fi
	touch "$SR_DIR/r1.abort"
	wait_for_file "$SR_DIR/r1.log" 30
	sleep 1
	check "[P4] (r1) killed at the prompt: nothing ran" absent "$RM-r1"
	# once authentication began nobody can prove that nothing ran (sudo
	# may start the runner without answer): the gate settles as "may have
	# run", never pending, so it cannot be run a second time
	check "[P7] (r1) ... the gate is settled, not pending" state_is "$GR1" approved
	wait_gate "$GR1"
	jcheck "[P7] (r1) ... its command reads 'interrupted' (may have run), outcome runner_error" \
	    "entry(j, 'k')['status'] == 'interrupted' and ledger(j)['outcome'] == 'runner_error'" "$WJ"
	answer none r1-again "$GR1" --run --no-detach -j
	is "[P7] (r1) ... the lease was released: a second answer is refused as not pending (exit 2)" \
	    "$ANS_RC" 2
	check "[P7] (r1) ... and nothing ran" absent "$RM-r1"
else
	not_ok "[P4] (r1) the answer reached the sudo prompt"
	touch "$SR_DIR/r1.abort"
fi
sr_forget_tickets

# r2: kill the answering process (SIGKILL) while the runner works: once
# the batch's first command runs, not before (killed while sudo still
# prompts, sudo is left in a background group whose parent is gone, its
# read of the password fails with EIO and nothing runs: that is r1's case).
mkgate r2 <<EOF
{"reason":"e2e (r2): killed while running","commands":[
  {"id":"s1","argv":["/usr/bin/sleep","4.2"],"why":"slow"},
  {"id":"s2","argv":["/usr/bin/touch","$RM-r2"],"why":"after the sleep"}]}
EOF
GR2=$G
( pty_rv right r2 120 "$SR_WARRANT" answer "$GR2" --run --no-detach -j; echo finished >"$SR_DIR/r2.rc" ) &
BG="$BG $!"
if batch_command_runs '^/usr/bin/sleep 4.2$' && P=$(answer_pid "$GR2") && kill -9 "$P"; then
	ok "[P4] (r2) killed warrant answer (pid $P) while the runner's first command runs"
else
	not_ok "[P4] (r2) found warrant answer running while the runner's first command runs"
fi
wait_for_file "$SR_DIR/r2.rc" 60
wait_gate "$GR2" 60
is "[P4] (r2) the killed run is recovered and settled: wait exits 0" "$WAIT_RC" 0
check "[P4] (r2) ... the gate is approved with a ledger" state_is "$GR2" approved
check "[P4] (r2) ... the command after the kill ran" present "$RM-r2"
rm -f "$RM-r2"
answer right r2-again "$GR2" --run --no-detach -j
check "[P7] (r2) a settled gate cannot be run again (refused, nothing ran twice)" \
    sh -c '[ "$1" -ne 0 ] && [ ! -e "$2" ]' sh "$ANS_RC" "$RM-r2"
sr_forget_tickets

# r3: sudo itself killed (SIGKILL) while its runner works, --no-detach.
# Without use_pty (a drop-in for the reviewer, for this case) the runner
# shares the reviewer's terminal and nothing tells it sudo died: it goes
# on. So answer must not settle from its records yet (the touch after the
# sleep has not run *yet*): it waits for the runner and settles from its
# ledger, never calling "skipped" what then runs. (With use_pty the pty's
# hangup stops the runner after the command in hand, and the touch is
# rightly skipped.)
PTY_DROPIN=/etc/sudoers.d/wt-answer-nopty
printf 'Defaults:%s !use_pty\n' "$SR_USER" >"$PTY_DROPIN.tmp"
chmod 0440 "$PTY_DROPIN.tmp"
if visudo -cqf "$PTY_DROPIN.tmp" >/dev/null 2>&1 && mv "$PTY_DROPIN.tmp" "$PTY_DROPIN"; then
	at_exit "rm -f '$PTY_DROPIN' '$PTY_DROPIN.tmp'"
	mkgate r3 <<EOF
{"reason":"e2e (r3): sudo killed while running","commands":[
  {"id":"s1","argv":["/usr/bin/sleep","4.31"],"why":"slow"},
  {"id":"s2","argv":["/usr/bin/touch","$RM-r3"],"why":"after the sleep"}]}
EOF
	GR3=$G
	( pty_rv right r3 120 "$SR_WARRANT" answer "$GR3" --run --no-detach -j
	  echo finished >"$SR_DIR/r3.rc" ) &
	BG="$BG $!"
	if batch_command_runs '^/usr/bin/sleep 4.31$' && P=$(answer_pid "$GR3") &&
	    S=$(pgrep -P "$P" -x sudo) && kill -9 "$S"; then
		ok "(r3) killed answer's sudo (pid $S) with SIGKILL while the runner's sleep runs"
	else
		not_ok "(r3) found answer's sudo while the runner's sleep runs"
	fi
	wait_for_file "$SR_DIR/r3.rc" 60
	rm -f "$PTY_DROPIN"
	wait_gate "$GR3" 60
	is "[P7] (r3) the gate settles: wait exits 0" "$WAIT_RC" 0
	check "[P7] (r3) ... answer said it waits for the runner" \
	    grep -q "but the runner goes on; waiting for it to end" "$SR_DIR/r3.log"
	check "[P7] (r3) ... the command after the kill ran (the runner went on)" present "$RM-r3"
	jcheck "[P7] (r3) ... and the ledger agrees: the touch ran, it is not 'skipped'" \
	    "entry(j, 's1')['status'] == 'ran' and entry(j, 's2')['status'] == 'ran'" "$WJ"
	rm -f "$RM-r3"
else
	rm -f "$PTY_DROPIN.tmp"
	not_ok "(r3) a sudoers drop-in with !use_pty can be installed"
fi
sr_forget_tickets

# ============================================================ (s) a #! script as ROOT
section "(s) a #! script as ROOT"
mkgate s <<EOF
{"reason":"e2e (s): root-owned script","commands":[
  {"id":"sc","argv":["$BIN/stamp","s1"],"why":"a #! script"}]}
EOF
order_reset
answer right s "$G" --run --no-detach -j
is "(s) a root-owned #! script runs as a ROOT command" "$(order_log)" "s1 root"

# ============================================================ (t) --via sudo
section "(t) --via sudo"
mkgate t <<EOF
{"reason":"e2e (t): ROOT through sudo itself","commands":[
  {"id":"t1","argv":["/usr/bin/id","-u"],"why":"uid as root"},
  {"id":"t2","argv":["$BIN/stamp","t2"],"why":"order"},
  {"id":"t3","as":"user","argv":["/usr/bin/id","-un"],"why":"name as you"}]}
EOF
GT=$G
order_reset
# sudo runs each command outside the runner's supervisor: refused until
# the policy allows ROOT commands unconfined (promise 8, fail closed)
answer none t "$GT" --run --via sudo -j
jcheck "[P8] (t) --via sudo is refused while the policy does not allow unconfined ROOT commands" \
    "j['status'] == 'pending' and j['outcome'] == 'unconfined_refused'" "$ANS"
check "[P8] (t) ... before any prompt" [ "$(pty_prompts)" -eq 0 ]
is "[P8] (t) ... and nothing ran" "$(order_log)" ""
TPOL=$(build_config WARRANT_POLICY_FILE 2>/dev/null)
if installed_mode; then
	# an installed build's policy is the host's /etc/warrant/policy.json:
	# not the test's to write (the refusal above is what it must do)
	TPOL=
	for d in "(t) answer --via sudo with the right password exits 0" "(t) wait exits 0" \
	    "(t) ROOT ran as uid 0 through sudo" "(t) YOU ran as the reviewer" \
	    "(t) the ledger says the binding was the weaker --via sudo one" \
	    "(t) the #! script ran as root"; do
		skip "$d" "an installed build's policy file is the host's"
	done
else
	install -d -m 0755 -o root -g root "$(dirname "$TPOL")"
	printf '{"unconfined": "allow"}\n' >"$TPOL" && chmod 0644 "$TPOL"
	at_exit "rm -f '$TPOL'"
	answer right t "$GT" --run --via sudo -j
	is "(t) answer --via sudo with the right password exits 0" "$ANS_RC" 0
	after_outcome t
	wait_gate "$GT"
	is "(t) wait exits 0" "$WAIT_RC" 0
	jcheck "(t) ROOT ran as uid 0 through sudo" "entry(j, 't1')['output_tail'].strip() == '0'" "$WJ"
	jcheck "(t) YOU ran as the reviewer" "entry(j, 't3')['output_tail'].strip() == '$SR_USER'" "$WJ"
	jcheck "(t) the ledger says the binding was the weaker --via sudo one" \
	    "'via sudo' in (ledger(j)['diagnostic'] or '')" "$WJ"
	is "(t) the #! script ran as root" "$(order_log)" "t2 root"
fi
mkgate t2 <<EOF
{"reason":"e2e (t): env cannot pass through sudo","env":{"WT_X":"1"},"commands":[
  {"id":"t1","argv":["/usr/bin/id","-u"],"why":"uid"}]}
EOF
answer none t2 "$G" --run --via sudo -j
jcheck "(t) --via sudo with a reviewed env is refused before any prompt" \
    "j['status'] == 'pending' and j['outcome'] == 'runner_error'" "$ANS"
check "(t) ... and nothing prompted" [ "$(pty_prompts)" -eq 0 ]
check "(t) ... the gate is still pending" state_is "$G" pending
[ -z "$TPOL" ] || rm -f "$TPOL"

# ============================================================ (p) root log
section "(p) root log"
sr_sampler_stop
check "[P4] (p) $RL is mode 0600, owned by root" \
    sh -c '[ "$(stat -c "%a %u" "$1")" = "600 0" ]' sh "$RL"
tail -n +"$((RL0 + 1))" "$RL" >"$SR_DIR/rootlog.new" 2>/dev/null
check "[P4] (p) every new root log line is one JSON object" "$PY" -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
sys.exit(0 if lines and all(isinstance(json.loads(l), dict) for l in lines) else 1)
' "$SR_DIR/rootlog.new"
check "[P4] (p) one root log line per ROOT command run (a, f, g, i)" "$PY" -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]).read().splitlines() if l.strip()]
def strings(x):
    if isinstance(x, str): yield x
    elif isinstance(x, dict):
        for v in x.values(): yield from strings(v)
    elif isinstance(x, list):
        for v in x: yield from strings(v)
bad = 0
for path in sys.argv[2:]:
    led = json.load(open(path))
    led = led.get("ledger", led)
    rid = led["request_id"]
    ran = sum(1 for e in led["entries"] if e["as"] == "root" and e["status"] in ("ran", "failed"))
    ref = sum(1 for e in led["entries"] if e["as"] == "root" and e["status"] == "refused")
    got = sum(1 for l in lines if rid in set(strings(l)))
    if not ran <= got <= ran + ref:
        print("# %s: %d lines for %d ROOT runs" % (rid, got, ran))
        bad = 1
sys.exit(bad)
' "$SR_DIR/rootlog.new" "$SR_DIR/wait-$GA.json" "$SR_DIR/wait-$GF.json" \
    "$SR_DIR/wait-$GG.json" "$SR_DIR/wait-$GI.json"

# The same commands in the journal, with fields of their own.
if command -v journalctl >/dev/null 2>&1 && pgrep -x systemd-journal >/dev/null; then
	journalctl --sync 2>/dev/null
	journalctl -t warrant WARRANT_REQUEST="$GA" -o json --no-pager >"$SR_DIR/journal-a.json" 2>&1
	check "(p) the journal has one entry per ROOT command of (a) (journalctl -t warrant WARRANT_REQUEST=ID)" \
	    "$PY" -c '
import json, sys
es = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
sys.exit(0 if sorted(e["WARRANT_COMMAND_ID"] for e in es) == ["r1", "r2", "r3"] else 1)
' "$SR_DIR/journal-a.json"
	check "(p) ... with its manifest, exit, run-as, argv as it ran, and the line syslog would get" \
	    "$PY" -c '
import json, sys
es = {e["WARRANT_COMMAND_ID"]: e for e in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{"))}
e = es["r2"]
ok = (e["WARRANT_MANIFEST"] == sys.argv[2] and e["WARRANT_EXIT"] == "0" and
      e["WARRANT_STATUS"] == "ran" and e["WARRANT_RUN_AS"] == "root" and
      json.loads(e["WARRANT_ARGV"]) == ["/usr/bin/id", "-un"] and
      e["WARRANT_PATH"] == "/usr/bin/id" and len(e["WARRANT_EXECUTABLE_SHA256"]) == 64 and
      e["MESSAGE"].endswith("request %s command r2 /usr/bin/id: ran (exit 0, 0 refused)" % e["WARRANT_REQUEST"]))
sys.exit(0 if ok else 1)
' "$SR_DIR/journal-a.json" "$SHA_A"
else
	skip "(p) the journal has one entry per ROOT command of (a)" "no journald here (systemd is not installed)"
fi

# ============================================================ (l) canary
section "(l) canary"
leaks=$(sr_canary_grep "$SR_STATE" "$SR_STATE2" "$SR_HOME" "$SR_HOME2" /var/log /tmp /var/tmp \
    /dev/shm /run /var/lib/warrant "$OPT" 2>/dev/null | head -5)
is "[P2] (l) the canary password (value, SHA-256, SHA-512, MD5, base64) is in no file of the state dirs, homes, logs, /tmp, /run" \
    "$leaks" ""
is "[P2] (l) ... nor in the cmdline/environ of any warrant process seen during the run" \
    "$(head -3 "$SR_DIR/sampler.leaks")" ""
check "[P2] (l) ... (the sampler did look at warrant processes)" [ "$(cat "$SR_DIR/sampler.seen")" -gt 0 ]
for p in $(pgrep -f warrant 2>/dev/null); do
	case $(cat "/proc/$p/comm" 2>/dev/null) in warrant*) ;; *) continue ;; esac
	if printf '%s\n' "$SR_PATS" | grep -qsF -a -f - "/proc/$p/cmdline" "/proc/$p/environ"; then
		not_ok "[P2] (l) canary in /proc/$p of a running warrant process"
	fi
done

section end
done_testing
