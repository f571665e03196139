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
	rm -f "/etc/sudoers.d/warrant-passkey-$REV"
	sr_two_person_done
	[ -n "${TPG:-}" ] && groupdel "$TPG" 2>/dev/null
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
sr_soft_passkey "$PK" "$REV"
mode() { printf '%s\n' "$1" >"$PK/mode"; }
SR_EXTRA_ENV="WARRANT_TEST_AUTHENTICATOR=$PK/pk-auth.py"

DROPIN=/etc/sudoers.d/warrant-passkey-$REV
STAGED=$SR_STATE/passkey-new.json

# passkey_add NAME STAGE [OPTION...]: `sudo -k warrant passkey add` typed
# by the reviewer in a pty (the real sudo prompt), in the background; once
# its one-time code shows in the transcript, the command STAGE is run with
# the code (it stages a passkey, as the page does); then the end of it.
# Sets PA_RC, PA_LOG, CODE.
passkey_add() {
	pa_name=$1 pa_stage=$2
	shift 2
	PA_LOG=$SR_DIR/$pa_name.log
	rm -f "$STAGED"
	pty_rv right "$pa_name" 120 /usr/bin/sudo -k "$W" passkey add --reviewer "$REV" \
	    --state "$SR_STATE" "$@" &
	pa_pid=$!
	CODE= pa_i=0
	while [ -z "$CODE" ] && [ "$pa_i" -lt 600 ] && kill -0 "$pa_pid" 2>/dev/null; do
		CODE=$(grep -o '^ *[0-9A-Z]\{4\}-[0-9A-Z]\{4\}' "$PA_LOG" 2>/dev/null | tr -d ' ' | head -1)
		[ -n "$CODE" ] || sleep 0.1
		pa_i=$((pa_i + 1))
	done
	[ -z "$CODE" ] || "$pa_stage" "$CODE"
	wait "$pa_pid"
	PA_RC=$?
	PTY_LOG=$PA_LOG
	PTY_TICKET=$(sed -n "s/.*WT-TICKET=\([0-9]*\).*/\1/p" "$PA_LOG" | tail -1)
}
# stage_soft CODE [wrong=WHAT]: the software passkey's registration for
# CODE, staged in the reviewer's state as the page stages it
stage_soft() {
	"$PY" "$PK/pk-auth.py" register "$1" "$REV" "$RP" "$ORIGIN" ${2:+"$2"} >"$SR_DIR/staged" &&
	    install -m 0600 -o "$REV" -g "$SR_GID" "$SR_DIR/staged" "$STAGED"
}
stage_wrongcode() { stage_soft "$1" wrong=othercode; }
stage_nouv() { stage_soft "$1" wrong=nouv; }
stage_otherkey() { stage_soft "$1" wrong=otherkey; }
stage_ip() { "$PY" "$PK/pk-auth.py" register "$1" "$REV" 127.0.0.1 http://127.0.0.1:8722 \
    >"$SR_DIR/staged" && install -m 0600 -o "$REV" -g "$SR_GID" "$SR_DIR/staged" "$STAGED"; }
# a link to a registration that would be adopted: the link is not followed
stage_link() {
	"$PY" "$PK/pk-auth.py" register "$1" "$REV" "$RP" "$ORIGIN" >"$SR_DIR/staged-good" &&
	    chown "$REV" "$SR_DIR/staged-good" && ln -sf "$SR_DIR/staged-good" "$STAGED"
}

# enrol [count=N]: the record root keeps, rewritten by the test to reset
# the software passkey's sign count (after `passkey add` wrote it).
enrol() {
	"$PY" "$PK/pk-auth.py" record "$REV" "$RP" "$ORIGIN" "${1:-count=0}" >"$PKDIR/$REV.json" ||
	    return 1
	cp "$PKDIR/$REV.json" "$PK/record.json"
	chown root:root "$PKDIR/$REV.json" && chmod 0644 "$PKDIR/$REV.json"
}

# -------------------------------------------------------------- enrolment
section "enrolment: sudo warrant passkey add, with the code it prints"
rm -f "$DROPIN"
sr_as "$SR_USER2" "$W" passkey add --reviewer "$REV" --wait 1 >"$SR_DIR/agent-add" 2>&1
AG_RC=$?
check "(agent) passkey add by a user who is not root: not_root, exit 2" \
    eval '[ "$AG_RC" -eq 2 ] && grep -q not_root "$SR_DIR/agent-add"'
