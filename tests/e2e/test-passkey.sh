#!/bin/sh
# SPDX-License-Identifier: ISC
# Passkey approval of ROOT, first slice (docs/passkeys.md), end to end: the
# reviewer wt-reviewer (a canary password, group sudo), the real sudo
# prompt through a pty, `warrant answer ID --run --passkey` with a software
# authenticator (tests/e2e/pk-auth.py: a P-256 key, signed with the openssl
# CLI; the build's test hook WARRANT_TEST_AUTHENTICATOR runs it), and
# warrant-runner in passkey mode checking the assertion as root. Then the
# runner alone (`sudo -k -- RUNNER passkey ...`) on a run directory the
# answer left, with a passkey.json the test forges field by field.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-passkey.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the passkey tests create users and run the real sudo as root"
sr_need || bail "the programs the real-sudo tests drive are installed"
command -v openssl >/dev/null 2>&1 || bail "openssl signs the software passkey's assertions"

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-passkey-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
REV=$SR_USER
MARK=/root/wt-pk-$TAG
RP=warrant.test
ORIGIN=https://warrant.test

cleanup() {
	[ -n "${PKDIR:-}" ] && rm -rf "$PKDIR"
	rm -f "$MARK".*
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

sr_user_setup || bail "the reviewer users are set up"
sr_install || bail "warrant is installed in its private prefix"
W=$SR_WARRANT
PKDIR=$(build_config WARRANT_PASSKEY_DIR)
case $PKDIR in
"$SR_PREFIX"/*) ;;
*)
	PKDIR=
	bail "the build's passkey directory is in its prefix (make check: -Dpasskey_dir)"
	;;
esac

# ------------------------------------------------------------ the passkey
# The software authenticator's own directory: the reviewer's (it keeps its
# sign count there), the key readable by it.
PK=$SR_DIR/pk
install -d -m 0755 -o "$REV" -g "$SR_GID" "$PK"
install -m 0755 "$WARRANT_TOP/tests/e2e/pk-auth.py" "$PK/pk-auth.py"
openssl ecparam -name prime256v1 -genkey -noout -out "$PK/key.pem" 2>/dev/null ||
    bail "a P-256 key is made"
chown -R "$REV" "$PK"
mode() { printf '%s\n' "$1" >"$PK/mode"; }
SR_EXTRA_ENV="WARRANT_TEST_AUTHENTICATOR=$PK/pk-auth.py"

# enrol [count=N] [reviewer=NAME]: the record root keeps, written by the
# test itself: this stands in for `sudo warrant passkey add`, not built yet.
enrol() {
	install -d -m 0755 -o root -g root "$(dirname "$PKDIR")" "$PKDIR"
	"$PY" "$PK/pk-auth.py" record "${2:-$REV}" "$RP" "$ORIGIN" "${1:-count=0}" \
	    >"$PKDIR/$REV.json" || return 1
	cp "$PKDIR/$REV.json" "$PK/record.json"
	chown root:root "$PKDIR/$REV.json" && chmod 0644 "$PKDIR/$REV.json"
}
enrol || bail "the reviewer's passkey is enrolled"

# gate NAME: a gate of one ROOT command (touch MARK.NAME); its id in G.
gate() {
	printf '{"reason":"passkey %s","commands":[{"id":"t","argv":["/usr/bin/touch","%s"],"why":"test"}]}\n' \
	    "$1" "$MARK.$1" >"$SR_DIR/$1.req"
	sr_gate "$1" <"$SR_DIR/$1.req"
}
ran() { [ -e "$MARK.$1" ]; }
not_ran() { ! ran "$1"; }
# says PHRASE: the last transcript (ANS) names passkey_refused and PHRASE
says() { grep -q 'refusing (passkey_refused)' "$ANS" && grep -qF "$1" "$ANS"; }
# refused NAME WHY: the answer of gate NAME (transcript ANS) ran nothing,
# left the gate pending and the runner named passkey_refused and WHY.
refused() {
	check "($1) nothing ran" not_ran "$1"
	check "($1) the gate stays pending" sr_state_is "$G" pending
	check "($1) the runner refuses: passkey_refused, $2" says "$2"
	says "$2" || diag "$(tail -5 "$ANS" | tr -d '\r')"
}
# answer NAME MODE: gate NAME answered with --passkey, the authenticator
# doing MODE wrong (empty: nothing), the password typed at sudo's prompt.
answer() {
	gate "$1" || return 1
	mode "$2"
	sr_answer right "$1" "$G" --run --no-detach --passkey
}

# ---------------------------------------------------------------- good
section "a good assertion: the ROOT command runs, the ledger says passkey"
answer good ""
check "(good) answer exits 0" [ "$ANS_RC" -eq 0 ]
check "(good) the ROOT command ran as root" ran good
check "(good) sudo prompted once (the NOPASSWD rule comes with enrolment)" \
    [ "$(pty_prompts)" = 1 ]
check "(good) the gate is approved" sr_state_is "$G" approved
sr_as "$REV" "$W" show "$G" -j >"$SR_DIR/good.show" 2>/dev/null
jcheck "(good) the stored ledger says approved_with passkey" \
    "j['ledger']['approved_with'] == 'passkey'" "$SR_DIR/good.show"
RUN=$(ls -d "$SR_STATE"/runs/"$G".* | head -1)
jcheck "(good) the runner's ledger says approved_with passkey" \
    "j['approved_with'] == 'passkey'" "$RUN/ledger.json"
check "(good) passkey.json is the reviewer's, mode 0600" \
    [ "$(stat -c '%U %a' "$RUN/passkey.json")" = "$REV 600" ]
check "(good) the root log's line says approved_with passkey" \
    grep -q "\"request_id\":\"$G\".*\"approved_with\":\"passkey\"" /var/log/warrant.log
jcheck "(good) root kept the new sign count" "j['sign_count'] == 1" "$PKDIR/$REV.json"
check "(good) root spent the nonce in $PKDIR/used (0700)" \
    [ "$(stat -c '%U %a' "$PKDIR/used")" = "root 700" ]
check "(good) no sudo ticket is left" no_ticket_anywhere

section "a detached run: the finalizer carries approved_with too"
gate detached && mode "" && sr_answer right detached "$G" --run --passkey
i=0
while [ "$(sr_state "$G")" != approved ] && [ "$i" -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
check "(detached) the ROOT command ran" ran detached
sr_as "$REV" "$W" show "$G" -j >"$SR_DIR/detached.show" 2>/dev/null
jcheck "(detached) the stored ledger says approved_with passkey" \
    "j['ledger']['approved_with'] == 'passkey'" "$SR_DIR/detached.show"

# ------------------------------------------------------------ refusals
section "forged or wrong assertions: nothing runs, the gate stays pending"
answer badsig badsig
refused badsig "the signature does not verify"
answer nouv nouv
refused nouv "the authenticator did not verify the user (UV)"
answer noup noup
refused noup "the authenticator saw no user presence (UP)"
answer origin wrongorigin
refused origin "the origin is not the enrolled one"
answer rpid wrongrp
refused rpid "the assertion is for another RP ID"
# an assertion over another gate's challenge: one gate's request saved
# (its authenticator then fails), the next gate signed with it
answer saved "save fail"
check "(saved) an authenticator that fails: passkey_authenticator_failed, no prompt" \
    eval 'grep -q passkey_authenticator_failed "$ANS" && [ "$(pty_prompts)" = 0 ]'
answer othergate otherchallenge
refused othergate "the challenge is not this approval's"
# the same assertion twice: the good one saved, handed back to the next
answer first save
check "(first) the saved assertion was good: it ran" ran first
answer replay replay
refused replay "this approval's"

section "no record, or a record that is not root's: refused before sudo"
mv "$PKDIR/$REV.json" "$SR_DIR/record.away"
answer norecord ""
check "(norecord) answer refuses with passkey_not_enrolled" grep -q passkey_not_enrolled "$ANS"
check "(norecord) no sudo prompt" [ "$(pty_prompts)" = 0 ]
check "(norecord) nothing ran, the gate stays pending" \
    eval 'not_ran norecord && sr_state_is "$G" pending'
mv "$SR_DIR/record.away" "$PKDIR/$REV.json"
chown "$REV" "$PKDIR/$REV.json"
answer notroots ""
check "(notroots) a record of the reviewer's own: passkey_not_enrolled" \
    grep -q passkey_not_enrolled "$ANS"
check "(notroots) nothing ran" not_ran notroots
chown root "$PKDIR/$REV.json"

section "what answer refuses by itself"
printf '{"reason":"passkey you","commands":[{"id":"y","argv":["/usr/bin/true"],"as":"user","why":"test"}]}\n' \
    >"$SR_DIR/you.req"
sr_gate you <"$SR_DIR/you.req"
sr_answer none you "$G" --run --passkey
check "(you) a batch with no ROOT command: passkey_no_root" grep -q passkey_no_root "$ANS"
check "(you) the gate stays pending" sr_state_is "$G" pending
gate nohook
SR_EXTRA_ENV= sr_answer none nohook "$G" --run --passkey
check "(nohook) no authenticator: passkey_no_authenticator, no prompt" \
    eval 'grep -q passkey_no_authenticator "$ANS" && [ "$(pty_prompts)" = 0 ]'
check "(nohook) nothing ran, the gate stays pending" \
    eval 'not_ran nohook && sr_state_is "$G" pending'

# ------------------------------------------------------ the runner alone
section "the runner alone, on a run directory the answer left"
# a run directory with its manifest (the authenticator failed: nothing
# started); the test writes passkey.json itself and starts the runner
gate direct
mode fail
sr_answer right direct-prep "$G" --run --no-detach --passkey
DIR=$(ls -d "$SR_STATE"/runs/"$G".* | head -1)
SHA=$(sha256sum "$DIR/manifest.json" | cut -d' ' -f1)
mode ""
# runner NAME [forge options]: passkey.json forged into DIR (none when the
# first option is "none"), then `sudo -k -- RUNNER passkey ...` in a pty
runner() {
	rn=$1
	shift
	rm -f "$DIR/passkey.json"
	if [ "${1:-}" != none ]; then
		sr_as "$REV" "$PY" "$PK/pk-auth.py" forge "$DIR" "$@" >"$SR_DIR/$rn.pk" || return 1
		install -m 0600 -o "$REV" -g "$SR_GID" "$SR_DIR/$rn.pk" "$DIR/passkey.json"
	fi
	pty_rv right "$rn" 60 /usr/bin/sudo -k -- "$SR_RUNNER" passkey \
	    --manifest "$DIR/manifest.json" --expected-sha256 "$SHA"
	ANS=$PTY_LOG
}
# direct-refused NAME WHY
direct_refused() {
	check "($1) nothing ran" not_ran direct
	check "($1) the runner refuses: passkey_refused, $2" says "$2"
	says "$2" || diag "$(tail -5 "$ANS" | tr -d '\r')"
}
runner nofile none
direct_refused nofile "cannot open passkey.json"
runner othergate-d gate=w-othergatex
direct_refused othergate-d "the challenge is not this approval's"
runner othersha "sha=$(printf x | sha256sum | cut -d' ' -f1)"
direct_refused othersha "the challenge is not this approval's"
runner expired "expires=$(($(date +%s) - 5))"
direct_refused expired "the approval expired"
runner ahead "expires=$(($(date +%s) + 600))"
direct_refused ahead "the approval's expiry is too far ahead"
mv "$PKDIR/$REV.json" "$SR_DIR/record.away"
runner norecord-d
direct_refused norecord-d "no passkey is enrolled for $REV"
mv "$SR_DIR/record.away" "$PKDIR/$REV.json"
chown "$REV" "$PKDIR/$REV.json"
runner notroots-d
direct_refused notroots-d "must be a regular file of root's"
chown root "$PKDIR/$REV.json"
# the control: the same forging, nothing wrong, runs (so each refusal
# above is its field's); then the very same passkey.json in a copy of the
# run directory is refused: its nonce is spent (a sign count of 0, which
# never moves, so that only the nonce stops it)
enrol count=0
runner control count=0
check "(control) a forged-right passkey.json runs the command" ran direct
cp "$SR_DIR/control.pk" "$SR_DIR/replay.pk"
rm -f "$MARK.direct"
DIR2=$DIR.copy
install -d -m 0700 -o "$REV" -g "$SR_GID" "$DIR2"
install -m 0600 -o "$REV" -g "$SR_GID" "$DIR/manifest.json" "$DIR2/manifest.json"
install -m 0600 -o "$REV" -g "$SR_GID" "$SR_DIR/replay.pk" "$DIR2/passkey.json"
pty_rv right replay-d 60 /usr/bin/sudo -k -- "$SR_RUNNER" passkey \
    --manifest "$DIR2/manifest.json" --expected-sha256 "$SHA"
ANS=$PTY_LOG
direct_refused replay-d "the nonce was already used"

section "the mode is argv[1] and nothing else"
pty_rv right stray 60 /usr/bin/sudo -k -- "$SR_RUNNER" \
    --manifest "$DIR2/manifest.json" --expected-sha256 "$SHA" passkey
check "(stray) the normal mode refuses a stray 'passkey' argument" \
    eval 'grep -q "usage: warrant-runner" "$PTY_LOG" && not_ran direct'

done_testing
