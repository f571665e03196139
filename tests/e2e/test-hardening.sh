#!/bin/sh
# SPDX-License-Identifier: ISC
# The hardening promises end to end, with the host's real sudo and PAM:
# no sudo ticket at any moment of an approval (under both use_pty and
# !use_pty), ROOT commands without a terminal, nothing run twice when the
# runner outlives its watcher, a planted started.json, Ctrl-Z mid-batch, a
# traced or attachable `answer`, a finalizer that settles on its own
# connection, and a malformed stored manifest refused cleanly.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-hardening.sh
#
# Needs root: it creates the reviewer wt-reviewer (group sudo, a canary
# password per run) and writes one sudoers drop-in it removes again.
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the real-sudo tests create users and run as root"

umask 022
SR_DIR=$(mktemp -d /tmp/warrant-hard-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
OPT=/opt/wt-hard
BIN=$OPT/bin
RUNS=$OPT/runs            # one line per ROOT stamp that ran (root-only)
DROPIN=/etc/sudoers.d/wt-hard-pty
RL=/var/log/warrant.log
BG=""

cleanup() {
	sr_kill_bg
	rm -f "$DROPIN"
	umount "$OPT/full" 2>/dev/null
	rm -rf "$OPT"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

mkgate() { sr_gate "$@"; }
answer() { sr_answer "$@"; }
# runs LABEL: how many times the ROOT stamp LABEL ran.
runs() { grep -c "^$1\$" "$RUNS" 2>/dev/null || true; }
# root_lines ID: lines of the root log for request ID.
root_lines() { grep -c "\"request_id\":\"$1\"" "$RL" 2>/dev/null || true; }
# pid_of PATTERN: the newest process of the reviewer whose command line has PATTERN.
pid_of() {
	for p in $(pgrep -n -u "$SR_USER" -f "$1" 2>/dev/null); do echo "$p"; return 0; done
	return 1
}
# settled ID SECONDS: wait until the gate is no longer pending.
settled() {
	st_i=0
	while [ "$(sr_state "$1")" = pending ]; do
		st_i=$((st_i + 1))
		[ "$st_i" -le $(($2 * 5)) ] || return 1
		sleep 0.2
	done
}

# ============================================================ set-up
if sr_need && sr_user_setup && sr_install; then ok "infra: reviewer $SR_USER, warrant installed"
else bail "infra: cannot set up the reviewer or install warrant"; fi
rm -rf "$OPT"
install -d -m 0755 -o root -g root "$OPT" "$BIN"
: >"$RUNS"
chmod 0600 "$RUNS"
cat >"$BIN/trysudo" <<'EOF'
#!/bin/sh
# Does any sudo ticket work from here? Prints sudo-n=STATUS.
/usr/bin/sudo -n true </dev/null >/dev/null 2>&1
echo "sudo-n=$?"
EOF
cat >"$BIN/waitgo" <<'EOF'
#!/bin/sh
# waitgo PATH: wait until PATH exists (60 s at most).
i=0
while [ ! -e "$1" ] && [ "$i" -lt 600 ]; do i=$((i + 1)); /usr/bin/sleep 0.1; done
EOF
cat >"$BIN/ttyw" <<'EOF'
#!/bin/sh
# Try to reach the reviewer's terminal with raw escapes.
if printf '\033]0;WT-PWNED\007WT-RAW-ESCAPE\n' >/dev/tty 2>/dev/null; then echo tty=open
else echo tty=none; fi
EOF
cat >"$BIN/stamp" <<EOF
#!/bin/sh
# stamp LABEL [SECONDS]: sleep, then record that LABEL ran.
[ -n "\${2:-}" ] && /usr/bin/sleep "\$2"
echo "\$1" >>$RUNS
EOF
chown root:root "$BIN"/*
chmod 0755 "$BIN"/*
CTL="$SR_DIR/poll"
# The poller: as the reviewer, in whatever session it is started from,
# asks sudo -n every 0.1 s until $CTL.stop exists; counts polls and hits.
cat >"$SR_DIR/poller" <<EOF
#!/bin/sh
while [ ! -e "$CTL.stop" ]; do
	echo p >>"$CTL.polls"
	/usr/bin/sudo -n true </dev/null >/dev/null 2>&1 && echo hit >>"$CTL.hits"
	/usr/bin/sleep 0.1
done
EOF
chmod 0755 "$SR_DIR/poller"
chown "$SR_USER" "$SR_DIR"
polls() { wc -l <"$CTL.polls" 2>/dev/null || echo 0; }
hits() { wc -l <"$CTL.hits" 2>/dev/null || echo 0; }
poll_reset() { rm -f "$CTL.stop" "$CTL.polls" "$CTL.hits"; }

# Positive control: the poller sees a ticket that `sudo -v` leaves in its
# terminal session (so its silence below means something). It polls until
# it has seen one, 30 s at most, however slowly it gets to.
poll_reset
pty_rv right ctl 60 /bin/sh -c "/usr/bin/sudo -k; /usr/bin/sudo -v; $SR_DIR/poller & i=0; until [ -s $CTL.hits ] || [ \$i -ge 300 ]; do i=\$((i + 1)); /usr/bin/sleep 0.1; done; touch $CTL.stop; wait"
check "[P2] control: the same-session poller sees a ticket sudo -v left" [ "$(hits)" -gt 0 ]
sr_forget_tickets

# ============================================================ (t1) no ticket, ever
for mode in use_pty '!use_pty'; do
	# usepty, nousepty: each pass has its own gate, go-file and transcript
	tag=$(echo "$mode" | sed 's/^!/no/' | tr -d _)
	printf 'Defaults:%s %s\n' "$SR_USER" "$mode" >"$DROPIN"
	chmod 0440 "$DROPIN"
	check "(t1 $mode) the sudoers drop-in is valid" visudo -cf "$DROPIN"
	mkgate "t1$tag" <<EOF
{"reason":"hardening t1: no ticket during the batch","run_as":"$SR_USER","commands":[
  {"id":"asrv","argv":["$BIN/trysudo"],"why":"a ROOT command running as the reviewer tries sudo -n"},
  {"id":"slow","argv":["$BIN/waitgo","$OPT/go-t1$tag"],"why":"time for the pollers"},
  {"id":"you","as":"user","argv":["$BIN/trysudo"],"why":"a YOU command tries sudo -n"}]}
EOF
	poll_reset
	# the poller runs in the very terminal session of warrant answer, and
	# a second one with no terminal at all
	sr_as "$SR_USER" setsid "$SR_DIR/poller" </dev/null >/dev/null 2>&1 &
	BG="$BG $!"
	# the batch goes on once the pollers have polled 10 times between them
	(
		i=0
		until [ "$(polls)" -ge 10 ] || [ "$i" -ge 600 ]; do i=$((i + 1)); sleep 0.1; done
		touch "$OPT/go-t1$tag"
	) &
	BG="$BG $!"
	pty_rv right "t1$tag" 120 /bin/sh -c "$SR_DIR/poller & $SR_WARRANT answer $G --run --no-detach -j; rc=\$?; touch $CTL.stop; wait; exit \$rc"
	ANS_RC=$PTY_RC ANS=$PTY_LOG
	touch "$CTL.stop"
	is "[P2] (t1 $mode) answer exits 0" "$ANS_RC" 0
	check "[P2] (t1 $mode) the pollers polled during the batch" [ "$(polls)" -ge 10 ]
	is "[P2] (t1 $mode) no poll of sudo -n succeeded at any moment" "$(hits)" 0
	jcheck "[P2] (t1 $mode) a ROOT command running as the reviewer found no ticket" \
	    "entry(j, 'asrv')['output_tail'].strip() == 'sudo-n=1'" "$ANS"
	jcheck "[P2] (t1 $mode) a YOU command of the batch found no ticket" \
	    "entry(j, 'you')['output_tail'].strip() == 'sudo-n=1'" "$ANS"
	check "[P2] (t1 $mode) no ticket after the outcome (same pty session, fresh pty, no tty)" \
	    no_ticket_anywhere
	check "[P2] (t1 $mode) one prompt for the whole batch" [ "$(pty_prompts)" = 1 ]
done
rm -f "$DROPIN"

# ============================================================ (t2) no terminal for ROOT
mkgate t2 <<EOF
{"reason":"hardening t2: /dev/tty","commands":[{"id":"tty","argv":["$BIN/ttyw"],"why":"escapes"}]}
EOF
answer right t2 "$G" --run --no-detach -j
is "[P6] (t2) answer exits 0" "$ANS_RC" 0
jcheck "[P6] (t2) a ROOT command cannot open /dev/tty (it has no controlling terminal)" \
    "entry(j, 'tty')['output_tail'].strip().endswith('tty=none') and 'No such device or address' in entry(j, 'tty')['output_tail']" "$ANS"
check "[P6] (t2) nothing raw reached the reviewer's terminal" \
    sh -c '! grep -q "WT-RAW-ESCAPE\|WT-PWNED" "$1"' sh "$ANS"

# ============================================================ (t3) finalizer killed
mkgate t3 <<EOF
{"reason":"hardening t3: the runner outlives its finalizer","commands":[
  {"id":"slow","argv":["$BIN/stamp","t3-slow","4"],"why":"long"},
  {"id":"after","argv":["$BIN/stamp","t3-after"],"why":"after"}]}
EOF
G3=$G
answer right t3 "$G3" --run -j
is "[P7] (t3) answer --run (detached) exits 0" "$ANS_RC" 0
FIN=$(jscan 'str(j["finalizer_pid"])' "$ANS")
check "[P7] (t3) a finalizer was started" [ -n "$FIN" ]
kill -9 "$FIN" 2>/dev/null
# gone, or a zombie nobody reaped yet: either way it settles nothing
check "[P7] (t3) the finalizer is gone" wait_for \
    '[ ! -e /proc/$FIN ] || [ "$(cut -d" " -f3 /proc/$FIN/stat 2>/dev/null)" = Z ]' 10
answer none t3b "$G3" --run -j
is "[P7] (t3) a second answer while the runner works is refused (exit 2)" "$ANS_RC" 2
jcheck "[P7] (t3) ... as execution_in_progress, before any prompt" \
    "j['outcome'] == 'execution_in_progress'" "$ANS"
is "[P7] (t3) ... and sudo never prompted" "$(pty_prompts)" 0
check "[P7] (t3) the gate settles once the runner is done" settled "$G3" 30
is "[P4] (t3) ... as approved, from the runner's records" "$(sr_state "$G3")" approved
is "[P7] (t3) the slow command ran exactly once" "$(runs t3-slow)" 1
is "[P7] (t3) the next command ran exactly once" "$(runs t3-after)" 1
is "[P7] (t3) the root log has one line per command" "$(root_lines "$G3")" 2

# ============================================================ (t4) answer killed
mkgate t4 <<EOF
{"reason":"hardening t4: the runner outlives answer","commands":[
  {"id":"slow","argv":["$BIN/stamp","t4-slow","4"],"why":"long"}]}
EOF
G4=$G
( answer right t4 "$G4" --run --no-detach -j ) &
BG="$BG $!"
check "[P7] (t4) the batch starts" wait_for '[ -n "$(running_pids t4-slow)" ]' 60
A4=$(pid_of "answer $G4")
check "[P7] (t4) found the answering process" [ -n "$A4" ]
kill -9 "$A4" 2>/dev/null
answer none t4b "$G4" --run -j
is "[P7] (t4) with answer killed, a second answer is refused (exit 2)" "$ANS_RC" 2
jcheck "[P7] (t4) ... as execution_in_progress" "j['outcome'] == 'execution_in_progress'" "$ANS"
check "[P7] (t4) the gate settles once the runner is done" settled "$G4" 30
is "[P4] (t4) ... as approved" "$(sr_state "$G4")" approved
is "[P7] (t4) the command ran exactly once" "$(runs t4-slow)" 1

# ============================================================ (t5) planted started.json
mkgate t5 <<EOF
{"reason":"hardening t5: a directory in place of started.json","commands":[
  {"id":"once","argv":["$BIN/stamp","t5"],"why":"once"}]}
EOF
G5=$G
( answer hold t5 "$G5" --run -j; echo "$ANS_RC" >"$SR_DIR/t5.rc" ) &
BG="$BG $!"
if wait_for '[ -e "$SR_DIR/t5.at-prompt" ]' 60; then
	RD=$(ls -dt "$SR_STATE"/runs/"$G5".* 2>/dev/null | head -1)
	sr_as "$SR_USER" mkdir "$RD/started.json"
	touch "$SR_DIR/t5.go"
	wait_for '[ -e "$SR_DIR/t5.rc" ]' 60
	ok "(t5) planted a directory as started.json while sudo prompted"
else
	not_ok "(t5) sudo's prompt never came"
fi
ANS=$SR_DIR/t5.log
check "[P7] (t5) answer fails (exit 1)" [ "$(cat "$SR_DIR/t5.rc" 2>/dev/null)" = 1 ]
jcheck "[P7] (t5) ... saying the runner refused before running anything" \
    "j['status'] == 'pending' and 'before running anything' in j['message']" "$ANS"
is "[P7] (t5) nothing ran" "$(runs t5)" 0
is "[P7] (t5) the root log has no line for it" "$(root_lines "$G5")" 0
answer right t5b "$G5" --run --no-detach -j
is "[P7] (t5) answered again, it runs" "$ANS_RC" 0
is "[P7] (t5) ... exactly once" "$(runs t5)" 1

# ============================================================ (t6) Ctrl-Z mid-batch
mkgate t6 <<EOF
{"reason":"hardening t6: job control","commands":[
  {"id":"slow","argv":["$BIN/stamp","t6","3"],"why":"long"}]}
EOF
G6=$G
( answer right t6 "$G6" --run --no-detach -j; echo "$ANS_RC" >"$SR_DIR/t6.rc" ) &
BG="$BG $!"
check "(t6) the batch starts" wait_for '[ -n "$(running_pids " t6 3")" ]' 60
A6=$(pid_of "answer $G6")
PG6=$(ps -o pgid= -p "$A6" 2>/dev/null | tr -d ' ')
check "(t6) found the foreground process group of answer" [ -n "$PG6" ]
# dash's kill takes no "--": the group is the negative pid alone
check "(t6) Ctrl-Z sent (SIGTSTP to answer's process group)" kill -TSTP "-$PG6"
check "(t6) after Ctrl-Z (SIGTSTP to the foreground group) answer still finishes" \
    wait_for '[ -e "$SR_DIR/t6.rc" ]' 30
is "(t6) ... with exit 0" "$(cat "$SR_DIR/t6.rc" 2>/dev/null)" 0
is "(t6) ... the command ran once" "$(runs t6)" 1
is "(t6) ... and the gate is approved" "$(sr_state "$G6")" approved

# ============================================================ (t7) traced, attachable
mkgate t7 <<EOF
{"reason":"hardening t7: tracing","commands":[{"id":"once","argv":["$BIN/stamp","t7"],"why":"once"}]}
EOF
G7=$G
if command -v strace >/dev/null 2>&1; then
	pty_rv none t7 60 strace -f -o /dev/null "$SR_WARRANT" answer "$G7" --run -j
	ANS_RC=$PTY_RC ANS=$PTY_LOG
	check "[P2] (t7) answer under strace refuses (exit 2)" [ "$ANS_RC" -eq 2 ]
	jcheck "[P2] (t7) ... as traced" "j['outcome'] == 'traced'" "$ANS"
	is "[P2] (t7) ... before any prompt" "$(pty_prompts)" 0
	is "[P2] (t7) ... and nothing ran" "$(runs t7)" 0
else
	not_ok "(t7) strace is missing (scripts/deps.sh installs it)"
fi
( answer hold t7b "$G7" --run --no-detach -j ) &
BG="$BG $!"
if wait_for '[ -e "$SR_DIR/t7b.at-prompt" ]' 60; then
	A7=$(pid_of "answer $G7")
	check "[P2] (t7) found the answering process at the prompt" [ -n "$A7" ]
	check "[P2] (t7) a same-uid process cannot read answer's memory or environment" \
	    sh -c '! setpriv --reuid="$1" --regid="$2" --init-groups cat "/proc/$3/environ" >/dev/null 2>&1' \
	    sh "$SR_USER" "$SR_GID" "$A7"
	sr_as "$SR_USER" /usr/bin/sleep 5 &
	SL=$!
	sleep 0.3
	SLP=$(pgrep -n -u "$SR_USER" -x sleep)
	check "[P2] (t7) control: it can read one of its own ordinary processes" \
	    sh -c 'setpriv --reuid="$1" --regid="$2" --init-groups cat "/proc/$3/environ" >/dev/null' \
	    sh "$SR_USER" "$SR_GID" "$SLP"
	kill "$SL" "$SLP" 2>/dev/null
	touch "$SR_DIR/t7b.go"
	check "(t7) then approved, it ran once" wait_for '[ "$(runs t7)" = 1 ]' 30
else
	not_ok "(t7) sudo's prompt never came"
fi

# ============================================================ (t8) the finalizer's commits
mkgate t8 <<EOF
{"reason":"hardening t8: the finalizer settles alone","commands":[
  {"id":"once","argv":["$BIN/stamp","t8","1"],"why":"once"}]}
EOF
G8=$G
answer right t8 "$G8" --run -j
FIN=$(jscan 'str(j["finalizer_pid"])' "$ANS")
check "[P4] (t8) the finalizer ends by itself" wait_for \
    '[ ! -e /proc/$FIN ] || [ "$(cut -d" " -f3 /proc/$FIN/stat 2>/dev/null)" = Z ]' 40
# read the database file directly: no warrant reader may recover it first
RAW=$(sqlite3 "file:$SR_STATE/warrant.db?mode=ro" "SELECT state FROM gates WHERE id = '$G8'" 2>&1)
is "[P4] (t8) the finalizer's settlement is in the database file (no reader recovered it)" "$RAW" approved
is "[P4] (t8) requests.jsonl has exactly one approval line for it" "$("$PY" -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    n += e.get("event") == "approved" and e.get("request_id") == sys.argv[2]
print(n)' "$SR_STATE/requests.jsonl" "$G8")" 1

# ============================================================ (t9) malformed stored manifest
mkgate t9 <<EOF
{"reason":"hardening t9: schema_version 1.5","commands":[{"id":"once","argv":["$BIN/stamp","t9"],"why":"once"}]}
EOF
G9=$G
sqlite3 "$SR_STATE/warrant.db" "UPDATE gates SET manifest = replace(manifest, '\"schema_version\":1', '\"schema_version\":1.5') WHERE id = '$G9'"
chown "$SR_USER" "$SR_STATE"/warrant.db*
if command -v valgrind >/dev/null 2>&1; then
	pty_rv none t9 120 valgrind -q --error-exitcode=99 "$SR_WARRANT" answer "$G9" --run -j
	ANS_RC=$PTY_RC ANS=$PTY_LOG
	is "(t9) a stored manifest with schema_version 1.5 is refused cleanly (exit 1, no memory error)" \
	    "$ANS_RC" 1
else
	answer none t9 "$SR_WARRANT" answer "$G9" --run -j
	is "(t9) a stored manifest with schema_version 1.5 is refused (exit 1)" "$ANS_RC" 1
	not_ok "(t9) valgrind is missing (scripts/deps.sh installs it)"
fi
jcheck "(t9) ... saying the stored manifest is refused" \
    "j['status'] == 'pending' and 'refused' in j['message']" "$ANS"
is "(t9) ... before any prompt" "$(pty_prompts)" 0
is "(t9) ... and nothing ran" "$(runs t9)" 0

# ============================================================ (t10) changeable since the request
install -m 0755 -o root -g root "$BIN/stamp" "$BIN/late"
install -d -m 0755 -o root -g root "$OPT/conf"
echo x >"$OPT/conf/file"
mkgate t10 <<EOF
{"reason":"hardening t10: the executable became the requester's","commands":[
  {"id":"late","argv":["$BIN/late","t10"],"why":"once"}]}
EOF
G10=$G
mkgate t10b <<EOF
{"reason":"hardening t10: a path it names became the requester's","commands":[
  {"id":"named","argv":["$BIN/stamp","t10b","--config=$OPT/conf/file"],"why":"once"}]}
EOF
G10B=$G
# same content, same hash: only the owner changed after review
chown "$SR_USER" "$BIN/late" "$OPT/conf"
answer right t10 "$G10" --run --no-detach -j
jcheck "[P1] (t10) the runner refuses an executable the requester can change since the request" \
    "entry(j, 'late')['status'] == 'refused' and 'requester can change' in entry(j, 'late')['error']" "$ANS"
is "[P1] (t10) ... and it did not run" "$(runs t10)" 0
answer right t10b "$G10B" --run --no-detach -j
jcheck "[P1] (t10) ... and a ROOT command naming a path in a directory that became the requester's" \
    "entry(j, 'named')['status'] == 'refused'" "$ANS"
is "[P1] (t10) ... which did not run either" "$(runs t10b)" 0

# ============================================================ (t11) the disk fills during a batch
FULL=$OPT/full
install -d -m 0755 -o root -g root "$FULL"
if mount -t tmpfs -o size=4m,mode=0755 wt-hard-full "$FULL"; then
	install -d -m 0700 -o "$SR_USER" -g "$SR_GID" "$FULL/state"
	SR_EXTRA_ENV="WARRANT_HOME=$FULL/state"
	mkgate t11 <<EOF
{"reason":"hardening t11: the disk fills during the batch","commands":[
  {"id":"first","argv":["$BIN/stamp","t11a","3"],"why":"runs while the disk fills"},
  {"id":"second","argv":["$BIN/stamp","t11b"],"why":"its start cannot be recorded"},
  {"id":"third","argv":["$BIN/stamp","t11c"],"why":"after"}]}
EOF
	G11=$G
	( answer right t11 "$G11" --run --no-detach -j; echo "$ANS_RC" >"$SR_DIR/t11.rc" ) &
	BG="$BG $!"
	# the command itself (its interpreter runs /dev/fd/N), not the runner's
	# `sudo -l` check of the same argv, which comes before started.json
	if wait_for '[ -n "$(running_pids "/dev/fd/[0-9]* t11a 3")" ]' 60; then
		dd if=/dev/zero of="$FULL/filler" bs=64k 2>/dev/null
		ok "(t11) the store's file system is full while the first command runs"
	else
		not_ok "(t11) the batch never started"
	fi
	wait_for '[ -e "$SR_DIR/t11.rc" ]' 60
	rm -f "$FULL/filler"
	check "[P4] (t11) once space is back the gate settles" settled "$G11" 30
	sr_as "$SR_USER" "$SR_WARRANT" wait "$G11" -t 30 -j >"$SR_DIR/t11.wait" 2>&1
	is "[P7] (t11) the first command ran once" "$(runs t11a)" 1
	jcheck "[P7] (t11) ... and the ledger does not call it skipped (ran or may have run)" \
	    "entry(j, 'first')['status'] in ('ran', 'interrupted')" "$SR_DIR/t11.wait"
	is "[P7] (t11) the commands whose start could not be recorded did not run" \
	    "$(runs t11b):$(runs t11c)" "0:0"
	jcheck "[P7] (t11) ... and no entry says skipped for a command that ran" \
	    "all(e['status'] != 'skipped' or e['id'] in ('second', 'third') for e in entries(j))" \
	    "$SR_DIR/t11.wait"
	SR_EXTRA_ENV=
	umount "$FULL"
else
	not_ok "(t11) cannot mount a small tmpfs for the full-disk case"
fi

done_testing
[ "$fails" -eq 0 ]