passkey_add add-wrongcode stage_wrongcode --wait 3
check "(wrongcode) a registration for another code is passed over, then the wait ends" \
    eval 'grep -q "does not answer this enrolment" "$PA_LOG" && grep -q passkey_enrol_timeout "$PA_LOG"'
check "(wrongcode) exit 2, nothing written" eval '[ "$PA_RC" -eq 2 ] && [ ! -e "$PKDIR/$REV.json" ] && [ ! -e "$DROPIN" ]'
passkey_add add-nouv stage_nouv --wait 3
check "(nouv) a registration without user verification is passed over" \
    eval 'grep -q "without the user present and verified" "$PA_LOG" && [ ! -e "$PKDIR/$REV.json" ]'
passkey_add add-otherkey stage_otherkey --wait 3
check "(otherkey) a public key that is not the authenticator data's is passed over" \
    eval 'grep -q "holds another key than the one given" "$PA_LOG" && [ ! -e "$PKDIR/$REV.json" ]'
passkey_add add-link stage_link --wait 3
check "(link) a staged file that is a symbolic link is not read" \
    eval 'grep -q passkey_enrol_timeout "$PA_LOG" && [ ! -e "$PKDIR/$REV.json" ]'
passkey_add add-ip stage_ip --wait 20
check "(ip) an RP ID that is an address: passkey_rp_not_name, with how to get a name" \
    eval 'grep -q passkey_rp_not_name "$PA_LOG" && grep -q "http://localhost:PORT" "$PA_LOG"'
check "(ip) nothing written" eval '[ ! -e "$PKDIR/$REV.json" ] && [ ! -e "$DROPIN" ]'
passkey_add add stage_soft
check "(add) the right registration is adopted: exit 0" [ "$PA_RC" -eq 0 ]
check "(add) the real sudo asked for the password once" [ "$(pty_prompts)" = 1 ]
check "(add) the record is root's, 0644" [ "$(stat -c '%U %a' "$PKDIR/$REV.json")" = "root 644" ]
jcheck "(add) it holds the RP ID, the origin and the software passkey's key" \
    "j['rp_id'] == '$RP' and j['origin'] == '$ORIGIN' and j['reviewer'] == '$REV' and j['public_key'] == '$("$PY" "$PK/pk-auth.py" record x y z | jscan 'j["public_key"]')'" \
    "$PKDIR/$REV.json"
check "(add) the sudoers drop-in is root's, 0440" [ "$(stat -c '%U %a' "$DROPIN")" = "root 440" ]
check "(add) it lets the reviewer start only the runner's passkey mode without a password" \
    grep -qx "$REV ALL=(root) NOPASSWD: $SR_RUNNER passkey \\*" "$DROPIN"
check "(add) visudo accepts it" visudo -c -q -f "$DROPIN"
check "(add) no sudo ticket is left" no_ticket_anywhere
sr_as "$SR_USER2" "$W" passkey list -j >"$SR_DIR/list.json" 2>/dev/null
jcheck "(list) anyone may list: the reviewer, the RP ID, the drop-in in place" \
    "[x['reviewer'] for x in j] == ['$REV'] and j[0]['rp_id'] == '$RP' and j[0]['sudoers']" \
    "$SR_DIR/list.json"
cp "$PKDIR/$REV.json" "$PK/record.json"

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
check "(good) sudo asked for no password (the passkey is the approval)" \
    [ "$(pty_prompts)" = 0 ]
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
# without the test hook answer asks libfido2 for a security key on this
# computer: a test machine has none plugged in (where one is, this check
# says so rather than passes)
gate nohook
SR_EXTRA_ENV= sr_answer none nohook "$G" --run --passkey
check "(nohook) no test hook, no security key plugged in (libfido2): passkey_no_authenticator, no prompt" \
    eval 'grep -q passkey_no_authenticator "$ANS" && grep -q "no security key is plugged in" "$ANS" && [ "$(pty_prompts)" = 0 ]'
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
check "(nofile) and sudo asked no password: the drop-in's rule" [ "$(pty_prompts)" = 0 ]
# the drop-in lets the reviewer start the runner's passkey mode, and that
# is all: no assertion, nothing runs; the agent's user has no such rule
sr_as "$REV" /usr/bin/sudo -n -- "$SR_RUNNER" passkey --manifest "$DIR/manifest.json" \
    --expected-sha256 "$SHA" </dev/null >"$SR_DIR/nopass" 2>&1
check "(nopass) a passwordless start with no assertion runs nothing" \
    eval 'not_ran direct && grep -q "refusing (passkey_refused)" "$SR_DIR/nopass"'
