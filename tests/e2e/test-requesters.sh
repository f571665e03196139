#!/bin/sh
# SPDX-License-Identifier: ISC
# warrant requesters, end to end, as root: throwaway users wtreqrev (the
# reviewer, uid 61101), wtreq1 and wtreq2 (61102, 61103), the real groupadd,
# usermod and gpasswd, the directory /run/warrant/wtreqrev and its
# tmpfiles.d entry; a real Unix socket bound there by the reviewer; remove
# --all taking all of it down, refused while a daemon answers. Cleans
# up after itself (and before, so it can be re-run after an interrupted run).
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "warrant requesters tests need root"
command -v setpriv >/dev/null 2>&1 || bail "setpriv is installed (scripts/deps.sh)"

REV=wtreqrev
GRP=warrant-$REV
DIR=/run/warrant/$REV
TMPF=/etc/tmpfiles.d/warrant-$REV.conf
USERS="wtreqrev wtreq1 wtreq2"

cleanup() {
	for u in $USERS; do
		userdel "$u" >/dev/null 2>&1
		groupdel "$u" >/dev/null 2>&1
	done
	groupdel warrant-wtreq2 >/dev/null 2>&1
	requesters_teardown "$REV"
	[ -n "${WT_DIR:-}" ] && rm -rf "$WT_DIR"
}
cleanup
at_exit cleanup
setup_bin
# The records of what warrant made (the group) go to a box directory of
# the test's own.
export WARRANT_BOX_DIR="$WT_T/box"
useradd -M -d /nonexistent -u 61101 -s /bin/sh "$REV" 2>/dev/null
useradd -M -d /nonexistent -u 61102 -s /bin/sh wtreq1 2>/dev/null
useradd -M -d /nonexistent -u 61103 -s /bin/sh wtreq2 2>/dev/null
for u in $USERS; do
	id "$u" >/dev/null 2>&1 || bail "the test user $u is created"
done
mkdir -p /run/warrant

# wq ARGS...: warrant requesters ARGS; output in $OUT / $ERR, status in $RC.
OUT=$WT_T/out ERR=$WT_T/err
wq() {
	"$W" requesters "$@" >"$OUT" 2>"$ERR"
	RC=$?
}
# wq_as UID ARGS...: the same as an unprivileged uid, without any group.
wq_as() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$_u" --clear-groups "$W" requesters "$@" >"$OUT" 2>"$ERR"
	RC=$?
}
fails() { ! "$@"; }
show() { diag "exit $RC"; diag "$(head -c 600 "$OUT")"; diag "$(head -c 600 "$ERR")"; }
# expect_rc DESC WANT [GREP]: the last wq exited WANT (and its output matches GREP).
expect_rc() {
	if [ "$RC" -eq "$2" ] && { [ -z "${3:-}" ] || cat "$OUT" "$ERR" | grep -q -- "$3"; }; then
		ok "$1"
	else
		not_ok "$1"
		show
	fi
}
# as USER CMD...: run CMD as USER with its groups.
as() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --init-groups env -i PATH=/usr/bin:/bin "$@"
}
# snap: everything add or remove could change: the group line, the users'
# groups, the reviewer's directory (owner, mode, ctime, entries) and the
# tmpfiles.d entry (inode, mtime, mode, content). A link at the
# directory's place is recorded as where it points, not as what is there
# (/tmp changes with everything else the machine does).
snap() {
	printf '%s|%s|%s|%s|%s\n' "$(getent group "$GRP")" \
	    "$(for u in $USERS; do id -nG "$u"; done)" \
	    "$(stat -c '%U %G %a %Z' "$DIR" 2>&1
	    if [ -L "$DIR" ]; then readlink "$DIR"; else ls -A "$DIR" 2>&1; fi)" \
	    "$(stat -c '%i %Y %a' "$TMPF" 2>&1; cat "$TMPF" 2>&1)" \
	    "$(stat -c '%U %G %a' /run/warrant)"
}
# refused_snap DESC CODE ARGS...: `warrant requesters ARGS` is refused
# with CODE and changes nothing.
refused_snap() {
	_d=$1 _c=$2
	shift 2
	_b=$(snap)
	wq "$@"
	expect_rc "[P5] $_d" 2 "refused ($_c)"
	_a=$(snap)
	[ "$_a" = "$_b" ] || { not_ok "[P5] ... changed nothing"; diag "before: $_b"; diag "after: $_a"; }
}

# --- refusals: nothing changes ------------------------------------------
wq add
expect_rc "add without --reviewer is a usage error" 2 'needs --reviewer'
wq frobnicate
expect_rc "an unknown subcommand is a usage error" 2 'unknown requesters command'
b=$(snap)
wq_as 65534 add --reviewer "$REV" wtreq1
expect_rc "[P5] add as non-root is refused" 2 'refused (not_root)'
wq_as 61102 remove --reviewer "$REV" wtreq1
expect_rc "[P5] remove as non-root is refused" 2 'refused (not_root)'
is "[P5] ... and changed nothing" "$(snap)" "$b"
refused_snap "add refuses root as the reviewer" root_reviewer add --reviewer root wtreq1
refused_snap "add refuses a reviewer that does not exist" unknown_reviewer add --reviewer wtnosuchrev wtreq1
refused_snap "add refuses a reviewer name warrant does not accept" invalid_name add --reviewer Bad.Rev wtreq1
refused_snap "add refuses a reviewer whose group name would pass 32 characters" invalid_name \
    add --reviewer abcdefghijklmnopqrstuvwxy wtreq1
