# SPDX-License-Identifier: ISC
# Shared helpers for the end-to-end tests (POSIX sh, TAP output).
# Each test script: . "$WARRANT_TOP/tests/e2e/lib.sh", then checks, then
# done_testing. A check's description starts with the tag of the promise of
# docs/design.md §1 it covers ([P1] ... [P7]); usage and formatting checks
# carry none.
#
# The users the suites create (wt-requester here, the reviewers in
# sudo-lib.sh) are removed at the end of tests/run.sh (tests/e2e/setup.sh
# teardown); a suite run on its own leaves them for the next run.
set -u
n=0
fails=0
# printf, not echo: dash's echo would turn a "\n" in a description into a
# line break and corrupt the TAP stream.
ok() { n=$((n + 1)); printf 'ok %s - %s\n' "$n" "$*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); printf 'not ok %s - %s\n' "$n" "$*"; }
# skip DESC WHY: a test this machine cannot run (counts as passed in TAP).
skip() { n=$((n + 1)); printf 'ok %s - %s # SKIP %s\n' "$n" "$1" "$2"; }
# skip_all WHY: the whole script cannot run here.
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
need_root() { [ "$(id -u)" -eq 0 ] || skip_all "$*"; }
# check DESC COMMAND...: ok when the command succeeds.
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# wait_for EXPR SECONDS: EXPR (eval'd here: expand any $1 before) is
# true within SECONDS, looked at every 0.1 s (a condition waited for,
# not a time measured). Suites that wait on a screen define their own.
wait_for() {
	wf_i=0
	while ! eval "$1"; do
		wf_i=$((wf_i + 1))
		[ "$wf_i" -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}
# is DESC GOT WANT: ok when the two strings are equal.
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "got '$2', want '$3'"; fi
}
done_testing() { echo "1..$n"; }
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }
# bail MESSAGE: stop the whole script with a visible failure (for set-up
# problems the remaining tests cannot survive).
bail() {
	not_ok "$*"
	done_testing
	exit 1
}

T0=$(date +%s)
section() { diag "--- $* (at $(($(date +%s) - T0)) s)"; }

# at_exit CMD: run CMD when the script ends (the last registered first).
_at_exit=:
at_exit() { _at_exit="$1; $_at_exit"; }
trap 'eval "$_at_exit"' EXIT
trap 'exit 130' INT TERM HUP

# The system python3 (not a per-user shim, which would be slow and
# invisible to the other users): JSON is read with it.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# free_port: a TCP port of 127.0.0.1 that nothing listens on now (the
# kernel's pick: a random one could be in use, even by an outgoing
# connection).
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The one JSON reader behind jval and jscan. argv: MODE (strict: the file
# is one JSON document; scan: every JSON object or array in the text, as
# in a pty transcript), EXPR, PATH ("-": stdin). In scan mode `j` is the
# last value and `objs` all of them. Helpers: ledger(j), entries(j),
# entry(j, id), strings(j), has_text(j, s). str results print raw, others
# as compact JSON.
# shellcheck disable=SC2016
_JSON_PY='
import json, sys
mode, expr, path = sys.argv[1:4]
try:
    errors = "strict" if mode == "strict" else "replace"
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8", errors=errors).read()
except (OSError, ValueError) as e:
    print("<unreadable>", e)
    sys.exit(1)
objs = []
if mode == "strict":
    try:
        objs = [json.loads(text)]
    except ValueError as e:
        print("<invalid>", e)
        sys.exit(1)
else:
    text = text.replace("\r", "")
    dec, i = json.JSONDecoder(), 0
    while True:
        ks = [k for k in (text.find("{", i), text.find("[", i)) if k >= 0]
        if not ks:
            break
        k = min(ks)
        try:
            o, end = dec.raw_decode(text, k)
            if isinstance(o, (dict, list)):
                objs.append(o)
            i = end
        except ValueError:
            i = k + 1
j = objs[-1] if objs else None
def ledger(x):
    if isinstance(x, dict) and isinstance(x.get("entries"), list):
        return x
    if isinstance(x, dict) and isinstance(x.get("ledger"), dict):
        return x["ledger"]
    raise KeyError("no ledger")
def entries(x):
    return ledger(x)["entries"]
def entry(x, cid):
    for e in entries(x):
        if e.get("id") == cid:
            return e
    raise KeyError("no entry " + cid)
def strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield k
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)
def has_text(x, s):
    return any(s in t for t in strings(x))
try:
    r = eval(expr)
except Exception as e:
    if mode == "strict":
        print("<invalid>", repr(e))
    else:
        print("jscan: %s: %r" % (expr, e), file=sys.stderr)
    sys.exit(1)