sr_as "$REV" /usr/bin/sudo -n -- "$SR_RUNNER" --manifest "$DIR/manifest.json" \
    --expected-sha256 "$SHA" </dev/null >"$SR_DIR/nopass2" 2>&1
check "(nopass) the normal mode still needs the password (sudo -n refuses)" \
    eval 'not_ran direct && grep -q "password is required" "$SR_DIR/nopass2"'
sr_as "$SR_USER2" /usr/bin/sudo -n -- "$SR_RUNNER" passkey --manifest "$DIR/manifest.json" \
    --expected-sha256 "$SHA" </dev/null >"$SR_DIR/agentrule" 2>&1
check "(agent) the agent's user cannot use the reviewer's rule" \
    eval 'not_ran direct && ! grep -q refusing "$SR_DIR/agentrule"'
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

section "the two-person rule: a passkey is one reviewer's approval, never two"
# a policy of two approvals for ROOT: the reviewer's passkey alone, even a
# valid assertion, is not the other reviewer's review
TPG=wt-pkrev-$TAG
groupadd "$TPG" && usermod -aG "$TPG" "$REV" && usermod -aG "$TPG" "$SR_USER2" ||
    bail "the reviewers group $TPG"
sr_two_person "$TPG"
enrol count=0
runner twoperson count=0
check "(twoperson) a valid assertion without the other review runs nothing: reviews_missing" \
    eval 'not_ran direct && [ "$PTY_RC" -eq 5 ]'
gate tp
mode ""
sr_answer none tp "$G" --run --no-detach --passkey
check "(twoperson) answer --passkey says so before asking the authenticator" \
    eval 'grep -q reviews_missing "$ANS" && not_ran tp && sr_state_is "$G" pending'
sr_two_person_done
groupdel "$TPG"

section "the mode is argv[1] and nothing else"
pty_rv right stray 60 /usr/bin/sudo -k -- "$SR_RUNNER" \
    --manifest "$DIR2/manifest.json" --expected-sha256 "$SHA" passkey
check "(stray) the normal mode refuses a stray 'passkey' argument" \
    eval 'grep -q "usage: warrant-runner" "$PTY_LOG" && not_ran direct'

section "passkey remove: the record and the drop-in go"
pty_rv right remove 60 /usr/bin/sudo -k "$W" passkey remove --reviewer "$REV"
check "(remove) exit 0, the record and the drop-in are gone" \
    eval '[ "$PTY_RC" -eq 0 ] && [ ! -e "$PKDIR/$REV.json" ] && [ ! -e "$DROPIN" ]'
pty_rv right remove-again 60 /usr/bin/sudo -k "$W" passkey remove --reviewer "$REV"
check "(remove) again: passkey_not_enrolled, exit 2" \
    eval '[ "$PTY_RC" -eq 2 ] && grep -q passkey_not_enrolled "$PTY_LOG"'
answer removed ""
check "(removed) answer --passkey: passkey_not_enrolled, nothing ran" \
    eval 'grep -q passkey_not_enrolled "$ANS" && not_ran removed'


# ------------------------------------------------------------ the page
section "the page: enrol in Chromium, approve ROOT with the passkey at 390x844"
# Debian's headless Chromium with a virtual authenticator (user verified)
# on http://localhost: the page makes the credential with the code root's
# `sudo warrant passkey add` printed, root adopts it, and the page approves
# a ROOT gate; forged assertions (setResponseOverrideBits), another
# gate's assertion and the same one twice run nothing.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null 2>&1; then
	for d in "enrolled from the page" "the ROOT gate ran" "bogus signature refused" \
	    "missing UV refused" "another gate's assertion refused" \
	    "the same assertion twice refused"; do
		skip "$d" "chromium or node is missing (scripts/deps.sh)"
	done
	done_testing
fi
PORT=$(free_port)
LU=http://localhost:$PORT
sr_page "http://127.0.0.1:$PORT" || bail "the reviewer's daemon serves the page"
for g in pa pb pc pd pe; do gate "$g" && eval "G_$g=\$G"; done
LINK=$(sr_as "$REV" "$W" pair --no-qr | grep -o "http://127.0.0.1:$PORT/#token=[A-Za-z0-9_-]*" |
    sed "s|http://127.0.0.1:|http://localhost:|")