refused_snap "add refuses nobody as the reviewer" system_account add --reviewer nobody wtreq1
refused_snap "add refuses root as a requester" root_requester add --reviewer "$REV" root
refused_snap "add refuses nobody as a requester" system_account add --reviewer "$REV" nobody
refused_snap "add refuses a user that does not exist" unknown_user add --reviewer "$REV" wtnosuchuser
refused_snap "add refuses a user name warrant does not accept" invalid_name add --reviewer "$REV" 'wt req'
refused_snap "add refuses a name that looks like an option" invalid_name add --reviewer "$REV" -- -G
refused_snap "one bad user refuses them all (wtreq1 is not added)" root_requester add --reviewer "$REV" wtreq1 root
ln -s /tmp "$DIR"
refused_snap "add refuses a symbolic link as the reviewer's directory" bad_directory add --reviewer "$REV" wtreq1
check "[P5] ... the link is still a link to /tmp" test "$(readlink "$DIR")" = /tmp
rm "$DIR"
echo x >"$DIR"
refused_snap "add refuses a file as the reviewer's directory" bad_directory add --reviewer "$REV" wtreq1
rm "$DIR"
check "[P5] the refusals made no group, directory or tmpfiles.d entry" sh -c \
    "! getent group '$GRP' >/dev/null && [ ! -e '$DIR' ] && [ ! -e '$TMPF' ]"

# --- add -------------------------------------------------------------------
wq add --reviewer "$REV" wtreq1 wtreq2
expect_rc "add --reviewer $REV wtreq1 wtreq2" 0
for l in "group $GRP: created" "directory $DIR: created ($REV:$GRP 2750)" \
    "tmpfiles $TMPF: written" "requester wtreq1: added to $GRP" \
    "requester wtreq2: added to $GRP"; do
	check "... says: $l" grep -qF -- "$l" "$OUT"
done
check "the group is a system group (gid below 1000)" test "$(getent group "$GRP" | cut -d: -f3)" -lt 1000
is "wtreq1 and wtreq2 are its members" "$(getent group "$GRP" | cut -d: -f4)" "wtreq1,wtreq2"
check "id -nG wtreq1 lists it" sh -c "id -nG wtreq1 | grep -qw '$GRP'"
is "/run/warrant is root root 755" "$(stat -c '%U %G %a %F' /run/warrant)" "root root 755 directory"
is "$DIR is $REV $GRP 2750" "$(stat -c '%U %G %a %F' "$DIR")" "$REV $GRP 2750 directory"
is "$TMPF is root's, 0644, a regular file" "$(stat -c '%U %G %a %F' "$TMPF")" "root root 644 regular file"
is "$TMPF holds exactly the two lines (and its comment)" "$(grep -v '^#' "$TMPF")" \
    "d /run/warrant 0755 root root -
d $DIR 2750 $REV $GRP -"
check "no temporary file is left in /etc/tmpfiles.d" sh -c "! ls -A /etc/tmpfiles.d | grep -q '^\.'"

# What the modes mean, with real processes and a real socket.
check "the reviewer can bind a socket in $DIR" as "$REV" "$PY" -c \
    "import socket; s = socket.socket(socket.AF_UNIX); s.bind('$DIR/t.sock')"
is "... which gets the group $GRP (set-group-ID directory)" "$(stat -c '%U %G %F' "$DIR/t.sock")" \
    "$REV $GRP socket"
check "a requester can reach it (search the directory)" as wtreq1 test -S "$DIR/t.sock"
check "a requester cannot create anything there (no socket squatting)" sh -c \
    "! setpriv --reuid=wtreq1 --regid=\$(id -g wtreq1) --init-groups touch '$DIR/squat' 2>/dev/null && [ ! -e '$DIR/squat' ]"
check "a user outside the group cannot reach it" sh -c \
    "! setpriv --reuid=65534 --regid=65534 --clear-groups test -e '$DIR/t.sock'"
rm -f "$DIR/t.sock"

# --- idempotent --------------------------------------------------------
b=$(snap)
wq add --reviewer "$REV" wtreq1 wtreq2
expect_rc "add again succeeds" 0
is "... and changes nothing (group, directory incl. ctime, tmpfiles.d inode and mtime)" "$(snap)" "$b"
check "... saying 'already' for every part, nothing created" sh -c \
    "[ \"\$(grep -c already '$OUT')\" = 6 ] && ! grep -qE 'created|added|written|fixed' '$OUT'"
wq add --reviewer "$REV" "$REV"
expect_rc "adding the reviewer itself says it is pointless" 0 'is the reviewer itself'
check "... and does not add it" sh -c "! id -nG '$REV' | grep -qw '$GRP'"
wq add --reviewer "$REV"
expect_rc "add without USER only checks the set-up" 0 "directory $DIR: already right"

# --- put right what is wrong ---------------------------------------------
chown wtreq1:wtreq1 "$DIR"
chmod 0777 "$DIR"
printf 'd %s 0777 wtreq1 wtreq1 -\n' "$DIR" >"$TMPF"
touch "$DIR/planted"
chown wtreq1 "$DIR/planted"
wq list -j
jcheck "list -j shows the directory wrong and the tmpfiles.d entry differing" \
    '[(x["directory"]["state"], x["directory"]["mode"], x["tmpfiles"]["state"], x["ok"]) for x in j if x["reviewer"] == "wtreqrev"] == [("wrong", "2777", "differs", False)]' "$OUT"
wq list
expect_rc "list says how to fix it" 0 "to fix it: warrant requesters add --reviewer $REV"
check "... with the directory WRONG" grep -qF "directory $DIR: WRONG: wtreq1:wtreq1 2777, want $REV:$GRP 2750" "$OUT"
wq add --reviewer "$REV" wtreq1
expect_rc "add fixes the directory" 0 "directory $DIR: fixed (was uid 61102, gid"
check "... and rewrites the tmpfiles.d entry" grep -qx "tmpfiles $TMPF: rewritten (it differed)" "$OUT"
check "... and names what a requester left in the directory" grep -qF "$DIR/planted belongs to uid 61102" "$ERR"
is "$DIR is $REV $GRP 2750 again" "$(stat -c '%U %G %a' "$DIR")" "$REV $GRP 2750"
is "$TMPF is right again" "$(grep -v '^#' "$TMPF")" "d /run/warrant 0755 root root -
d $DIR 2750 $REV $GRP -"
rm -f "$DIR/planted"

