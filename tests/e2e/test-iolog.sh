#!/bin/sh
# SPDX-License-Identifier: ISC
# The I/O log of ROOT commands (docs/execution.md "The I/O log"), with the
# host's real sudo, PAM and sudoreplay: the output of each ROOT command is
# a sudo I/O log session under the build's iolog directory; `sudoreplay
# -d DIR ID` replays its output (stdout and stderr as one stream, in the
# order written) byte for byte (binary bytes
# included), `sudoreplay -d DIR -l` lists it with the reviewer, run-as
# user and command; ids follow the seq file; directories 0700 and files
# 0600, root's, the timing file without write bits once the command is
# done; the ledger entry and the root log line name the session; YOU
# commands get none; a log directory the runner cannot trust refuses the
# batch before anything runs; a root log others can read and the runner
# cannot make private gets no line. Credentials a ROOT command prints (or
# names in a path it writes) are in the runner's raw records only: the
# console, `show`, the agent's ledger and the store get them redacted
# (the finisher's work). One syslog line per ROOT command, LOG_AUTHPRIV,
# tag warrant.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-iolog.sh
#
# Needs root: it creates the reviewer wt-reviewer (group sudo, a canary
# password per run). The reviewer is also the requester (the desktop case).
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the real-sudo tests create users and run as root"
[ -x /usr/bin/sudoreplay ] || skip_all "no /usr/bin/sudoreplay (Debian's sudo package ships it)"

umask 022
SR_DIR=$(mktemp -d /tmp/warrant-iolog-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
OPT=/opt/wt-iolog
RL=/var/log/warrant.log
IO=$(iolog_dir)
MOVED=""
RL_MODE=""	# the root log's mode while (f) has it append-only
TPOL=""		# the policy file (e) writes, and the seq file it keeps
SEQ_SAVED=""
SYSLOGD=""	# (h): the listener in the place of syslogd, and its /dev/log

cleanup() {
	if [ -n "$MOVED" ]; then
		rm -rf "$IO"
		mv "$MOVED" "$IO"
	fi
	if [ -n "$RL_MODE" ]; then
		chattr -a "$RL"
		chmod "$RL_MODE" "$RL"
	fi
	[ -n "$TPOL" ] && rm -f "$TPOL"
	if [ -n "$SYSLOGD" ]; then
		kill "$SYSLOGD" 2>/dev/null
		rm -f /dev/log
	fi
	[ -n "$SEQ_SAVED" ] && printf '%s\n' "$SEQ_SAVED" >"$IO/seq"
	rm -rf "$OPT"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# mkgate NAME < request.json: create the gate as the reviewer; G.
mkgate() { sr_gate "$@"; }
# answer MODE NAME ID ARGS...: warrant answer in a pty as the reviewer.
answer() { sr_answer "$@"; }
state_is() { sr_state_is "$@"; }
# settled ID SECONDS: wait until the gate is no longer pending or running.
settled() {
	st_i=0
	while state_is "$1" pending || state_is "$1" running; do
		st_i=$((st_i + 1))
		[ "$st_i" -le $(($2 * 5)) ] || return 1
		sleep 0.2
	done
}
# owner_mode PATH: "OWNER MODE"
owner_mode() { stat -c '%U %a' "$1" 2>/dev/null; }
# replay ID FILTER OUT: what sudoreplay -n replays of stream FILTER
# (stdout, stderr, or "" for both), without its "Replaying sudo session:"
# header and the line break it adds.
replay() {
	rp_id=$1 rp_out=$3
	if [ -n "$2" ]; then set -- -f "$2"; else set --; fi
	sudoreplay -d "$IO" -n -m 1 "$@" "$rp_id" 2>"$rp_out.err" | "$PY" -c '
import sys
data = sys.stdin.buffer.read()
head = b"Replaying sudo session: "
if not data.startswith(head):
    sys.exit("no header")
line = data.index(b"\r\n")                  # the header ends with CR LF
data = data[:line] + data[line + 2:]        # (flushed before or after the output)
cmd = sys.argv[1].encode()
if not data.startswith(head + cmd):
    sys.exit("header names another command")
sys.stdout.buffer.write(data[len(head + cmd):])
' "$(cat "$SR_DIR/cmdline")" >"$rp_out"
}
# seqnum ID: the session number of 00/00/0A as a decimal number.
seqnum() { "$PY" -c 'import sys; print(int(sys.argv[1].replace("/", ""), 36))' "$1"; }

# ============================================================ set-up
section "set-up"
if sr_need && sr_user_setup && sr_install; then ok "infra: reviewer $SR_USER, warrant installed"
else bail "infra: cannot set up the reviewer or install warrant"; fi
case $IO in
/?*) ok "the build names its I/O log directory ($IO)" ;;
*) bail "no WARRANT_IOLOG_DIR in $WARRANT_BUILD/config.h (or the environment)" ;;
esac
rm -rf "$OPT"
install -d -m 0755 -o root -g root "$OPT" "$OPT/bin"
# every byte value, twelve times: written by the command as root
"$PY" -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 12)' >"$OPT/bytes"
cat >"$OPT/bin/emit" <<'EOF'
#!/bin/sh
printf 'first line\nsecond line\n'
printf 'to stderr, one\n' >&2
cat /opt/wt-iolog/bytes
printf '\000NUL and \033[31m escape\n'
printf 'to stderr, two\n' >&2
printf 'last line, no line break'
exit 0
EOF
chmod 0755 "$OPT/bin/emit"
# what it writes, stdout and stderr in the order written (one stream)
"$OPT/bin/emit" >"$SR_DIR/want.out" 2>&1
RL0=$(wc -l <"$RL" 2>/dev/null || echo 0)

