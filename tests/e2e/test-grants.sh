#!/bin/sh
# SPDX-License-Identifier: ISC
# Standing grants of exact YOU commands (docs/grants.md), end to end, as
# root: throwaway users wtgrrev (the reviewer, uid 61211), wtgr1 and wtgr2
# (its requesters, 61212 and 61213), the real `warrant requesters add`, the
# reviewer's daemon on its real socket in /run/warrant/wtgrrev. A grant
# made with `answer --run --grant` lets an identical request of the same
# requester and agent run with no review, its ledger and the audit chain
# naming the grant; any difference (argument, cwd, executable hash, agent,
# output policy, another command in the batch, another requester), expiry
# and revocation leave it for review; what may not be granted is refused
# with its code and nothing stored (input the requester can change: the
# Makefile of `make test` in its project); the quota holds, and runs by
# grants stay within the requester's quota of what they may leave in the
# reviewer's state. Cleans up after itself
# (and before, so it can be re-run after an interrupted run).
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "warrant grants tests need root"
command -v setpriv >/dev/null 2>&1 || bail "setpriv is installed (scripts/deps.sh)"

REV=wtgrrev
DIR=/run/warrant/$REV
USERS="wtgrrev wtgr1 wtgr2"

cleanup() {
	for u in $USERS; do
		userdel "$u" >/dev/null 2>&1
		groupdel "$u" >/dev/null 2>&1
	done
	requesters_teardown "$REV"
	[ -n "${WT_DIR:-}" ] && rm -rf "$WT_DIR"
}
cleanup
at_exit cleanup
setup_bin
export WARRANT_BOX_DIR="$WT_T/box"
useradd -M -d /nonexistent -u 61211 -s /bin/sh "$REV" 2>/dev/null
useradd -M -d /nonexistent -u 61212 -s /bin/sh wtgr1 2>/dev/null
useradd -M -d /nonexistent -u 61213 -s /bin/sh wtgr2 2>/dev/null
for u in $USERS; do
	id "$u" >/dev/null 2>&1 || bail "the test user $u is created"
done
mkdir -p /run/warrant
"$W" requesters add --reviewer "$REV" wtgr1 wtgr2 >/dev/null 2>&1 ||
    bail "warrant requesters add sets up $REV's requesters"

OUT=$WT_T/out ERR=$WT_T/err
SOCK=$DIR/req.sock
DLOG=$WT_T/serve.log
: >"$DLOG"
for u in $USERS; do
	install -d -m 0700 -o "$u" -g "$(id -g "$u")" "$WT_DIR/home-$u"
done
RSTATE=$WT_DIR/home-$REV/state
show() { diag "exit $RC"; diag "$(head -c 600 "$OUT")"; diag "$(head -c 600 "$ERR")"; }
expect_rc() {
	if [ "$RC" -eq "$2" ] && { [ -z "${3:-}" ] || cat "$OUT" "$ERR" | grep -q -- "$3"; }; then
		ok "$1"
	else
		not_ok "$1"
		show
	fi
}
at_exit stop_daemon
start_daemon() {
	setpriv --reuid="$REV" --regid="$(id -g "$REV")" --init-groups env -i \
	    PATH=/usr/bin:/bin LANG=C HOME="$WT_DIR/home-$REV" WARRANT_HOME="$RSTATE" \
	    "$W" serve --rate 1000 --max-pending 1000 2>>"$DLOG" &
	DPID=$!
	_i=0
	until grep -q "answers requesters on $SOCK" "$DLOG" 2>/dev/null; do
		_i=$((_i + 1))
		[ "$_i" -lt 600 ] && kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.05
	done
}
# agent USER ARGS...: warrant ARGS as USER through the daemon; stdin from
# $AGENT_IN; output in $OUT / $ERR, status in RC.
agent() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --init-groups env -i PATH=/usr/bin:/bin \
	    LANG=C HOME="$WT_DIR/home-$_u" WARRANT_SOCKET="$SOCK" timeout -k 5 300 "$W" "$@" \
	    <"${AGENT_IN:-/dev/null}" >"$OUT" 2>"$ERR"
	RC=$?
}
# rev ARGS...: warrant ARGS as the reviewer, on its store; output in $OUT
# / $ERR, status in RC.
rev() {
	setpriv --reuid="$REV" --regid="$(id -g "$REV")" --init-groups env -i PATH=/usr/bin:/bin \
	    LANG=C HOME="$WT_DIR/home-$REV" WARRANT_HOME="$RSTATE" timeout -k 5 300 "$W" "$@" \
	    <"${REV_IN:-/dev/null}" >"$OUT" 2>"$ERR"
	RC=$?
}

