# Shared helpers for the end-to-end tests (POSIX sh, TAP output).
# Each test script: . "$WARRANT_TOP/tests/e2e/lib.sh", then ok/not_ok, then done_testing.
set -u
n=0
# printf, not echo: dash's echo would turn a "\n" in a description into a
# line break and corrupt the TAP stream.
ok() { n=$((n + 1)); printf 'ok %s - %s\n' "$n" "$*"; }
not_ok() { n=$((n + 1)); printf 'not ok %s - %s\n' "$n" "$*"; }
# skip DESC WHY: a test this machine cannot run (counts as passed in TAP).
skip() { n=$((n + 1)); printf 'ok %s - %s # SKIP %s\n' "$n" "$1" "$2"; }
# check DESC COMMAND...: ok when the command succeeds.
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
done_testing() { echo "1..$n"; }
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

# The system python3 (not a per-user shim): JSON is parsed with it.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# A copy of the built binaries that any user can execute, outside the
# (possibly private) build tree. WT_T is a root-only scratch directory.
setup_bin() {
	WT_DIR=$(mktemp -d /tmp/warrant-e2e.XXXXXX)
	chmod 755 "$WT_DIR"
	mkdir -p "$WT_DIR/bin"
	chmod 755 "$WT_DIR/bin"
	cp "$WARRANT_BUILD/warrant" "$WT_DIR/bin/warrant"
	chmod 755 "$WT_DIR/bin/warrant"
	W="$WT_DIR/bin/warrant"
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

cleanup_bin() { rm -rf "$WT_DIR"; }

# setup_base: WT_RB, a private directory owned by the requester inside its
# home, under which each test keeps its state directories.
setup_base() {
	WT_RB=$(mktemp -d "$REQ_HOME/wt-e2e.XXXXXX") || return 1
	chown "$REQ_UID:$(id -g "$REQ")" "$WT_RB"
	chmod 700 "$WT_RB"
}
cleanup_base() { [ -n "${WT_RB:-}" ] && rm -rf "$WT_RB"; }

# use_state NAME: point the requester at a (not yet created) state
# directory $WT_RB/NAME/state; sets S to its path.
use_state() {
	S="$WT_RB/$1/state"
	WARRANT_HOME_REQ=$S
}

# jval FILE EXPR: a Python expression over the JSON document in FILE
# (bound to j); strings print raw, everything else as compact JSON.
# Prints "<invalid>" and fails when FILE is not one JSON document.
jval() {
	"$PY" -c '
import json, sys
try:
    j = json.load(open(sys.argv[1], encoding="utf-8"))
    v = eval(sys.argv[2])
except Exception as e:
    print("<invalid>", e)
    sys.exit(1)
print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":")))
' "$1" "$2"
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
    assert list(j) == ["error"] and sorted(e) == ["code", "message", "path"]
    assert isinstance(e["message"], str) and e["message"]
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
# was (not even created when it did not exist).
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
		ok "$_desc"
	else
		not_ok "$_desc"
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