# ============================================================ (a) two ROOT commands and a YOU one
section "(a) two ROOT commands and a YOU one, attached"
mkgate a <<EOF
{"reason":"iolog (a): output replayable with sudoreplay","output_to_agent":"full",
 "commands":[
  {"id":"emit","argv":["$OPT/bin/emit"],"why":"stdout and stderr, binary bytes"},
  {"id":"two","argv":["/usr/bin/printf","%s\\\\n","second command"],"why":"the next id"},
  {"id":"you","as":"user","argv":["/usr/bin/id","-un"],"why":"a YOU command"}]}
EOF
GA=$G
answer right a "$GA" --run --no-detach -j
is "[P3] (a) answer exits 0" "$ANS_RC" 0
jcheck "[P4] (a) every command ran" \
    "j['status'] == 'approved' and all(e['status'] == 'ran' for e in entries(j))" "$ANS"
ID1=$(jscan "entry(j, 'emit')['iolog']" "$ANS" 2>/dev/null)
ID2=$(jscan "entry(j, 'two')['iolog']" "$ANS" 2>/dev/null)
check "[P4] (a) the ledger entries of the ROOT commands name their session (xx/yy/zz)" \
    sh -c 'echo "$1 $2" | grep -Eq "^[0-9A-Z]{2}/[0-9A-Z]{2}/[0-9A-Z]{2} [0-9A-Z]{2}/[0-9A-Z]{2}/[0-9A-Z]{2}$"' \
    sh "$ID1" "$ID2"
jcheck "(a) the YOU command's entry names none" "'iolog' not in entry(j, 'you')" "$ANS"
jcheck "(a) the ledger's output keeps the order written (a stderr line between stdout lines)" \
    "'first line\\nsecond line\\nto stderr, one\\n' in entry(j, 'emit')['output_tail']" "$ANS"
is "(a) the second command's session is the next number" \
    "$(seqnum "${ID2:-0}")" "$(($(seqnum "${ID1:-0}") + 1))"
check "(a) the seq file holds the last number, as sudo writes it" \
    sh -c '[ "$(cat "$1/seq")" = "$(echo "$2" | tr -d /)" ]' sh "$IO" "$ID2"
sr_as "$SR_USER" "$SR_WARRANT" wait "$GA" -t 10 -j >"$SR_DIR/a.wait" 2>&1
jcheck "[P4] (a) the stored ledger keeps the session ids (warrant wait)" \
    "entry(j, 'emit')['iolog'] == '$ID1' and entry(j, 'two')['iolog'] == '$ID2'" "$SR_DIR/a.wait"
