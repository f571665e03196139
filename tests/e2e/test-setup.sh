#!/bin/sh
# SPDX-License-Identifier: ISC
# docs/setup.md, walkthrough B (the agent as its own user), run as written.
# The blocks marked <!-- walkthrough: agent-user ROLE --> are taken from
# the document and run in document order:
#
#   names         the reviewer's shell variables (AGENT=…): checked, and
#                 replaced by the test's user name
#   reviewer      sh, as the reviewer wt-setup-rev (group sudo, a canary
#                 password) in a pseudo-terminal, with the real sudo prompt
#                 answered (tests/e2e/pty-sudo.exp); USER and AGENT set
#   agent-names   the agent's shell variables (REVIEWER=…): checked and
#                 replaced
#   agent         sh, as the box user wt-setup-agent, as a login shell would
#                 (~/.profile read first); a block with `request -w` runs
#                 in the background until the review below answers it
#   review        sh in a tmux pane as the reviewer: the console, driven
#                 with the keys the document names (Enter, Enter, the
#                 password at sudo's prompt, Enter, q)
#   mcp-command   the server command after `--` of an MCP client's one-liner
#   mcp-claude, mcp-codex, mcp-opencode
#                 the MCP server entry of each client's configuration
#                 (JSON, TOML, JSON): each is started as the agent, with a
#                 client's reduced environment plus the entry's own, and
#                 sent one tool call, which must reach the reviewer's queue
#                 as the agent's request and come back denied
#   teardown      "Taking it down": sh as the reviewer like `reviewer`, run
#                 after the checks of what B protects; then nothing of
#                 warrant's may be left: the files where it writes and the
#                 account and group databases are as before the walkthrough
#
# Only the user names (AGENT, USER, REVIEWER and the example name `alice`
# inside the MCP entries) and the install prefix (/usr/local/bin/warrant,
# and sudo's secure_path through a drop-in for the reviewer) are replaced:
# the commands are the document's. systemctl, loginctl and `sudo -iu` are
# not run (no systemd user manager here; the test starts the agent's
# shells itself). The build is the one installed in its private prefix.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-setup.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

SR_USER=wt-setup-rev
SR_USER2=wt-setup-out
AG=wt-setup-agent
REV=$SR_USER
GRP=warrant-$REV
SOCK=/run/warrant/$REV/req.sock
DROPIN=/etc/sudoers.d/wt-setup
# WT_SETUP_DOC: another copy of the document (to see this test fail on a
# broken one).
DOC=${WT_SETUP_DOC:-$WARRANT_TOP/docs/setup.md}

