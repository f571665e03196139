#!/bin/sh
# SPDX-License-Identifier: ISC
# Remote machines end to end with a REAL sshd on 127.0.0.1 (throwaway
# host key, a port of its own, UsePAM yes) and the real sudo on the
# "remote" side, which is this same host: warrant installed in the test
# prefix, reached as the target user wt-target through its login shell
# (~/.local/bin/warrant). Enrollment and the pinned host key and runner;
# a ROOT+YOU request on the machine approved by typing the target user's
# password in a pty; a wrong password; an executable swapped after review;
# a changed runner and host key; a stopped sshd; bad destinations; argv
# that must arrive byte for byte; a credential a ROOT command prints,
# which comes back redacted; login files that must not run; a split
# enrollment (--root-via); a hostile target (a fake `warrant exec` whose
# staging directory and ledger lie, a 1 GiB answer); a planted ~/.bashrc
# that answers `--resolve` in warrant's place (refused here, or
# remote_resolve_mismatch: nothing the reviewer did not see is shown or
# run); machine add's warnings for an ssh user who is a requester; a
# request for the machine with a snapshot, through the reviewer's daemon:
# refused.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-remote.sh
#
# Needs root: creates users, a sudoers drop-in and starts sshd, all
# removed or stopped at exit.
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the remote tests create users, a sudoers rule and run sshd"
[ -x /usr/sbin/sshd ] || skip_all "openssh-server is not installed (make deps)"
command -v ssh-keygen >/dev/null 2>&1 || skip_all "ssh-keygen is missing"

