#!/bin/sh
# SPDX-License-Identifier: ISC
# sudo-rs as /usr/bin/sudo (Debian 13's sudo-rs 0.2.5, the default sudo of
# Ubuntu 26.04): each way it differs from sudo that warrant meets, shown
# with the real sudo-rs and PAM (docs/decisions.md, "sudo-rs"): its prompt
# ("[sudo: authenticate] Password:", echo turned off only after it is
# printed), `-k` with a command (authenticates even over a live ticket,
# leaves that ticket alive: warrant's own `sudo -k` removes it),
# `passwd_timeout` and `!authenticate` (ignored with a warning: no prompt
# timeout, the password still asked), its exit codes (1 for a failed
# authentication, 128+N when a signal ends it), and the runner's question
# to the policy (`sudo -l -U USER -u RUN_AS -- CMD`). Every promise of
# `warrant answer` holds: one prompt for the runner's own invocation, no
# ticket during or after the batch, the password nowhere.
#
# Skipped unless /usr/bin/sudo is sudo-rs: make check-trixie puts it there
# in its Debian 13 root (scripts/trixie.sh).
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-sudors.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the real-sudo tests create users and run as root"
if ! sr_is_sudo_rs; then
	# one skipped check, so that tests/run.sh sees the suite ran
	skip "sudo-rs's differences" "/usr/bin/sudo is not sudo-rs (make check-trixie runs this with it)"
	done_testing
	exit 0
fi