need_root "the walkthrough creates users, groups and /run/warrant directories"
sr_need || bail "the programs the real-sudo tests drive are installed"
command -v tmux >/dev/null 2>&1 || bail "tmux is installed (scripts/deps.sh)"
# An agent user left by an interrupted run of this test: the walkthrough
# starts from a machine without it.
for p in $(pgrep -u "$AG" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
userdel -r "$AG" >/dev/null 2>&1
rm -f "/var/lib/warrant/box/$AG.user" "/var/lib/warrant/box/$GRP.group"
requesters_teardown "$REV"

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
SR_DIR=$(mktemp -d /tmp/warrant-setup-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
TSOCK=wt-setup-$$
BG_PIDS=
# set for real below; the clean-up may run before
RV_HOME=/nonexistent AG_HOME=/nonexistent SR_PREFIX=/nonexistent AG_UID=

tm() { tmux -L "$TSOCK" -f /dev/null "$@"; }
# The console in a tmux pane (as in test-review.sh): its screen, keys, and
# waiting for a text to show.
screen() { tm capture-pane -p -t "$CS" 2>/dev/null; }
keys() { tm send-keys -t "$CS" "$@"; sleep 0.3; }
has() { screen | grep -qF -- "$1"; }
wait_for() {
	wf=0
	while [ "$wf" -lt "${2:-50}" ]; do
		has "$1" && return 0
		sleep 0.1
		wf=$((wf + 1))
	done
	return 1
}
shot() {
	screen >"$SR_DIR/screen-$n.txt"
	diag "screen (kept in $SR_DIR/screen-$n.txt):"
	sed 's/^/  |/' "$SR_DIR/screen-$n.txt" | while IFS= read -r l; do diag "$l"; done
}
# shows DESC TEXT [TENTHS]: ok when the screen shows TEXT in time.
shows() {
	if wait_for "$2" "${3:-50}"; then ok "$1"; else not_ok "$1"; diag "want '$2'"; shot; fi
}

cleanup() {
	tm kill-server >/dev/null 2>&1
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	# the reviewer's own tmux server (the daemon's session) and anything
	# else the two throwaway users still run
	id "$REV" >/dev/null 2>&1 && as_rev tmux kill-server >/dev/null 2>&1
	for u in "$AG" "$REV"; do
		for p in $(pgrep -u "$u" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	done
	sleep 0.2
	userdel -r "$AG" >/dev/null 2>&1
	rm -f "/var/lib/warrant/box/$AG.user" "/etc/sudoers.d/warrant-box-$AG" \
	    "/var/lib/warrant/box/$GRP.group" "/var/lib/warrant/box/api/$AG.key"
	# The record of the ids box remove retired is the host's, kept by
	# design; this suite's own (its throwaway agent's) is its artifact:
	# left, the package's purge in tests/deb would delete what was there
	# before it was installed.
	for f in /var/lib/warrant/box/retired/[ug]id.*; do
		[ -f "$f" ] && [ "$(cat "$f")" = "$AG" ] && rm -f "$f"
	done
	rmdir /var/lib/warrant/box/retired 2>/dev/null
	requesters_teardown "$REV"
	rm -f "$DROPIN"
	sr_user_teardown
	for u in "$REV" "$SR_USER2"; do
		userdel -r "$u" >/dev/null 2>&1
		rm -f "/var/lib/sudo/lectured/$u"
	done
	sr_dir_done
}
at_exit cleanup

# as_rev CMD...: CMD as the reviewer, a login-like environment without
# WARRANT_HOME (the document uses the default store), warrant on PATH.
as_rev() {
	setpriv --reuid="$REV" --regid="$(id -g "$REV")" --init-groups \
	    env -i HOME="$RV_HOME" USER="$REV" LOGNAME="$REV" SHELL=/bin/bash \
	    PATH="$SR_PREFIX/bin:/usr/bin:/bin" LANG=C TERM=xterm AGENT="$AG" "$@"
}
# as_agent CMD...: CMD as the agent user, the same way, for at most
# AS_LIMIT seconds (default 120).
as_agent() {
	timeout -k 5 "${AS_LIMIT:-120}" setpriv --reuid="$AG" --regid="$(id -g "$AG")" --init-groups \
	    env -i HOME="$AG_HOME" USER="$AG" LOGNAME="$AG" SHELL=/bin/bash \
	    PATH="$SR_PREFIX/bin:/usr/bin:/bin" LANG=C TERM=xterm REVIEWER="$REV" "$@"
}
rev() { as_rev "$W" "$@"; }

# ------------------------------------------------------------ the document
section "the walkthrough's blocks in docs/setup.md"
# extract: every marked block into $SR_DIR/blocks/NN (its text, the
# fence's indentation removed) and one line "NN ROLE LANG" in the index.
mkdir -p "$SR_DIR/blocks"
"$PY" - "$DOC" "$SR_DIR/blocks" >"$SR_DIR/blocks/index" 2>"$SR_DIR/blocks/errors" <<'EOF'
import re, sys
doc, out = sys.argv[1], sys.argv[2]
lines = open(doc, encoding="utf-8").read().split("\n")
mark = re.compile(r"^\s*<!-- walkthrough: agent-user ([a-z-]+) -->\s*$")
fence = re.compile(r"^(\s*)```([a-z]+)\s*$")
i, k, bad = 0, 0, 0
while i < len(lines):
    m = mark.match(lines[i])
    i += 1
    if not m:
        continue
    while i < len(lines) and lines[i].strip() == "":
        i += 1
    f = fence.match(lines[i]) if i < len(lines) else None
    if not f:
        print("line %d: a marker not followed by a fenced block" % i, file=sys.stderr)
        bad = 1
        continue
    ind, lang = f.group(1), f.group(2)
    i += 1
    body = []
    while i < len(lines) and lines[i].strip() != "```":
        body.append(lines[i][len(ind):] if lines[i].startswith(ind) else lines[i])
        i += 1
    i += 1
    k += 1
    open("%s/%02d" % (out, k), "w", encoding="utf-8").write("\n".join(body) + "\n")
    print("%02d %s %s" % (k, m.group(1), lang))
sys.exit(bad)
EOF
check "every walkthrough marker is followed by a fenced block" [ $? -eq 0 ]
[ -s "$SR_DIR/blocks/errors" ] && diag "$(cat "$SR_DIR/blocks/errors")"
chmod -R a+rX "$SR_DIR/blocks"
roles() { awk -v r="$1" '$2 == r' "$SR_DIR/blocks/index" | wc -l | tr -d ' '; }
is "the walkthrough has its parts (names, reviewer, agent-names, agent, review, mcp-*, teardown)" \
    "$(roles names) $([ "$(roles reviewer)" -ge 4 ] && echo 4+) $(roles agent-names) $(roles agent) $(roles review) $(roles mcp-command) $(roles mcp-claude) $(roles mcp-codex) $(roles mcp-opencode) $(roles teardown)" \
    "1 4+ 1 2 1 1 1 1 1 3"
unknown=$(awk '$2 !~ /^(names|reviewer|agent-names|agent|review|mcp-command|mcp-claude|mcp-codex|mcp-opencode|teardown)$/' \
    "$SR_DIR/blocks/index")
is "no block has a role this test does not know" "$unknown" ""
lang_ok=$(awk '($2 ~ /^(names|reviewer|agent-names|agent|review|mcp-command|teardown)$/ && $3 != "sh") ||
    ($2 == "mcp-codex" && $3 != "toml") || ($2 ~ /^mcp-(claude|opencode)$/ && $3 != "json")' \
    "$SR_DIR/blocks/index")
is "shell blocks are sh, the configurations json and toml" "$lang_ok" ""

# The name blocks only assign the names the test replaces; the example
# reviewer name (alice) is what the MCP entries spell out.
DOC_AGENT= DOC_REV=
for b in $(awk '$2 == "names" || $2 == "agent-names" { print $1 }' "$SR_DIR/blocks/index"); do
	while IFS= read -r l; do
		case $l in
		"" | "#"*) ;;
		AGENT=*) DOC_AGENT=${l#AGENT=} ;;
		REVIEWER=*) DOC_REV=${l#REVIEWER=} ;;
		*) not_ok "a name block only assigns AGENT or REVIEWER"; diag "line: $l" ;;
		esac
	done <"$SR_DIR/blocks/$b"
done
check "the document names the agent's user and the reviewer (AGENT=$DOC_AGENT, REVIEWER=$DOC_REV)" \
    sh -c "echo '$DOC_AGENT $DOC_REV' | grep -Eqx '[a-z_][a-z0-9_-]* [a-z_][a-z0-9_-]*'"

# ------------------------------------------------------------ the machine
section "a reviewer with a password, as on a fresh Debian machine"
sr_user_setup || bail "the reviewer $REV is set up (group sudo, a password)"
sr_install || bail "warrant is installed in its private prefix"
W=$SR_WARRANT
RV_HOME=$SR_HOME
# `make install` puts warrant on sudo's secure_path (/usr/local/bin); the
# test's install is in its private prefix, so the reviewer's sudo gets it
# on the path instead (nothing is installed under /usr/local).
sp=$(sudo -V 2>/dev/null | sed -n 's/^Value to override user.s \$PATH with: //p')
printf 'Defaults:%s secure_path="%s/bin:%s"\n' "$REV" "$SR_PREFIX" \
    "${sp:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}" >"$SR_DIR/dropin"
visudo -cqf "$SR_DIR/dropin" && install -m 0440 -o root -g root "$SR_DIR/dropin" "$DROPIN"
check "sudo finds the installed warrant for the reviewer (a secure_path drop-in)" visudo -cq
check "[P3] the reviewer's sudo asks for a password (no NOPASSWD rule)" sr_no_nopasswd

# run_rev_block NN: the reviewer's block NN in a pty, sudo answered.
run_rev_block() {
	pty_run right "block-$1" 120 setpriv --reuid="$REV" --regid="$(id -g "$REV")" --init-groups \
	    env -i HOME="$RV_HOME" USER="$REV" LOGNAME="$REV" SHELL=/bin/bash \
	    PATH="$SR_PREFIX/bin:/usr/bin:/bin" LANG=C TERM=xterm AGENT="$AG" \
	    /bin/sh -c 'set -e; . "$1"' sh "$SR_DIR/blocks/$1"
}
# agent_block_cmd NN: the words that run the agent's block NN as a login
# shell would (its ~/.profile first).
run_agent_block() {
	as_agent /bin/sh -c '. "$HOME/.profile"; set -e; . "$1"' sh "$SR_DIR/blocks/$1"
}

# footprint: what warrant writes on this machine, as text: every file
# under the places it writes (the reviewer's home left out: the store
# there stays, by design) with owner, group and mode, and the account
# and group databases (the subordinate ids sorted: useradd and userdel
# rewrite those files in an order of their own). The record of retired
# uids and gids stays by design too (box init never gives them again),
# and with it the box directory and its lock: checked on their own.
footprint() {
	find /etc/tmpfiles.d /etc/sudoers.d /run/warrant /var/lib/warrant /home /var/mail \
	    -path "$RV_HOME" -prune -o -printf '%p %u %g %m\n' 2>/dev/null | sort |
	    grep -Ev '^/var/lib/warrant(/box(/lock|/retired(/[ug]id\.[0-9]+)?)?)? ' |
	    if [ -e /usr/lib/tmpfiles.d/warrant.conf ]; then
		# the package's own (its tmpfiles entry makes it at boot): not the set-up's
		grep -vx '/run/warrant root root 755'
	    else
		cat
	    fi
	cat /etc/passwd /etc/group
	sort /etc/subuid /etc/subgid 2>/dev/null
}
# An interrupted run's record of the agent, and a box directory that
# records nothing, go as the teardown below would take them.
"$W" box remove --user "$AG" >/dev/null 2>&1
footprint >"$SR_DIR/footprint-before"

# ------------------------------------------------------------ the walkthrough
# The MCP client of the mcp-* blocks.
cat >"$SR_DIR/mcpcall.py" <<'PYEOF'
# One MCP session as a client starts it: the server from the entry, with a
# reduced environment (HOME, USER, PATH) plus the entry's own; initialize,
# one request_commands call, its result printed; then stdin is closed.
import json, os, signal, subprocess, sys
spec = json.load(open(sys.argv[1]))
reason = "setup " + sys.argv[2]
signal.alarm(90)
env = {k: os.environ[k] for k in ("HOME", "USER", "LOGNAME", "LANG") if k in os.environ}
env["PATH"] = "/usr/bin:/bin"
env.update(spec["env"])
p = subprocess.Popen(spec["cmd"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode())
    p.stdin.flush()
def recv(i):
    for line in p.stdout:
        o = json.loads(line)
        if o.get("id") == i:
            return o
    sys.exit("the server ended before answering %d" % i)
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "wt-setup", "version": "1"}}})
recv(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
    "name": "request_commands", "arguments": {"reason": reason, "commands": [
        {"id": "who", "argv": ["/usr/bin/id", "-un"], "why": "the walkthrough's MCP check"}]}}})