umask 022
SR_DIR=$(mktemp -d /tmp/warrant-remote-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
TGT=wt-target
OPT=/opt/wt-remote
DROPIN=/etc/sudoers.d/wt-remote-test
R2=wt-root2
DROPIN2=/etc/sudoers.d/wt-remote-test2
SSHD_PID=""
RUNNER_BAK=""
TGT_HOME=""
DREQ=wt-remote-req	# a requester of the reviewer's daemon
DPID=""

cleanup() {
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	if id "$DREQ" >/dev/null 2>&1; then
		"$SR_WARRANT" requesters remove --reviewer "$SR_USER" "$DREQ" >/dev/null 2>&1
		userdel -r "$DREQ" >/dev/null 2>&1
	fi
	requesters_teardown "$SR_USER"
	if [ -n "$RUNNER_BAK" ] && [ -f "$RUNNER_BAK" ]; then
		cat "$RUNNER_BAK" >"$SR_RUNNER" && rm -f "$RUNNER_BAK"
	fi
	rm -f "$DROPIN" "$DROPIN2" "$DROPIN.off"
	rm -rf "$OPT"
	usermod -p '!' "$TGT" 2>/dev/null
	rm -f "$TGT_HOME/.bash_profile" "$TGT_HOME/.bash_login" "$TGT_HOME/forge-mode"
	[ -n "$TGT_HOME" ] && cp /etc/skel/.profile "$TGT_HOME/.profile" 2>/dev/null
	[ -n "$TGT_HOME" ] && cp /etc/skel/.bashrc "$TGT_HOME/.bashrc" 2>/dev/null
	"$SR_WARRANT" requesters remove --reviewer "$SR_USER" "$TGT" >/dev/null 2>&1
	# what the hostile targets staged and never named back, and their victim
	[ -n "$TGT_HOME" ] && rm -rf "$TGT_HOME/.local/state/warrant/runs/remote."* \
	    "$TGT_HOME/victim"
	userdel -r "$R2" >/dev/null 2>&1
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

W() { sr_as "$SR_USER" "$SR_WARRANT" "$@"; }
mkgate() { sr_gate "$@"; }
answer() { sr_answer "$@"; }
# refused_with CODE FILE: FILE (stderr of a refused command) names CODE.
refused_with() { grep -q "($1)" "$2" || { diag "$(head -c 600 "$2")"; return 1; }; }
start_sshd() {
	/usr/sbin/sshd -f "$SR_DIR/sshd_config" -E "$SR_DIR/sshd.log" || return 1
	i=0
	while [ ! -s "$SR_DIR/sshd.pid" ]; do
		i=$((i + 1)); [ $i -le 50 ] || return 1; sleep 0.1
	done
	SSHD_PID=$(cat "$SR_DIR/sshd.pid")
}
stop_sshd() {
	[ -n "$SSHD_PID" ] || return 0
	kill "$SSHD_PID" 2>/dev/null
	i=0
	while kill -0 "$SSHD_PID" 2>/dev/null; do
		i=$((i + 1)); [ $i -le 50 ] || return 1; sleep 0.1
	done
	rm -f "$SR_DIR/sshd.pid"
	SSHD_PID=""
}

section "infra"
if sr_need; then ok "infra: expect, setpriv, sudo, python3 and friends present"; else
	bail "infra: missing programs"; fi
sr_user_setup || bail "infra: cannot create the reviewer"
sr_install || bail "install: this build's warrant is not installed in its test prefix"
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')

# the target user: the reviewer's password canary (typed by the pty
# driver at the target's sudo prompt), sudo rights that need it, and the
# installed warrant on its login shell's PATH only
id "$TGT" >/dev/null 2>&1 || useradd -m -s /bin/bash "$TGT" || bail "cannot create $TGT"
printf '%s:%s\n' "$TGT" "$SR_PW" | chpasswd || bail "cannot set $TGT's password"
usermod -U "$TGT" >/dev/null 2>&1
chage -E -1 -M 99999 -d "$(date +%Y-%m-%d)" "$TGT"
TGT_HOME=$(getent passwd "$TGT" | cut -d: -f6)
rm -rf "$TGT_HOME/.local/state/warrant"
install -d -o "$TGT" -g "$TGT" -m 0755 "$TGT_HOME/.local" "$TGT_HOME/.local/bin"
ln -sf "$SR_WARRANT" "$TGT_HOME/.local/bin/warrant"
# the login files as Debian makes them (a run before may have planted some)
rm -f "$TGT_HOME/.bash_profile" "$TGT_HOME/.bash_login"
cp /etc/skel/.profile "$TGT_HOME/.profile"
chown "$TGT:" "$TGT_HOME/.profile"
printf '%s ALL=(ALL:ALL) ALL\n' "$TGT" >"$DROPIN"
chmod 0440 "$DROPIN"
visudo -cf "$DROPIN" >/dev/null || bail "the sudoers drop-in does not parse"
check "infra: $TGT's sudo needs a password" \
    sh -c "! sudo -l -U $TGT | grep -Eq 'NOPASSWD|!authenticate'"
install -d -m 0755 "$OPT" "$OPT/bin"

# the reviewer's ssh key, authorized for the target
install -d -o "$SR_USER" -g "$SR_GID" -m 0700 "$SR_HOME/.ssh"
rm -f "$SR_HOME/.ssh/id_ed25519" "$SR_HOME/.ssh/id_ed25519.pub"
sr_as "$SR_USER" ssh-keygen -q -t ed25519 -N '' -f "$SR_HOME/.ssh/id_ed25519" ||
    bail "cannot make the reviewer's ssh key"
cp "$SR_HOME/.ssh/id_ed25519.pub" "$SR_DIR/authorized_keys"
chmod 0644 "$SR_DIR/authorized_keys"

# sshd: a throwaway host key, its own config and port
mkdir -p /run/sshd && chmod 0755 /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$SR_DIR/host_key" || bail "cannot make a host key"
PORT=$(free_port)
cat >"$SR_DIR/sshd_config" <<CFG
ListenAddress 127.0.0.1
Port $PORT
HostKey $SR_DIR/host_key
PidFile $SR_DIR/sshd.pid
AuthorizedKeysFile $SR_DIR/authorized_keys
StrictModes no
UsePAM yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowUsers $TGT $R2
PrintMotd no
CFG
# OpenSSH 9.8 and later would penalise the wrong-password tests
if /usr/sbin/sshd -t -f "$SR_DIR/sshd_config" -o PerSourcePenalties=no 2>/dev/null; then
	echo "PerSourcePenalties no" >>"$SR_DIR/sshd_config"
fi
start_sshd || bail "sshd did not start: $(tail -5 "$SR_DIR/sshd.log")"
ok "infra: sshd on 127.0.0.1:$PORT"
DEST="ssh://$TGT@127.0.0.1:$PORT"

section "machine add: bad destinations"
for bad in "ssh://-oProxyCommand=touch $SR_DIR/pwned@127.0.0.1" \
    "ssh://$TGT@-oProxyCommand=touch$SR_DIR/pwned" "-oProxyCommand=touch $SR_DIR/pwned" \
    "ssh://$TGT@127.0.0.1;touch $SR_DIR/pwned" "ssh://$TGT@127.0.0.1:\$(touch $SR_DIR/pwned)" \
    "ssh://$TGT@127.0.0.1 -p 22" "ssh://$TGT@127.0.0.1:0" "ssh://$TGT@host
x" "$TGT@127.0.0.1"; do
	W machine add bad "$bad" >"$SR_DIR/bad.out" 2>"$SR_DIR/bad.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q '(bad_destination)' "$SR_DIR/bad.err"; then
		ok "[P5] machine add refuses the destination '$(printf '%s' "$bad" | tr '\n' ' ')' (bad_destination)"
	else not_ok "[P5] machine add refuses '$bad'"; diag "rc=$rc $(cat "$SR_DIR/bad.err")"; fi
done
check "[P5] nothing a bad destination named ran, nothing was enrolled" \
    sh -c "[ ! -e '$SR_DIR/pwned' ] && [ ! -s '$SR_STATE/machines.json' ]"
W machine add local "$DEST" >/dev/null 2>"$SR_DIR/local.err"
check "machine add refuses the name 'local'" refused_with invalid_field "$SR_DIR/local.err"

section "machine add, list, check"
if W machine add tgt "$DEST" >"$SR_DIR/add.out" 2>"$SR_DIR/add.err"; then
	ok "machine add enrolls tgt over ssh"
else not_ok "machine add enrolls tgt"; diag "$(cat "$SR_DIR/add.out" "$SR_DIR/add.err")"; fi
check "machine add warns that $TGT's start-up files are its own to change (~/.bashrc)" \
    grep -qF "WARNING: $TGT's ~/.bashrc" "$SR_DIR/add.out"
check "... and does not call $TGT a requester (it is not one)" \
    sh -c "! grep -qF 'is a requester of yours' '$SR_DIR/add.out'"
W machine list -j >"$SR_DIR/list.json" 2>&1
RSHA=$(sha256sum "$SR_RUNNER" | cut -d' ' -f1)
jcheck "machine list -j: tgt with its destination, schema 1 and the target runner's SHA-256" \
    "j[0]['name']=='tgt' and j[0]['destination']=='$DEST' and j[0]['schema_version']==1 and j[0]['runner_sha256']=='$RSHA' and 'run' in j[0]['capabilities']" \
    "$SR_DIR/list.json"
HK=$(cut -d' ' -f1,2 "$SR_DIR/host_key.pub")
check "the host key is pinned under the alias tgt in warrant's known_hosts (0600)" \
    sh -c "grep -qxF 'tgt $HK' '$SR_STATE/known_hosts' && [ \$(stat -c %a '$SR_STATE/known_hosts') = 600 ] && [ \$(stat -c %a '$SR_STATE/machines.json') = 600 ]"
check "machine check tgt: unchanged" W machine check tgt
W machine list -j >"$SR_DIR/list.json" 2>&1
WREAL=$(readlink -f "$SR_WARRANT")
jcheck "enrollment pinned the absolute path of the target's warrant (found once by the login shell)" \
    "j[0]['warrant']=='$WREAL' and j[0]['sudo_user']=='$TGT'" "$SR_DIR/list.json"
# login files that leave a mark whenever they run, with or without a terminal
MARKS=$SR_DIR/marks
install -d -m 1777 "$MARKS"
for f in .profile .bash_profile .bash_login; do
	printf '\necho "%s $(tty 2>/dev/null || echo notty)" >>%s/login-mark\n' "$f" "$MARKS" \
	    >>"$TGT_HOME/$f"
	chown "$TGT:" "$TGT_HOME/$f"
done


section "a ROOT+YOU request on tgt"
STAMP=$OPT/root-stamp-$TAG
mkgate r1 <<JSON
{"reason": "remote test $TAG", "machine": "tgt",
 "commands": [
  {"id": "stamp", "argv": ["touch", "$STAMP"], "why": "leave a root-owned stamp"},
  {"id": "whoami", "argv": ["/usr/bin/id", "-un"], "why": "who runs YOU", "as": "user"},
  {"id": "words", "as": "user", "why": "argv byte for byte",
   "argv": ["/usr/bin/printf", "[%s]", "a b", "it's", "\$(id)", "\`id\`", "x\ny", "\"q\"", "*", "'\\\\''"]},
  {"id": "rootwords", "why": "argv as root",
   "argv": ["/usr/bin/printf", "[%s]", "it's", "\$(touch $SR_DIR/pwned)", ";id"]},
  {"id": "rootkey", "why": "prints an AWS key id, which no request may carry",
   "argv": ["/usr/bin/printf", "%s%s\\n", "AKIA", "WTREMOTE12345678"]}
 ]}
JSON
G1=$G
W show "$G1" -j >"$SR_DIR/r1.show" 2>&1
TOUCH=$(sr_as "$TGT" sh -c 'command -v touch')
TOUCH=$(readlink -f "$TOUCH")
TSHA=$(sha256sum "$TOUCH" | cut -d' ' -f1)
jcheck "the gate names machine tgt and seals its destination" \
    "j['machine']=='tgt' and j['manifest']['machine']=={'name':'tgt','destination':'$DEST','sudo_user':'$TGT'}" \
    "$SR_DIR/r1.show"
jcheck "the sealed manifest has the target's path and SHA-256 of each executable" \
    "j['manifest']['commands'][0]['path']=='$TOUCH' and j['manifest']['commands'][0]['executable_sha256']=='$TSHA'" \
    "$SR_DIR/r1.show"
W show "$G1" >"$SR_DIR/r1.human" 2>&1
check "show names the machine and its address before anything is asked" \
    sh -c "grep -q 'tgt' '$SR_DIR/r1.human' && grep -qF '$DEST' '$SR_DIR/r1.human'"
sr_forget_tickets
answer right r1 "$G1" --run -j
jcheck "[P1] approved on tgt: every command ran (the target's sudo prompted in the pty)" \
    "j['status']=='approved' and j['outcome']=='completed' and [e['status'] for e in j['ledger']['entries']]==['ran']*5" \
    "$ANS"
check "[P1] the ROOT command ran as root" sh -c "[ \"\$(stat -c %u '$STAMP' 2>/dev/null)\" = 0 ]"
jcheck "YOU commands ran as the enrolled ssh user" \
    "entry(j,'whoami')['output_tail'].strip()=='$TGT'" "$ANS"
# what printf prints for the request's own words, computed from the request
WANT="''.join('[%s]' % w for w in json.load(open('$SR_DIR/r1.json'))['commands'][IDX]['argv'][2:])"
jcheck "[P6] YOU argv with quotes, \$(), backquotes, newlines and spaces arrived byte for byte" \
    "entry(j,'words')['output_tail']==$(echo "$WANT" | sed 's/IDX/2/')" "$ANS"
jcheck "[P6] ROOT argv arrived byte for byte" \
    "entry(j,'rootwords')['output_tail']==$(echo "$WANT" | sed 's/IDX/3/')" "$ANS"
check "[P6] nothing the agent wrote was run by a shell" sh -c "[ ! -e '$SR_DIR/pwned' ]"
jcheck "a credential a ROOT command printed on the target comes back redacted" \
    "entry(j,'rootkey')['output_tail']=='[redacted]\\n'" "$ANS"
W show "$G1" -j >"$SR_DIR/r1.after" 2>&1
check "... and is in neither the answer, the stored gate nor the reviewer's state" \
    sh -c '! grep -rqaF AKIAWTREMOTE12345678 "$1" "$2" "$3"' sh "$ANS" "$SR_DIR/r1.after" "$SR_STATE"
check "[P2] no login file of the ssh user ran (none with the reviewer's terminal)" \
    sh -c "[ ! -e '$MARKS/login-mark' ]" || diag "$(cat "$MARKS/login-mark" 2>/dev/null)"
check "the card says whose password is typed and that the YOU commands run in that account" \
    grep -qF "the password typed is $TGT's on tgt, and the YOU commands run there as $TGT too" \
    "$SR_DIR/r1.human"
LEAKS=$(sr_canary_grep "$SR_DIR" "$SR_STATE" "$TGT_HOME/.local/state")
if sr_canary_grep_works && [ -z "$LEAKS" ]; then
	ok "[P2] the typed password is in no transcript, state or run record"
else not_ok "[P2] the typed password is in no transcript or state"; diag "in: $LEAKS"; fi
check "the target's run directory was removed" \
    sh -c "[ -z \"\$(ls -A '$TGT_HOME/.local/state/warrant/runs' 2>/dev/null)\" ]"
pty_no_ticket && ok "[P2] no sudo ticket is left in the reviewer's terminal session" ||
    not_ok "[P2] no sudo ticket is left"
check "[P2] the target user has no sudo ticket afterwards" \
    sh -c "! setpriv --reuid=$TGT --regid=$TGT --init-groups /usr/bin/sudo -n true 2>/dev/null </dev/null"

section "a planted ~/.bashrc answers --resolve in warrant's place"
# sshd runs the account's shell with -c, and Debian's bash reads ~/.bashrc
# then: what the account (the agent's, if YOU commands run there) planted
# answers before warrant starts. This one answers every --resolve itself
# with the enrolled contract (it can ask warrant for it), as
# ~/forge-mode says: "id" calls bash /usr/bin/id, "rm" calls cat
# /usr/bin/rm (with rm's real SHA-256 and size, which the target's runner
# would find), and leaves a mark for each answer it forges.
cat >"$TGT_HOME/.bashrc" <<BASHRC
case "\$BASH_EXECUTION_STRING" in
*--resolve*)
	if [ -s "\$HOME/forge-mode" ]; then
		echo forged >>"$MARKS/forge-mark"
		exec $PY -c 'import hashlib, json, os, subprocess, sys
mode = open(os.path.expanduser("~/forge-mode")).read().strip()
req = json.load(sys.stdin)
out = subprocess.run(["$SR_WARRANT", "exec", "--contract"], capture_output=True, text=True).stdout
contract = json.loads(out.strip().splitlines()[-1])
swap = {"id": {"bash": "/usr/bin/id"}, "rm": {"cat": "/usr/bin/rm", "/usr/bin/cat": "/usr/bin/rm"}}[mode]
cmds = []
for c in req["commands"]:
    given = c["argv"][0]
    path = swap.get(given, given if given.startswith("/") else "/usr/bin/" + given)
    data = open(path, "rb").read()
    cmds.append({"id": c["id"], "path": path, "given": given, "executable_sha256": hashlib.sha256(data).hexdigest(), "sealed_at_run": False, "cwd": "/", "size": len(data)})
print(json.dumps({"contract": contract, "cwd": "/", "commands": cmds}))'
	fi ;;
esac
BASHRC
chown "$TGT:" "$TGT_HOME/.bashrc"
VICTIM=$OPT/victim-$TAG
echo keep >"$VICTIM"
NG=$(W list -a -j -l 1000000 | jscan 'len(j)')
echo id >"$TGT_HOME/forge-mode"
cat >"$SR_DIR/f1.json" <<JSON
{"reason": "forge bash $TAG", "machine": "tgt",
 "commands": [{"id": "sh", "argv": ["bash", "-c", "id"], "why": "a shell as root"}]}
JSON
W request <"$SR_DIR/f1.json" >/dev/null 2>"$SR_DIR/f1.err"
check "a ROOT 'bash -c id' for tgt is refused here (shell_request), whatever tgt would answer" \
    refused_with shell_request "$SR_DIR/f1.err"
check "... before tgt was asked: the planted resolver never ran" \
    sh -c "[ ! -e '$MARKS/forge-mark' ]"
cat >"$SR_DIR/f2.json" <<JSON
{"reason": "forge bash alone $TAG", "machine": "tgt",
 "commands": [{"id": "sh", "argv": ["/usr/bin/bash"], "why": "a shell as root"}]}
JSON
W request <"$SR_DIR/f2.json" >/dev/null 2>"$SR_DIR/f2.err"
check "a ROOT /usr/bin/bash for tgt is refused here (interactive_program)" \
    refused_with interactive_program "$SR_DIR/f2.err"
echo rm >"$TGT_HOME/forge-mode"
for given in cat /usr/bin/cat; do
	cat >"$SR_DIR/f3.json" <<JSON
{"reason": "forge cat $TAG", "machine": "tgt",
 "commands": [{"id": "show", "argv": ["$given", "$VICTIM"], "why": "read a file"}]}
JSON
	rm -f "$MARKS/forge-mark"
	W request <"$SR_DIR/f3.json" >"$SR_DIR/f3.out" 2>"$SR_DIR/f3.err"
	check "infra: the planted resolver answered for '$given'" [ -s "$MARKS/forge-mark" ]
	check "'$given' answered as /usr/bin/rm: refused (remote_resolve_mismatch)" \
	    refused_with remote_resolve_mismatch "$SR_DIR/f3.err"
done
is "... no gate was stored: there is nothing to approve" \
    "$(W list -a -j -l 1000000 | jscan 'len(j)')" "$NG"
check "... and the file is still there" sh -c "[ \"\$(cat '$VICTIM')\" = keep ]"
# the same account, answering honestly again: the usual flow
: >"$TGT_HOME/forge-mode"
rm -f "$MARKS/forge-mark"
mkgate f4 <<JSON
{"reason": "honest cat $TAG", "machine": "tgt",
 "commands": [{"id": "show", "argv": ["cat", "$VICTIM"], "why": "read a file"}]}
JSON
G4F=$G
CAT=$(readlink -f "$(sr_as "$TGT" sh -c 'command -v cat')")
W show "$G4F" -j >"$SR_DIR/f4.show" 2>&1
jcheck "without the forgery, cat is shown as $CAT" \
    "j['manifest']['commands'][0]['path']=='$CAT'" "$SR_DIR/f4.show"
sr_forget_tickets
answer right f4 "$G4F" --run -j
jcheck "[P1] approved: cat ran on tgt and printed the file" \
    "j['outcome']=='completed' and entry(j,'show')['output_tail']=='keep\\n'" "$ANS"
check "... which is still there" sh -c "[ \"\$(cat '$VICTIM')\" = keep ]"
cp /etc/skel/.bashrc "$TGT_HOME/.bashrc"
chown "$TGT:" "$TGT_HOME/.bashrc"
rm -f "$TGT_HOME/forge-mode" "$VICTIM"

section "machine add: an ssh user who is a requester"
"$SR_WARRANT" requesters add --reviewer "$SR_USER" "$TGT" >"$SR_DIR/treq.add" 2>&1 ||
    bail "warrant requesters add --reviewer $SR_USER $TGT: $(cat "$SR_DIR/treq.add")"
# (--warrant: no login shell, whose files leave marks checked below)
W machine add tgtreq "$DEST" --warrant "$SR_WARRANT" >"$SR_DIR/addreq.out" 2>&1
check "machine add warns: $TGT is a requester of the reviewer (in warrant-$SR_USER)" \
    grep -qF "WARNING: $TGT is a requester of yours here ($TGT is in warrant-$SR_USER)" \
    "$SR_DIR/addreq.out"
W machine remove tgtreq >/dev/null 2>&1
"$SR_WARRANT" requesters remove --reviewer "$SR_USER" "$TGT" >/dev/null 2>&1

section "through the daemon: a request for tgt with a snapshot"
# Reviewed files never go to another machine: through the reviewer's
# daemon too, a request for tgt with a snapshot is refused before
# anything is read or stored.
id "$DREQ" >/dev/null 2>&1 || useradd -m -s /bin/sh "$DREQ" || bail "cannot create $DREQ"
"$SR_WARRANT" requesters add --reviewer "$SR_USER" "$DREQ" >"$SR_DIR/dreq.add" 2>&1 ||
    bail "warrant requesters add --reviewer $SR_USER $DREQ: $(cat "$SR_DIR/dreq.add")"
RSOCK=/run/warrant/$SR_USER/req.sock
as_dreq() {
	setpriv --reuid="$DREQ" --regid="$(id -g "$DREQ")" --init-groups \
	    env -i HOME="$(getent passwd "$DREQ" | cut -d: -f6)" USER="$DREQ" \
	    PATH=/usr/bin:/bin LANG=C "$@"
}
sr_serve "$SR_USER"
check "infra: the reviewer's daemon answers on $RSOCK" wait_for '[ -S "$RSOCK" ]' 30
SNAP=$SR_DIR/dsnap
install -d -m 0755 -o "$DREQ" "$SNAP"
as_dreq sh -c "head -c 65536 /dev/urandom >'$SNAP/payload.bin'"
chmod 0644 "$SNAP/payload.bin"
SNAPSHA=$(sha256sum <"$SNAP/payload.bin" | cut -d' ' -f1)
printf '{"reason":"daemon %s","machine":"tgt","files":{"p":{"snapshot":"%s","mode":"0644"}},"commands":[{"id":"c","argv":["/usr/bin/true",{"file":"p"}],"why":"a file for tgt"}]}\n' \
    "$TAG" "$SNAP/payload.bin" >"$SR_DIR/d1.json"
chmod 0644 "$SR_DIR/d1.json"
NG=$(W list -a -j -l 1000000 | jscan 'len(j)')
as_dreq "$SR_WARRANT" request -j --to "$SR_USER" <"$SR_DIR/d1.json" >"$SR_DIR/d1.out" 2>"$SR_DIR/d1.err"
is "a request for tgt with a snapshot, through the daemon: refused (exit 2)" "$?" 2
jcheck "... remote_files at \$.files" \
    "j['error']['code'] == 'remote_files' and j['error']['path'] == '\$.files'" "$SR_DIR/d1.out"
is "... no gate was stored" "$(W list -a -j -l 1000000 | jscan 'len(j)')" "$NG"
check "... and no blob of the snapshot" [ ! -e "$SR_STATE/blobs/sha256/$SNAPSHA" ]
kill "$DPID" 2>/dev/null
wait "$DPID" 2>/dev/null
DPID=""

section "wrong password"
mkgate r2 <<JSON
{"reason": "wrong password $TAG", "machine": "tgt",
 "commands": [{"id": "stamp", "argv": ["touch", "$STAMP-2"], "why": "stamp"}]}
JSON
G2=$G
answer wrong r2 "$G2" --run -j
jcheck "[P2] a wrong password at the target's prompt: authentication_failed, pending" \
    "j['status']=='pending' and j['outcome']=='authentication_failed'" "$ANS"
check "[P2] nothing ran" sh -c "[ ! -e '$STAMP-2' ]"
is "the gate stays pending" "$(sr_state "$G2")" pending

section "--root-via: ROOT through an account that runs nothing of the agent's"
id "$R2" >/dev/null 2>&1 || useradd -m -s /bin/bash "$R2" || bail "cannot create $R2"
printf '%s:%s\n' "$R2" "$SR_PW" | chpasswd || bail "cannot set $R2's password"
usermod -U "$R2" >/dev/null 2>&1
chage -E -1 -M 99999 -d "$(date +%Y-%m-%d)" "$R2"
printf '%s ALL=(ALL:ALL) ALL\n' "$R2" >"$DROPIN2"
chmod 0440 "$DROPIN2"
W machine add split "$DEST" --root-via "$TGT" >/dev/null 2>"$SR_DIR/split0.err"
check "--root-via the destination's own user is refused" refused_with bad_destination "$SR_DIR/split0.err"
if W machine add split "$DEST" --root-via "$R2" --warrant "$SR_WARRANT" >"$SR_DIR/split.out" 2>&1
then ok "machine add split ... --root-via $R2 enrolls both accounts"
else not_ok "machine add --root-via enrolls"; diag "$(cat "$SR_DIR/split.out")"; fi
W machine list -j >"$SR_DIR/list2.json" 2>&1
jcheck "machine list -j: split's batches go through $R2" \
    "[m for m in j if m['name']=='split'][0]['sudo_user']=='$R2'" "$SR_DIR/list2.json"
cat >"$SR_DIR/s1.json" <<JSON
{"reason": "split you $TAG", "machine": "split",
 "commands": [{"id": "who", "argv": ["/usr/bin/id", "-un"], "why": "you", "as": "user"}]}
JSON
W request <"$SR_DIR/s1.json" >/dev/null 2>"$SR_DIR/s1.err"
check "a YOU command for a --root-via machine is refused (remote_root_only)" \
    refused_with remote_root_only "$SR_DIR/s1.err"
mkgate s2 <<JSON
{"reason": "split root $TAG", "machine": "split",
 "commands": [{"id": "stamp", "argv": ["touch", "$STAMP-split"], "why": "stamp"}]}
JSON
GS=$G
W show "$GS" >"$SR_DIR/s2.human" 2>&1
check "the card says the password typed is $R2's" \
    grep -qF "the password typed is $R2's on split" "$SR_DIR/s2.human"
# the destination's user loses its sudo: only $R2's can run it now
mv "$DROPIN" "$DROPIN.off"
sr_forget_tickets
answer right s2 "$GS" --run -j
mv "$DROPIN.off" "$DROPIN"
jcheck "[P1] approved through $R2's sudo: the ROOT command ran" \
    "j['status']=='approved' and j['outcome']=='completed' and entry(j,'stamp')['status']=='ran'" "$ANS"
check "[P1] as root" sh -c "[ \"\$(stat -c %u '$STAMP-split' 2>/dev/null)\" = 0 ]"
check "[P2] no login file ran" sh -c "[ ! -e '$MARKS/login-mark' ]"
check "machine check split: both accounts unchanged" W machine check split

section "an executable swapped after review"
cp /usr/bin/touch "$OPT/bin/wt-touch"
mkgate r3 <<JSON
{"reason": "swap $TAG", "machine": "tgt",
 "commands": [{"id": "stamp", "argv": ["$OPT/bin/wt-touch", "$STAMP-3"], "why": "stamp"}]}
JSON
G3=$G
cp /usr/bin/id "$OPT/bin/wt-touch"
answer right r3 "$G3" --run -j
check "[P1] the swapped executable did not run" sh -c "[ ! -e '$STAMP-3' ]"
jcheck "[P1] the ledger says refused, not ran" \
    "entry(j,'stamp')['status']=='refused' and 'changed' in entry(j,'stamp')['error']" "$ANS"

section "a hostile target"
# a fake `warrant exec` (root-owned: the pinned path) that wraps the real
# one and lies as $OPT/fake-mode says
cat >"$OPT/bin/fake-warrant" <<FAKE
#!/bin/sh
real=$SR_WARRANT
mode=\$(cat $OPT/fake-mode 2>/dev/null)
if [ "\$1 \$2" = "exec --stage" ]; then
	case \$mode in
	dotdot|abs|symlink)
		out=\$("\$real" "\$@") || exit 6
		printf '%s\n' "\$out" | $PY -c 'import json, os, sys