[ -n "$LINK" ] || bail "a pairing link"
SHOTS=$WARRANT_BUILD/test-passkey-shots
rm -rf "$SHOTS"
mkdir -p "$SHOTS"
card() { printf 'article[data-gate=\\"%s\\"]' "$1"; }
STEADY="document.getElementById('pending').dataset.steady !== '0'"
# relay_js FROM TO: the page's script that gets FROM's assertion, hands it
# to TO's ceremony (which replaces FROM's: one approval at a time), then
# starts FROM again and hands it the old assertion (a replay: the
# challenge has a new nonce), then the new one twice
relay_js() {
	cat <<JS
(async () => {
  const start = async id => { const g = await api("GET", "/api/gates/" + id);
    return api("POST", "/api/gates/" + id + "/passkey", { manifest_sha256: g.body.manifest_sha256, commands: ["t"] }); };
  const s1 = await start("$1");
  const a = await navigator.credentials.get({ publicKey: { challenge: unb64url(s1.body.challenge),
    rpId: s1.body.rp_id, userVerification: "required",
    allowCredentials: [{ type: "public-key", id: unb64url(s1.body.credential_id) }] } });
  const body = c => ({ ceremony: c, authenticator_data: b64url(a.response.authenticatorData),
    client_data_json: b64url(a.response.clientDataJSON), signature: b64url(a.response.signature) });
  const s2 = await start("$2");
  const other = await api("POST", "/api/gates/$2/passkey/assertion", body(s2.body.ceremony));
  const s3 = await start("$1");
  const replay = await api("POST", "/api/gates/$1/passkey/assertion", body(s3.body.ceremony));
  const s4 = await start("$1");
  const a4 = await navigator.credentials.get({ publicKey: { challenge: unb64url(s4.body.challenge),
    rpId: s4.body.rp_id, userVerification: "required",
    allowCredentials: [{ type: "public-key", id: unb64url(s4.body.credential_id) }] } });
  const body4 = { ceremony: s4.body.ceremony, authenticator_data: b64url(a4.response.authenticatorData),
    client_data_json: b64url(a4.response.clientDataJSON), signature: b64url(a4.response.signature) };
  const own = await api("POST", "/api/gates/$1/passkey/assertion", body4);
  const again = await api("POST", "/api/gates/$1/passkey/assertion", body4);
  return JSON.stringify({ start2: [s2.status, JSON.stringify(s2.body)],
    other: [other.status, JSON.stringify(other.body)],
    replay: [replay.status, JSON.stringify(replay.body)], own: own.status,
    again: [again.status, again.body && again.body.error && again.body.error.code] });
})()
JS
}
RELAY=$(relay_js "$G_pd" "$G_pe" | "$PY" -c 'import json, sys; print(json.dumps(sys.stdin.read()))')
# stage_page CODE: the page makes and stages the passkey with CODE, then
# goes on, in the background, to approve (Chromium keeps its virtual
# authenticator only while it runs)
stage_page() {
	sp_code=$(printf %s "$1" | tr 'A-Z' 'a-z')
	cat >"$SR_DIR/page.json" <<STEPS
[{"open": "$LINK"},
 {"wait": "document.getElementById('conn').textContent.startsWith('device')", "ms": 15000},
 {"cdp": "WebAuthn.enable", "params": {}},
 {"cdp": "WebAuthn.addVirtualAuthenticator", "params": {"options": {"protocol": "ctap2",
   "transport": "internal", "hasResidentKey": true, "hasUserVerification": true,
   "isUserVerified": true, "automaticPresenceSimulation": true}}},
 {"eval": "document.getElementById('passkey').open = true, document.querySelectorAll('button.passkey').length"},
 {"type": ["#pk-code", "$sp_code"]},
 {"click": "#pk-add"},
 {"wait": "document.getElementById('pk-status').textContent.startsWith('Made')", "ms": 20000},
 {"wait": "loadPasskey().then(() => passkeyHere())", "ms": 30000},
 {"eval": "load().then(() => document.getElementById('pk-state').textContent)"},
 {"wait": "document.querySelector('$(card "$G_pa") button.passkey')"},
 {"shot": "$SHOTS/passkey-390x844.png"},
 {"click": "$(card "$G_pa") button.passkey", "when": "$STEADY"},
 {"eval": "document.querySelector('$(card "$G_pa") button.passkey').textContent"},
 {"click": "$(card "$G_pa") button.passkey", "when": "$STEADY"},
 {"wait": "(document.querySelector('#recent $(card "$G_pa") .result.last') || {textContent: ''}).textContent.includes('approved with the passkey')", "ms": 45000},
 {"shot": "$SHOTS/passkey-ran-390x844.png"},
 {"cdp": "WebAuthn.setResponseOverrideBits", "params": {"authenticatorId": "@authenticatorId", "isBogusSignature": true}},
 {"click": "$(card "$G_pb") button.passkey", "when": "$STEADY"},
 {"click": "$(card "$G_pb") button.passkey", "when": "$STEADY"},
 {"wait": "(document.querySelector('$(card "$G_pb") .result.last') || {textContent: ''}).textContent.startsWith('Not approved')", "ms": 45000},
 {"eval": "document.querySelector('$(card "$G_pb") .result.last').textContent"},
 {"cdp": "WebAuthn.setResponseOverrideBits", "params": {"authenticatorId": "@authenticatorId", "isBadUV": true}},
 {"click": "$(card "$G_pc") button.passkey", "when": "$STEADY"},
 {"click": "$(card "$G_pc") button.passkey", "when": "$STEADY"},
 {"wait": "(document.querySelector('$(card "$G_pc") .result.last') || {textContent: ''}).textContent.startsWith('Not approved')", "ms": 45000},
 {"eval": "document.querySelector('$(card "$G_pc") .result.last').textContent"},
 {"cdp": "WebAuthn.setResponseOverrideBits", "params": {"authenticatorId": "@authenticatorId"}},
 {"eval": $RELAY}]
STEPS
	CDP_LIMIT_MS=240000 node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome" \
	    "$SR_DIR/page.json" >"$SR_DIR/page.out" 2>"$SR_DIR/page.err" &
	CDP_PID=$!
}
CDP_PID=
passkey_add add-page stage_page --wait 120
[ -z "$CDP_PID" ] || wait "$CDP_PID"
step() { sed -n "${1}p" "$SR_DIR/page.out" | jscan "$2" >/dev/null 2>&1; }
check "enrolled from the page: passkey add adopted the page's credential" [ "$PA_RC" -eq 0 ]
jcheck "(page) the record: RP ID localhost, origin $LU" \
    "j['rp_id'] == 'localhost' and j['origin'] == '$LU'" "$PKDIR/$REV.json"