# The program the grants are of: a root-owned copy of echo under a name
# no badge rule knows, which root can replace to change its hash.
GBIN=$WT_DIR/gbin
install -d -m 0755 "$GBIN"
install -m 0755 /bin/echo "$GBIN/wtgrecho"
ECHO=$GBIN/wtgrecho
# req FILE CWD OUTPUT WORD...: a request of one YOU command, wtgrecho WORDs in CWD.
req() {
	_f=$1 _cwd=$2 _o=$3
	shift 3
	_args=
	for _w in "$@"; do _args="$_args,\"$_w\""; done
	printf '{"reason":"grants","output_to_agent":"%s","commands":[{"id":"a","as":"user","argv":["%s"%s],"cwd":"%s","why":"w"}]}\n' \
	    "$_o" "$ECHO" "$_args" "$_cwd" >"$_f"
	chmod 644 "$_f"
}
# raw FILE JSON: a request as given.
raw() { printf '%s\n' "$2" >"$1"; chmod 644 "$1"; }
gate_of() { jval "$OUT" 'j["request_id"]'; }
# submit USER FILE [ARGS]: USER's request from FILE through the daemon;
# the gate's id in $G.
submit() {
	_u=$1 _f=$2
	shift 2
	AGENT_IN=$_f agent "$_u" request -j "$@"
	G=$(gate_of)
}
state_of() { rev show "$1" -j; jval "$OUT" 'j["state"]'; }
live_grants() { rev grants -j; jval "$OUT" 'len(j)'; }
# attempts_of GATE: how many "attempt" or "approved" events the chain has
# for GATE (none: nobody ran it).
attempts_of() {
	rev log -j
	jval "$OUT" "len([e for e in j if e['gate_id'] == '$1' and e['kind'] in ('attempt', 'approved')])"
}
# barrier: a request that a live grant covers (the barrier grant, made
# below) runs and settles; every request sent before it was judged by the
# daemon before it (one connection at a time, in order).
barrier() {
	AGENT_IN=$WT_DIR/barrier.json agent wtgr1 request -w -j
	[ "$RC" -eq 0 ] && jscan "entry(j, 'a')['granted_by'] == '$BARRIER_GRANT'" "$OUT" >/dev/null
}
# waits_for_review DESC GATE: GATE is still pending after a barrier, and
# nothing of it was attempted.
waits_for_review() {
	if barrier; then
		is "$1: waits for review" "$(state_of "$2"):$(attempts_of "$2")" "pending:0"
	else
		not_ok "$1: (the barrier request ran by its grant)"
		show
	fi
}

start_daemon || bail "the reviewer's daemon starts (its log: $(tail -c 300 "$DLOG"))"

# --- making a grant -------------------------------------------------------
section "answer --grant"
req "$WT_DIR/r1.json" / tail hello
submit wtgr1 "$WT_DIR/r1.json" -o claude
G1=$G
rev answer "$G1" --run --grant 1h -j
expect_rc "answer --run --grant 1h approves and runs the batch" 0
jcheck "... the answer names one grant g-XXXXXXXXXX of command a" \
    'len(j["grants"]) == 1 and j["grants"][0]["command"] == "a" and bool(__import__("re").fullmatch("g-[a-z2-7]{10}", j["grants"][0]["id"]))' "$OUT"
GR1=$(jval "$OUT" 'j["grants"][0]["id"]')
jcheck "... that expires in an hour" \
    'abs(j["grants"][0]["expires_at"] - __import__("time").time() - 3600) < 600' "$OUT"
rev grants -j
jcheck "grants -j lists it: requester uid, agent, exact argv, cwd, executable hash, output policy" \
    "len(j) == 1 and j[0]['id'] == '$GR1' and j[0]['requester_uid'] == 61212 and j[0]['agent'] == 'claude' and j[0]['argv'] == ['$ECHO', 'hello'] and j[0]['cwd'] == '/' and j[0]['executable_sha256'] == '$(sha256sum "$ECHO" | cut -d' ' -f1)' and j[0]['output_to_agent'] == 'tail' and j[0]['gate_id'] == '$G1'" "$OUT"
rev grants
expect_rc "grants (human) shows the grant and its argv" 0 "$GR1"
grep -q "$ECHO hello" "$OUT" && ok "... with the argv" || { not_ok "... with the argv"; show; }