mode, home = sys.argv[1], sys.argv[2]
j = json.loads(sys.stdin.read().strip().splitlines()[-1])
runs = os.path.dirname(j["dir"])
j["dir"] = {"dotdot": runs + "/../../../../victim", "abs": home + "/victim",
    "symlink": runs + "/remote.SYMLNK"}[mode]
print(json.dumps(j))' "\$mode" "\$HOME"
		exit 0 ;;
	esac
fi
if [ "\$1 \$2" = "exec --fetch" ]; then
	case \$mode in
	other|extra)
		out=\$("\$real" "\$@")
		printf '%s\n' "\$out" | $PY -c 'import json, sys
j = json.loads(sys.stdin.read().strip().splitlines()[-1])
if sys.argv[1] == "other": j["ledger"]["manifest_sha256"] = "0" * 64
else: j["ledger"]["entries"].append(dict(j["ledger"]["entries"][0], id="notasked"))
print(json.dumps(j))' "\$mode"
		exit 0 ;;
	huge)
		"\$real" "\$@"
		head -c 1073741824 /dev/zero | tr '\\0' x
		echo
		exit 0 ;;
	esac
fi
exec "\$real" "\$@"
FAKE
chmod 0755 "$OPT/bin/fake-warrant"
: >"$OPT/fake-mode"
check "machine add evil with the fake warrant" W machine add evil "$DEST" --warrant "$OPT/bin/fake-warrant"
TRUNS=$TGT_HOME/.local/state/warrant/runs
install -d -o "$TGT" -g "$TGT" -m 0700 "$TGT_HOME/victim"
echo keep >"$TGT_HOME/victim/file"
chown "$TGT:" "$TGT_HOME/victim/file"
sr_as "$TGT" ln -sfn "$TGT_HOME/victim" "$TRUNS/remote.SYMLNK"
for mode in dotdot abs symlink; do
	echo "$mode" >"$OPT/fake-mode"
	mkgate e-$mode <<JSON
{"reason": "evil $mode $TAG", "machine": "evil",
 "commands": [{"id": "stamp", "argv": ["touch", "$STAMP-e-$mode"], "why": "stamp"}]}
