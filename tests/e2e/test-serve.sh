#!/bin/sh
# SPDX-License-Identifier: ISC
# warrant serve end to end: agents as their own users (docs/design.md §11,
# docs/protocol.md). As root: the reviewer wt-reviewer (a canary password,
# group sudo), two box users made by `warrant box init --reviewer`
# (wt-agent-a, wt-agent-b: the agent profile), an outsider (wt-reviewer2),
# the reviewer's daemon on the real /run/warrant/wt-reviewer/req.sock, the
# real sudo prompt driven through a pty, and raw socket clients
# (tests/e2e/sock.py) for the hostile cases.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-serve.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the daemon tests create users and groups and run as root"
sr_need || bail "the programs the real-sudo tests drive are installed"

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-serve-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
A=wt-agent-a
B=wt-agent-b
REV=$SR_USER
GRP=warrant-$REV
SOCK=/run/warrant/$REV/req.sock
MARK=/root/wt-serve-$TAG
SOCKPY="$SR_DIR/sock.py"

cleanup() {
	stop_daemon KILL
	rm -rf "/tmp/wt-blob-$TAG"
	for p in $(pgrep -u "$A" 2>/dev/null) $(pgrep -u "$B" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
	for u in "$A" "$B"; do
		userdel -r "$u" >/dev/null 2>&1
		rm -f "/etc/sudoers.d/warrant-box-$u"
	done
	requesters_teardown "$REV"
	rm -f "$MARK"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

sr_user_setup || bail "the reviewer users are set up"
sr_install || bail "warrant is installed in its private prefix"
W=$SR_WARRANT
cp "$WARRANT_TOP/tests/e2e/sock.py" "$SOCKPY"

# as USER CMD...: run as a box user, with its own groups and a clean
# environment pointing at the daemon.
as() {
	as_u=$1
	shift
	setpriv --reuid="$as_u" --regid="$(id -g "$as_u")" --init-groups \
	    env -i HOME="$(getent passwd "$as_u" | cut -d: -f6)" USER="$as_u" \
	    PATH=/usr/bin:/bin LANG=C WARRANT_SOCKET="$SOCK" "$@"
}
# rev CMD...: run warrant as the reviewer, on its store.
rev() { sr_as "$REV" "$W" "$@"; }
# start_daemon: warrant serve as the reviewer, with SERVE_OPTS (words
# separated by newlines); DPID is the daemon itself.
start_daemon() {
	(
		set -f
		IFS=$SR_NL
		set -- $(sr_as_words "$REV") "$W" serve ${SERVE_OPTS:-}
		unset IFS
		exec "$@"
	) 2>>"$SR_DIR/serve.log" &
	DPID=$!
	i=0
	while [ ! -S "$SOCK" ] || ! "$PY" "$SOCKPY" "$SOCK" connect >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || return 1
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.1
	done
}
# req USER FILE [ARGS]: a request as USER through the daemon; the
# descriptor in FILE.out, errors in FILE.err, the status in RC; G the id.
req() {
	rq_u=$1 rq_f=$2
	shift 2
	as "$rq_u" "$W" request "$@" <"$rq_f" >"$rq_f.out" 2>"$rq_f.err"
	RC=$?
	G=$(jscan 'j["request_id"]' "$rq_f.out" 2>/dev/null)
}
pending_of() { rev list -j | jscan "len([g for g in j if g['requester'] == '$1'])"; }
mkreq() {
	printf '{"reason":"%s","commands":[{"id":"%s","argv":%s,"why":"test"}]}\n' "$2" "$3" "$4" \
	    >"$SR_DIR/$1.json"
	chmod 644 "$SR_DIR/$1.json"
}

# ------------------------------------------------------------ provisioning
section "box users with the agent profile"
for u in "$A" "$B"; do
	"$W" box init --user "$u" --reviewer "$REV" >"$SR_DIR/init-$u" 2>&1
	check "box init --user $u --reviewer $REV" [ $? -eq 0 ]
done
check "the agent user is a member of $GRP" sh -c "id -nG $A | tr ' ' '\n' | grep -qx $GRP"
as "$A" /usr/bin/sudo -n true </dev/null >/dev/null 2>&1
check "[P3] the agent user cannot sudo -n (before any request)" [ $? -ne 0 ]

# ------------------------------------------------------- daemon not running
section "no daemon"
mkreq touch "touch $TAG" t "[\"/usr/bin/touch\",\"$MARK\"]"
req "$A" "$SR_DIR/touch.json"
is "a request with no daemon running exits 7" "$RC" 7
check "the error names the socket and how to start the daemon" \
    sh -c "grep -q '$SOCK' '$SR_DIR/touch.json.err' && grep -q 'warrant serve' '$SR_DIR/touch.json.err'"
as "$A" "$W" wait w-aaaaaaaaaa >/dev/null 2>&1
is "wait with no daemon running exits 7" "$?" 7

# ----------------------------------------------------------------- the daemon
section "start"
start_daemon || bail "warrant serve starts and answers on $SOCK"
ok "warrant serve starts and answers on $SOCK"
is "the socket belongs to the reviewer and the requester group, mode 0660" \
    "$(stat -c '%U %G %a %F' "$SOCK")" "$REV $GRP 660 socket"

section "a target that hangs holds up no other requester"
# first, while no requester is near its rate (B's is counted below: A asks)
# an enrolled machine whose "sshd" accepts and never speaks: ssh waits
# for its banner (ConnectTimeout), the resolution with it
"$PY" -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
time.sleep(90)' "$SR_DIR/hang.port" &
HANGPID=$!
i=0
while [ ! -s "$SR_DIR/hang.port" ] && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
HPORT=$(cat "$SR_DIR/hang.port")
"$PY" -c 'import json, sys
path, port, w = sys.argv[1], int(sys.argv[2]), sys.argv[3]
json.dump({"slow": {"name": "slow", "destination": "ssh://nobody@127.0.0.1:%d" % port,
    "user": "nobody", "host": "127.0.0.1", "port": port, "warrant": w,
    "host_key": "slow ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHVzZWQgb25seSBieSB0aGUgdGVzdHMgMDAwMDAw\n",
    "host_key_sha256": "0" * 64, "contract": {"schema_version": 1, "runner": "/x",
    "runner_sha256": "0" * 64}}}, open(path, "w"))' "$SR_STATE/machines.json" "$HPORT" "$W"
chown "$REV" "$SR_STATE/machines.json" && chmod 0600 "$SR_STATE/machines.json"
printf '{"reason":"slow %s","machine":"slow","commands":[{"id":"t","argv":["/usr/bin/true"],"why":"test"}]}\n' \
    "$TAG" >"$SR_DIR/slow.json"
chmod 644 "$SR_DIR/slow.json"
rm -f "$SR_DIR/slow.done"
( req "$A" "$SR_DIR/slow.json" -j; echo "$RC" >"$SR_DIR/slow.done" ) &
SLOWPID=$!
# the daemon took A's request: its worker is in ssh now
i=0
while ! pgrep -u "$REV" -f "HostKeyAlias=slow" >/dev/null 2>&1 && [ $i -lt 100 ]; do
	i=$((i + 1)); sleep 0.1
done
check "A's request for the hung machine is being resolved (ssh runs)" \
    pgrep -u "$REV" -f "HostKeyAlias=slow"
r=$(as "$B" timeout 20 "$PY" "$SOCKPY" "$SOCK" send '{"op":"list"}')
jcheck "[P4] another requester is answered while the resolution hangs" 'j["ok"] is True' - <<EOF
$r
EOF
check "... and A's resolution was still pending when B was answered" \
    sh -c "[ ! -e '$SR_DIR/slow.done' ] && pgrep -u '$REV' -f 'HostKeyAlias=slow' >/dev/null"
wait "$SLOWPID"
is "A's request ends refused (exit 2)" "$(cat "$SR_DIR/slow.done" 2>/dev/null)" 2
jcheck "... as machine_unreachable, nothing stored" \
    'j["error"]["code"] == "machine_unreachable"' "$SR_DIR/slow.json.out"
kill "$HANGPID" 2>/dev/null
wait "$HANGPID" 2>/dev/null
rm -f "$SR_STATE/machines.json"

section "a requester on another uid"
req "$A" "$SR_DIR/touch.json" -o agent-a
is "[P4] the agent user's request through the socket is stored (exit 0)" "$RC" 0
GA=$G
jcheck "the descriptor is the usual one (pending, sealed)" \
    'j["state"] == "pending" and len(j["manifest_sha256"]) == 64' "$SR_DIR/touch.json.out"
rev show "$GA" -j >"$SR_DIR/ga.json" 2>&1
jcheck "the reviewer's store has it with the requester's name and uid" \
    "j['requester'] == '$A' and j['requester_uid'] == $(id -u "$A") and j['agent'] == 'agent-a'" \
    "$SR_DIR/ga.json"
jcheck "the gate records the requesting process (pid and start time)" \
    'j["requester_pid"] > 0 and j["requester_start"] > 0' "$SR_DIR/ga.json"
rev show "$GA" >"$SR_DIR/ga.txt" 2>&1
check "show says who asked: $A (uid N)" grep -q "$A (uid $(id -u "$A"))" "$SR_DIR/ga.txt"
rev list >"$SR_DIR/list.txt" 2>&1
check "list says who asked" grep -q "from $A (uid $(id -u "$A"))" "$SR_DIR/list.txt"
rev log >"$SR_DIR/log.txt" 2>&1
check "log names the requester of the request event" \
    grep -q "request .*$GA.*requester $A (uid $(id -u "$A"))" "$SR_DIR/log.txt"

section "who may connect"
as wt-reviewer2 "$W" request --to "$REV" <"$SR_DIR/touch.json" >/dev/null 2>"$SR_DIR/out.err"
is "a user outside $GRP cannot reach the socket (exit 7)" "$?" 7
check "and is told it is not a requester" grep -q 'not a requester' "$SR_DIR/out.err"
gid=$(getent group "$GRP" | cut -d: -f3)
r=$(cd / && setpriv --reuid=wt-reviewer2 --regid="$(id -g wt-reviewer2)" --groups="$gid" \
    "$PY" "$SOCKPY" "$SOCK" send '{"op":"list"}' 2>&1)
jcheck "a process holding the group but not a member in the group database is refused" \
    'j["ok"] is False and j["error"]["code"] == "not_a_requester"' - <<EOF
$r
EOF
r=$("$PY" "$SOCKPY" "$SOCK" send '{"op":"list"}')
jcheck "root is refused (not_a_requester)" \
    'j["ok"] is False and j["error"]["code"] == "not_a_requester"' - <<EOF
$r
EOF

section "rate"
k=0 code= GB=
while [ "$k" -lt 40 ]; do
	mkreq r "rate $k" r '["/usr/bin/true"]'
	req "$B" "$SR_DIR/r.json" -j
	if [ "$RC" -ne 0 ]; then
		code=$(jscan 'j["error"]["code"]' "$SR_DIR/r.json.out")
		break
	fi
	GB=$G
	as "$B" "$PY" "$SOCKPY" "$SOCK" send "{\"op\":\"withdraw\",\"id\":\"$G\"}" >/dev/null
	k=$((k + 1))
done
is "30 requests in a minute pass, the 31st is refused (quota_exceeded)" "$k:$code" "30:quota_exceeded"

section "each requester sees only its own gates"
as "$A" "$W" wait -t 0 "$GB" >/dev/null 2>"$SR_DIR/waitb.err"
is "A waiting on B's gate is refused (exit 2)" "$?" 2
check "with unknown_gate (as for a gate that does not exist)" grep -q 'no gate of yours' "$SR_DIR/waitb.err"
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" send "{\"op\":\"withdraw\",\"id\":\"$GB\"}" '{"op":"list","all":true}')
jcheck "A cannot withdraw B's gate, nor learn it is settled" 'objs[0]["error"]["code"] == "unknown_gate"' - <<EOF
$r
EOF
jcheck "A's list holds only A's gates" \
    "j['ok'] and j['gates'] and all(g['requester'] == '$A' for g in j['gates'])" - <<EOF
$r
EOF

section "approval bound to what was shown"
pty_rv right expect-bad 60 "$W" answer "$GA" --run --expect 000000000000
check "[P1] --expect with another hash is refused" grep -q gate_changed "$PTY_LOG"
is "[P2] and no password was asked" "$(pty_prompts)" 0
check "[P1] nothing ran" [ ! -e "$MARK" ]
is "the gate is still pending" "$(sr_state "$GA")" pending

section "the reviewer approves through the real sudo prompt"
SHA=$(jscan 'j["manifest_sha256"]' "$SR_DIR/touch.json.out")
as "$A" "$W" wait "$GA" -j >"$SR_DIR/wait-a.json" 2>"$SR_DIR/wait-a.err" &
WPID=$!
pty_rv right approve 90 "$W" answer "$GA" --run --expect "$(echo "$SHA" | cut -c1-16)"
check "[P1] the approved ROOT command ran as root" sh -c "[ \"\$(stat -c %U '$MARK' 2>/dev/null)\" = root ]"
is "[P2] sudo asked for the password once" "$(pty_prompts)" 1
wait "$WPID"
is "[P4] the agent's wait through the daemon exits 0" "$?" 0
jcheck "and prints the ledger" \
    'j["state"] == "approved" and entry(j, "t")["status"] == "ran"' "$SR_DIR/wait-a.json"
check "[P2] no sudo ticket is left for the reviewer" no_ticket_anywhere
as "$A" /usr/bin/sudo -n true </dev/null >/dev/null 2>&1
check "[P3] the agent user still cannot sudo -n" [ $? -ne 0 ]

section "a withdrawal cannot race an approval under way"
NAP="4.$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')"
mkreq nap "nap $TAG" n "[\"/usr/bin/sleep\",\"$NAP\"]"
req "$A" "$SR_DIR/nap.json"
GN=$G
( pty_rv right nap 90 "$W" answer "$GN" --run --no-detach ) &
NPID=$!
i=0
while [ -z "$(running_pids "sleep $NAP")" ] && [ "$i" -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
check "the approved command is running" [ -n "$(running_pids "sleep $NAP")" ]
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" send "{\"op\":\"withdraw\",\"id\":\"$GN\"}")
jcheck "[P7] withdrawing a gate whose approval runs is refused (not_pending)" \
    'j["error"]["code"] == "not_pending"' - <<EOF
$r
EOF
wait "$NPID"
jcheck "[P7] the gate settles as approved with the command's ledger" \
    'j["state"] == "approved"' - <<EOF
$(rev show "$GN" -j)
EOF

section "quota"
have=$(pending_of "$A")
i=$have
while [ "$i" -lt 16 ]; do
	mkreq q$i "quota $i" q '["/usr/bin/true"]'
	req "$A" "$SR_DIR/q$i.json"
	[ "$RC" -eq 0 ] || break
	i=$((i + 1))
done
is "16 pending gates are accepted" "$(pending_of "$A")" 16
mkreq q16 "quota 16" q '["/usr/bin/true"]'
req "$A" "$SR_DIR/q16.json" -j
is "the 17th is refused (exit 2)" "$RC" 2
jcheck "with quota_exceeded" 'j["error"]["code"] == "quota_exceeded"' "$SR_DIR/q16.json.out"
is "and nothing was stored" "$(pending_of "$A")" 16
ids=$(rev list -j | jscan "' '.join(g['request_id'] for g in j if g['requester'] == '$A')")
# one note limit everywhere (FEEDBACK_MAX): 4097 bytes refused, 4096 taken
LASTQ=${ids##* }
over=$("$PY" -c 'import json, sys; print(json.dumps({"op": "withdraw", "id": sys.argv[1],
    "feedback": "\u00e9" * 2048 + sys.argv[2]}))' "$LASTQ" x)
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" send "$over")
jcheck "a withdrawal's note over 4096 bytes is refused with the one rule (invalid_field)" \
    'j["error"]["code"] == "invalid_field" and j["error"]["message"] == "a denial note is UTF-8 text of at most 4096 bytes"' - <<EOF
$r
EOF
is "... and the gate stays pending" "$(sr_state "$LASTQ")" pending
over=$("$PY" -c 'import json, sys; print(json.dumps({"op": "withdraw", "id": sys.argv[1],
    "feedback": "\u00e9" * 2048}))' "$LASTQ")
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" send "$over")
jcheck "a note of exactly 4096 bytes is taken" 'j["ok"] is True' - <<EOF
$r
EOF
for id in $ids; do
	as "$A" "$PY" "$SOCKPY" "$SOCK" send "{\"op\":\"withdraw\",\"id\":\"$id\",\"feedback\":\"done\"}" \
	    >>"$SR_DIR/withdraw.out"