tail -n +"$((RL0 + 1))" "$RL" | grep "\"request_id\":\"$GA\"" >"$SR_DIR/a.rl"
check "[P4] (a) the root log lines name the sessions" sh -c '
	grep "\"id\":\"emit\"" "$1" | grep -q "\"iolog\":\"$2\"" &&
	grep "\"id\":\"two\"" "$1" | grep -q "\"iolog\":\"$3\"" &&
	! grep -q "iolog_error" "$1"' sh "$SR_DIR/a.rl" "$ID1" "$ID2"

S1=$IO/$ID1
is "(a) the log directory is root's, 0700" "$(owner_mode "$IO")" "root 700"
is "(a) ... the session directory too" "$(owner_mode "$S1")" "root 700"
check "(a) ... and the directories above it" sh -c \
    '[ "$(stat -c "%U %a" "$1/${2%%/*}")" = "root 700" ] && [ "$(stat -c "%U %a" "$1/${2%/*}")" = "root 700" ]' \
    sh "$IO" "$ID1"
for f in stdout log log.json; do
	is "(a) $f is root's, 0600" "$(owner_mode "$S1/$f")" "root 600"
done
is "(a) seq is root's, 0600" "$(owner_mode "$IO/seq")" "root 600"
is "(a) the timing file has no write bits: the session is complete" "$(owner_mode "$S1/timing")" "root 400"
check "(a) the session holds the output exactly as the command wrote it, stderr lines in place" \
    cmp -s "$SR_DIR/want.out" "$S1/stdout"
check "(a) ... as one stream: no stderr file" [ ! -e "$S1/stderr" ]
check "(a) the timing lines are '1 SECONDS.NANOSECONDS BYTES' and add up to the stdout file" \
    "$PY" -c '
import re, sys, os
d = sys.argv[1]
tot = 0
for line in open(d + "/timing"):
    m = re.fullmatch(r"1 (\d+)\.(\d{9}) (\d+)\n", line)
    if not m:
        sys.exit("bad line %r" % line)
    tot += int(m.group(3))
sys.exit(tot != os.path.getsize(d + "/stdout"))
' "$S1"
jcheck "(a) log.json names the command, argv, users, cwd, tty, a size of at least 1x1" \
    "j['command'] == '$OPT/bin/emit' and j['runargv'] == ['$OPT/bin/emit'] and j['runuser'] == 'root' and j['submituser'] == '$SR_USER' and j['submitcwd'] and j['ttyname'] and j['lines'] >= 1 and j['columns'] >= 1 and j['timestamp']['seconds'] > 0 and j['warrant_request_id'] == '$GA' and j['warrant_command_id'] == 'emit'" \
    "$S1/log.json"
check "(a) the legacy log: epoch:reviewer:root::tty:lines:cols, cwd, command" sh -c '
	sed -n 1p "$1/log" | grep -Eq "^[0-9]+:$2:root::[^:]+:[0-9]+:[0-9]+$" &&
	[ "$(sed -n 3p "$1/log")" = "$3" ]' sh "$S1" "$SR_USER" "$OPT/bin/emit"
check "[P4] (a) the I/O log is root's alone: the reviewer cannot list it" \
    sh -c '! sr_ls=$(setpriv --reuid="$1" --regid="$2" --init-groups ls "$3" 2>&1)' sh "$SR_USER" "$SR_GID" "$IO"

# ---- sudoreplay
printf '%s' "$OPT/bin/emit" >"$SR_DIR/cmdline"
replay "$ID1" stdout "$SR_DIR/r.out"
check "(a) sudoreplay -n -f stdout replays the output byte for byte, in order" cmp "$SR_DIR/want.out" "$SR_DIR/r.out"
replay "$(echo "$ID1" | tr -d /)" "" "$SR_DIR/r.all"
check "(a) sudoreplay -n (every stream, by the 6-character id) replays it byte for byte" \
    cmp "$SR_DIR/want.out" "$SR_DIR/r.all"