# --- using it -------------------------------------------------------------
section "an identical request runs by the grant"
AGENT_IN=$WT_DIR/r1.json agent wtgr1 request -w -j -o claude
expect_rc "the identical request from the agent user runs with no review (request -w exits 0)" 0
jcheck "... its ledger names the grant" "entry(j, 'a')['granted_by'] == '$GR1' and entry(j, 'a')['status'] == 'ran'" "$OUT"
jcheck "... and carries the command's output" "'hello' in entry(j, 'a')['output_tail']" "$OUT"
G2=$(jscan 'ledger(j)["request_id"]' "$OUT")
agent wtgr1 wait "$G2"
expect_rc "the agent's wait (human) says which grant ran the command" 0 "== a (user) ran, exit 0, granted by $GR1"
rev show "$G2"
expect_rc "... and so does the reviewer's show" 0 "granted by $GR1"
rev log -j
jcheck "the audit chain names the grant's making and its use by that gate" \
    "any(e['kind'] == 'grant' and e['detail']['grant'] == '$GR1' and e['detail']['gate'] == '$G1' for e in j) and any(e['kind'] == 'grant_used' and e['detail']['grant'] == '$GR1' and e['detail']['gate'] == '$G2' for e in j) and any(e['kind'] == 'approved' and e['gate_id'] == '$G2' for e in j)" "$OUT"
rev log
expect_rc "log (human) names the grant of its use" 0 "grant_used.*grant $GR1  gate $G2"
rev log --verify
expect_rc "the audit chain verifies" 0 "audit chain intact"

# The barrier: a second grant, of another command, for the rest.
req "$WT_DIR/barrier.json" / tail barrier
submit wtgr1 "$WT_DIR/barrier.json"
rev answer "$G" --run --grant 24h -j
expect_rc "a grant of 24h is accepted" 0
BARRIER_GRANT=$(jval "$OUT" 'j["grants"][0]["id"]')
barrier && ok "a request of the barrier command runs by its grant" || { not_ok "the barrier runs"; show; }

# --- the lease of another approval ----------------------------------------------
section "a granted run waits for another approval's lease"
# A real approval holds the reviewer's lease: a YOU command that waits on
# a lock this test holds, approved with --no-detach. A request the grant
# covers comes meanwhile: its run must wait for the lease (it holds the
# lease file open) and run once the lease is free, not give up.
HOLD=$WT_DIR/hold
: >"$HOLD" && chmod 644 "$HOLD"
flock "$HOLD" sleep 600 &
HOLDER=$!
# the lock goes with its sleep (which holds it too) and flock itself
release_hold() { pkill -P "$HOLDER" 2>/dev/null; kill "$HOLDER" 2>/dev/null; }
at_exit release_hold
raw "$WT_DIR/h.json" "{\"reason\":\"holds the lease\",\"commands\":[{\"id\":\"h\",\"as\":\"user\",\"argv\":[\"/usr/bin/flock\",\"$HOLD\",\"/usr/bin/true\"],\"cwd\":\"/\",\"why\":\"w\"}]}"
submit wtgr1 "$WT_DIR/h.json"
GH=$G
(
	OUT=$WT_T/hold.out ERR=$WT_T/hold.err
	rev answer "$GH" --run --no-detach -j
	echo "$RC" >"$WT_T/hold.rc"
) &
HANSWER=$!
check "the holding approval's command runs" \
    wait_for '[ -n "$(running_pids "flock $HOLD /usr/bin/true")" ]' 60
# lease_waiter GATE: the granted run of GATE is alive with the lease file open
lease_waiter() {
	for _p in $(running_pids "answer $1 --run --you-only --granted"); do
		ls -l "/proc/$_p/fd" 2>/dev/null | grep -q '/auth\.lease$' && return 0
	done
	return 1
}
AGENT_IN=$WT_DIR/r1.json agent wtgr1 request -j -o claude
GW=$(gate_of)
check "a granted request meanwhile: its run waits, the lease file open" wait_for 'lease_waiter "$GW"' 60
is "... and the gate is pending while it waits" "$(state_of "$GW")" pending
release_hold
wait "$HANSWER"
is "the holding approval completes once its command may go on" "$(cat "$WT_T/hold.rc" 2>/dev/null)" 0
agent wtgr1 wait "$GW" -t 60 -j
expect_rc "then the granted request runs (its wait exits 0)" 0
jcheck "... by its grant" "entry(j, 'a')['granted_by'] == '$GR1' and entry(j, 'a')['status'] == 'ran'" "$OUT"