check "(page) before enrolment no card offered the passkey" step 5 "j['value'] == 0"
check "(page) the page says the passkey is enrolled for it" \
    step 10 "'enrolled for this page' in j['value']"
check "(page) the first tap asks again, naming the gate" \
    step 14 "j['value'].startswith('Run 1 command of $G_pa from ') and j['value'].endswith('tap again')"
check "the ROOT gate ran: approved from the page with the passkey" \
    eval 'step 16 "j[\"ok\"]" && ran pa && sr_state_is "$G_pa" approved'
sr_as "$REV" "$W" show "$G_pa" -j >"$SR_DIR/pa.show" 2>/dev/null
jcheck "(page) its ledger says approved_with passkey" "j['ledger']['approved_with'] == 'passkey'" \
    "$SR_DIR/pa.show"
check "(page) a screenshot at 390x844" [ -s "$SHOTS/passkey-390x844.png" ]
check "bogus signature refused: nothing ran, pending" \
    eval 'step 22 "\"signature does not verify\" in j[\"value\"]" && not_ran pb && sr_state_is "$G_pb" pending'
check "missing UV refused: nothing ran, pending" \
    eval 'step 27 "\"(UV)\" in j[\"value\"]" && not_ran pc && sr_state_is "$G_pc" pending'
sed -n 29p "$SR_DIR/page.out" | jscan 'j["value"]' >"$SR_DIR/relay.json" 2>/dev/null
jcheck "another gate's assertion refused: the runner names the challenge" \
    "j['other'][0] == 409 and 'not this approval' in j['other'][1]" "$SR_DIR/relay.json"
check "(page) and that gate's command did not run, it stays pending" \
    eval 'not_ran pe && sr_state_is "$G_pe" pending'
jcheck "(page) an old assertion handed to a new ceremony of its gate is refused (new nonce)" \
    "j['replay'][0] == 409 and 'not this approval' in j['replay'][1]" "$SR_DIR/relay.json"
jcheck "(page) a fresh assertion in its own gate's ceremony runs" "j['own'] == 200" "$SR_DIR/relay.json"
check "(page) its command ran" ran pd
jcheck "the same assertion twice refused: its ceremony is spent" \
    "j['again'] == [409, 'passkey_no_ceremony']" "$SR_DIR/relay.json"
if [ "$fails" -ne 0 ]; then diag "$(tail -c 2000 "$SR_DIR/page.out"; tail -c 1000 "$SR_DIR/page.err")"; fi
kill "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null

done_testing