printf '%s' "/usr/bin/printf %s\\n second command" >"$SR_DIR/cmdline"
replay "$ID2" "" "$SR_DIR/r2.all"
is "(a) the second session replays its own output" "$(cat "$SR_DIR/r2.all")" "second command"
sudoreplay -d "$IO" -l >"$SR_DIR/list" 2>"$SR_DIR/list.err"
check "(a) sudoreplay -l lists the first session: reviewer, USER=root, TSID, the command" \
    grep -Eq ": $SR_USER : .*USER=root ; TSID=$(echo "$ID1" | tr -d /) ; COMMAND=$OPT/bin/emit\$" "$SR_DIR/list"
check "(a) ... and the second" \
    grep -Eq ": $SR_USER : .*TSID=$(echo "$ID2" | tr -d /) ; COMMAND=/usr/bin/printf " "$SR_DIR/list"
sudoreplay -d "$IO" -l user "$SR_USER" command emit >"$SR_DIR/list2" 2>&1
check "(a) sudoreplay -l user $SR_USER command emit finds it" \
    grep -q "TSID=$(echo "$ID1" | tr -d /)" "$SR_DIR/list2"

# ============================================================ (b) detached
section "(b) detached (the default): the terminal is noted before it is let go"
mkgate b <<EOF
{"reason":"iolog (b): detached","commands":[
  {"id":"b1","argv":["/usr/bin/printf","detached\\\\n"],"why":"output"}]}
EOF
GB=$G
answer right b "$GB" --run -j
is "[P3] (b) answer exits 0" "$ANS_RC" 0
check "(b) the gate settles" settled "$GB" 60
sr_as "$SR_USER" "$SR_WARRANT" wait "$GB" -t 10 -j >"$SR_DIR/b.wait" 2>&1
ID3=$(jscan "entry(j, 'b1')['iolog']" "$SR_DIR/b.wait" 2>/dev/null)
is "(b) its session is the next number" "$(seqnum "${ID3:-0}")" "$(($(seqnum "${ID2:-0}") + 1))"
jcheck "(b) log.json names the terminal sudo ran the runner on" \
    "j['ttyname'].startswith('/dev/') and j['lines'] >= 1" "$IO/$ID3/log.json"
printf '%s' "/usr/bin/printf detached\\n" >"$SR_DIR/cmdline"
replay "$ID3" stdout "$SR_DIR/r3.out"
is "(b) sudoreplay replays it" "$(cat "$SR_DIR/r3.out")" "detached"
is "(b) timing complete" "$(owner_mode "$IO/$ID3/timing")" "root 400"

# ============================================================ (c) fail closed
section "(c) a log directory the runner cannot trust: nothing runs"
MOVED=$IO.wt-saved.$$
mv "$IO" "$MOVED"
install -d -m 0700 -o "$SR_USER2" "$IO"
mkgate c <<EOF
{"reason":"iolog (c): refused","commands":[
  {"id":"c1","argv":["/usr/bin/touch","$OPT/c-ran"],"why":"must not run"}]}
EOF
GC=$G
answer right c "$GC" --run --no-detach -j
is "[P4] (c) answer exits 1 (runner_error)" "$ANS_RC" 1
jcheck "[P4] (c) the outcome is runner_error, the gate pending" \
    "j['outcome'] == 'runner_error' and j['status'] == 'pending'" "$ANS"
check "[P4] (c) the runner says why on the terminal" \
    grep -q "refusing: cannot keep the I/O log: $IO is owned by uid" "$ANS"
check "[P4] (c) nothing ran" [ ! -e "$OPT/c-ran" ]
check "[P4] (c) the gate is still pending" state_is "$GC" pending
rm -rf "$IO"
ln -s "$MOVED" "$IO"
answer right c2 "$GC" --run --no-detach -j
is "[P4] (c) a symlink in its place: refused too" "$ANS_RC" 1
check "[P4] (c) ... nothing ran" [ ! -e "$OPT/c-ran" ]
rm -f "$IO"
mv "$MOVED" "$IO"
MOVED=""
answer right c3 "$GC" --run --no-detach
is "(c) with the directory back, the same gate runs" "$ANS_RC" 0
check "(c) ... it ran" [ -e "$OPT/c-ran" ]
check "(c) answer's summary names the sudoreplay command of the session" \
    grep -Eq "root +ran +c1 +exit 0 +\(sudoreplay -d $IO [0-9A-Z]{2}/[0-9A-Z]{2}/[0-9A-Z]{2}\)" "$ANS"