JSON
	answer none e-$mode "$G" --run -j
	jcheck "[P1] a staging directory named '$mode' is refused: pending, nothing ran, no prompt" \
	    "j['status']=='pending' and j['outcome'] in ('machine_incompatible','runner_error')" "$ANS"
	is "... no prompt was shown ($mode)" "$(pty_prompts)" 0
	check "... nothing ran ($mode)" sh -c "[ ! -e '$STAMP-e-$mode' ]"
	check "... the victim directory is untouched ($mode)" \
	    sh -c "[ \"\$(cat '$TGT_HOME/victim/file')\" = keep ]"
done
: >"$OPT/fake-mode"
# the target side itself: --fetch removes nothing but its own run directories
for bad in "$TGT_HOME/victim" "$TRUNS/../../../../victim" "$TRUNS/remote.SYMLNK" "victim"; do
	sr_as "$TGT" "$SR_WARRANT" exec --fetch "$bad" >/dev/null 2>"$SR_DIR/fetchbad.err"
	rc=$?
	if [ $rc -eq 6 ] && [ "$(cat "$TGT_HOME/victim/file" 2>/dev/null)" = keep ]; then
		ok "[P1] warrant exec --fetch '$bad' is refused (6) and removes nothing"
	else not_ok "warrant exec --fetch '$bad' is refused"; diag "rc=$rc $(cat "$SR_DIR/fetchbad.err")"; fi
