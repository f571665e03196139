#!/bin/sh
# SPDX-License-Identifier: ISC
# warrant box, end to end, as root on this machine: throwaway users
# wtbox1..9 with uids 61001..61009 and their reviewer wtboxrev (61010),
# wtboxa and wtboxb with the uids box init chooses, the
# real sudo and PAM, the real sudo password prompt driven through a pty
# with expect. The container profile's sections point the container
# detection at a test root holding .dockerenv (WARRANT_TEST_ROOT, honoured
# only by a -Dtest_hooks=true build); the agent profile's section checks
# that sudo is gone and the requester set-up is there. Cleans up after
# itself (and before, so it can be re-run after an interrupted run).
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "warrant box tests need root"
# scripts/deps.sh installs these for make check: missing is a failure.
for t in expect setpriv visudo sudo; do
	command -v "$t" >/dev/null 2>&1 || bail "$t is installed (scripts/deps.sh)"
done

# Two runs at once would share the wtbox users: take turns.
lockdir=/run/lock
[ -d "$lockdir" ] || lockdir=/run
exec 9>"$lockdir/warrant-test-box.lock"
flock -w 600 9 || { echo "Bail out! another test-box.sh holds the lock"; exit 1; }

USERS="wtbox1 wtbox2 wtbox3 wtbox4 wtbox5 wtbox6 wtbox7 wtbox8 wtbox9 wtboxa wtboxb wtboxc"
# The processes the suite starts as a box user, ended by their pids.
SESSION_PIDS=
REV=wtboxrev
# The tests choose the reviewer themselves (sudo make check sets this).
unset SUDO_USER
# /run/warrant is shared with other suites: removed only when this one
# made it and it is empty again.
CHPASSWD=/usr/sbin/chpasswd
CHPASSWD_MODE=$(stat -c %a "$CHPASSWD")
# An interrupted run may have left it at 0 (see "live apply fails").
[ "$CHPASSWD_MODE" = 0 ] && CHPASSWD_MODE=755

cleanup() {
	chmod "$CHPASSWD_MODE" "$CHPASSWD"
	for p in $SESSION_PIDS; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	for u in $USERS; do
		# Never userdel -r: a test account's home may be / (see below).
		userdel "$u" >/dev/null 2>&1
		groupdel "$u" >/dev/null 2>&1
		rm -rf "/home/$u" "/var/mail/$u"
		rm -f "/etc/sudoers.d/warrant-box-$u" "/etc/sudoers.d/.warrant-box-$u".*
		rm -f "/var/lib/warrant/box/$u.pw" "/var/lib/warrant/box/$u.user" \
		    "/run/sudo/ts/$u" "/var/lib/sudo/lectured/$u"
	done
	userdel "$REV" >/dev/null 2>&1
	groupdel "$REV" >/dev/null 2>&1
	requesters_teardown "$REV"
	rm -f /etc/sudoers.d/wtbox-e2e-extra
	rm -rf /home/wtbox-e2e-* /tmp/wtbox-e2e-* /dev/shm/wtbox-e2e-*
	[ -n "${T:-}" ] && [ -z "${WT_KEEP:-}" ] && rm -rf "$T"
	[ -n "${WT_DIR:-}" ] && rm -rf "$WT_DIR"
}
cleanup
at_exit cleanup

# The build may be relinking right now (a copy can catch a half-written
# binary): copy until the copy works.
for try in 1 2 3 4 5; do
	setup_bin
	[ "$("$W" box username Ok 2>/dev/null)" = ok ] && break
	rm -rf "$WT_DIR"
	WT_DIR=
	sleep 3
done
if [ -z "${WT_DIR:-}" ]; then
	echo "Bail out! $WARRANT_BUILD/warrant does not run"
	exit 1
fi
case $("$W" --version) in
*"(test hooks)"*) ;;
*) bail "$WARRANT_BUILD is built with -Dtest_hooks=true (meson configure $WARRANT_BUILD -Dtest_hooks=true)" ;;
esac
T=$(mktemp -d /tmp/warrant-box.XXXXXX)
export WARRANT_BOX_DIR="$T/box"
# The container profile's sections run "in a container": a test root with
# the mark docker leaves; NOTCONT is a machine without any.
mkdir "$T/container" "$T/host"
touch "$T/container/.dockerenv"
export WARRANT_TEST_ROOT="$T/container"
NOTCONT="$T/host"
BOX=$WARRANT_BOX_DIR
LOGS="$T/logs"
mkdir "$LOGS"
step=0

# wb ARGS...: run warrant box, keeping its stdout and stderr in $LOGS (the
# plaintext check greps them) and in $OUT / $ERR; the status in $RC.
wb() {
	step=$((step + 1))
	OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
	"$W" box "$@" >"$OUT" 2>"$ERR"
	RC=$?
}
# wbe VAR=VALUE ARGS...: the same with VAR=VALUE in its environment.
wbe() {
	_e=$1
	shift
	step=$((step + 1))
	OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
	env "$_e" "$W" box "$@" >"$OUT" 2>"$ERR"
	RC=$?
}
# wbin INPUT ARGS...: the same with INPUT (printf format, no newline) on stdin.
wbin() {
	_in=$1
	shift
	step=$((step + 1))
	OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
	# shellcheck disable=SC2059
	printf "$_in" | "$W" box "$@" >"$OUT" 2>"$ERR"
	RC=$?
}
show() { diag "exit $RC"; diag "$(head -c 600 "$OUT")"; diag "$(head -c 600 "$ERR")"; }
# expect_rc DESC WANT [GREP]: the last wb exited WANT (and stdout+stderr match GREP).
expect_rc() {
	if [ "$RC" -eq "$2" ] && { [ -z "${3:-}" ] || cat "$OUT" "$ERR" | grep -q -- "$3"; }; then
		ok "$1"
	else
		not_ok "$1"
		show
	fi
}

as_box() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --init-groups \
	    env -i HOME="$(getent passwd "$_u" | cut -d: -f6)" PATH=/usr/bin:/bin LANG=C "$@"
}
sudo_n_ok() { as_box "$1" sudo -n true </dev/null >/dev/null 2>&1; }
sudo_n_fails() { ! sudo_n_ok "$1"; }
has_hash() { shadow_pw "$1" | grep -q '^\$'; }
no_dropin() { [ ! -e "$(dropin "$1")" ]; }
shadow_pw() { getent shadow "$1" | cut -d: -f2; }
dropin() { echo "/etc/sudoers.d/warrant-box-$1"; }
fstat() { stat -c '%a %U %G %s' "$1" 2>/dev/null; }

# sudo_prompt USER PASSWORD: sudo -k, then `sudo id -u` through a pty,
# answering every password prompt with PASSWORD (from the environment, so
# it is in no file and no argv). Prints the session; sets PROMPTS.
cat >"$T/sudo.exp" <<'EOF'
set timeout 30
log_user 1
set prompts 0
spawn setpriv --reuid=$env(BU) --regid=$env(BG) --init-groups env -i HOME=/ PATH=/usr/bin:/bin LANG=C sh -c {sudo -k; sudo -p "WTPROMPT: " id -u; echo "RC=$?"}
expect {
	"WTPROMPT: " { incr prompts; send -- "$env(BPW)\r"; exp_continue }
	timeout { puts "TIMEOUT"; exit 1 }
	eof
}
puts "PROMPTS=$prompts"
EOF
sudo_prompt() {
	step=$((step + 1))
	SESSION="$LOGS/$step.pty"
	BU=$1 BG=$(id -g "$1") BPW=$2 expect -f "$T/sudo.exp" 2>&1 | tr -d '\r' >"$SESSION"
	PROMPTS=$(sed -n 's/^PROMPTS=\([0-9]*\).*/\1/p' "$SESSION")
}
sudo_accepted() { grep -q '^RC=0' "$SESSION" && grep -qx '0' "$SESSION" && [ "${PROMPTS:-0}" -ge 1 ]; }
sudo_refused() { grep -q '^RC=1' "$SESSION" && ! grep -qx '0' "$SESSION" && [ "${PROMPTS:-0}" -ge 1 ]; }

# --- username: the sanitizer table -------------------------------------
while IFS='|' read -r in want; do
	wb username "$in"
	if [ "$RC" -eq 0 ] && [ "$(cat "$OUT")" = "$want" ]; then
		ok "username '$in' -> '$want'"
	else
		not_ok "username '$in' -> '$want'"
		show
	fi
