#!/bin/sh
# SPDX-License-Identifier: ISC
# Audit to a log server (docs/audit.md), with the host's real sudo, PAM,
# sudo_logsrvd, sudo_sendlog and sudoreplay: with "log_server" in the
# host's policy, each ROOT command's I/O log session reaches a
# sudo_logsrvd on 127.0.0.1 once it is complete and replays there with
# sudoreplay byte for byte; with the server stopped the batch still runs,
# the session is kept (the local one intact, `warrant log --unshipped`
# names it to its reviewer and to root, nobody else) and the next run, or
# `warrant gc` as root, ships it once the server is back; plain TCP to an
# address that is not loopback is refused before any password is asked;
# TLS with a throwaway CA where this host's sudo_sendlog has TLS (a
# server certificate of another CA refused, the session kept), and a
# clear refusal where it has none (Debian 12).
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-logship.sh
#
# Needs root: it creates the reviewer wt-reviewer (group sudo, a canary
# password per run) and runs sudo_logsrvd.
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the real-sudo tests create users and run as root"
for p in /usr/sbin/sudo_logsrvd /usr/sbin/sudo_sendlog /usr/bin/sudoreplay; do
	[ -x "$p" ] || skip_all "no $p (Debian's sudo package ships it)"
done

umask 022
SR_DIR=$(mktemp -d /tmp/warrant-logship-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
OPT=/opt/wt-logship
SRV=$SR_DIR/server-io
LSD_PID=
if installed_mode; then
	IO=${WARRANT_IOLOG_DIR:-/var/log/warrant-io}
	POLICY=/etc/warrant/policy.json
	SPOOL=/var/spool/warrant/unshipped
else
	IO=$(build_config WARRANT_IOLOG_DIR)
	POLICY=$(build_config WARRANT_POLICY_FILE)
	SPOOL=$(build_config WARRANT_LOGSHIP_SPOOL)
fi
POLICY_SAVED=

cleanup() {
	stop_server
	rm -f "$POLICY"
	[ -n "$POLICY_SAVED" ] && mv "$POLICY_SAVED" "$POLICY"
	rm -rf "$OPT" "$SPOOL"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# listening PORT: something accepts connections on 127.0.0.1:PORT.
listening() {
	"$PY" -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' \
	    "$1" 2>/dev/null
}
# start_server [tls]: sudo_logsrvd on 127.0.0.1:$PORT, storing sessions
# under $SRV (with tls: the certificate $SR_DIR/srv.pem of $SR_DIR/$2).
start_server() {
	mkdir -p "$SRV"
	{
		echo "[server]"
		if [ "${1:-}" = tls ]; then
			echo "listen_address = 127.0.0.1:$PORT(tls)"
			echo "tls_cert = $SR_DIR/srv.pem"
			echo "tls_key = $SR_DIR/srv.key"
			echo "tls_cacert = $SR_DIR/$2"
		else
			echo "listen_address = 127.0.0.1:$PORT"
		fi
		echo "server_log = stderr"
		echo "pid_file = $SR_DIR/lsd.pid"
		echo "[iolog]"
		echo "iolog_dir = $SRV"
		echo "iolog_file = %{seq}"
		echo "[eventlog]"
		echo "log_type = logfile"
		echo "[logfile]"
		echo "path = $SR_DIR/lsd-events.log"
	} >"$SR_DIR/lsd.conf"
	/usr/sbin/sudo_logsrvd -f "$SR_DIR/lsd.conf" -n >>"$SR_DIR/lsd.log" 2>&1 &
	LSD_PID=$!
	sv_i=0
	until listening "$PORT"; do
		sv_i=$((sv_i + 1))
		if [ "$sv_i" -gt 100 ] || ! kill -0 "$LSD_PID" 2>/dev/null; then
			diag "sudo_logsrvd did not start: $(tail -3 "$SR_DIR/lsd.log")"
			return 1
		fi
		sleep 0.1
	done
}
stop_server() {
	[ -n "$LSD_PID" ] || return 0
	kill "$LSD_PID" 2>/dev/null
	wait "$LSD_PID" 2>/dev/null
	LSD_PID=
	! listening "$PORT"
}
policy() { printf '%s\n' "$1" >"$POLICY" && chown root:root "$POLICY" && chmod 0644 "$POLICY"; }

# emit_gate NAME: a gate of one ROOT command, emit NAME; G, and the
# command line its replay names in $SR_DIR/NAME.cmdline.
emit_gate() {
	sr_gate "$1" <<EOF
{"reason":"logship ($1)","commands":[
  {"id":"emit-$1","argv":["$OPT/bin/emit","tag-$1"],"why":"output to ship"}]}
EOF
	printf '%s' "$OPT/bin/emit tag-$1" >"$SR_DIR/$1.cmdline"
}
# iolog_of NAME: the session id of emit-NAME from the answer's ledger.
iolog_of() { jscan "entry(j, 'emit-$1')['iolog']" "$ANS" 2>/dev/null; }
# waiting ID: the spool holds the session's note.
waiting() { [ -e "$SPOOL/$(echo "$1" | tr -d /)" ]; }
# on_server NAME: the server's session of emit-NAME (its runargv names
# tag-NAME), as xx/yy/zz; empty when there is none.
on_server() {
	grep -l "\"tag-$1\"" "$SRV"/*/*/*/log.json 2>/dev/null | head -1 |
	    sed "s|^$SRV/||; s|/log.json\$||"
}
# replay DIR ID NAME OUT: what sudoreplay -n replays of session ID in DIR
# (every stream), without its "Replaying sudo session: CMD" header and
# the line break it adds.
replay() {
	sudoreplay -d "$1" -n -m 1 "$2" 2>"$4.err" | "$PY" -c '
import sys
data = sys.stdin.buffer.read()
head = b"Replaying sudo session: " + sys.argv[1].encode()
if not data.startswith(head):
    sys.exit("no header naming the command")
line = data.index(b"\r\n")
data = data[:line] + data[line + 2:]
sys.stdout.buffer.write(data[len(head):])
' "$(cat "$SR_DIR/$3.cmdline")" >"$4"
}
# replays_exactly NAME DIR ID: the session replays what emit writes.
replays_exactly() {
	replay "$2" "$3" "$1" "$SR_DIR/$1.replay" && cmp -s "$SR_DIR/want.out" "$SR_DIR/$1.replay"
}
# unshipped_as USER: warrant log --unshipped -j as USER (root: as root).
unshipped_as() {
	if [ "$1" = root ]; then
		env -i PATH=/usr/bin:/bin HOME=/root WARRANT_HOME="$SR_DIR/root-state" \
		    "$SR_WARRANT" log --unshipped -j
	else
		sr_as "$1" "$SR_WARRANT" log --unshipped -j
	fi
}
gc_root() {
	env -i PATH=/usr/bin:/bin HOME=/root WARRANT_HOME="$SR_DIR/root-state" \
	    "$SR_WARRANT" gc -j
}

# ============================================================ set-up
section "set-up"
if sr_need && sr_user_setup && sr_install; then ok "infra: reviewer $SR_USER, warrant installed"
else bail "infra: cannot set up the reviewer or install warrant"; fi
case $IO:$POLICY:$SPOOL in
/?*:/?*:/?*) ok "the build names its I/O log directory, policy and spool ($SPOOL)" ;;
*) bail "no WARRANT_IOLOG_DIR, WARRANT_POLICY_FILE or WARRANT_LOGSHIP_SPOOL in $WARRANT_BUILD/config.h" ;;
esac
install -d -m 0755 -o root -g root "$(dirname "$POLICY")"
if [ -e "$POLICY" ]; then
	POLICY_SAVED=$POLICY.wt-logship.$$
	mv "$POLICY" "$POLICY_SAVED"
