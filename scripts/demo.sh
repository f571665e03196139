#!/bin/sh
# SPDX-License-Identifier: ISC
# The main job in a throwaway state directory: an agent's sample request
# with one ROOT and two YOU commands is validated, sealed and stored as a
# pending gate, then opened in the review console (warrant review). When
# stdin or stdout is not a terminal, the gate is printed with warrant show
# instead. The state directory is removed when the demo ends.
# usage: scripts/demo.sh BUILD_DIR
set -eu
w="$(cd "$1" && pwd)/warrant"
WARRANT_HOME=$(mktemp -d /tmp/warrant-demo.XXXXXX)
export WARRANT_HOME
trap 'rm -rf "$WARRANT_HOME"' EXIT
trap 'exit 130' INT TERM HUP

echo "== the agent submits a request (state in $WARRANT_HOME)"
desc=$("$w" request -o demo-agent -p demo <<'JSON'
{
  "reason": "Install jq system-wide, then check it from your own shell.",
  "commands": [
    {"id": "install-jq", "argv": ["apt-get", "install", "-y", "jq"],
     "why": "jq is not installed and the agent cannot write /usr."},
    {"id": "check", "as": "user", "command": "jq --version || echo 'jq missing'",
     "why": "Confirm jq works for you outside the sandbox."},
    {"id": "project-size", "as": "user", "argv": ["du", "-sh", "/tmp"],
     "why": "Report the size of the shared scratch directory."}
  ],
  "next": {"prompt": "Use jq to parse the build report."}
}
JSON
)
echo "$desc"
id=$(printf '%s\n' "$desc" | sed -n 's/.*"request_id":"\([^"]*\)".*/\1/p')

if [ -t 0 ] && [ -t 1 ]; then
	# Not exec: the trap removes the throwaway state when the console ends.
	echo "== opening the review console on $id (q closes, q again quits)"
	sleep 1
	"$w" review "$id"
	exit 0
fi

echo
echo "== not on a terminal: the reviewer's view of $id (warrant show)"
"$w" show "$id"
echo
echo "== the audit chain"
"$w" log
"$w" log --verify