print(json.dumps(recv(2)))
p.stdin.close()
p.wait(timeout=20)
PYEOF
chmod 644 "$SR_DIR/mcpcall.py"

AG_HOME=/home/$AG
REQ_BLOCK= REQ_PID= TEARDOWN=
while read -r nn role _lang <&3; do
	first=$(grep -v '^[[:space:]]*\(#.*\)\{0,1\}$' "$SR_DIR/blocks/$nn" | head -1)
	case $role in
	names | agent-names) ;;
	teardown) TEARDOWN="$TEARDOWN $nn" ;;
	reviewer)
		section "block $nn (reviewer): $first"
		run_rev_block "$nn"
		is "block $nn as the reviewer exits 0: $first" "$PTY_RC" 0
		[ "$PTY_RC" -eq 0 ] || diag "$(tr -d '\r' <"$PTY_LOG" | tail -8)"
		case $first in
		*"box init"*)
			AG_HOME=$(getent passwd "$AG" | cut -d: -f6)
			AG_UID=$(id -u "$AG")
			;;
		*"warrant serve"*)
			i=0
			while [ ! -S "$SOCK" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
			check "the daemon started in tmux listens on $SOCK" [ -S "$SOCK" ]
			;;
		esac
		;;
	agent)
		section "block $nn (agent): $first"
		if grep -q 'request -w' "$SR_DIR/blocks/$nn"; then
			AS_LIMIT=400 run_agent_block "$nn" >"$SR_DIR/agent-$nn.out" 2>"$SR_DIR/agent-$nn.err" </dev/null &
			REQ_PID=$! REQ_BLOCK=$nn
			BG_PIDS="$BG_PIDS $REQ_PID"
		else
			run_agent_block "$nn" >"$SR_DIR/agent-$nn.out" 2>"$SR_DIR/agent-$nn.err"
			is "block $nn as the agent exits 0: $first" "$?" 0
		fi
		;;
	review)
		section "block $nn (review): the console"
		i=0 G=
		while [ -z "$G" ] && [ "$i" -lt 100 ]; do
			G=$(rev list -j 2>/dev/null | jscan "' '.join(g['request_id'] for g in j if g['requester'] == '$AG')")
			[ -n "$G" ] || sleep 0.1
			i=$((i + 1))
		done
		check "the agent's request is in the reviewer's queue" [ -n "$G" ]
		rev show "$G" -j >"$SR_DIR/gate.json" 2>&1
		jcheck "[P4] recorded as the agent's (its name and uid, from SO_PEERCRED)" \
		    "j['requester'] == '$AG' and j['requester_uid'] == $(id -u "$AG") and j['state'] == 'pending'" \
		    "$SR_DIR/gate.json"
		CS=review
		tm new-session -d -s "$CS" -x 100 -y 30 \
		    "setpriv --reuid=$REV --regid=$(id -g "$REV") --init-groups env -i HOME=$RV_HOME \
		    USER=$REV LOGNAME=$REV SHELL=/bin/bash PATH=$SR_PREFIX/bin:/usr/bin:/bin \
		    LANG=C.UTF-8 TERM=tmux-256color AGENT=$AG \
		    /bin/sh -c 'trap : INT; . $SR_DIR/blocks/$nn; echo REVIEW-EXIT=\$?; sleep 600'" ||
		    bail "the console's tmux session starts"
		shows "the console lists the agent's request, ROOT 1, from $AG (uid N)" "$AG (uid $(id -u "$AG"))"
		if has "ROOT 1"; then ok "with the ROOT 1 badge"; else not_ok "with the ROOT 1 badge"; shot; fi
		keys Enter
		shows "Enter opens it: the review, with the Root access pill" "Root access"
		keys Enter
		shows "[P3] Enter again: sudo asks for the reviewer's password" "[sudo] password for $REV" 150
		printf '%s' "$SR_PW" | tm load-buffer -b wtpw -
		tm paste-buffer -b wtpw -d -t "$CS"
		keys Enter
		shows "[P3] after the password the outcome is shown" "Press Enter to return" 300
		keys Enter
		if [ -n "$REQ_PID" ]; then
			i=0
			while kill -0 "$REQ_PID" 2>/dev/null && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
			wait "$REQ_PID"
			is "[P4] the agent's request -w (block $REQ_BLOCK) exits 0 once approved" "$?" 0
			check "and prints the ledger: the command ran (exit 0) and printed root" \
			    sh -c "grep -q 'ran, exit 0' '$SR_DIR/agent-$REQ_BLOCK.out' && grep -qx ' *| root' '$SR_DIR/agent-$REQ_BLOCK.out'"
			grep -q 'ran, exit 0' "$SR_DIR/agent-$REQ_BLOCK.out" ||
			    diag "$(cat "$SR_DIR/agent-$REQ_BLOCK.out" "$SR_DIR/agent-$REQ_BLOCK.err")"
			check "the descriptor went to standard error" grep -q "\"request_id\":\"$G\"" "$SR_DIR/agent-$REQ_BLOCK.err"
			REQ_PID=
		fi
		keys q
		keys q
		shows "q quits the console" "REVIEW-EXIT=0" 30
		tm kill-session -t "$CS"
		;;
	mcp-*)
		section "block $nn ($role): the MCP server as the agent's client starts it"
		# the server's command, arguments and environment; the example
		# reviewer name and /usr/local/bin/warrant are the only things replaced
		"$PY" - "$role" "$SR_DIR/blocks/$nn" "$DOC_REV" "$REV" "$W" >"$SR_DIR/mcp-$nn.spec" <<'EOF' || true
