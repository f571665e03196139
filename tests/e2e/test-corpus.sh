#!/bin/sh
# SPDX-License-Identifier: ISC
# A corpus of ordinary root work, end to end, under the run-time
# supervisor (docs/execution.md, "The run-time supervisor"): everyday
# tasks an agent on a developer's Debian machine asks root for, each
# written as docs/agents.md teaches (exact argv, absolute paths, a `why`
# for every command, what root must read sent as reviewed `files`, inline
# or as a snapshot of what the agent built, install then use, a reviewed
# script run as `/usr/bin/env {"file": NAME}`). The agent is its own user
# (the requester wt-requester of lib.sh, reaching the reviewer's daemon
# through `warrant requesters add`); the reviewer wt-reviewer (sudo-lib.sh:
# group sudo, a canary password per run) approves each batch through the
# host's real sudo in a pty. Every command must end `ran`, exit 0, with an
# empty `confinement.refused` list (nothing omitted either), and what it
# was for must be there afterwards (a package installed, a file in /etc,
# a locale listed, a mount seen by findmnt, ...). A command that fails or
# had an access refused is reported with its refusals and its output's
# tail (diag lines), never skipped.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-corpus.sh
#
# Batches (several tasks per approval):
#  (1) packages: a signed local apt repository the test makes (two tiny
#      .debs from dpkg-deb, indexed with dpkg-scanpackages, or by hand when
#      dpkg-dev is missing; Release and InRelease signed with a throwaway
#      gpg key; unsigned, `trusted=yes`, without gpg), its key and its
#      sources list installed from reviewed files; `apt-get update`,
#      `apt-get install -y`, `apt-get remove --purge -y`, with a package
#      whose maintainer scripts run; `apt-get install -y` of a staged .deb
#      (a snapshot of the agent's file), `dpkg -i` of it and `dpkg
#      --purge`; a root-only log (`tail -n 5 /var/log/apt/term.log`) read.
#      apt reads only the test's sources list
#      (`-o Dir::Etc::sourcelist=LIST -o Dir::Etc::sourceparts=-`) and
#      keeps the machine's other lists (`-o APT::Get::List-Cleanup=0`):
#      nothing reaches the network.
#  (2) the system: /etc/wt-corpus.conf installed root's 0644, a cron.d
#      file, a logrotate.d file (`logrotate -d` when logrotate is
#      installed), a sysctl.d file of vm.swappiness at its current value
#      and `sysctl -p FILE`, a swap file (fallocate, chmod 600, mkswap,
#      swapon, swapoff), a tmpfs mounted, written and unmounted,
#      update-alternatives --install/--set/--display/--remove of a test
#      alternative, a locale compiled with localedef and removed, a test
#      CA (made with openssl) installed, `update-ca-certificates`, then
#      the CA removed and `update-ca-certificates --fresh` (a plain run
#      leaves the link of a removed local CA; its java hook runs too, and
#      is told of no removal: the cleanup deletes the CA from java's
#      cacerts), `journalctl -n 5`, /etc/shadow's lines counted by a
#      reviewed script. Two approvals: (2) the files, sysctl, swap and
#      tmpfs; (2b) the rest.
#  (3) users and the agent's work: groupadd, useradd -m, usermod -aG,
#      userdel -r, groupdel; chown -R of the agent's project (with root's
#      build output in it) back to the agent; a root-owned tarball
#      unpacked into /opt, and an agent-owned one with --no-same-owner;
#      `python3 -m pip install --no-index --no-deps --target` of a wheel
#      the agent made; `npm install -g --prefix` of an `npm pack` tarball,
#      then its program run; python's tempfile (mkstemp,
#      NamedTemporaryFile, TemporaryDirectory, TemporaryFile) and mktemp,
#      mktemp -d from reviewed scripts; `systemctl daemon-reload`.
#
# Skipped, each with its reason in the TAP line, where the machine cannot
# do it as root outside warrant (the test tries first): swapon (a
# container without swap), mount (no CAP_SYS_ADMIN), sysctl (a read-only
# /proc/sys), nft or iptables rules (neither installed here),
# `systemctl daemon-reload` (systemd is not PID 1 in a container),
# logrotate, journalctl, update-ca-certificates, pip and npm when not
# installed. A service started by a ROOT command without systemd
# (`service X start`, a `&` in a script) stays under the supervisor's
# filter after the batch: the corpus starts none.
#
# Needs root. Creates (and removes, at exit too): the users of lib.sh and
# sudo-lib.sh, the group warrant-wt-reviewer and /run/warrant/wt-reviewer
# (requesters add), the user wt-corpus-u and the group wt-corpus-g, the
# packages wt-corpus-pkg and wt-corpus-local, /opt/wt-corpus*,
# /etc/apt/sources.list.d/wt-corpus.list, /etc/apt/keyrings/wt-corpus.asc,
# apt's lists of the test's repository (/var/lib/apt/lists/*wt-corpus*),
# /etc/wt-corpus.conf, /etc/cron.d/wt-corpus, /etc/logrotate.d/wt-corpus,
# /etc/sysctl.d/99-wt-corpus.conf, /mnt/wt-corpus (unmounted first), the
# swap file /opt/wt-corpus/swapfile (swapped off first), the alternative
# wt-corpus-alt (/usr/local/bin/wt-corpus-alt), the locale wt_CORPUS.UTF-8,
# the CA /usr/local/share/ca-certificates/wt-corpus.crt (its link in
# /etc/ssl/certs, its alias in java's cacerts), the agent's project
# $REQ_HOME/wt-corpus-proj and its artifacts in /tmp/wt-corpus-dist-TAG
# (snapshots: the reviewer's daemon reads them where the agent's 0700
# home would stop it).
#
# Waits are on processes and files; each approval has a generous bound
# (ANSWER_LIMIT, 300 s), and when answer does not end within it the
# runner's processes at that moment are shown, naming the command that
# hangs.
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"
. "$WARRANT_TOP/tests/e2e/confine-lib.sh"