# --- list ------------------------------------------------------------------
wq list -j
jcheck "list -j: reviewer, group, members, directory, tmpfiles, ok" \
    '[x for x in j if x["reviewer"] == "wtreqrev"] == [x for x in j if x["group"] == "warrant-wtreqrev" and x["members"] == ["wtreq1", "wtreq2"] and x["reviewer_exists"] is True and x["directory"]["state"] == "ok" and x["directory"]["owner"] == "wtreqrev" and x["directory"]["group"] == "warrant-wtreqrev" and x["directory"]["mode"] == "2750" and x["run_dir"]["state"] == "ok" and x["tmpfiles"]["state"] == "ok" and x["tmpfiles"]["path"] == "/etc/tmpfiles.d/warrant-wtreqrev.conf" and x["ok"] is True] != []' "$OUT"
cp "$OUT" "$WT_T/list-root.json"
wq list
expect_rc "list shows the reviewer and its requesters" 0 "^reviewer $REV: group $GRP (gid [0-9]*)$"
check "... requesters, directory and tmpfiles.d entry" sh -c \
    "grep -qx '  requesters: wtreq1, wtreq2' '$OUT' && grep -qx '  directory $DIR: ok ($REV:$GRP 2750)' '$OUT' && grep -qx '  tmpfiles $TMPF: ok' '$OUT'"
wq_as 65534 list -j
expect_rc "list needs no root" 0
check "... and shows the same as for root" cmp -s "$OUT" "$WT_T/list-root.json"
wq list --reviewer "$REV" -j
jcheck "list --reviewer shows just that one" 'len(j) == 1 and j[0]["reviewer"] == "wtreqrev"' "$OUT"
wq list --reviewer wtnoreviewer -j
jcheck "list --reviewer of one without a set-up says what is missing" \
    'j[0]["gid"] is None and j[0]["reviewer_exists"] is False and j[0]["directory"]["state"] == "missing" and j[0]["tmpfiles"]["state"] == "missing" and j[0]["ok"] is False' "$OUT"
wq list extra
expect_rc "list with an argument is a usage error" 2 'unexpected argument'

# --- the agent's own queue at the reviewer's daemon -------------------------
# The reviewer's daemon (warrant serve as wtreqrev) on the real socket in
# $DIR, its store in a directory of its own; the agents wtreq1 and wtreq2
# with homes of their own, to see that nothing is made there.
section "the agent's own queue through the daemon"
SOCK=$DIR/req.sock
DLOG=$WT_T/serve.log
: >"$DLOG"
for u in $REV wtreq1 wtreq2; do
	install -d -m 0700 -o "$u" -g "$(id -g "$u")" "$WT_DIR/home-$u"
done
RSTATE=$WT_DIR/home-$REV/state
at_exit "stop_daemon KILL"
# start_daemon: warrant serve as the reviewer; ready once its log says it
# answers on the socket (one more time than before).
start_daemon() {
	_up=$(grep -c "answers requesters on $SOCK" "$DLOG" 2>/dev/null)
	# shellcheck disable=SC2086 # SERVE_ARGS: the daemon's options, as words
	setpriv --reuid="$REV" --regid="$(id -g "$REV")" --init-groups env -i \
	    PATH=/usr/bin:/bin LANG=C HOME="$WT_DIR/home-$REV" WARRANT_HOME="$RSTATE" \
	    "$W" serve ${SERVE_ARGS:-} 2>>"$DLOG" &
	DPID=$!
	_i=0
	while [ "$(grep -c "answers requesters on $SOCK" "$DLOG" 2>/dev/null)" -le "${_up:-0}" ]; do
		_i=$((_i + 1))
		[ "$_i" -lt 600 ] && kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.05
	done
}
# agent USER ARGS...: warrant ARGS as the requester USER with a home of its
# own, through the daemon (WARRANT_SOCKET); stdin from $AGENT_IN (default
# none); output in $OUT / $ERR, status in RC. agent_to: without
# WARRANT_SOCKET (the command line says --to).
agent_env() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --init-groups env -i PATH=/usr/bin:/bin \
	    LANG=C HOME="$WT_DIR/home-$_u" "$@"
}
agent() {
	_a=$1
	shift
	agent_env "$_a" WARRANT_SOCKET="$SOCK" "$W" "$@" <"${AGENT_IN:-/dev/null}" >"$OUT" 2>"$ERR"
	RC=$?
}
agent_to() {
	_a=$1
	shift
	agent_env "$_a" "$W" "$@" <"${AGENT_IN:-/dev/null}" >"$OUT" 2>"$ERR"
	RC=$?
}
# rev ARGS...: warrant ARGS as the reviewer, on its store.
rev() {
	setpriv --reuid="$REV" --regid="$(id -g "$REV")" --init-groups env -i PATH=/usr/bin:/bin \
	    LANG=C HOME="$WT_DIR/home-$REV" WARRANT_HOME="$RSTATE" "$W" "$@"
}
# mkreq FILE REASON: a request of one YOU command.
mkreq() {
	printf '{"reason":"%s","commands":[{"id":"a","as":"user","argv":["/usr/bin/true"],"why":"w"}]}\n' \
	    "$2" >"$1"
	chmod 644 "$1"
}
gate_of() { jval "$OUT" 'j["request_id"]'; }