# ============================================================ (d) control characters
section "(d) control characters in argv: neutralised in the log file and by sudoreplay -l"
mkgate d <<EOF
{"reason":"iolog (d): ESC and CR in argv","commands":[
  {"id":"d1","argv":["/usr/bin/printf","%s\\n","a\\u001b[31mRED\\rB"],"why":"escapes"}]}
EOF
GD=$G
answer right d "$GD" --run --no-detach -j
is "(d) answer exits 0" "$ANS_RC" 0
ID5=$(jscan "entry(j, 'd1')['iolog']" "$ANS" 2>/dev/null)
check "(d) the session's log file holds no control character but its line breaks" "$PY" -c '
import sys
data = open(sys.argv[1], "rb").read()
sys.exit(any(b < 0x20 and b != 0x0a or b == 0x7f for b in data))
' "$IO/$ID5/log"
is "(d) ... each written as sudo writes it: # and three octal digits" \
    "$(sed -n 3p "$IO/$ID5/log" 2>/dev/null)" '/usr/bin/printf %s#012 a#033[31mRED#015B'
sudoreplay -d "$IO" -l >"$SR_DIR/list-d" 2>&1
grep "TSID=$(echo "$ID5" | tr -d /)" "$SR_DIR/list-d" >"$SR_DIR/list-d1"
check "(d) sudoreplay -l lists the session" [ -s "$SR_DIR/list-d1" ]
check "(d) ... with no raw control character in its line" "$PY" -c '
import sys
data = open(sys.argv[1], "rb").read().rstrip(b"\n")
sys.exit(any(b < 0x20 or b == 0x7f for b in data))
' "$SR_DIR/list-d1"

# ============================================================ (e) the ring
section "(e) the I/O log keeps iolog_max_sessions sessions: then the oldest makes room"
if installed_mode; then
	skip "(e) the ring of sessions" "an installed build's policy file is the host's"
else
	TPOL=$(build_config WARRANT_POLICY_FILE)
	SEQ_SAVED=$(cat "$IO/seq")
	install -d -m 0755 -o root -g root "$(dirname "$TPOL")"
	printf '{"iolog_max_sessions": 2}\n' >"$TPOL" && chmod 0644 "$TPOL"
	mkgate e <<EOF
{"reason":"iolog (e): a ring of two","commands":[
  {"id":"e1","argv":["/usr/bin/printf","one"],"why":"first"},
  {"id":"e2","argv":["/usr/bin/printf","two"],"why":"second"},
  {"id":"e3","argv":["/usr/bin/printf","three"],"why":"third: the first's room"}]}
EOF
	answer right e "$G" --run --no-detach -j
	is "(e) answer exits 0" "$ANS_RC" 0
	is "(e) the sessions are 00/00/01, 00/00/02, then 00/00/01 again" \
	    "$(jscan "' '.join(e.get('iolog', '-') for e in entries(j))" "$ANS" 2>/dev/null)" \
	    "00/00/01 00/00/02 00/00/01"
	printf '%s' "/usr/bin/printf three" >"$SR_DIR/cmdline"
	replay 00/00/01 stdout "$SR_DIR/e.out"
	is "(e) 00/00/01 now replays the third command: the oldest made room" \
	    "$(cat "$SR_DIR/e.out")" "three"
	printf '{"iolog_max_sessions": 0}\n' >"$TPOL"
	mkgate e2 <<EOF
{"reason":"iolog (e2): a bad bound","commands":[
  {"id":"x","argv":["/usr/bin/touch","$OPT/e2-ran"],"why":"must not run"}]}
EOF
	answer none e2 "$G" --run --no-detach -j
	check "(e) a bound of 0 is refused with the rule, and nothing runs" sh -c '
	    grep -q "iolog_max_sessions must be a whole number from 1 to" "$1" && [ ! -e "$2" ]' \
	    sh "$ANS" "$OPT/e2-ran"
	rm -f "$TPOL"
	TPOL=""
	printf '%s\n' "$SEQ_SAVED" >"$IO/seq"
	SEQ_SAVED=""