done
is "the requester withdraws its own gates" "$(pending_of "$A")" 0
jcheck "a withdrawn gate is denied with the requester's words" \
    "j['state'] == 'denied' and 'withdrawn by the requester: done' in j['feedback']" - <<EOF
$(rev show "$(echo "$ids" | cut -d' ' -f1)" -j)
EOF

section "bad input on the socket"
total=$(rev list -j | jscan 'len(j)')
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" send 'garbage' '{"op":"list"}' '{"op":"fly"}' \
    '{"op":"list","all":"yes"}' '{"op":"wait","id":"w-aaaa","timeout":-1}' \
    "{\"op\":\"request\",\"request\":$(cat "$SR_DIR/touch.json"),\"requester\":\"$REV\"}" \
    '{"op":"request","request":[1]}' '{"op":"wait"}' '{"op":"list","op":"wait"}')
jcheck "malformed lines get invalid_json and the connection goes on" \
    'objs[0]["error"]["code"] == "invalid_json" and objs[1]["ok"] is True' - <<EOF
$r
EOF
jcheck "an unknown op is unknown_op; wrong types are invalid_field" \
    '[o.get("error", {}).get("code") for o in objs[2:]] == ["unknown_op", "invalid_field", "invalid_field", "invalid_field", "invalid_field", "invalid_field", "invalid_json"]' - <<EOF