if mode == "scan" and (r is None or r is False):
    sys.exit(1)
print(r if isinstance(r, str) else json.dumps(r, separators=(",", ":")))
'

# jval FILE EXPR: a Python expression over the one JSON document in FILE
# (bound to j). Prints "<invalid>" and fails when FILE is not one JSON
# document or the expression fails.
jval() { "$PY" -c "$_JSON_PY" strict "$2" "$1"; }

# jscan EXPR [FILE]: the expression over the last JSON object or array in
# FILE (default stdin), which may hold other text (a pty transcript);
# fails when the expression fails or is False/None.
jscan() { "$PY" -c "$_JSON_PY" scan "$1" "${2:--}"; }

# jcheck DESC EXPR FILE: ok when jscan EXPR FILE is true.
WT_JERR=$(mktemp /tmp/warrant-jcheck.XXXXXX)
at_exit 'rm -f "$WT_JERR"'
jcheck() {
	if jscan "$2" "$3" >/dev/null 2>"$WT_JERR"; then
		ok "$1"
	else
		not_ok "$1"
		diag "expected: $2"
		head -c 300 "$WT_JERR" | sed 's/^/#   /'
		diag "in $3: $(tr -d '\r' <"$3" 2>/dev/null | grep -v '^## ptydrive' | tail -c 600 | tr '\n' ' ')"
	fi
}

# build_prefix DIR: the install prefix the Meson build DIR is configured
# with (the runner path compiled into warrant is under it).
build_prefix() {
	meson introspect --buildoptions "$1" 2>/dev/null | "$PY" -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))'
}

# private_prefix PATH: PATH is a prefix the test suite owns (its last
# component is warrant-test), which it may install into and remove.
private_prefix() {
	case $1 in
	/?*/warrant-test) return 0 ;;
	*) return 1 ;;
	esac
}

# What the suites test: the build WARRANT_BUILD, installed into its
# private prefix (/opt/warrant-test) by tests/e2e/setup.sh, or, when
# WARRANT_PREFIX is set, the warrant a package installed under that prefix
# (tests/deb/test-deb.sh: /usr), which nothing here installs or removes.
installed_mode() { [ -n "${WARRANT_PREFIX:-}" ]; }

# build_config NAME: the string the build compiled in as NAME (config.h).
build_config() { sed -n "s/^#define $1 \"\\(.*\\)\"\$/\\1/p" "$WARRANT_BUILD/config.h"; }

# iolog_dir: where the warrant under test keeps its I/O logs: the default
# (the Debian package's) or WARRANT_IOLOG_DIR for an installed build, the
# configured one for a build tree.
iolog_dir() {
	if installed_mode; then
		echo "${WARRANT_IOLOG_DIR:-/var/log/warrant-io}"
	else
		sed -n 's/^#define WARRANT_IOLOG_DIR "\(.*\)"$/\1/p' "$WARRANT_BUILD/config.h"
	fi
}

# A copy of the built binaries that any user can execute, outside the
# (possibly private) build tree; the installed warrant itself when
# WARRANT_PREFIX is set. WT_T is a root-only scratch directory.
setup_bin() {
	WT_DIR=$(mktemp -d /tmp/warrant-e2e.XXXXXX)
	chmod 755 "$WT_DIR"
	mkdir -p "$WT_DIR/bin"
	chmod 755 "$WT_DIR/bin"
	if installed_mode; then
		W="$WARRANT_PREFIX/bin/warrant"
	else
		cp "$WARRANT_BUILD/warrant" "$WT_DIR/bin/warrant"
		chmod 755 "$WT_DIR/bin/warrant"
		# review, serve and pair run warrant-ui, found next to warrant
		cp "$WARRANT_BUILD/warrant-ui" "$WT_DIR/bin/warrant-ui"
		chmod 755 "$WT_DIR/bin/warrant-ui"
		W="$WT_DIR/bin/warrant"
	fi
	WT_T="$WT_DIR/t"
	mkdir -p "$WT_T"
	chmod 700 "$WT_T"
}

# The non-root requester the tests act as: created when running as root,
# otherwise the current user.
setup_requester() {
	if [ "$(id -u)" -eq 0 ]; then
		REQ=wt-requester
		id "$REQ" >/dev/null 2>&1 || useradd -m -s /bin/sh "$REQ" || return 1
		REQ_HOME=$(getent passwd "$REQ" | cut -d: -f6)
	else
		REQ=$(id -un)
		REQ_HOME=$HOME
	fi
	REQ_UID=$(id -u "$REQ")
}

