#!/bin/sh
# SPDX-License-Identifier: ISC
# The CLI surface of the foundation: show by unique prefix, list filters
# and limits, help and usage errors (exit 2), and agent text neutralised
# on the terminal (no raw ESC, BEL, CR, C1 or bidi controls; visible
# escapes instead).
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "needs root to create the requester"
requester_fixture
use_state cli
TRUE=$(readlink -f /usr/bin/true)

diag "gates for the CLI tests"
accepted "alpha 1" "$(req1 '["true"]')" -p alpha -o test-agent
G1=$GATE
accepted "alpha 2" "$(req1 '["/usr/bin/true","x"]')" -p alpha
G2=$GATE
accepted "beta 1" "$(req1 '["apt-get","install","hello"]')" -p beta
G3=$GATE
accepted "no project" "$(req1 '["true"]')"
G4=$GATE

# The shortest body prefix (4 or more characters, after "w-") that names
# only G1 among the gates.
P=$(as_req sqlite3 "$S/warrant.db" "SELECT id FROM gates" | "$PY" -c '
import sys
ids = [l.strip()[2:] for l in sys.stdin]
me = sys.argv[1][2:]
for n in range(4, 11):
    if sum(i.startswith(me[:n]) for i in ids) == 1:
        print(me[:n]); break' "$G1")
diag "G1=$G1 unique prefix $P"

diag "show by id or prefix"
wr show -j "$G1"
check "show the full id: exit 0" [ "$RC" -eq 0 ]
check "  the right gate" [ "$(jval "$WT_T/out" 'j["request_id"]')" = "$G1" ]
wr show -j "w-$P"
check "show w-PREFIX (w- and ${#P} characters): the right gate" \
    [ "$(jval "$WT_T/out" 'j["request_id"]')" = "$G1" ]
check "  exit 0" [ "$RC" -eq 0 ]
wr show -j "$P"
check "show PREFIX without w- (${#P} characters): the right gate" \
    [ "$(jval "$WT_T/out" 'j["request_id"]')" = "$G1" ]
check "  exit 0" [ "$RC" -eq 0 ]
wr show -j "$(echo "$G1" | cut -c3-10)"
check "show an 8-character prefix: the right gate" [ "$RC" -eq 0 ]
wr show abc
check "show a 3-character prefix: exit 2" [ "$RC" -eq 2 ]
check "  nothing on stdout" [ ! -s "$WT_T/out" ]
wr show w-a
check "show w-a (too short): exit 2" [ "$RC" -eq 2 ]
UNKNOWN=$(as_req sqlite3 "$S/warrant.db" "SELECT id FROM gates" | "$PY" -c '
import sys
ids = {l.strip() for l in sys.stdin}
for c in "abcdefghijklmnopqrstuvwxyz234567":
    u = "w-" + c * 10
    if not any(i.startswith(u[:6]) for i in ids):
        print(u); break')
wr show "$UNKNOWN"
check "show an unknown id ($UNKNOWN): exit 2" [ "$RC" -eq 2 ]
check "  says no gate matches" err_has "no gate matches"
wr show "$(echo "$UNKNOWN" | cut -c1-6)"
check "show an unknown prefix: exit 2" [ "$RC" -eq 2 ]
wr show "$(echo "$G1" | tr a-z A-Z)"
check "show the id in upper case: exit 0 (ids match in any case)" [ "$RC" -eq 0 ]
wr show "w-0000"
check "show w-0000 (not base32): exit 2" [ "$RC" -eq 2 ]
wr show "${G1}a"
check "show a string longer than any id: exit 2" [ "$RC" -eq 2 ]
wr show "$(echo "$G1" | cut -c1-6)%"
check "show a prefix with an SQL wildcard: exit 2" [ "$RC" -eq 2 ]

diag "show -j"
wr show -j "$G3"
check "show -j has manifest, manifest_sha256, risk_badges and commands" "$PY" -c '
import json, re, sys
g = json.load(open(sys.argv[1]))
ok = (isinstance(g["manifest"], dict) and g["manifest"]["request_id"] == sys.argv[2]
      and re.fullmatch("[0-9a-f]{64}", g["manifest_sha256"])
      and g["risk_badges"] == ["network", "package-manager"]
      and g["project"] == "beta" and g["state"] == "pending"
      and g["commands"][0]["argv"] == ["apt-get", "install", "hello"])
sys.exit(0 if ok else 1)' "$WT_T/out" "$G3"
wr show "$G1"
check "show (human): exit 0" [ "$RC" -eq 0 ]
check "  names the gate, its project and agent" sh -c "grep -q '$G1' '$WT_T/out' && grep -q alpha '$WT_T/out' && grep -q test-agent '$WT_T/out'"
check "  shows the resolved path and how it was given" grep -qF "$TRUE  (given as true)" "$WT_T/out"
check "  shows the executable's SHA-256" grep -qF "$(sha256sum "$TRUE" | cut -d' ' -f1)" "$WT_T/out"
check "  numbers the ROOT command" grep -q 'ROOT 1' "$WT_T/out"

diag "list"
wr list -j
check "list -j: the four pending gates" \
    [ "$(jval "$WT_T/out" 'sorted(g["request_id"] for g in j)')" = "$(printf '%s\n' "$G1" "$G2" "$G3" "$G4" | sort | "$PY" -c 'import json,sys; print(json.dumps([l.strip() for l in sys.stdin], separators=(",",":")))')" ]
wr list -a -j -p alpha
check "list -p alpha: exactly the two alpha gates" \
    [ "$(jval "$WT_T/out" 'sorted(g["request_id"] for g in j)')" = "$(printf '%s\n' "$G1" "$G2" | sort | "$PY" -c 'import json,sys; print(json.dumps([l.strip() for l in sys.stdin], separators=(",",":")))')" ]
wr list -j -p beta
check "list -p beta: exactly the beta gate" [ "$(jval "$WT_T/out" '[g["request_id"] for g in j]')" = "[\"$G3\"]" ]
wr list -j -p gamma
check "list -p gamma: empty" [ "$(jval "$WT_T/out" 'j')" = "[]" ]
wr list -j -l 2
check "list -l 2: two gates" [ "$(jval "$WT_T/out" 'len(j)')" = 2 ]
wr list -j -l 1 -p alpha
check "list -l 1 -p alpha: one alpha gate" [ "$(jval "$WT_T/out" '[g["project"] for g in j]')" = '["alpha"]' ]
wr list
check "list (human): exit 0" [ "$RC" -eq 0 ]
check "  one line per gate" [ "$(wc -l <"$WT_T/out")" -eq 4 ]
check "  each line starts with its id" [ "$(cut -c1-12 "$WT_T/out" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$G1" "$G2" "$G3" "$G4" | sort | tr '\n' ' ')" ]

diag "help and usage errors"
as_req "$W" --help >"$WT_T/out" 2>"$WT_T/err"
RC=$?
check "warrant --help: exit 0" [ "$RC" -eq 0 ]
# the commands of the binary's own table (its cmd_*_entry symbols), so a
# command added without a summary fails here; finalize is started by
# warrant itself and is not listed
CMDS=$(nm "$W" 2>/dev/null | sed -n 's/.* cmd_\([a-z]*\)_entry$/\1/p' | sort -u | grep -vx finalize)
if [ -z "$CMDS" ]; then
	skip "  --help: a line for every command of the table" "$W has no symbols (a stripped package)"
else
	check "  the binary's command table has the commands (nm: $(echo $CMDS | wc -w))" [ "$(echo $CMDS | wc -w)" -ge 16 ]
fi
for c in $CMDS; do
	check "  --help: one line for $c saying what it does" \
	    grep -Eq "^  $c +[a-z'(][^ ].{20,}\$" "$WT_T/out"
done
for g in "For the agent:" "For the reviewer:" "For the administrator:"; do
	check "  --help: the group \"$g\"" grep -qx "$g" "$WT_T/out"
done
check "  --help: request under the agent, review under the reviewer, box under the administrator" \
    sh -c "sed -n '/^For the agent:/,/^\$/p' '$WT_T/out' | grep -q '^  request ' &&
	sed -n '/^For the reviewer:/,/^\$/p' '$WT_T/out' | grep -q '^  review ' &&
	sed -n '/^For the administrator:/,/^\$/p' '$WT_T/out' | grep -q '^  box '"
check "  --help: the internal finalize is not listed" sh -c "! grep -q finalize '$WT_T/out'"
wr help request
check "warrant help request: exit 0" [ "$RC" -eq 0 ]
check "  prints its usage" out_has "usage: warrant request"
wr list --help
check "warrant list --help: exit 0 and usage" sh -c "[ $RC -eq 0 ] && grep -q 'usage: warrant list' '$WT_T/out'"
wr help wait
check "warrant help wait: the exit codes, from the table" sh -c "[ $RC -eq 0 ] && grep -q '^  4  denied by the reviewer' '$WT_T/out' && grep -q '^  6  still pending' '$WT_T/out'"
wr skill --format claude
check "warrant skill --format claude: a SKILL.md with front matter" sh -c "[ $RC -eq 0 ] && [ \"\$(head -2 '$WT_T/out')\" = \"---
name: warrant\" ] && grep -q '^- \`writable_argument\`: ' '$WT_T/out'"
wr skill
check "warrant skill: Markdown for AGENTS.md, every code the hints know" sh -c "[ $RC -eq 0 ] && head -1 '$WT_T/out' | grep -q '^## warrant' && [ \$(grep -c '^- \`[a-z_]*\`: .* Fix: ' '$WT_T/out') -ge 14 ]"
wr skill --format yaml
check "warrant skill --format yaml: usage error" sh -c "[ $RC -eq 2 ] && grep -q 'usage:' '$WT_T/err'"
wr --version
check "warrant --version: exit 0" sh -c "[ $RC -eq 0 ] && grep -q '^warrant ' '$WT_T/out'"
wr help nosuch
check "warrant help nosuch: exit 2" [ "$RC" -eq 2 ]
wr nosuch
check "unknown command: exit 2" [ "$RC" -eq 2 ]
check "  says so on stderr" err_has "unknown command"
check "  a word far from every command gets no suggestion" sh -c "! grep -q 'did you mean' '$WT_T/err'"
wr reveiw
check "warrant reveiw: exit 2, as any unknown command" [ "$RC" -eq 2 ]
check "  suggests review" err_has "unknown command 'reveiw': did you mean 'review'?"
check "  and nothing on stdout" [ ! -s "$WT_T/out" ]
wr lsit -j
check "warrant lsit -j: exit 2, suggests list" sh -c "[ $RC -eq 2 ] && grep -qF \"did you mean 'list'?\" '$WT_T/err'"
wr help anwser
check "warrant help anwser: exit 2, suggests answer" sh -c "[ $RC -eq 2 ] && grep -qF \"no such command 'anwser': did you mean 'answer'?\" '$WT_T/err'"
wr finalise
check "an internal command is never suggested (finalise)" sh -c "[ $RC -eq 2 ] && ! grep -q 'did you mean' '$WT_T/err'"

diag "pair on a loopback page: a phone cannot open the link"
wr pair --url http://127.0.0.1:8722/
check "pair --url http://127.0.0.1:8722/: exit 0" [ "$RC" -eq 0 ]
check "  warns that a phone cannot open it" out_has "A phone cannot open this link as it is: 127.0.0.1 is this computer's own"
for w in "ssh -L 8722:127.0.0.1:8722 USER@THIS-COMPUTER" "warrant serve --http 127.0.0.1:8722 --host NAME" \
    "warrant pair --url https://NAME/" "warrant serve --http ADDR:8722 --listen-any \\" \
    "--tls-cert CERT.pem --tls-key KEY.pem"; do
	check "  the ways that work, as commands: $w" out_has "$w"
done
check "  the warning comes before the link and the QR code" sh -c '
	w=$(grep -n "A phone cannot open" "$1" | cut -d: -f1); l=$(grep -n "#token=" "$1" | cut -d: -f1)
	q=$(grep -n "▀" "$1" | head -1 | cut -d: -f1)
	[ -n "$w" ] && [ -n "$l" ] && [ -n "$q" ] && [ "$w" -lt "$l" ] && [ "$l" -lt "$q" ]' sh "$WT_T/out"
wr pair --url http://localhost:9000 --no-qr
check "pair on localhost warns too, with its port" sh -c "[ $RC -eq 0 ] && grep -qF 'tailscale serve --bg 9000' '$WT_T/out'"
wr pair --url 'http://[::1]:9001/' --no-qr
check "pair on [::1] warns too" sh -c "[ $RC -eq 0 ] && grep -qF 'ssh -L 9001:[::1]:9001' '$WT_T/out'"
wr pair --url https://laptop.example.ts.net/
check "pair on a name a phone can reach: no warning" sh -c "[ $RC -eq 0 ] && grep -q '#token=' '$WT_T/out' && ! grep -q 'A phone cannot' '$WT_T/out'"
wr pair --url http://127.1.2.3.example/ --no-qr
check "pair on a name that only starts like 127.x: no warning" sh -c "[ $RC -eq 0 ] && ! grep -q 'A phone cannot' '$WT_T/out'"
wr
check "no command: exit 2 with the usage on stderr" sh -c "[ $RC -eq 2 ] && grep -q usage '$WT_T/err'"
before=$(store_snap)
# usage CMD...: a usage error, exit 2 with a usage line on stderr.
usage() {
	wr "$@" </dev/null
	if [ "$RC" -eq 2 ] && grep -q 'usage:' "$WT_T/err"; then
		ok "usage error exits 2: warrant $*"
	else
		not_ok "usage error exits 2: warrant $*"
		diag "exit $RC: $(cat "$WT_T/err")"
	fi
}
usage list -l 0
usage list -l abc
usage list -l 1000001
usage list -l ''
usage list -l -5
usage list extra
usage list --bogus
usage list -p
usage show
usage show a b
usage show --bogus "$G1"
usage request extra
usage request --bogus
usage request -p ''
usage request -o "$(printf 'a\033b')"
usage request -p "$(printf 'x%.0s' $(seq 129))"
usage log extra
usage log --bogus
check "[P5] usage errors changed nothing in the store" [ "$(store_snap)" = "$before" ]
printf '%s' "$(req1 '["sudo","id"]')" >"$WT_T/in"
as_req "$W" request <"$WT_T/in" >"$WT_T/out" 2>"$WT_T/err"
RC=$?
check "[P5] request without -j: a refusal exits 2" [ "$RC" -eq 2 ]
check "[P5]   names the code on stderr" err_has "request refused (nested_privilege_tool)"
check "[P5]   and prints nothing on stdout" [ ! -s "$WT_T/out" ]

diag "agent text is neutralised"
NASTY='\u001b]0;pwned\u0007 \u001b[2J \r CR \u0007 BEL \u009b31m C1 \u202e evil \u200b zw \u2066 iso \u007f del \b bs \n nl \\ bs'
cat >"$WT_T/in" <<EOF
{"reason":"R $NASTY","env":{"NOTE":"E $NASTY"},"commands":[
 {"id":"a","why":"W $NASTY","argv":["/usr/bin/printf","%s","A $NASTY"]},
 {"id":"b","as":"user","why":"U","command":"echo 'C $NASTY'"}]}
EOF
accepted_file "[P6] a request full of escapes, bidi and zero-width characters" "$WT_T/in" -p "$(printf 'proj\302\233x\342\200\256y')"
NG=$GATE
# clean FILE: no raw ESC, BEL, CR, BS, DEL, C1 (U+0080-U+009F) or
# invisible/bidi code points; prints what it found.
clean() {
	"$PY" -c '
import sys
b = open(sys.argv[1], "rb").read()
t = b.decode("utf-8", "replace")
bad = sorted({hex(ord(c)) for c in t if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
              or 0x200b <= ord(c) <= 0x200f or 0x202a <= ord(c) <= 0x202e
              or 0x2066 <= ord(c) <= 0x2069 or ord(c) == 0xfffd})
if bad:
    print("found", " ".join(bad))
sys.exit(1 if bad else 0)' "$1"
}
# is_clean FILE: FILE holds text, and none of it raw.
is_clean() { [ -s "$1" ] && clean "$1" >/dev/null; }
wr show "$NG"
check "[P6] show exits 0" [ "$RC" -eq 0 ]
check "[P6] show: no raw control, C1, bidi or zero-width characters $(clean "$WT_T/out")" is_clean "$WT_T/out"
check "[P6] show: ESC shown as \\x1b (OSC title and clear screen)" sh -c "grep -qF '\\x1b]0;pwned\\x07' '$WT_T/out' && grep -qF '\\x1b[2J' '$WT_T/out'"
check "[P6] show: CR shown as \\r" out_has '\r CR'
check "[P6] show: C1 CSI shown as <U+009B>" out_has '<U+009B>31m'
check "[P6] show: RTL override shown as <U+202E>" out_has '<U+202E> evil'
check "[P6] show: zero-width space shown as <U+200B>" out_has '<U+200B> zw'
check "[P6] show: isolate shown as <U+2066>" out_has '<U+2066> iso'
check "[P6] show: DEL and backspace shown as \\x7f and \\x08" sh -c "grep -qF '\\x7f del' '$WT_T/out' && grep -qF '\\x08 bs' '$WT_T/out'"
check "[P6] show: newline shown as \\n (one line per field)" out_has '\n nl'
check "[P6] show: the reason, why, argv, env and YOU command are all there" sh -c "
    for w in 'reason       R ' 'why   W ' 'argv[2] A ' 'NOTE=E ' \"C \\\\x1b]0\"; do grep -qF -- \"\$w\" '$WT_T/out' || exit 1; done"
check "[P6] show: the project label too" out_has 'proj<U+009B>x<U+202E>y'
wr list
check "[P6] list exits 0" [ "$RC" -eq 0 ]
check "[P6] list: no raw control, C1, bidi or zero-width characters $(clean "$WT_T/out")" is_clean "$WT_T/out"
check "[P6] list: the reason with visible escapes" out_has 'R \x1b]0;pwned\x07 \x1b[2J \r CR'
check "[P6] list: the project with visible escapes" out_has 'proj<U+009B>x<U+202E>y: R'
printf '{"reason":"r","\\u001b[2J\\u009b":1,"commands":[]}' >"$WT_T/in"
as_req "$W" request <"$WT_T/in" >"$WT_T/out" 2>"$WT_T/err"
check "[P6] a refusal naming an escape-laden field: exit 2" [ $? -eq 2 ]
check "[P6]   its message on stderr is neutralised $(clean "$WT_T/err")" is_clean "$WT_T/err"
check "[P6]   and shows the field with visible escapes" err_has 'unknown field '"'"'\x1b[2J<U+009B>'"'"
printf '{"reason":"\033]0;x\007","commands":[]}' >"$WT_T/in"
as_req "$W" request <"$WT_T/in" >"$WT_T/out" 2>"$WT_T/err"
check "[P6] raw ESC in the JSON input: invalid_json, exit 2" [ $? -eq 2 ]
check "[P6]   the parser's message quoting the input is neutralised $(clean "$WT_T/err")" is_clean "$WT_T/err"
wr show "$(printf 'w-\033]0;x\007')"
check "[P6] show with an escape-laden id: exit 2" [ "$RC" -eq 2 ]
check "[P6]   the error message is neutralised $(clean "$WT_T/err")" is_clean "$WT_T/err"

diag "an ambiguous prefix (a second gate forged with the same first 4 characters)"
as_req sqlite3 "$S/warrant.db" "CREATE TEMP TABLE t AS SELECT * FROM gates WHERE id = '$G1';
    UPDATE t SET id = substr(id, 1, 6) || '$(echo "$UNKNOWN" | cut -c3-8)';
    INSERT INTO gates SELECT * FROM t;"
TWIN="$(echo "$G1" | cut -c1-6)$(echo "$UNKNOWN" | cut -c3-8)"
wr show "$(echo "$G1" | cut -c3-6)"
check "show an ambiguous 4-character prefix: exit 2" [ "$RC" -eq 2 ]
check "  says it does not name exactly one gate" err_has "does not name exactly one gate"
check "  prints nothing on stdout" [ ! -s "$WT_T/out" ]
wr show -j "$G1"
check "the full id still names it" [ "$(jval "$WT_T/out" 'j["request_id"]')" = "$G1" ]
wr show -j "$TWIN"
check "and the twin by its own full id" [ "$(jval "$WT_T/out" 'j["request_id"]')" = "$TWIN" ]

diag "the header of a YOU-only gate"
accepted "a YOU-only request" "$(requ '["true"]')"
wr show "$GATE"
check "show: a YOU-only gate says it has no root part" out_has "none: every command runs as you"
check "show: ... and names no root run-as or cwd" sh -c '! grep -q "^run as\|^cwd " "$1"' sh "$WT_T/out"
wr show "$G1"
check "show: a gate with ROOT commands names its run-as (control)" out_has "run as"

diag "ids in any case; longer than any id"
wr show -j "$(echo "$G1" | tr 'a-z' 'A-Z')"
check "show W-ID in upper case: the right gate" [ "$(jval "$WT_T/out" 'j["request_id"]')" = "$G1" ]
wr show "${G1}zz"
check "show an id longer than any gate: exit 2" [ "$RC" -eq 2 ]
check "... saying no gate matches" err_has "no gate matches"

diag "an empty standard input"
wr request </dev/null
check "request with nothing on stdin: exit 2" [ "$RC" -eq 2 ]
check "... saying there is no request on standard input" err_has "no request on standard input"

diag "usage lines end without a trailing space"
wr --help
check "warrant --help: no line ends in a space" sh -c '[ -s "$1" ] && ! grep -q " \$" "$1"' sh "$WT_T/out"
wr help mcp
check "warrant help mcp: the usage line has no trailing space" sh -c 'head -1 "$1" | grep -qx "usage: warrant mcp \[--to REVIEWER\]"' sh "$WT_T/out"

diag "a state directory under someone else's directory"
WARRANT_HOME_REQ=/root/wt-e2e-state wr list
check "list with WARRANT_HOME under /root: exit 1" [ "$RC" -eq 1 ]
check "... saying whose directory is in the way" err_has "/root belongs to uid 0, not to you"
check "... and nothing was created there" [ ! -e /root/wt-e2e-state ]

diag "warrant wait: output, feedback and next as they are"
# printf's output: " \   ^__^", a \r progress line ending in CR LF, an ESC
cat >"$WT_T/cow.json" <<'JSON'
{"reason":"cow","output_to_agent":"full","next":{"prompt":"then C:\\dir"},
 "commands":[{"id":"cow","why":"w","as":"user","argv":["/usr/bin/printf",
  " \\\\   ^__^\\n0%%\\r50%%\\r100%% done\\r\\nesc \\033[2J\\n"]}]}
JSON
accepted_file "a YOU request whose output has backslashes, CRs and an escape" "$WT_T/cow.json"
COW=$GATE
wr answer "$COW" --run
wr wait "$COW" -t 10
check "wait on the approved gate: exit 0" [ "$RC" -eq 0 ]
check "wait: a backslash in the output is one backslash" sh -c 'grep -qx "   |  \\\\   ^__^" "$1"' sh "$WT_T/out"
check "wait: a \\r progress line is its last state, CR LF a line end" \
    sh -c 'grep -qx "   | 100% done" "$1" && ! grep -qF "50%" "$1" && ! grep -qF "\\r" "$1"' sh "$WT_T/out"
check "wait: an escape in the output is still shown as \\x1b" \
    sh -c 'grep -qxF "   | esc \\x1b[2J" "$1"' sh "$WT_T/out"
check "wait: no raw control characters $(clean "$WT_T/out")" is_clean "$WT_T/out"
check "wait: next.prompt keeps its backslash" sh -c 'grep -qxF "next: then C:\\dir" "$1"' sh "$WT_T/out"
accepted_file "a second one, to deny with a note" "$WT_T/cow.json"
wr answer "$GATE" --deny -f "$(printf 'no\\thanks\r\nsee C:\\docs')"
wr wait "$GATE" -t 10
check "wait on a denied gate: feedback with one backslash, a line per line" \
    sh -c 'grep -qxF "feedback: no\\thanks" "$1" && grep -qxF "          see C:\\docs" "$1"' sh "$WT_T/out"

diag "a ROOT command's confinement record in show, show -j and wait"
# A constructed ledger: the runner side of the run-time supervisor is
# tested in tests/e2e/test-confine.sh; here the record is written into the
# settled gate's stored ledger (as above, the store is edited with the
# sqlite3 CLI), with a path an agent could choose: an ESC sequence and a
# U+202E. The ROOT command was left out of the approval (answer -c), so
# nothing needs sudo; the edit makes it a ROOT command that ran confined.
cat >"$WT_T/conf.json" <<'JSON'
{"reason":"confined","commands":[{"id":"mk","why":"w","argv":["true"]},
 {"id":"me","why":"w","as":"user","argv":["true"]}]}
JSON
accepted_file "a ROOT and a YOU command" "$WT_T/conf.json"
CG=$GATE
wr answer "$CG" --run -c me
check "answer -c me (YOU only): exit 0" [ "$RC" -eq 0 ]
as_req sqlite3 "$S/warrant.db" "UPDATE ledgers SET ledger = json_set(ledger,
    '\$.entries[0].status', 'failed', '\$.entries[0].exit_code', 2,
    '\$.entries[0].confinement', json('{\"executed\":[{\"path\":\"/usr/bin/make\",
    \"sha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}],
    \"written\":[\"/etc/x.conf\"],\"refused\":[{\"call\":\"open\",
    \"path\":\"/home/a/proj/Makefile\\u001b[2J\\u202e\",
    \"reason\":\"the requester can change /home/a/proj/Makefile\\u001b[2J\\u202e\"}],
    \"omitted\":{\"executed\":0,\"written\":4,\"refused\":2},\"unconfined\":false}'))
    WHERE gate_id = '$CG'"
REFUSED='refused at run time: open /home/a/proj/Makefile\x1b[2J<U+202E> — the requester can change /home/a/proj/Makefile\x1b[2J<U+202E>'
wr show -j "$CG"
check "show -j: the ledger with the record as stored" [ "$(jval "$WT_T/out" \
    'j["ledger"]["entries"][0]["confinement"]["refused"][0]["path"] == "/home/a/proj/Makefile\x1b[2J\u202e"')" = true ]
wr show "$CG"
check "show: the refused access with its path and reason, neutralised" out_has "         $REFUSED"
check "show: (and 2 more) refused" out_has "refused at run time: (and 2 more)"
check "show: the program executed, with a short hash" out_has "executed: /usr/bin/make (sha256 0123456789ab)"
check "show: the file written, and 4 more" sh -c 'grep -qF "written: /etc/x.conf" "$1" && grep -qF "written: (and 4 more)" "$1"' sh "$WT_T/out"
check "show: no raw control or bidi characters $(clean "$WT_T/out")" is_clean "$WT_T/out"
wr wait "$CG" -t 10
check "wait: exit 3 (the ROOT command failed)" [ "$RC" -eq 3 ]
check "wait: the refused access with its path and reason, neutralised" out_has "   $REFUSED"
check "wait: the run-time supervisor's counts" out_has "   run-time supervisor: 1 program executed, 5 files written, 3 accesses refused"
check "wait: no raw control or bidi characters $(clean "$WT_T/out")" is_clean "$WT_T/out"
wr wait "$CG" -t 10 -j
check "wait -j: the record as data" [ "$(jval "$WT_T/out" \
    'j["ledger"]["entries"][0]["confinement"]["omitted"]["refused"]')" = 2 ]

diag "a denial note: UTF-8 of at most 4096 bytes (FEEDBACK_MAX)"
accepted "a gate to deny with a long note" "$(requ '["true"]')"
NOTE=$("$PY" -c 'print("\u00e9" * 2048, end="")')
wr answer "$GATE" --deny -f "${NOTE}x"
check "answer --deny -f with 4097 bytes: exit 2" [ "$RC" -eq 2 ]
check "... saying a denial note is UTF-8 text of at most 4096 bytes" \
    err_has "a denial note is UTF-8 text of at most 4096 bytes"
check "... and the gate is still pending" [ "$(as_req "$W" show -j "$GATE" | jscan 'j["state"]')" = pending ]
wr answer "$GATE" --deny -f "$(printf 'bad \377 byte')"
check "answer --deny -f with a byte that is not UTF-8: refused the same way" \
    sh -c '[ "$1" -eq 2 ] && grep -qF "a denial note is UTF-8 text of at most 4096 bytes" "$2"' \
    sh "$RC" "$WT_T/err"
wr answer "$GATE" --deny -f "$NOTE"
check "a note of exactly 4096 bytes (2048 characters) is taken whole" \
    sh -c '[ "$1" -eq 0 ] && [ "$2" = "$3" ]' sh "$RC" \
    "$(as_req "$W" show -j "$GATE" | jscan 'j["feedback"]')" "$NOTE"

diag "refusals teach the fix (a hint per code and common shape)"
# hint ARGV_JSON WORDS DESC: the -j refusal's hint and the human line hold WORDS
hint() {
	printf '{"reason":"r","commands":[{"id":"a","why":"w","argv":%s}]}\n' "$1" >"$WT_T/hint.json"
	wr request -j <"$WT_T/hint.json"
	check "hint: $3 (-j)" sh -c 'grep -qF -- "$2" "$1"' sh "$WT_T/out" "$2"
	wr request <"$WT_T/hint.json"
	check "hint: $3 (human line)" sh -c 'grep -F "hint: " "$1" | grep -qF -- "$2"' sh "$WT_T/err" "$2"
}
hint '["sudo","apt-get","install","jq"]' "drop sudo" "sudo in argv"
hint '["systemctl restart nginx"]' "split the command line into argv words" "a whole command line in one word"
hint '["bash","-c","a && b"]' "give each step as its own command" "bash -c"
hint '["./build.sh"]' "never the agent's files" "a relative script"
printf '{"reason":"r","commands":[{"id":"a","argv":["true"]}]}\n' >"$WT_T/hint.json"
wr request -j <"$WT_T/hint.json"
check "hint: a missing why says what the reviewer uses it for" out_has "the reviewer reads"

diag "a full disk under the state directory (a small tmpfs)"
# The requester's state directory on a tmpfs of 2 MiB: a YOU-only gate is
# stored, the disk is filled, and answer --run must say that the state
# directory is full, naming the file, never a lease conflict; nothing
# runs and the gate stays pending, answered once there is room again.
FULL=$WT_RB/full
install -d -m 0700 -o "$REQ_UID" -g "$(id -g "$REQ")" "$FULL"
if mount -t tmpfs -o size=2m,mode=0700,uid="$REQ_UID",gid="$(id -g "$REQ")" tmpfs "$FULL"; then
	at_exit "umount '$FULL' 2>/dev/null"
	WARRANT_HOME_REQ=$FULL/state
	MARKF=$WT_RB/full-ran
	accepted "a YOU-only gate on the small tmpfs" \
	    "$(requ "[\"/usr/bin/touch\",\"$MARKF\"]")"
	GF=$GATE
	# warrant leaves the store's -wal and -shm files (the sqlite3 reads of
	# accepted removed them): the store opens on the full disk
	wr list
	dd if=/dev/zero of="$FULL/fill" bs=4096 >/dev/null 2>&1
	wr answer "$GF" --run --no-detach -j
	is "answer --run on a full disk exits 1" "$RC" 1
	jcheck "... outcome state_full, the gate pending, the message names the state directory and the lease file" \
	    "j['outcome'] == 'state_full' and j['status'] == 'pending' and 'the state directory $FULL/state is full' in j['message'] and '$FULL/state/auth.lease' in j['message']" "$WT_T/out"
	check "... never a lease conflict" sh -c "! grep -q lock_contention '$WT_T/out' '$WT_T/err'"
	check "... and nothing ran" test ! -e "$MARKF"
	# without them, the store itself cannot be opened: the same outcome
	rm -f "$FULL/fill"
	as_req sqlite3 "$FULL/state/warrant.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	dd if=/dev/zero of="$FULL/fill" bs=4096 >/dev/null 2>&1
	wr answer "$GF" --run --no-detach -j
	is "answer --run on a full disk that holds the store back exits 1" "$RC" 1
	jcheck "... outcome state_full, naming the store" \
	    "j['outcome'] == 'state_full' and j['status'] == 'pending' and 'the state directory $FULL/state is full: $FULL/state/warrant.db' in j['message']" "$WT_T/out"
	check "... which says so on standard error too" \
	    grep -q "store $FULL/state/warrant.db: .*the state directory is full" "$WT_T/err"
	check "... and nothing ran" test ! -e "$MARKF"
	wr request -j <"$WT_T/in"
	is "a request on a full disk exits 1" "$RC" 1
	check "... saying the state directory is full, naming the store" \
	    grep -q "store $FULL/state/warrant.db: .*the state directory is full" "$WT_T/err"
	rm -f "$FULL/fill"
	wr show -j "$GF"
	is "the gate is still pending" "$(jval "$WT_T/out" 'j["state"]')" pending
	wr answer "$GF" --run --no-detach -j
	is "with room again, the same gate is answered (exit 0)" "$RC" 0
	check "... and its command ran" test -e "$MARKF"
	umount "$FULL"
	use_state cli
else
	skip "a full disk under the state directory" "cannot mount a tmpfs here"
fi

diag "the local store: read, never made for a look"
use_state fresh
wr list
is "list without a store exits 0" "$RC" 0
check "... says there is none, and where it would be" out_has "no pending gates: you never requested anything here (no store at $S)"
wr list -j
is "list -j without a store prints []" "$(cat "$WT_T/out")" "[]"
wr show w-abcd
is "show without a store refuses (exit 2)" "$RC" 2
check "... saying there is no store" err_has "there is no store at $S"
check "list and show made no state directory" test ! -e "$S"
wr wait w-abcd --timeout 1
is "wait without a store refuses (exit 2)" "$RC" 2
check "... saying no gate matches" err_has "no gate matches 'w-abcd'"
wr withdraw w-abcd -j
is "withdraw without a store refuses (exit 2)" "$RC" 2
check "... with unknown_gate" out_has '"unknown_gate"'
check "wait and withdraw made no state directory" test ! -e "$S"

diag "warrant answer run by the agent: only the reviewer answers"
wr answer w-abcdefghij --run
is "answer without a store refuses (exit 2)" "$RC" 2
check "... saying only the reviewer answers" err_has "only the reviewer answers"
check "... and made no state directory" test ! -e "$S"
as_req env WARRANT_SOCKET=/run/warrant/wtnobody/req.sock timeout -k 5 60 "$W" answer \
    w-abcdefghij --deny >"$WT_T/out" 2>"$WT_T/err"
RC=$?
is "answer in an agent's shell pointed at a daemon refuses (exit 2)" "$RC" 2
check "... naming the reviewer's daemon, which the reviewer answers at" \
    err_has "your requests go to the reviewer's daemon at /run/warrant/wtnobody/req.sock"
check "... and made no state directory" test ! -e "$S"

diag "a relative path: the hint names the word"
use_state cli
req1 '["/usr/bin/dpkg","-i","wt-pkg.deb"]' >"$WT_T/in"
wr request -j <"$WT_T/in"
jcheck "relative_path's hint names the word that was relative" \
    "j['error']['code'] == 'relative_path' and j['error']['hint'].startswith(\"'wt-pkg.deb' is relative\") and '/wt-pkg.deb' in j['error']['hint']" "$WT_T/out"

diag "make install says what its last step does"
# the recipe's record step, and the line before it
rec=$(awk '/^install:/ { on = 1; next } on && !/^\t/ { exit } on { print }' "$WARRANT_TOP/Makefile" |
    grep -B1 'uninstall.sh --record')
check "the record step runs quietly (@), after an echo saying what it records" \
    sh -c "printf '%s\n' \"\$1\" | head -n 1 | grep -q '^	@echo \"Recording the installed files' &&
    printf '%s\n' \"\$1\" | tail -n 1 | grep -q '^	@sh scripts/uninstall.sh --record'" - "$rec"

done_testing