need_root "the corpus creates users, packages and system files as root"
sr_need || bail "the programs the real-sudo tests drive are installed"
for p in dpkg-deb dpkg apt-get tar gzip openssl fallocate mkswap findmnt localedef \
    update-alternatives useradd groupadd usermod; do
	command -v "$p" >/dev/null 2>&1 || bail "$p is installed (scripts/deps.sh)"
done

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-corpus-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
REV=$SR_USER
SOCK=/run/warrant/$REV/req.sock
OPT=/opt/wt-corpus
REPO=/opt/wt-corpus-repo
PKG=wt-corpus-pkg
LPKG=wt-corpus-local
LIST=/etc/apt/sources.list.d/wt-corpus.list
KEY=/etc/apt/keyrings/wt-corpus.asc
CONF=/etc/wt-corpus.conf
CRON=/etc/cron.d/wt-corpus
LROT=/etc/logrotate.d/wt-corpus
SYSCTL=/etc/sysctl.d/99-wt-corpus.conf
MNT=/mnt/wt-corpus
SWAP=$OPT/swapfile
ALT=wt-corpus-alt
ALTLINK=/usr/local/bin/wt-corpus-alt
LOC=wt_CORPUS.UTF-8
CA=/usr/local/share/ca-certificates/wt-corpus.crt
CAPEM=/etc/ssl/certs/wt-corpus.pem
NEWUSER=wt-corpus-u
NEWGROUP=wt-corpus-g
PY_T=/opt/wt-corpus-py
NPM_P=/opt/wt-corpus-npm
NPM_C=/opt/wt-corpus-npm-cache
GNUPGHOME=$SR_DIR/gnupg
export GNUPGHOME
BG="" # sr_kill_bg's list