# --- every difference waits for review --------------------------------------
section "requests that differ wait for review"
req "$WT_DIR/v.json" / tail hello again
submit wtgr1 "$WT_DIR/v.json" -o claude
waits_for_review "one more argument" "$G"
req "$WT_DIR/v.json" /tmp tail hello
submit wtgr1 "$WT_DIR/v.json" -o claude
waits_for_review "another cwd" "$G"
req "$WT_DIR/v.json" / full hello
submit wtgr1 "$WT_DIR/v.json" -o claude
waits_for_review "another output policy" "$G"
submit wtgr1 "$WT_DIR/r1.json" -o other
waits_for_review "another agent label" "$G"
submit wtgr1 "$WT_DIR/r1.json"
waits_for_review "no agent label" "$G"
submit wtgr2 "$WT_DIR/r1.json" -o claude
waits_for_review "another requester uid" "$G"
raw "$WT_DIR/v.json" "{\"reason\":\"mixed\",\"commands\":[{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"$ECHO\",\"hello\"],\"cwd\":\"/\",\"why\":\"w\"},{\"id\":\"b\",\"as\":\"user\",\"argv\":[\"/usr/bin/true\"],\"cwd\":\"/\",\"why\":\"w\"}]}"
submit wtgr1 "$WT_DIR/v.json" -o claude
waits_for_review "a granted command mixed with another" "$G"
# the binary replaced (same path, another hash), then put back
install -m 0755 /usr/bin/printf "$ECHO.new" && mv "$ECHO.new" "$ECHO"
submit wtgr1 "$WT_DIR/r1.json" -o claude
MIXED_HASH=$G
install -m 0755 /bin/echo "$ECHO.new" && mv "$ECHO.new" "$ECHO"
waits_for_review "the executable replaced (another SHA-256)" "$MIXED_HASH"
AGENT_IN=$WT_DIR/r1.json agent wtgr1 request -w -j -o claude
jcheck "the executable put back: the identical request runs by the grant again" \
    "entry(j, 'a')['granted_by'] == '$GR1'" "$OUT"
# answer --granted by hand, of a gate no grant covers
rev answer "$MIXED_HASH" --run --you-only --granted -j
expect_rc "[P5] answer --granted of a gate no grant covers is refused (not_granted)" 2 '"not_granted"'
is "... and it stays pending, unrun" "$(state_of "$MIXED_HASH"):$(attempts_of "$MIXED_HASH")" "pending:0"

# --- what may not be granted -------------------------------------------------
section "refusals: nothing is granted, nothing runs"
# refused_grant DESC CODE JSON: the agent's request of JSON is stored; the
# reviewer's answer --run --grant 1h is refused with CODE, the gate stays
# pending and unrun, and no grant is stored.
refused_grant() {
	raw "$WT_DIR/x.json" "$3"
	submit wtgr1 "$WT_DIR/x.json" -o claude
	_n=$(live_grants)
	rev answer "$G" --run --grant 1h -j
	expect_rc "[P5] $1: refused ($2)" 2 "\"outcome\": *\"$2\""
	is "... the gate stays pending, unrun, and no grant is stored" \
	    "$(state_of "$G"):$(attempts_of "$G"):$(live_grants)" "pending:0:$_n"
}
refused_grant "a ROOT command (each ROOT run authenticates with sudo)" grant_root \
    '{"reason":"r","commands":[{"id":"a","argv":["/usr/bin/true"],"why":"w"}]}'
refused_grant "a ROOT command with a YOU command" grant_root \
    "{\"reason\":\"r\",\"commands\":[{\"id\":\"y\",\"as\":\"user\",\"argv\":[\"$ECHO\",\"hello\"],\"cwd\":\"/\",\"why\":\"w\"},{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}]}"
refused_grant "a shell string (command)" grant_shell \
    '{"reason":"r","commands":[{"id":"a","as":"user","command":"echo hi","cwd":"/","why":"w"}]}'
refused_grant "sh -c STRING" grant_shell \
    '{"reason":"r","commands":[{"id":"a","as":"user","argv":["/bin/sh","-c","echo hi"],"cwd":"/","why":"w"}]}'
refused_grant "bash -c STRING" grant_shell \
    '{"reason":"r","commands":[{"id":"a","as":"user","argv":["bash","-c","echo hi"],"cwd":"/","why":"w"}]}'
refused_grant "python3 -c CODE (inline code)" grant_inline_code \
    '{"reason":"r","commands":[{"id":"a","as":"user","argv":["python3","-c","print(1)"],"cwd":"/","why":"w"}]}'