import json, shlex, sys, tomllib
role, path, doc_rev, rev, w = sys.argv[1:6]
text = open(path, encoding="utf-8").read()
if "/usr/local/bin/warrant" not in text:
    sys.exit("the entry does not start /usr/local/bin/warrant")
text = text.replace("/usr/local/bin/warrant", w)
env = {}
if role == "mcp-command":
    words = shlex.split(text.strip())
    cmd = words[words.index("--") + 1:]
elif role == "mcp-claude":
    s = json.loads(text)["mcpServers"]["warrant"]
    cmd, env = [s["command"]] + s.get("args", []), s.get("env", {})
elif role == "mcp-codex":
    s = tomllib.loads(text)["mcp_servers"]["warrant"]
    cmd, env = [s["command"]] + s.get("args", []), s.get("env", {})
elif role == "mcp-opencode":
    s = json.loads(text)["mcp"]["servers"]["warrant"]
    cmd, env = s["command"], s.get("environment", {})
cmd = [rev if a == doc_rev else a for a in cmd]
env = {k: v.replace("/run/warrant/%s/" % doc_rev, "/run/warrant/%s/" % rev) for k, v in env.items()}
print(json.dumps({"cmd": cmd, "env": env}))
EOF
		jcheck "the entry names warrant mcp and how to reach the reviewer's daemon" \
		    "j['cmd'][:2] == ['$W', 'mcp'] and (j['cmd'][2:] == ['--to', '$REV'] or j['env'].get('WARRANT_SOCKET') == '$SOCK')" \
		    "$SR_DIR/mcp-$nn.spec"
		as_agent "$PY" "$SR_DIR/mcpcall.py" "$SR_DIR/mcp-$nn.spec" "$role $TAG" \
		    >"$SR_DIR/mcp-$nn.out" 2>"$SR_DIR/mcp-$nn.err" &
		MPID=$!
		BG_PIDS="$BG_PIDS $MPID"
		i=0 G=
		while [ -z "$G" ] && [ "$i" -lt 150 ]; do
			G=$(rev list -j 2>/dev/null | jscan "' '.join(g['request_id'] for g in j if g['reason'] == 'setup $role $TAG')")
			[ -n "$G" ] || sleep 0.1
			i=$((i + 1))
		done
		check "[P4] its tool call reaches the reviewer's queue" [ -n "$G" ]
		if [ -z "$G" ]; then
			kill "$MPID" 2>/dev/null	# its call would wait for nothing
		else
			jcheck "as the agent's request" "j['requester'] == '$AG' and j['requester_uid'] == $(id -u "$AG")" - <<EOF