fi
rm -rf "$OPT" "$SPOOL"
install -d -m 0755 -o root -g root "$OPT" "$OPT/bin" "$SR_DIR/root-state"
chmod 0700 "$SR_DIR/root-state"
"$PY" -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 8)' >"$OPT/bytes"
cat >"$OPT/bin/emit" <<'EOF'
#!/bin/sh
printf 'first line\n'
printf 'to stderr\n' >&2
cat /opt/wt-logship/bytes
printf '\000NUL and \033[31m escape\n'
printf 'last line, no line break'
EOF
chmod 0755 "$OPT/bin/emit"
"$OPT/bin/emit" >"$SR_DIR/want.out" 2>&1
PORT=$(free_port)
start_server || bail "sudo_logsrvd listens on 127.0.0.1:$PORT"
ok "sudo_logsrvd listens on 127.0.0.1:$PORT"
policy "{\"log_server\": {\"address\": \"127.0.0.1:$PORT\"}}"

# ============================================================ (a) shipped
section "(a) the server is up: each ROOT session reaches it and replays there"
sr_gate a <<EOF
{"reason":"logship (a)","commands":[
  {"id":"emit-a","argv":["$OPT/bin/emit","tag-a"],"why":"output to ship"},
  {"id":"emit-a2","argv":["$OPT/bin/emit","tag-a2"],"why":"a second session"},
  {"id":"you","as":"user","argv":["/usr/bin/id","-un"],"why":"a YOU command: no session"}]}