refused_grant "perl -e CODE (inline code)" grant_inline_code \
    '{"reason":"r","commands":[{"id":"a","as":"user","argv":["perl","-e","print 1"],"cwd":"/","why":"w"}]}'
refused_grant "a command with reviewed files" grant_files \
    '{"reason":"r","files":{"f":{"content":"x"}},"commands":[{"id":"a","as":"user","argv":["/usr/bin/cat",{"file":"f"}],"cwd":"/","why":"w"}]}'
refused_grant "a command badged risky (network: curl)" grant_risky \
    '{"reason":"r","commands":[{"id":"a","as":"user","argv":["curl","--version"],"cwd":"/","why":"w"}]}'
# durations, strictly (of a request no grant covers)
req "$WT_DIR/d.json" / tail durations
submit wtgr1 "$WT_DIR/d.json" -o claude
for d in 25h 86401s 1441m; do
	rev answer "$G" --run --grant "$d" -j
	expect_rc "[P5] --grant $d (over 24h) is refused (grant_too_long)" 2 '"grant_too_long"'
done
for d in 10 0m 1d 1H " 1h" 1h5m -1h 01h; do
	rev answer "$G" --run --grant "$d" -j
	expect_rc "[P5] --grant '$d' is refused (grant_duration)" 2 '"grant_duration"'
done
is "... none of them ran the gate" "$(state_of "$G"):$(attempts_of "$G")" "pending:0"

# --- input the requester can change --------------------------------------------
section "a grant covers only what was reviewed: no input the requester can change"
# The agent's project, readable by the reviewer as a shared checkout is:
# its Makefile is the agent's to edit. The canary directory is the
# reviewer's: only a command run as the reviewer can create pwned in it.
PROJ=$WT_DIR/proj-wtgr1
CANARY=$WT_DIR/rev-canary
install -d -m 0755 -o wtgr1 -g "$(id -g wtgr1)" "$PROJ"
install -d -m 0755 -o "$REV" -g "$(id -g "$REV")" "$CANARY"
# as_wtgr1 CMD...: CMD as the agent user, as it would edit its files
as_wtgr1() { setpriv --reuid=wtgr1 --regid="$(id -g wtgr1)" --init-groups env -i PATH=/usr/bin:/bin "$@"; }
as_wtgr1 sh -c 'printf "test:\n\t@echo tests pass\n" >"$1/Makefile"; printf "print(1)\n" >"$1/t.py"' sh "$PROJ"
MK="{\"reason\":\"run the tests\",\"commands\":[{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"make\",\"test\"],\"cwd\":\"$PROJ\",\"why\":\"w\"}]}"
if ! command -v make >/dev/null 2>&1; then
	skip "the Makefile attack" "make is not installed (scripts/deps.sh)"
else
	refused_grant "make test in the agent's project" grant_agent_input "$MK"
	GMK=$G
	rev answer "$GMK" --run --grant 1h -j
	jcheck "... a human sentence and the hint" \
	    "'cannot be granted' in j['message'] and '$PROJ' in j['message'] and 'run it reviewed each time, or grant a command whose inputs the requester cannot change' in j['message']" "$OUT"
	rev show "$GMK" -j
	jcheck "show -j shows make's reads-cwd badge" \
	    "'reads-cwd' in j['commands'][0]['badges'] and 'reads-cwd' in j['risk_badges']" "$OUT"
	rev show "$GMK"
	expect_rc "... and so does show" 0 "reads-cwd"
	refused_grant "make in root's / (it reads its cwd: reads-cwd)" grant_agent_input \
	    '{"reason":"r","commands":[{"id":"a","as":"user","argv":["make","--version"],"cwd":"/","why":"w"}]}'
	# the grant impossible, the agent edits its Makefile and asks again
	as_wtgr1 sh -c 'printf "test:\n\ttouch %s/pwned\n" "$2" >"$1/Makefile"' sh "$PROJ" "$CANARY"
	raw "$WT_DIR/mk.json" "$MK"
	submit wtgr1 "$WT_DIR/mk.json" -o claude
	waits_for_review "make test again, its Makefile edited" "$G"
	check "... nothing of the agent's ran as the reviewer (no canary)" [ ! -e "$CANARY/pwned" ]
fi
refused_grant "a safe program in a cwd the agent can write" grant_agent_input \
    "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"$ECHO\",\"hi\"],\"cwd\":\"$PROJ\",\"why\":\"w\"}]}"