start_daemon || bail "the reviewer's daemon starts (its log: $(tail -c 300 "$DLOG"))"
for i in 1 2 3; do
	mkreq "$WT_DIR/q$i.json" "queue $i"
	AGENT_IN=$WT_DIR/q$i.json agent wtreq1 request
	expect_rc "wtreq1's request $i is stored at the daemon" 0
	eval "G$i=\$(gate_of)"
done
mkreq "$WT_DIR/h.json" "the other requester's"
AGENT_IN=$WT_DIR/h.json agent wtreq2 request
expect_rc "wtreq2's request is stored at the daemon" 0
H1=$(gate_of)

agent wtreq1 list
expect_rc "list through the daemon (WARRANT_SOCKET)" 0 \
    "^3 gates of yours pending at $REV's daemon ($SOCK):\$"
check "... shows the agent's three pending gates, and not the other requester's" sh -c \
    "grep -q '^$G1 ' '$OUT' && grep -q '^$G2 ' '$OUT' && grep -q '^$G3 ' '$OUT' && ! grep -q '$H1' '$OUT'"
agent wtreq1 list -j
jcheck "list -j through the daemon: the same three, as list -j elements" \
    "sorted(g['request_id'] for g in j) == sorted(['$G1', '$G2', '$G3']) and all(g['state'] == 'pending' and g['requester'] == 'wtreq1' for g in j)" "$OUT"
agent_to wtreq1 list --to "$REV"
expect_rc "list --to $REV shows the same queue, no review refusal" 0 \
    "^3 gates of yours pending at $REV's daemon"
check "... without any refusal" sh -c "! grep -q refused '$ERR'"
check "no store was made in the agent's home" test ! -e "$WT_DIR/home-wtreq1/.local"

agent wtreq1 show "$G1"
expect_rc "show of its own gate through the daemon" 0 "^a gate of yours at $REV's daemon ($SOCK)"
check "... with the gate" grep -q "$G1" "$OUT"
agent wtreq1 show "$G1" -j
jcheck "show -j: the gate with its sealed manifest" \
    "j['request_id'] == '$G1' and j['state'] == 'pending' and j['manifest']['request_id'] == '$G1'" "$OUT"
agent wtreq1 show "$H1"
expect_rc "[P5] show of another requester's gate is refused" 2 "show refused (unknown_gate)"
agent_to wtreq1 show "$H1" --to "$REV"
expect_rc "[P5] ... with --to too" 2 "show refused (unknown_gate)"
check "... and says nothing of it" sh -c "! grep -q 'the other requester' '$OUT' '$ERR'"

agent wtreq1 withdraw "$H1"
expect_rc "[P5] withdraw of another requester's gate is refused" 2 "withdraw refused (unknown_gate)"
is "[P5] ... which stays pending" "$(rev show "$H1" -j | jscan 'j["state"]')" pending
agent wtreq1 withdraw "$G3" -f "not needed"
expect_rc "withdraw of its own gate through the daemon" 0 "^$G3: withdrawn"
jcheck "... denied with the requester's words" \
    "j['state'] == 'denied' and j['feedback'] == 'withdrawn by the requester: not needed'" - <<EOF
$(rev show "$G3" -j)
EOF
agent wtreq1 withdraw "$G3" -j
expect_rc "[P5] withdrawing it again is refused (not_pending)" 2 '"code":"not_pending"'
agent wtreq1 show "$G3"
expect_rc "show of the settled gate gives its outcome" 0 "^outcome: $G3: denied"
check "... with the feedback" grep -q "feedback: withdrawn by the requester: not needed" "$OUT"
agent wtreq1 list
expect_rc "list: two gates of the agent's are pending now" 0 "^2 gates of yours pending at"
check "still no store in the agent's home" test ! -e "$WT_DIR/home-wtreq1/.local"

# A request sent again with its key (as a client does after a lost
# connection) is answered with the gate the first one made: raw messages.
cat >"$WT_DIR/key.py" <<'EOF'
import json, socket, sys
def ask(msg):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall((json.dumps(msg) + "\n").encode())
    line = s.makefile().readline()
    s.close()
    return json.loads(line)
req = {"reason": "keyed " + sys.argv[2], "commands": [{"id": "a", "as": "user", "argv": ["/usr/bin/true"], "why": "w"}]}
key = "k3y-0123456789abcdef"
print(json.dumps([ask({"op": "request", "request": req, "key": key}) for _ in range(2)] +
    [ask({"op": "request", "request": req, "key": "short"})]))
EOF
chmod 644 "$WT_DIR/key.py"
agent_env wtreq1 "$PY" "$WT_DIR/key.py" "$SOCK" wtreq1 >"$OUT" 2>"$ERR"
jcheck "a request sent again with the same key gets the same gate (repeat), a bad key is refused" \
    "j[0]['ok'] and j[1]['ok'] and j[0]['gate']['request_id'] == j[1]['gate']['request_id'] and j[1].get('repeat') is True and 'repeat' not in j[0] and j[2]['error']['code'] == 'invalid_field' and j[2]['error']['path'] == '\$.key'" "$OUT"
agent_env wtreq2 "$PY" "$WT_DIR/key.py" "$SOCK" wtreq2 >"$WT_T/out2" 2>"$ERR"
jcheck "... another requester's same key is its own: a gate of its own" \
    "j[0]['ok'] and j[1]['gate']['request_id'] == j[0]['gate']['request_id'] != '$(jscan 'j[0]["gate"]["request_id"]' "$OUT")'" "$WT_T/out2"
is "[P4] ... one gate each in the reviewer's store" "$(rev list -a -j | jscan \
    "sorted(g['reason'] for g in j if g['reason'].startswith('keyed'))")" '["keyed wtreq1","keyed wtreq2"]'

# root has no queue of its own: told so, with the daemon that runs
install -d -m 0700 "$WT_T/roothome"
env -i PATH=/usr/bin:/bin LANG=C HOME="$WT_T/roothome" "$W" list >"$OUT" 2>"$ERR"
RC=$?
expect_rc "list as root says root has no queue of its own here" 0 \
    "^root has no queue of its own here"