EOF
printf '%s' "$OPT/bin/emit tag-a" >"$SR_DIR/a.cmdline"
printf '%s' "$OPT/bin/emit tag-a2" >"$SR_DIR/a2.cmdline"
GA=$G
sr_answer right a "$GA" --run --no-detach -j
is "[P4] (a) answer exits 0" "$ANS_RC" 0
jcheck "[P4] (a) every command ran" \
    "j['status'] == 'approved' and all(e['status'] == 'ran' for e in entries(j))" "$ANS"
check "[P2] (a) no sudo ticket is left in the reviewer's terminal session" pty_no_ticket
IA=$(iolog_of a)
SA=$(on_server a)
SA2=$(on_server a2)
check "(a) both ROOT sessions are on the server" sh -c '[ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]' sh "$SA" "$SA2"
check "(a) the first replays from the server's I/O log directory byte for byte" \
    replays_exactly a "$SRV" "$SA"
check "(a) ... and the second" replays_exactly a2 "$SRV" "$SA2"
jcheck "(a) the server's log.json names the reviewer, root and the command's end" \
    "j['submituser'] == '$SR_USER' and j['runuser'] == 'root' and j['exit_value'] == 0 and j['run_time']['seconds'] + j['run_time']['nanoseconds'] > 0" \
    "$SRV/$SA/log.json"
check "[P4] (a) nothing of the local log is lost: the local session replays too" \
    replays_exactly a "$IO" "$IA"
# (the spool's root-only .lock is not a session)
check "(a) nothing waits in the spool" sh -c '[ -z "$(ls "$1")" ]' sh "$SPOOL"
is "(a) the spool's lock is root's alone (nobody else can hold it)" \
    "$(stat -c '%U %a' "$SPOOL/.lock")" "root 600"
is "(a) the spool is root's, 0755" "$(stat -c '%U %a' "$SPOOL")" "root 755"
unshipped_as "$SR_USER" >"$SR_DIR/a.unshipped" 2>&1
jcheck "(a) warrant log --unshipped: nothing" "j == []" "$SR_DIR/a.unshipped"

# ============================================================ (b) server down
section "(b) the server is down: the batch runs, the session is kept"
check "(b) sudo_logsrvd is stopped" stop_server
emit_gate b
GB=$G
sr_answer right b "$GB" --run --no-detach -j
is "[P4] (b) answer exits 0: a server that is down stops nothing" "$ANS_RC" 0
jcheck "[P4] (b) the command ran" "entry(j, 'emit-b')['status'] == 'ran'" "$ANS"
IB=$(iolog_of b)
check "[P4] (b) the session waits in the spool" waiting "$IB"
check "[P4] (b) the local session is complete and replays" replays_exactly b "$IO" "$IB"
unshipped_as "$SR_USER" >"$SR_DIR/b.unshipped" 2>&1
jcheck "(b) warrant log --unshipped names it to its reviewer: session, request, command" \
    "j == [{'iolog': '$IB', 'request_id': '$GB', 'command_id': 'emit-b'}]" "$SR_DIR/b.unshipped"
sr_as "$SR_USER" "$SR_WARRANT" log --unshipped >"$SR_DIR/b.unshipped.txt" 2>&1
check "(b) ... in text too" grep -q "^$IB  $GB  emit-b  not yet shipped" "$SR_DIR/b.unshipped.txt"
unshipped_as "$SR_USER2" >"$SR_DIR/b.unshipped2" 2>&1
jcheck "(b) another user is not shown it" "j == []" "$SR_DIR/b.unshipped2"
unshipped_as root >"$SR_DIR/b.unshipped-root" 2>&1
jcheck "(b) root is shown it, with the reviewer, from the session's log.json" \
    "{'iolog': '$IB', 'request_id': '$GB', 'command_id': 'emit-b', 'reviewer': '$SR_USER'} in j" \
    "$SR_DIR/b.unshipped-root"