refused_grant "an argv path the agent can write" grant_agent_input \
    "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"/usr/bin/cat\",\"$PROJ/Makefile\"],\"cwd\":\"/\",\"why\":\"w\"}]}"
refused_grant "an interpreter running the agent's script" grant_agent_input \
    "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"as\":\"user\",\"argv\":[\"python3\",\"$PROJ/t.py\"],\"cwd\":\"/\",\"why\":\"w\"}]}"
check "no refusal ran anything as the reviewer (no canary)" [ ! -e "$CANARY/pwned" ]

# --- expiry, revocation -------------------------------------------------------
section "expiry and revocation"
req "$WT_DIR/e.json" / tail expiring
submit wtgr1 "$WT_DIR/e.json" -o claude
rev answer "$G" --run --grant 2s -j
expect_rc "a grant of 2s is made" 0
GE=$(jval "$OUT" 'j["grants"][0]["id"]')
_i=0
while rev grants -j && jval "$OUT" "'$GE' in [g['id'] for g in j]" | grep -q true; do
	_i=$((_i + 1))
	[ "$_i" -lt 600 ] || break
	sleep 0.2
done
rev grants -j
jcheck "once expired, grants no longer lists it" "'$GE' not in [g['id'] for g in j]" "$OUT"
submit wtgr1 "$WT_DIR/e.json" -o claude
waits_for_review "the identical request after expiry" "$G"

rev grants --revoke "$GR1" -j
expect_rc "grants --revoke ID revokes it" 0 '"revoked": *1'
rev grants -j
jcheck "... it is no longer listed" "'$GR1' not in [g['id'] for g in j]" "$OUT"
submit wtgr1 "$WT_DIR/r1.json" -o claude
waits_for_review "the identical request after revocation" "$G"
rev grants --revoke "$GR1" -j
expect_rc "[P5] revoking it again is refused (no_such_grant)" 2 '"no_such_grant"'
rev grants --revoke g-00000000
expect_rc "[P5] --revoke of a malformed id is a usage error" 2 'a grant id is'
rev log -j
jcheck "the audit chain has the revocation" \
    "any(e['kind'] == 'grant_revoked' and e['detail']['grant'] == '$GR1' for e in j)" "$OUT"
rev grants --all -j
expect_rc "[P5] grants --all alone is refused (it reads as \"list all\"), with the hint" 2 \
    'warrant grants --revoke --all'
is "... and revokes nothing" "$(live_grants)" 1
rev grants --revoke -j
expect_rc "[P5] --revoke without an id or --all is a usage error" 2 'needs a grant'
rev grants --revoke --all -j
expect_rc "grants --revoke --all revokes every live grant" 0 '"revoked": *1'
is "... none is left" "$(live_grants)" 0
submit wtgr1 "$WT_DIR/barrier.json"
BG=$G
is "the barrier's request now waits for review" "$(state_of "$BG")" pending

# --- the quota: 64 live grants per requester -----------------------------------
section "quota"
# many FILE N TAG: a request of N commands wtgrecho TAG-I.
many() {
	_c=
	_i=1
	while [ "$_i" -le "$2" ]; do
		[ -n "$_c" ] && _c="$_c,"
		_c="$_c{\"id\":\"c$_i\",\"as\":\"user\",\"argv\":[\"$ECHO\",\"$3-$_i\"],\"cwd\":\"/\",\"why\":\"w\"}"
		_i=$((_i + 1))
	done
	raw "$1" "{\"reason\":\"quota\",\"commands\":[$_c]}"
}
many "$WT_DIR/m65.json" 65 q
submit wtgr1 "$WT_DIR/m65.json"
rev answer "$G" --run --grant 1h -j
expect_rc "[P5] granting 65 commands at once is refused (grant_quota)" 2 '"grant_quota"'
is "... nothing ran, nothing is stored" "$(state_of "$G"):$(live_grants)" "pending:0"
many "$WT_DIR/m64.json" 64 q
submit wtgr1 "$WT_DIR/m64.json"
rev answer "$G" --run --grant 1h -j
expect_rc "64 grants for one requester are made" 0
is "... all 64 are live" "$(live_grants)" 64
submit wtgr1 "$WT_DIR/barrier.json"
rev answer "$G" --run --grant 1h -j
expect_rc "[P5] a 65th grant for the same requester is refused (grant_quota)" 2 '"grant_quota"'
is "... and the gate stays pending, unrun" "$(state_of "$G"):$(attempts_of "$G")" "pending:0"
submit wtgr2 "$WT_DIR/barrier.json"
rev answer "$G" --run --grant 1h -j
expect_rc "another requester still gets a grant (the quota is per requester)" 0
rev grants --revoke --all -j
expect_rc "--all revokes all 65" 0 '"revoked": *65'