fi

# ============================================================ (f) the root log
section "(f) a root log others can read, which cannot be made 0600, gets no line"
RL_MODE=$(stat -c %a "$RL")
if chmod 0644 "$RL" && chattr +a "$RL" 2>"$SR_DIR/chattr.err"; then
	mkgate f <<EOF
{"reason":"iolog (f): not logged where others read","commands":[
  {"id":"f1","argv":["/usr/bin/printf","logged?"],"why":"a ROOT command"}]}
EOF
	GF=$G
	answer right f "$GF" --run --no-detach -j
	is "(f) the command runs all the same (answer exits 0)" "$ANS_RC" 0
	check "(f) the runner says the root log cannot be made private" \
	    grep -q "warrant.log is readable by others and cannot be made 0600" "$ANS"
	check "(f) ... and wrote no line there" sh -c '! grep -q "\"request_id\":\"$1\"" "$2"' \
	    sh "$GF" "$RL"
else
	skip "(f) a root log that cannot be made 0600" "chattr +a: $(cat "$SR_DIR/chattr.err")"
fi
chattr -a "$RL" 2>/dev/null
chmod "$RL_MODE" "$RL"
RL_MODE=""

# ============================================================ (g) credentials printed as root
section "(g) credentials a ROOT command prints: the runner records them raw, the finisher redacts"
# None of these is in a request (the validator refuses them there): the
# commands print them from their own files, and one writes a file whose
# name carries one (the supervisor records the path).
install -d -m 0755 -o root -g root "$OPT/out"
cat >"$OPT/bin/secrets" <<'SH'
#!/bin/sh
echo before
echo "aws AKIAWTUNROOT12345678"
echo "db password: wt-hunter2-unroot"
echo "-----BEGIN RSA PRIVATE KEY-----"
echo "MIIEwtKEYBODYunrootONE"
echo "-----END RSA PRIVATE KEY-----"
: >"/opt/wt-iolog/out/token=wtPATHunroot"
echo after
SH
# a key block longer than the tail the agent gets: the tail begins in its body
cat >"$OPT/bin/longkey" <<'SH'
#!/bin/sh
echo "-----BEGIN OPENSSH PRIVATE KEY-----"
i=0
while [ $i -lt 300 ]; do
	echo "wtKEYBODYunroot0123456789012345678901234567890123456789012345678"
	i=$((i + 1))
done
echo "-----END OPENSSH PRIVATE KEY-----"
echo done
SH
chmod 0755 "$OPT/bin/secrets" "$OPT/bin/longkey"
mkgate g <<EOF
{"reason":"iolog (g): credentials in output","commands":[
  {"id":"g1","argv":["$OPT/bin/secrets"],"why":"prints credential shapes"},
  {"id":"g2","argv":["$OPT/bin/longkey"],"why":"a key block longer than the tail"}]}
EOF
GG=$G
answer right g "$GG" --run --no-detach -j
is "(g) answer exits 0" "$ANS_RC" 0
# no_secret FILE...: none of the four is in the files
no_secret() {
	! grep -qaF -e AKIAWTUNROOT12345678 -e wt-hunter2-unroot -e KEYBODYunroot \
	    -e wtPATHunroot "$@"
}
GRUN=$(ls -d "$SR_STATE/runs/$GG".* 2>/dev/null | head -1)
check "(g) control: the runner's own ledger.json (root's, in the reviewer's 0700 run directory) holds them raw" \
    sh -c '[ "$(stat -c %U "$1/ledger.json")" = root ] &&
	grep -qF AKIAWTUNROOT12345678 "$1/ledger.json" &&
	grep -qF wtPATHunroot "$1/ledger.json"' sh "$GRUN"
check "(g) answer's output on the console has none of them" no_secret "$ANS"
sr_as "$SR_USER" "$SR_WARRANT" show "$GG" -j >"$SR_DIR/g.show" 2>&1
jcheck "(g) warrant show -j keeps the output around them, each replaced by [redacted]" \
    "entry(j, 'g1')['output_tail'] == 'before\\naws [redacted]\\ndb [redacted]\\n[redacted]\\nafter\\n'" \
    "$SR_DIR/g.show"