gc_root >"$SR_DIR/b.gc" 2>"$SR_DIR/b.gc.err"
jcheck "(b) warrant gc as root, the server still down: nothing shipped, the session still waits" \
    "j['log_server']['shipped'] == 0 and j['log_server']['waiting'] >= 1 and j['log_server']['failed']" \
    "$SR_DIR/b.gc"
check "(b) ... and says why" grep -q "not shipped to 127.0.0.1:$PORT (kept" "$SR_DIR/b.gc.err"
check "(b) ... the session still waits" waiting "$IB"

# ============================================================ (b2) a squatted port
section "(b2) the server is down and another user listens on its port: nothing is sent"
# Anyone may bind a port while the tunnel or the server is down: what
# listens there now is not root's, and it must get no ROOT session.
mkdir -p "$SR_DIR/squat" && chown "$SR_USER2" "$SR_DIR/squat"
SQUAT=$SR_DIR/squat/got
sr_as "$SR_USER2" "$PY" -c 'import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
open(sys.argv[2] + ".ready", "w").close()
out = open(sys.argv[2], "ab")
while True:
    c, _ = s.accept()
    c.settimeout(10)
    try:
        while True:
            d = c.recv(65536)
            if not d:
                break
            out.write(d)
            out.flush()
    except OSError:
        pass
    c.close()' "$PORT" "$SQUAT" >/dev/null 2>&1 &
SQUAT_PID=$!
wait_for "[ -e '$SQUAT.ready' ]" 60
check "(b2) the other user listens on 127.0.0.1:$PORT" listening "$PORT"
gc_root >"$SR_DIR/b2.gc" 2>"$SR_DIR/b2.gc.err"
jcheck "(b2) warrant gc as root: nothing shipped to a listener that is not root's" \
    "j['log_server']['shipped'] == 0 and j['log_server']['waiting'] >= 1" "$SR_DIR/b2.gc"
check "(b2) ... and says whose it is" grep -q "is uid $(id -u "$SR_USER2")'s, not root's" \
    "$SR_DIR/b2.gc.err"
check "(b2) the squatter received nothing" sh -c '[ ! -s "$1" ]' sh "$SQUAT"
check "(b2) the session still waits" waiting "$IB"
kill "$SQUAT_PID" 2>/dev/null
pkill -KILL -u "$SR_USER2" 2>/dev/null
wait_for "! listening $PORT" 30

# ============================================================ (c) next run ships it
section "(c) the server is back: the next run ships what waited, whatever another user locks"
check "(c) sudo_logsrvd starts again" start_server
# another user holds every lock it can take on the spool for the whole run
sr_as "$SR_USER2" flock -s "$SPOOL" sh -c 'touch "$1"; sleep 600' sh "$SR_DIR/squat/locked" \
    >/dev/null 2>&1 &
LOCKER=$!
wait_for "[ -e '$SR_DIR/squat/locked' ]" 60
emit_gate c
GC=$G
sr_answer right c "$GC" --run --no-detach -j
is "(c) answer exits 0" "$ANS_RC" 0
IC=$(iolog_of c)
check "(c) nothing waits any more" sh -c '[ -z "$(ls "$1")" ]' sh "$SPOOL"
# the locker and its sleep: every process of the throwaway user
kill "$LOCKER" 2>/dev/null
pkill -KILL -u "$SR_USER2" 2>/dev/null
wait_for "! pgrep -u '$SR_USER2' >/dev/null" 30
SB=$(on_server b)
SC=$(on_server c)
check "(c) the kept session (b) replays from the server byte for byte" replays_exactly b "$SRV" "$SB"
check "(c) ... and this run's (c)" replays_exactly c "$SRV" "$SC"