# --- what runs by grants keep -----------------------------------------------------
section "runs by grants stay within the requester's quota"
# seq 200000 prints 1288895 bytes, from no input at all. A command run by
# a grant keeps 1 MiB of it in its output log; the e2e build's quota is
# 4 MiB of logs and ledgers a day, with room for one command at its
# largest (1 MiB and its ledger entry) checked before each run: three
# runs fit, the fourth does not.
raw "$WT_DIR/seq.json" '{"reason":"r","commands":[{"id":"a","as":"user","argv":["/usr/bin/seq","200000"],"cwd":"/","why":"w"}]}'
submit wtgr2 "$WT_DIR/seq.json"
rev answer "$G" --run --grant 1h -j
expect_rc "a grant of seq 200000 is made" 0
GSEQ=$(jval "$OUT" 'j["grants"][0]["id"]')
for _k in 1 2 3; do
	AGENT_IN=$WT_DIR/seq.json agent wtgr2 request -w -j
	jcheck "run $_k of it runs by the grant, all its output counted" \
	    "entry(j, 'a')['granted_by'] == '$GSEQ' and entry(j, 'a')['output_bytes'] == 1288895" "$OUT"
done
GLAST=$(jscan 'ledger(j)["request_id"]' "$OUT")
LOG=$(find "$RSTATE" -path "*$GLAST*" -name output-0.log | head -1)
is "... its output log keeps 1 MiB" "$(stat -c %s "$LOG" 2>/dev/null)" 1048576
AGENT_IN=$WT_DIR/seq.json agent wtgr2 request -j
GQ=$(gate_of)
rev answer "$GQ" --run --you-only --granted -j
expect_rc "[P5] past the quota, a run by the grant is refused (quota_exceeded)" 2 '"quota_exceeded"'
is "... the gate waits for review, unrun" "$(state_of "$GQ"):$(attempts_of "$GQ")" "pending:0"
rev answer "$GQ" --run -j
expect_rc "the reviewer still runs it, reviewed" 0
rev grants --revoke --all -j

# --- the console: a ----------------------------------------------------------
section "the console's a (allow again)"
TSOCK="wt-grants-$$"
tm() { tmux -L "$TSOCK" -f /dev/null "$@"; }
at_exit 'tm kill-server >/dev/null 2>&1'
screen() { tm capture-pane -p -t con 2>/dev/null; }
# wait_for TEXT: the console shows TEXT (a fixed string), within 30 s.
wait_for() {
	_i=0
	while [ "$_i" -lt 300 ]; do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}
# wait_state GATE STATE: GATE reaches STATE, within 60 s.
wait_state() {
	_i=0
	while [ "$_i" -lt 300 ]; do
		[ "$(state_of "$1")" = "$2" ] && return 0
		sleep 0.2
		_i=$((_i + 1))
	done
	return 1
}
if ! command -v tmux >/dev/null 2>&1; then
	skip "the console's a" "tmux is not installed (scripts/deps.sh)"