done <<'EOF'
Gabriel|gabriel
John Doe|john-doe
a.b@c:d|a-b-c-d
über|u-ber
9lives|u9lives
-dash|u-dash
_svc|_svc
|warrant
abcdefghijklmnopqrstuvwxyz0123456789|abcdefghijklmnopqrstuvwxyz012345
1bcdefghijklmnopqrstuvwxyz0123456789|u1bcdefghijklmnopqrstuvwxyz01234
EOF
wb username "$(printf 'line\nbreak')"
expect_rc "username: a newline becomes '-'" 0 '^line-break$'
wb username
expect_rc "username without NAME is a usage error" 2 usage

# --- init refusals: nothing changes ------------------------------------
wb init --profile container --user root
expect_rc "[P5] init refuses root (system account)" 2 'refused (system_account)'
wb init --profile container --user daemon
expect_rc "[P5] init refuses daemon (system account)" 2 'refused (system_account)'
wb init --profile container --user Bad.Name
expect_rc "[P5] init refuses an unsanitized name, suggesting the sanitized one" 2 "use 'bad-name'"
wb init --profile container --user wtbox1 --uid 0
expect_rc "[P5] init refuses uid 0" 2 'refused (bad_uid)'
wb init --profile container --user wtbox1 --home /etc/wtbox1
expect_rc "[P5] init refuses a home in a system tree" 2 'refused (bad_home)'