HAVE() { command -v "$1" >/dev/null 2>&1; }
# the test's own traces, in the order that leaves nothing behind
scrub() {
	findmnt -rn "$MNT" >/dev/null 2>&1 && umount "$MNT" 2>/dev/null
	rmdir "$MNT" 2>/dev/null
	grep -q "^$SWAP " /proc/swaps 2>/dev/null && swapoff "$SWAP" 2>/dev/null
	for p in "$PKG" "$LPKG"; do
		dpkg -s "$p" >/dev/null 2>&1 && dpkg --purge "$p" >/dev/null 2>&1
	done
	rm -f "$LIST" "$KEY" /var/lib/apt/lists/*wt-corpus-repo* \
	    /var/lib/apt/lists/partial/*wt-corpus-repo*
	id "$NEWUSER" >/dev/null 2>&1 && userdel -r "$NEWUSER" >/dev/null 2>&1
	getent group "$NEWGROUP" >/dev/null 2>&1 && groupdel "$NEWGROUP" >/dev/null 2>&1
	update-alternatives --remove-all "$ALT" >/dev/null 2>&1
	rm -f "$ALTLINK"
	rm -rf "/usr/lib/locale/$LOC" /usr/lib/locale/wt_CORPUS.utf8
	if [ -e "$CA" ] || [ -e "$CAPEM" ]; then
		rm -f "$CA"
		command -v update-ca-certificates >/dev/null 2>&1 &&
		    update-ca-certificates >/dev/null 2>&1
		rm -f "$CAPEM"
	fi
	# the java hook of update-ca-certificates is not told of a removal
	if HAVE keytool && [ -f /etc/ssl/certs/java/cacerts ] &&
	    keytool -list -cacerts -storepass changeit -alias debian:wt-corpus.pem >/dev/null 2>&1; then
		keytool -delete -cacerts -storepass changeit -alias debian:wt-corpus.pem >/dev/null 2>&1
	fi
	rm -f "$CONF" "$CRON" "$LROT" "$SYSCTL"
	rm -rf "$OPT" "$REPO" "$PY_T" "$NPM_P" "$NPM_C" /opt/wt-corpus-app /opt/wt-corpus-app2
	[ -n "${REQ_HOME:-}" ] && rm -rf "$REQ_HOME/wt-corpus-proj"
	rm -rf "${DIST:-/nonexistent}"
}
cleanup() {
	sr_kill_bg
	stop_daemon
	scrub
	command -v gpgconf >/dev/null 2>&1 && [ -d "$GNUPGHOME" ] && gpgconf --kill all >/dev/null 2>&1
	[ -n "${REQ:-}" ] && "$SR_WARRANT" requesters remove --reviewer "$REV" "$REQ" >/dev/null 2>&1
	requesters_teardown "$REV"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# ------------------------------------------------------------ helpers
# (the rest are confine-lib.sh's)
# works DESC ID: command ID ran, exited 0, under the supervisor (a
# confinement record, not unconfined) and had no access refused (nor
# any left out of the record). When not, what the lead needs: its status,
# exit, every refused access (call, path, reason) and its output's tail.
works() {
	if jscan "(lambda e, c: e['status'] == 'ran' and e['exit_code'] == 0 and isinstance(c, dict) and c.get('unconfined') is False and not c.get('refused') and not (c.get('omitted') or {}).get('refused'))(entry(j, '$2'), entry(j, '$2').get('confinement'))" "$L" >/dev/null 2>&1; then
		ok "$1"
		return 0
	fi
	not_ok "$1"
	"$PY" - "$L" "$2" <<'EOF' | while IFS= read -r l; do diag "$l"; done
import json, sys
try:
    t = open(sys.argv[1]).read()
    i = t.find("{")
    j = None
    while i >= 0 and j is None:
        try:
            j, _ = json.JSONDecoder().raw_decode(t, i)
        except ValueError:
            i = t.find("{", i + 1)
    l = j["ledger"] if "ledger" in j else j
    e = [x for x in l["entries"] if x.get("id") == sys.argv[2]][0]
    c = e.get("confinement") or {}
    print("%s: status %s, exit %s, error %r" % (e["id"], e.get("status"), e.get("exit_code"), e.get("error")))
    for r in c.get("refused", []):
        print("  refused: %s %s: %s" % (r.get("call"), r.get("path"), r.get("reason")))
    print("  omitted: %r, unconfined: %r" % (c.get("omitted"), c.get("unconfined")))
    for x in (e.get("output_tail") or "")[-700:].splitlines():
        print("  | " + x)
except Exception as x:
    print("no entry %s in the ledger: %r" % (sys.argv[2], x))
EOF
	return 1
}
# works_all NAME ID...: works for each command of batch NAME.
works_all() {
	wa_n=$1
	shift
	for wa_c in "$@"; do works "($wa_n) $wa_c: ran, exit 0, nothing refused" "$wa_c"; done
}

# ============================================================ set-up
section "set-up"
sr_user_setup || bail "the reviewer users are set up"
sr_install || bail "warrant is installed in its private prefix"
setup_requester || bail "the requester $REQ is created"
W=$SR_WARRANT
"$W" requesters add --reviewer "$REV" "$REQ" >"$SR_DIR/req-add" 2>&1 ||
    bail "warrant requesters add --reviewer $REV $REQ"
sr_serve "$REV"
check "infra: the reviewer's daemon answers on $SOCK" wait_for '[ -S "$SOCK" ]' 30
scrub
install -d -m 0755 -o root -g root "$OPT"
B=$SR_DIR/build
install -d -m 0755 "$B"
# what the agent built and sends as snapshots: the reviewer's daemon
# copies them at request time, so they are where it can read them (the
# agent's home may be 0700)
DIST=/tmp/wt-corpus-dist-$TAG
install -d -m 0755 -o "$REQ" "$DIST"

# What the machine lets root do at all, tried as root outside warrant
# first: a task the host itself cannot do is skipped, with the reason.
CAN_SWAP=
CAN_MOUNT=
CAN_SYSCTL=
if fallocate -l 1M "$OPT/probe.swap" 2>/dev/null && chmod 600 "$OPT/probe.swap" &&
    mkswap "$OPT/probe.swap" >/dev/null 2>&1 && swapon "$OPT/probe.swap" 2>/dev/null; then
	swapoff "$OPT/probe.swap" && CAN_SWAP=1
fi
rm -f "$OPT/probe.swap"
install -d -m 0755 "$OPT/probe.mnt"
if mount -t tmpfs -o size=1m wt-corpus-probe "$OPT/probe.mnt" 2>/dev/null; then
	umount "$OPT/probe.mnt" && CAN_MOUNT=1
fi
rmdir "$OPT/probe.mnt"
SWAPPINESS=$(cat /proc/sys/vm/swappiness 2>/dev/null)
[ -n "$SWAPPINESS" ] && sysctl -q -w "vm.swappiness=$SWAPPINESS" >/dev/null 2>&1 && CAN_SYSCTL=1
SYSD=
[ "$(cat /proc/1/comm 2>/dev/null)" = systemd ] && SYSD=1
diag "the host: swapon ${CAN_SWAP:-no}, mount ${CAN_MOUNT:-no}, sysctl -w ${CAN_SYSCTL:-no}, systemd ${SYSD:-no}"

# ---- the packages: a repository (root's, as an admin's mirror is) and
# the agent's own .deb
mkdeb() { # NAME DIR-OF-RESULT: a tiny package with a postinst and a postrm
	rm -rf "${B:?}/$1"
	install -d "$B/$1/DEBIAN" "$B/$1/usr/share/wt-corpus"
	printf 'Package: %s\nVersion: 1.0\nArchitecture: all\nMaintainer: warrant tests <t@example.invalid>\nSection: misc\nPriority: optional\nDescription: warrant corpus e2e package\n' \
	    "$1" >"$B/$1/DEBIAN/control"
	printf '#!/bin/sh\nset -e\necho "%s postinst $1"\n' "$1" >"$B/$1/DEBIAN/postinst"
	printf '#!/bin/sh\nset -e\necho "%s postrm $1"\n' "$1" >"$B/$1/DEBIAN/postrm"
	chmod 0755 "$B/$1/DEBIAN/postinst" "$B/$1/DEBIAN/postrm"
	printf '%s %s\n' "$1" "$TAG" >"$B/$1/usr/share/wt-corpus/$1.txt"
	dpkg-deb --root-owner-group -b "$B/$1" "$2/${1}_1.0_all.deb" >/dev/null
}
install -d -m 0755 "$REPO"
mkdeb "$PKG" "$REPO"
mkdeb "$LPKG" "$DIST"
chown "$REQ_UID" "$DIST/${LPKG}_1.0_all.deb"
if HAVE dpkg-scanpackages; then
	(cd "$REPO" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null)
else
	# dpkg-dev is not installed: the index dpkg-scanpackages writes, by hand
	(cd "$REPO" && f=${PKG}_1.0_all.deb &&
	    { dpkg-deb -f "$f"; printf 'Filename: ./%s\nSize: %s\nSHA256: %s\n\n' "$f" \
	        "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)"; } >Packages)
fi
gzip -9nk "$REPO/Packages"
{
	printf 'Origin: wt-corpus\nLabel: wt-corpus\nSuite: wt-corpus\nCodename: wt-corpus\nDate: %s\nArchitectures: all amd64 arm64\nSHA256:\n' \
	    "$(LC_ALL=C date -Ru)"
	for f in Packages Packages.gz; do
		printf ' %s %s %s\n' "$(sha256sum "$REPO/$f" | cut -d' ' -f1)" "$(stat -c %s "$REPO/$f")" "$f"
	done
} >"$REPO/Release"
SIGNED=
if HAVE gpg; then
	install -d -m 0700 "$GNUPGHOME"
	if gpg --batch --quiet --passphrase '' --quick-gen-key "wt corpus $TAG <wt-corpus@example.invalid>" \
	    ed25519 sign never >/dev/null 2>&1 &&
	    gpg --batch --quiet --armor --export "wt-corpus@example.invalid" >"$B/key.asc" &&
	    gpg --batch --quiet --yes --clearsign -o "$REPO/InRelease" "$REPO/Release" &&
	    gpg --batch --quiet --yes --armor --detach-sign -o "$REPO/Release.gpg" "$REPO/Release"; then
		SIGNED=1
	fi
fi
chmod -R go-w "$REPO"
if [ -n "$SIGNED" ]; then
	SRC_LINE="deb [signed-by=$KEY] file:$REPO ./"
else
	SRC_LINE="deb [trusted=yes] file:$REPO ./"
fi
check "(1) the test made a local repository of $PKG (Packages $(HAVE dpkg-scanpackages && echo from dpkg-scanpackages || echo by hand), ${SIGNED:+signed }Release)" \
    sh -c 'grep -q "^Package: $2" "$1/Packages" && [ -s "$1/Release" ]' sh "$REPO" "$PKG"
diag "(1) sources list: $SRC_LINE"

# ============================================================ (1) packages
section "(1) packages: apt-get update/install/remove from a local repository, a staged .deb, dpkg"
APTO="-o Dir::Etc::sourcelist=$LIST -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0"
# shellcheck disable=SC2086
gate n1 <<EOF
{"reason":"corpus (1): install the team's tool from our local repository, and my build of the helper","stop_on_failure":false,"output_to_agent":"full","files":{
 $(cfile wt-corpus.list "$SRC_LINE
")${SIGNED:+,
 $(cfile key.asc "$(cat "$B/key.asc")
")},
 $(snap "${LPKG}_1.0_all.deb" "$DIST/${LPKG}_1.0_all.deb")},
 "commands":[${SIGNED:+
  $(cmd key "the repository's signing key" /usr/bin/install -o root -g root -m 0644 '{"file":"key.asc"}' "$KEY"),}
  $(cmd list "the repository's sources list" /usr/bin/install -o root -g root -m 0644 '{"file":"wt-corpus.list"}' "$LIST"),
  $(cmd update "read the repository's index (only this sources list)" /usr/bin/apt-get $APTO update),
  $(cmd install "install the tool" /usr/bin/apt-get $APTO install -y "$PKG"),
  $(cmd query "is it installed" /usr/bin/dpkg-query -W -f '${Package} ${Status}\n' "$PKG"),
  $(cmd remove "remove it again, configuration too" /usr/bin/apt-get $APTO remove --purge -y "$PKG"),
  $(cmd aptdeb "install my build of the helper" /usr/bin/apt-get install -y '{"file":"'"${LPKG}"'_1.0_all.deb"}'),
  $(cmd aptdebrm "and remove it" /usr/bin/apt-get remove --purge -y "$LPKG"),
  $(cmd dpkgi "install it with dpkg" /usr/bin/dpkg -i '{"file":"'"${LPKG}"'_1.0_all.deb"}'),
  $(cmd cat "what it installed" /usr/bin/cat "/usr/share/wt-corpus/$LPKG.txt"),
  $(cmd purge "purge it" /usr/bin/dpkg --purge "$LPKG"),
  $(cmd log "the package manager's log (root only)" /usr/bin/tail -n 5 /var/log/apt/term.log),
  $(cmd rmlist "the repository is not needed any more" /usr/bin/rm -f "$LIST" "$KEY")]}
EOF
approve n1 "$G"
approved n1
diag "(the ledgers are read from: $LSRC)"
works_all 1 ${SIGNED:+key} list update install query remove aptdeb aptdebrm dpkgi cat purge log rmlist
tail_has "(1) apt-get update read the local repository" update "file:$REPO"
tail_has "(1) apt-get install ran the package's postinst" install "$PKG postinst configure"
tail_has "(1) dpkg-query: $PKG was installed" query "$PKG install ok installed"
tail_has "(1) apt-get remove --purge ran its postrm purge" remove "$PKG postrm purge"
tail_has "(1) apt-get install of the staged .deb ran its postinst" aptdeb "$LPKG postinst configure"
tail_has "(1) dpkg -i of the staged .deb ran its postinst" dpkgi "$LPKG postinst configure"
tail_has "(1) the package's file was there" cat "$LPKG $TAG"
tail_has "(1) the root-only term.log was read (apt's last removal is in it)" log "$LPKG"
for p in "$PKG" "$LPKG"; do
	check "(1) $p is not installed at the end" sh -c '! dpkg -s "$1" >/dev/null 2>&1' sh "$p"
done
absent "(1) the sources list is gone" "$LIST"
absent "(1) ... and the key" "$KEY"

# ============================================================ (2) the system
section "(2) the system: /etc files, cron, logrotate, sysctl, swap, tmpfs, alternatives, a locale, a CA, logs"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$B/ca.key" -out "$B/ca.crt" -days 2 \
    -subj "/CN=wt-corpus test CA $TAG" >/dev/null 2>&1
check "(2) the test made a CA certificate with openssl" [ -s "$B/ca.crt" ]
HAVE_CA=$(HAVE update-ca-certificates && [ -d /usr/local/share/ca-certificates ] && echo 1)
HAVE_LR=$(HAVE logrotate && echo 1)
HAVE_JC=$(HAVE journalctl && echo 1)
SHADOW_SH='#!/bin/sh
set -e
cat /etc/shadow | wc -l
'
gate n2 <<EOF
{"reason":"corpus (2): configure the machine","stop_on_failure":false,"output_to_agent":"full","files":{
 $(cfile conf "# wt-corpus $TAG
level = 3
"),
 $(cfile cron "# wt-corpus $TAG
17 3 * * * root /usr/bin/true
"),
 $(cfile logrotate "/var/log/wt-corpus.log {
	weekly
	rotate 2
	missingok
	notifempty
}
"),
 $(cfile sysctl "# wt-corpus $TAG: unchanged, the value the host has
vm.swappiness = $SWAPPINESS
")},
 "commands":[
  $(cmd conf "the tool's configuration" /usr/bin/install -o root -g root -m 0644 '{"file":"conf"}' "$CONF"),
  $(cmd cron "a nightly job" /usr/bin/install -o root -g root -m 0644 '{"file":"cron"}' "$CRON"),
  $(cmd logrotate "rotate the tool's log" /usr/bin/install -o root -g root -m 0644 '{"file":"logrotate"}' "$LROT")${HAVE_LR:+,
  $(cmd lrcheck "check the rotation (debug: changes nothing)" /usr/sbin/logrotate -d "$LROT")}${CAN_SYSCTL:+,
  $(cmd sysctl "a kernel setting" /usr/bin/install -o root -g root -m 0644 '{"file":"sysctl"}' "$SYSCTL"),
  $(cmd sysctlp "load it" /usr/sbin/sysctl -p "$SYSCTL")},
  $(cmd swapf "a swap file" /usr/bin/fallocate -l 16M "$SWAP"),
  $(cmd swapm "only root reads it" /usr/bin/chmod 600 "$SWAP"),
  $(cmd mkswap "format it" /usr/sbin/mkswap "$SWAP")${CAN_SWAP:+,
  $(cmd swapon "use it" /usr/sbin/swapon "$SWAP"),
  $(cmd swaps "is it used" /usr/bin/cat /proc/swaps),
  $(cmd swapoff "stop using it" /usr/sbin/swapoff "$SWAP")},
  $(cmd swaprm "remove it" /usr/bin/rm -f "$SWAP")${CAN_MOUNT:+,
  $(cmd mkmnt "a mount point" /usr/bin/install -d -m 0755 "$MNT"),
  $(cmd mount "a scratch tmpfs" /usr/bin/mount -t tmpfs -o size=4m,mode=0755 wt-corpus "$MNT"),
  $(cmd findmnt "is it mounted" /usr/bin/findmnt -n -o FSTYPE,SOURCE "$MNT"),
  $(cmd mntw "a file on it" /usr/bin/install -m 0644 '{"file":"conf"}' "$MNT/conf"),
  $(cmd umount "unmount it" /usr/bin/umount "$MNT"),
  $(cmd rmmnt "remove the mount point" /usr/bin/rmdir "$MNT")}]}
EOF
approve n2 "$G"
approved n2
works_all 2 conf cron logrotate ${HAVE_LR:+lrcheck} ${CAN_SYSCTL:+sysctl sysctlp} swapf swapm mkswap \
    ${CAN_SWAP:+swapon swaps swapoff} swaprm ${CAN_MOUNT:+mkmnt mount findmnt mntw umount rmmnt}
L2=$L
gate n2b <<EOF
{"reason":"corpus (2b): alternatives, a locale, our test CA, the logs","stop_on_failure":false,"output_to_agent":"full","files":{
 $(cfile ca.crt "$(cat "$B/ca.crt")
"),
 $(sfile shadow.sh "$SHADOW_SH")},
 "commands":[
  $(cmd altt "an alternative: true" /usr/bin/update-alternatives --install "$ALTLINK" "$ALT" /usr/bin/true 10),
  $(cmd altf "an alternative: false" /usr/bin/update-alternatives --install "$ALTLINK" "$ALT" /usr/bin/false 20),
  $(cmd altset "choose true" /usr/bin/update-alternatives --set "$ALT" /usr/bin/true),
  $(cmd altshow "show the choice" /usr/bin/update-alternatives --display "$ALT"),
  $(cmd altrmf "remove false" /usr/bin/update-alternatives --remove "$ALT" /usr/bin/false),
  $(cmd altrmt "remove true" /usr/bin/update-alternatives --remove "$ALT" /usr/bin/true),
  $(cmd localedef "compile a locale" /usr/bin/localedef --no-archive -i en_US -f UTF-8 "$LOC"),
  $(cmd locales "list it" /usr/bin/locale -a),
  $(cmd locrm "remove it" /usr/bin/rm -rf /usr/lib/locale/wt_CORPUS.utf8)${HAVE_CA:+,
  $(cmd cainst "trust our test CA" /usr/bin/install -o root -g root -m 0644 '{"file":"ca.crt"}' "$CA"),
  $(cmd caupd "update the trust store" /usr/sbin/update-ca-certificates),
  $(cmd calink "is it trusted" /usr/bin/ls -l "$CAPEM"),
  $(cmd carm "stop trusting it" /usr/bin/rm -f "$CA"),
  $(cmd caupd2 "rebuild the trust store without it" /usr/sbin/update-ca-certificates --fresh)}${HAVE_JC:+,
  $(cmd journal "the system log's last lines" /usr/bin/journalctl -n 5 --no-pager)},
  $(scmd shadow shadow.sh "count the accounts with a password entry")]}
EOF
approve n2b "$G"
approved n2b
works_all 2b altt altf altset altshow altrmf altrmt localedef locales locrm \
    ${HAVE_CA:+cainst caupd calink carm caupd2} ${HAVE_JC:+journal} shadow
L2B=$L L=$L2
check "(2) $CONF: the reviewed content, root's 0644" \
    sh -c 'grep -qx "# wt-corpus $2" "$1" && [ "$(stat -c "%U %G %a" "$1")" = "root root 644" ]' sh "$CONF" "$TAG"
check "(2) $CRON: root's 0644" sh -c '[ "$(stat -c "%U %a" "$1")" = "root 644" ]' sh "$CRON"
check "(2) $LROT: root's 0644" sh -c '[ "$(stat -c "%U %a" "$1")" = "root 644" ]' sh "$LROT"
[ -n "$HAVE_LR" ] || skip "(2) logrotate -d of the new file" "logrotate is not installed here"
if [ -n "$CAN_SYSCTL" ]; then
	tail_has "(2) sysctl -p loaded the file" sysctlp "vm.swappiness = $SWAPPINESS"
else
	skip "(2) a sysctl.d file and sysctl -p" "root cannot write /proc/sys/vm/swappiness here (a read-only /proc/sys)"
fi
tail_has "(2) mkswap formatted the swap file" mkswap "Setting up swapspace"
if [ -n "$CAN_SWAP" ]; then
	tail_has "(2) swapon: /proc/swaps listed it" swaps "$SWAP"
else
	skip "(2) swapon and swapoff of the swap file" "swapon fails here for root outside warrant (a container)"
fi
absent "(2) the swap file is gone" "$SWAP"
check "(2) ... and not in use" sh -c '! grep -q "^$1 " /proc/swaps' sh "$SWAP"
if [ -n "$CAN_MOUNT" ]; then
	tail_has "(2) findmnt saw the tmpfs mounted" findmnt "tmpfs"
	absent "(2) the mount point is unmounted and gone" "$MNT"
else
	skip "(2) a tmpfs mount and umount" "mount fails here for root outside warrant (no CAP_SYS_ADMIN)"
fi
L=$L2B
tail_has "(2) update-alternatives --display showed the choice of /usr/bin/true" altshow "link currently points to /usr/bin/true"
absent "(2) the alternative's link is gone" "$ALTLINK"
absent "(2) ... and its record" "/var/lib/dpkg/alternatives/$ALT"
tail_has "(2) locale -a listed the new locale" locales "wt_CORPUS.utf8"
absent "(2) the locale is gone" /usr/lib/locale/wt_CORPUS.utf8
if [ -n "$HAVE_CA" ]; then
	jcheck "(2) update-ca-certificates added the CA" \
	    "bool(__import__('re').search(r'\\b[1-9][0-9]* added', entry(j, 'caupd').get('output_tail') or ''))" "$L"
	tail_has "(2) ... its link was in /etc/ssl/certs" calink "$CAPEM"
	tail_has "(2) ... and --fresh rebuilt the store without it" caupd2 "Clearing symlinks"
	absent "(2) no link of the test CA is left" "$CAPEM"
else
	skip "(2) update-ca-certificates with a test CA" "ca-certificates is not installed here"
fi
[ -n "$HAVE_JC" ] || skip "(2) journalctl -n 5" "journalctl is not installed here"
is "(2) the reviewed script counted /etc/shadow's lines" \
    "$(jscan "(entry(j, 'shadow').get('output_tail') or '').strip()" "$L" 2>/dev/null)" "$(wc -l </etc/shadow)"
if HAVE nft || HAVE iptables; then
	skip "(2) a firewall rule added and deleted in a test table" "not in the corpus yet"
else
	skip "(2) a firewall rule added and deleted in a test table" "neither nft nor iptables is installed here"
fi

# ============================================================ (3) users and the agent's work
section "(3) users, the agent's project, a tarball into /opt, pip and npm installs, temporary files"
# the agent's project, with what an earlier build as root left in it
PP=$REQ_HOME/wt-corpus-proj
as_r mkdir -p "$PP/src"
as_r touch "$PP/src/main.c"
install -d -m 0755 "$PP/build/obj"
: >"$PP/build/obj/main.o"
# a release tarball with root's members, and one as the agent made it
install -d "$B/app/wt-corpus-app/bin" "$B/app2/wt-corpus-app2"
printf '#!/bin/sh\necho app %s\n' "$TAG" >"$B/app/wt-corpus-app/bin/app"
chmod 0755 "$B/app/wt-corpus-app/bin/app"
printf 'app2 %s\n' "$TAG" >"$B/app2/wt-corpus-app2/data"
tar -czf "$DIST/app.tgz" --owner=0 --group=0 -C "$B/app" wt-corpus-app
tar -czf "$DIST/app2.tgz" --owner="$REQ_UID" --group="$(id -g "$REQ")" -C "$B/app2" wt-corpus-app2
# a wheel (zipped by hand: no build tools needed)
WHL=wt_corpus_py-1.0-py3-none-any.whl
"$PY" - "$DIST/$WHL" "$TAG" <<'EOF'
import base64, hashlib, sys, zipfile
files = {"wt_corpus_py/__init__.py": ("VALUE = %r\n" % sys.argv[2]).encode(),
         "wt_corpus_py-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: wt-corpus-py\nVersion: 1.0\n",
         "wt_corpus_py-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: warrant-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = ""
for n, b in files.items():
    rec += "%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode(), len(b))
rec += "wt_corpus_py-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for n, b in files.items():
        z.writestr(n, b)
    z.writestr("wt_corpus_py-1.0.dist-info/RECORD", rec)
EOF
HAVE_PIP=$(/usr/bin/python3 -m pip --version >/dev/null 2>&1 && echo 1)
# an npm package, packed as the agent would (npm pack)
HAVE_NPM=
NPMTGZ=wt-corpus-npm-1.0.0.tgz
if HAVE npm && HAVE node; then
	install -d "$B/npm"
	printf '{"name":"wt-corpus-npm","version":"1.0.0","bin":{"wt-corpus-npm":"bin.js"}}\n' >"$B/npm/package.json"
	printf '#!/usr/bin/env node\nconsole.log("npm %s");\n' "$TAG" >"$B/npm/bin.js"
	chmod 0755 "$B/npm/bin.js"
	(cd "$B/npm" && npm pack --silent --cache "$B/npm-cache" >/dev/null 2>&1) &&
	    cp "$B/npm/$NPMTGZ" "$DIST/$NPMTGZ" && HAVE_NPM=1
fi
chown "$REQ_UID" "$DIST"/*.tgz "$DIST/$WHL"
TMP_PY='#!/usr/bin/python3
import os, tempfile
fd, p = tempfile.mkstemp(prefix="wt-corpus.")
os.write(fd, b"x")
os.close(fd)
os.unlink(p)
with tempfile.NamedTemporaryFile() as f:
    f.write(b"y")
    f.flush()
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "z"), "w") as f:
        f.write("z")
with tempfile.TemporaryFile() as f:
    f.write(b"t")
print("tmpdir=" + tempfile.gettempdir())
print("mkstemp=" + os.path.dirname(p))
'
TMP_SH='#!/bin/sh
set -e
f=$(mktemp)
d=$(mktemp -d)
echo data >"$f"
touch "$d/x"
rm -rf "$f" "$d"
echo "mktemp=$(dirname "$f") mktemp-d=$(dirname "$d")"
'
gate n3 <<EOF
{"reason":"corpus (3): a user for the service, my project back, the release into /opt, python and node tools","stop_on_failure":false,"output_to_agent":"full","files":{
 $(snap app.tgz "$DIST/app.tgz"),
 $(snap app2.tgz "$DIST/app2.tgz")${HAVE_PIP:+,
 $(snap "$WHL" "$DIST/$WHL")}${HAVE_NPM:+,
 $(snap "$NPMTGZ" "$DIST/$NPMTGZ")},
 $(sfile tmp.py "$TMP_PY"),
 $(sfile tmp.sh "$TMP_SH")},
 "commands":[
  $(cmd groupadd "the service's group" /usr/sbin/groupadd "$NEWGROUP"),
  $(cmd useradd "the service's user" /usr/sbin/useradd -m -s /usr/sbin/nologin "$NEWUSER"),
  $(cmd usermod "in its group" /usr/sbin/usermod -aG "$NEWGROUP" "$NEWUSER"),
  $(cmd id "check" /usr/bin/id "$NEWUSER"),
  $(cmd userdel "remove the user again" /usr/sbin/userdel -r "$NEWUSER"),
  $(cmd groupdel "and the group" /usr/sbin/groupdel "$NEWGROUP"),
  $(cmd chown "give me my project back (root's build output in it)" /usr/bin/chown -R "$REQ:" "$PP"),
  $(cmd tar "the release into /opt" /usr/bin/tar -xzf '{"file":"app.tgz"}' -C /opt),
  $(cmd app "run it" /opt/wt-corpus-app/bin/app),
  $(cmd tar2 "my archive into /opt, owned by root" /usr/bin/tar --no-same-owner -xzf '{"file":"app2.tgz"}' -C /opt)${HAVE_PIP:+,
  $(cmd pip "the python tool, into its own directory" /usr/bin/python3 -m pip install --no-index --no-deps --no-cache-dir --disable-pip-version-check --target "$PY_T" '{"file":"'"$WHL"'"}')}${HAVE_NPM:+,
  $(cmd npm "the node tool, into its own prefix" /usr/bin/npm install -g --prefix "$NPM_P" --cache "$NPM_C" --offline --no-audit --no-fund --no-update-notifier '{"file":"'"$NPMTGZ"'"}'),
  $(cmd npmrun "run it" "$NPM_P/bin/wt-corpus-npm")},
  $(scmd tmppy tmp.py "python's temporary files as root"),
  $(scmd tmpsh tmp.sh "mktemp as root")${SYSD:+,
  $(cmd reload "reload units" /usr/bin/systemctl daemon-reload)}]}
EOF
approve n3 "$G"
approved n3
works_all 3 groupadd useradd usermod id userdel groupdel chown tar app tar2 \
    ${HAVE_PIP:+pip} ${HAVE_NPM:+npm npmrun} tmppy tmpsh ${SYSD:+reload}
tail_has "(3) id: $NEWUSER was in $NEWGROUP" id "($NEWGROUP)"
check "(3) $NEWUSER and $NEWGROUP are gone" \
    sh -c '! id "$1" >/dev/null 2>&1 && ! getent group "$2" >/dev/null' sh "$NEWUSER" "$NEWGROUP"
absent "(3) ... and the user's home" "/home/$NEWUSER"
is "(3) chown -R gave the agent its whole project (root's build output too)" \
    "$(find "$PP" ! -user "$REQ" 2>&1 | wc -l)" 0
tail_has "(3) the release unpacked into /opt runs" app "app $TAG"
is "(3) ... its files are root's" "$(find /opt/wt-corpus-app ! -user root 2>&1 | wc -l)" 0
check "(3) tar --no-same-owner unpacked the agent's archive" grep -qx "app2 $TAG" /opt/wt-corpus-app2/data
is "(3) ... owned by root, not by the agent" "$(find /opt/wt-corpus-app2 ! -user root 2>&1 | wc -l)" 0
if [ -n "$HAVE_PIP" ]; then
	check "(3) pip installed the wheel into $PY_T" grep -q "$TAG" "$PY_T/wt_corpus_py/__init__.py"
	is "(3) ... root's files" "$(find "$PY_T" ! -user root 2>&1 | wc -l)" 0
else
	skip "(3) pip install of a local wheel" "/usr/bin/python3 has no pip here"
fi
if [ -n "$HAVE_NPM" ]; then
	tail_has "(3) npm install -g put the tool in $NPM_P, and it runs" npmrun "npm $TAG"
else
	skip "(3) npm install -g of an npm pack tarball" "node or npm is not installed here"
fi
tail_has "(3) python's tempfile used /tmp" tmppy "tmpdir=/tmp"
tail_has "(3) ... mkstemp made its file in /tmp" tmppy "mkstemp=/tmp"
tail_has "(3) mktemp and mktemp -d made theirs in /tmp" tmpsh "mktemp=/tmp mktemp-d=/tmp"
[ -n "$SYSD" ] || skip "(3) systemctl daemon-reload" "systemd is not PID 1 here (a container)"

section "the end"
scrub
for p in "$LIST" "$KEY" "$CONF" "$CRON" "$LROT" "$SYSCTL" "$MNT" "$ALTLINK" "$CA" "$CAPEM" \
    "$OPT" "$REPO" "$PY_T" "$NPM_P" "$NPM_C" /opt/wt-corpus-app /opt/wt-corpus-app2 \
    "/usr/lib/locale/wt_CORPUS.utf8"; do
	absent "no trace: $p" "$p"
done
is "no trace: apt's lists of the test's repository" "$(find /var/lib/apt/lists -maxdepth 2 -name "*wt-corpus*" | wc -l)" 0

done_testing
[ "$fails" -eq 0 ]
