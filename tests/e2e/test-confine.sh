#!/bin/sh
# SPDX-License-Identifier: ISC
# Promise 8 end to end (docs/design.md §1, §7 "Run-time supervisor"): root
# touches nothing the requester can change. The agent is its own user (the
# requester wt-requester of lib.sh, reaching the reviewer's daemon through
# `warrant requesters add`); the reviewer wt-reviewer (sudo-lib.sh: group
# sudo, a canary password per run) approves through the host's real sudo in
# a pty. Every hostile case checks three things: the access is refused at
# run time, the ledger names it (the command's `confinement.refused`, or a
# "refused" entry of the runner's re-judgement before the command starts),
# and what the agent's payload would have done (a canary file under /root,
# content in /etc) did not happen. Each hostile case has a control where
# the same command works when nothing in it is the requester's.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-confine.sh
#
# Cases: (1) nsenter into the agent's own process, in three spellings, and
# its /proc/PID/cwd and /proc/PID/root (named in argv too: refused at
# request time); (2) a directory an earlier command made world-writable
# (install -d -m 0777, or a staged tar with a 0777 directory), the file in
# it swapped while the batch waits; (3) a
# Makefile changed after review in a project root enters; (4) a relative
# and an absolute symbolic link into /tmp; (5) a directory made writable
# through an ACL by an earlier command, swapped while the batch waits; (6)
# a requester in 300 groups and a directory writable only through the
# 290th; (7) a reviewed script that executes an agent-owned helper; (8) the
# ledger's `executed` list with real SHA-256s; positive controls (ps,
# chown -R and rm -rf of the requester's tree, useradd/userdel, systemctl
# daemon-reload, dpkg -i of a staged .deb, tar -xzf of a staged archive,
# install of a staged file); (9) fail-closed: no supervisor, nothing runs
# (unless the policy says "unconfined": "allow"); (10) chown, chmod, rm,
# mkdir and setfacl of entries in a directory an earlier command made
# world-writable, where the agent put symlinks to root's file and
# directory while the batch waits; (11) a port of 127.0.0.1 the agent
# listens on, read by a reviewed script; (12) the hostile requester's own
# entries, interpreters, listeners and held files, reached on purpose.
#
# The hostile requester (tests/e2e/hostile.c, wt-hostile) runs as the
# agent from before (1) to the end, beside every case, and never sleeps:
# in the directories the cases make writable ((2), (5), (10), a
# directory of its own in /tmp and in its home) it exchanges a directory
# with a symlink to a root-only directory and its payload file with
# another such link (renameat2 RENAME_EXCHANGE); it keeps every file it
# owns there open O_RDWR and mapped shared and writable, and writes its
# canary through them once root owns one; it binds, answers with its
# canary, closes and binds again TCP and UDP ports (127.0.0.1, 0.0.0.0,
# [::]), an abstract and named Unix sockets; it keeps bin/interp, bin/sh
# and bin/python3 planted there, a script that writes the canary. Every
# case and positive control passes with it running; (12) reaches its
# entries on purpose. At the end its counts show that it ran, and its
# canary is in no ledger, no command's output, no file a ledger says root
# wrote, nothing root owns in its directories, /etc/wt-confine-* or
# /root/wt-confine-*. HOSTILE_SECONDS (make race: 300) keeps (12)'s
# probes going that long; make check runs them a few times.
#
# argv[0] cannot be a reviewed file (intake: "a file cannot be argv[0]"),
# so a reviewed script runs as `/usr/bin/env {"file": "NAME"}` (env
# executes the staged, root-owned copy). The paths such a script reaches
# are invisible to the request-time validator and to the runner's
# re-judgement of argv: only the supervisor sees them.
#
# The record is checked whole: every executed path is a real file with the
# recorded SHA-256, refused paths are exact.
#
# Waits are on processes and files with generous bounds; the swap cases
# hold the batch on a lock the test owns (`flock LOCK true` as the command
# the agent acts during), not on a sleep of guessed length.
#
# Needs root. Creates (and removes): the users of lib.sh and sudo-lib.sh,
# the group warrant-wt-reviewer and /run/warrant/wt-reviewer (requesters
# add), the user wt-confine-u (a positive control), the groups
# wt-cfg001..wt-cfg300, /opt/wt-confine, /srv/wt-confine*, /etc/wt-confine-*,
# /etc/profile.d/wt-helper*.sh, /tmp/wt-helper*.sh, /tmp/wt-confine-h-*,
# /root/wt-confine-*, the package wt-confine-deb, and the build's policy
# file.
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"
. "$WARRANT_TOP/tests/e2e/confine-lib.sh"

need_root "the confinement tests create users and run as root"
sr_need || bail "the programs the real-sudo tests drive are installed"
for p in setfacl getfacl make nsenter flock dpkg-deb tar gzip cc; do
	command -v "$p" >/dev/null 2>&1 || bail "$p is installed (scripts/deps.sh)"
done

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-confine-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
REV=$SR_USER
SOCK=/run/warrant/$REV/req.sock
OPT=/opt/wt-confine
SRV=/srv/wt-confine
SRVG=/srv/wt-confine-g
CAN=/root/wt-confine-canary-$TAG
NEWUSER=wt-confine-u
DEB=wt-confine-deb
NGROUPS=300
GPICK=290
BG=""
POLICY=
POLICY_SAVED=