# tree PATH: what a chown, chmod or new entry would change there: owner and
# mode of PATH, and of each entry directly in it.
tree() {
	stat -c '%u %g %a' "$1" 2>&1
	find "$1" -mindepth 1 -maxdepth 1 -printf '%U %G %m %p\n' 2>&1 | sort
}
# nothing_for USER: no account, group, drop-in or box record for USER.
nothing_for() {
	! getent passwd "$1" >/dev/null && ! getent group "$1" >/dev/null &&
	    [ ! -e "$(dropin "$1")" ] && [ ! -e "$BOX/$1.user" ]
}
# refused_home CODE DIR [ARGS]: init --home DIR is refused with CODE, and
# neither DIR (with what it holds) nor its parent's owner and mode changed.
refused_home() {
	_code=$1 _dir=$2
	shift 2
	_b1=$(tree "$_dir") _b2=$(stat -c '%u %g %a' "${_dir%/*}/" 2>&1)
	wb init --profile container --user wtbox3 --uid 61003 --gid 61003 --home "$_dir" "$@"
	expect_rc "init --home $_dir is refused ($_code)" 2 "refused ($_code)"
	check "... $_dir and its parent unchanged" unchanged "$_dir" "$_b1" "$_b2"
}
unchanged() {
	[ "$2" = "$(tree "$1")" ] && [ "$3" = "$(stat -c '%u %g %a' "${1%/*}/" 2>&1)" ]
}
mkdir -p /tmp/wtbox-e2e-x
echo "someone's" >/tmp/wtbox-e2e-x/file
chown -R 61500:61500 /tmp/wtbox-e2e-x
for d in /var/log /var/lib /var/spool/cron /var/lib/warrant /opt /srv /mnt \
    /media /tmp/wtbox-e2e-x /usr/local /root /home / /home/.wtbox3; do
	refused_home bad_home "$d"
done
refused_home bad_home /var/log --adopt
# A symbolic link as the home, or on the way to it.
ln -s /var/log /home/wtbox-e2e-link
mkdir -m 0755 /home/wtbox-e2e-real
ln -s /home/wtbox-e2e-real /home/wtbox-e2e-lnk
refused_home bad_home /home/wtbox-e2e-link
refused_home bad_home /home/wtbox-e2e-lnk/wtbox3
check "... nothing was created through the link" test ! -e /home/wtbox-e2e-real/wtbox3
refused_home bad_home /home/wtbox-e2e-none/wtbox3
# A directory above the home that someone else could swap.
mkdir -m 1777 /home/wtbox-e2e-open
mkdir -m 0755 /home/wtbox-e2e-other
chown 61500:61500 /home/wtbox-e2e-other
refused_home home_parent_unsafe /home/wtbox-e2e-open/wtbox3
refused_home home_parent_unsafe /home/wtbox-e2e-other/wtbox3
# Existing homes: someone else's, or root's with files in it.
mkdir -m 0755 /home/wtbox3
echo "not the box user's" >/home/wtbox3/file
refused_home home_not_empty /home/wtbox3
chown 61500:61500 /home/wtbox3
refused_home home_owned_by_other /home/wtbox3
rm -rf /home/wtbox3
check "home refusals: no wtbox3 account, group, drop-in or record" nothing_for wtbox3
step=$((step + 1))
setpriv --reuid=65534 --regid=65534 --clear-groups "$W" box init --profile container --user wtbox1 \
    >"$LOGS/$step.out" 2>"$LOGS/$step.err"
RC=$? OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
expect_rc "[P5] init as non-root is refused" 2 'refused (not_root)'
check "[P5] refusals created no user, no drop-in, no box directory" \
    sh -c "! getent passwd wtbox1 >/dev/null && [ ! -e '$(dropin wtbox1)' ] && [ ! -e '$BOX' ]"

# --- init, no password ---------------------------------------------------
wbe WARRANT_TEST_ROOT="$NOTCONT" init --profile container --user wtbox1 --uid 61001 --gid 61001
expect_rc "[P5] --profile container is refused where there is no container mark" 2 'refused (not_a_container)'
check "[P5] ... and creates nothing" nothing_for wtbox1
wb init --profile container --user wtbox1 --uid 61001 --gid 61001
expect_rc "init creates wtbox1 (no password)" 0 'without a password'
check "wtbox1 has uid/gid 61001 and home /home/wtbox1" \
    test "$(getent passwd wtbox1 | cut -d: -f3,4,6)" = "61001:61001:/home/wtbox1"
check "wtbox1 is in the admin group sudo" sh -c 'id -nG wtbox1 | grep -qw sudo'
check "drop-in is 0440 root:root" test "$(fstat "$(dropin wtbox1)" | cut -d' ' -f1-3)" = "440 root root"
check "drop-in grants NOPASSWD and passes visudo -cf" sh -c \
    "grep -qx 'wtbox1 ALL=(ALL:ALL) NOPASSWD: ALL' '$(dropin wtbox1)' && visudo -cf '$(dropin wtbox1)' >/dev/null"
check "no password: the account password is locked ('!')" test "$(shadow_pw wtbox1)" = '!'
check "home is wtbox1's, with the migration marker" sh -c \
    "[ \"\$(stat -c %u /home/wtbox1)\" = 61001 ] && [ -d /home/wtbox1/.warrant-box-chown-v1 ]"
check "sudo -n true as wtbox1 succeeds before a password" sudo_n_ok wtbox1

# --- re-run: idempotent, home untouched --------------------------------
echo "mine" >/home/wtbox1/notes.txt
chown 61001:61001 /home/wtbox1/notes.txt
touch -d '2001-02-03 04:05:06' /home/wtbox1/notes.txt
before_home=$(ls -la --time-style=+%s /home/wtbox1 | md5sum)
before_dropin=$(stat -c '%Y %i' "$(dropin wtbox1)")
wb init --profile container --user wtbox1 --uid 61001 --gid 61001
expect_rc "re-run of init succeeds" 0
check "re-run: one passwd line, one shadow line" test \
    "$(grep -c '^wtbox1:' /etc/passwd)$(grep -c '^wtbox1:' /etc/shadow)" = 11
check "re-run: wtbox1 once in the sudo group line" test \
    "$(getent group sudo | cut -d: -f4 | tr ',' '\n' | grep -cx wtbox1)" = 1
check "re-run: drop-in not rewritten, one rule line" sh -c \
    "[ \"\$(stat -c '%Y %i' '$(dropin wtbox1)')\" = '$before_dropin' ] && [ \"\$(grep -c NOPASSWD '$(dropin wtbox1)')\" = 1 ]"
check "re-run: home untouched" test "$(ls -la --time-style=+%s /home/wtbox1 | md5sum)" = "$before_home"

# --- an existing home is kept (no skeleton), migrated once -------------
mkdir -p /home/wtbox2/sub
echo "custom rc" >/home/wtbox2/.bashrc
echo "data" >/home/wtbox2/sub/file
wb init --profile container --user wtbox2 --uid 61002 --gid 61002
expect_rc "init refuses a root-owned home that holds files" 2 'refused (home_not_empty)'
check "... and creates nothing, chowns nothing" sh -c \
    "! getent passwd wtbox2 >/dev/null && [ \"\$(find /home/wtbox2 ! -uid 0 | wc -l)\" = 0 ]"
# Already the box user's (say a volume mounted for it): kept, and the
# root files in it become the user's.
chown 61002:61002 /home/wtbox2
wb init --profile container --user wtbox2 --uid 61002 --gid 61002
expect_rc "init wtbox2 over an existing home owned by its uid" 0
check "existing home kept: .bashrc as it was, no skeleton .profile" sh -c \
    "[ \"\$(cat /home/wtbox2/.bashrc)\" = 'custom rc' ] && [ ! -e /home/wtbox2/.profile ]"
check "one-time migration chowned the whole home" test \
    "$(find /home/wtbox2 ! -uid 61002 | wc -l)" = 0
touch /home/wtbox2/root-later
wb init --profile container --user wtbox2 --uid 61002 --gid 61002
check "migration is one-time: a later root file stays root's" test \
    "$RC $(stat -c %U /home/wtbox2/root-later)" = "0 root"

mkdir -p /home/wtbox3
chown 61500:61500 /home/wtbox3
wb init --profile container --user wtbox3 --uid 61003 --gid 61003
expect_rc "[P5] init refuses a home owned by someone else" 2 'home_owned_by_other'
check "[P5] ... and creates nothing" sh -c "! getent passwd wtbox3 >/dev/null && ! getent group 61003 >/dev/null"
rm -rf /home/wtbox3
mkdir -m 0755 /home/wtbox3
wb init --profile container --user wtbox3 --uid 61003 --gid 61003
expect_rc "init takes an empty root-owned home" 0
check "... and makes it wtbox3's" test "$(stat -c %u /home/wtbox3)" = 61003

# --- bad passwords: refused, nothing changed ---------------------------
snap() {
	printf '%s|%s|%s\n' "$(ls -la "$BOX" 2>&1)" "$(shadow_pw wtbox1)" \
	    "$(fstat "$(dropin wtbox1)")"
}
before=$(snap)
wbin 'abcdefg\n' passwd --user wtbox1
expect_rc "[P5] a 7-character password is refused" 2 'refused (bad_password)'
wbin "$(head -c 129 /dev/zero | tr '\0' x)" passwd --user wtbox1
expect_rc "[P5] a 129-character password is refused" 2 'refused (bad_password)'
wbin 'abcdefgh\nijklmnop\n' passwd --user wtbox1
expect_rc "[P5] a password with an embedded newline is refused" 2 'refused (bad_password)'
wbin 'abcdefgh\000ijkl' passwd --user wtbox1
expect_rc "[P5] a password with a NUL is refused" 2 'refused (bad_password)'
wbin 'abcdefghij\n' passwd --user root
expect_rc "[P5] passwd refuses a system account" 2 'refused (system_account)'
check "[P5] bad passwords changed nothing (store, shadow, drop-in)" test "$(snap)" = "$before"

# --- a password: stored encrypted, applied live ------------------------
CANARY="Wt$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')Q"
wbin "$CANARY\n" passwd --user wtbox1
expect_rc "passwd stores and applies a password" 0 'sudo asks for it'
check "box directory 0700 root, key 0600 root (32 bytes)" test \
    "$(fstat "$BOX" | cut -d' ' -f1-3)|$(fstat "$BOX/key")" = "700 root root|600 root root 32"
check "stored file is 0600 root, nonce||ciphertext||tag sized" test \
    "$(fstat "$BOX/wtbox1.pw")" = "600 root root $((12 + ${#CANARY} + 16))"
check "the drop-in is gone" test ! -e "$(dropin wtbox1)"
check "the account has a password hash" has_hash wtbox1
check "sudo -n true as wtbox1 fails after a password" sudo_n_fails wtbox1
sudo_prompt wtbox1 "$CANARY"
check "the real sudo prompt accepts the box password (pty)" sudo_accepted
sudo_prompt wtbox1 "not-$CANARY"
check "the real sudo prompt refuses a wrong password" sudo_refused
wb status --user wtbox1
expect_rc "status says the password is set" 0 '^password: set$'
wb status --user wtbox1 -j
expect_rc "status -j: password_set true, no drop-in" 0 '"password_set":true,"nopasswd_dropin":false'

wb init --profile container --user wtbox1
expect_rc "init with a stored password succeeds" 0 'asks for the box password'
check "init with a password: no drop-in" no_dropin wtbox1
check "init with a password: sudo -n true still fails" sudo_n_fails wtbox1
sudo_prompt wtbox1 "$CANARY"
check "after init the stored password still opens sudo" sudo_accepted

# --- --script: the same work, password-free ----------------------------
wb init --profile container --user wtbox1 --uid 61001 --gid 61001 --script
expect_rc "--script prints a script" 0 '^set -eu$'
cp "$OUT" "$T/script1.sh"
check "the script is valid sh and holds no password or chpasswd" sh -c \
    "grep -qx 'set -eu' '$T/script1.sh' && sh -n '$T/script1.sh' && ! grep -qF -- '$CANARY' '$T/script1.sh' && ! grep -q chpasswd '$T/script1.sh'"
wb init --profile container --user wtbox4 --uid 61004 --gid 61004 --script
cp "$OUT" "$T/script4.sh"
step=$((step + 1))
sh "$T/script4.sh" >"$LOGS/$step.out" 2>"$LOGS/$step.err"
RC=$? OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
expect_rc "the script provisions wtbox4 when piped to a root sh" 0 'sudo without a password'
check "script: uid/gid, admin group, 0440 drop-in, marker" sh -c \
    "[ \"\$(getent passwd wtbox4 | cut -d: -f3,4)\" = 61004:61004 ] && id -nG wtbox4 | grep -qw sudo && [ \"\$(stat -c '%a %U' '$(dropin wtbox4)')\" = '440 root' ] && [ -d /home/wtbox4/.warrant-box-chown-v1 ]"
check "script: sudo -n true as wtbox4 succeeds" sudo_n_ok wtbox4
sum4=$(md5sum <"$(dropin wtbox4)")
step=$((step + 1))
sh "$T/script4.sh" >"$LOGS/$step.out" 2>"$LOGS/$step.err"
RC=$? OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
check "script re-run: succeeds, one passwd line, same drop-in" test \
    "$RC $(grep -c '^wtbox4:' /etc/passwd) $(md5sum <"$(dropin wtbox4)")" = "0 1 $sum4"
printf 'wtbox4:%s\n' "$CANARY-4" | chpasswd
step=$((step + 1))
sh "$T/script4.sh" >"$LOGS/$step.out" 2>"$LOGS/$step.err"
RC=$? OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
expect_rc "script re-run after a password was set in the box" 0 'sudo asks for the password'
check "... the drop-in is gone" no_dropin wtbox4
check "... sudo -n true as wtbox4 fails" sudo_n_fails wtbox4
wb init --profile container --user root --script
step=$((step + 1))
sh "$OUT" >"$LOGS/$step.out" 2>"$LOGS/$step.err"
RC=$? OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
expect_rc "the script refuses a system account" 2 'refused (system_account)'

# --- accounts box init did not create: refused unless --adopt ----------
# sh_script FILE: run a generated script as root; $OUT, $ERR, $RC as wb.
sh_script() {
	step=$((step + 1))
	OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
	sh "$1" >"$OUT" 2>"$ERR"
	RC=$?
}
# acct USER: everything box init could change for USER: its passwd and
# shadow lines, groups, home (owner, mode, entries), drop-in, box record;
# and /var/log, where a symbolic link below points.
acct() {
	printf '%s|%s|%s|%s|%s|%s|%s\n' "$(getent passwd "$1")" "$(shadow_pw "$1")" \
	    "$(id -nG "$1")" "$(tree "$(getent passwd "$1" | cut -d: -f6)")" \
	    "$(fstat "$(dropin "$1")")" "$(cat "$BOX/$1.user" 2>&1)" "$(tree /var/log)"
}
# A human's account: its own password, a root file in its home.
groupadd -g 61006 wtbox6
useradd -m -u 61006 -g 61006 -s /bin/sh wtbox6
printf 'wtbox6:%s\n' 'a-human-password-6' | chpasswd
touch /home/wtbox6/rootfile
pw6=$(shadow_pw wtbox6)
before=$(acct wtbox6)
wb init --profile container --user wtbox6
expect_rc "init refuses an existing account it did not create" 2 'refused (not_box_user)'
wb init --profile container --user wtbox6 --uid 61006 --gid 61006 --home /home/wtbox6 --shell /bin/sh
expect_rc "... whatever it is given" 2 'refused (not_box_user)'
wbin 'abcdefghij\n' passwd --user wtbox6
expect_rc "passwd refuses an account box init did not create" 2 'refused (not_box_user)'
wb passwd --user wtbox6 --clear
expect_rc "passwd --clear refuses it too" 2 'refused (not_box_user)'
wb init --profile container --user wtbox6 --script
cp "$OUT" "$T/script6.sh"
sh_script "$T/script6.sh"
expect_rc "the script refuses it too" 2 'refused (not_box_user)'
printf '61099\n' >"$BOX/wtbox6.user"
chmod 600 "$BOX/wtbox6.user"
wb init --profile container --user wtbox6
expect_rc "a box record for another uid does not count" 2 'refused (not_box_user)'
sh_script "$T/script6.sh"
expect_rc "... for the script either" 2 'refused (not_box_user)'
rm -f "$BOX/wtbox6.user"
check "the refusals changed nothing (passwd, shadow, groups, home, drop-in, record)" \
    test "$(acct wtbox6)" = "$before"
check "... and stored no password" test ! -e "$BOX/wtbox6.pw"
wb status --user wtbox6 -j
expect_rc "status -j: box_user false" 0 '"box_user":false'
wb init --profile container --user wtbox6 --adopt
expect_rc "init --adopt takes it over, with a warning" 0 "warning: adopting 'wtbox6' (uid 61006)"
for w in "it joins the admin group sudo" \
    "every file in /home/wtbox6 becomes its own, once: chown -R -P -h 61006:61006" \
    "$(dropin wtbox6) grants 'wtbox6 ALL=(ALL:ALL) NOPASSWD: ALL'" \
    "recorded as a box user in $BOX/wtbox6.user"; do
	check "... the warning says: $w" grep -qF -- "$w" "$ERR"
done
check "... and nothing it does not do (uid, group, home, shell, lock)" sh -c \
    "! grep -qE 'its (uid|group|home|shell)|locked' '$ERR'"
check "... which it did: admin group, drop-in, chown, record" sh -c \
    "id -nG wtbox6 | grep -qw sudo && [ -e '$(dropin wtbox6)' ] && [ \"\$(stat -c %u /home/wtbox6/rootfile)\" = 61006 ] && [ \"\$(cat '$BOX/wtbox6.user')\" = 61006 ]"
check "... keeping the account's own password" test "$(shadow_pw wtbox6)" = "$pw6"
wb init --profile container --user wtbox6
expect_rc "once adopted, init needs no --adopt" 0 'box user wtbox6'
check "... and warns no more" sh -c "! grep -q warning '$ERR'"
wb status --user wtbox6 -j
expect_rc "status -j: box_user true" 0 '"box_user":true'

# An account whose home is /, and other homes init must not take: the
# checks in init and in the script agree, and refuse before any change.
groupadd -g 61007 wtbox7
useradd -M -d / -u 61007 -g 61007 -s /bin/sh wtbox7
# Another account's home, made or not yet, or a directory holding one.
wb init --profile container --user wtbox5 --uid 61005 --gid 61005 --home /home/wtbox6
expect_rc "init refuses another account's home" 2 'refused (home_in_use)'
usermod -d /home/wtbox-e2e-real/future wtbox7
wb init --profile container --user wtbox5 --uid 61005 --gid 61005 --home /home/wtbox-e2e-real
expect_rc "... or a directory that holds one" 2 'refused (home_in_use)'
wb init --profile container --user wtbox5 --uid 61005 --gid 61005 --home /home/wtbox-e2e-real/future
expect_rc "... even one not made yet" 2 'refused (home_in_use)'
wb init --profile container --user wtbox5 --uid 61005 --gid 61005 --home /home/wtbox-e2e-real/future --script
sh_script "$OUT"
expect_rc "... in the script too" 2 'refused (home_in_use)'
check "... and nothing was made" sh -c "[ ! -e /home/wtbox-e2e-real/future ] && [ ! -e '$BOX/wtbox5.user' ] && ! getent passwd wtbox5 >/dev/null && ! getent group wtbox5 >/dev/null"
usermod -d / wtbox7
wb init --profile container --user wtbox7 --adopt --script
cp "$OUT" "$T/script7.sh"
mkdir -m 0755 /home/wtbox7
echo "root's" >/home/wtbox7/file
while read -r code h; do
	usermod -d "$h" wtbox7
	before=$(acct wtbox7)
	wb init --profile container --user wtbox7 --adopt
	expect_rc "init --adopt refuses an account whose home is $h ($code)" 2 "refused ($code)"
	sh_script "$T/script7.sh"
	expect_rc "the script refuses it too, before any change ($code)" 2 "refused ($code)"
	check "... $h and wtbox7 unchanged" test "$(acct wtbox7)" = "$before"
done <<'EOF'
bad_home /
bad_home /var/lib/warrant
bad_home /var/log
bad_home /opt
bad_home /home
bad_home /home/.wtbox7
bad_home /home/wtbox-e2e-link
bad_home /home/wtbox-e2e-lnk/wtbox7
bad_home /home/wtbox-e2e-none/wtbox7
home_parent_unsafe /home/wtbox-e2e-open/wtbox7
home_parent_unsafe /home/wtbox-e2e-other/wtbox7
home_not_empty /home/wtbox7
EOF
chown 61500:61500 /home/wtbox7
usermod -d /home/wtbox7 wtbox7
sh_script "$T/script7.sh"
expect_rc "the script refuses a home someone else owns" 2 'refused (home_owned_by_other)'
check "... nothing for wtbox7: no drop-in, no record, not in sudo" sh -c \
    "[ ! -e '$(dropin wtbox7)' ] && [ ! -e '$BOX/wtbox7.user' ] && ! id -nG wtbox7 | grep -qw sudo"
rm -rf /home/wtbox7
mkdir -m 0755 /home/wtbox7
sh_script "$T/script7.sh"
expect_rc "the script adopts wtbox7 with an empty root home, with a warning" 0 \
    "warning: adopting 'wtbox7' (uid 61007)"
check "... the warning names the chown, the drop-in and the record" sh -c \
    "grep -qF 'chown -R -P -h 61007:61007' '$ERR' && grep -qF 'NOPASSWD: ALL' '$ERR' && grep -qF '$BOX/wtbox7.user' '$ERR'"
check "... which it did" sh -c \
    "[ \"\$(stat -c %u /home/wtbox7)\" = 61007 ] && [ -e '$(dropin wtbox7)' ] && [ \"\$(cat '$BOX/wtbox7.user')\" = 61007 ]"
wb init --profile container --user wtbox7
expect_rc "init then knows wtbox7 as a box user (the script's record)" 0 'box user wtbox7'

# --- live apply fails: stored, consistent, applies at next init --------
chmod 0 "$CHPASSWD"
wbin "$CANARY-2\n" passwd --user wtbox2
chmod "$CHPASSWD_MODE" "$CHPASSWD"
expect_rc "a failed live apply exits 1 naming the step" 1 "step 'chpasswd' failed"
check "... and says it applies at the next init" grep -q 'applies at the next' "$ERR"
check "... the password is stored, NOPASSWD kept (consistent)" sh -c \
    "[ -f '$BOX/wtbox2.pw' ] && [ -e '$(dropin wtbox2)' ] && [ \"\$(getent shadow wtbox2 | cut -d: -f2)\" = '!' ]"
check "... sudo -n true as wtbox2 still works" sudo_n_ok wtbox2
wb init --profile container --user wtbox2
expect_rc "the next init applies it" 0 'asks for the box password'
check "... drop-in gone for wtbox2" no_dropin wtbox2
check "... sudo -n true as wtbox2 fails" sudo_n_fails wtbox2
sudo_prompt wtbox2 "$CANARY-2"
check "... and wtbox2's password opens sudo" sudo_accepted

# --- a password for a user not created yet ------------------------------
# 128 characters, the upper bound, holding the canary.
P5="$CANARY$(head -c $((128 - ${#CANARY})) /dev/zero | tr '\0' y)"
wbin "$P5\n" passwd --user wtbox5
expect_rc "passwd for a user not on this host stores it for the next init" 0 'next warrant box init'
check "a 128-character password is accepted and stored sealed" test \
    "${#P5} $(fstat "$BOX/wtbox5.pw")" = "128 600 root root $((12 + 128 + 16))"
wb init --profile container --user wtbox5 --uid 61005 --gid 61005
expect_rc "init creates wtbox5 with the stored password" 0 'asks for the box password'
check "wtbox5: the stored password's hash is set" has_hash wtbox5
check "wtbox5: no drop-in" no_dropin wtbox5

# --- clear --------------------------------------------------------------
wb passwd --user wtbox1 --clear
expect_rc "passwd --clear succeeds" 0 'cleared'
check "clear: stored file gone, drop-in back (0440 root)" sh -c \
    "[ ! -e '$BOX/wtbox1.pw' ] && [ \"\$(stat -c '%a %U' '$(dropin wtbox1)')\" = '440 root' ]"
check "clear: the account password is locked ('!'), not empty" test "$(shadow_pw wtbox1)" = '!'
check "clear: sudo -n true as wtbox1 succeeds again" sudo_n_ok wtbox1
wb status --user wtbox1
expect_rc "status says not set" 0 '^password: not set$'
rm -f "$(dropin wtbox1)"
sudo_prompt wtbox1 ""
check "no password and no drop-in: sudo fails (an empty answer is refused)" sudo_refused
sudo_prompt wtbox1 "$CANARY"
check "no password and no drop-in: the old password is refused too" sudo_refused
wb init --profile container --user wtbox1
expect_rc "init after the drop-in was removed succeeds" 0 'without a password'
check "... and restores the drop-in" test -e "$(dropin wtbox1)"

# --- on a terminal: asked twice, without echo ----------------------------
cat >"$T/tty.exp" <<'EOF'
set timeout 30
log_user 1
spawn $env(W) box passwd --user $env(BU)
expect "New box password for $env(BU): " { send -- "$env(P1)\r" } timeout { exit 1 }
expect "Retype it: " { send -- "$env(P2)\r" } timeout { exit 1 }
expect eof
lassign [wait] pid spawnid oserr code
puts "EXIT=$code"
EOF
tty_passwd() {
	step=$((step + 1))
	SESSION="$LOGS/$step.pty"
	W=$W BU=$1 P1=$2 P2=$3 expect -f "$T/tty.exp" 2>&1 | tr -d '\r' >"$SESSION"
}
tty_passwd wtbox1 "$CANARY-t1" "$CANARY-t2"
check "terminal: two different answers are refused (exit 2), nothing stored" sh -c \
    "grep -q '^EXIT=2' '$SESSION' && grep -q password_mismatch '$SESSION' && [ ! -e '$BOX/wtbox1.pw' ]"
tty_passwd wtbox1 "$CANARY-tt" "$CANARY-tt"
check "terminal: the same answer twice sets the password" sh -c \
    "grep -q '^EXIT=0' '$SESSION' && [ -f '$BOX/wtbox1.pw' ] && [ ! -e '$(dropin wtbox1)' ]"
check "terminal: nothing was echoed" sh -c \
    "grep -q 'Retype it: ' '$SESSION' && ! grep -qF -- '$CANARY' '$SESSION'"
sudo_prompt wtbox1 "$CANARY-tt"
check "terminal-set password opens sudo" sudo_accepted
wb passwd --user wtbox1 --clear
wb passwd --user wtbox2 --clear
wb passwd --user wtbox5 --clear

# --- profile agent (the default): no sudo, a requester of the reviewer ---
section "profile agent"
useradd -M -d /nonexistent -u 61010 -s /bin/sh "$REV" 2>/dev/null
DIR=/run/warrant/$REV
TMPF=/etc/tmpfiles.d/warrant-$REV.conf
# req_snap: everything the requester set-up could change: the group, the
# directories (owner, mode; ctime for the reviewer's), the tmpfiles.d
# entry, wtbox8's account.
req_snap() {
	printf '%s|%s|%s|%s|%s|%s\n' "$(getent group "warrant-$REV")" \
	    "$(stat -c '%U %G %a' /run/warrant; stat -c '%U %G %a %Z' "$DIR" 2>&1)" \
	    "$(stat -c '%i %Y %a' "$TMPF" 2>&1; cat "$TMPF" 2>&1)" \
	    "$(getent passwd wtbox8)" "$(id -nG wtbox8 2>&1)" "$(fstat "$(dropin wtbox8)")"
}
mkdir -p /run/warrant
before=$(req_snap)
wb init --user wtbox8 --uid 61008 --gid 61008
expect_rc "[P5] agent profile without --reviewer (and no SUDO_USER) is a usage error" 2 'needs --reviewer REVIEWER'
wbe SUDO_USER=root init --user wtbox8 --uid 61008 --gid 61008
expect_rc "[P5] ... SUDO_USER=root is not taken as the reviewer" 2 'needs --reviewer REVIEWER'
wb init --user wtbox8 --uid 61008 --gid 61008 --reviewer root
expect_rc "[P5] init refuses root as the reviewer" 2 'refused (root_reviewer)'
wb init --user wtbox8 --uid 61008 --gid 61008 --reviewer wtnosuchrev
expect_rc "[P5] init refuses a reviewer that does not exist" 2 'refused (unknown_reviewer)'
wb init --user wtbox8 --uid 61008 --gid 61008 --reviewer Bad.Rev
expect_rc "[P5] init refuses a reviewer name warrant does not accept" 2 'refused (invalid_name)'
wb init --user wtbox8 --uid 61008 --gid 61008 --reviewer abcdefghijklmnopqrstuvwxy
expect_rc "[P5] init refuses a reviewer whose group name would be too long" 2 'refused (invalid_name)'
wb init --user wtbox8 --uid 61008 --gid 61008 --reviewer wtbox8
expect_rc "[P5] init refuses a box user that is its own reviewer" 2 'refused (same_user)'
wb init --user wtbox8 --profile container --reviewer "$REV"
expect_rc "--reviewer with --profile container is a usage error" 2 'goes with --profile agent'
wb init --user wtbox8 --profile sometimes
expect_rc "an unknown --profile is a usage error" 2 'agent or container'
wbe WARRANT_TEST_ROOT="$NOTCONT" init --user wtbox8 --uid 61008 --gid 61008 --profile container
expect_rc "[P5] --profile container is refused on a machine that is not a container" 2 'refused (not_a_container)'
ln -s /tmp "$DIR"
wb init --user wtbox8 --uid 61008 --gid 61008 --reviewer "$REV"
expect_rc "[P5] init refuses a symbolic link as the reviewer's directory" 2 'refused (bad_directory)'
rm "$DIR"
step=$((step + 1))
setpriv --reuid=65534 --regid=65534 --clear-groups "$W" box init --user wtbox8 \
    --reviewer "$REV" >"$LOGS/$step.out" 2>"$LOGS/$step.err"
RC=$? OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
expect_rc "[P5] agent init as non-root is refused" 2 'refused (not_root)'
is "[P5] the refusals changed nothing (group, directories, tmpfiles.d, account)" "$(req_snap)" "$before"
check "[P5] ... and made no wtbox8 or record" nothing_for wtbox8

# The agent profile needs no container.
wbe WARRANT_TEST_ROOT="$NOTCONT" init --user wtbox8 --uid 61008 --gid 61008 --reviewer "$REV"
expect_rc "init --user wtbox8 --reviewer $REV (the agent profile by default)" 0 'profile agent'
check "wtbox8 is in neither sudo nor wheel" sh -c "! id -nG wtbox8 | grep -qwE 'sudo|wheel'"
check "wtbox8 has no sudoers drop-in" no_dropin wtbox8
check "sudo -n true as wtbox8 fails" sudo_n_fails wtbox8
check "su wtbox8 -c 'sudo -n true' fails" sh -c "! su -s /bin/sh wtbox8 -c 'sudo -n true' </dev/null >/dev/null 2>&1"
check "sudo -l -U wtbox8: not allowed to run sudo" sh -c "LC_ALL=C sudo -l -U wtbox8 | grep -q 'is not allowed to run sudo'"
check "wtbox8 is in warrant-$REV" sh -c "id -nG wtbox8 | grep -qw 'warrant-$REV'"
is "/run/warrant is root root 755" "$(stat -c '%U %G %a' /run/warrant)" "root root 755"
is "$DIR is $REV warrant-$REV 2750" "$(stat -c '%U %G %a %F' "$DIR")" "$REV warrant-$REV 2750 directory"
is "$TMPF is root's, 0644" "$(fstat "$TMPF" | cut -d' ' -f1-3)" "644 root root"
is "$TMPF holds exactly the two lines (and its comment)" "$(grep -v '^#' "$TMPF")" \
    "d /run/warrant 0755 root root -
d /run/warrant/$REV 2750 $REV warrant-$REV -"
check "the home is wtbox8's, with the migration marker" sh -c \
    "[ \"\$(stat -c %u /home/wtbox8)\" = 61008 ] && [ -d /home/wtbox8/.warrant-box-chown-v1 ]"
check "no password: the account password is locked ('!')" test "$(shadow_pw wtbox8)" = '!'
check "the output names the group, the directory and the tmpfiles.d entry" sh -c \
    "grep -qx 'group warrant-$REV: created (gid [0-9]*)' '$OUT' && grep -qF 'directory $DIR: created ($REV:warrant-$REV 2750)' '$OUT' && grep -qx 'tmpfiles $TMPF: written' '$OUT' && grep -qF 'requester wtbox8: added to warrant-$REV' '$OUT'"

before=$(req_snap)
wb init --user wtbox8 --uid 61008 --gid 61008 --reviewer "$REV"
expect_rc "re-run of agent init succeeds" 0 'profile agent'
is "re-run: nothing changed (group, directories incl. ctime, tmpfiles.d inode and mtime)" "$(req_snap)" "$before"
check "re-run: says 'already' for each part, creates nothing" sh -c \
    "[ \"\$(grep -c 'already' '$OUT')\" = 5 ] && ! grep -qE 'created|added|written|fixed|removed' '$OUT'"

wb status --user wtbox8
expect_rc "status: profile agent" 0 '^profile: agent$'
check "status: requester of $REV, no sudo rules, no warning" sh -c \
    "grep -qx 'requester of: $REV' '$OUT' && grep -qx 'sudo: no rules' '$OUT' && ! grep -q warning '$OUT'"
wb status --user wtbox8 -j
jcheck "status -j: profile, requester_of, sudo_rules, no warning" \
    'j["profile"] == "agent" and j["requester_of"] == ["wtboxrev"] and j["sudo_rules"] == [] and j["sudo_warning"] is False and j["nopasswd_dropin"] is False and j["admin_member"] is False' "$OUT"

before=$(req_snap)
wbin 'abcdefghij\n' passwd --user wtbox8
expect_rc "[P5] passwd refuses an agent-profile user" 2 'refused (not_container_profile)'
wb passwd --user wtbox8 --clear
expect_rc "[P5] passwd --clear refuses it too (it would install NOPASSWD)" 2 'refused (not_container_profile)'
is "[P5] ... nothing changed (no drop-in, same account)" "$(req_snap)" "$before"
check "[P5] ... and nothing stored" test ! -e "$BOX/wtbox8.pw"

# Any other sudo rule is warned about, by status and by init.
printf 'wtbox8 ALL=(root) NOPASSWD: /usr/bin/true\n' >"$T/extra"
chmod 0440 "$T/extra"
mv "$T/extra" /etc/sudoers.d/wtbox-e2e-extra
wb status --user wtbox8
expect_rc "status warns about a sudo rule an agent-profile user holds" 0 \
    '^warning: wtbox8 holds sudo rules'
check "... and lists it" grep -qxF '  (root) NOPASSWD: /usr/bin/true' "$OUT"
wb status --user wtbox8 -j
jcheck "status -j: sudo_rules lists it, sudo_warning true" \
    'j["sudo_rules"] == ["(root) NOPASSWD: /usr/bin/true"] and j["sudo_warning"] is True' "$OUT"
wb init --user wtbox8 --reviewer "$REV"
expect_rc "init warns about it too" 0 'wtbox8 still holds sudo rules'
rm -f /etc/sudoers.d/wtbox-e2e-extra

# A box user an earlier version made (admin group, NOPASSWD drop-in) is
# cleaned by init --profile agent, which says so.
# (podman's mark this time)
mkdir -p "$T/podman/run"
touch "$T/podman/run/.containerenv"
wbe WARRANT_TEST_ROOT="$T/podman" init --user wtbox8 --profile container
expect_rc "wtbox8 made a container-profile user (an earlier version's box user)" 0 'profile container'
check "... with sudo and the drop-in" sh -c "id -nG wtbox8 | grep -qw sudo && [ -e '$(dropin wtbox8)' ]"
check "... sudo -n true works" sudo_n_ok wtbox8
wb status --user wtbox8 -j
jcheck "status -j: profile container" 'j["profile"] == "container"' "$OUT"
wbe WARRANT_TEST_ROOT="$NOTCONT" status --user wtbox8
expect_rc "status on a host that is not a container warns about its sudo" 0 \
    '^warning: wtbox8 holds sudo rules on this host, which is not a container'
wb init --user wtbox8 --profile agent --reviewer "$REV"
expect_rc "init --profile agent on it succeeds" 0 'profile agent'
check "... saying it removed the admin group and the drop-in" sh -c \
    "grep -qx 'wtbox8: removed from the admin group sudo (the agent profile has no sudo)' '$OUT' && grep -qx 'wtbox8: removed the NOPASSWD sudoers drop-in $(dropin wtbox8)' '$OUT'"
check "... which are gone" sh -c "! id -nG wtbox8 | grep -qw sudo && [ ! -e '$(dropin wtbox8)' ]"
check "... sudo -n true as wtbox8 fails again" sudo_n_fails wtbox8
check "... and it is still a requester of $REV" sh -c "id -nG wtbox8 | grep -qw 'warrant-$REV'"

# A directory with the wrong owner or mode is put right.
chown root:root "$DIR"
chmod 0770 "$DIR"
wb init --user wtbox8 --reviewer "$REV"
expect_rc "init fixes the directory's owner and mode, and says so" 0 "directory $DIR: fixed"
is "... $DIR is $REV warrant-$REV 2750 again" "$(stat -c '%U %G %a' "$DIR")" "$REV warrant-$REV 2750"

# --script, agent profile: the same set-up as a root script.
wbe SUDO_USER="$REV" init --user wtbox9 --uid 61009 --gid 61009 --script
expect_rc "--script takes the reviewer from SUDO_USER" 0 "^reviewer='$REV'$"
check "... and says so on stderr" grep -qxF "reviewer: $REV (from \$SUDO_USER)" "$ERR"
cp "$OUT" "$T/script9.sh"
check "the agent script is valid sh, with no drop-in and no admin group" sh -c \
    "sh -n '$T/script9.sh' && grep -qx \"profile='agent'\" '$T/script9.sh'"
wb init --user wtbox9 --uid 61009 --gid 61009 --reviewer wtnosuchrev --script
sh_script "$OUT"
expect_rc "the agent script refuses an unknown reviewer" 2 'refused (unknown_reviewer)'
check "... before any change" nothing_for wtbox9
sh_script "$T/script9.sh"
expect_rc "the agent script provisions wtbox9" 0 "profile agent, a requester of $REV"
check "script: wtbox9 in warrant-$REV, not in sudo, no drop-in, no sudo" sh -c \
    "id -nG wtbox9 | grep -qw 'warrant-$REV' && ! id -nG wtbox9 | grep -qw sudo && [ ! -e '$(dropin wtbox9)' ] && ! su -s /bin/sh wtbox9 -c 'sudo -n true' </dev/null >/dev/null 2>&1"
is "script: $DIR is $REV warrant-$REV 2750" "$(stat -c '%U %G %a' "$DIR")" "$REV warrant-$REV 2750"
is "script: the tmpfiles.d entry is the one warrant writes" "$(fstat "$TMPF" | cut -d' ' -f1-3)|$(grep -v '^#' "$TMPF")" \
    "644 root root|d /run/warrant 0755 root root -
d /run/warrant/$REV 2750 $REV warrant-$REV -"
wb init --user wtbox9 --profile container --script
sh_script "$OUT"
check "the container script gives wtbox9 sudo" sudo_n_ok wtbox9
sh_script "$T/script9.sh"
expect_rc "the agent script on it again succeeds" 0 "profile agent"
check "... and says it removed the admin group and the drop-in" sh -c \
    "grep -qx 'wtbox9: removed from the admin group sudo (the agent profile has no sudo)' '$OUT' && grep -qF 'wtbox9: removed the NOPASSWD sudoers drop-in' '$OUT'"
check "... sudo -n true as wtbox9 fails" sudo_n_fails wtbox9
wb init --user wtbox9 --reviewer "$REV"
expect_rc "init then changes nothing the script did" 0 'profile agent'
check "... (already, for every part)" sh -c "! grep -qE 'created|added|written|fixed|removed' '$OUT'"

# --- box remove: undo init, only for box users --------------------------
section "box remove"
check "box init recorded the requester group it made (requesters remove --all may delete it)" \
    test "$(cat "$BOX/warrant-$REV.group" 2>&1)" = "$(getent group "warrant-$REV" | cut -d: -f3)"
check "init recorded wtbox8 as created by it, wtbox6 (adopted) as not" sh -c \
    "[ \"\$(cat '$BOX/wtbox8.user')\" = '61008
created' ] && [ \"\$(cat '$BOX/wtbox6.user')\" = 61006 ]"
check "... and so did the scripts (wtbox9 created, wtbox7 adopted)" sh -c \
    "[ \"\$(cat '$BOX/wtbox9.user')\" = '61009
created' ] && [ \"\$(cat '$BOX/wtbox7.user')\" = 61007 ]"
wb remove --user wtbox1 --delete-home
expect_rc "--delete-home without --delete-user is a usage error" 2 'goes with --delete-user'
wb remove
expect_rc "remove without --user is a usage error" 2 'needs --user'
wb remove --user daemon
expect_rc "[P5] remove refuses a system account" 2 'refused (system_account)'
wb remove --user Bad.Name
expect_rc "[P5] remove refuses a name warrant does not accept" 2 'refused (invalid_name)'
step=$((step + 1))
setpriv --reuid=65534 --regid=65534 --clear-groups "$W" box remove --user wtbox1 \
    >"$LOGS/$step.out" 2>"$LOGS/$step.err"
RC=$? OUT="$LOGS/$step.out" ERR="$LOGS/$step.err"
expect_rc "[P5] remove as non-root is refused" 2 'refused (not_root)'
before=$(acct wtbox6)
wb remove --user wtbox6 --delete-user
expect_rc "[P5] --delete-user refuses an account init adopted" 2 'refused (not_created)'
check "[P5] ... which is unchanged (account, groups, home, drop-in, record)" test "$(acct wtbox6)" = "$before"
before=$(acct wtbox7)
wb remove --user wtbox7 --delete-user --delete-home
expect_rc "[P5] ... and one the script adopted" 2 'refused (not_created)'
check "[P5] ... unchanged" test "$(acct wtbox7)" = "$before"
# A human's account: nothing of warrant's to remove, nothing to delete.
before=$(acct "$REV")
wb remove --user "$REV" --delete-user
expect_rc "[P5] --delete-user refuses an account warrant box did not make" 2 'refused (not_box_user)'
wb remove --user "$REV"
expect_rc "remove of an account that is no box user, with nothing of warrant's, removes nothing" 0 \
    "^$REV: nothing to remove (not a box user)$"
cp "$(dropin wtbox1)" "$(dropin "$REV")"
wb remove --user "$REV"
expect_rc "[P5] ... but is refused when a drop-in in its name is there" 2 'refused (not_box_user)'
check "[P5] ... which stays (a human looks at it)" test -e "$(dropin "$REV")"
rm -f "$(dropin "$REV")"
check "[P5] the refusals changed nothing for $REV" test "$(acct "$REV")" = "$before"

# wtbox1 (container profile, created): a route key, a stored password.
wb key --user wtbox1
expect_rc "wtbox1 gets a box password route key" 0
wbin "$CANARY-r1\n" passwd --user wtbox1
expect_rc "... and a stored password" 0 'sudo asks for it'
wb remove --user wtbox1
expect_rc "box remove --user wtbox1 (the account stays)" 0 'account wtbox1 (uid 61001): kept'
for l in "wtbox1: removed from the admin group sudo (box remove)" \
    "box password route key $BOX/api/wtbox1.key: removed" \
    "stored box password $BOX/wtbox1.pw: removed" "record $BOX/wtbox1.user: removed"; do
	check "... says: $l" grep -qxF -- "$l" "$OUT"
done
check "... which are gone, the account kept" sh -c \
    "! id -nG wtbox1 | grep -qw sudo && [ ! -e '$BOX/api/wtbox1.key' ] && [ ! -e '$BOX/wtbox1.pw' ] && [ ! -e '$BOX/wtbox1.user' ] && getent passwd wtbox1 >/dev/null"
check "... sudo -n true as wtbox1 fails" sudo_n_fails wtbox1
wb status --user wtbox1 -j
jcheck "... status: no box user, no sudo, no password" \
    'not j["box_user"] and not j["admin_member"] and not j["nopasswd_dropin"] and not j["password_set"]' "$OUT"
wb passwd --user wtbox1 --clear
expect_rc "... it is not warrant's any more: passwd refuses it" 2 'refused (not_box_user)'
wb remove --user wtbox1
expect_rc "a second remove removes nothing and says so" 0 '^wtbox1: nothing to remove (not a box user)$'
wbe SUDO_USER=root init --user wtbox1 --profile container
expect_rc "... and init needs --adopt to take it again" 2 'refused (not_box_user)'
# The container profile's drop-in (no password stored).
wb passwd --user wtbox2 --clear
wb remove --user wtbox2
expect_rc "remove takes the NOPASSWD drop-in of a container-profile user" 0 \
    "^sudoers drop-in $(dropin wtbox2): removed$"
check "... gone; sudo -n true as wtbox2 fails" sh -c "[ ! -e '$(dropin wtbox2)' ] && ! id -nG wtbox2 | grep -qw sudo"
check "... and sudo -n true as wtbox2 fails" sudo_n_fails wtbox2

# wtbox8 (agent profile, created): the account goes, with its home.
wb remove --user wtbox8 --delete-user --delete-home
expect_rc "box remove --user wtbox8 --delete-user --delete-home" 0 'account wtbox8 (uid 61008): deleted'
for l in "requester wtbox8: removed from warrant-$REV" "home /home/wtbox8: deleted" \
    "record $BOX/wtbox8.user: removed"; do
	check "... says: $l" grep -qF -- "$l" "$OUT"
done
check "... the account, its group, home and record are gone" sh -c \
    "! getent passwd wtbox8 >/dev/null && ! getent group wtbox8 >/dev/null && [ ! -e /home/wtbox8 ] && [ ! -e '$BOX/wtbox8.user' ]"
check "... the requester group stays (requesters remove --all takes it)" getent group "warrant-$REV"
b=$(ls -A "$BOX")
wb remove --user wtbox8 --delete-user --delete-home
expect_rc "a second run removes nothing and says so" 0 '^box user wtbox8: nothing to remove$'
is "... and changes nothing in the box directory" "$(ls -A "$BOX")" "$b"
wb remove --user wtbox9 --delete-user
expect_rc "--delete-user deletes an account the script created" 0 'account wtbox9 (uid 61009): deleted'
check "... keeping its home without --delete-home" test -d /home/wtbox9

# --- box remove --delete-user: all of the agent goes ---------------------
section "box remove --delete-user: processes, files, retired ids"
wb remove --user wtbox5 --stop-sessions
expect_rc "--stop-sessions without --delete-user is a usage error" 2 '--stop-sessions goes with --delete-user'
wb remove --user wtbox5 --delete-files
expect_rc "--delete-files without --delete-user is a usage error" 2 '--delete-files goes with --delete-user'
# wtboxa: its uid is box init's choice, above every one in use, which is
# also what useradd would give next.
wb init --user wtboxa --reviewer "$REV"
expect_rc "box init wtboxa (no --uid)" 0 'profile agent'
A_UID=$(id -u wtboxa) A_GID=$(id -g wtboxa)
# A session's process; a process in its own user and mount namespaces,
# chrooted into a root that holds only sleep and its libraries (userdel
# skips a process whose root is not its own); pid 1 of its own PID
# namespace, which ignores SIGTERM from outside; and root entering the
# agent's user namespace keeping uid 0, the agent's only by the
# namespace's owner. Each started here, its pid kept.
ROOTDIR=/tmp/wtbox-e2e-root
mkdir -p "$ROOTDIR/bin"
cp /bin/sleep "$ROOTDIR/bin/"
for lib in $(ldd /bin/sleep | grep -o '/[^ ]*'); do
	mkdir -p "$ROOTDIR$(dirname "$lib")"
	cp "$lib" "$ROOTDIR$lib"
done
chmod -R a+rX "$ROOTDIR"
# spawn_as USER CMD...: CMD as USER in the background, without the
# suite's lock; its pid (setpriv and env exec it) in SPAWNED, and kept.
spawn_as() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --init-groups env -i \
	    HOME=/ PATH=/usr/bin:/bin LANG=C "$@" </dev/null >/dev/null 2>&1 9>&- &
	SPAWNED=$!
	SESSION_PIDS="$SESSION_PIDS $SPAWNED"
}
spawn_as wtboxa sleep 7301
P_SESSION=$SPAWNED
if as_box wtboxa unshare -Ur --mount --pid --fork true </dev/null >/dev/null 2>&1; then
	spawn_as wtboxa unshare -Ur --mount "$(command -v chroot)" "$ROOTDIR" /bin/sleep 7302
	P_CHROOT=$SPAWNED
	spawn_as wtboxa unshare -Ur --pid --fork sleep 7303
	wait_for '[ -n "$(running_pids "^sleep 7303")" ] && [ "$(readlink /proc/$P_CHROOT/root)" = "$ROOTDIR" ]' 30 ||
	    bail "the namespaced processes did not start"
	P_PIDNS=$(running_pids "^sleep 7303")
	nsenter -t "$P_CHROOT" --user --preserve-credentials sleep 7304 </dev/null >/dev/null 2>&1 9>&- &
	P_ROOTIN=$!
	SESSION_PIDS="$SESSION_PIDS $P_PIDNS $P_ROOTIN"
	wait_for '[ "$(readlink /proc/$P_ROOTIN/ns/user)" = "$(readlink /proc/$P_CHROOT/ns/user)" ]' 30 ||
	    bail "root did not enter the agent's user namespace"
	NS=1
else
	NS=
fi
# live: neither gone nor a zombie
live() { [ -n "$(ps -o stat= -p "$1" 2>/dev/null | grep -v '^Z')" ]; }
not_live() { ! live "$1"; }
all_live() { for p in $SESSION_PIDS; do live "$p" || return 1; done; }
# Its files where every user may write.
as_box wtboxa sh -c 'echo x >/tmp/wtbox-e2e-file; mkdir /tmp/wtbox-e2e-dir; echo y >/tmp/wtbox-e2e-dir/f; echo z >/dev/shm/wtbox-e2e-shm'
before=$(acct wtboxa)
wb remove --user wtboxa --delete-user --delete-home
expect_rc "[P5] --delete-user with a live session of the agent is refused" 2 'refused (user_has_processes)'
check "... naming the session's process" grep -q "^  pid $P_SESSION: sleep 7301\$" "$ERR"
check "... telling what to do" grep -qF 'give --stop-sessions' "$ERR"
if [ -n "$NS" ]; then
	check "... and the chrooted one in its own namespaces" grep -qF \
	    "pid $P_CHROOT: /bin/sleep 7302 (chrooted to $ROOTDIR; its own user namespace; its own mount namespace)" "$ERR"
	check "... and pid 1 of its own PID namespace" grep -qF \
	    "pid $P_PIDNS: sleep 7303 (pid 1 in its own PID namespace; its own user namespace)" "$ERR"
	check "... and root's in the agent's user namespace" grep -qF \
	    "pid $P_ROOTIN: sleep 7304 (uid 0, in a user namespace of uid $A_UID; its own user namespace)" "$ERR"
else
	skip "the namespaced processes" "unprivileged user namespaces are not allowed here"
fi
check "[P5] ... and changes nothing: the account" test "$(acct wtboxa)" = "$before"
check "[P5] ... every process still runs" all_live
# A set-user-ID program of the agent's in /tmp.
as_box wtboxa sh -c 'cp /bin/true /tmp/wtbox-e2e-su && chmod 4755 /tmp/wtbox-e2e-su'
wb remove --user wtboxa --delete-user --delete-home --stop-sessions
expect_rc "[P5] a set-user-ID file of the uid in /tmp refuses --delete-user without --delete-files" 2 \
    'refused (setid_files)'
check "... naming it" grep -qxF '  /tmp/wtbox-e2e-su (set-user-ID file, mode 4755)' "$ERR"
for f in "/tmp/wtbox-e2e-file (file)" "/tmp/wtbox-e2e-dir (directory)" "/dev/shm/wtbox-e2e-shm (file)"; do
	check "... listing the rest: $f" grep -qxF "  $f" "$ERR"
done
check "[P5] ... and changes nothing: the account, its files" sh -c \
    '[ "$1" = "$2" ] && [ -u /tmp/wtbox-e2e-su ] && [ -e /dev/shm/wtbox-e2e-shm ]' sh "$(acct wtboxa)" "$before"
check "[P5] ... every process still runs" all_live
wb remove --user wtboxa --delete-user --delete-home --stop-sessions --delete-files
expect_rc "--delete-user --stop-sessions --delete-files" 0 "account wtboxa (uid $A_UID): deleted"
check "... lists the processes it stops" grep -q "^  pid $P_SESSION: sleep 7301\$" "$OUT"
for l in "logind: no session of uid $A_UID (loginctl terminate-user skipped)" \
    "processes of wtboxa: none left" "  /tmp/wtbox-e2e-su (set-user-ID file, mode 4755): removed" \
    "  /tmp/wtbox-e2e-file (file): removed" "  /tmp/wtbox-e2e-dir (directory): removed" \
    "  /dev/shm/wtbox-e2e-shm (file): removed" \
    "uid $A_UID: retired ($BOX/retired/uid.$A_UID: box init never gives it again)" \
    "gid $A_GID: retired ($BOX/retired/gid.$A_GID: box init never gives it again)"; do
	check "... says: $l" grep -qxF -- "$l" "$OUT"
done
check "... SIGTERM first" grep -qx 'SIGTERM: sent to [1-9][0-9]*' "$OUT"
if [ -n "$NS" ]; then
	check "... SIGKILL to what ignored it (pid 1 of a PID namespace)" grep -qx \
	    'SIGKILL: sent to [1-9][0-9]* still running after 5 s' "$OUT"
fi
for p in $SESSION_PIDS; do
	check "... process $p is gone" not_live "$p"
done
check "... the files are gone" sh -c \
    '[ ! -e /tmp/wtbox-e2e-su ] && [ ! -e /tmp/wtbox-e2e-file ] && [ ! -e /tmp/wtbox-e2e-dir ] && [ ! -e /dev/shm/wtbox-e2e-shm ]'
check "... what is not the agent's stays (the chroot's root, root's)" test -x "$ROOTDIR/bin/sleep"
check "... and the account with its home" sh -c "! getent passwd wtboxa >/dev/null && [ ! -e /home/wtboxa ]"
wait 2>/dev/null
SESSION_PIDS=
check "the retired uid is recorded (root's, 0600, in a 0700 directory)" sh -c \
    "[ \"\$(cat '$BOX/retired/uid.$A_UID')\" = wtboxa ] && [ \"\$(stat -c '%a %U' '$BOX/retired/uid.$A_UID')\" = '600 root' ] && [ \"\$(stat -c '%a %U' '$BOX/retired')\" = '700 root' ]"
wb init --user wtboxc --reviewer "$REV" --uid "$A_UID"
expect_rc "[P5] box init refuses the retired uid" 2 'refused (uid_retired)'
wb init --user wtboxc --reviewer "$REV" --gid "$A_GID"
expect_rc "[P5] ... and the retired gid" 2 'refused (gid_retired)'
check "[P5] ... creating nothing" sh -c "! getent passwd wtboxc >/dev/null && ! getent group wtboxc >/dev/null"
# The next account box init makes: useradd's choice now (the highest uid
# in use, plus one) could be the retired uid; box init's is not.
wb init --user wtboxb --reviewer "$REV"
expect_rc "box init wtboxb (no --uid) after wtboxa went" 0 'profile agent'
B_UID=$(id -u wtboxb)
check "... gets another uid than the retired $A_UID ($B_UID)" test "$B_UID" -ne "$A_UID"
check "... and another gid than the retired $A_GID" test "$(id -g wtboxb)" -ne "$A_GID"
# Without --delete-files: its files are listed, kept, with a warning.
as_box wtboxb sh -c 'echo x >/tmp/wtbox-e2e-b; echo y >/dev/shm/wtbox-e2e-b'
wb remove --user wtboxb --delete-user
expect_rc "--delete-user without --delete-files, no set-id file" 0 "account wtboxb (uid $B_UID): deleted"
for l in "files of wtboxb (uid $B_UID) in /tmp, /var/tmp, /dev/shm, /run, /var/mail and /var/spool/cron/crontabs: kept" \
    "  /tmp/wtbox-e2e-b (file)" "  /dev/shm/wtbox-e2e-b (file)"; do
	check "... says: $l" grep -qxF -- "$l" "$OUT"
done
check "... warns who would own them" grep -qF "an account given it another way (useradd -u $B_UID) would own them" "$OUT"
check "... which stay" sh -c "[ \"\$(stat -c %u /tmp/wtbox-e2e-b /dev/shm/wtbox-e2e-b | sort -u)\" = $B_UID ]"
check "... and its uid is retired too" test -e "$BOX/retired/uid.$B_UID"

# --- no plaintext anywhere -----------------------------------------------
# A planted copy is the positive control: the search must find it, and
# nothing else.
CONTROL=$(mktemp -d /tmp/warrant-box-control.XXXXXX)
printf 'x%sx\n' "$CANARY" >"$CONTROL/planted"
hits=$(grep -rlaF -- "$CANARY" /etc /var/lib/warrant "$BOX" /var/log /var/tmp /tmp /home/wtbox1 \
    /home/wtbox2 /home/wtbox4 /home/wtbox5 /run/sudo 2>/dev/null)
rm -rf "$CONTROL"
check "[P2] the search finds a planted copy of the password (positive control)" \
    sh -c 'printf "%s\n" "$1" | grep -qx "$2/planted"' sh "$hits" "$CONTROL"
hits=$(printf '%s\n' "$hits" | grep -vx "$CONTROL/planted")
if [ -z "$hits" ]; then
	ok "[P2] no plaintext password on disk, in the store, the logs or any output"
else
	not_ok "[P2] no plaintext password on disk, in the store, the logs or any output"
	diag "$hits"
fi
check "[P2] the test's own logs were searched and hold output" test "$(ls "$LOGS" | wc -l)" -gt 50

done_testing