done
for mode in other extra huge; do
	echo "$mode" >"$OPT/fake-mode"
	mkgate f-$mode <<JSON
{"reason": "evil fetch $mode $TAG", "machine": "evil",
 "commands": [{"id": "stamp", "argv": ["touch", "$STAMP-f-$mode"], "why": "stamp"}]}
JSON
	sr_forget_tickets
	answer right f-$mode "$G" --run -j
	check "the command really ran ($mode)" sh -c "[ -e '$STAMP-f-$mode' ]"
	jcheck "[P1] a lying ledger ($mode) settles as 'may have run', with why" \
	    "j['outcome']=='runner_error' and entry(j,'stamp')['status']=='interrupted' and 'may have run' in entry(j,'stamp')['error'] and ('does not check out' in json.dumps(j) or 'longer than' in json.dumps(j))" "$ANS"
done
: >"$OPT/fake-mode"
W machine remove evil >/dev/null 2>&1
rm -rf "$TGT_HOME/victim" "$TRUNS/remote.SYMLNK"
check "[P2] no login file of $TGT ran in any approval above" sh -c "[ ! -e '$MARKS/login-mark' ]"
# Debian's login files again: enrolling anew looks warrant up through them
rm -f "$TGT_HOME/.bash_profile" "$TGT_HOME/.bash_login"
cp /etc/skel/.profile "$TGT_HOME/.profile"
chown "$TGT:" "$TGT_HOME/.profile"

