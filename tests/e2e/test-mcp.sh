#!/bin/sh
# SPDX-License-Identifier: ISC
# warrant mcp end to end, through the official MCP TypeScript SDK client
# (@modelcontextprotocol/sdk from npm, pinned in tests/mcp/package-lock.json)
# and through raw JSON-RPC lines. The node clients in tests/mcp print
# "ok - DESC" / "not ok - DESC" lines; this turns them into TAP.
# env: WARRANT_BUILD (the build directory), WARRANT_TOP (the source tree).
. "$WARRANT_TOP/tests/e2e/lib.sh"

MCP_DIR=$WARRANT_TOP/tests/mcp
out=$(mktemp -d /tmp/warrant-mcp-tap.XXXXXX)
at_exit 'rm -rf "$out"'

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	not_ok "node and npm are installed (scripts/deps.sh installs Debian's)"
	done_testing
	exit 0
fi

# The SDK version pinned in package.json, and the one installed (if any).
want=$(node -p 'require(process.argv[1]).dependencies["@modelcontextprotocol/sdk"]' \
    "$MCP_DIR/package.json" 2>/dev/null)
have=$(node -p 'require(process.argv[1]).version' \
    "$MCP_DIR/node_modules/@modelcontextprotocol/sdk/package.json" 2>/dev/null)
if [ -n "$want" ] && [ "$want" = "$have" ]; then
	ok "the MCP SDK $have is installed"
elif (cd "$MCP_DIR" && npm ci --no-audit --no-fund --loglevel=error) >"$out/npm" 2>&1; then
	ok "npm ci installs the MCP SDK $want"
else
	not_ok "npm ci installs the MCP SDK $want"
	diag "$(tail -20 "$out/npm")"
	done_testing
	exit 0
fi

# run_client FILE: one node test client, its result lines as TAP.
run_client() {
	name=$(basename "$1" .mjs)
	(cd "$MCP_DIR" && WARRANT_BIN="$WARRANT_BUILD/warrant" timeout -k 5 240 node "$1") \
	    >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	bad=0
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "$name: ${line#ok - }" ;;
		"not ok - "*) not_ok "$name: ${line#not ok - }"; bad=1 ;;
		"#"*) printf '%s\n' "$line" ;;
		esac
	done <"$out/$name.out"
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		not_ok "$name exited $rc"
		diag "$(tail -20 "$out/$name.err")"
	fi
}

for f in "$MCP_DIR"/test-*.mjs; do
	run_client "$f"
done

# The desktop notification: /usr/bin/notify-send is run (detached) only
# when a desktop session is reachable. Checked with a stand-in that
# records its arguments, installed only where there is no real one.
# mcp_session ENV...: one session with one pending YOU call, then EOF.
mcp_session() {
	home=$(mktemp -d /tmp/warrant-mcp-notify.XXXXXX)
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request_commands","arguments":{"reason":"notify <b>me</b> & more","commands":[{"id":"a","why":"w","as":"user","argv":["/usr/bin/true"]}]}}}' |
	    env -u DISPLAY -u WAYLAND_DISPLAY -u DBUS_SESSION_BUS_ADDRESS \
	    WARRANT_HOME="$home" "$@" "$WARRANT_BUILD/warrant" mcp >"$out/notify.rpc" 2>&1
	gate=$(WARRANT_HOME="$home" "$WARRANT_BUILD/warrant" list -a -j |
	    node -p 'JSON.parse(require("fs").readFileSync(0))[0]?.request_id ?? ""')
	rm -rf "$home"
}
if [ "$(id -u)" -eq 0 ] && [ ! -e /usr/bin/notify-send ]; then
	at_exit 'rm -f /usr/bin/notify-send'
	printf '#!/bin/sh\nfor a; do printf "%%s\\n" "$a"; done >"%s/notify.args"\n' "$out" \
	    >/usr/bin/notify-send
	chmod 755 /usr/bin/notify-send
	mcp_session
	sleep 1
	check "no desktop session: the call made a gate, and notify-send is not run" \
	    sh -c '[ -n "$1" ] && [ ! -e "$2" ]' sh "$gate" "$out/notify.args"
	mcp_session DISPLAY=:97
	i=0
	while [ ! -s "$out/notify.args" ] && [ "$i" -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -n "$gate" ] && grep -qx -- '--app-name=warrant' "$out/notify.args" 2>/dev/null &&
	    grep -qx 'warrant: 1 command as you' "$out/notify.args" &&
	    grep -q "warrant answer $gate" "$out/notify.args" &&
	    grep -q 'notify  b me /b    more' "$out/notify.args"; then
		ok "with DISPLAY set the reviewer gets a notification naming the gate"
	else
		not_ok "with DISPLAY set the reviewer gets a notification naming the gate"
		diag "gate '$gate'; args: $(cat "$out/notify.args" 2>&1)"
	fi
	rm -f /usr/bin/notify-send
else
	skip "notify-send is run with a desktop session" "needs root and no real /usr/bin/notify-send"
fi
done_testing