# ============================================================ (d) warrant gc ships it
section "(d) warrant gc as root ships what waits"
stop_server
emit_gate d
GD=$G
sr_answer right d "$GD" --run --no-detach -j
ID=$(iolog_of d)
check "(d) with the server down the session waits" waiting "$ID"
start_server
gc_root >"$SR_DIR/d.gc" 2>&1
jcheck "(d) warrant gc as root ships it" \
    "j['log_server']['shipped'] == 1 and j['log_server']['waiting'] == 0 and not j['log_server']['failed']" \
    "$SR_DIR/d.gc"
check "(d) ... it replays from the server" replays_exactly d "$SRV" "$(on_server d)"
check "(d) ... and no longer waits" sh -c '! [ -e "$1" ]' sh "$SPOOL/$(echo "$ID" | tr -d /)"

stop_server
emit_gate h
sr_answer right h "$G" --run --no-detach -j
IH=$(iolog_of h)
check "(d) another session waits while the server is down" waiting "$IH"
rm -rf "${IO:?}/$IH"
start_server
gc_root >"$SR_DIR/h.gc" 2>&1
jcheck "(d) a waiting session removed from the I/O log by hand: its note goes, nothing is sent" \
    "j['log_server']['shipped'] == 0 and j['log_server']['waiting'] == 0 and not j['log_server']['failed']" \
    "$SR_DIR/h.gc"
check "(d) ... and it no longer waits" sh -c '! [ -e "$1" ]' sh "$SPOOL/$(echo "$IH" | tr -d /)"

# ============================================================ (e) no TLS off loopback
section "(e) plain TCP to an address that is not loopback: refused, nothing runs"
policy "{\"log_server\": {\"address\": \"192.0.2.1:$PORT\"}}"
emit_gate e
GE=$G
sr_answer none e "$GE" --run --no-detach -j
is "[P5] (e) answer refuses (exit 2)" "$ANS_RC" 2
check "[P5] (e) with policy_invalid, naming log_server_needs_tls" \
    sh -c 'grep -q policy_invalid "$1" && grep -q log_server_needs_tls "$1"' sh "$ANS"
is "[P5] (e) before any password is asked" "$(pty_prompts)" 0
check "[P5] (e) the gate stays pending" sr_state_is "$GE" pending
check "[P5] (e) nothing ran: no session for it anywhere" sh -c '! grep -rqs "tag-e" "$1" "$2"' sh "$IO" "$SRV"