check "... and names the reviewer whose daemon runs" grep -q "daemons run on this host:.* $REV" "$OUT"
env -i PATH=/usr/bin:/bin LANG=C HOME="$WT_T/roothome" "$W" review >"$OUT" 2>"$ERR" </dev/null
RC=$?
expect_rc "review as root says the same, and opens no console" 2 "^root has no queue of its own here"
check "... and names the reviewer" grep -q "daemons run on this host:.* $REV" "$OUT"
is "root's list and review made no state" "$(ls -A "$WT_T/roothome")" ""

# --- one requester cannot stall, probe or fill the daemon ------------------
section "one requester cannot stall, probe or fill the daemon"
# the raw socket client, where the agents can read it
install -m 0644 "$WARRANT_TOP/tests/e2e/sock.py" "$WT_DIR/sock.py"
# the agent's files the reviewer's daemon may read: a directory open to all
install -d -m 0755 -o wtreq1 -g "$(id -g wtreq1)" "$WT_DIR/pub1"
as wtreq1 truncate -s 8G "$WT_DIR/pub1/huge"
as wtreq1 truncate -s 1000M "$WT_DIR/pub1/big"
chmod 755 "$WT_DIR/pub1/huge" "$WT_DIR/pub1/big"
# exe_req REASON PATH: a request message of one YOU command running PATH
exe_req() {
	printf '{"op":"request","request":{"reason":"%s","commands":[{"id":"a","as":"user","argv":["%s"],"why":"w"}]}}' "$1" "$2"
}
agent_env wtreq1 "$PY" "$WT_DIR/sock.py" "$SOCK" send "$(exe_req huge "$WT_DIR/pub1/huge")" >"$OUT" 2>"$ERR"
jcheck "[P5] an 8 GiB sparse executable is refused executable_too_large, unread" \
    "j['ok'] is False and j['error']['code'] == 'executable_too_large' and j['error']['path'] == '\$.commands[0].argv[0]' and 'hint' in j['error']" "$OUT"
# 1000 MiB is under the bound and hashed, by a worker: another requester's
# list is answered while it is (the request's answer is not there yet
# when the list's is)
REQ_OUT=$WT_T/big.out
: >"$REQ_OUT"
WORKERS=$(grep -c "worker for uid 61102 starts" "$DLOG")
agent_env wtreq1 "$PY" "$WT_DIR/sock.py" "$SOCK" send "$(exe_req big "$WT_DIR/pub1/big")" >"$REQ_OUT" 2>&1 &
BIGPID=$!
_i=0
until [ "$(grep -c "worker for uid 61102 starts" "$DLOG")" -gt "$WORKERS" ] || [ "$_i" -ge 600 ]; do
	_i=$((_i + 1))
	sleep 0.05
done
agent wtreq2 list -j
LIST_RC=$RC
REQ_SEEN=$(wc -c <"$REQ_OUT")
wait "$BIGPID"
is "another requester's list answers while an executable is hashed" "$LIST_RC/$REQ_SEEN" "0/0"
jcheck "... and the 1000 MiB executable is then stored" \
    "j['ok'] is True and j['gate']['state'] == 'pending'" "$REQ_OUT"
agent wtreq1 withdraw "$(jval "$REQ_OUT" 'j["gate"]["request_id"]')"

# The reviewer's home is closed (0700): a path in it is as missing to the
# agent whether something is there or not, as executable, cwd and snapshot.
RH=$WT_DIR/home-$REV
printf '#!/bin/sh\necho private\n' >"$RH/present.sh"
chown "$REV" "$RH/present.sh"
chmod 700 "$RH/present.sh"
install -d -m 0755 -o "$REV" "$RH/presentd"
# probe NAME: three requests naming NAME under the reviewer's home; the
# replies with NAME said as NAME
probe() {
	agent_env wtreq1 "$PY" "$WT_DIR/sock.py" "$SOCK" send \
	    "$(exe_req probe "$RH/$1")" \
	    "{\"op\":\"request\",\"request\":{\"reason\":\"probe\",\"cwd\":\"$RH/${1%.sh}d\",\"commands\":[{\"id\":\"a\",\"argv\":[\"/usr/bin/true\"],\"why\":\"w\"}]}}" \
	    "{\"op\":\"request\",\"request\":{\"reason\":\"probe\",\"files\":{\"f\":{\"snapshot\":\"$RH/$1\",\"mode\":\"0644\"}},\"commands\":[{\"id\":\"a\",\"argv\":[\"/usr/bin/cat\",{\"file\":\"f\"}],\"why\":\"w\"}]}}" \
	    2>&1 | sed "s|${1%.sh}|NAME|g"
}
P1=$(probe present.sh)
P2=$(probe missing.sh)
is "[P5] a path in the reviewer's 0700 home is refused exactly as a missing one (executable, cwd, snapshot)" \
    "$P1" "$P2"
printf '[%s]\n' "$(printf '%s\n' "$P1" | paste -sd, -)" >"$WT_T/probe.json"
jcheck "... each of the three as not existing" \
    "len(j) == 3 and all(r['ok'] is False for r in j) and j[0]['error']['code'] == 'bad_executable' and 'does not exist' in j[0]['error']['message'] and all('No such file or directory' in r['error']['message'] for r in j[1:])" \
    "$WT_T/probe.json"
check "... and nothing of the private script reached the agent" sh -c "! grep -q private '$WT_T/probe.json'"