$r
EOF
is "a request naming its own requester is refused and stores nothing" "$(rev list -j | jscan 'len(j)')" "$total"
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" big 300000)
is "a line over 256 KiB gets message_too_large, then the connection is closed" \
    "$(echo "$r" | jscan 'objs[0]["error"]["code"]' 2>/dev/null) $(echo "$r" | tail -1)" \
    "message_too_large closed"
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" halfclose '{"op":"list"}')
jcheck "a client that half-closes after its message still gets the reply" 'j["ok"] is True' - <<EOF
$r
EOF
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" raw "$(printf '{"op":"list","x":"\\u0000"}')")
jcheck "a NUL escaped in a string is invalid_json" 'j["error"]["code"] == "invalid_json"' - <<EOF
$r
EOF
as "$A" "$PY" "$SOCKPY" "$SOCK" slow '{"op":"list"                                               }' 40 >"$SR_DIR/slow.out" 2>&1 &
SLOW=$!
r=$(as "$B" "$PY" "$SOCKPY" "$SOCK" flood 20)
jcheck "a flood of connections: 8 per requester are served, the rest get busy" \
    'j.get("ok") == 8 and j.get("busy") == 12' - <<EOF
$r
EOF
r=$(as "$A" "$PY" "$SOCKPY" "$SOCK" send '{"op":"list"}')
jcheck "another requester is served meanwhile" 'j["ok"] is True' - <<EOF
$r
EOF
wait "$SLOW"
is "a client sending one byte a second is disconnected after 30 s" "$(cat "$SR_DIR/slow.out")" slow-closed