# as_req CMD...: run as the requester with a clean environment and the
# test's state directory.
as_req() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$REQ" --regid="$(id -g "$REQ")" --init-groups \
		    env -i HOME="$REQ_HOME" PATH=/usr/bin:/bin LANG=C \
		    WARRANT_HOME="${WARRANT_HOME_REQ:-$REQ_HOME/.wt-state}" "$@"
	else
		env WARRANT_HOME="${WARRANT_HOME_REQ:-$REQ_HOME/.wt-state}" "$@"
	fi
}

# running_pids PATTERN: the processes whose command line matches PATTERN
# (pgrep -f), sudo itself left out. Before a batch starts, the runner asks
# `sudo -n -l -U USER -u TARGET -- PATH ARGS...` of every ROOT command, and
# that question's command line holds the command's own words: a test that
# waits for a command of the batch to run must not take the question for
# it. (Root reads every /proc/PID/exe; a process gone meanwhile is left out.)
running_pids() {
	for rp_p in $(pgrep -f "$1" 2>/dev/null); do
		case $(readlink "/proc/$rp_p/exe" 2>/dev/null) in
		*/sudo | */sudo-rs | '') ;;
		*) echo "$rp_p" ;;
		esac
	done
}

# /run/warrant is shared by the suites: one removes it only when it was
# not there before the suite began (and only once it is empty again).
WT_RUNDIR_WAS=$([ -e /run/warrant ] && echo 1)
# requesters_teardown REVIEWER: what `warrant requesters add` made for
# REVIEWER goes: the group warrant-REVIEWER, its socket directory and its
# tmpfiles.d entry (and the temporary copy a killed write leaves).
requesters_teardown() {
	groupdel "warrant-$1" >/dev/null 2>&1
	rm -rf "/run/warrant/$1" "/etc/tmpfiles.d/warrant-$1.conf" /etc/tmpfiles.d/.warrant-"$1".conf.*
	[ -n "$WT_RUNDIR_WAS" ] || rmdir /run/warrant 2>/dev/null
}

# stop_daemon [SIGNAL]: the suite's daemon (DPID) gets SIGNAL (TERM: it
# stops cleanly and removes its socket) and is waited for; its exit
# status in DRC. Nothing when none runs.
DPID=
stop_daemon() {
	[ -n "$DPID" ] || return 0
	kill -"${1:-TERM}" "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DRC=$?
	DPID=
}

cleanup_bin() { rm -rf "$WT_DIR"; }

# setup_base: WT_RB, a private directory owned by the requester inside its
# home, under which each test keeps its state directories.
setup_base() {
	WT_RB=$(mktemp -d "$REQ_HOME/wt-e2e.XXXXXX") || return 1
	chown "$REQ_UID:$(id -g "$REQ")" "$WT_RB"
	chmod 700 "$WT_RB"
}
cleanup_base() { [ -n "${WT_RB:-}" ] && rm -rf "$WT_RB"; }

# requester_fixture: the set-up of the suites that act as the requester
# (needs root): the binary copy, the requester and its base directory,
# each removed when the script ends.
requester_fixture() {
	setup_bin
	at_exit cleanup_bin
	setup_requester || bail "the requester $REQ is created"
	setup_base || bail "a private base directory in $REQ_HOME"
	at_exit cleanup_base
}

# wr ARGS...: warrant ARGS as the requester; stdout and stderr in
# $WT_T/out and $WT_T/err, the exit code in RC. Stdin is empty unless
# redirected.
wr() {
	as_req timeout -k 5 60 "$W" "$@" >"$WT_T/out" 2>"$WT_T/err"
	RC=$?
}
# err_has TEXT / out_has TEXT: the last wr's stderr / stdout holds TEXT.
err_has() { grep -qF -- "$1" "$WT_T/err"; }
out_has() { grep -qF -- "$1" "$WT_T/out"; }

# use_state NAME: point the requester at a (not yet created) state
# directory $WT_RB/NAME/state; sets S to its path.
use_state() {
	S="$WT_RB/$1/state"
	WARRANT_HOME_REQ=$S
}

# refusal_of FILE: "CODE PATH" of a refusal printed by `request -j`, when
# FILE holds exactly {"error":{"code","message","path"}} with a non-empty
# message; otherwise a description of what it holds.
refusal_of() {
	"$PY" -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
try:
    j = json.loads(raw)
    e = j["error"]
    # a hint (how to ask instead) is there whenever the code has one
    assert list(j) == ["error"] and sorted(e) in (["code", "message", "path"],
        ["code", "hint", "message", "path"])
    assert isinstance(e["message"], str) and e["message"]
    assert isinstance(e.get("hint", "x"), str) and e.get("hint", "x")
    print(e["code"], e["path"])
except Exception:
    print("malformed:", raw[:200])
' "$1"
}