# The metadata quota: request and withdraw until refused; gc prunes the
# settled gates (the chain still verifies) and the requester may ask again.
stop_daemon TERM
# the quota: what wtreq1's gates take now (the store's own count) and 6 KiB
META_KIB=$("$PY" -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
n = db.execute("SELECT COALESCE(SUM(length(CAST(manifest AS BLOB))), 0) FROM gates"
    " WHERE requester_uid = 61102").fetchone()[0]
print(n // 1024 + 7)' "$RSTATE/warrant.db")
SERVE_ARGS="--meta-quota $META_KIB --rate 1000" start_daemon ||
    bail "the daemon starts with --meta-quota"
PENDING1=$(rev list -j | jscan "len([g for g in j if g['requester'] == 'wtreq1'])")
q=0 refused=
while [ "$q" -lt 40 ] && [ -z "$refused" ]; do
	q=$((q + 1))
	mkreq "$WT_DIR/cyc.json" "cycle $q"
	AGENT_IN=$WT_DIR/cyc.json agent wtreq1 request -j
	if [ "$RC" -eq 0 ]; then
		agent wtreq1 withdraw "$(gate_of)"
	else
		refused=$q
		cp "$OUT" "$WT_T/quota.out"
		cat "$ERR" >>"$WT_T/quota.out"
	fi
done
check "[P5] request-and-withdraw cycles meet quota_exceeded (at cycle $q)" \
    grep -q 'quota_exceeded' "$WT_T/quota.out"
check "... with a sentence that says gc prunes settled gates" grep -q 'warrant gc' "$WT_T/quota.out"
check "... after some cycles were stored" [ "${refused:-0}" -gt 1 ]
rev gc --max-age 0 -j >"$WT_T/gc.json"
jcheck "gc --max-age 0 prunes the settled gates" "j['gates']['pruned'] >= $((q - 1))" "$WT_T/gc.json"
rev log --verify >"$WT_T/verify" 2>&1
is "... and warrant log --verify still passes" "$?" 0
is "... the pending gates stay" \
    "$(rev list -j | jscan "len([g for g in j if g['requester'] == 'wtreq1'])")" "$PENDING1"
mkreq "$WT_DIR/cyc.json" "after gc"
AGENT_IN=$WT_DIR/cyc.json agent wtreq1 request
expect_rc "... and the requester may ask again" 0
agent wtreq1 withdraw "$(gate_of)"
stop_daemon TERM

# A taken page port leaves the requester socket serving.
HPORT=$(free_port)
"$PY" -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
print("held", flush=True); time.sleep(120)' "$HPORT" >"$WT_T/held" &
HELD=$!
_i=0
until grep -q held "$WT_T/held" 2>/dev/null || [ "$_i" -ge 600 ]; do
	_i=$((_i + 1))
	sleep 0.05
done
SERVE_ARGS="--http 127.0.0.1:$HPORT" start_daemon
is "serve --http on a taken port still answers requesters" "$?" 0
check "... and its log says the page is not served" grep -q "the web page is not served" "$DLOG"
agent wtreq1 list
expect_rc "... a requester's list is answered" 0 "gates of yours pending at"
stop_daemon TERM
kill "$HELD" 2>/dev/null
wait "$HELD" 2>/dev/null
start_daemon || bail "the daemon starts again"

# --- daemon restarts under request -w and wait -------------------------------
# Agents make requests with `request -w` and, on exit 7, wait by the id
# printed or (no id) ask again; the reviewer settles each gate it sees
# (deny or run, in turn); meanwhile the daemon is killed (SIGKILL) and
# started again at random moments. No request may make two gates or
# none, and every wait ends with the ledger or the denial.
section "daemon restarts under request -w and wait"
CN=${CHAOS_N:-5}
RES=$WT_DIR/chaos-results
: >"$RES"
chmod 666 "$RES"
rnd_ms() { echo $(($(od -An -N2 -tu2 /dev/urandom) % $1)); }
msleep() { sleep "$(($1 / 1000)).$(printf %03d $(($1 % 1000)))"; }
# chaos_agent USER: CN requests, each until it ends other than with 7
chaos_agent() {
	_u=$1 _k=0
	while [ "$_k" -lt "$CN" ]; do
		_k=$((_k + 1))
		_f=$WT_DIR/chaos-$_u-$_k
		mkreq "$_f.json" "chaos $_u $_k"
		_t=0
		AGENT_IN=$_f.json agent_env "$_u" WARRANT_SOCKET="$SOCK" timeout -k 5 300 "$W" request -w \
		    <"$_f.json" >"$_f.out" 2>"$_f.err"
		_rc=$?
		while [ "$_rc" -eq 7 ] && [ "$_t" -lt 5 ]; do
			_t=$((_t + 1))
			_id=$(grep -o 'w-[a-z2-7]\{10\}' "$_f.err" | head -n 1)
			if [ -n "$_id" ]; then
				agent_env "$_u" WARRANT_SOCKET="$SOCK" timeout -k 5 300 "$W" wait "$_id" \
				    >"$_f.out" 2>>"$_f.err"
			else
				agent_env "$_u" WARRANT_SOCKET="$SOCK" timeout -k 5 300 "$W" request -w \
				    <"$_f.json" >"$_f.out" 2>>"$_f.err"
			fi
			_rc=$?
		done
		echo "chaos $_u $_k $_rc $_t" >>"$RES"
	done
}
chaos_agent wtreq1 &
A1=$!
chaos_agent wtreq2 &
A2=$!
# the reviewer: every pending gate it saw the round before is settled
(
	seen= turn=0
	while kill -0 "$A1" 2>/dev/null || kill -0 "$A2" 2>/dev/null; do
		now=$(rev list -j 2>/dev/null | jscan "' '.join(g['request_id'] for g in j)" 2>/dev/null)
		for g in $now; do
			case " $seen " in
			*" $g "*)
				turn=$((turn + 1))
				if [ $((turn % 2)) -eq 0 ]; then
					rev answer "$g" --deny -f "chaos" >/dev/null 2>&1
				else
					rev answer "$g" --run -j >/dev/null 2>&1
				fi ;;
			esac
		done
		seen=$now
		sleep 0.3
	done
) &
RV=$!
restarts=0
while kill -0 "$A1" 2>/dev/null || kill -0 "$A2" 2>/dev/null; do
	msleep $(($(rnd_ms 1500) + 200))
	stop_daemon KILL
	msleep "$(rnd_ms 600)"
	start_daemon || { not_ok "the daemon starts again"; break; }
	restarts=$((restarts + 1))
done
wait "$A1" "$A2" "$RV" 2>/dev/null
check "the daemon was killed and started again under the campaign (a control)" [ "$restarts" -ge 3 ]
diag "restarts: $restarts; repeats the daemon answered with the same gate: $(grep -c 'asked again with the same key' "$DLOG")"
is "every request -w or wait ended with the ledger (0) or the denial (4)" \
    "$(awk '$4 != 0 && $4 != 4' "$RES")" ""
is "... for each of the $((2 * CN)) requests" "$(grep -c . "$RES")" $((2 * CN))
is "... and none exited 7 first: the daemon was always back within its patience" \
    "$(awk '$5 != 0' "$RES")" ""
bad=
for f in "$WT_DIR"/chaos-wtreq*.out; do
	grep -q ': approved$' "$f" || grep -q '^feedback: chaos' "$f" || bad="$bad ${f##*/}"
done
is "... each output has the ledger or the denial's feedback" "$bad" ""
rev list -a -j -l 1000 >"$WT_T/chaos-all.json"
is "[P4] no request made two gates, none was lost" "$(jscan \
    "' '.join(sorted('%s=%d' % (r, n) for r, n in __import__('collections').Counter(g['reason'] for g in j if g['reason'].startswith('chaos')).items() if n != 1)) + ' total=%d' % sum(1 for g in j if g['reason'].startswith('chaos'))" \
    "$WT_T/chaos-all.json")" " total=$((2 * CN))"
# the last one stopped cleanly: the sections after it find no socket
stop_daemon TERM
check "the daemon stopped by SIGTERM removed its socket" [ ! -e "$SOCK" ]
section "the campaign is over"

# --- remove ----------------------------------------------------------------
wq remove --reviewer "$REV"
expect_rc "remove without USER is a usage error" 2 'at least one USER'
refused_snap "remove refuses a user name warrant does not accept" invalid_name remove --reviewer "$REV" 'Wt.Req'
refused_snap "remove refuses a reviewer name warrant does not accept" invalid_name remove --reviewer Bad.Rev wtreq2
wq remove --reviewer "$REV" wtreq2
expect_rc "remove --reviewer $REV wtreq2" 0 "requester wtreq2: removed from $GRP"
check "... wtreq2 is out of the group, wtreq1 still in" sh -c \
    "[ \"\$(getent group '$GRP' | cut -d: -f4)\" = wtreq1 ] && ! id -nG wtreq2 | grep -qw '$GRP'"
check "... the directory and the tmpfiles.d entry stay" sh -c "[ -d '$DIR' ] && [ -f '$TMPF' ]"
check "... and wtreq2 can no longer reach the directory" fails as wtreq2 test -x "$DIR"
b=$(snap)
wq remove --reviewer "$REV" wtreq2
expect_rc "remove again: nothing to do" 0 "requester wtreq2: not in $GRP (nothing to do)"
is "... and nothing changed" "$(snap)" "$b"
wq list -j
jcheck "list -j shows the one requester left" \
    '[x["members"] for x in j if x["reviewer"] == "wtreqrev"] == [["wtreq1"]]' "$OUT"

# --- remove --all: the set-up taken down ------------------------------
wq remove --reviewer "$REV" --all wtreq1
expect_rc "remove with USERs and --all is a usage error" 2 'USERs or --all, not both'
wq_as 61102 remove --reviewer "$REV" --all
expect_rc "[P5] remove --all as non-root is refused" 2 'refused (not_root)'
is "add recorded the group it made (its gid)" "$(cat "$WARRANT_BOX_DIR/$GRP.group" 2>&1)" \
    "$(getent group "$GRP" | cut -d: -f3)"
# answers PATH: something listens on the socket PATH.
answers() {
	"$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$1" 2>/dev/null
}
# A daemon: the reviewer listening on the socket's name (setpriv execs
# env, which execs python: $! is the listener's pid).
setpriv --reuid="$REV" --regid="$(id -g "$REV")" --init-groups env -i PATH=/usr/bin:/bin \
    "$PY" -c "import socket, time; s = socket.socket(socket.AF_UNIX); s.bind('$DIR/req.sock'); s.listen(16); time.sleep(120)" &
LPID=$!
i=0
while ! answers "$DIR/req.sock" && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
check "a daemon answers on $DIR/req.sock" answers "$DIR/req.sock"
refused_snap "remove --all refuses while a daemon answers on the socket" daemon_running \
    remove --reviewer "$REV" --all
kill "$LPID"
wait "$LPID" 2>/dev/null
if [ -S "$DIR/req.sock" ] && ! answers "$DIR/req.sock"; then
	ok "the daemon is gone, its socket left behind"
else
	not_ok "the daemon is gone, its socket left behind"
fi
touch "$DIR/planted"
refused_snap "remove --all refuses a directory holding anything but the socket" directory_not_empty \
    remove --reviewer "$REV" --all
rm -f "$DIR/planted"
cp "$TMPF" "$WT_T/tmpfiles"
echo '# changed by hand' >>"$TMPF"
refused_snap "remove --all refuses a tmpfiles.d entry someone changed" tmpfiles_differs \
    remove --reviewer "$REV" --all
cat "$WT_T/tmpfiles" >"$TMPF"
usermod -g "$GRP" wtreq2
refused_snap "remove --all refuses the primary group of a user" primary_group \
    remove --reviewer "$REV" --all
usermod -g wtreq2 wtreq2
groupadd --system warrant-wtreq2
wq remove --reviewer wtreq2 --all
expect_rc "[P5] remove --all refuses a group warrant did not make" 2 'refused (not_warrant_group)'
check "[P5] ... which stays" getent group warrant-wtreq2
groupdel warrant-wtreq2
others=$(ls -A /run/warrant | grep -vx "$REV")
wq remove --reviewer "$REV" --all
expect_rc "remove --all takes the set-up down" 0 \
    "^group $GRP: removed (gid [0-9]*; requesters who lose it: wtreq1)$"
for l in "socket $DIR/req.sock: removed (no daemon answered on it)" "directory $DIR: removed" \
    "tmpfiles $TMPF: removed" "record $WARRANT_BOX_DIR/$GRP.group: removed" \
    "box directory $WARRANT_BOX_DIR: removed (it recorded nothing any more)"; do
	check "... says: $l" grep -qxF -- "$l" "$OUT"
done
check "... the group, the directory, the entry and the box directory are gone" sh -c \
    "! getent group '$GRP' >/dev/null && [ ! -e '$DIR' ] && [ ! -e '$TMPF' ] && [ ! -e '$WARRANT_BOX_DIR' ]"
check "... wtreq1 is in no warrant group" sh -c "! id -nG wtreq1 | grep -qw '$GRP'"
if [ -z "$others" ] && [ ! -e /usr/lib/tmpfiles.d/warrant.conf ]; then
	check "... and /run/warrant, empty now, is removed" sh -c \
	    "[ ! -e /run/warrant ] && grep -qx 'directory /run/warrant: removed (empty)' '$OUT'"
else
	check "... /run/warrant stays (other reviewers', or the package's)" sh -c \
	    "[ -d /run/warrant ] && ! grep -q 'directory /run/warrant:' '$OUT'"
fi
b=$(snap)
wq remove --reviewer "$REV" --all
expect_rc "a second remove --all removes nothing and says so" 0 \
    "^reviewer $REV: nothing to remove"
is "... and changes nothing" "$(snap)" "$b"
check "... nor makes a box directory" test ! -e "$WARRANT_BOX_DIR"
mkdir -p /run/warrant
wq add --reviewer "$REV" wtreq1
expect_rc "add makes it all again" 0 "group $GRP: created"
check "... and records the new group" test -f "$WARRANT_BOX_DIR/$GRP.group"

# --- the daemon down: requesters fail at once ---------------------------
# With no daemon seen running, request, list, wait and the MCP tool fail
# at once (exit 7, the MCP tool's error): no socket, or a socket a daemon
# left behind long after it started. Only a daemon that has just started
# (or one the client talked to) is waited for, across its restart.
section "the daemon down: requesters fail at once"
mkreq "$WT_DIR/down.json" "while the daemon is down"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"down","version":"1"}}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"request_commands","arguments":{"reason":"mcp while down","commands":[{"id":"a","why":"w","as":"user","argv":["/usr/bin/true"]}]}}}' \
    >"$WT_DIR/down.rpc"