$(rev show "$G" -j)
EOF
			rev answer "$G" --deny -f "not now $role" >/dev/null 2>&1
		fi
		wait "$MPID"
		jcheck "and the denial comes back to the client as the tool's result" \
		    "j['result']['isError'] is True and has_text(j['result'], 'not now $role')" "$SR_DIR/mcp-$nn.out"
		jscan "j['result']['isError'] is True" "$SR_DIR/mcp-$nn.out" >/dev/null 2>&1 ||
		    diag "$(tail -3 "$SR_DIR/mcp-$nn.err")"
		;;
	esac
done 3<"$SR_DIR/blocks/index"

# ------------------------------------------------------------ what B promises
section "what the walkthrough's set-up protects"
check "the reviewer's requesters list (block output) names the agent and says ok" \
    sh -c "grep -h 'requesters:' '$SR_DIR'/block-*.log | grep -q '$AG' && grep -hq 'run/warrant/$REV: ok' '$SR_DIR'/block-*.log"
check "box status (block output) says profile agent and no sudo rules" \
    sh -c "grep -hq 'profile: agent' '$SR_DIR'/block-*.log && grep -hq 'sudo: no rules' '$SR_DIR'/block-*.log"
check "ls -l of the socket (block output) shows srw-rw---- $REV $GRP" \
    sh -c "tr -d '\r' <'$(grep -l 'req.sock' "$SR_DIR"/block-*.log | head -1)' | grep -q '^srw-rw---- .* $REV $GRP '"