section "MCP through the daemon (official SDK client, as the agent user)"
MCP_DIR=$WARRANT_TOP/tests/mcp
if [ ! -d "$MCP_DIR/node_modules/@modelcontextprotocol/sdk" ]; then
	(cd "$MCP_DIR" && npm ci --no-audit --no-fund --loglevel=error) >"$SR_DIR/npm" 2>&1
fi
if [ -d "$MCP_DIR/node_modules/@modelcontextprotocol/sdk" ]; then
	cp -r "$MCP_DIR" "$SR_DIR/mcp"
	chmod -R a+rX "$SR_DIR/mcp"
	(cd "$SR_DIR/mcp" && as "$A" env WARRANT_BIN="$W" WT_TAG="$TAG" \
	    WARRANT_SOCKET="$SOCK" timeout -k 5 150 node socket-agent.mjs) \
	    >"$SR_DIR/mcp.out" 2>"$SR_DIR/mcp.err" &
	MPID=$!
	gm= i=0
	while [ -z "$gm" ] && [ "$i" -lt 300 ]; do
		sleep 0.2
		gm=$(rev list -j | jscan "' '.join(g['request_id'] for g in j if g['reason'] == 'mcp-socket $TAG')")
		i=$((i + 1))
	done
	check "the MCP call's gate reaches the reviewer's queue" [ -n "$gm" ]
	jcheck "with the agent user as requester" "j['requester'] == '$A'" - <<EOF