else
	req "$WT_DIR/con.json" / tail console
	submit wtgr1 "$WT_DIR/con.json" -o claude
	GC=$G
	tm new-session -d -s con -x 100 -y 30 "setpriv --reuid=$REV --regid=$(id -g "$REV") \
	    --init-groups env -i PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=tmux-256color \
	    HOME=$WT_DIR/home-$REV WARRANT_HOME=$RSTATE $W review $GC; sleep 600" ||
	    bail "tmux session started"
	wait_for "a grant" && ok "the console's gate view offers a (allow again)" || { not_ok "the console's gate view offers a (allow again)"; diag "$(screen)"; }
	tm send-keys -t con a
	wait_for "Grant: run the ticked commands" && ok "a asks for a duration" ||
	    { not_ok "a asks for a duration"; diag "$(screen)"; }
	tm send-keys -t con 2 5 h Enter
	wait_for "too long" && ok "[P5] a with 25h: too long, nothing approved" ||
	    { not_ok "[P5] a with 25h: too long"; diag "$(screen)"; }
	tm send-keys -t con BSpace BSpace BSpace x Enter
	wait_for "not a duration" && ok "[P5] a with x: not a duration" ||
	    { not_ok "[P5] a with x: not a duration"; diag "$(screen)"; }
	tm send-keys -t con Escape
	wait_for "not approved: $GC is still pending" && ok "Esc leaves it pending" ||
	    { not_ok "Esc leaves it pending"; diag "$(screen)"; }
	is "... nothing ran, nothing is granted" "$(state_of "$GC"):$(attempts_of "$GC"):$(live_grants)" "pending:0:0"
	tm send-keys -t con a
	wait_for "Grant: run the ticked commands"
	tm send-keys -t con 1 0 m Enter
	if wait_state "$GC" approved; then
		ok "a, 10m, Enter approves the gate from the console"
	else
		not_ok "a, 10m, Enter approves the gate from the console"
		diag "$(screen)"
	fi
	wait_for "granted 1 command" && ok "... and says it granted the command" ||
	    { not_ok "... and says it granted the command"; diag "$(screen)"; }
	rev grants -j
	jcheck "... the grant is of that gate's command, for 10 minutes" \
	    "len(j) == 1 and j[0]['gate_id'] == '$GC' and 0 < j[0]['expires_at'] - j[0]['created_at'] <= 600" "$OUT"
	GCON=$(jval "$OUT" 'j[0]["id"]')
	AGENT_IN=$WT_DIR/con.json agent wtgr1 request -w -j -o claude
	jcheck "... and the identical request runs by it" "entry(j, 'a')['granted_by'] == '$GCON'" "$OUT"
	# a ROOT command ticked: a refuses at once
	raw "$WT_DIR/cr.json" "{\"reason\":\"r\",\"commands\":[{\"id\":\"y\",\"as\":\"user\",\"argv\":[\"$ECHO\",\"x\"],\"cwd\":\"/\",\"why\":\"w\"},{\"id\":\"r\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}]}"
	submit wtgr1 "$WT_DIR/cr.json"
	GR=$G
	tm kill-session -t con
	tm new-session -d -s con -x 100 -y 30 "setpriv --reuid=$REV --regid=$(id -g "$REV") \
	    --init-groups env -i PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=tmux-256color \
	    HOME=$WT_DIR/home-$REV WARRANT_HOME=$RSTATE $W review $GR; sleep 600"
	wait_for "a grant"
	tm send-keys -t con a
	wait_for "a ticked command runs as root" && ok "[P5] a with a ROOT command ticked is refused at once" ||
	    { not_ok "[P5] a with a ROOT command ticked is refused at once"; diag "$(screen)"; }
	is "... the gate stays pending" "$(state_of "$GR"):$(attempts_of "$GR")" "pending:0"
	# a command that may not be granted: a says why, with answer's code
	if [ -n "${GMK:-}" ]; then
		tm kill-session -t con
		tm new-session -d -s con -x 200 -y 30 "setpriv --reuid=$REV --regid=$(id -g "$REV") \
		    --init-groups env -i PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=tmux-256color \
		    HOME=$WT_DIR/home-$REV WARRANT_HOME=$RSTATE $W review $GMK; sleep 600"
		wait_for "a grant"
		wait_for "reads-cwd" && ok "the console shows make's reads-cwd badge" ||
		    { not_ok "the console shows make's reads-cwd badge"; diag "$(screen)"; }
		_n=$(live_grants)
		tm send-keys -t con a
		wait_for "grant_agent_input: command 'a' cannot be granted" &&
		    ok "[P5] a on make test in the agent's project: refused at once, with the reason" ||
		    { not_ok "[P5] a on make test: refused at once, with the reason"; diag "$(screen)"; }
		is "... the gate stays pending, nothing granted" \
		    "$(state_of "$GMK"):$(attempts_of "$GMK"):$(live_grants)" "pending:0:$_n"
	fi
	tm kill-server >/dev/null 2>&1
	rev grants --revoke --all -j
fi

# --- the reviewer's own requests (the store directly, no daemon) ----------------
section "the reviewer's own request"
req "$WT_DIR/own.json" / tail own
REV_IN=$WT_DIR/own.json rev request -j
OWN=$(gate_of)
rev answer "$OWN" --run --grant 1h -j
expect_rc "the reviewer grants a command of its own request" 0
GOWN=$(jval "$OUT" 'j["grants"][0]["id"]')
REV_IN=$WT_DIR/own.json rev request -w -j
expect_rc "... the identical request runs with no review" 0
jcheck "... its ledger names the grant" "entry(j, 'a')['granted_by'] == '$GOWN'" "$OUT"
rev grants --revoke --all -j

rev log --verify
expect_rc "the audit chain verifies at the end" 0 "audit chain intact"
stop_daemon
done_testing