as_agent /usr/bin/sudo -n true </dev/null >/dev/null 2>&1
check "[P3] the agent user cannot sudo" [ $? -ne 0 ]
as_agent ls "$RV_HOME/.local/state/warrant" >/dev/null 2>&1
check "the agent cannot read the reviewer's store" [ $? -ne 0 ]
check "the agent's ~/.profile points at the reviewer's socket" \
    grep -qx "export WARRANT_SOCKET=$SOCK" "$AG_HOME/.profile"
r=$(as_agent sh -c '. "$HOME/.profile"; "$1" list -j' sh "$W" 2>&1)
# warrant list reads the agent's own store: it has nothing of the reviewer's
is "the agent's own store holds nothing (its requests went to the daemon)" "$r" "[]"
check "[P2] the canary search finds a planted SHA-256 of the password (positive control)" \
    sr_canary_grep_works
leak=$(sr_canary_grep "$SR_DIR" "$RV_HOME/.local" "$AG_HOME")
is "[P2] the password is nowhere in the transcripts, the store or the agent's home" "$leak" ""

# ------------------------------------------------------------ taking it down
# answers: the daemon's socket takes a connection.
answers() {
	"$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$SOCK" 2>/dev/null
}
for nn in $TEARDOWN; do
	first=$(grep -v '^[[:space:]]*\(#.*\)\{0,1\}$' "$SR_DIR/blocks/$nn" | head -1)
	section "block $nn (teardown): $first"
	run_rev_block "$nn"
	is "block $nn as the reviewer exits 0: $first" "$PTY_RC" 0
	[ "$PTY_RC" -eq 0 ] || diag "$(tr -d '\r' <"$PTY_LOG" | tail -8)"
	case $first in
	*kill-session*)
		# A person reads on before the next step; the test waits for
		# the daemon to be gone.
		i=0
		while answers && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		if answers; then not_ok "the daemon stopped: nothing answers on $SOCK"
		else ok "the daemon stopped: nothing answers on $SOCK"; fi
		;;
	*"requesters remove"*)
		check "requesters remove --all said what it removed" sh -c \
		    "tr -d '\r' <'$PTY_LOG' | grep -qx 'group $GRP: removed (gid [0-9]*; requesters who lose it: $AG)' && tr -d '\r' <'$PTY_LOG' | grep -qx 'directory /run/warrant/$REV: removed'"
		;;
	*"box remove"*)
		check "box remove said what it removed" sh -c \
		    "tr -d '\r' <'$PTY_LOG' | grep -q '^account $AG (uid [0-9]*): deleted' && tr -d '\r' <'$PTY_LOG' | grep -qx 'record /var/lib/warrant/box/$AG.user: removed'"
		check "... and that no process of $AG was left" sh -c \
		    "tr -d '\r' <'$PTY_LOG' | grep -qx 'processes of $AG (uid $AG_UID): none'"
		check "... and retired its uid $AG_UID, which box init never gives again" sh -c \
		    "[ \"\$(cat /var/lib/warrant/box/retired/uid.$AG_UID)\" = '$AG' ]"
		;;
	esac