umask 022
SR_DIR=$(mktemp -d /tmp/warrant-sudors-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
OPT=/opt/wt-sudors
DROPIN=/etc/sudoers.d/wt-sudors

cleanup() {
	[ -d "$OPT" ] && touch "$OPT/go"
	rm -f "$DROPIN"
	rm -rf "$OPT"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# touch_gate NAME: a gate of a YOU and a ROOT command that each leave a
# marker; G.
touch_gate() {
	sr_gate "$1" <<EOF
{"reason":"sudo-rs ($1)","commands":[
  {"id":"u","as":"user","argv":["/usr/bin/touch","$YOU/$1"],"why":"you"},
  {"id":"r","argv":["/usr/bin/touch","$OPT/root-$1"],"why":"root"}]}
EOF
}
ran() { [ -e "$YOU/$1" ] && [ -e "$OPT/root-$1" ]; }
none_ran() { [ ! -e "$YOU/$1" ] && [ ! -e "$OPT/root-$1" ]; }
dropin() {
	printf '%s\n' "$1" >"$DROPIN.tmp" && chmod 0440 "$DROPIN.tmp" && mv "$DROPIN.tmp" "$DROPIN"
}

# ============================================================ set-up
section "set-up"
if sr_need && sr_user_setup && sr_install; then ok "infra: reviewer $SR_USER, warrant installed"
else bail "infra: cannot set up the reviewer or install warrant"; fi
ok "/usr/bin/sudo is $(/usr/bin/sudo -V 2>&1 | head -1)"
check "infra: no NOPASSWD rule applies to $SR_USER" sr_no_nopasswd
rm -rf "$OPT"
install -d -m 0755 -o root -g root "$OPT" "$OPT/bin"
YOU=$SR_HOME/wt-sudors
rm -rf "$YOU"
install -d -m 0755 -o "$SR_USER" -g "$SR_GID" "$YOU"
cat >"$OPT/bin/hold" <<'EOF'
#!/bin/sh
# says it started, then waits (at most 120 s) until the test lets it go
: >/opt/wt-sudors/held
i=0
while [ ! -e /opt/wt-sudors/go ] && [ "$i" -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
: >/opt/wt-sudors/done
EOF
chmod 0755 "$OPT/bin/hold"

# ============================================================ (a) the prompt
section "(a) sudo-rs's prompt: one, for the runner's own invocation"
touch_gate a
GA=$G
sr_answer right a "$GA" --run --no-detach -j
is "[P2] (a) answer exits 0" "$ANS_RC" 0
is "[P2] (a) one prompt" "$(pty_prompts)" 1
check "(a) it is sudo-rs's prompt" grep -q '\[sudo: authenticate\] Password' "$ANS"
check "[P2] (a) both commands ran" ran a
check "[P2] (a) no ticket: not in that terminal session, a fresh one, or none" no_ticket_anywhere
no_canary_in() { [ -z "$(sr_canary_grep "$1")" ]; }
check "[P2] infra: the canary search finds a planted SHA-256 of the password" sr_canary_grep_works
check "[P2] (a) the password is not in the transcripts (echo was off before it was typed)" \
    no_canary_in "$SR_DIR"

# ============================================================ (b) -k with a command
section "(b) a live ticket: -k with a command asks anyway; none is left"
touch_gate b
GB=$G
# sudo -v, then the answer, in one terminal session
pty_rv right b 120 /bin/sh -c '/usr/bin/sudo -v && echo WT-V=ok && "$@"' sh "$SR_WARRANT" answer "$GB" --run --no-detach -j
check "(b) sudo -v made a ticket first" grep -q WT-V=ok "$PTY_LOG"
is "[P2] (b) the runner's invocation still asked for the password (2 prompts)" "$(pty_prompts)" 2
check "[P2] (b) both commands ran" ran b
check "[P2] (b) warrant's sudo -k removed the ticket sudo -v left: none after the batch" pty_no_ticket
sr_gate b2 <<EOF
{"reason":"sudo-rs (b2): during","commands":[
  {"id":"hold","argv":["$OPT/bin/hold"],"why":"runs until let go"}]}
EOF
GB2=$G
sr_answer right b2 "$GB2" --run -j
is "(b) a detached batch: answer exits 0 once the runner is started" "$ANS_RC" 0
i=0
while [ ! -e "$OPT/held" ] && [ "$i" -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
check "(b) the ROOT command is running" [ -e "$OPT/held" ]
if reviewer_has_ticket; then not_ok "[P2] (b) while it runs the reviewer has no ticket (fresh pty, no tty)"
else ok "[P2] (b) while it runs the reviewer has no ticket (fresh pty, no tty)"; fi
check "(b) ... and it was still running then" [ ! -e "$OPT/done" ]
touch "$OPT/go"
i=0
while [ ! -e "$OPT/done" ] && [ "$i" -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
check "(b) it ends once let go" [ -e "$OPT/done" ]

# ============================================================ (c) passwd_timeout
section "(c) passwd_timeout is unknown to sudo-rs: no prompt timeout"
dropin "Defaults:$SR_USER passwd_timeout=0.05"
/usr/bin/sudo -n -l -U "$SR_USER" >"$SR_DIR/c.l" 2>&1
check "(c) sudo-rs says so: unknown setting 'passwd_timeout'" grep -q "unknown setting: 'passwd_timeout'" "$SR_DIR/c.l"
touch_gate c
GC=$G
sr_answer cancel c "$GC" --run --no-detach -j
is "[P3] (c) the prompt waits until Ctrl-C: cancelled, exit 2" "$ANS_RC" 2
jcheck "[P3] (c) outcome cancellation, status pending" \
    "j['status'] == 'pending' and j['outcome'] == 'cancellation'" "$ANS"
check "[P3] (c) nothing ran" none_ran c
check "[P2] (c) no ticket" no_ticket_anywhere
rm -f "$DROPIN"

# ============================================================ (d) !authenticate
section "(d) !authenticate is refused by sudo-rs: the password is still asked"
dropin "Defaults:$SR_USER !authenticate"
touch_gate d
GD=$G
sr_answer right d "$GD" --run --no-detach -j
is "(d) answer exits 0" "$ANS_RC" 0
is "[P2] (d) one prompt: the runner's invocation is authenticated anyway" "$(pty_prompts)" 1
check "(d) sudo-rs said it does not take the setting" grep -q "'authenticate' cannot be used" "$ANS"
check "(d) both commands ran" ran d
rm -f "$DROPIN"

# ============================================================ (e) exit codes
section "(e) exit codes: a wrong password (1), Ctrl-C at the prompt"
touch_gate e
GE=$G
sr_answer wrong e "$GE" --run --no-detach -j
is "[P3] (e) wrong password: exit 2" "$ANS_RC" 2
jcheck "[P3] (e) ... authentication_failed, pending" \
    "j['status'] == 'pending' and j['outcome'] == 'authentication_failed'" "$ANS"
check "[P3] (e) ... nothing ran" none_ran e
sr_answer cancel e2 "$GE" --run --no-detach -j
is "[P3] (e) Ctrl-C: exit 2" "$ANS_RC" 2
jcheck "[P3] (e) ... cancellation, pending" \
    "j['status'] == 'pending' and j['outcome'] == 'cancellation'" "$ANS"
check "[P3] (e) ... nothing ran" none_ran e
sr_answer right e3 "$GE" --run --no-detach -j
check "(e) the gate is answered afterwards" ran e

# ============================================================ (f) the policy question
section "(f) the runner asks sudo-rs's policy: a forbidden command is refused"
dropin "$SR_USER ALL=(ALL:ALL) ALL, !/usr/bin/touch"
touch_gate f
GF=$G
sr_answer right f "$GF" --run --no-detach -j
jcheck "[P1] (f) the runner refuses the ROOT command: sudoers does not allow touch for the reviewer" \
    "entry(j, 'r')['status'] == 'refused' and 'sudoers does not allow' in entry(j, 'r')['error']" "$ANS"
jcheck "[P1] (f) ... and skips the rest" "entry(j, 'u')['status'] == 'skipped'" "$ANS"
check "[P1] (f) nothing ran, not even the YOU command" none_ran f
rm -f "$DROPIN"

done_testing
