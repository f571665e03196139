#!/bin/sh
# SPDX-License-Identifier: ISC
# Promise 8 end to end, the supervisor judging what a ROOT command
# reaches (docs/execution.md, "How it judges"): the agent as its own user
# (wt-requester, through the reviewer's daemon) and the reviewer
# approving with the host's real sudo in a pty, as in test-confine.sh,
# whose helpers (confine-lib.sh) this shares. Each hostile case checks
# that the access is refused at run time, that the ledger names it, and
# that the agent's payload did nothing as root; the positive controls
# are the ordinary work those rules must let through.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-reached.sh
#
# Cases: (1) a write descriptor the agent keeps on a file of its tree
# across a reviewed `chown -R root:root` of it; (2) a reviewed archive
# whose member is set-user-ID root (badged at review, extracted without
# the bit); (3) a root script whose relative #! interpreter the kernel
# would look up in a directory of the agent's; (4) a port the agent
# serves on 0.0.0.0, read by a reviewed script; (5) positive controls:
# a FIFO hand-off between two root processes in /root, `install -o root
# -m 0755` of a reviewed file, `chown -R AGENT:` of its project, a script
# with an absolute interpreter, curl from a root-owned local service;
# (6) descriptors the agent sends (SCM_RIGHTS) to a root program, as a
# datagram to an abstract name and over a stream it connected: refused,
# while the stream's data and a root pair's descriptors pass. (6) runs
# before (5), whose controls come last.
#
# Needs root. Creates (and removes): the users of lib.sh and sudo-lib.sh,
# the group warrant-wt-reviewer and /run/warrant/wt-reviewer,
# /opt/wt-reached, /etc/wt-reached-*, /root/wt-reached-*, /tmp/wt-reached-*.
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"
. "$WARRANT_TOP/tests/e2e/confine-lib.sh"

need_root "the run-time supervisor's tests create users and run as root"
sr_need || bail "the programs the real-sudo tests drive are installed"
for p in tar gzip curl flock; do
	command -v "$p" >/dev/null 2>&1 || bail "$p is installed (scripts/deps.sh)"
done

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-reached-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
REV=$SR_USER
SOCK=/run/warrant/$REV/req.sock
OPT=/opt/wt-reached
TMPD=/tmp/wt-reached-$TAG
CAN=/root/wt-reached-canary-$TAG
BG=""