done
check "the group $GRP is gone" sh -c "! getent group '$GRP' >/dev/null"
check "the tmpfiles.d entry is gone" test ! -e "/etc/tmpfiles.d/$GRP.conf"
check "/run/warrant/$REV is gone" test ! -e "/run/warrant/$REV"
check "the box record of $AG is gone" test ! -e "/var/lib/warrant/box/$AG.user"
check "no sudoers drop-in or box password route key of $AG" sh -c \
    "[ ! -e /etc/sudoers.d/warrant-box-$AG ] && [ ! -e /var/lib/warrant/box/api/$AG.key ]"
check "the account $AG, its group and its home are gone" sh -c \
    "! getent passwd '$AG' >/dev/null && ! getent group '$AG' >/dev/null && [ ! -e '$AG_HOME' ]"
footprint >"$SR_DIR/footprint-after"
if cmp -s "$SR_DIR/footprint-before" "$SR_DIR/footprint-after"; then
	ok "nothing of warrant's is left: the files where it writes, the accounts and groups are as before"
else
	not_ok "nothing of warrant's is left: the files where it writes, the accounts and groups are as before"
	diff "$SR_DIR/footprint-before" "$SR_DIR/footprint-after" | head -20 | while IFS= read -r l; do diag "$l"; done
fi
for nn in $TEARDOWN; do
	run_rev_block "$nn"
	case $(grep -v '^[[:space:]]*\(#.*\)\{0,1\}$' "$SR_DIR/blocks/$nn" | head -1) in
	*"requesters remove"*)
		check "requesters remove --all again: exit 0, nothing to remove" sh -c \
		    "[ $PTY_RC -eq 0 ] && tr -d '\r' <'$PTY_LOG' | grep -q 'reviewer $REV: nothing to remove'" ;;
	*"box remove"*)
		check "box remove again: exit 0, nothing to remove" sh -c \
		    "[ $PTY_RC -eq 0 ] && tr -d '\r' <'$PTY_LOG' | grep -qx 'box user $AG: nothing to remove'" ;;
	esac
done
footprint >"$SR_DIR/footprint-again"
check "... and changed nothing" cmp -s "$SR_DIR/footprint-before" "$SR_DIR/footprint-again"

done_testing