chmod 644 "$WT_DIR/down.rpc"
# down_checks WHAT GREP: each requester command fails at once, saying GREP
down_checks() {
	AGENT_IN=$WT_DIR/down.json agent wtreq1 request
	expect_rc "request with $1 exits 7" 7 "$2"
	check "... at once: no waiting for a restart" sh -c "! grep -q 'waiting up to' '$ERR'"
	agent wtreq1 list
	expect_rc "list with $1 exits 7" 7 "$2"
	check "... at once" sh -c "! grep -q 'waiting up to' '$ERR'"
	agent wtreq1 wait w-aaaaaaaaaa
	expect_rc "wait with $1 exits 7" 7 "$2"
	check "... at once" sh -c "! grep -q 'waiting up to' '$ERR'"
	AGENT_IN=$WT_DIR/down.rpc agent wtreq1 mcp
	jcheck "the MCP tool with $1 answers its error" \
	    "j['id'] == 2 and j['result']['isError'] and 'cannot reach the reviewer' in j['result']['content'][0]['text']" - <<EOF
$(grep '"id":2' "$OUT")
EOF
	check "... at once" sh -c "! grep -q 'waiting up to' '$ERR'"
}
check "no daemon runs, no socket (a control)" test ! -e "$SOCK"
down_checks "no socket" "cannot reach the reviewer's daemon at $SOCK"
start_daemon || bail "the reviewer's daemon starts again"
stop_daemon KILL
check "a killed daemon leaves its socket behind (a control)" test -S "$SOCK"
# a daemon that ran for a while: its socket bound a minute ago
"$PY" -c 'import os, sys, time; t = time.time() - 60; os.utime(sys.argv[1], (t, t))' "$SOCK"
down_checks "a stopped daemon's socket" "no daemon runs there"
# a daemon that has just started and died is restarting: waited for, and said
start_daemon || bail "the reviewer's daemon starts again"
stop_daemon KILL
agent_env wtreq1 WARRANT_SOCKET="$SOCK" "$W" request <"$WT_DIR/down.json" >"$OUT" 2>"$ERR" &
RPID=$!
i=0
while ! grep -q 'waiting up to' "$ERR" 2>/dev/null && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
check "a request meeting a daemon that has just started and died says it waits for the restart" \
    grep -q "the reviewer's daemon at $SOCK went away .*waiting up to 45 s for it to restart" "$ERR"
start_daemon || bail "the reviewer's daemon starts again"
wait "$RPID"
check "... and is stored once the daemon is back" [ $? -eq 0 ]
jcheck "... with its gate" "j['request_id'].startswith('w-')" "$OUT"
stop_daemon TERM

done_testing