# ============================================================ (e2) the shipper
section "(e2) warrant-logship: root's alone, and needed before a batch"
SHIPPER=${SR_RUNNER%/*}/warrant-logship
sr_as "$SR_USER" "$SHIPPER" >"$SR_DIR/e2.user" 2>&1
is "[P5] (e2) warrant-logship as the reviewer refuses (exit 2)" "$?" 2
check "[P5] (e2) ... saying only root ships root's sessions" grep -q "only root" "$SR_DIR/e2.user"
"$SHIPPER" extra >"$SR_DIR/e2.args" 2>&1
is "[P5] (e2) warrant-logship with an argument refuses (exit 2)" "$?" 2
policy "{\"log_server\": {\"address\": \"127.0.0.1:$PORT\"}}"
"$SHIPPER" >"$SR_DIR/e2.root" 2>&1
is "(e2) warrant-logship as root, nothing waiting: exit 0" "$?" 0
mv "$SHIPPER" "$SHIPPER.aside" && at_exit "mv -f '$SHIPPER.aside' '$SHIPPER'"
emit_gate e2
GE2=$G
sr_answer right e2 "$GE2" --run --no-detach -j
is "[P5] (e2) with warrant-logship missing a ROOT batch is refused (runner_error, exit 1)" "$ANS_RC" 1
check "[P5] (e2) ... naming log_server_no_shipper" grep -q log_server_no_shipper "$ANS"
check "[P5] (e2) ... nothing ran" sh -c '! grep -rqs "tag-e2" "$1"' sh "$IO"
check "[P5] (e2) ... the gate stays pending" sr_state_is "$GE2" pending
mv "$SHIPPER.aside" "$SHIPPER"
check "(e2) warrant-logship is back in its place" test -x "$SHIPPER"

# ============================================================ (f) TLS
section "(f) TLS with a CA"
policy "{\"log_server\": {\"address\": \"127.0.0.1:$PORT\"}}"
openssl_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$1" \
	    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
	    -keyout "$SR_DIR/$1.key" -out "$SR_DIR/$1.pem" >/dev/null 2>&1
}
# signed CA NAME CN USAGE [SAN]: NAME.pem and NAME.key, for CN, signed by CA.
signed() {
	openssl req -newkey rsa:2048 -nodes -subj "/CN=$3" -keyout "$SR_DIR/$2.key" \
	    -out "$SR_DIR/$2.csr" >/dev/null 2>&1 &&
	{
		printf 'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=%s\n' "$4"
		[ -z "${5:-}" ] || printf 'subjectAltName=%s\n' "$5"
	} >"$SR_DIR/$2.ext" &&
	openssl x509 -req -in "$SR_DIR/$2.csr" -CA "$SR_DIR/$1.pem" -CAkey "$SR_DIR/$1.key" \
	    -CAcreateserial -days 2 -extfile "$SR_DIR/$2.ext" -out "$SR_DIR/$2.pem" >/dev/null 2>&1
}
# server_cert CA: the server's certificate for 127.0.0.1 (srv.pem), signed by CA.
server_cert() { signed "$1" srv 127.0.0.1 serverAuth IP:127.0.0.1; }
openssl_ca wt-ca && openssl_ca wt-other-ca && signed wt-ca client "$(hostname)" clientAuth ||
    bail "(f) openssl makes two throwaway CAs and this host's certificate"
ETC=$(dirname "$POLICY")
install -m 0644 -o root -g root "$SR_DIR/wt-ca.pem" "$ETC/logsrv-ca.pem"
install -m 0644 -o root -g root "$SR_DIR/client.pem" "$ETC/logsrv-client.pem"
install -m 0600 -o root -g root "$SR_DIR/client.key" "$ETC/logsrv-client.key"
TLS="\"ca\": \"$ETC/logsrv-ca.pem\", \"cert\": \"$ETC/logsrv-client.pem\", \"key\": \"$ETC/logsrv-client.key\""
at_exit "rm -f '$ETC/logsrv-ca.pem' '$ETC/logsrv-client.pem' '$ETC/logsrv-client.key'"
if ! /usr/sbin/sudo_sendlog --help 2>&1 | grep -q -- --ca-bundle; then
	# Debian 12: sudo_sendlog is built without TLS
	policy "{\"log_server\": {\"address\": \"127.0.0.1:$PORT\", $TLS}}"
	emit_gate f
	GF=$G
	sr_answer right f "$GF" --run --no-detach -j
	is "[P5] (f) a CA where sudo_sendlog has no TLS: refused (runner_error, exit 1)" "$ANS_RC" 1
	check "[P5] (f) ... naming log_server_tls_unsupported" grep -q log_server_tls_unsupported "$ANS"
	check "[P5] (f) ... nothing ran" sh -c '! grep -rqs "tag-f" "$1"' sh "$IO"
	check "[P5] (f) ... the gate stays pending" sr_state_is "$GF" pending
	skip "(f) TLS to sudo_logsrvd" "this host's sudo_sendlog has no TLS (Debian 12)"
else
	stop_server
	server_cert wt-ca || bail "(f) a server certificate of the CA"
	start_server tls wt-ca.pem || bail "(f) sudo_logsrvd listens with TLS"
	policy "{\"log_server\": {\"address\": \"127.0.0.1:$PORT\", $TLS}}"
	emit_gate f
	GF=$G
	sr_answer right f "$GF" --run --no-detach -j
	is "(f) answer exits 0" "$ANS_RC" 0
	IF=$(iolog_of f)
	check "(f) the session went over TLS (the server takes nothing else): nothing waits" sh -c '! [ -e "$1" ]' sh "$SPOOL/$(echo "$IF" | tr -d /)"
	check "(f) ... it replays from the server byte for byte" replays_exactly f "$SRV" "$(on_server f)"
	stop_server
	server_cert wt-other-ca || bail "(f) a server certificate of another CA"
	start_server tls wt-other-ca.pem || bail "(f) sudo_logsrvd listens with the other CA's certificate"
	emit_gate g
	GG=$G
	sr_answer right g "$GG" --run --no-detach -j
	is "[P4] (f) a server certificate of another CA: the batch still runs" "$ANS_RC" 0
	IG=$(iolog_of g)
	check "[P4] (f) ... the session is kept, not shipped" waiting "$IG"
	is "(f) ... the server has nothing of it" "$(on_server g)" ""
fi
stop_server

done_testing