cleanup() {
	sr_kill_bg
	stop_daemon
	[ -n "${REQ:-}" ] && for p in $(pgrep -u "$REQ" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	[ -n "${REQ:-}" ] && "$SR_WARRANT" requesters remove --reviewer "$REV" "$REQ" >/dev/null 2>&1
	requesters_teardown "$REV"
	rm -rf "$OPT" "$TMPD"
	rm -f /etc/wt-reached-* /root/wt-reached-*
	[ -n "${REQ_HOME:-}" ] && rm -rf "$REQ_HOME"/wt-reached-*
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# canary_absent DESC: the agent's payload never ran as root.
canary_absent() { check "$1" sh -c '! ls /root/wt-reached-canary-* >/dev/null 2>&1'; }

# ============================================================ set-up
section "set-up"
sr_user_setup || bail "the reviewer users are set up"
sr_install || bail "warrant is installed in its private prefix"
setup_requester || bail "the requester $REQ is created"
"$SR_WARRANT" requesters add --reviewer "$REV" "$REQ" >"$SR_DIR/req-add" 2>&1 ||
    bail "warrant requesters add --reviewer $REV $REQ"
sr_serve "$REV"
check "infra: the reviewer's daemon answers on $SOCK" wait_for '[ -S "$SOCK" ]' 30
install -d -m 0755 -o root -g root "$OPT"
# where the agent's background processes say they are ready
AG=$SR_DIR/agent
install -d -m 0755 -o "$REQ" "$AG"
# the agent's payload: what it would run as root
PAYLOAD=$(printf '#!/bin/sh\ntouch %s-$(id -u)\n' "$CAN")

# ============================================================ (1) held
section "(1) a write descriptor the agent keeps across chown -R root:root"
APP=$REQ_HOME/wt-reached-app
as_r mkdir -p "$APP/bin" "$APP/etc"
printf '%s\n' "$PAYLOAD" | as_r tee "$APP/bin/tool" >/dev/null
as_r chmod 0755 "$APP/bin/tool"
as_r sh -c 'echo conf > "$1"' sh "$APP/etc/app.conf"
# the agent keeps bin/tool open for writing, to rewrite it once root owns it
as_r sh -c 'exec 3>>"$1"; touch "$2"; exec sleep 3600' sh "$APP/bin/tool" \
    "$AG/held" </dev/null >/dev/null 2>&1 &
BG="$BG $!"
check "(1) the agent holds bin/tool open for writing" wait_for "[ -e '$AG/held' ]" 30
gate held <<EOF
{"reason":"take over the app the agent built","stop_on_failure":false,"commands":[
$(cmd own "the app is root's from now on" /usr/bin/chown -R root:root "$APP")]}
EOF
approve held "$G"
approved held
names "(1) the ledger names the file held open for writing" own "held open for writing"
is "(1) the held file stays the agent's (the chown undone)" "$(stat -c %U "$APP/bin/tool")" "$REQ"
is "(1) the file nobody held is root's" "$(stat -c %U "$APP/etc/app.conf")" root
canary_absent "(1) the agent's payload never ran as root"

# ============================================================ (2) archive
section "(2) a reviewed archive with a set-user-ID root member"
as_r mkdir -p "$REQ_HOME/wt-reached-tar/x"
printf '%s\n' "$PAYLOAD" | as_r tee "$REQ_HOME/wt-reached-tar/x/su" >/dev/null
as_r tar -C "$REQ_HOME/wt-reached-tar" --owner=0 --group=0 --mode=4755 \
    -czf "$REQ_HOME/wt-reached-tar/a.tgz" x
gate arch <<EOF
{"reason":"unpack the reviewed archive","files":{"a.tgz":{"snapshot":"$REQ_HOME/wt-reached-tar/a.tgz","mode":"0644"}},
 "commands":[$(cmd untar "unpack into /opt" /usr/bin/tar -xzpf '{"file":"a.tgz"}' -C "$OPT")]}
EOF
jcheck "(2) the review badges the set-id member (archive-setid)" \
    "'archive-setid' in j['risk_badges']" "$SR_DIR/arch.req"
approve arch "$G"
approved arch
names "(2) the ledger names the set-id bit refused" untar "set-id"
check "(2) the member was extracted" [ -f "$OPT/x/su" ]
check "(2) ... without its set-user-ID bit" sh -c '[ $((0$(stat -c %a "$1") & 07000)) -eq 0 ]' sh \
    "$OPT/x/su"
canary_absent "(2) the agent's payload never ran as root"

# ============================================================ (3) #!
section "(3) a root script whose relative #! the kernel looks up in the agent's directory"
as_r mkdir -p "$TMPD/bin"
printf '%s\n' "$PAYLOAD" | as_r tee "$TMPD/bin/interp" >/dev/null
as_r chmod 0755 "$TMPD/bin/interp"
gate rel <<EOF
{"reason":"install a helper and run it from its directory","stop_on_failure":false,
 "files":{$(sfile rel.sh "#!bin/interp
echo helper"),$(sfile run.sh "#!/bin/sh
cd $TMPD && $OPT/rel.sh; echo rel=\$?")},
 "commands":[$(cmd put "the helper" /usr/bin/install -o root -m 0755 '{"file":"rel.sh"}' "$OPT/rel.sh"),
 $(scmd run run.sh "runs the helper from $TMPD")]}
EOF
approve rel "$G"
approved rel
ran_ok "(3) the helper was installed" put
refused_call "(3) the ledger names the agent's interpreter refused at exec" run exec "$TMPD"
tail_has "(3) the helper did not run" run "rel=126"
canary_absent "(3) the agent's payload never ran as root"

# ============================================================ (4) port
section "(4) a port the agent serves on every address, read by a reviewed script"
PORT=$(free_port)
as_r "$PY" -c 'import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    c.sendall(b"agent-payload\n")
    c.close()' "$PORT" "$AG/listening" </dev/null >/dev/null 2>&1 &
BG="$BG $!"
check "(4) the agent listens on 0.0.0.0:$PORT" wait_for "[ -e '$AG/listening' ]" 30
gate port <<EOF
{"reason":"fetch the local service's config","stop_on_failure":false,
 "files":{$(sfile fetch.sh "#!/bin/bash
exec 3<>/dev/tcp/0.0.0.0/$PORT && cat <&3 >/etc/wt-reached-net; echo fetched=\$?")},
 "commands":[$(scmd fetch fetch.sh)]}
EOF
approve port "$G"
approved port
names "(4) the ledger names the agent's port" fetch "serves"
no_content "(4) /etc got nothing of the agent's" /etc/wt-reached-net agent-payload

# ============================================================ (6) descriptors
section "(6) descriptors the agent sends to a root program (SCM_RIGHTS)"
FDN=wt-reached-fd-$TAG
as_r sh -c 'echo agent-payload > "$1"' sh "$TMPD/payload"
# the agent offers a write descriptor of its file, in a loop: as a
# datagram to an abstract name, and over each stream it connects
# (socket.send_fds ignores its address: sendmsg is called as it is)
as_r "$PY" -c 'import array, os, socket, sys, time
fd = os.open(sys.argv[2], os.O_RDWR)
rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))]
open(sys.argv[3], "w").close()
while True:
    for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
        s = socket.socket(socket.AF_UNIX, kind)
        try:
            if kind == socket.SOCK_DGRAM:
                s.sendmsg([b"x"], rights, 0, "\0" + sys.argv[1] + "-dgram")
            else:
                s.connect("\0" + sys.argv[1] + "-stream")
                s.sendmsg([b"x"], rights)
        except OSError:
            pass
        s.close()
    time.sleep(0.005)' "$FDN" "$TMPD/payload" "$AG/sending" </dev/null >/dev/null 2>&1 &
BG="$BG $!"
check "(6) the agent is offering its descriptor" wait_for "[ -e '$AG/sending' ]" 30
cat >"$SR_DIR/take.py" <<'EOF'
#!/usr/bin/python3
import os, socket
def took(k, s):
    try:
        fds = socket.recv_fds(s, 16, 4)[1]
        data = os.read(fds[0], 64).decode(errors='replace').strip() if fds else 'none'
        open('/etc/wt-reached-fd-' + k, 'w').write(data)
        print(k + '=took:' + data)
    except OSError as e:
        print(k + '=' + str(e.errno))
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
d.bind('\0@FDN@-dgram')
d.settimeout(30)
took('dgram', d)
l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
l.bind('\0@FDN@-stream')
l.listen(8)
l.settimeout(30)
took('stream', l.accept()[0])
print('plain=' + l.accept()[0].recvmsg(16)[0].decode())
a, b = socket.socketpair()
socket.send_fds(a, [b'y'], [os.open('/etc/hostname', os.O_RDONLY)])
print('pair=%d' % len(socket.recv_fds(b, 16, 4)[1]))
EOF
gate fds <<EOF
{"reason":"collect what local clients hand over","stop_on_failure":false,
 "files":{$(sfile take.py "$(sed "s|@FDN@|$FDN|g" "$SR_DIR/take.py")")},
 "commands":[$(scmd take take.py "take descriptors from local clients")]}
EOF
approve fds "$G"
approved fds
tail_has "(6) the datagram's descriptor was refused (EACCES)" take "dgram=13"
tail_has "(6) ... and the stream's" take "stream=13"
refused_call "(6) the ledger names the named datagram socket" take receive "named datagram socket"
refused_call "(6) ... and the agent as the stream's peer" take receive "descriptors would come from"
no_content "(6) /etc got nothing of the agent's (datagram)" /etc/wt-reached-fd-dgram agent-payload
no_content "(6) ... nor through the stream" /etc/wt-reached-fd-stream agent-payload
tail_has "(6 control) the stream's data still reached root" take "plain=x"
tail_has "(6 control) two root processes pass a descriptor over a pair" take "pair=1"
canary_absent "(6) the agent's payload never ran as root"

# ============================================================ (5) controls
section "(5) ordinary root work still runs"
RPORT=$(free_port)
mkdir -p "$SR_DIR/www" && echo served-by-root >"$SR_DIR/www/x"
(cd "$SR_DIR/www" && exec "$PY" -m http.server --bind 127.0.0.1 "$RPORT") </dev/null \
    >/dev/null 2>&1 &
BG="$BG $!"
check "(5) root's service answers" wait_for \
    "curl -sf http://127.0.0.1:$RPORT/x >/dev/null" 30
as_r mkdir -p "$REQ_HOME/wt-reached-proj/src"
as_r touch "$REQ_HOME/wt-reached-proj/src/a.c"
chown root:root "$REQ_HOME/wt-reached-proj/src/a.c"
gate ok <<EOF
{"reason":"ordinary root work","stop_on_failure":false,
 "files":{$(sfile fifo.sh "#!/bin/sh
mkfifo /root/wt-reached-fifo && (echo handed >/root/wt-reached-fifo &) && read v </root/wt-reached-fifo; echo fifo=\$v; rm -f /root/wt-reached-fifo"),
 $(sfile tool "#!/bin/sh
echo tool-ran"),$(sfile abs.sh "#!/bin/bash
echo abs-ran")},
 "commands":[
 {"id":"fifo","argv":["/usr/bin/env",{"file":"fifo.sh"}],"why":"a FIFO hand-off","timeout_seconds":15},
 $(cmd inst "a reviewed tool" /usr/bin/install -o root -m 0755 '{"file":"tool"}' "$OPT/tool"),
 $(cmd runtool "run it" "$OPT/tool"),
 $(cmd give "hand the project back" /usr/bin/chown -R "$REQ:" "$REQ_HOME/wt-reached-proj"),
 $(scmd abs abs.sh),
 $(cmd curl "the local service's file" /usr/bin/curl -sf -o /etc/wt-reached-ok "http://127.0.0.1:$RPORT/x")]}
EOF
approve ok "$G"
approved ok
for id in fifo inst runtool give abs curl; do
	ran_ok "(5) $id ran and exited 0" "$id"
	jcheck "(5) ... with no access refused" \
	    "not (entry(j, '$id').get('confinement') or {}).get('refused')" "$L"
done
tail_has "(5) the FIFO was handed over" fifo "fifo=handed"
is "(5) the tool is root's, 0755" "$(stat -c '%U %a' "$OPT/tool")" "root 755"
is "(5) the project is the agent's again" "$(stat -c %U "$REQ_HOME/wt-reached-proj/src/a.c")" "$REQ"
tail_has "(5) the absolute interpreter ran" abs "abs-ran"
check "(5) curl got root's file" grep -qx served-by-root /etc/wt-reached-ok
canary_absent "(5) nothing of the agent's ran as root"

done_testing
