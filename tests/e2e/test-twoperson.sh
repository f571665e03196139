#!/bin/sh
# SPDX-License-Identifier: ISC
# The two-person rule for ROOT end to end (docs/two-person.md). As root:
# the final reviewer wt-reviewer (a canary password, group sudo) and its
# daemon on the real /run/warrant/wt-reviewer/req.sock; two co-reviewers
# (wt-reviewer2, wt-tprev3) and a requester (wt-tpreq) on their own uids,
# all four members of the reviewers group wt-tpreviewers; the build's
# private policy file and review spool (root:wt-tpreviewers, mode 1770);
# the real sudo prompt driven through a pty, the co-reviewers'
# "Approve? [y/N]" through another (tests/e2e/pty-yes.exp).
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-twoperson.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the two-person tests create users and groups and run as root"
sr_need || bail "the programs the real-sudo tests drive are installed"

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-twoperson-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
REV=$SR_USER
B=$SR_USER2
C=wt-tprev3
REQ=wt-tpreq
G=wt-tpreviewers
SOCK=/run/warrant/$REV/req.sock
MARK=/root/wt-tp-$TAG
YES="$WARRANT_TOP/tests/e2e/pty-yes.exp"

cleanup() {
	stop_daemon
	for u in "$C" "$REQ"; do
		for p in $(pgrep -u "$u" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		userdel -r "$u" >/dev/null 2>&1
	done
	gpasswd -d "$REV" "$G" >/dev/null 2>&1
	gpasswd -d "$B" "$G" >/dev/null 2>&1
	groupdel "$G" >/dev/null 2>&1
	requesters_teardown "$REV"
	sr_two_person_done
	rm -f "$MARK".*
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

sr_user_setup || bail "the reviewer users are set up"
sr_install || bail "warrant is installed in its private prefix"
W=$SR_WARRANT

# ------------------------------------------------------------ provisioning
for u in "$C" "$REQ"; do
	id "$u" >/dev/null 2>&1 || useradd -m -s /bin/sh "$u" || bail "user $u is created"
	usermod -p '!' "$u"
done
groupadd "$G" 2>/dev/null
for u in "$REV" "$B" "$C" "$REQ"; do
	usermod -aG "$G" "$u" || bail "$u joins $G"
done
# the co-reviewers and the requester reach the reviewer's daemon
"$W" requesters add --reviewer "$REV" "$B" "$C" "$REQ" >"$SR_DIR/req-add" 2>&1 ||
    bail "warrant requesters add --reviewer $REV $B $C $REQ"
sr_two_person "$G"

# as USER CMD...: run as USER with its groups, a clean environment.
as() {
	as_u=$1
	shift
	setpriv --reuid="$as_u" --regid="$(id -g "$as_u")" --init-groups \
	    env -i HOME="$(getent passwd "$as_u" | cut -d: -f6)" USER="$as_u" LOGNAME="$as_u" \
	    PATH=/usr/bin:/bin LANG=C TERM=xterm "$@"
}
rev() { sr_as "$REV" "$W" "$@"; }
state() { rev show "$1" -j 2>/dev/null | jscan 'j["state"]'; }
# cosign USER ANSWER NAME ARGS...: `warrant ARGS` as USER in a pty that
# answers "[y/N]" with ANSWER; transcript $SR_DIR/NAME.log, status CRC.
cosign() {
	cs_u=$1 cs_a=$2 cs_n=$3
	shift 3
	rm -f "$SR_DIR/$cs_n.log"
	expect -f "$YES" "$SR_DIR/$cs_n.log" 60 "$cs_a" \
	    setpriv --reuid="$cs_u" --regid="$(id -g "$cs_u")" --init-groups \
	    env -i HOME="$(getent passwd "$cs_u" | cut -d: -f6)" USER="$cs_u" LOGNAME="$cs_u" \
	    PATH=/usr/bin:/bin LANG=C TERM=xterm "$W" "$@" </dev/null \
	    >/dev/null 2>>"$SR_DIR/driver.err"
	CRC=$?
	CLOG=$SR_DIR/$cs_n.log
}
questions() { sed -n 's/.*## ptyyes: questions=\([0-9]*\).*/\1/p' "$CLOG" | tail -1; }
spool_count() { find "$SPOOL" -name "$1.*" | wc -l; }
# gate NAME: a gate of two ROOT commands (a, b: touch MARK.NAME-a, -b)
# asked by the requester through the daemon; its id in GID.
gate() {
	printf '{"reason":"two-person %s","commands":[%s,%s]}\n' "$1" \
	    "{\"id\":\"a\",\"argv\":[\"/usr/bin/touch\",\"$MARK.$1-a\"],\"why\":\"test\"}" \
	    "{\"id\":\"b\",\"argv\":[\"/usr/bin/touch\",\"$MARK.$1-b\"],\"why\":\"test\"}" \
	    >"$SR_DIR/$1.json"
	chmod 644 "$SR_DIR/$1.json"
	as "$REQ" "$W" request --to "$REV" <"$SR_DIR/$1.json" >"$SR_DIR/$1.out" 2>"$SR_DIR/$1.err"
	GID=$(jscan 'j["request_id"]' "$SR_DIR/$1.out")
	[ -n "$GID" ]
}
ran() { [ -e "$MARK.$1-a" ] || [ -e "$MARK.$1-b" ]; }

sr_serve "$REV"
i=0
while [ ! -S "$SOCK" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$SOCK" ] || bail "warrant serve listens on $SOCK"

# ---------------------------------------------------------------- alone
section "N=2: the final reviewer alone is not enough"
gate one || bail "the requester's gate is stored (through the daemon)"
G1=$GID
pty_rv none alone 60 "$W" answer "$G1" --run --no-detach
check "answer --run refuses with reviews_missing" grep -q reviews_missing "$PTY_LOG"
is "before any password is asked" "$(pty_prompts)" 0
is "answer exits 2" "$PTY_RC" 2
check "nothing ran" sh -c "! { [ -e '$MARK.one-a' ] || [ -e '$MARK.one-b' ]; }"
is "the gate stays pending" "$(state "$G1")" pending
rev show "$G1" >"$SR_DIR/show1.txt" 2>&1
check "show says 0 of 1 approvals are in" grep -q 'reviews .*0 of 1 approvals' "$SR_DIR/show1.txt"

section "co-reviewers see the gate through the daemon"
as "$B" "$W" list --to "$REV" >"$SR_DIR/list-b.txt" 2>&1
check "list --to names the gate with its reviews" \
    sh -c "grep -q '$G1' '$SR_DIR/list-b.txt' && grep -q 'reviews: 0 of 1' '$SR_DIR/list-b.txt'"
as "$B" "$W" show "$G1" --to "$REV" >"$SR_DIR/show-b.txt" 2>&1
check "show --to prints the commands exactly (argv of both)" \
    sh -c "grep -q '$MARK.one-a' '$SR_DIR/show-b.txt' && grep -q '$MARK.one-b' '$SR_DIR/show-b.txt'"
as "$REQ" "$W" list --to "$REV" >"$SR_DIR/list-req.txt" 2>&1
check "the requester's own gate is marked as such" grep -q 'you asked' "$SR_DIR/list-req.txt"
as nobody "$W" list --to "$REV" >/dev/null 2>&1
check "someone outside the requester group cannot reach the daemon" [ $? -ne 0 ]

section "the requester cannot approve their own gate"
cosign "$REQ" y own answer "$G1" --approve --to "$REV"
is "answer --approve --to by the requester exits 2" "$CRC" 2
check "with own_request" grep -q own_request "$CLOG"
is "and no question was asked" "$(questions)" 0
is "no review file was written" "$(spool_count "$G1")" 0
# a review file the requester writes by hand does not count either
B1=$(as "$B" "$W" show "$G1" --to "$REV" -j | jscan 'json.dumps(j["binding"])')
printf '%s' "$B1" | "$PY" -c '
import json, sys
b = json.load(sys.stdin)
r = {"schema_version": 1, "decision": "approve", "request_id": b["request_id"],
     "manifest_sha256": b["manifest_sha256"], "ids": b["ids"],
     "requester_uid": b["requester_uid"], "reviewer_uid": b["reviewer_uid"]}
print(json.dumps(r))' >"$SR_DIR/review-all.json"
check "the binding names the requester's uid" \
    jscan "j['requester_uid'] == $(id -u "$REQ") and j['ids'] == ['a','b']" "$SR_DIR/review-all.json"
as "$REQ" sh -c "cat >'$SPOOL/$G1.self'" <"$SR_DIR/review-all.json"
pty_rv none self 60 "$W" answer "$G1" --run --no-detach
check "the requester's own review file does not count (reviews_missing)" \
    grep -q reviews_missing "$PTY_LOG"

section "reviews that do not count"
# a non-member's review: root writes the exact review, owned by nobody
cp "$SR_DIR/review-all.json" "$SPOOL/$G1.forged"
chown nobody:nogroup "$SPOOL/$G1.forged" 2>/dev/null || chown nobody "$SPOOL/$G1.forged"
# root's own
cp "$SR_DIR/review-all.json" "$SPOOL/$G1.root"
# a member's review for another hash
"$PY" -c '
import json, sys
r = json.load(open(sys.argv[1])); r["manifest_sha256"] = "0" * 64
print(json.dumps(r))' "$SR_DIR/review-all.json" >"$SR_DIR/review-badhash.json"
as "$C" sh -c "cat >'$SPOOL/$G1.badhash'" <"$SR_DIR/review-badhash.json"
# a member's approval of another subset (command a only), through the tool
cosign "$B" y subset answer "$G1" --approve --to "$REV" -c a
is "B approves command a alone (exit 0)" "$CRC" 0
is "after one question" "$(questions)" 1
check "the question showed the gate" grep -q "$MARK.one-a" "$CLOG"
pty_rv none notcount 60 "$W" answer "$G1" --run --no-detach
check "none of them counts for a and b: reviews_missing" grep -q reviews_missing "$PTY_LOG"
is "no password was asked" "$(pty_prompts)" 0
check "nothing ran" sh -c "! { [ -e '$MARK.one-a' ] || [ -e '$MARK.one-b' ]; }"
is "the gate stays pending" "$(state "$G1")" pending
rm -f "$SPOOL/$G1".*

section "the runner decides: the review vanishes between answer's check and the runner"
cosign "$B" y b-all answer "$G1" --approve --to "$REV"
is "B approves a and b (exit 0)" "$CRC" 0
check "and is told 1 of 1 approvals are in" grep -q '1 of 1 approvals' "$CLOG"
( pty_rv hold vanish 90 "$W" answer "$G1" --run --no-detach ) &
HPID=$!
i=0
while [ ! -e "$SR_DIR/vanish.at-prompt" ] && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
check "answer's own check passed: sudo asks for the password" [ -e "$SR_DIR/vanish.at-prompt" ]
# B takes the approval back while sudo prompts (the sticky spool lets the owner remove it)
as "$B" sh -c "rm -f '$SPOOL/$G1'.*"
touch "$SR_DIR/vanish.go"
wait "$HPID"
PTY_LOG=$SR_DIR/vanish.log
check "the runner refuses (reviews_missing) after authentication" \
    sh -c "grep -q 'refusing (reviews_missing)' '$PTY_LOG' && grep -q reviews_missing '$PTY_LOG'"
check "nothing ran" sh -c "! { [ -e '$MARK.one-a' ] || [ -e '$MARK.one-b' ]; }"
is "the gate stays pending" "$(state "$G1")" pending

section "the runner decides: the co-reviewer leaves the group before the runner"
cosign "$B" y b-again answer "$G1" --approve --to "$REV"
is "B approves again (exit 0)" "$CRC" 0
( pty_rv hold leave 90 "$W" answer "$G1" --run --no-detach ) &
HPID=$!
i=0
while [ ! -e "$SR_DIR/leave.at-prompt" ] && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
check "answer's own check passed: sudo asks for the password" [ -e "$SR_DIR/leave.at-prompt" ]
gpasswd -d "$B" "$G" >/dev/null
touch "$SR_DIR/leave.go"
wait "$HPID"
PTY_LOG=$SR_DIR/leave.log
check "the runner reads the group now and refuses (reviews_missing)" \
    grep -q 'refusing (reviews_missing)' "$PTY_LOG"
check "nothing ran" sh -c "! { [ -e '$MARK.one-a' ] || [ -e '$MARK.one-b' ]; }"
is "the gate stays pending" "$(state "$G1")" pending
usermod -aG "$G" "$B"

section "a second member's approval and the reviewer's run: it runs once"
check "B's review is still in the spool" [ "$(spool_count "$G1")" -ge 1 ]
rev show "$G1" >"$SR_DIR/show1b.txt" 2>&1
check "show says 1 of 1 approvals are in" grep -q 'reviews .*1 of 1 approvals' "$SR_DIR/show1b.txt"
pty_rv right both 90 "$W" answer "$G1" --run --no-detach
is "sudo asked once" "$(pty_prompts)" 1
is "answer exits 0" "$PTY_RC" 0
check "both ROOT commands ran as root" \
    sh -c "[ \"\$(stat -c %U '$MARK.one-a')\" = root ] && [ \"\$(stat -c %U '$MARK.one-b')\" = root ]"
is "the gate is approved" "$(state "$G1")" approved
is "the spent reviews are removed from the spool" "$(spool_count "$G1")" 0
rm -f "$MARK".one-*
pty_rv none again 60 "$W" answer "$G1" --run --no-detach
check "it cannot run again (not pending)" grep -q 'not pending' "$PTY_LOG"
check "nothing ran again" sh -c "! { [ -e '$MARK.one-a' ] || [ -e '$MARK.one-b' ]; }"
check "no sudo ticket is left for the reviewer" no_ticket_anywhere

section "a subset approved is a subset run"
gate two || bail "a second gate is stored"
G2=$GID
cosign "$C" y c-a answer "$G2" --approve --to "$REV" -c a
is "C approves command a alone" "$CRC" 0
pty_rv right sub 90 "$W" answer "$G2" --run --no-detach -c a
is "the reviewer runs a alone (exit 0)" "$PTY_RC" 0
check "a ran, b did not" sh -c "[ -e '$MARK.two-a' ] && [ ! -e '$MARK.two-b' ]"

section "a deny by a second member denies"
gate three || bail "a third gate is stored"
G3=$GID
cosign "$C" y deny answer "$G3" --deny --to "$REV" -f "not on a Friday"
is "C denies it (exit 0)" "$CRC" 0
is "the gate is denied in the reviewer's store" "$(state "$G3")" denied
pty_rv none after-deny 60 "$W" answer "$G3" --run --no-detach
check "the reviewer can no longer run it" grep -q 'not pending' "$PTY_LOG"
check "nothing ran" sh -c "! { [ -e '$MARK.three-a' ] || [ -e '$MARK.three-b' ]; }"
gate four || bail "a fourth gate is stored"
G4=$GID
# a member's denial left in the spool (say the daemon was down) denies too
printf '{"schema_version":1,"decision":"deny","request_id":"%s","manifest_sha256":"","ids":[],"requester_uid":0,"reviewer_uid":%s}\n' \
    "$G4" "$(id -u "$REV")" >"$SR_DIR/deny4.json"
as "$C" sh -c "cat >'$SPOOL/$G4.deny'" <"$SR_DIR/deny4.json"
cosign "$B" y b-4 answer "$G4" --approve --to "$REV"
pty_rv none denied-file 60 "$W" answer "$G4" --run --no-detach
check "answer refuses with review_denied" grep -q review_denied "$PTY_LOG"
is "and the gate is denied" "$(state "$G4")" denied
check "nothing ran" sh -c "! { [ -e '$MARK.four-a' ] || [ -e '$MARK.four-b' ]; }"
rm -f "$SPOOL/$G4".*

section "the policy"
gate five || bail "a fifth gate is stored"
G5=$GID
sr_policy "{\"root_approvals\": 2, \"reviewers_group\": \"$G\", \"extra\": 1}"
pty_rv none badpolicy 60 "$W" answer "$G5" --run --no-detach
check "a policy with an unknown field is refused (policy_invalid)" grep -q policy_invalid "$PTY_LOG"
sr_policy "{\"root_approvals\": 2, \"reviewers_group\": \"$G\"}"
chmod 0664 "$POLICY"
pty_rv none writable 60 "$W" answer "$G5" --run --no-detach
check "a group-writable policy is refused (policy_invalid)" grep -q policy_invalid "$PTY_LOG"
check "nothing ran" sh -c "! { [ -e '$MARK.five-a' ] || [ -e '$MARK.five-b' ]; }"
sr_policy "{\"root_approvals\": 1, \"reviewers_group\": \"$G\"}"
pty_rv right n1 90 "$W" answer "$G5" --run --no-detach
is "root_approvals 1: today's behaviour, one password (exit 0)" "$PTY_RC:$(pty_prompts)" 0:1
check "and it ran" sh -c "[ -e '$MARK.five-a' ] && [ -e '$MARK.five-b' ]"
rm -f "$POLICY"
gate six || bail "a sixth gate is stored"
G6=$GID
pty_rv right none 90 "$W" answer "$G6" --run --no-detach
is "no policy file: today's behaviour (exit 0, one password)" "$PTY_RC:$(pty_prompts)" 0:1
check "and it ran" sh -c "[ -e '$MARK.six-a' ] && [ -e '$MARK.six-b' ]"
as "$B" "$W" list --to "$REV" >"$SR_DIR/list-none.txt" 2>&1
is "without the rule, list --to is B's own queue at the daemon (exit 0)" "$?" 0
check "... which says whose it is, with nothing to review and no refusal" sh -c \
    "grep -q \"^no gate of yours is pending at $REV's daemon\" '$SR_DIR/list-none.txt' &&
    ! grep -qE 'refused|reviews:|to review' '$SR_DIR/list-none.txt'"

done_testing