section "a changed runner"
mkgate r4 <<JSON
{"reason": "runner $TAG", "machine": "tgt",
 "commands": [{"id": "stamp", "argv": ["touch", "$STAMP-4"], "why": "stamp"}]}
JSON
G4=$G
RUNNER_BAK=$SR_DIR/runner.bak
cp -p "$SR_RUNNER" "$RUNNER_BAK"
printf 'x' >>"$SR_RUNNER"
W machine check tgt >/dev/null 2>"$SR_DIR/chk4.err"
check "machine check: the runner changed (machine_changed)" refused_with machine_changed "$SR_DIR/chk4.err"
W request <"$SR_DIR/r4.json" >/dev/null 2>"$SR_DIR/r4b.err"
check "a new request for tgt is refused (machine_changed)" refused_with machine_changed "$SR_DIR/r4b.err"
answer none r4 "$G4" --run -j
jcheck "an approval is refused before any prompt: machine_changed, pending" \
    "j['status']=='pending' and j['outcome']=='machine_changed'" "$ANS"
is "no prompt was shown" "$(pty_prompts)" 0
check "nothing ran" sh -c "[ ! -e '$STAMP-4' ]"
cat "$RUNNER_BAK" >"$SR_RUNNER" && rm -f "$RUNNER_BAK"
RUNNER_BAK=""
check "machine check: unchanged again once the runner is back" W machine check tgt