gname() { printf 'wt-cfg%03d' "$1"; }
drop_groups() {
	i=1
	while [ "$i" -le "$NGROUPS" ]; do
		groupdel "$(gname "$i")" >/dev/null 2>&1
		i=$((i + 1))
	done
}
cleanup() {
	sr_kill_bg
	stop_daemon
	# the requester's processes (its sleep of case 1) are this suite's
	[ -n "${REQ:-}" ] && for p in $(pgrep -u "$REQ" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	dpkg --purge "$DEB" >/dev/null 2>&1
	id "$NEWUSER" >/dev/null 2>&1 && userdel -r "$NEWUSER" >/dev/null 2>&1
	drop_groups
	[ -n "${REQ:-}" ] && "$SR_WARRANT" requesters remove --reviewer "$REV" "$REQ" >/dev/null 2>&1
	requesters_teardown "$REV"
	if [ -n "$POLICY" ]; then
		if [ -n "$POLICY_SAVED" ]; then mv -f "$POLICY_SAVED" "$POLICY"; else rm -f "$POLICY"; fi
	fi
	rm -rf "$OPT" "$SRV" "$SRVG" /etc/wt-confine-hvictim.d /tmp/wt-confine-h-*
	rm -f /etc/wt-confine-* /etc/profile.d/wt-helper.sh /etc/profile.d/wt-helper2.sh \
	    /tmp/wt-helper.sh /tmp/wt-helper2.sh /root/wt-confine-canary-*
	[ -n "${REQ_HOME:-}" ] && rm -rf "$REQ_HOME"/wt-confine-* "$REQ_HOME/helper.sh"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# ------------------------------------------------------------ helpers
# (the shared ones are confine-lib.sh's)
sha_of() { sha256sum <"$1" | cut -d' ' -f1; }
# bad_executed FILE: the ledger's executed items (of every entry) whose
# path is not a file hashing to the recorded SHA-256, one per line (the
# staged copies under /run/warrant-stage are gone after the batch).
bad_executed() {
	"$PY" - "$1" <<'EOF'
import hashlib, json, sys
try:
    j = json.load(open(sys.argv[1]))
    l = j["ledger"] if "ledger" in j else j
    for e in l["entries"]:
        for x in (e.get("confinement") or {}).get("executed", []):
            p = x.get("path", "")
            if p.startswith("/run/warrant-stage/"):
                continue
            try:
                ok = hashlib.sha256(open(p, "rb").read()).hexdigest() == x.get("sha256")
            except OSError:
                ok = False
            if not ok:
                print("%s: %r" % (e["id"], p))
except Exception as e:
    print("unreadable ledger:", repr(e))
EOF
}
# exact_refused DESC ID PATH...: command ID has a refused access whose
# path is exactly one of PATH (the record names it whole).
exact_refused() {
	er_d=$1 er_id=$2
	shift 2
	er_l=
	for er_p in "$@"; do er_l="$er_l'$er_p', "; done
	jcheck "$er_d" "any(r.get('path') in ($er_l) for r in entry(j, '$er_id')['confinement']['refused'])" "$L"
	jscan "[r.get('path') for r in entry(j, '$er_id')['confinement']['refused']]" "$L" 2>/dev/null |
	    sed 's/^/    refused paths of '"$er_id"': /' | while read -r l; do diag "$l"; done
}

# ============================================================ set-up
section "set-up"
sr_user_setup || bail "the reviewer users are set up"
sr_install || bail "warrant is installed in its private prefix"
setup_requester || bail "the requester $REQ is created"
setup_base || bail "a private base directory in $REQ_HOME"
at_exit cleanup_base
W=$SR_WARRANT
"$W" requesters add --reviewer "$REV" "$REQ" >"$SR_DIR/req-add" 2>&1 ||
    bail "warrant requesters add --reviewer $REV $REQ"
sr_serve "$REV"
check "infra: the reviewer's daemon answers on $SOCK" wait_for '[ -S "$SOCK" ]' 30
rm -rf "$OPT" "$SRV" "$SRVG"
install -d -m 0755 -o root -g root "$OPT" "$OPT/x" "$SRV" "$SRV/a"
rm -f /root/wt-confine-canary-* /etc/wt-confine-* /etc/profile.d/wt-helper.sh \
    /etc/profile.d/wt-helper2.sh /tmp/wt-helper.sh /tmp/wt-helper2.sh
# home directories are 0700 or 0755 depending on login.defs: root passes either way
P=$REQ_HOME/wt-confine-proj
MAKEFILE_T=$(printf 'all:\n\t@touch %s-$(WHO)\n' "$CAN")

# ============================================================ the hostile requester
section "the hostile requester starts (it runs beside every case)"
# Its canary is in a file, not in its argv: ps aux in (8) shows argv.
HC=HOSTILE-$TAG
HD=$REQ_HOME/wt-confine-h
HH=$REQ_HOME/wt-confine-hheld
HT=/tmp/wt-confine-h-$TAG
HV=/etc/wt-confine-hvictim.d
HS=$WT_RB/hostile.status
HA=wt-h-$TAG
HPT=$(free_port)
HPU=$(free_port)
HOSTILE=$SR_DIR/wt-hostile
printf '%s' "$HC" >"$SR_DIR/hostile.canary"
chmod 0644 "$SR_DIR/hostile.canary"
# what its symlinks point at: root's directory and root-only file
rm -rf "$HV"
install -d -m 0700 "$HV"
printf 'root-only-%s\n' "$TAG" >"$HV/x"
chmod 0600 "$HV/x"
# the meson build's helper; a build without it (the Debian 13 root's, an
# installed package's test) has the suite compile it
if [ -n "${WARRANT_BUILD:-}" ] && [ -x "$WARRANT_BUILD/wt-hostile" ]; then
	cp "$WARRANT_BUILD/wt-hostile" "$HOSTILE"
else
	cc -std=c17 -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$HOSTILE" \
	    "$WARRANT_TOP/tests/e2e/hostile.c" 2>"$SR_DIR/hostile.cc" ||
	    diag "$(head -c 600 "$SR_DIR/hostile.cc")"
fi
chmod 0755 "$HOSTILE"
as_r mkdir -p "$HD" "$HH" "$HT"
# (12) takes this tree over: three files the hostile requester holds and
# an executable it does not (a file held open for writing cannot run)
as_r sh -c 'for i in 1 2 3; do printf "output %s\n" "$i" >"$1/out$i"; done
    printf "#!/bin/sh\n" >"$1/tool" && chmod 0755 "$1/tool"' sh "$HH"
# niced: it never sleeps, and the machine's other work goes first
as_r nice -n 10 "$HOSTILE" -o "$HS" -c "$SR_DIR/hostile.canary" -l "$HV" -p "$CAN-h" \
    -e "$SR_DIR" -w "$OPT/d" -w "$OPT/t" -w "$SRV/a" -w "$OPT/w" -w "$HD" -w "$HT" \
    -H "$HD" -H "$HH" -t "$HPT" -u "$HPU" -a "$HA" </dev/null >"$SR_DIR/hostile.out" 2>&1 &
BG="$BG $!"
check "(hostile) the hostile requester runs as $REQ and writes its counts" \
    wait_for '[ -s "$HS" ] && [ -n "$(pgrep -u "$REQ" -x wt-hostile)" ]' 60
HPID=$(pgrep -u "$REQ" -x wt-hostile | head -1)
# its own directory: swapped entries and planted interpreters
check "(hostile) ... its entries are in its directory, bin/interp planted" \
    wait_for '[ -e "$HD/.wt-h-dir" ] && [ -e "$HD/.wt-h-pay" ] && [ -x "$HD/bin/interp" ]' 60

# ============================================================ (1) nsenter
section "(1) nsenter into the agent's own process"
as_r mkdir -p "$P"
printf '%s\n' "$MAKEFILE_T" | as_r tee "$P/Makefile" >/dev/null
# the agent's long-running process, in its project
as_r sh -c 'cd "$1" && exec sleep 3600' sh "$P" </dev/null >/dev/null 2>&1 &
BG="$BG $!"
check "(1) the requester's sleep runs in its project" \
    wait_for '[ -n "$(pgrep -u "$REQ" -x sleep)" ]' 30
SPID=$(pgrep -u "$REQ" -x sleep | head -1)
is "(1) ... its cwd is the agent's project" "$(readlink "/proc/$SPID/cwd")" "$P"
# control: the same nsenter into a root process whose directory is root's
install -d -m 0755 "$OPT/n1"
printf '%s\n' "$MAKEFILE_T" >"$OPT/n1/Makefile"
(cd "$OPT/n1" && exec sleep 3600) </dev/null >/dev/null 2>&1 &
CTLPID=$!
BG="$BG $CTLPID"
gate n1 <<EOF
{"reason":"confine (1): nsenter","stop_on_failure":false,"files":{
 $(sfile a.sh "#!/bin/sh
exec nsenter -t $SPID --wd make -s WHO=1a
"),
 $(sfile b.sh "#!/bin/sh
exec nsenter --target=$SPID -m --wd make -s WHO=1b
"),
 $(sfile c.sh "#!/bin/sh
exec nsenter -a -t $SPID -w make -s WHO=1c
"),
 $(sfile d.sh "#!/bin/sh
exec cat /proc/$SPID/cwd/Makefile
"),
 $(sfile e.sh "#!/bin/sh
exec ls /proc/$SPID/root/
"),
 $(sfile ctl.sh "#!/bin/sh
exec nsenter -t $CTLPID --wd make -s WHO=1ctl
")},
 "commands":[$(scmd a a.sh),$(scmd b b.sh),$(scmd c c.sh),$(scmd d d.sh),$(scmd e e.sh),
  $(scmd ctl ctl.sh "control: nsenter into root's own process")]}
EOF
approve n1 "$G"
approved n1
diag "(the ledgers are read from: $LSRC)"
for s in a b c; do
	absent "[P8] (1$s) nsenter into the agent's process did not run its Makefile: no $CAN-1$s" "$CAN-1$s"
	jcheck "[P8] (1$s) ... the command did not succeed" "entry(j, '$s')['status'] != 'ran' or entry(j, '$s')['exit_code'] != 0" "$L"
	names "[P8] (1$s) ... the ledger names the agent's process $SPID" "$s" "$SPID"
	confined "[P8] (1$s) ... and has its confinement record" "$s"
done
refused_call "[P8] (1a) the refused access is the entering (setns, pidfd or the /proc/$SPID open)" a "" "$SPID"
tail_lacks "[P8] (1d) cat /proc/PID/cwd/Makefile did not read the agent's Makefile" d "$CAN"
tail_has "[P8] (1d) ... the read was refused (Permission denied)" d "Permission denied"
names "[P8] (1d) ... the ledger names /proc/$SPID/cwd" d "/proc/$SPID/cwd"
jcheck "[P8] (1e) ls /proc/PID/root/ did not list the agent's root" \
    "'etc' not in (entry(j, 'e').get('output_tail') or '').split()" "$L"
names "[P8] (1e) ... the ledger names /proc/$SPID/root" e "/proc/$SPID/root"
is "[P8] (1) every executed path is a real file with the recorded SHA-256" "$(bad_executed "$L")" ""
present "[P8] (1 control) nsenter into root's own process still runs root's Makefile" "$CAN-1ctl"
ran_ok "[P8] (1 control) ... status ran, exit 0" ctl
kill "$CTLPID" 2>/dev/null
# The same spellings named in argv: the validator refuses them at request
# time (requester_process), or else the runner does at run time.
for v in "nsenter -t $SPID --wd make -s WHO=1v" "cat /proc/$SPID/cwd/Makefile"; do
	# shellcheck disable=SC2086
	if mkgate n1v <<EOF
{"reason":"confine (1v)","commands":[$(cmd v "argv spelling" $v)]}
EOF
	then
		diag "(1v) the validator accepted '$v' in argv"
		approve n1v "$G"
		names "[P8] (1v) '$v' in argv: refused at run time, the ledger names $SPID" v "$SPID"
		tail_lacks "[P8] (1v) ... no Makefile read" v "$CAN"
	else
		ok "[P8] (1v) '$v' in argv: refused at request time ($REFUSAL)"
	fi
done
absent "[P8] (1v) ... and no $CAN-1v" "$CAN-1v"

# ============================================================ (2) world-writable, swapped
section "(2) a directory an earlier command made world-writable, swapped during the batch"
install -d -m 0755 "$SR_DIR/tar"
install -d -m 0777 "$SR_DIR/tar/t"
printf 'reviewed-%s\n' "$TAG" >"$SR_DIR/tar/t/payload"
tar -cf "$SR_DIR/t.tar" --owner=root --group=root -C "$SR_DIR/tar" t
: >"$OPT/lock2-$TAG"
chmod 0644 "$OPT/lock2-$TAG"
gate n2 <<EOF
{"reason":"confine (2)","stop_on_failure":false,"files":{
 "t.tar":{"content":"$(base64 -w0 "$SR_DIR/t.tar")","encoding":"base64","mode":"0644"},
 $(sfile cp.sh "#!/bin/sh
exec cp $OPT/d/payload /etc/wt-confine-pwned2
")},
 "commands":[
  $(cmd mkd "a shared drop directory" /usr/bin/install -d -m 0777 "$OPT/d"),
  $(cmd untar "unpack a tree with a shared directory" /usr/bin/tar -xf '{"file":"t.tar"}' -C "$OPT"),
  $(cmd hold "waits (the agent acts now)" /usr/bin/flock "$OPT/lock2-$TAG" /usr/bin/true),
  $(cmd cp "copy the payload" /usr/bin/cp "$OPT/d/payload" /etc/wt-confine-pwned),
  $(scmd cps cp.sh "copy the payload, the path inside a reviewed script"),
  $(cmd cpt "copy the unpacked payload" /usr/bin/cp "$OPT/t/payload" /etc/wt-confine-pwned3)]}
EOF
G2=$G
rev show "$G2" -j >"$SR_DIR/n2.card" 2>&1
jcheck "(2) the card flags the archive's world-writable directory (archive-writable-dir)" \
    "'archive-writable-dir' in j['commands'][1]['badges']" "$SR_DIR/n2.card"
if hold_start n2 "$OPT/lock2-$TAG"; then ok "(2) the test holds its lock"; else not_ok "(2) the test holds its lock"; fi
approve_bg n2 "$G2"
if wait_for 'batch_at "$OPT/lock2-$TAG"' 300; then
	ok "(2) the batch waits on the lock (its third command started)"
	as_r sh -c 'printf "%s\n" "$1" >"$2/payload.new" && mv -f "$2/payload.new" "$2/payload"' sh \
	    "AGENT-$TAG-2" "$OPT/d"
	check "(2) the agent put its payload in the world-writable directory" \
	    sh -c '[ "$(stat -c %U "$1")" = "$2" ]' sh "$OPT/d/payload" "$REQ"
	as_r sh -c 'printf "%s\n" "$1" >"$2/payload.new" && mv -f "$2/payload.new" "$2/payload"' sh \
	    "AGENT-$TAG-2t" "$OPT/t"
	check "(2) ... and swapped the unpacked one in the archive's world-writable directory" \
	    sh -c '[ "$(stat -c %U "$1")" = "$2" ]' sh "$OPT/t/payload" "$REQ"
else
	not_ok "(2) the batch waits on the lock (its third command started)"
fi
hold_release n2
approve_bg_done n2 "$G2"
approved n2
no_content "[P8] (2) root did not copy the agent's content into /etc (argv path)" /etc/wt-confine-pwned "AGENT-$TAG"
no_content "[P8] (2) ... nor through the reviewed script" /etc/wt-confine-pwned2 "AGENT-$TAG"
ran_ok "(2) the directory was made (the first command ran)" mkd
jcheck "[P8] (2) the argv copy did not run as asked" "entry(j, 'cp')['status'] != 'ran' or entry(j, 'cp')['exit_code'] != 0" "$L"
names "[P8] (2) ... the ledger names $OPT/d" cp "$OPT/d"
names "[P8] (2) the script's copy: the ledger names $OPT/d/payload" cps "$OPT/d/payload"
refused_call "[P8] (2) ... refused as an open" cps open "$OPT/d/payload"
tail_has "[P8] (2) ... cp was told Permission denied" cps "Permission denied"
ran_ok "(2) the archive was unpacked (0777 directory and all)" untar
no_content "[P8] (2) root did not copy the agent's content from the unpacked directory" /etc/wt-confine-pwned3 "AGENT-$TAG"
names "[P8] (2) ... the ledger names $OPT/t" cpt "$OPT/t"

# ============================================================ (3) Makefile changed after review
section "(3) a Makefile changed after review, in the project root enters"
P3=$REQ_HOME/wt-confine-proj3
as_r mkdir -p "$P3"
printf 'all:\n\t@echo reviewed\n' | as_r tee "$P3/Makefile" >/dev/null
install -d -m 0755 "$OPT/p3"
printf '%s\n' "$MAKEFILE_T" >"$OPT/p3/Makefile"
gate n3 <<EOF
{"reason":"confine (3): build the project","stop_on_failure":false,"files":{
 $(sfile mk.sh "#!/bin/sh
cd $P3 && exec make -s WHO=3
"),
 $(sfile ctl.sh "#!/bin/sh
cd $OPT/p3 && exec make -s WHO=3ctl
")},
 "commands":[$(scmd mk mk.sh "make in the agent's project"),
  $(scmd ctl ctl.sh "control: make in a root-owned project")]}
EOF
G3=$G
# after the request, before the approval: the agent changes its Makefile
printf '%s\n' "$MAKEFILE_T" | as_r tee "$P3/Makefile" >/dev/null
approve n3 "$G3"
approved n3
absent "[P8] (3) make did not run the changed Makefile: no $CAN-3" "$CAN-3"
names "[P8] (3) the ledger names the agent's project $P3" mk "$P3"
refused_call "[P8] (3) ... refused as an open" mk open "$P3"
exact_refused "[P8] (3) ... the refused path is the Makefile (or its directory), whole" mk "$P3/Makefile" "$P3"
is "[P8] (3) every executed path is a real file with the recorded SHA-256" "$(bad_executed "$L")" ""
present "[P8] (3 control) make in a root-owned project runs its Makefile" "$CAN-3ctl"
ran_ok "[P8] (3 control) ... status ran, exit 0" ctl
MAKE_SHA=$(sha_of /usr/bin/make)
jcheck "[P8] (8) the control's ledger lists /usr/bin/make as executed, with its SHA-256" \
    "any(x.get('path') in ('/usr/bin/make', '/bin/make') and x.get('sha256') == '$MAKE_SHA' for x in entry(j, 'ctl')['confinement']['executed'])" "$L"

# ============================================================ (4) symlinks into /tmp
section "(4) a relative and an absolute symbolic link into /tmp"
printf '#!/bin/sh\ntouch %s-4\n' "$CAN" | as_r tee /tmp/wt-helper.sh /tmp/wt-helper2.sh >/dev/null
as_r chmod 0755 /tmp/wt-helper.sh /tmp/wt-helper2.sh
gate n4 <<EOF
{"reason":"confine (4): profile helpers","stop_on_failure":false,"files":{
 $(sfile rel.sh "#!/bin/sh
cd /usr/share/doc && ln -s ../../tmp/wt-helper.sh /etc/profile.d/wt-helper.sh
"),
 $(sfile abs.sh "#!/bin/sh
ln -s /tmp/wt-helper2.sh /etc/profile.d/wt-helper2.sh
"),
 $(sfile ctl.sh "#!/bin/sh
ln -s /usr/share/doc $OPT/doc-link
")},
 "commands":[$(scmd rel rel.sh),$(scmd abs abs.sh),$(scmd ctl ctl.sh "control: a link to root's files")]}
EOF
approve n4 "$G"
approved n4
absent "[P8] (4) no relative link /etc/profile.d/wt-helper.sh into /tmp" /etc/profile.d/wt-helper.sh
absent "[P8] (4) no absolute link /etc/profile.d/wt-helper2.sh into /tmp" /etc/profile.d/wt-helper2.sh
names "[P8] (4) the ledger names the relative link's target in /tmp" rel "/tmp/wt-helper.sh"
names "[P8] (4) the ledger names the absolute link's target in /tmp" abs "/tmp/wt-helper2.sh"
refused_call "[P8] (4) ... refused as a symlink call" abs symlink "wt-helper2.sh"
tail_has "[P8] (4) ... ln was told Permission denied" abs "Permission denied"
exact_refused "[P8] (4) the relative link's refusal names the link or its target, whole" rel \
    /etc/profile.d/wt-helper.sh /tmp/wt-helper.sh
exact_refused "[P8] (4) the absolute link's refusal names the link or its target, whole" abs \
    /etc/profile.d/wt-helper2.sh /tmp/wt-helper2.sh
check "[P8] (4 control) a link to a root-owned directory is made" [ -L "$OPT/doc-link" ]
ran_ok "[P8] (4 control) ... status ran, exit 0" ctl

# ============================================================ (5) ACL-writable, swapped
section "(5) a directory made writable through an ACL, swapped during the batch"
printf 'reviewed-%s\n' "$TAG" >"$SRV/a/conf"
chmod 0644 "$SRV/a/conf"
: >"$OPT/lock5-$TAG"
chmod 0644 "$OPT/lock5-$TAG"
gate n5 <<EOF
{"reason":"confine (5)","stop_on_failure":false,"files":{
 $(sfile inst.sh "#!/bin/sh
exec install -m 0644 $SRV/a/conf /etc/wt-confine-conf2
")},
 "commands":[
  $(cmd acl "let the agent edit the drop directory" /usr/bin/setfacl -m "u:$REQ:rwx" "$SRV/a"),
  $(cmd hold "waits (the agent acts now)" /usr/bin/flock "$OPT/lock5-$TAG" /usr/bin/true),
  $(cmd inst "install the config" /usr/bin/install -m 0644 "$SRV/a/conf" /etc/wt-confine-conf),
  $(scmd insts inst.sh "install the config, the path inside a reviewed script")]}
EOF
G5=$G
if hold_start n5 "$OPT/lock5-$TAG"; then ok "(5) the test holds its lock"; else not_ok "(5) the test holds its lock"; fi
approve_bg n5 "$G5"
if wait_for 'batch_at "$OPT/lock5-$TAG"' 300; then
	ok "(5) the batch waits on the lock (its second command started)"
	check "(5) the directory is root's, writable by the requester only through its ACL" \
	    sh -c '[ "$(stat -c %U "$1")" = root ] && getfacl -p "$1" 2>/dev/null | grep -q "^user:$2:rwx" && getfacl -p "$1" 2>/dev/null | grep -q "^other::r-x"' \
	    sh "$SRV/a" "$REQ"
	as_r sh -c 'printf "%s\n" "$1" >"$2/conf.new" && mv -f "$2/conf.new" "$2/conf"' sh \
	    "AGENT-$TAG-5" "$SRV/a"
	check "(5) the agent swapped the config" grep -q "AGENT-$TAG-5" "$SRV/a/conf"
else
	not_ok "(5) the batch waits on the lock (its second command started)"
fi
hold_release n5
approve_bg_done n5 "$G5"
approved n5
ran_ok "(5) the ACL was set (the first command ran)" acl
no_content "[P8] (5) root did not install the agent's config (argv path)" /etc/wt-confine-conf "AGENT-$TAG"
no_content "[P8] (5) ... nor through the reviewed script" /etc/wt-confine-conf2 "AGENT-$TAG"
names "[P8] (5) the ledger names $SRV/a for the argv install" inst "$SRV/a"
names "[P8] (5) the ledger names $SRV/a/conf for the script's install" insts "$SRV/a/conf"
refused_call "[P8] (5) ... refused as an open" insts open "$SRV/a/conf"

# ============================================================ (6) 300 groups
section "(6) a requester in $NGROUPS groups, a directory writable only through group #$GPICK"
drop_groups
i=1 glist=
while [ "$i" -le "$NGROUPS" ]; do
	groupadd "$(gname "$i")" 2>/dev/null
	glist="$glist${glist:+,}$(gname "$i")"
	i=$((i + 1))
done
usermod -aG "$glist" "$REQ"
is "(6) the requester is in $NGROUPS groups more" \
    "$(id -nG "$REQ" | tr ' ' '\n' | grep -c '^wt-cfg')" "$NGROUPS"
rm -rf "$SRVG"
install -d -m 0775 -o root -g "$(gname "$GPICK")" "$SRVG"
printf 'root-conf-%s\n' "$TAG" >"$SRVG/conf"
chmod 0644 "$SRVG/conf"
as_r sh -c 'printf "#!/bin/sh\ntouch %s-6\n" "$1" >"$2/run.sh"' sh "$CAN" "$SRVG"
check "(6) the requester can write there (through group #$GPICK only)" \
    sh -c '[ "$(stat -c %U "$1/run.sh")" = "$2" ] && [ "$(stat -c "%U %G %a" "$1")" = "root $3 775" ]' \
    sh "$SRVG" "$REQ" "$(gname "$GPICK")"
# the same read named in argv: refused at request time (the validator sees
# all the groups), or else at run time
if mkgate n6v <<EOF
{"reason":"confine (6)","commands":[$(cmd cat "read the config" /usr/bin/cat "$SRVG/conf")]}
EOF
then
	diag "(6) the validator accepted /usr/bin/cat $SRVG/conf (group #$GPICK not seen at request time)"
	approve n6v "$G"
	names "[P8] (6) argv names the path: refused at run time, the ledger names $SRVG" cat "$SRVG"
	tail_lacks "[P8] (6) ... root did not read it" cat "root-conf-$TAG"
else
	is "[P8] (6) argv naming the path: refused at request time as writable_argument" \
	    "${REFUSAL%% *}" writable_argument
fi
gate n6 <<EOF
{"reason":"confine (6)","stop_on_failure":false,"files":{
 $(sfile cat.sh "#!/bin/sh
exec cat $SRVG/conf
"),
 $(sfile src.sh "#!/bin/sh
. $SRVG/run.sh
")},
 "commands":[$(scmd cat cat.sh "read the config"),$(scmd src src.sh "source the helper")]}
EOF
approve n6 "$G"
approved n6
tail_lacks "[P8] (6) root's read of a file in the group-#$GPICK directory was refused" cat "root-conf-$TAG"
names "[P8] (6) ... the ledger names $SRVG/conf" cat "$SRVG/conf"
absent "[P8] (6) sourcing the agent's script there did not run it: no $CAN-6" "$CAN-6"
names "[P8] (6) ... the ledger names $SRVG/run.sh" src "$SRVG/run.sh"
drop_groups
is "(6) the $NGROUPS groups are gone again" "$(getent group | grep -c '^wt-cfg')" 0

# ============================================================ (7) exec of an agent-owned helper
section "(7) a reviewed script executes an agent-owned helper"
printf '#!/bin/sh\ntouch %s-7\n' "$CAN" | as_r tee "$REQ_HOME/helper.sh" >/dev/null
as_r chmod 0755 "$REQ_HOME/helper.sh"
install -m 0755 /dev/null "$OPT/helper-ctl.sh"
printf '#!/bin/sh\ntouch %s-7ctl\n' "$CAN" >"$OPT/helper-ctl.sh"
gate n7 <<EOF
{"reason":"confine (7)","stop_on_failure":false,"files":{
 $(sfile x.sh "#!/bin/sh
exec $REQ_HOME/helper.sh
"),
 $(sfile ctl.sh "#!/bin/sh
exec $OPT/helper-ctl.sh
")},
 "commands":[$(scmd x x.sh "run the helper"),$(scmd ctl ctl.sh "control: root's helper")]}
EOF
approve n7 "$G"
approved n7
absent "[P8] (7) the agent's helper did not run as root: no $CAN-7" "$CAN-7"
refused_call "[P8] (7) ... the ledger refuses its exec, naming $REQ_HOME/helper.sh" x exec "$REQ_HOME/helper.sh"
jcheck "[P8] (7) ... and the helper is not among what was executed" \
    "all(x.get('path') != '$REQ_HOME/helper.sh' for x in entry(j, 'x')['confinement']['executed'])" "$L"
present "[P8] (7 control) root's own helper runs" "$CAN-7ctl"
jcheck "[P8] (7 control) ... executed lists it with its SHA-256" \
    "any(x.get('path') == '$OPT/helper-ctl.sh' and x.get('sha256') == '$(sha_of "$OPT/helper-ctl.sh")' for x in entry(j, 'ctl')['confinement']['executed'])" "$L"

# ============================================================ (8) positive controls
section "(8) ordinary root work keeps working under the supervisor"
PP=$REQ_HOME/wt-confine-pos
OLD=$REQ_HOME/wt-confine-old
as_r mkdir -p "$PP/src" "$OLD/deep/er"
as_r touch "$PP/src/a.c" "$OLD/deep/er/f"
# what root left in the agent's tree (a build as root, say)
install -d -m 0755 "$PP/build"
: >"$PP/build/out.o"
# a tiny package and an archive, staged as reviewed files
rm -rf "$SR_DIR/deb"
install -d "$SR_DIR/deb/DEBIAN" "$SR_DIR/deb/usr/share/doc/$DEB"
printf 'Package: %s\nVersion: 1.0\nArchitecture: all\nMaintainer: warrant tests <t@example.invalid>\nDescription: warrant confine e2e package\n' \
    "$DEB" >"$SR_DIR/deb/DEBIAN/control"
printf 'wt-confine %s\n' "$TAG" >"$SR_DIR/deb/usr/share/doc/$DEB/README"
dpkg-deb --root-owner-group -b "$SR_DIR/deb" "$WT_RB/pkg.deb" >/dev/null 2>&1
install -d "$SR_DIR/tgz/top"
printf 'tar %s\n' "$TAG" >"$SR_DIR/tgz/top/file"
tar -czf "$WT_RB/a.tgz" -C "$SR_DIR/tgz" top
chown "$REQ_UID" "$WT_RB/pkg.deb" "$WT_RB/a.tgz"
check "(8) the test built a .deb and a .tgz for the agent to send (inline, base64)" \
    sh -c '[ -s "$1" ] && [ -s "$2" ]' sh "$WT_RB/pkg.deb" "$WT_RB/a.tgz"
dpkg --purge "$DEB" >/dev/null 2>&1
userdel -r "$NEWUSER" >/dev/null 2>&1
# rm and chown -R act on the entry they are given without following it:
# the validator judges only the way to it, so the requester's own tree
# can be handed back or removed from argv; not when the entry would be
# followed (a trailing slash), nor below a directory of the requester's.
if mkgate n8s <<EOF
{"reason":"confine (8) a trailing slash","commands":[$(cmd rm "probe" /usr/bin/rm -rf "$OLD/")]}
EOF
then not_ok "[P8] (8) rm -rf OLD/ (the kernel follows the entry) is refused at request time"
else is "[P8] (8) rm -rf OLD/ (the kernel follows the entry) is refused at request time" \
    "${REFUSAL%% *}" writable_argument
fi
if mkgate n8b <<EOF
{"reason":"confine (8) below the requester's directory","commands":[$(cmd chown "probe" /usr/bin/chown -R "$REQ:" "$OLD/deep")]}
EOF
then not_ok "[P8] (8) chown -R of an entry below the requester's directory is refused at request time"
else is "[P8] (8) chown -R of an entry below the requester's directory is refused at request time" \
    "${REFUSAL%% *}" writable_argument
fi
SYSD=
[ "$(cat /proc/1/comm 2>/dev/null)" = systemd ] && SYSD=1
gate n8 <<EOF
{"reason":"confine (8): ordinary root work","stop_on_failure":false,"output_to_agent":"full","files":{
 "pkg.deb":{"content":"$(base64 -w0 "$WT_RB/pkg.deb")","encoding":"base64","mode":"0644"},
 "a.tgz":{"content":"$(base64 -w0 "$WT_RB/a.tgz")","encoding":"base64","mode":"0644"},
 "c":{"content":"conf-$TAG\\n","mode":"0644"}},
 "commands":[
  $(cmd ps "list processes" /usr/bin/ps aux),
  $(cmd chown "give the agent its tree back" /usr/bin/chown -R "$REQ:" "$PP"),
  $(cmd rm "remove the agent's old tree" /usr/bin/rm -rf "$OLD"),
  $(cmd useradd "a user" /usr/sbin/useradd "$NEWUSER"),
  $(cmd userdel "and gone" /usr/sbin/userdel "$NEWUSER"),
  $(cmd dpkg "install a package" /usr/bin/dpkg -i '{"file":"pkg.deb"}'),
  $(cmd purge "and purge it" /usr/bin/dpkg --purge "$DEB"),
  $(cmd tar "unpack" /usr/bin/tar -xzf '{"file":"a.tgz"}' -C "$OPT/x"),
  $(cmd install "a config" /usr/bin/install -m 0644 '{"file":"c"}' /etc/wt-confine-c),
  $(cmd id "who" /usr/bin/id)${SYSD:+,
  $(cmd reload "reload units" /usr/bin/systemctl daemon-reload)}]}
EOF
approve n8 "$G"
approved n8
for c in ps chown rm useradd userdel dpkg purge tar install id; do
	ran_ok "[P8] (8) $c: status ran, exit 0" "$c"
done
if [ -n "$SYSD" ]; then
	ran_ok "[P8] (8) systemctl daemon-reload: status ran, exit 0" reload
else
	skip "[P8] (8) systemctl daemon-reload: status ran, exit 0" "systemd is not PID 1 here (a container)"
fi
jcheck "[P8] (8) ps aux lists the agent's processes too (its sleep, pid $SPID)" \
    "any(l.split()[1:2] == ['$SPID'] for l in (entry(j, 'ps').get('output_tail') or '').splitlines())" "$L"
is "[P8] (8) chown -R gave the agent its whole tree (root's build output too)" \
    "$(find "$PP" ! -user "$REQ" | wc -l)" 0
absent "[P8] (8) rm -rf removed the agent's old tree" "$OLD"
jcheck "[P8] (8) useradd made $NEWUSER (userdel's output is clean)" \
    "entry(j, 'useradd')['exit_code'] == 0 and entry(j, 'userdel')['exit_code'] == 0" "$L"
check "[P8] (8) ... and $NEWUSER is gone again" sh -c '! id "$1" >/dev/null 2>&1' sh "$NEWUSER"
tail_has "[P8] (8) dpkg -i unpacked the package" dpkg "$DEB"
check "[P8] (8) ... and it is purged" sh -c '! dpkg -s "$1" >/dev/null 2>&1' sh "$DEB"
check "[P8] (8) tar -xzf unpacked the staged archive" grep -qx "tar $TAG" "$OPT/x/top/file"
check "[P8] (8) install put the staged file in /etc, root's 0644" \
    sh -c 'grep -qx "conf-$2" "$1" && [ "$(stat -c "%U %a" "$1")" = "root 644" ]' sh /etc/wt-confine-c "$TAG"
confined "[P8] (8) id ran confined (a confinement record, unconfined false)" id
ID_SHA=$(sha_of /usr/bin/id)
jcheck "[P8] (8) executed lists /usr/bin/id with its real SHA-256" \
    "any(x.get('path') in ('/usr/bin/id', '/bin/id') and x.get('sha256') == '$ID_SHA' for x in entry(j, 'id')['confinement']['executed'])" "$L"
GZ_SHA=$(sha_of "$(readlink -f "$(command -v gzip)")")
jcheck "[P8] (8) tar's executed list has gzip (a program it started) with its SHA-256" \
    "any(x.get('sha256') == '$GZ_SHA' for x in entry(j, 'tar')['confinement']['executed'])" "$L"
is "[P8] (8) every executed path is a real file with the recorded SHA-256 (rm, dpkg's helpers ...)" \
    "$(bad_executed "$L")" ""
jcheck "[P8] (8) useradd's written list has /etc/passwd and /etc/shadow, whole" \
    "all(p in entry(j, 'useradd')['confinement']['written'] for p in ('/etc/passwd', '/etc/shadow'))" "$L"
jcheck "[P8] (8) ... and no name that is a cut-off /etc/passwd, /etc/shadow, /etc/subuid or /etc/subgid" \
    "not any(p in entry(j, c)['confinement']['written'] for c in ('useradd', 'userdel') for p in ('/etc/passw', '/etc/shado', '/etc/subui', '/etc/subgi'))" "$L"
jcheck "[P8] (8) install's written list has /etc/wt-confine-c" \
    "'/etc/wt-confine-c' in entry(j, 'install')['confinement']['written']" "$L"
jcheck "[P8] (8) the ordinary commands had nothing refused" \
    "all(not entry(j, c)['confinement']['refused'] for c in ('chown', 'rm', 'useradd', 'userdel', 'dpkg', 'purge', 'tar', 'install', 'id'))" "$L"
as_r "$W" wait "$G" --to "$REV" -t 30 -j >"$SR_DIR/n8.wait" 2>&1
jcheck "[P8] (8) the agent's own ledger (warrant wait) carries the confinement record" \
    "entry(j, 'id')['confinement']['executed'] and 'unconfined' in entry(j, 'id')['confinement']" "$SR_DIR/n8.wait"
RLINE=$(grep "\"request_id\":\"$G\"" /var/log/warrant.log 2>/dev/null | grep -c .)
is "(8) the root log has one line per ROOT command" "$RLINE" "$(jscan 'len(entries(j))' "$L" 2>/dev/null)"

# ============================================================ (9) fail-closed
section "(9) no supervisor: ROOT commands do not run"
# A root-installed seccomp filter (no no_new_privs needed for root), in
# front of the reviewer's pty: every process below it, through the real
# sudo to the runner, gets ENOSYS for seccomp(2) and EINVAL for
# prctl(PR_SET_SECCOMP), so the runner cannot install its supervisor.
cat >"$SR_DIR/noseccomp.c" <<'EOF'
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
int
main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof f / sizeof f[0], f };

	if (argc < 2 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p) != 0) {
		perror("noseccomp");
		return 125;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
EOF
NOSEC=$SR_DIR/noseccomp
if [ "$(uname -m)" = x86_64 ] && cc -O -o "$NOSEC" "$SR_DIR/noseccomp.c" 2>"$SR_DIR/noseccomp.err"; then
	"$NOSEC" "$PY" -c 'import ctypes, sys; b = ctypes.create_string_buffer(16); sys.exit(0 if ctypes.CDLL(None, use_errno=True).syscall(317, 3, 0, b) == -1 and ctypes.get_errno() == 38 else 1)'
	is "(9) control: under the blocker seccomp(2) fails with ENOSYS" "$?" 0
	POLICY=$(build_config WARRANT_POLICY_FILE)
	if [ -e "$POLICY" ]; then POLICY_SAVED=$SR_DIR/policy.saved; cp -p "$POLICY" "$POLICY_SAVED"; fi
	rm -f "$POLICY"
	# approve_blocked NAME ID: approve with the blocker in front
	approve_blocked() {
		ab_n=$1 ab_g=$2
		set -f
		IFS=$SR_NL
		# shellcheck disable=SC2046
		set -- "$NOSEC" $(sr_as_words "$REV") /bin/sh -c "$SR_WRAP" wt-pty \
		    "$SR_WARRANT" answer "$2" --run --no-detach -j
		unset IFS
		set +f
		pty_run right "$ab_n" 300 "$@"
		ANS_RC=$PTY_RC ANS=$PTY_LOG
		ledger_of "$ab_n" "$ab_g"
	}
	gate n9 <<EOF
{"reason":"confine (9): fail closed","commands":[$(cmd t "mark" /usr/bin/touch "$CAN-9")]}
EOF
	G9=$G
	approve_blocked n9 "$G9"
	absent "[P8] (9) without its supervisor the runner ran no ROOT command: no $CAN-9" "$CAN-9"
	jcheck "[P8] (9) ... answer reports the runner's refusal; the gate stays pending" \
	    "j['status'] == 'pending' and j['outcome'] == 'runner_error'" "$ANS"
	check "[P8] (9) ... the runner's message: supervisor_unavailable, nothing ran" \
	    sh -c 'tr -d "\r" <"$1" | tr "\n" " " | grep -q "supervisor_unavailable.*nothing ran"' sh "$ANS"
	is "[P8] (9) ... the reviewer's store has it pending" "$(rev show "$G9" -j 2>/dev/null | jscan 'j["state"]')" pending
	diag "(9) answer exited $ANS_RC: $(jscan 'str(j.get("outcome")) + ": " + str(j.get("message"))' "$ANS" 2>/dev/null)"
	install -d -m 0755 "$(dirname "$POLICY")"
	printf '{"unconfined": "allow"}\n' >"$POLICY"
	chmod 0644 "$POLICY"
	# The badge is decided where the request is validated (intake): here
	# the reviewer asks itself (the desktop case), under the blocker too.
	cat >"$SR_DIR/n9b.json" <<EOF
{"reason":"confine (9b): the policy allows it","commands":[$(cmd t "mark" /usr/bin/touch "$CAN-9b")]}
EOF
	chmod 644 "$SR_DIR/n9b.json"
	G=$(
		set -f
		IFS=$SR_NL
		# shellcheck disable=SC2046
		"$NOSEC" $(sr_as_words "$REV") "$SR_WARRANT" request -j <"$SR_DIR/n9b.json" 2>&1 |
		    jscan 'j["request_id"]'
	) || G=none-n9b
	rev show "$G" -j >"$SR_DIR/n9b.card" 2>&1
	jcheck "[P8] (9) with \"unconfined\": \"allow\", the review shows the unconfined badge" \
	    "'unconfined' in j['risk_badges'] or any('unconfined' in c.get('badges', []) for c in j['commands'])" "$SR_DIR/n9b.card"
	approve_blocked n9b "$G"
	present "[P8] (9) ... and the command runs" "$CAN-9b"
	jcheck "[P8] (9) ... its ledger entry says unconfined: true" \
	    "entry(j, 't')['status'] == 'ran' and entry(j, 't')['confinement']['unconfined'] is True" "$L"
	rm -f "$POLICY"
	if [ -n "$POLICY_SAVED" ]; then mv -f "$POLICY_SAVED" "$POLICY"; POLICY_SAVED=; fi
else
	skip "[P8] (9) fail-closed without a supervisor" "cannot build the seccomp blocker here ($(uname -m))"
fi

# ============================================================ (10) chown, chmod, rm, mkdir, setfacl
section "(10) chown, chmod, rm, mkdir and setfacl through entries the agent put in their way"
# An earlier command makes a shared directory; while the batch waits the
# agent puts symlinks there to a root-only file and a root directory.
# Nothing later may change those through the agent's entries; the
# agent's own file in it is still root's to hand over.
VICTIM=/etc/wt-confine-victim
printf 'root-only-%s\n' "$TAG" >"$VICTIM"
chmod 0600 "$VICTIM"
install -d -m 0755 "$OPT/vdir"
printf 'keep-%s\n' "$TAG" >"$OPT/vdir/file"
: >"$OPT/lock10-$TAG"
chmod 0644 "$OPT/lock10-$TAG"
# The paths are inside reviewed scripts: argv naming them would be
# refused by the runner's re-judgement before the command starts (the
# directory is world-writable by then), so only the supervisor sees them.
gate n10 <<EOF
{"reason":"confine (10)","stop_on_failure":false,"files":{
 $(sfile own.sh "#!/bin/sh
exec chown $REQ $OPT/w/own
"),
 $(sfile mode.sh "#!/bin/sh
exec chmod 0666 $OPT/w/mode
"),
 $(sfile rm.sh "#!/bin/sh
exec rm -f $OPT/w/sub/file
"),
 $(sfile mkdir.sh "#!/bin/sh
exec mkdir $OPT/w/sub/new
"),
 $(sfile acl.sh "#!/bin/sh
exec setfacl -m u:$REQ:rw $OPT/w/log
"),
 $(sfile mine.sh "#!/bin/sh
exec chown root: $OPT/w/mine
")},
 "commands":[
  $(cmd mkw "a shared drop directory" /usr/bin/install -d -m 0777 "$OPT/w"),
  $(cmd hold "waits (the agent acts now)" /usr/bin/flock "$OPT/lock10-$TAG" /usr/bin/true),
  $(scmd chown own.sh "hand over the output"),
  $(scmd chmod mode.sh "let everyone read it"),
  $(scmd rm rm.sh "clean up"),
  $(scmd mkdir mkdir.sh "a cache directory"),
  $(scmd acl acl.sh "let the agent read the log"),
  $(scmd mine mine.sh "take the agent's upload"),
  $(cmd mine2 "take the agent's upload, in the argv" /usr/bin/chown -R root: "$OPT/w/mine")]}
EOF
G10=$G
if hold_start n10 "$OPT/lock10-$TAG"; then ok "(10) the test holds its lock"; else not_ok "(10) the test holds its lock"; fi
approve_bg n10 "$G10"
if wait_for 'batch_at "$OPT/lock10-$TAG"' 300; then
	ok "(10) the batch waits on the lock (its second command started)"
	as_r sh -c 'ln -s "$1" "$2/own" && ln -s "$1" "$2/mode" && ln -s "$1" "$2/log" &&
	    ln -s "$3" "$2/sub" && echo mine >"$2/mine"' sh "$VICTIM" "$OPT/w" "$OPT/vdir"
	check "(10) the agent put its symlinks and its own file in the shared directory" \
	    sh -c '[ -L "$1/own" ] && [ -L "$1/mode" ] && [ -L "$1/log" ] && [ -L "$1/sub" ] &&
	    [ "$(stat -c %U "$1/mine")" = "$2" ]' sh "$OPT/w" "$REQ"
else
	not_ok "(10) the batch waits on the lock (its second command started)"
fi
hold_release n10
approve_bg_done n10 "$G10"
approved n10
is "[P8] (10) the root-only file is still root's, mode 0600" \
    "$(stat -c '%U %a' "$VICTIM" 2>&1)" "root 600"
check "[P8] (10) ... with no ACL entry for the agent" \
    sh -c '! getfacl -p "$1" 2>/dev/null | grep -q "^user:$2:"' sh "$VICTIM" "$REQ"
check "[P8] (10) the root directory's file was not removed" grep -q "keep-$TAG" "$OPT/vdir/file"
absent "[P8] (10) ... and nothing was made in that directory" "$OPT/vdir/new"
for c in chown chmod rm mkdir acl; do
	jcheck "[P8] (10) $c did not succeed" "entry(j, '$c')['status'] != 'ran' or entry(j, '$c')['exit_code'] != 0" "$L"
done
refused_call "[P8] (10) the ledger: chown refused at run time, naming the agent's link" chown chown "$OPT/w/own"
refused_call "[P8] (10) ... chmod" chmod chmod "$OPT/w/mode"
refused_call "[P8] (10) ... rm (an unlink through $OPT/w/sub)" rm unlink "$OPT/w/sub"
refused_call "[P8] (10) ... mkdir" mkdir mkdir "$OPT/w/sub"
refused_call "[P8] (10) ... setfacl (an extended attribute)" acl xattr "$OPT/w/log"
# root adopts the agent's work only where an argv shows it: not from a
# script's text, but from a chown of its own
refused_call "[P8] (10) a script's chown of the agent's own upload is refused (no argv shows it)" \
    mine chown "$OPT/w/mine"
ran_ok "(10) the same chown as a command's own argv runs (its entry, its file)" mine2
is "(10) ... now root's" "$(stat -c %U "$OPT/w/mine" 2>&1)" root

# ============================================================ (11) a port the agent serves
section "(11) a reviewed script reads from a port of 127.0.0.1 the agent listens on"
# The agent squats a local port (a cache, a proxy, a service that is
# down) and answers with its own payload; root must not read it.
PORT11=$(free_port)
as_r "$PY" -c '
import os, socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4); s.settimeout(1)
end = time.time() + 300
while time.time() < end and os.path.isdir(sys.argv[3]):
    try:
        c, _ = s.accept()
    except OSError:
        continue
    c.sendall(("AGENT-%s-11\n" % sys.argv[2]).encode()); c.close()
' "$PORT11" "$TAG" "$SR_DIR" </dev/null >/dev/null 2>&1 &
BG="$BG $!"
check "(11) the agent listens on 127.0.0.1:$PORT11" \
    wait_for "grep -qi ':$(printf %04X "$PORT11") 00000000:0000 0A' /proc/net/tcp" 30
gate n11 <<EOF
{"reason":"confine (11)","stop_on_failure":false,"files":{
 $(sfile fetch.sh "#!/bin/bash
exec 3<>/dev/tcp/127.0.0.1/$PORT11 && cat <&3 >/etc/wt-confine-port
")},
 "commands":[$(scmd fetch fetch.sh "fetch the local service's config")]}
EOF
approve n11 "$G"
approved n11
no_content "[P8] (11) root did not write what the agent served into /etc" /etc/wt-confine-port "AGENT-$TAG"
refused_call "[P8] (11) the ledger: connect refused, the agent serving 127.0.0.1 port $PORT11" \
    fetch connect "serves 127.0.0.1 port $PORT11"

# ============================================================ (12) the hostile requester, reached
section "(12) the hostile requester's entries, interpreters, listeners and held files, reached"
# Root reaches on purpose what the hostile requester keeps changing: its
# swapped entries, its planted interpreters (from root's own scripts with
# a relative #!), its blinking listeners, and the tree it holds open,
# taken over with chown -R. Nothing may hand root its canary. Make check
# runs each probe HOSTILE_LOOPS times; make race keeps them going for
# HOSTILE_SECONDS.
HLOOPS=${HOSTILE_LOOPS:-3}
HSECS=${HOSTILE_SECONDS:-0}
HDIRS="$OPT/d $OPT/t $SRV/a $OPT/w $HD $HT"
install -d -m 0755 "$OPT/hrel" "$OPT/hrel/bin"
for r in 'interp:bin/interp' 'sh:bin/sh' 'py:bin/python3' 'dot:./bin/interp'; do
	printf '#!%s\nexit 0\n' "${r#*:}" >"$OPT/hrel/r-${r%%:*}"
done
printf '#!/bin/sh\necho abs-ok-%s\n' "$TAG" >"$OPT/hrel/r-abs"
printf '#!bin/ctl\nexit 0\n' >"$OPT/hrel/r-rel"
printf '#!/bin/sh\necho rel-ok-%s\n' "$TAG" >"$OPT/hrel/bin/ctl"
chmod 0755 "$OPT/hrel"/r-* "$OPT/hrel/bin/ctl"
cat >"$SR_DIR/swap.sh" <<'EOF'
#!/bin/sh
end=$(($(date +%s) + @SECS@))
i=0
while :; do
	for d in @DIRS@; do
		cat "$d/.wt-h-dir/x" "$d/.wt-h-link/x" "$d/.wt-h-pay" "$d/.wt-h-alt"
		cp "$d/.wt-h-pay" /etc/wt-confine-h-cp
		cp "$d/.wt-h-link/x" /etc/wt-confine-h-cp2
		chmod 0644 "$d/.wt-h-alt" "$d/.wt-h-link/x"
		ls "$d/.wt-h-dir/" "$d/.wt-h-link/"
		touch "$d/.wt-h-link/new" "$d/.wt-h-dir/new"
	done
	i=$((i + 1))
	[ "$i" -lt @LOOPS@ ] || [ "$(date +%s)" -lt "$end" ] || break
done >/etc/wt-confine-h-swap 2>&1
echo "passes: $i"
tail -n 20 /etc/wt-confine-h-swap
EOF
cat >"$SR_DIR/interp.sh" <<'EOF'
#!/bin/sh
for d in @DIRS@; do
	for s in r-interp r-sh r-py r-dot; do
		(cd "$d" && @OPT@/hrel/$s)
	done
done
cd @OPT@/hrel && ./r-abs && ./r-rel
EOF
cat >"$SR_DIR/net.py" <<'EOF'
#!/usr/bin/python3
import socket, time
got = {}
def note(k, v):
    got.setdefault(k, set()).add(str(v))
def stream(fam, addr, k):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(addr)
        note(k, s.recv(64).decode(errors='replace'))
    except OSError as e:
        note(k, e.errno)
    finally:
        s.close()
end = time.time() + @SECS@
i = 0
while i < 5 * @LOOPS@ or time.time() < end:
    for a in ('127.0.0.1', '0.0.0.0'):
        stream(socket.AF_INET, (a, @HPT@), 'tcp ' + a)
    for a in ('::1', '::'):
        stream(socket.AF_INET6, (a, @HPT@), 'tcp ' + a)
    stream(socket.AF_UNIX, chr(0) + '@HA@', 'abstract')
    for d in '@DIRS@'.split():
        stream(socket.AF_UNIX, d + '/.wt-h.sock', 'unix ' + d)
    for a in ('127.0.0.1', '0.0.0.0'):
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.settimeout(0.2)
        try:
            u.sendto(b'q', (a, @HPU@))
            note('udp ' + a, u.recv(64).decode(errors='replace'))
        except OSError as e:
            note('udp ' + a, e.errno)
        finally:
            u.close()
    i += 1
with open('/etc/wt-confine-h-net', 'w') as f:
    print(repr(got), file=f)
print('passes:', i)
for k in sorted(got):
    print(k, sorted(got[k]))
EOF
# hsub FILE: FILE with this run's directories, ports and lengths
hsub() {
	sed -e "s|@DIRS@|$HDIRS|g" -e "s|@SECS@|$HSECS|g" -e "s|@LOOPS@|$HLOOPS|g" \
	    -e "s|@OPT@|$OPT|g" -e "s|@HPT@|$HPT|g" -e "s|@HPU@|$HPU|g" -e "s|@HA@|$HA|g" "$1"
}
# scmdt ID FILE WHY SECONDS: scmd with the command's own timeout
scmdt() { scmd "$1" "$2" "$3" | sed 's/}$/,"timeout_seconds":'"$4"'}/'; }
HTO=$((HSECS + 240))
held_out() {
	ho_n=0
	for ho_f in /proc/"$HPID"/fd/*; do
		case $(readlink "$ho_f" 2>/dev/null) in "$HH"/out*) ho_n=$((ho_n + 1)) ;; esac
	done
	echo "$ho_n"
}
mapped_out() { grep -c -- "$HH/out" "/proc/$HPID/maps" 2>/dev/null; }
check "(12) the hostile requester holds $HH/out1..3 open for writing" \
    wait_for '[ "$(held_out)" -ge 3 ]' 60
check "(12) ... and maps them shared" wait_for '[ "$(mapped_out)" -ge 3 ]' 60
gate n12 <<EOF
{"reason":"confine (12)","stop_on_failure":false,"files":{
 $(sfile swap.sh "$(hsub "$SR_DIR/swap.sh")"),
 $(sfile interp.sh "$(hsub "$SR_DIR/interp.sh")"),
 $(sfile net.py "$(hsub "$SR_DIR/net.py")")},
 "commands":[$(scmdt swap swap.sh "read, copy, chmod, list and touch through the agent's entries" "$HTO"),
  $(scmd interp interp.sh "scripts with relative interpreters, from the agent's directories"),
  $(scmdt net net.py "the agent's ports and sockets" "$HTO"),
  $(cmd take "take over the agent's output" /usr/bin/chown -R root:root "$HH")]}
EOF
G12=$G
AL_SAVED=${ANSWER_LIMIT:-300}
ANSWER_LIMIT=$((AL_SAVED + 3 * HSECS))
approve n12 "$G12"
ANSWER_LIMIT=$AL_SAVED
approved n12
confined "[P8] (12) the probes ran confined" swap
tail_lacks "[P8] (12) swap: no canary read through the agent's swapped entries" swap "$HC"
tail_lacks "[P8] (12) ... nor root's file read through them" swap "root-only-$TAG"
names "[P8] (12) ... the ledger names the agent's entries" swap ".wt-h-"
is "[P8] (12) root's directory behind the agent's links is unchanged (root, 0700)" \
    "$(stat -c '%U %a' "$HV" 2>&1)" "root 700"
is "[P8] (12) ... its file too (root, 0600)" "$(stat -c '%U %a' "$HV/x" 2>&1)" "root 600"
absent "[P8] (12) ... and nothing was made in it" "$HV/new"
no_content "[P8] (12) ... nor read into root's files" /etc/wt-confine-h-swap "root-only-$TAG"
tail_lacks "[P8] (12) interp: no planted interpreter ran (no canary in the output)" interp "$HC"
absent "[P8] (12) ... no $CAN-h" "$CAN-h"
refused_call "[P8] (12) ... the ledger refuses the exec of the planted interpreter (its bin or bin/interp)" \
    interp exec "$OPT/d/bin"
tail_has "[P8] (12 control) a root script with an absolute #! runs" interp "abs-ok-$TAG"
tail_has "[P8] (12 control) ... and one with a relative #! in root's directory" interp "rel-ok-$TAG"
tail_lacks "[P8] (12) net: nothing the agent served reached root" net "$HC"
refused_call "[P8] (12) ... the ledger refuses a connect to the agent's port $HPT" net connect "port $HPT"
jscan "entry(j, 'net').get('output_tail')" "$L" 2>/dev/null | sed 's/^/(12) net: /' |
    while read -r l; do diag "$l"; done
is "[P8] (12) chown -R root: of the tree left the held files the agent's" \
    "$(stat -c %U "$HH/out1" "$HH/out2" "$HH/out3" 2>&1 | sort -u)" "$REQ"
refused_call "[P8] (12) ... the ledger: chown refused, the file held open for writing" \
    take chown "held open for writing"
is "(12 control) ... and took the file nobody holds" "$(stat -c %U "$HH/tool" 2>&1)" root

# ============================================================ the hostile requester stops
section "the hostile requester stops; its canary is nowhere root wrote"
if [ -n "$HPID" ] && kill -TERM "$HPID" 2>/dev/null; then
	check "(hostile) it stops on SIGTERM" wait_for '! kill -0 "$HPID" 2>/dev/null' 60
else
	not_ok "(hostile) it still ran after the last case (pid '$HPID')"
fi
diag "(hostile) $(cat "$HS" 2>/dev/null)"
# hcount NAME: the count NAME of its last status line
hcount() { tr ' ' '\n' <"$HS" 2>/dev/null | sed -n "s/^$1=//p"; }
check "(hostile) it ran to the end: stopped=1" [ "$(hcount stopped)" = 1 ]
for c in swaps holds listens plants; do
	check "(hostile) ... and did its work: $c > 0" [ "$(hcount "$c")" -gt 0 ]
done
# every ledger, every file a ledger says root wrote, and what root owns in
# the hostile requester's directories
# shellcheck disable=SC2086
HLEAK=$("$PY" - "$HC" "$SR_DIR" $HDIRS "$HH" <<'EOF'
import glob, json, os, sys
canary = sys.argv[1].encode()
def has(p):
    try:
        with open(p, "rb") as f:
            return canary in f.read()
    except OSError:
        return False
for p in glob.glob(sys.argv[2] + "/*.ledger"):
    if has(p):
        print("ledger", p)
    try:
        j = json.load(open(p))
        l = j["ledger"] if "ledger" in j else j
        for e in l["entries"]:
            for w in (e.get("confinement") or {}).get("written", []):
                if os.path.isfile(w) and has(w):
                    print("written by", e["id"], w)
    except Exception:
        pass
for d in sys.argv[3:]:
    for top, dirs, files in os.walk(d):
        for n in files:
            p = os.path.join(top, n)
            st = os.lstat(p)
            if st.st_uid == 0 and os.path.isfile(p) and not os.path.islink(p) and has(p):
                print("root's", p)
EOF
)
is "[P8] (hostile) its canary is in no ledger, no file root wrote, nothing root owns in its directories" \
    "$HLEAK" ""
is "[P8] (hostile) ... nor in /etc/wt-confine-*, /root/wt-confine-*, /etc/profile.d" \
    "$(grep -rlF -- "$HC" /etc/wt-confine-* /root/wt-confine-* /etc/profile.d 2>/dev/null)" ""

section "the end"
for c in 1a 1b 1c 3 4 6 7 9; do
	absent "[P8] no canary $CAN-$c anywhere at the end" "$CAN-$c"
done
check "[P8] no link in /etc/profile.d points into /tmp" \
    sh -c '! find /etc/profile.d -maxdepth 1 -type l -lname "*tmp*" | grep -q .'

done_testing
[ "$fails" -eq 0 ]