jcheck "(g) ... the path the supervisor recorded too" \
    "entry(j, 'g1')['confinement']['written'] == ['$OPT/out/[redacted]']" "$SR_DIR/g.show"
jcheck "(g) ... and of a tail that begins inside a key block, only what follows its END line" \
    "entry(j, 'g2')['output_tail'] == '\\ndone\\n'" "$SR_DIR/g.show"
check "(g) warrant show -j has none of them" no_secret "$SR_DIR/g.show"
sr_as "$SR_USER" "$SR_WARRANT" wait "$GG" -t 10 -j >"$SR_DIR/g.wait" 2>&1
jcheck "(g) the agent's ledger (warrant wait) is the redacted one" \
    "'[redacted]' in entry(j, 'g1')['output_tail']" "$SR_DIR/g.wait"
check "(g) ... with none of them" no_secret "$SR_DIR/g.wait"
check "(g) the store (SQLite database, its WAL, requests.jsonl) has none of them" \
    no_secret -r --exclude-dir=runs "$SR_STATE"
# a YOU-only batch: `answer` runs it itself, and redacts what it keeps
# (the script stops at the file it may not create, after printing)
mkgate g3 <<EOF
{"reason":"iolog (g3): credentials in a YOU command's output","commands":[
  {"id":"y1","as":"user","argv":["$OPT/bin/secrets"],"why":"prints credential shapes"}]}
EOF
GG3=$G
answer none g3 "$GG3" --run --no-detach -j
jcheck "(g) a YOU-only batch (run by answer itself): the output kept is redacted" \
    "entry(j, 'y1')['output_tail'].startswith('before\\naws [redacted]\\ndb [redacted]\\n[redacted]\\n')" \
    "$ANS"
sr_as "$SR_USER" "$SR_WARRANT" show "$GG3" -j >"$SR_DIR/g3.show" 2>&1
check "(g) ... and neither answer, show -j nor the store has any of them" \
    no_secret -r --exclude-dir=runs "$ANS" "$SR_DIR/g3.show" "$SR_STATE"

# ============================================================ (h) syslog
section "(h) one syslog line per ROOT command: LOG_AUTHPRIV, tag warrant"
if [ -e /dev/log ]; then
	skip "(h) the syslog line" "/dev/log exists (a syslog daemon has it): not replaced by a test"
else
	# a listener in the place of syslogd, for this section only
	"$PY" -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
os.chmod("/dev/log", 0o666)
open(sys.argv[1] + ".ready", "w").close()
with open(sys.argv[1], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(65536) + b"\n")
' "$SR_DIR/syslog" &
	SYSLOGD=$!
	w=0
	while [ ! -e "$SR_DIR/syslog.ready" ] && [ $w -lt 300 ]; do sleep 0.1; w=$((w + 1)); done
	mkgate h <<EOF
{"reason":"iolog (h): syslog","commands":[
  {"id":"h1","argv":["/usr/bin/true"],"why":"a ROOT command"},
  {"id":"h2","as":"user","argv":["/usr/bin/true"],"why":"a YOU command: no line"}]}
EOF
	GH=$G
	answer right h "$GH" --run --no-detach -j
	is "(h) answer exits 0" "$ANS_RC" 0
	kill "$SYSLOGD" 2>/dev/null
	wait "$SYSLOGD" 2>/dev/null
	SYSLOGD=""
	rm -f /dev/log
	grep -a "request $GH " "$SR_DIR/syslog" >"$SR_DIR/h.lines" 2>/dev/null
	is "(h) exactly one line for the request: the ROOT command's" "$(grep -c . "$SR_DIR/h.lines")" 1
	# <85>: facility LOG_AUTHPRIV (10 * 8) + LOG_NOTICE (5)
	check "(h) it is LOG_AUTHPRIV|LOG_NOTICE, tagged warrant[PID], and says who, as whom, what and how it ended" \
	    grep -Eq "^<85>.* warrant\[[0-9]+\]: $SR_USER ran as root: request $GH command h1 /usr/bin/true: ran \(exit 0, 0 refused\)\$" \
	    "$SR_DIR/h.lines"
fi

done_testing