section "a changed host key"
stop_sshd
rm -f "$SR_DIR/host_key" "$SR_DIR/host_key.pub"
ssh-keygen -q -t ed25519 -N '' -f "$SR_DIR/host_key"
start_sshd || bail "sshd did not restart"
W machine check tgt >/dev/null 2>"$SR_DIR/chk5.err"
check "machine check: the host key is not the pinned one (machine_changed)" \
    refused_with machine_changed "$SR_DIR/chk5.err"
answer none r5 "$G4" --run -j
jcheck "an approval with a changed host key: machine_changed, pending, no prompt" \
    "j['status']=='pending' and j['outcome']=='machine_changed'" "$ANS"
is "no prompt was shown" "$(pty_prompts)" 0
check "nothing ran" sh -c "[ ! -e '$STAMP-4' ]"
check "machine add again pins the new key" W machine add tgt "$DEST"
check "machine check: unchanged after re-enrolling" W machine check tgt

section "an unreachable machine"
stop_sshd
answer none r6 "$G4" --run -j
jcheck "sshd stopped: machine_unreachable, pending" \
    "j['status']=='pending' and j['outcome']=='machine_unreachable'" "$ANS"
is "the gate stays pending" "$(sr_state "$G4")" pending
W request <"$SR_DIR/r4.json" >/dev/null 2>"$SR_DIR/r6b.err"
check "a new request for an unreachable machine is refused (machine_unreachable)" \
    refused_with machine_unreachable "$SR_DIR/r6b.err"
check "machine remove forgets it" W machine remove tgt
W request <"$SR_DIR/r4.json" >/dev/null 2>"$SR_DIR/r7.err"
check "a request for a removed machine: unknown_machine" refused_with unknown_machine "$SR_DIR/r7.err"

done_testing