$(rev show "$gm" -j)
EOF
	rev answer "$gm" --run >"$SR_DIR/mcp-answer" 2>&1
	check "the reviewer approves the YOU-only call without sudo" [ $? -eq 0 ]
	wait "$MPID"
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "mcp: ${line#ok - }" ;;
		"not ok - "*) not_ok "mcp: ${line#not ok - }" ;;
		"#"*) printf '%s\n' "$line" ;;
		esac
	done <"$SR_DIR/mcp.out"
	grep -q '^ok - ' "$SR_DIR/mcp.out" || { not_ok "the MCP client ran"; diag "$(tail -5 "$SR_DIR/mcp.err")"; }
	ga=$(rev list -a -j | jscan "' '.join(g['request_id'] for g in j if g['reason'] == 'abandon $TAG')")
	jcheck "a call still waiting when the agent's session ends is withdrawn through the daemon" \
	    "j['state'] == 'denied' and j['feedback'].startswith('withdrawn by the requester: the agent')" - <<EOF
$(rev show "$ga" -j)
EOF
else
	not_ok "the MCP SDK is installed (npm ci in tests/mcp)"
fi

section "the daemon tells the reviewer"
# A stand-in notify-send that records its arguments, only where there is
# no real one (as test-mcp.sh does); the daemon runs in a "desktop".
if [ ! -e /usr/bin/notify-send ]; then
	install -d -o "$REV" "$SR_DIR/notify"
	at_exit 'rm -f /usr/bin/notify-send'
	printf '#!/bin/sh\nfor a; do printf "%%s\\n" "$a"; done >"%s/notify/args"\n' "$SR_DIR" \
	    >/usr/bin/notify-send
	chmod 755 /usr/bin/notify-send
	stop_daemon TERM
	SR_EXTRA_ENV=DISPLAY=:97 start_daemon
	mkreq note "notify $TAG" t '["/usr/bin/true"]'
	req "$A" "$SR_DIR/note.json"
	i=0
	while [ ! -s "$SR_DIR/notify/args" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	check "a request from an agent user makes the daemon notify the reviewer, naming the gate" \
	    grep -q "warrant answer $G" "$SR_DIR/notify/args"
	rm -f /usr/bin/notify-send
	stop_daemon TERM
	start_daemon || bail "warrant serve starts again"
else
	skip "the daemon runs notify-send" "needs no real /usr/bin/notify-send"
fi

section "the daemon killed and restarted"
mkreq k "kill $TAG" k '["/usr/bin/true"]'
req "$A" "$SR_DIR/k.json"
GK=$G
as "$A" "$W" wait "$GK" -j >"$SR_DIR/wait-k.json" 2>"$SR_DIR/wait-k.err" &
WPID=$!
sleep 1
stop_daemon KILL
check "[P4] a SIGKILLed daemon leaves the socket file behind" [ -S "$SOCK" ]
start_daemon
check "a restarted daemon replaces its stale socket" [ $? -eq 0 ]
is "[P4] the restarted daemon serves the same queue" "$(sr_state "$GK")" pending
rev answer "$GK" --deny -f "not now $TAG" >/dev/null 2>&1
wait "$WPID"
is "a wait across the restart ends with the outcome (denied: exit 4)" "$?" 4
jcheck "with the reviewer's feedback" "j['feedback'] == 'not now $TAG'" "$SR_DIR/wait-k.json"

section "chaos: the daemon killed at random moments"
# Two requesters ask and withdraw in a loop while the daemon is SIGKILLed
# and restarted every 50-350 ms. Every request that got a descriptor must
# be in the reviewer's store afterwards, and the store must be intact.
mkreq c "chaos $TAG" c '["/usr/bin/true"]'
for u in "$A" "$B"; do
	(
		k=0
		while [ "$k" -lt 25 ]; do
			if as "$u" "$W" request <"$SR_DIR/c.json" >"$SR_DIR/c-$u.$k" 2>/dev/null; then
				id=$(jscan 'j["request_id"]' "$SR_DIR/c-$u.$k")
				echo "$id" >>"$SR_DIR/told-$u"
				as "$u" "$PY" "$SOCKPY" "$SOCK" send \
				    "{\"op\":\"withdraw\",\"id\":\"$id\"}" >/dev/null 2>&1
			fi
			k=$((k + 1))
		done
	) &
	eval "CH_$(echo "$u" | tr -c 'a-z\n' _)=\$!"
done
kills=0
while kill -0 "$CH_wt_agent_a" 2>/dev/null || kill -0 "$CH_wt_agent_b" 2>/dev/null; do
	sleep "0.$(($(od -An -N1 -tu1 /dev/urandom) % 3 + 1))"
	stop_daemon KILL
	kills=$((kills + 1))
	start_daemon || break
done
wait "$CH_wt_agent_a" "$CH_wt_agent_b"
diag "$kills daemon kills; $(cat "$SR_DIR"/told-* 2>/dev/null | wc -l) requests answered with a descriptor"
rev list -a -l 1000 -j >"$SR_DIR/all.json"
lost=0
for id in $(cat "$SR_DIR"/told-* 2>/dev/null); do
	jscan "any(g['request_id'] == '$id' for g in j)" "$SR_DIR/all.json" | grep -qx true ||
	    lost=$((lost + 1))
done
is "[P4] no gate an agent was told about is lost" "$lost" 0
check "the daemon served requests between the kills" [ -s "$SR_DIR/told-$A" ] || [ -s "$SR_DIR/told-$B" ]
is "the store is intact (integrity_check)" \
    "$(sr_as "$REV" sqlite3 "$SR_STATE/warrant.db" 'PRAGMA integrity_check')" ok
rev log --verify >/dev/null 2>&1
is "the audit chain verifies" "$?" 0

section "reviewed files: what requesters may hold, what the store may take, what gc frees"
BLOBS=$SR_STATE/blobs/sha256
nblobs() { find "$BLOBS" -maxdepth 1 -type f -name '[0-9a-f]*' 2>/dev/null | wc -l; }
FD=/tmp/wt-blob-$TAG
install -d -m 0755 -o "$A" "$FD"
as "$A" truncate -s 64M "$FD/sparse.bin"
for f in one two four; do as "$A" sh -c "head -c 1048576 /dev/urandom >'$FD/$f.bin'"; done
as "$A" sh -c "head -c 2097152 /dev/urandom >'$FD/big.bin'"
chmod 0644 "$FD"/*.bin
is "the sparse file takes no blocks on the agent's disk" "$(stat -c %b "$FD/sparse.bin")" 0
# filereq NAME FILE: a request whose command is handed the snapshot of FILE
filereq() {
	printf '{"reason":"blob %s","files":{"x":{"snapshot":"%s","mode":"0644"}},"commands":[{"id":"c","argv":["/usr/bin/true",{"file":"x"}],"why":"test"}]}\n' \
	    "$1" "$2" >"$SR_DIR/$1.json"
	chmod 644 "$SR_DIR/$1.json"
}
stop_daemon TERM
SERVE_OPTS="--blob-quota${SR_NL}2${SR_NL}--blob-cap${SR_NL}3"
start_daemon || bail "warrant serve --blob-quota 2 --blob-cap 3 starts"
n0=$(nblobs)
p0=$(pending_of "$A")
filereq bsparse "$FD/sparse.bin"
req "$A" "$SR_DIR/bsparse.json" -j
is "a sparse 64 MiB snapshot over a 2 MiB quota is refused (exit 2)" "$RC" 2
jcheck "... quota_exceeded at \$.files, counted at the 64 MiB the copy takes" \
    "j['error']['code'] == 'quota_exceeded' and j['error']['path'] == '\$.files' and '64 MiB' in j['error']['message']" \
    "$SR_DIR/bsparse.json.out"
is "... nothing was stored: no gate" "$(pending_of "$A")" "$p0"
is "... and no blob" "$(nblobs)" "$n0"
filereq bone "$FD/one.bin"
filereq btwo "$FD/two.bin"
filereq bfour "$FD/four.bin"
head -c 1048576 /dev/urandom >"$FD/kill.bin"
chmod 0644 "$FD/kill.bin"
filereq bkill "$FD/kill.bin"
# hold_blobs: the test holds the blob store's lock (until release_blobs):
# a request with snapshots then waits for it in the daemon's worker,
# which the test can see, kill, or keep busy, while the daemon answers
# everyone else. The holder runs as the reviewer, so its "held" mark goes
# in a directory of the reviewer's; a hold that never began is a failure.
BLKD=$SR_DIR/blk
install -d -m 0755 -o "$REV" "$BLKD"
hold_blobs() {
	rm -f "$BLKD/held" "$BLKD/release"
	sr_as "$REV" flock "$BLOBS" sh -c 'touch "$1"; i=0
	    while [ ! -e "$2" ] && [ "$i" -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done' sh \
	    "$BLKD/held" "$BLKD/release" &
	BLK=$!
	i=0
	while [ ! -e "$BLKD/held" ] && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$BLKD/held" ] || not_ok "infra: the test holds the blob store's lock"
}
release_blobs() {
	touch "$BLKD/release"
	wait "$BLK"
}
hold_blobs
# workers N: wait (a minute at most) until the daemon has N children; their pids
workers() {
	i=0
	while [ "$(pgrep -P "$DPID" 2>/dev/null | wc -l)" -ne "$1" ] && [ "$i" -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	pgrep -P "$DPID" 2>/dev/null
}
pb0=$(pending_of "$B")
( req "$B" "$SR_DIR/bkill.json" -j; echo "$RC" >"$SR_DIR/bkill.rc" ) &
BKILL=$!
WK=$(workers 1)
is "a request with a snapshot is stored by a fresh process: warrant serve-intake, the daemon's child" \
    "$(ps -o args= -p "${WK:-0}" 2>/dev/null)" "warrant serve-intake"
kill -9 "${WK:-0}" 2>/dev/null
wait "$BKILL"
is "a worker killed before it answered: the requester gets an error (exit 1)" \
    "$(cat "$SR_DIR/bkill.rc" 2>/dev/null)" 1
check "... saying that the worker ended without storing it" \
    grep -q "ended without storing the request" "$SR_DIR/bkill.json.err"
is "... and nothing of it was stored: no gate" "$(pending_of "$B")" "$pb0"
is "... no blob" "$(nblobs)" "$n0"
is "... no temporary copy" "$(find "$BLOBS" -maxdepth 1 -name '.tmp-*' | wc -l)" 0
( req "$A" "$SR_DIR/bone.json" -j; echo "$RC" >"$SR_DIR/bone.rc" ) &
BONE=$!
workers 1 >/dev/null
( req "$A" "$SR_DIR/btwo.json" -j; echo "$RC" >"$SR_DIR/btwo.rc" ) &
BTWO=$!
is "two snapshot requests of one requester: two workers" "$(workers 2 | wc -l)" 2
mkreq bplain "plain while copying" p '["/usr/bin/true"]'
req "$B" "$SR_DIR/bplain.json" -j
is "meanwhile the daemon answers another requester at once" "$RC" 0
rev answer "$G" --deny >/dev/null 2>&1
check "... while the snapshots' requests still wait for their copies" \
    [ ! -e "$SR_DIR/bone.rc" ] && [ ! -e "$SR_DIR/btwo.rc" ]
req "$A" "$SR_DIR/bfour.json" -j
is "a third snapshot request of the same requester meanwhile is turned away (busy: exit 7)" "$RC" 7
check "... saying two of its requests are being worked on" \
    grep -q "two of your requests are being worked on" "$SR_DIR/bfour.json.err"
is "... and stored nothing" "$(pending_of "$A")" "$p0"
release_blobs
wait "$BONE" "$BTWO"
is "once the copies can go on, the first 1 MiB file is taken" "$(cat "$SR_DIR/bone.rc" 2>/dev/null)" 0
is "... and the second (2 MiB: the quota)" "$(cat "$SR_DIR/btwo.rc" 2>/dev/null)" 0
GB1=$(jscan 'j["request_id"]' "$SR_DIR/bone.json.out" 2>/dev/null)
GB2=$(jscan 'j["request_id"]' "$SR_DIR/btwo.json.out" 2>/dev/null)
is "two blobs more in the store" "$(nblobs)" $((n0 + 2))
is "the daemon logged both gates it was told of by its workers" \
    "$(grep -c -e "$GB1 from $A" -e "$GB2 from $A" "$SR_DIR/serve.log")" 2
req "$A" "$SR_DIR/bfour.json" -j
jcheck "a third is refused: quota_exceeded" "j['error']['code'] == 'quota_exceeded'" "$SR_DIR/bfour.json.out"
as "$A" "$PY" "$SOCKPY" "$SOCK" send "{\"op\":\"withdraw\",\"id\":\"$GB2\"}" >/dev/null
is "the agent withdraws one" "$(sr_state "$GB2")" denied
req "$A" "$SR_DIR/bfour.json" -j
jcheck "asking again right after withdrawing is still refused (a withdrawn gate's files count for a day)" \
    "j['error']['code'] == 'quota_exceeded'" "$SR_DIR/bfour.json.out"
filereq bbig "$FD/big.bin"
n1=$(nblobs)
req "$B" "$SR_DIR/bbig.json" -j
is "another requester's 2 MiB file, within its own quota but over the store's 3 MiB, is refused (exit 2)" "$RC" 2
jcheck "... blob_store_full" "j['error']['code'] == 'blob_store_full'" "$SR_DIR/bbig.json.out"
is "... and stored nothing" "$(nblobs)" "$n1"
rev gc -j >"$SR_DIR/gc1.json" 2>&1
jcheck "gc keeps the withdrawn gate's file for its day" "j['blobs']['removed'] == 0" "$SR_DIR/gc1.json"
# a day and an hour later (the gate's settlement and the blobs' age moved back)
sr_as "$REV" sqlite3 "$SR_STATE/warrant.db" \
    "UPDATE gates SET settled_at = settled_at - 90000 WHERE id = '$GB2'"
sr_as "$REV" find "$BLOBS" -maxdepth 1 -type f -exec touch -d '2 hours ago' {} +
sha2=$(sha256sum <"$FD/two.bin" | cut -d' ' -f1)
sha1=$(sha256sum <"$FD/one.bin" | cut -d' ' -f1)
rev gc -j >"$SR_DIR/gc2.json" 2>&1
jcheck "a day later gc removes it and says how many bytes it freed" \
    "j['blobs']['removed'] == 1 and j['blobs']['freed_bytes'] >= 1048576" "$SR_DIR/gc2.json"
check "... the withdrawn gate's blob is gone" [ ! -e "$BLOBS/$sha2" ]
check "... the pending gate's blob stays" [ -f "$BLOBS/$sha1" ]
req "$B" "$SR_DIR/bbig.json" -j
is "with the space freed, the other requester's file is taken" "$RC" 0
rev answer "$GB1" --deny >/dev/null 2>&1
rev answer "$G" --deny >/dev/null 2>&1
# the same request (its key) sent twice at once: two workers, one gate
pa=$(pending_of "$A")
key=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
msg="{\"op\":\"request\",\"request\":$(cat "$SR_DIR/bone.json"),\"key\":\"$key\"}"
hold_blobs
as "$A" "$PY" "$SOCKPY" "$SOCK" send "$msg" >"$SR_DIR/dup1.out" 2>&1 &
DUP1=$!
workers 1 >/dev/null
as "$A" "$PY" "$SOCKPY" "$SOCK" send "$msg" >"$SR_DIR/dup2.out" 2>&1 &
DUP2=$!
workers 2 >/dev/null
release_blobs
wait "$DUP1" "$DUP2"
d1=$(jscan 'j["gate"]["request_id"]' "$SR_DIR/dup1.out" 2>/dev/null)
d2=$(jscan 'j["gate"]["request_id"]' "$SR_DIR/dup2.out" 2>/dev/null)
check "one request sent twice at once with its key, both in workers: both told of a gate" \
    [ -n "$d1" ] && [ -n "$d2" ]
is "... the same one" "$d2" "$d1"
is "... stored once" "$(pending_of "$A")" $((pa + 1))
rev answer "$d1" --deny >/dev/null 2>&1
# a request in a worker counts towards its requester's pending gates
stop_daemon TERM
SERVE_OPTS="--blob-quota${SR_NL}2${SR_NL}--blob-cap${SR_NL}3${SR_NL}--max-pending${SR_NL}$((pa + 1))"
start_daemon || bail "warrant serve --max-pending $((pa + 1)) starts"
hold_blobs
( req "$A" "$SR_DIR/bone.json" -j; echo "$RC" >"$SR_DIR/bagain.rc" ) &
BAGAIN=$!
workers 1 >/dev/null
mkreq pfull "pending while copying" p '["/usr/bin/true"]'
req "$A" "$SR_DIR/pfull.json" -j
is "with its last pending place taken by a request in a worker, another is refused (exit 2)" "$RC" 2
jcheck "... quota_exceeded for its pending gates" \
    "j['error']['code'] == 'quota_exceeded' and j['error']['path'] == '\$'" "$SR_DIR/pfull.json.out"
release_blobs
wait "$BAGAIN"
is "... and the request in the worker is stored" "$(cat "$SR_DIR/bagain.rc" 2>/dev/null)" 0
is "... which leaves the requester at its bound" "$(pending_of "$A")" $((pa + 1))
rev answer "$(jscan 'j["request_id"]' "$SR_DIR/bone.json.out" 2>/dev/null)" --deny >/dev/null 2>&1
rm -rf "$FD"
stop_daemon TERM
SERVE_OPTS=
start_daemon || bail "warrant serve starts again with the default bounds"

section "a full state directory"
# The daemon's state on a tmpfs of 4 MiB: a request is stored, the disk
# is filled, and the next request is told that the reviewer's state
# directory is full (state_full), never a bare internal failure.
FULLD=$SR_DIR/full
install -d -m 0700 -o "$REV" -g "$(id -g "$REV")" "$FULLD"
if mount -t tmpfs -o size=4m,mode=0700,uid="$(id -u "$REV")",gid="$(id -g "$REV")" tmpfs "$FULLD"; then
	at_exit "umount '$FULLD' 2>/dev/null"
	stop_daemon TERM
	SR_EXTRA_ENV="WARRANT_HOME=$FULLD/state" start_daemon || bail "warrant serve starts with its state on the tmpfs"
	mkreq fullone "stored before the disk fills" f '["/usr/bin/true"]'
	req "$A" "$SR_DIR/fullone.json"
	is "a request to the daemon whose state is on the small tmpfs is stored" "$RC" 0
	dd if=/dev/zero of="$FULLD/fill" bs=4096 >/dev/null 2>&1
	mkreq fulltwo "sent when the disk is full" f '["/usr/bin/false"]'
	req "$A" "$SR_DIR/fulltwo.json"
	is "with the daemon's state directory full, a request exits 1" "$RC" 1
	check "... saying the reviewer's state directory is full" \
	    grep -q "the reviewer's state directory is full" "$SR_DIR/fulltwo.json.err"
	check "... not that the daemon failed" sh -c "! grep -q 'daemon failed' '$SR_DIR/fulltwo.json.err'"
	check "... and the daemon's log names the store" \
	    grep -q "store $FULLD/state/warrant.db: .*the state directory is full" "$SR_DIR/serve.log"
	rm -f "$FULLD/fill"
	req "$A" "$SR_DIR/fulltwo.json"
	is "with room again, the same request is stored (exit 0)" "$RC" 0
	stop_daemon TERM
	umount "$FULLD"
	start_daemon || bail "warrant serve starts again on its own state"
else
	skip "a full state directory under the daemon" "cannot mount a tmpfs here"
fi

section "stop"
stop_daemon TERM
is "SIGTERM stops the daemon cleanly (exit 0)" "$DRC" 0
check "and removes its socket" [ ! -e "$SOCK" ]
rev serve --rate 0 >/dev/null 2>&1
is "serve --rate 0 is a usage error (exit 2)" "$?" 2
rev serve-intake </dev/null 3>&- >/dev/null 2>"$SR_DIR/intake.err"
is "the daemon's worker run by hand, without the daemon's pipe, is refused (exit 2)" "$?" 2
check "... saying that warrant serve starts it" grep -q "started by warrant serve" "$SR_DIR/intake.err"
check "... and it is not in warrant --help" [ -z "$(rev --help 2>&1 | grep serve-intake)" ]
install -m 600 /dev/null "$SOCK"
rev serve >/dev/null 2>"$SR_DIR/squat.err"
is "a file at the socket path that is not the reviewer's socket stops serve (exit 1)" "$?" 1
check "and is left alone" [ -f "$SOCK" ]
rm -f "$SOCK"

done_testing
