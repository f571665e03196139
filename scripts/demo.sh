#!/bin/sh
# The main job in a throwaway state directory: an agent's sample request
# with one ROOT and two YOU commands is validated, sealed and stored as a
# pending gate, then shown to the reviewer as warrant show prints it.
# usage: scripts/demo.sh BUILD_DIR
set -eu
w="$(cd "$1" && pwd)/warrant"
WARRANT_HOME=$(mktemp -d /tmp/warrant-demo.XXXXXX)
export WARRANT_HOME
trap 'rm -rf "$WARRANT_HOME"' EXIT

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

echo
echo "== the reviewer lists pending gates"
"$w" list
echo
echo "== and reviews $id"
"$w" show "$id"
echo
echo "== the audit chain"
"$w" log
"$w" log --verify