# store_snap: what the current state directory holds, to show a refusal
# changed nothing: "absent", or the counts of gates, commands and events
# and the lines of requests.jsonl.
store_snap() {
	if [ ! -e "$WARRANT_HOME_REQ" ]; then
		echo absent
		return
	fi
	printf '%s/%s\n' "$(as_req sqlite3 "$WARRANT_HOME_REQ/warrant.db" \
	    "SELECT (SELECT count(*) FROM gates) || '/' || (SELECT count(*) FROM commands)
	     || '/' || (SELECT count(*) FROM events)" 2>&1)" \
	    "$(cat "$WARRANT_HOME_REQ/requests.jsonl" 2>/dev/null | wc -l)"
}

# gate_count: gates in the current state directory (0 when absent).
gate_count() {
	if [ ! -e "$WARRANT_HOME_REQ/warrant.db" ]; then
		echo 0
		return
	fi
	as_req sqlite3 "$WARRANT_HOME_REQ/warrant.db" "SELECT count(*) FROM gates"
}

# refused_file CODE PATH DESC FILE [ARGS...]: `warrant request -j ARGS`
# run as the requester on FILE must exit 2 with exactly that refusal code
# and JSON path (PATH "-": any path), and leave the state directory as it
# was (not even created when it did not exist). Tagged [P5].
refused_file() {
	_code=$1 _path=$2 _desc=$3 _in=$4
	shift 4
	_before=$(store_snap)
	as_req timeout -k 5 60 "$W" request -j "$@" <"$_in" >"$WT_T/out" 2>"$WT_T/err"
	_rc=$?
	_got=$(refusal_of "$WT_T/out")
	_after=$(store_snap)
	_want="$_code $_path"
	[ "$_path" = - ] && _got="${_got%% *} -"
	if [ "$_rc" -eq 2 ] && [ "$_got" = "$_want" ] && [ "$_before" = "$_after" ]; then
		ok "[P5] $_desc"
	else
		not_ok "[P5] $_desc"
		diag "exit $_rc; got '$_got', want '$_want'; store '$_before' -> '$_after'"
		diag "$(head -c 400 "$WT_T/out")"
		diag "$(head -c 400 "$WT_T/err")"
	fi
}

# refused CODE PATH DESC REQUEST [ARGS...]: the same with the request given
# as a string (use refused_file for input holding NUL bytes).
refused() {
	printf '%s' "$4" >"$WT_T/in"
	_c=$1 _p=$2 _d=$3
	shift 4
	refused_file "$_c" "$_p" "$_d" "$WT_T/in" "$@"
}

# accepted_file DESC FILE [ARGS...]: the request must become exactly one new
# pending gate; GATE is its id and $WT_T/desc its descriptor.
accepted_file() {
	_desc=$1 _in=$2
	shift 2
	GATE=
	_before=$(gate_count)
	as_req timeout -k 5 60 "$W" request -j "$@" <"$_in" >"$WT_T/desc" 2>"$WT_T/err"
	_rc=$?
	_after=$(gate_count)
	_id=$(jval "$WT_T/desc" 'j["request_id"] if j["state"] == "pending" else "not pending"')
	if [ "$_rc" -eq 0 ] && [ "$_after" = "$((_before + 1))" ] &&
	    echo "$_id" | grep -Eqx 'w-[a-z2-7]{10}'; then
		GATE=$_id
		ok "$_desc"
	else
		not_ok "$_desc"
		diag "exit $_rc; id '$_id'; gates $_before -> $_after"
		diag "$(head -c 400 "$WT_T/desc")"
		diag "$(head -c 400 "$WT_T/err")"
	fi
}

# accepted DESC REQUEST [ARGS...]
accepted() {
	printf '%s' "$2" >"$WT_T/in"
	_d=$1
	shift 2
	accepted_file "$_d" "$WT_T/in" "$@"
}

# Requests built from pieces of JSON text.
# req1 ARGV [CMDFIELDS [TOPFIELDS]]: one command "a" with that argv.
req1() {
	printf '{"reason":"r"%s,"commands":[{"id":"a","why":"w","argv":%s%s}]}\n' \
	    "${3:+,$3}" "$1" "${2:+,$2}"
}
# requ ARGV: one YOU command with that argv.
requ() { req1 "$1" '"as":"user"'; }
# reqc STRING: one YOU command with that (JSON-quoted) command string.
reqc() {
	printf '{"reason":"r","commands":[{"id":"a","why":"w","as":"user","command":%s}]}\n' "$1"
}
# reqtop TOPFIELDS: top-level fields around one harmless command.
reqtop() {
	printf '{"reason":"r",%s,"commands":[{"id":"a","why":"w","argv":["/usr/bin/true"]}]}\n' "$1"
}
