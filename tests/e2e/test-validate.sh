#!/bin/sh
# SPDX-License-Identifier: ISC
# Every validation code of warrant-request(5), each with hostile examples,
# asked by a non-root requester (whether an executable can be swapped
# depends on who asks). Every refusal must exit 2 with its stable code and
# JSON path and change nothing: the requester's state directory is not
# even created until the first accepted request. Then valid requests:
# the sealed manifest names the resolved executable, its SHA-256 and the
# hash of the canonical bytes, all checked independently; and risk badges.
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "needs root to create the requester and root-owned fixtures"

# Per-run names, so that concurrent runs cannot pull a group from under
# each other.
GRP=wt-e2e-g$$		# a group the requester is in
OGRP=wt-e2e-o$$		# a group it is not in
FX=
cleanup() {
	[ -n "$FX" ] && rm -rf "$FX"
	gpasswd -d "$REQ" "$GRP" >/dev/null 2>&1
	groupdel "$GRP" 2>/dev/null
	groupdel "$OGRP" 2>/dev/null
}
requester_fixture
at_exit cleanup
getent group "$GRP" >/dev/null || groupadd "$GRP"
getent group "$OGRP" >/dev/null || groupadd "$OGRP"
gpasswd -a "$REQ" "$GRP" >/dev/null
use_state v

# Root-owned fixtures in a root-owned 0755 directory on the same file
# system as /usr/bin (for hard links).
mkdir -p /opt
FX=$(mktemp -d /opt/wt-e2e.XXXXXX)
chmod 755 "$FX"
B=$FX/bin
mkdir "$B" && chmod 755 "$B"
TRUE=$(readlink -f /usr/bin/true)
BASH=$(readlink -f /usr/bin/bash)
SUDO=$(readlink -f /usr/bin/sudo 2>/dev/null || true)
cp "$BASH" "$B/notashell"
ln -s "$BASH" "$B/linky"
ln -s "$TRUE" "$B/doas"			# named doas, is true
ln -s "$TRUE" "$B/mytrue"
cp "$TRUE" "$B/truecopy"
OFFPATH=wt-e2e-offpath-$$		# exists only here, not on the trusted path
cp "$TRUE" "$B/$OFFPATH"
cp "$TRUE" "$B/noexec" && chmod 644 "$B/noexec"
cp "$TRUE" "$B/wwtrue" && chmod 757 "$B/wwtrue"
cp "$TRUE" "$B/gtrue" && chgrp "$GRP" "$B/gtrue" && chmod 775 "$B/gtrue"
mkfifo "$B/fifo" && chmod 755 "$B/fifo"
ln -s "$B/loop" "$B/loop"
ln -s /nonexistent/wt-e2e "$B/dangling"
samefs=no
[ "$(stat -c %d "$BASH")" = "$(stat -c %d "$B")" ] && samefs=yes
[ "$samefs" = yes ] && ln "$BASH" "$B/hlbash"
if [ -n "$SUDO" ] && [ -f "$SUDO" ]; then
	cp "$SUDO" "$B/helper" && chmod 755 "$B/helper"	# renamed, not setuid
	[ "$samefs" = yes ] && ln "$SUDO" "$B/hlsudo"
fi
mkdir "$FX/grp" && chgrp "$GRP" "$FX/grp" && chmod 775 "$FX/grp"
cp "$TRUE" "$FX/grp/true"
mkdir "$FX/ogrp" && chgrp "$OGRP" "$FX/ogrp" && chmod 775 "$FX/ogrp"
cp "$TRUE" "$FX/ogrp/true"
mkdir "$FX/ww" && chmod 777 "$FX/ww"
cp "$TRUE" "$FX/ww/true"
mkdir "$FX/sticky" && chmod 1777 "$FX/sticky"
cp "$TRUE" "$FX/sticky/rootfile"
cp "$TRUE" "$FX/sticky/reqfile" && chown "$REQ" "$FX/sticky/reqfile"
mkdir "$FX/rsticky" && chown "$REQ" "$FX/rsticky" && chmod 1777 "$FX/rsticky"
cp "$TRUE" "$FX/rsticky/rootfile"
# In the requester's own tree.
RBIN=$WT_RB/bin
mkdir -p "$RBIN/rootdir"
chown "$REQ" "$RBIN"
cp "$TRUE" "$RBIN/mine" && chown "$REQ" "$RBIN/mine"
cp "$TRUE" "$RBIN/rootowned"
cp "$TRUE" "$RBIN/rootdir/true"
ln -s "$RBIN/mine" "$B/evil"		# root-owned link to a requester file

pre() { printf '%s' "$1" >"$WT_T/in"; }
C0='$.commands[0]'
A0='$.commands[0].argv[0]'

diag "invalid_json"
refused invalid_json '$' "malformed JSON (truncated)" "$(printf '{"reason":"r","commands":[')"
refused invalid_json '$' "malformed JSON (missing comma)" "$(printf '{"reason":"r" "commands":[]}')"
refused invalid_json '$' "malformed JSON (single quotes)" "$(printf "{'reason':'r'}")"
refused invalid_json '$' "empty input" "$(printf '')"
refused invalid_json '$' "whitespace only" "$(printf '  \n\t ')"
refused invalid_json '$' "trailing second object" "$(req1 '["true"]' | sed 's/$/ {}/')"
refused invalid_json '$' "duplicate key at top level" "$(printf '{"reason":"a","reason":"b","commands":[{"id":"a","why":"w","argv":["true"]}]}')"
refused invalid_json '$' "duplicate key inside a command" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w","argv":["true"],"argv":["sudo"]}]}')"
refused invalid_json '$' "duplicate key inside env" "$(reqtop '"env":{"A":"1","A":"2"}')"
refused invalid_json '$' "non-UTF-8 bytes (0xff 0xfe)" "$(printf '{"reason":"\377\376","commands":[{"id":"a","why":"w","argv":["true"]}]}')"
refused invalid_json '$' "overlong UTF-8 encoding" "$(printf '{"reason":"\300\257","commands":[{"id":"a","why":"w","argv":["true"]}]}')"
refused invalid_json '$' "UTF-8-encoded surrogate" "$(printf '{"reason":"\355\240\200","commands":[{"id":"a","why":"w","argv":["true"]}]}')"
refused invalid_json '$' "lone surrogate escape" "$(req1 '["true"]' | sed 's/"r"/"\\ud800"/')"
refused invalid_json '$' "NUL escape inside an argv string" "$(req1 '["true","a\u0000b"]')"
printf '{"reason":"r\000","commands":[{"id":"a","why":"w","argv":["true"]}]}' >"$WT_T/f"
refused_file invalid_json '$' "raw NUL byte in the input" "$WT_T/f"
refused invalid_json '$' "integer beyond 64 bits" "$(req1 '["true"]' '"timeout_seconds":99999999999999999999')"
refused invalid_json '$' "5000 nested arrays" "$("$PY" -c 'print("[" * 5000 + "]" * 5000)')"
refused invalid_json '$' "5000 nested arrays inside a field" "$("$PY" -c 'print("{\"reason\":\"r\",\"next\":{\"prompt\":" + "[" * 5000 + "]" * 5000 + "},\"commands\":[]}")')"
refused invalid_json '$' "5000 nested objects" "$("$PY" -c 'print("{\"a\":" * 5000 + "1" + "}" * 5000)')"

diag "size limit: 256 KiB, reading stops there"
"$PY" -c '
import json, sys
base = {"reason": "r", "commands": [{"id": "a", "why": "w", "argv": ["/usr/bin/true"]}]}
s = json.dumps(base)
n = int(sys.argv[1])
sys.stdout.write(s + " " * (n - len(s)))' 262145 >"$WT_T/big"
refused_file invalid_field '$' "request of 256 KiB + 1 byte" "$WT_T/big"
start=$(date +%s)
yes | head -c 10485760 | as_req timeout -k 5 30 "$W" request -j >"$WT_T/out" 2>"$WT_T/err"
rc=$?
check "[P5] 10 MiB of input from yes | head: exit 2 (code $rc)" [ "$rc" -eq 2 ]
check "[P5] 10 MiB of input: refused as invalid_field at \$" [ "$(refusal_of "$WT_T/out")" = 'invalid_field $' ]
yes | as_req timeout -k 5 30 "$W" request -j >"$WT_T/out" 2>"$WT_T/err"
rc=$?
check "[P5] endless input from yes: stops reading and exits 2 (code $rc)" [ "$rc" -eq 2 ]
diag "both took $(($(date +%s) - start)) s"
check "[P5] oversized input created no state directory" [ ! -e "$S" ]

diag "user_namespace: no request from a user namespace of the agent's own"
# unshare -Urm, bind mounts and a chroot made the agent's own directory look
# root-owned, so writability checks passed for a script it could still
# rewrite. Whatever the namespace shows, the request is refused before it
# is read as JSON, and nothing is created.
# ns_refused DESC COMMAND...: `warrant request -j` run as the requester
# through COMMAND (which ends by running its arguments) is refused so.
ns_refused() {
	_d=$1
	shift
	req1 '["true"]' >"$WT_T/in"
	as_req "$@" "$W" request -j <"$WT_T/in" >"$WT_T/out" 2>"$WT_T/err"
	_rc=$?
	_got=$(refusal_of "$WT_T/out")
	if [ "$_rc" -eq 2 ] && [ "$_got" = 'user_namespace $' ] && [ ! -e "$S" ]; then
		ok "$_d"
	else
		not_ok "$_d"
		diag "exit $_rc; got '$_got'; state directory $([ -e "$S" ] && echo created || echo absent)"
		diag "$(head -c 400 "$WT_T/err")"
	fi
}
if ! as_req unshare -Ur true 2>"$WT_T/err"; then
	why="unprivileged user namespaces are disabled here ($(head -c 200 "$WT_T/err"))"
	for d in "unshare -Ur" "unshare -U" "unshare -Urpf --mount-proc" \
	    "a tmpfs with a forged uid_map over /proc" "a forged uid_map bound over procfs"; do
		skip "$d: refused as user_namespace" "$why"
	done
else
	ns_refused "unshare -Ur (the requester mapped to uid 0): refused as user_namespace" \
	    unshare -Ur
	ns_refused "unshare -U (no mapping): refused as user_namespace" unshare -U
	# pid 1 of this /proc is the agent's own process: its namespace matches
	ns_refused "unshare -Urpf --mount-proc: refused as user_namespace" \
	    unshare -Urpf --mount-proc
	# /proc replaced by a tmpfs holding an identity map
	ns_refused "a tmpfs with a forged uid_map over /proc: refused as user_namespace" \
	    unshare -Urm sh -c 'mount -t tmpfs none /proc &&
	    mkdir -p /proc/self && echo "0 0 4294967295" >/proc/self/uid_map &&
	    exec "$@"' sh
	# the real procfs, with an identity map bound over the process's own
	# uid_map (the shell execs warrant, so its pid is warrant's)
	ns_refused "a forged uid_map bound over procfs: refused as user_namespace" \
	    unshare -Urm sh -c 'echo "0 0 4294967295" >"$0" &&
	    mount --bind "$0" /proc/$$/uid_map && exec "$@"' "$WT_RB/uid_map"
fi

diag "invalid_field"
refused invalid_field '$.reasn' "unknown top-level field" "$(reqtop '"reasn":"x"')"
refused invalid_field "$C0.argvv" "unknown command field" "$(req1 '["true"]' '"argvv":["x"]')"
refused invalid_field '$.next.shell' "unknown field in next" "$(reqtop '"next":{"prompt":"p","shell":"x"}')"
refused invalid_field '$' "top level is an array" "$(printf '[]')"
refused invalid_json '$' "top level is a string" "$(printf '"x"')"
refused invalid_field '$.reason' "reason is a number" "$(printf '{"reason":5,"commands":[{"id":"a","why":"w","argv":["true"]}]}')"
refused invalid_field '$.commands' "commands is an object" "$(printf '{"reason":"r","commands":{"id":"a"}}')"
refused invalid_field "$C0" "a command is a string" "$(printf '{"reason":"r","commands":["true"]}')"
refused invalid_field "$C0.argv" "argv is a string" "$(req1 '"true"')"
refused invalid_field "$C0.argv[1]" "argv element is a number" "$(req1 '["true",1]')"
refused invalid_field "$C0.argv[1]" "argv element is null" "$(req1 '["true",null]')"
refused invalid_field "$C0.argv[1]" "argv element is an array" "$(req1 '["true",["x"]]')"
refused invalid_field '$.env' "env is an array" "$(reqtop '"env":[]')"
refused invalid_field '$.env.A' "env value is a number" "$(reqtop '"env":{"A":1}')"
refused invalid_field '$.stop_on_failure' "stop_on_failure is a string" "$(reqtop '"stop_on_failure":"yes"')"
refused invalid_field '$.gate_timeout_seconds' "gate_timeout_seconds is a string" "$(reqtop '"gate_timeout_seconds":"10"')"
refused invalid_field "$C0.as" "as is a number" "$(req1 '["true"]' '"as":1')"
refused invalid_field '$.next' "next is a string" "$(reqtop '"next":"x"')"
refused invalid_field '$.machine' "machine is a number" "$(reqtop '"machine":5')"
refused invalid_field '$.gate_timeout_seconds' "gate_timeout_seconds 1.0 (float)" "$(reqtop '"gate_timeout_seconds":1.0')"
refused invalid_field '$.gate_timeout_seconds' "gate_timeout_seconds 1e2 (float)" "$(reqtop '"gate_timeout_seconds":1e2')"
refused invalid_field '$.timeout_seconds' "timeout_seconds 2.5 at top level" "$(reqtop '"timeout_seconds":2.5')"
refused invalid_field "$C0.timeout_seconds" "timeout_seconds 2.5 on a command" "$(req1 '["true"]' '"timeout_seconds":2.5')"
refused invalid_field "$C0.timeout_seconds" "timeout_seconds 0" "$(req1 '["true"]' '"timeout_seconds":0')"
refused invalid_field "$C0.timeout_seconds" "timeout_seconds negative" "$(req1 '["true"]' '"timeout_seconds":-5')"
refused invalid_field '$.gate_timeout_seconds' "gate_timeout_seconds over 86400" "$(reqtop '"gate_timeout_seconds":86401')"
refused invalid_field "$C0.id" "id starting with '-'" "$(printf '{"reason":"r","commands":[{"id":"-a","why":"w","argv":["true"]}]}')"
ID65=$("$PY" -c 'print("a" * 65)')
refused invalid_field "$C0.id" "id of 65 characters" "$(printf '{"reason":"r","commands":[{"id":"%s","why":"w","argv":["true"]}]}' "$ID65")"
refused invalid_field "$C0.id" "id with a space" "$(printf '{"reason":"r","commands":[{"id":"a b","why":"w","argv":["true"]}]}')"
refused invalid_field "$C0.id" "id with a slash" "$(printf '{"reason":"r","commands":[{"id":"a/b","why":"w","argv":["true"]}]}')"
refused invalid_field "$C0.id" "id with a newline" "$(printf '{"reason":"r","commands":[{"id":"a\\n","why":"w","argv":["true"]}]}')"
refused invalid_field "$C0.id" "empty id" "$(printf '{"reason":"r","commands":[{"id":"","why":"w","argv":["true"]}]}')"
refused invalid_field "$C0.id" "missing id" "$(printf '{"reason":"r","commands":[{"why":"w","argv":["true"]}]}')"
refused invalid_field '$.commands[2].id' "duplicate id" "$(printf '{"reason":"r","commands":[{"id":"x","why":"w","argv":["true"]},{"id":"y","why":"w","argv":["true"]},{"id":"x","why":"w","argv":["true"]}]}')"
refused invalid_field '$.reason' "empty reason" "$(printf '{"reason":"","commands":[{"id":"a","why":"w","argv":["true"]}]}')"
refused invalid_field "$C0.why" "empty why" "$(printf '{"reason":"r","commands":[{"id":"a","why":"","argv":["true"]}]}')"
refused invalid_field "$C0.why" "missing why" "$(printf '{"reason":"r","commands":[{"id":"a","argv":["true"]}]}')"
refused invalid_field "$C0.argv[0]" "empty argv[0]" "$(req1 '[""]')"
refused invalid_field "$C0.argv[1]" "empty argv element" "$(req1 '["true",""]')"
refused invalid_field "$C0.argv" "empty argv" "$(req1 '[]')"
refused invalid_field "$C0.argv" "missing argv" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w"}]}')"
refused invalid_field '$.cwd' "empty cwd" "$(reqtop '"cwd":""')"
refused invalid_field '$.run_as' "empty run_as" "$(reqtop '"run_as":""')"
refused invalid_field '$.run_as' "run_as starting with '-'" "$(reqtop '"run_as":"-root"')"
refused invalid_field '$.run_as' "run_as with a space" "$(reqtop '"run_as":"root root"')"
refused invalid_field '$.run_as' "run_as with a colon" "$(reqtop '"run_as":"root:root"')"
refused invalid_field '$.run_as' "run_as as a sudo #uid" "$(reqtop '"run_as":"#0"')"
refused invalid_field '$.machine' "machine with a space" "$(reqtop '"machine":"a b"')"
refused invalid_field '$.machine' "machine with a tab" "$(reqtop '"machine":"a\tb"')"
refused invalid_field '$.machine' "machine with a newline" "$(reqtop '"machine":"host\n"')"
refused invalid_field '$.machine' "machine with ESC" "$(reqtop '"machine":"a\u001b[2Jb"')"
refused invalid_field '$.machine' "machine with BEL" "$(reqtop '"machine":"a\u0007"')"
refused invalid_field '$.machine' "machine with DEL" "$(reqtop '"machine":"a\u007f"')"
refused invalid_field '$.reason' "reason missing" "$(printf '{"commands":[{"id":"a","why":"w","argv":["true"]}]}')"
refused invalid_field '$.why' "reason and its alias why both given" "$(printf '{"reason":"r","why":"w","commands":[{"id":"a","why":"w","argv":["true"]}]}')"
refused invalid_field '$.commands' "commands empty" "$(printf '{"reason":"r","commands":[]}')"
refused invalid_field '$.commands' "commands missing" "$(printf '{"reason":"r"}')"
refused invalid_field "$C0.as" "as: admin" "$(req1 '["true"]' '"as":"admin"')"
refused invalid_field "$C0.as" "as: ROOT (case matters)" "$(req1 '["true"]' '"as":"ROOT"')"
refused invalid_field "$C0.as" "as: empty" "$(req1 '["true"]' '"as":""')"
refused invalid_field "$C0.command" "command string on a ROOT command" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w","command":"true"}]}')"
refused invalid_field "$C0.command" "command string on an explicit ROOT command" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w","as":"root","command":"id","argv":["true"]}]}')"
refused invalid_field "$C0.command" "argv and command both on a YOU command" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w","as":"user","command":"true","argv":["true"]}]}')"
refused invalid_field "$C0.command" "empty command string" "$(reqc '""')"
refused invalid_field '$.output_to_agent' "output_to_agent: all" "$(reqtop '"output_to_agent":"all"')"
refused invalid_field '$.cwd' "relative cwd" "$(reqtop '"cwd":"tmp"')"
refused invalid_field '$.cwd' "missing cwd" "$(reqtop '"cwd":"/nonexistent/wt-e2e"')"
refused invalid_field '$.cwd' "cwd that is a file" "$(reqtop '"cwd":"/etc/passwd"')"
refused invalid_field "$C0.cwd" "YOU cwd missing" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w","as":"user","argv":["true"],"cwd":"/nonexistent/wt-e2e"}]}')"
refused invalid_field '$.env.1A' "env key starting with a digit" "$(reqtop '"env":{"1A":"x"}')"
refused invalid_field '$.env.A-B' "env key with '-'" "$(reqtop '"env":{"A-B":"x"}')"
refused invalid_field '$.env.A=B' "env key with '='" "$(reqtop '"env":{"A=B":"x"}')"
refused invalid_field '$.env.' "empty env key" "$(reqtop '"env":{"":"x"}')"

diag "limits"
"$PY" -c '
import json
cmds = [{"id": "c%d" % i, "why": "w", "argv": ["/usr/bin/true"]} for i in range(129)]
print(json.dumps({"reason": "r", "commands": cmds}))' >"$WT_T/f"
refused_file invalid_field '$.commands' "129 commands" "$WT_T/f"
"$PY" -c '
import json
print(json.dumps({"reason": "r", "commands": [{"id": "a", "why": "w", "argv": ["/usr/bin/true"] + ["x"] * 64}]}))' >"$WT_T/f"
refused_file invalid_field "$C0.argv" "65 argv entries" "$WT_T/f"
"$PY" -c '
import json
print(json.dumps({"reason": "r", "commands": [{"id": "a", "why": "w", "argv": ["/usr/bin/true", "x" * 4097]}]}))' >"$WT_T/f"
refused_file invalid_field "$C0.argv[1]" "argv element of 4097 bytes" "$WT_T/f"
"$PY" -c '
import json
print(json.dumps({"reason": "r", "commands": [{"id": "a", "why": "w", "argv": ["/usr/bin/true", "\u00e9" * 2049]}]}, ensure_ascii=False))' >"$WT_T/f"
refused_file invalid_field "$C0.argv[1]" "argv element of 2049 two-byte characters (4098 bytes)" "$WT_T/f"
"$PY" -c '
import json
print(json.dumps({"reason": "r", "env": {"V": "x" * 4097}, "commands": [{"id": "a", "why": "w", "argv": ["/usr/bin/true"]}]}))' >"$WT_T/f"
refused_file invalid_field '$.env.V' "env value of 4097 bytes" "$WT_T/f"
"$PY" -c '
import json
print(json.dumps({"reason": "r", "commands": [{"id": "a", "why": "y" * 2049, "argv": ["/usr/bin/true"]}]}))' >"$WT_T/f"
refused_file invalid_field "$C0.why" "why of 2049 bytes" "$WT_T/f"

diag "unsupported_schema"
refused unsupported_schema '$.schema_version' "schema_version 2" "$(reqtop '"schema_version":2')"
refused unsupported_schema '$.schema_version' "schema_version \"1\"" "$(reqtop '"schema_version":"1"')"
refused unsupported_schema '$.schema_version' "schema_version 0" "$(reqtop '"schema_version":0')"
refused unsupported_schema '$.schema_version' "schema_version null" "$(reqtop '"schema_version":null')"

diag "cwd_on_root_command"
refused cwd_on_root_command "$C0.cwd" "cwd on an implicit ROOT command" "$(req1 '["true"]' '"cwd":"/"')"
refused cwd_on_root_command "$C0.cwd" "cwd on an explicit ROOT command" "$(req1 '["true"]' '"as":"root","cwd":"/tmp"')"

diag "nested_privilege_tool"
refused nested_privilege_tool "$A0" "sudo" "$(req1 '["sudo","id"]')"
refused nested_privilege_tool "$A0" "/usr/bin/sudo" "$(req1 '["/usr/bin/sudo","-n","true"]')"
refused nested_privilege_tool "$A0" "sudoedit" "$(req1 '["sudoedit","/etc/hosts"]')"
refused nested_privilege_tool "$A0" "su" "$(req1 '["su","-"]')"
# Refused by name, installed or not.
refused nested_privilege_tool "$A0" "pkexec" "$(req1 '["pkexec","id"]')"
refused nested_privilege_tool "$A0" "run0" "$(req1 '["run0","id"]')"
refused nested_privilege_tool "$A0" "a root-owned symlink named doas (to true)" "$(req1 "[\"$B/doas\",\"id\"]")"
if [ -f "$B/helper" ]; then
	refused nested_privilege_tool "$A0" "a root-owned renamed copy of sudo (same SHA-256)" "$(req1 "[\"$B/helper\",\"id\"]")"
else
	skip "a renamed copy of sudo" "sudo is not installed"
fi
if [ -f "$B/hlsudo" ]; then
	refused nested_privilege_tool "$A0" "a hard link to sudo" "$(req1 "[\"$B/hlsudo\",\"id\"]")"
else
	skip "a hard link to sudo" "no sudo or not on the same file system"
fi
refused nested_privilege_tool "$C0" "env sudo id" "$(req1 '["env","sudo","id"]')"
refused nested_privilege_tool "$C0" "env -i /usr/bin/sudo id" "$(req1 '["/usr/bin/env","-i","/usr/bin/sudo","id"]')"
refused nested_privilege_tool "$C0" "xargs su" "$(req1 '["xargs","su"]')"
refused nested_privilege_tool "$C0" "timeout 5 sudo id" "$(req1 '["timeout","5","sudo","id"]')"
[ -f "$B/helper" ] &&
	refused nested_privilege_tool "$C0" "nice + renamed sudo copy" "$(req1 "[\"nice\",\"$B/helper\",\"id\"]")"
refused nested_privilege_tool "$C0" "find -exec sudo" "$(req1 '["find","/","-exec","sudo","id",";"]')"
refused nested_privilege_tool "$A0" "YOU command with argv sudo" "$(requ '["sudo","id"]')"
refused nested_privilege_tool "$C0" "YOU command env sudo" "$(requ '["env","sudo","id"]')"
refused nested_privilege_tool "$C0.command" "YOU command string 'ls; sudo id'" "$(reqc '"ls; sudo id"')"
refused nested_privilege_tool "$C0.command" "YOU command string piping into su" "$(reqc '"echo x|su -c id"')"
refused nested_privilege_tool "$C0.command" "YOU command string with \$(pkexec ...)" "$(reqc '"$(pkexec id)"')"
refused nested_privilege_tool "$C0.command" "YOU command string with /usr/bin/sudo" "$(reqc '"/usr/bin/sudo -v"')"

diag "interactive_program"
refused interactive_program "$A0" "bash" "$(req1 '["bash"]')"
refused interactive_program "$A0" "sh" "$(req1 '["sh","script.sh"]')"
refused interactive_program "$A0" "/bin/dash" "$(req1 '["/bin/dash"]')"
refused interactive_program "$A0" "a root-owned renamed copy of bash" "$(req1 "[\"$B/notashell\",\"-i\"]")"
if [ -f "$B/hlbash" ]; then
	refused interactive_program "$A0" "a hard link to bash" "$(req1 "[\"$B/hlbash\"]")"
else
	skip "a hard link to bash" "not on the same file system"
fi
refused interactive_program "$A0" "a symlink to bash" "$(req1 "[\"$B/linky\"]")"
refused interactive_program "$C0" "/usr/bin/env bash" "$(req1 '["/usr/bin/env","bash"]')"
refused interactive_program "$C0" "xargs sh" "$(req1 '["xargs","sh"]')"
refused interactive_program "$C0" "nice -n 5 dash" "$(req1 '["nice","-n","5","dash"]')"
refused interactive_program "$C0" "timeout 5 sh" "$(req1 '["timeout","5","sh"]')"
refused interactive_program "$C0" "find / -exec sh {} ;" "$(req1 '["find","/","-exec","sh","{}",";"]')"
refused interactive_program "$C0" "find -execdir /usr/bin/bash" "$(req1 '["find",".","-execdir","/usr/bin/bash","{}","+"]')"
refused interactive_program "$C0" "env + renamed bash copy" "$(req1 "[\"env\",\"$B/notashell\"]")"
refused interactive_program "$C0" "setsid bash" "$(req1 '["setsid","bash"]')"
refused interactive_program "$C0" "stdbuf -o0 vim" "$(req1 '["stdbuf","-o0","vim"]')"
refused interactive_program "$C0" "nohup /usr/bin/sh" "$(req1 '["nohup","/usr/bin/sh"]')"
refused interactive_program "$C0" "env FOO=1 bash" "$(req1 '["env","FOO=1","bash"]')"
if [ -e /usr/bin/rbash ]; then
	refused interactive_program "$A0" "/usr/bin/rbash (listed in /etc/shells)" "$(req1 '["/usr/bin/rbash"]')"
else
	skip "/usr/bin/rbash" "not installed"
fi
# Refused by name, installed or not.
refused interactive_program "$A0" "vim" "$(req1 '["vim","/etc/hosts"]')"
refused interactive_program "$A0" "less" "$(req1 '["less","/etc/hosts"]')"
refused interactive_program "$A0" "ssh" "$(req1 '["ssh","localhost"]')"
if command -v vim >/dev/null 2>&1; then
	VIMREAL=$(readlink -f "$(command -v vim)")
	refused interactive_program "$A0" "vim by its real path ($VIMREAL)" "$(req1 "[\"$VIMREAL\",\"/etc/hosts\"]")"
else
	skip "vim by its real path" "vim is not installed"
fi

diag "shell_request"
refused shell_request "$C0.argv[3]" "-c as a find argument" "$(req1 '["/usr/bin/find",".","-name","-c"]')"
refused shell_request "$C0.argv[1]" "python3 -c" "$(req1 '["python3","-c","print(1)"]')"
refused shell_request "$C0.argv[0]" "-c as argv[0]" "$(req1 '["-c"]')"
refused shell_request '$.commands[1].argv[2]' "-c as the last argument of a second command" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w","argv":["true"]},{"id":"b","why":"w","argv":["/usr/bin/printf","%%s","-c"]}]}')"
refused shell_request "$A0" "watch without -x" "$(req1 '["watch","date"]')"
refused shell_request "$A0" "watch -n 1 'ls /'" "$(req1 '["watch","-n","1","ls /"]')"
refused shell_request "$C0.argv[2]" "flock FILE -c id" "$(req1 '["flock","/tmp/wt.lock","-c","id"]')"
refused shell_request "$C0.argv[3]" "flock -n FILE -c id" "$(req1 '["flock","-n","/tmp/wt.lock","-c","id"]')"
refused shell_request "$A0" "flock -w 5 FILE --command id" "$(req1 '["flock","-w","5","/tmp/wt.lock","--command","id"]')"
refused shell_request "$A0" "flock --command" "$(req1 '["flock","/tmp/wt.lock","--command","id"]')"
refused shell_request "$A0" "flock -- FILE --command id" "$(req1 '["flock","--","/tmp/wt.lock","--command","id"]')"
refused shell_request "$A0" "watch date -x (-x after the operand is no option)" "$(req1 '["watch","date","-x"]')"

diag "every word of a ROOT argv: runners the list does not know, at any depth"
# The dynamic loader, by its name and by identity (a root-owned copy).
LD=$(ls /lib64/ld-linux*.so* /lib/ld-linux*.so* 2>/dev/null | head -n 1)
if [ -n "$LD" ]; then
	cp "$(readlink -f "$LD")" "$B/runme" && chmod 755 "$B/runme"
	refused interactive_program "$C0" "$LD /usr/bin/dash -ec id" "$(req1 "[\"$LD\",\"/usr/bin/dash\",\"-ec\",\"id\"]")"
	refused nested_privilege_tool "$C0" "$LD /usr/bin/sudo id" "$(req1 "[\"$LD\",\"/usr/bin/sudo\",\"id\"]")"
	refused nested_privilege_tool "$C0" "$LD --argv0 x sudo" "$(req1 "[\"$LD\",\"--argv0\",\"x\",\"sudo\"]")"
	refused interactive_program "$C0" "$LD + renamed bash copy" "$(req1 "[\"$LD\",\"$B/notashell\"]")"
	refused interactive_program "$C0" "a renamed copy of the loader running dash" "$(req1 "[\"$B/runme\",\"/usr/bin/dash\"]")"
	refused bad_executable "$C0.argv[1]" "a renamed loader running a computed program" "$(req1 "[\"$B/runme\",\"{}\"]")"
	refused bad_executable "$C0.argv[1]" "the loader running a relative path" "$(req1 "[\"$LD\",\"./x\"]")"
	refused writable_executable "$C0.argv[1]" "the loader running a requester-owned file" "$(req1 "[\"$LD\",\"$RBIN/mine\"]")"
else
	skip "the dynamic loader as a runner" "no ld-linux*.so* found"
fi
refused interactive_program "$C0" "env timeout 5 nice env bash" "$(req1 '["env","timeout","5","nice","env","bash"]')"
refused nested_privilege_tool "$C0" "nice env timeout 5 stdbuf -o0 /usr/bin/sudo id" "$(req1 '["nice","env","timeout","5","stdbuf","-o0","/usr/bin/sudo","id"]')"
refused interactive_program "$C0" "logsave /dev/null dash" "$(req1 '["logsave","/dev/null","dash"]')"
refused interactive_program "$C0" "setarch x86_64 bash" "$(req1 '["setarch","x86_64","bash"]')"
refused interactive_program "$C0" "linux64 /bin/sh" "$(req1 '["setarch","linux64","/bin/sh"]')"
refused interactive_program "$C0" "choom -n 0 -- sh" "$(req1 '["choom","-n","0","--","sh"]')"
refused interactive_program "$C0" "ssh-agent sh (a runner nobody lists)" "$(req1 '["true","ssh-agent","sh"]')"
refused interactive_program "$C0" "dbus-run-session -- bash" "$(req1 '["dbus-run-session","--","bash"]')"
refused interactive_program "$C0" "unbuffer bash" "$(req1 '["nice","unbuffer","bash"]')"
refused interactive_program "$C0" "fakeroot dash" "$(req1 '["nice","fakeroot","dash"]')"
refused interactive_program "$C0" "valgrind --tool=none bash" "$(req1 '["nice","valgrind","--tool=none","bash"]')"
refused interactive_program "$C0" "systemd-cat bash" "$(req1 '["systemd-cat","bash"]')"
refused nested_privilege_tool "$C0" "systemd-inhibit sudo" "$(req1 '["systemd-inhibit","sudo","id"]')"
refused interactive_program "$C0" "ip netns exec x /bin/sh" "$(req1 '["ip","netns","exec","x","/bin/sh"]')"
refused interactive_program "$C0" "systemd-run -p ExecStartPre=/bin/sh x" "$(req1 '["systemd-run","-p","ExecStartPre=/bin/sh -x","true"]')"
refused interactive_program "$C0" "a value after = naming bash: --program=bash" "$(req1 '["true","--program=bash"]')"
refused interactive_program "$C0" "a value with spaces starting with dash" "$(req1 '["true","x","dash -x"]')"
refused interactive_program "$C0" "a word that is a renamed copy of bash (identity)" "$(req1 "[\"true\",\"$B/notashell\"]")"
if [ -f "$B/helper" ]; then
	refused nested_privilege_tool "$C0" "a word that is a renamed copy of sudo (identity)" "$(req1 "[\"true\",\"$B/helper\"]")"
fi
refused bad_executable "$C0.argv[1]" "run-parts --regex ^dash\$ --arg=-c --arg=id /usr/bin" "$(req1 '["run-parts","--regex","^dash$","--arg=-c","--arg=id","/usr/bin"]')"
refused bad_executable "$C0.argv[1]" "run-parts -a id /etc/cron.daily" "$(req1 '["run-parts","-a","id","/etc/cron.daily"]')"
refused interactive_program "$C0" "apt-get install /bin/bash (a path, not a package name)" "$(req1 '["apt-get","install","-y","/bin/bash"]')"
refused interactive_program "$C0" "chmod 4755 /bin/bash" "$(req1 '["chmod","4755","/bin/bash"]')"
refused interactive_program "$C0" "no package names inside find: -name apt-get -o -name install -exec sh" "$(req1 '["find","/","-name","apt-get","-o","-name","install","-exec","sh","{}",";"]')"
refused interactive_program "$C0" "find -exec systemctl start x ; -exec bash ;" "$(req1 '["find","/","-exec","systemctl","start","x",";","-exec","bash",";"]')"

diag "runners whose program is decided at run time"
refused bad_executable "$C0.argv[5]" "find /bin -name das? -exec {} -ec id ;" "$(req1 '["find","/bin","-name","das?","-exec","{}","-ec","id",";"]')"
refused bad_executable "$C0.argv[7]" "timeout 5 find /bin -name das? -exec {} ;" "$(req1 '["timeout","5","find","/bin","-name","das?","-exec","{}",";"]')"
refused bad_executable "$C0.argv[3]" "find / -execdir {} +" "$(req1 '["find","/","-execdir","{}","+"]')"
refused bad_executable "$C0.argv[3]" "find / -ok ./x ;" "$(req1 '["find","/","-ok","./x",";"]')"
refused bad_executable "$C0.argv[3]" "find / -okdir /bin/{} ;" "$(req1 '["find","/","-okdir","/bin/{}",";"]')"
refused bad_executable "$C0.argv[3]" "find / -exec no-such-tool ;" "$(req1 '["find","/","-exec","wt-e2e-no-such-tool",";"]')"
refused writable_executable "$C0.argv[3]" "find / -exec a requester-owned program" "$(req1 "[\"find\",\"/\",\"-exec\",\"$RBIN/mine\",\";\"]")"
refused bad_executable "$C0.argv[1]" "xargs -a FILE" "$(req1 '["xargs","-a","/etc/hosts","echo"]')"
refused bad_executable "$C0.argv[1]" "xargs --arg-file=FILE" "$(req1 '["xargs","--arg-file=/etc/hosts"]')"
refused bad_executable "$C0.argv[1]" "xargs --arg FILE (an abbreviation)" "$(req1 '["xargs","--arg","/etc/hosts"]')"
refused bad_executable "$C0.argv[1]" "xargs -0a FILE (in a cluster)" "$(req1 '["xargs","-0a","/etc/hosts"]')"
refused bad_executable "$C0.argv[3]" "xargs -I % %" "$(req1 '["xargs","-I","%","%"]')"
refused bad_executable "$C0.argv[3]" "nice xargs {}" "$(req1 '["nice","-n5","xargs","{}"]')"
# A cwd the requester owns is refused itself (writable_argument, below);
# a relative program is refused from a root-owned cwd too.
refused writable_argument '$.cwd' "env ./mine from a cwd the requester owns" "$(req1 '["env","./mine"]' '' "\"cwd\":\"$RBIN\"")"
refused bad_executable "$C0.argv[1]" "env ./bin/truecopy from a root-owned cwd" "$(req1 '["env","./bin/truecopy"]' '' "\"cwd\":\"$FX\"")"
refused bad_executable "$C0.argv[2]" "timeout 5 bin/truecopy (a relative program)" "$(req1 '["timeout","5","bin/truecopy"]' '' "\"cwd\":\"$FX\"")"

diag "inline code in every spelling"
refused shell_request "$C0.argv[1]" "python3 -Ic CODE" "$(req1 '["python3","-Ic","print(1)"]')"
refused shell_request "$C0.argv[1]" "python3 -cCODE" "$(req1 '["python3","-cprint(1)"]')"
refused shell_request "$C0.argv[2]" "python3 -B -Esc CODE" "$(req1 '["python3","-B","-Esc","print(1)"]')"
refused shell_request "$C0.argv[3]" "timeout 5 python3 -Ic CODE" "$(req1 '["timeout","5","python3","-Ic","print(1)"]')"
refused shell_request "$C0.argv[1]" "python3 -m timeit CODE" "$(req1 '["python3","-m","timeit","__import__(\"os\").system(\"id\")"]')"
refused shell_request "$C0.argv[1]" "man -P id ls" "$(req1 '["man","-P","id","ls"]')"
refused shell_request "$C0.argv[1]" "perl -e CODE" "$(req1 '["perl","-e","system 1"]')"
refused shell_request "$C0.argv[1]" "perl -E CODE" "$(req1 '["perl","-E","say 1"]')"
refused shell_request "$C0.argv[1]" "perl -lne CODE" "$(req1 '["perl","-lne","print","/etc/hosts"]')"
refused shell_request "$C0.argv[1]" "perl -Mstrict;system(...)" "$(req1 '["perl","-Mstrict;system(1)","/usr/share/x.pl"]')"
refused shell_request "$C0.argv[2]" "ruby -e CODE" "$(req1 '["nice","ruby","-e","1"]')"
refused shell_request "$C0.argv[2]" "node -e CODE" "$(req1 '["nice","node","-e","1"]')"
refused shell_request "$C0.argv[2]" "node --eval=CODE" "$(req1 '["nice","node","--eval=1"]')"
refused shell_request "$C0.argv[2]" "node -p CODE" "$(req1 '["nice","node","-p","1"]')"
refused shell_request "$C0.argv[2]" "node --print CODE" "$(req1 '["nice","node","--print","1"]')"
refused shell_request "$C0.argv[2]" "php -r CODE" "$(req1 '["nice","php","-r","system(1);"]')"
refused shell_request "$C0.argv[1]" "awk PROGRAM" "$(req1 '["awk","BEGIN{system(\"id\")}"]')"
refused shell_request "$C0.argv[3]" "mawk -F: PROGRAM" "$(req1 '["mawk","-F",":","{print}","/etc/passwd"]')"
refused shell_request "$C0.argv[2]" "gawk --source=PROGRAM" "$(req1 '["nice","gawk","--source=BEGIN{}"]')"
refused shell_request "$C0.argv[2]" "sed -n '1e id'" "$(req1 '["sed","-n","1e id","/etc/hosts"]')"
refused shell_request "$C0.argv[1]" "sed s/x/id/e" "$(req1 '["sed","s/x/id/e","/etc/hosts"]')"
refused shell_request "$C0.argv[1]" "sed --expression='1e id'" "$(req1 '["sed","--expression=1e id","/etc/hosts"]')"
refused shell_request "$C0.argv[2]" "sed -ne '\$e id'" "$(req1 '["sed","-ne","$e id","/etc/hosts"]')"
refused shell_request "$C0.argv[2]" "nice dc -e '!id'" "$(req1 '["nice","dc","-e","!id"]')"
refused shell_request "$A0" "flock --time 5 F --command id" "$(req1 '["flock","--time","5","/tmp/wt.lock","--command","id"]')"
refused shell_request "$A0" "flock --time 5 F --comm id" "$(req1 '["flock","--time","5","/tmp/wt.lock","--comm","id"]')"
refused shell_request "$A0" "flock -nw5 F --command id" "$(req1 '["flock","-nw","5","/tmp/wt.lock","--command","id"]')"
refused shell_request "$C0.argv[2]" "timeout 5 flock F --command id" "$(req1 '["timeout","5","flock","/tmp/wt.lock","--command","id"]')"
refused shell_request "$C0.argv[3]" "tar --checkpoint-action=exec=id" "$(req1 '["tar","-xf","/x.tar","--checkpoint-action=exec=id"]')"
refused shell_request "$C0.argv[3]" "tar --checkpoint-action exec=id" "$(req1 '["tar","-xf","/x.tar","--checkpoint-action","exec=id"]')"
refused shell_request "$C0.argv[3]" "tar --to-command=id" "$(req1 '["tar","-xf","/x.tar","--to-command=id"]')"
refused shell_request "$C0.argv[3]" "tar --to-com=id (an abbreviation)" "$(req1 '["tar","-xf","/x.tar","--to-com=id"]')"
refused shell_request "$C0.argv[1]" "tar -I 'dash -ec id'" "$(req1 '["tar","-I","dash -ec id","-xf","/x.tar"]')"
refused shell_request "$C0.argv[1]" "tar -xIid (joined)" "$(req1 '["tar","-xIid","-f","/x.tar"]')"
refused shell_request "$C0.argv[1]" "tar --use-compress-program=id" "$(req1 '["tar","--use-compress-program=id","-xf","/x.tar"]')"
refused shell_request "$C0.argv[1]" "tar xIf id /x.tar (old style)" "$(req1 '["tar","xIf","id","/x.tar"]')"
refused shell_request "$C0.argv[1]" "sort --compress-program=id" "$(req1 '["sort","--compress-program=id","/etc/hosts"]')"
refused shell_request "$C0.argv[3]" "scp -o ProxyCommand=id" "$(req1 '["nice","scp","-o","ProxyCommand=id","a","b"]')"
refused shell_request "$C0.argv[2]" "scp -oLocalCommand=id" "$(req1 '["nice","scp","-oLocalCommand=id","a","b"]')"
refused shell_request "$C0.argv[2]" "scp -S id" "$(req1 '["nice","scp","-S","id","a","b"]')"
refused shell_request "$C0.argv[2]" "sftp -D id" "$(req1 '["nice","sftp","-D","id","host"]')"
refused shell_request "$C0.argv[2]" "rsync -e id" "$(req1 '["nice","rsync","-e","id","a","b"]')"
refused shell_request "$C0.argv[2]" "rsync --rsh=id" "$(req1 '["nice","rsync","--rsh=id","a","b"]')"
refused shell_request "$C0.argv[1]" "git -c core.pager=id log" "$(req1 '["git","-c","core.pager=id","log"]')"
refused shell_request "$C0.argv[1]" "git --config-env=core.pager=X log" "$(req1 '["git","--config-env=core.pager=X","log"]')"
refused shell_request "$C0.argv[2]" "git clone --upload-pack=id" "$(req1 '["git","clone","--upload-pack=id","x","/tmp/y"]')"
refused shell_request "$C0.argv[2]" "git clone -u id" "$(req1 '["git","clone","-u","id","x","/tmp/y"]')"
refused shell_request "$C0.argv[2]" "git push --receive-pack=id" "$(req1 '["git","push","--receive-pack=id","x"]')"
refused shell_request "$C0.argv[3]" "git config --global core.pager id" "$(req1 '["git","config","--global","core.pager","id"]')"
refused shell_request "$C0.argv[2]" "git rebase -x id" "$(req1 '["git","rebase","-x","id"]')"
refused shell_request "$A0" "watch ls" "$(req1 '["watch","ls"]')"
refused shell_request "$C0.argv[1]" "script -c id" "$(req1 '["script","-c","id"]')"
refused interactive_program "$A0" "script -qcid (script is an interactive program)" "$(req1 '["script","-qcid"]')"
refused shell_request "$C0.argv[2]" "zip -TT id" "$(req1 '["zip","-T","-TT","id","/x.zip","/etc/hosts"]')"
refused shell_request "$C0.argv[1]" "zip --unzip-command=id" "$(req1 '["zip","--unzip-command=id","-T","/x.zip","/etc/hosts"]')"
refused shell_request "$C0.argv[3]" "gdb -batch -ex 'shell id'" "$(req1 '["nice","gdb","-batch","-ex","shell id"]')"
refused shell_request "$C0.argv[2]" "gdb --eval-command='shell id'" "$(req1 '["nice","gdb","--eval-command=shell id"]')"
refused shell_request "$C0.argv[2]" "gdb -x FILE" "$(req1 '["nice","gdb","-x","/usr/share/x.gdb"]')"
refused shell_request "$C0.argv[2]" "lldb -o 'platform shell id'" "$(req1 '["nice","lldb","-o","platform shell id"]')"
refused shell_request "$C0.argv[1]" "dpkg --pre-invoke=id" "$(req1 '["dpkg","--pre-invoke=id","-i","/x.deb"]')"
refused shell_request "$C0.argv[1]" "dpkg --post-invoke id" "$(req1 '["dpkg","--post-invoke","id","-i","/x.deb"]')"
refused shell_request "$C0.argv[2]" "apt-get -o APT::Update::Pre-Invoke::=id update" "$(req1 '["apt-get","-o","APT::Update::Pre-Invoke::=id","update"]')"
refused shell_request "$C0.argv[1]" "apt-get -oDPkg::Post-Invoke::=id install x" "$(req1 '["apt-get","-oDPkg::Post-Invoke::=id","install","x"]')"
refused shell_request "$C0.argv[2]" "apt -o DPkg::Pre-Install-Pkgs::=id" "$(req1 '["apt","-o","DPkg::Pre-Install-Pkgs::=id","install","x"]')"
refused shell_request "$C0.argv[2]" "apt-get -o Dpkg::Options::=--pre-invoke=id" "$(req1 '["apt-get","-o","Dpkg::Options::=--pre-invoke=id","install","x"]')"
refused shell_request "$C0.argv[2]" "make --eval" "$(req1 '["nice","make","--eval=x:=$(shell id)"]')"
refused shell_request "$C0.argv[1]" "an interpreter named in a value: --rsh=python3" "$(req1 '["true","--rsh=python3"]')"

diag "bad_executable"
refused bad_executable "$A0" "relative path ./x" "$(req1 '["./x"]')"
refused bad_executable "$A0" "relative path bin/ls" "$(req1 '["bin/ls"]')"
refused bad_executable "$A0" "relative path ../../usr/bin/true" "$(req1 '["../../usr/bin/true"]')"
refused bad_executable "$A0" "missing absolute path" "$(req1 '["/nonexistent/wt-e2e-tool"]')"
refused bad_executable "$A0" "a directory (/usr/bin)" "$(req1 '["/usr/bin"]')"
refused bad_executable "$A0" "a directory with a trailing slash" "$(req1 '["/usr/bin/"]')"
refused bad_executable "$A0" "/" "$(req1 '["/"]')"
refused bad_executable "$A0" "bare name not on the trusted path" "$(req1 '["wt-e2e-no-such-tool"]')"
refused bad_executable "$A0" "bare name of a file outside the trusted path" "$(req1 "[\"$OFFPATH\"]")"
refused bad_executable "$A0" "root-owned 0644 regular file" "$(req1 "[\"$B/noexec\"]")"
refused bad_executable "$A0" "a FIFO" "$(req1 "[\"$B/fifo\"]")"
refused bad_executable "$A0" "a character device" "$(req1 '["/dev/null"]')"
refused bad_executable "$A0" "a symlink loop" "$(req1 "[\"$B/loop\"]")"
refused bad_executable "$A0" "a dangling symlink" "$(req1 "[\"$B/dangling\"]")"

diag "writable_executable"
refused writable_executable "$A0" "a copy of true owned by the requester" "$(req1 "[\"$RBIN/mine\"]")"
refused writable_executable "$A0" "root-owned 0755 file in a requester-owned directory" "$(req1 "[\"$RBIN/rootowned\"]")"
refused writable_executable "$A0" "root-owned file in a root-owned dir under a requester-owned one" "$(req1 "[\"$RBIN/rootdir/true\"]")"
refused writable_executable "$A0" "root-owned file in a group-writable dir of the requester's group" "$(req1 "[\"$FX/grp/true\"]")"
refused writable_executable "$A0" "root-owned file writable by the requester's group" "$(req1 "[\"$B/gtrue\"]")"
refused writable_executable "$A0" "root-owned world-writable file" "$(req1 "[\"$B/wwtrue\"]")"
refused writable_executable "$A0" "root-owned file in a world-writable (not sticky) dir" "$(req1 "[\"$FX/ww/true\"]")"
refused writable_executable "$A0" "requester-owned file in a sticky world-writable dir" "$(req1 "[\"$FX/sticky/reqfile\"]")"
refused writable_executable "$A0" "root-owned file in a sticky dir owned by the requester" "$(req1 "[\"$FX/rsticky/rootfile\"]")"
refused writable_executable "$A0" "root-owned symlink resolving to a requester-owned file" "$(req1 "[\"$B/evil\"]")"
if command -v setfacl >/dev/null 2>&1; then
	cp "$TRUE" "$B/acltrue"
	setfacl -m "u:$REQ:rwx" "$B/acltrue"
	refused writable_executable "$A0" "root-owned 0755 file with an ACL granting the requester write" "$(req1 "[\"$B/acltrue\"]")"
else
	skip "ACL granting the requester write" "setfacl is not installed"
fi

diag "credential_field_rejected"
refused credential_field_rejected "$C0.argv[1]" "argv PASSWORD=x" "$(req1 '["true","PASSWORD=x"]')"
refused credential_field_rejected "$C0.argv[1]" "argv --Token=abc" "$(req1 '["true","--Token=abc"]')"
refused credential_field_rejected "$C0.argv[1]" "argv db_Secret=1" "$(req1 '["true","db_Secret=1"]')"
refused credential_field_rejected "$C0.argv[2]" "argv --PassPhrase=y" "$(req1 '["true","x","--PassPhrase=y"]')"
refused credential_field_rejected "$C0.argv[1]" "argv with passwd= inside" "$(req1 '["true","url?passwd=hunter2"]')"
refused credential_field_rejected "$C0.argv[1]" "YOU argv token=abc" "$(requ '["true","token=abc"]')"
refused credential_field_rejected '$.env.FOO' "env value passwd=x" "$(reqtop '"env":{"FOO":"passwd=x"}')"
refused credential_field_rejected '$.env.MY_TOKEN' "env key MY_TOKEN" "$(reqtop '"env":{"MY_TOKEN":"1"}')"
refused credential_field_rejected '$.env.api_Passphrase' "env key api_Passphrase" "$(reqtop '"env":{"api_Passphrase":"1"}')"
refused credential_field_rejected '$.env.db_password' "env key db_password" "$(reqtop '"env":{"db_password":"x"}')"
refused credential_field_rejected '$.env.SeCrEt' "env key SeCrEt" "$(reqtop '"env":{"SeCrEt":"x"}')"
refused credential_field_rejected "$C0.command" "YOU command string with token=abc" "$(reqc '"curl -H token=abc https://example.org"')"
refused credential_field_rejected "$C0.command" "YOU command string with --PASSWORD=x" "$(reqc '"mysql --PASSWORD=x"')"
# Every shape of warrant-request(5), as a JSON string, in each place an
# agent could put it: an argv element, an env value, the reason, a why.
js() { "$PY" -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }
SHY=$(printf '\302\255')
ZWSP=$(printf '\342\200\213')
for shape in "--password=hunter2" "url?api_key=abc" "DB_PASSWORD=x" "password: hunter2" \
    "https://user:pw@example.org/" "Authorization: Bearer abc" \
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a" "github_pat_11ABCDEFG0123456789_abcdefghijklmnop" \
    "glpat-xxxxXXXXxxxx12345678" "xoxb-1234567890-abcdefghij" "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t" \
    "AKIAIOSFODNN7EXAMPLE" "-----BEGIN OPENSSH PRIVATE KEY-----" "pass:hunter2" \
    "mysql --password hunter2" "pass${SHY}word=x" "to${ZWSP}ken: abc"; do
	j=$(js "$shape")
	refused credential_field_rejected "$C0.argv[1]" "argv $shape" "$(req1 "[\"true\",$j]")"
	refused credential_field_rejected '$.env.X' "env value $shape" "$(reqtop "\"env\":{\"X\":$j}")"
	refused credential_field_rejected '$.reason' "reason $shape" \
	    "$(printf '{"reason":%s,"commands":[{"id":"a","why":"w","argv":["true"]}]}' "$j")"
	refused credential_field_rejected '$.reason' "reason (as why) $shape" \
	    "$(printf '{"why":%s,"commands":[{"id":"a","why":"w","argv":["true"]}]}' "$j")"
	refused credential_field_rejected "$C0.why" "why $shape" \
	    "$(printf '{"reason":"r","commands":[{"id":"a","why":%s,"argv":["true"]}]}' "$j")"
done
refused credential_field_rejected "$C0.argv[2]" "argv --password VALUE (two words)" "$(req1 '["true","--password","hunter2"]')"
refused credential_field_rejected "$C0.argv[3]" "argv --API-KEY VALUE (two words)" "$(req1 '["true","-v","--API-KEY","abc"]')"
refused credential_field_rejected "$C0.argv[2]" "YOU argv --token VALUE" "$(requ '["true","--token","abc"]')"
refused credential_field_rejected '$.env.MYSQL_PWD' "env key MYSQL_PWD" "$(reqtop '"env":{"MYSQL_PWD":"x"}')"
refused credential_field_rejected '$.env.OPENAI_API_KEY' "env key OPENAI_API_KEY" "$(reqtop '"env":{"OPENAI_API_KEY":"x"}')"
refused credential_field_rejected '$.env.GITHUB_TOKEN' "env key GITHUB_TOKEN" "$(reqtop '"env":{"GITHUB_TOKEN":"x"}')"
refused credential_field_rejected '$.next.prompt' "next.prompt with a token" "$(reqtop '"next":{"prompt":"use xoxb-1234567890-abcdefghij"}')"

diag "forbidden_env"
for k in LD_PRELOAD ld_preload LD_LIBRARY_PATH DYLD_x DYLD_INSERT_LIBRARIES PYTHONPATH \
    PYTHONINSPECT PATH path SUDO_ASKPASS SSH_ASKPASS BASH_ENV ENV SHELLOPTS BASHOPTS \
    'BASH_FUNC_foo%%' BASH_FUNC_ls IFS SUDO_USER SUDO_UID; do
	refused forbidden_env "\$.env.$k" "env key $k" "$(reqtop "\"env\":{\"$k\":\"x\"}")"
done

diag "writable_argument: root never uses a path the requester can change"
# Root-owned controls, and the requester's own files in its home.
printf 'x\n' >"$FX/conf" && chmod 644 "$FX/conf"
printf 'x\n' >"$FX/gconf" && chgrp "$GRP" "$FX/gconf" && chmod 664 "$FX/gconf"
printf 'x\n' >"$FX/ogconf" && chgrp "$OGRP" "$FX/ogconf" && chmod 664 "$FX/ogconf"
printf 'x\n' >"$FX/aclconf" && chmod 644 "$FX/aclconf"
printf 'print(1)\n' >"$WT_RB/tool.py" && chown "$REQ" "$WT_RB/tool.py"
printf 'x\n' >"$WT_RB/args" && chown "$REQ" "$WT_RB/args"
ln -s "$WT_RB/tool.py" "$FX/evilconf"	# root-owned link to a requester file
refused writable_argument "$C0.argv[1]" "python3 with a script in the requester's home" "$(req1 "[\"python3\",\"$WT_RB/tool.py\"]")"
refused writable_argument "$C0.argv[2]" "cat of a requester-owned file" "$(req1 "[\"cat\",\"-n\",\"$WT_RB/args\"]")"
refused writable_argument "$C0.argv[1]" "--config=FILE owned by the requester" "$(req1 "[\"true\",\"--config=$WT_RB/args\"]")"
refused writable_argument "$C0.argv[1]" "NAME=FILE owned by the requester" "$(req1 "[\"true\",\"conf=$WT_RB/args\"]")"
refused writable_argument "$C0.argv[1]" "-fFILE joined to a short option" "$(req1 "[\"true\",\"-f$WT_RB/args\"]")"
refused writable_argument "$C0.argv[1]" "a path that does not exist yet in the requester's home" "$(req1 "[\"true\",\"$WT_RB/not-yet.conf\"]")"
refused writable_argument "$C0.argv[1]" "a path that does not exist yet in /tmp (sticky)" "$(req1 "[\"true\",\"/tmp/wt-e2e-not-yet-$$\"]")"
refused writable_argument "$C0.argv[1]" "a path that does not exist yet in a sticky root-owned dir" "$(req1 "[\"true\",\"$FX/sticky/not-yet\"]")"
refused writable_argument "$C0.argv[1]" "a requester-owned file in a sticky root-owned dir" "$(req1 "[\"true\",\"$FX/sticky/reqfile\"]")"
refused writable_argument "$C0.argv[1]" "a group-writable file of a group the requester is in" "$(req1 "[\"true\",\"$FX/gconf\"]")"
refused writable_argument "$C0.argv[1]" "a root-owned symlink to a requester file" "$(req1 "[\"true\",\"$FX/evilconf\"]")"
refused writable_argument "$C0.argv[1]" "a path through '..' into the requester's home" "$(req1 "[\"true\",\"$FX/../..$WT_RB/args\"]")"
refused writable_argument "$C0.argv[1]" "a relative path (root runs in /)" "$(req1 "[\"true\",\"${WT_RB#/}/args\"]")"
refused writable_argument "$C0.argv[1]" "a search path with one requester directory" "$(req1 "[\"true\",\"--path=/usr/lib:$WT_RB\"]")"
refused writable_argument "$C0.argv[3]" "nice timeout 5 FILE" "$(req1 "[\"nice\",\"timeout\",\"5\",\"$WT_RB/tool.py\"]")"
if setfacl -m "u:$REQ:rw" "$FX/aclconf" 2>"$WT_T/err"; then
	refused writable_argument "$C0.argv[1]" "a root-owned 0644 file with an ACL entry for the requester" "$(req1 "[\"true\",\"$FX/aclconf\"]")"
else
	skip "a file with an ACL entry for the requester" "setfacl failed: $(head -c 200 "$WT_T/err")"
fi
refused writable_argument '$.env.CONF' "an env value naming a requester file" "$(reqtop "\"env\":{\"CONF\":\"$WT_RB/args\"}")"
refused writable_argument '$.env.OPTS' "an env value carrying one after '='" "$(reqtop "\"env\":{\"OPTS\":\"--rcfile=$WT_RB/args\"}")"
refused writable_argument '$.cwd' "ROOT cwd owned by the requester" "$(reqtop "\"cwd\":\"$WT_RB\"")"
refused writable_argument '$.cwd' "ROOT cwd /tmp" "$(reqtop '"cwd":"/tmp"')"

diag "forbidden_env: names that pick a configuration or code location"
for k in HOME GIT_EXTERNAL_DIFF GIT_DIR GIT_WORK_TREE XDG_CONFIG_HOME XDG_DATA_HOME \
    XDG_CONFIG_DIRS XDG_DATA_DIRS MAKEFLAGS MAKEFILES TAR_OPTIONS GZIP BZIP2 XZ_DEFAULTS \
    LESS PERL_MB_OPT PIP_CONFIG_FILE NPM_CONFIG_PREFIX OPENSSL_CONF APT_CONFIG; do
	refused forbidden_env "\$.env.$k" "env key $k" "$(reqtop "\"env\":{\"$k\":\"x\"}")"
done
refused forbidden_env '$.env.HOME' "env HOME=the requester's home" "$(reqtop "\"env\":{\"HOME\":\"$REQ_HOME\"}")"

diag "env words inside argv go through the env rules"
refused forbidden_env "$C0.argv[1]" "env LD_PRELOAD=FILE id" "$(req1 "[\"env\",\"LD_PRELOAD=$WT_RB/x.so\",\"id\"]")"
refused forbidden_env "$C0.argv[2]" "/usr/bin/env -i HOME=... python3" "$(req1 "[\"/usr/bin/env\",\"-i\",\"HOME=$REQ_HOME\",\"python3\",\"-V\"]")"
refused forbidden_env "$C0.argv[3]" "timeout 5 env LD_PRELOAD=... id" "$(req1 '["timeout","5","env","LD_PRELOAD=/usr/lib/x.so","id"]')"
refused forbidden_env "$C0.argv[4]" "nice env -u X GIT_DIR=... git" "$(req1 '["nice","env","-u","X","GIT_DIR=/srv/x","git","status"]')"
refused credential_field_rejected "$C0.argv[1]" "env DB_SECRET=1 id" "$(req1 '["env","DB_SECRET=1","id"]')"

diag "unknown_machine"
refused unknown_machine '$.machine' "machine otherhost" "$(reqtop '"machine":"otherhost"')"
refused unknown_machine '$.machine' "machine root@otherhost" "$(reqtop '"machine":"root@otherhost"')"

check "[P5] no refusal so far created the state directory" [ ! -e "$S" ]
check "[P5] nor its parent" [ ! -e "$WT_RB/v" ]

diag "accepted requests (YOU commands may use shells)"
accepted "YOU argv bash -c 'echo hi' is accepted" "$(requ '["bash","-c","echo hi"]')"
check "the first accepted request created the state directory" [ -d "$S" ]
accepted "YOU command reading the requester's own file" "$(requ "[\"cat\",\"$WT_RB/args\"]")"
accepted "YOU command with a cwd of the requester's own" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w","as":"user","argv":["true"],"cwd":"%s"}]}' "$WT_RB")"
accepted "ROOT /etc/hosts and /usr/bin/x arguments" "$(req1 '["true","/etc/hosts","/usr/bin/x","install","a=b"]')"
accepted "--config=FILE root-owned" "$(req1 "[\"true\",\"--config=$FX/conf\"]")"
accepted "a root-owned file in a sticky root-owned dir" "$(req1 "[\"true\",\"$FX/sticky/rootfile\"]")"
accepted "a group-writable file of a group the requester is not in" "$(req1 "[\"true\",\"$FX/ogconf\"]")"
accepted "/dev/null, /dev/stdin and /proc/self/status" "$(req1 '["true","/dev/null","/dev/stdin","/proc/self/status"]')"
accepted "a missing path under a root-owned dir" "$(req1 "[\"true\",\"$FX/not-yet\",\"/etc/wt-e2e-not-yet\"]")"
accepted "an env value naming a root-owned file" "$(reqtop "\"env\":{\"CONF\":\"$FX/conf\"}")"
accepted "env FOO=bar LANG=C true" "$(req1 '["env","FOO=bar","LANG=C","true"]')"
accepted "YOU command string 'echo hi' is accepted" "$(reqc '"echo hi"')"
accepted "YOU command string with a loop and a pipe" "$(reqc '"for f in *; do echo \"$f\"; done | wc -l"')"
accepted "YOU command may run a requester-owned executable" "$(requ "[\"$RBIN/mine\"]")"
accepted "YOU command env bash" "$(requ '["env","bash"]')"
accepted "root-owned file in a sticky world-writable root-owned dir" "$(req1 "[\"$FX/sticky/rootfile\"]")"
accepted "root-owned file in a group-writable dir of a group the requester is not in" "$(req1 "[\"$FX/ogrp/true\"]")"
accepted "root-owned copy of true in a root-owned dir" "$(req1 "[\"$B/truecopy\"]")"
accepted "watch -x date" "$(req1 '["watch","-x","date"]')"
accepted "--token-file (no credential shape)" "$(req1 '["true","--token-file","/x"]')"
accepted "--token-file=/x (a file, not a credential)" "$(req1 '["true","--token-file=/x"]')"
accepted "--password-file /x" "$(req1 '["true","--password-file","/x"]')"
accepted "--password as the last word (the tool prompts)" "$(req1 '["true","--password"]')"
accepted "--password followed by an option" "$(req1 '["true","--password","--host","db"]')"
accepted "a package named libpassword-perl" "$(req1 '["true","install","libpassword-perl"]')"
accepted "-f key (as ssh-keygen takes it)" "$(req1 '["true","-f","key"]')"
accepted "a URL with a user and no password" "$(req1 '["true","https://user@example.org/"]')"
accepted "reason mentioning a password without a value" "$(printf '{"reason":"reset the password of bob","commands":[{"id":"a","why":"the token expired","argv":["true"]}]}')"
accepted "harmless env" "$(reqtop '"env":{"FOO":"bar","LANGUAGE":"C"}')"
accepted "machine \"\"" "$(reqtop '"machine":""')"
accepted "machine \"local\"" "$(reqtop '"machine":"local"')"
accepted "gate_timeout_seconds 86400" "$(reqtop '"gate_timeout_seconds":86400')"
accepted "id of 64 characters" "$(printf '{"reason":"r","commands":[{"id":"%s","why":"w","argv":["true"]}]}' "$("$PY" -c 'print("A" + "b.-_9" * 12 + "zzz")')")"
"$PY" -c '
import json
cmds = [{"id": "c%d" % i, "why": "w", "argv": ["/usr/bin/true"]} for i in range(128)]
print(json.dumps({"reason": "r", "commands": cmds}))' >"$WT_T/f"
accepted_file "128 commands" "$WT_T/f"
"$PY" -c '
import json
print(json.dumps({"reason": "r", "env": {"V": "x" * 4096}, "commands": [{"id": "a", "why": "y" * 2048,
    "argv": ["/usr/bin/true", "x" * 4096] + ["y"] * 62}]}))' >"$WT_T/f"
accepted_file "64 argv entries, a 4096-byte element, a 4096-byte env value, a 2048-byte why" "$WT_T/f"
"$PY" -c '
import json, sys
base = {"reason": "r", "commands": [{"id": "a", "why": "w", "argv": ["/usr/bin/true"]}]}
s = json.dumps(base)
sys.stdout.write(s + " " * (262144 - len(s)))' >"$WT_T/f"
accepted_file "a request of exactly 256 KiB" "$WT_T/f"

diag "accepted: package names, unit names and exact argv stay accepted"
mkdir "$FX/src" "$FX/repo" && echo x >"$FX/src/f" && tar -czf "$FX/x.tgz" -C "$FX/src" f
printf 'BEGIN { print 1 }\n' >"$FX/x.awk"
accepted "apt-get install -y bash (a package name)" "$(req1 '["apt-get","install","-y","bash","sudo","python3"]')"
accepted "apt-get -o Dpkg::Options::=--force-confold install bash" "$(req1 '["apt-get","-o","Dpkg::Options::=--force-confold","install","bash"]')"
accepted "dpkg -L bash" "$(req1 '["dpkg","-L","bash"]')"
accepted "tar -xzf a root-owned archive -C /opt" "$(req1 "[\"tar\",\"-xzf\",\"$FX/x.tgz\",\"-C\",\"/opt\"]")"
accepted "tar --checkpoint=100 -xzf" "$(req1 "[\"tar\",\"--checkpoint=100\",\"-xzf\",\"$FX/x.tgz\",\"-C\",\"/opt\"]")"
accepted "find /var/log -name '*.gz' -delete" "$(req1 '["find","/var/log","-name","*.gz","-delete"]')"
accepted "find /var/log -name '*.gz' -exec gzip -t {} ;" "$(req1 '["find","/var/log","-name","*.gz","-exec","gzip","-t","{}",";"]')"
accepted "systemctl restart ssh (a unit name)" "$(req1 '["systemctl","restart","ssh"]')"
accepted "journalctl -u ssh (a unit name)" "$(req1 '["journalctl","-u","ssh","--since","today"]')"
accepted "timeout 60 env DEBIAN_FRONTEND=noninteractive apt-get install -y bash" "$(req1 '["timeout","60","env","DEBIAN_FRONTEND=noninteractive","apt-get","install","-y","bash"]')"
accepted "usermod -s /bin/bash (a login shell recorded)" "$(req1 '["usermod","-s","/bin/bash","root"]')"
accepted "python3 with a root-owned script path" "$(req1 '["python3","/usr/lib/x.py"]')"
accepted "perl -w -I DIR SCRIPT" "$(req1 '["perl","-w","-I","/usr/share/e","/usr/share/x.pl"]')"
accepted "awk -f a root-owned program" "$(req1 "[\"awk\",\"-f\",\"$FX/x.awk\",\"/etc/passwd\"]")"
accepted "sed -i s/hello/there/g /etc/motd" "$(req1 '["sed","-i","s/hello/there/g","/etc/motd"]')"
accepted "sed --sandbox (e refused by sed itself)" "$(req1 '["sed","--sandbox","-n","1p","/etc/hosts"]')"
accepted "xargs echo" "$(req1 '["xargs","echo"]')"
# (a lock file in /tmp is a writable_argument: the agent may plant it)
accepted "flock F true" "$(req1 "[\"flock\",\"$FX/wt.lock\",\"true\"]")"
accepted "run-parts /etc/cron.daily" "$(req1 '["run-parts","--test","/etc/cron.daily"]')"
[ -n "$LD" ] && accepted "the loader running a root-owned program" "$(req1 "[\"$LD\",\"--list\",\"/usr/bin/true\"]")"
if command -v git >/dev/null 2>&1; then
	git init -q "$FX/repo"
	accepted "git -C a root-owned repo status" "$(req1 "[\"git\",\"-C\",\"$FX/repo\",\"status\"]")"
else
	skip "git -C a root-owned repo status" "git is not installed"
fi

diag "a refusal after gates exist changes nothing"
refused nested_privilege_tool "$A0" "sudo, with a populated store" "$(req1 '["sudo","id"]')"
refused interactive_program '$.commands[1].argv[0]' "one bad command of two refuses the whole request" "$(printf '{"reason":"r","commands":[{"id":"a","why":"w","argv":["true"]},{"id":"b","why":"w","argv":["bash"]}]}')"
before=$(store_snap)
yes | as_req timeout -k 5 30 "$W" request -j >"$WT_T/out" 2>"$WT_T/err"
rc=$?
after=$(store_snap)
check "[P5] endless input with a populated store: exit 2 (code $rc)" [ "$rc" -eq 2 ]
check "[P5] endless input with a populated store: store unchanged ($before)" [ "$before" = "$after" ]

diag "manifest of a valid request"
accepted "[P1] bare true" "$(req1 '["true","x"]')"
G=$GATE
cp "$WT_T/desc" "$WT_T/desc1"
as_req "$W" show -j "$G" >"$WT_T/show" 2>"$WT_T/err"
check "[P1] show -j exits 0" [ $? -eq 0 ]
check "[P1] manifest path is the resolved $TRUE" [ "$(jval "$WT_T/show" 'j["manifest"]["commands"][0]["path"]')" = "$TRUE" ]
check "[P1] manifest argv keeps the given argv[0]" [ "$(jval "$WT_T/show" 'j["manifest"]["commands"][0]["argv"]')" = '["true","x"]' ]
sum=$(sha256sum "$TRUE" | cut -d' ' -f1)
check "[P1] manifest executable_sha256 equals sha256sum of $TRUE" \
    [ "$(jval "$WT_T/show" 'j["manifest"]["commands"][0]["executable_sha256"]')" = "$sum" ]
check "[P1] the command row keeps given_path true" [ "$(jval "$WT_T/show" 'j["commands"][0]["given_path"]')" = true ]
as_req sqlite3 "$S/warrant.db" "SELECT hex(manifest) FROM gates WHERE id = '$G'" |
    "$PY" -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))' >"$WT_T/canon"
msum=$(sha256sum <"$WT_T/canon" | cut -d' ' -f1)
check "[P1] manifest_sha256 (descriptor) equals sha256sum of the stored canonical bytes" \
    [ "$(jval "$WT_T/desc1" 'j["manifest_sha256"]')" = "$msum" ]
check "[P1] manifest_sha256 (show -j) equals it too" [ "$(jval "$WT_T/show" 'j["manifest_sha256"]')" = "$msum" ]
check "[P1] stored bytes are canonical (sorted keys, compact, UTF-8) and equal show's manifest" "$PY" -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
m = json.loads(raw)
canon = json.dumps(m, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
show = json.load(open(sys.argv[2]))["manifest"]
sys.exit(0 if raw == canon and m == show else 1)' "$WT_T/canon" "$WT_T/show"
check "[P1] manifest has every field, defaults filled in" "$PY" -c '
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
c = m["commands"][0]
ok = (m["schema_version"] == 1 and m["request_id"] == sys.argv[2] and m["run_as"] == "root"
      and m["cwd"] == "/" and m["env"] == {} and m["stop_on_failure"] is True
      and m["output_to_agent"] == "tail" and m["host"] == sys.argv[3]
      and c["id"] == "a" and c["as"] == "root" and c["why"] == "w" and c["cwd"] == "/"
      and "timeout_seconds" in c and c["timeout_seconds"] is None)
sys.exit(0 if ok else 1)' "$WT_T/show" "$G" "$(uname -n)"

accepted "[P1] symlink to true" "$(req1 "[\"$B/mytrue\"]")"
as_req "$W" show -j "$GATE" >"$WT_T/show"
check "[P1] symlinked argv[0] is kept as given in the manifest argv" \
    [ "$(jval "$WT_T/show" 'j["manifest"]["commands"][0]["argv"][0]')" = "$B/mytrue" ]
check "[P1] symlinked argv[0]: manifest path is the resolved file" \
    [ "$(jval "$WT_T/show" 'j["manifest"]["commands"][0]["path"]')" = "$TRUE" ]
check "[P1] symlinked argv[0]: given_path and path both kept" \
    [ "$(jval "$WT_T/show" 'j["commands"][0]["given_path"] + " " + j["commands"][0]["path"]')" = "$B/mytrue $TRUE" ]

accepted "[P1] YOU command string" "$(reqc '"echo hi"')"
as_req "$W" show -j "$GATE" >"$WT_T/show"
check "[P1] a YOU command string runs as bash --noprofile --norc -c STRING" \
    [ "$(jval "$WT_T/show" 'j["manifest"]["commands"][0]["argv"]')" = '["bash","--noprofile","--norc","-c","echo hi"]' ]
check "[P1] the YOU command's cwd defaults to the requester's home" \
    [ "$(jval "$WT_T/show" 'j["manifest"]["commands"][0]["cwd"]')" = "$(readlink -f "$REQ_HOME")" ]

accepted "[P1] timeout_seconds 60" "$(reqtop '"timeout_seconds":60')"
as_req "$W" show -j "$GATE" >"$WT_T/show"
check "[P1] timeout_seconds is the command default and the review window" "$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s["manifest"]["commands"][0]["timeout_seconds"] == 60
         and s["expires_at"] - s["created_at"] == 60 else 1)' "$WT_T/show"

diag "invisible text is shown, not drawn"
FILL=$("$PY" -c 'print("\u3164" * 150, end="")')
accepted "a reason hiding a path behind 150 Hangul fillers" \
    "$(printf '{"reason":"ok%s/etc/passwd","commands":[{"id":"a","why":"w%s","argv":["true","x%sy"]}]}' "$FILL" "$FILL" "$FILL")"
as_req "$W" show "$GATE" >"$WT_T/show" 2>&1
check "warrant show writes each filler as <U+3164>" \
    [ "$(grep -o '<U+3164>' "$WT_T/show" | wc -l)" -eq 450 ]
check "warrant show puts no raw U+3164 on the terminal" sh -c '! grep -q "$(printf "\343\205\244")" "$1"' sh "$WT_T/show"
check "the reason reads ok<U+3164>...<U+3164>/etc/passwd" grep -q 'ok\(<U+3164>\)\{150\}/etc/passwd' "$WT_T/show"

diag "risk badges"
# badge DESC BADGE: the last descriptor's risk_badges and its first
# command's badges hold BADGE; nobadge DESC: risk_badges is empty.
badge() {
	check "$1" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
b = d["risk_badges"]
sys.exit(0 if sys.argv[2] in b and sys.argv[2] in d["commands"][0]["badges"] else 1)' "$WT_T/desc" "$2"
}
nobadge() {
	check "$1" "$PY" -c '
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["risk_badges"] == [] else 1)' "$WT_T/desc"
}
accepted "plain true" "$(req1 '["true"]')"
nobadge "plain true has no badges"
accepted "apt-get install" "$(req1 '["apt-get","install","-y","hello"]')"
badge "apt-get install: package-manager" package-manager
badge "apt-get install: network" network
if command -v systemctl >/dev/null 2>&1; then
	accepted "systemctl restart nginx" "$(req1 '["systemctl","restart","nginx"]')"
	badge "systemctl restart nginx: service-restart" service-restart
else
	skip "systemctl restart nginx" "systemctl is not installed"
	skip "service-restart badge" "systemctl is not installed"
fi
accepted "cp /etc/skel/.bashrc /etc/y" "$(req1 '["cp","/etc/skel/.bashrc","/etc/y"]')"
badge "cp /etc/skel/.bashrc /etc/y: system-path-write" system-path-write
accepted "env true" "$(req1 '["env","true"]')"
badge "env true: indirect-exec" indirect-exec
accepted "timeout_seconds 7200" "$(req1 '["true"]' '"timeout_seconds":7200')"
badge "timeout_seconds 7200: long-timeout" long-timeout
accepted "cwd /usr" "$(reqtop '"cwd":"/usr"')"
nobadge "cwd /usr: no badges"
accepted "python3 script" "$(req1 '["python3","/usr/lib/x.py"]')"
badge "python3: shell" shell
accepted "a URL argument" "$(req1 '["true","https://example.org/x"]')"
badge "a URL argument: network" network
accepted "an argument mixing Latin and Cyrillic" "$(req1 '["true","/etc/p\u0430sswd"]')"
badge "/etc/p(Cyrillic a)sswd: mixed-script" mixed-script
accepted "an argument mixing Latin and Greek" "$(req1 '["true","\u03bfpenssl"]')"
badge "(Greek omicron)penssl: mixed-script" mixed-script
accepted "Latin and Cyrillic in separate arguments" "$(req1 '["true","abc","\u0430\u0431\u0432"]')"
nobadge "separate arguments: no mixed-script"

diag "the badge table of docs/review.md, request by request"
# Every badge the validator can give (badge_names in src/intake/risk.c) is
# a row of the table, and each row's example is sent here and its badge
# found in `warrant show -j` (on some command, and in risk_badges).
"$PY" - "$WARRANT_TOP/docs/review.md" "$WARRANT_TOP/src/intake/risk.c" >"$WT_T/table" <<'PYEOF'
import re, sys
doc = open(sys.argv[1], encoding="utf-8").read()
sec = doc.split("\n## Risk badges\n", 1)[1].split("\n## ", 1)[0]
rows = re.findall(r"^\| `([a-z-]+)` \|", sec, re.M)
src = open(sys.argv[2], encoding="utf-8").read()
names = re.findall(r'"([a-z-]+)"', re.search(r"badge_names\[\] = \{(.*?)\};", src, re.S).group(1))
print("same" if sorted(rows) == sorted(names) and len(rows) == len(set(rows)) else
      "differ: table %s, code %s" % (sorted(rows), sorted(names)))
print(" ".join(rows))
PYEOF
check "docs/review.md's badge table has every badge the code gives, once ($(head -1 "$WT_T/table"))" \
    [ "$(head -1 "$WT_T/table")" = same ]
SEALED=/usr/local/bin/wt-e2e-sealed-$$
# the tar archive of archive-writable-dir: a world-writable directory entry
SITE=$("$PY" -c '
import base64, io, tarfile
b = io.BytesIO()
with tarfile.open(fileobj=b, mode="w", format=tarfile.USTAR_FORMAT) as t:
    i = tarfile.TarInfo("site/"); i.type = tarfile.DIRTYPE; i.mode = 0o777
    t.addfile(i)
print(base64.b64encode(b.getvalue()).decode(), end="")')
# the archives of archive-setid, archive-device and archive-escape: one
# member each (a 4755 program, a character device, a ../ name)
read -r A_SETID A_DEVICE A_ESCAPE <<EOF
$("$PY" -c '
import base64, io, tarfile
def one(name, kind, mode):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=tarfile.USTAR_FORMAT) as t:
        i = tarfile.TarInfo(name); i.type = kind; i.mode = mode
        t.addfile(i)
    return base64.b64encode(b.getvalue()).decode()
print(one("usr/bin/tool", tarfile.REGTYPE, 0o4755), one("dev/mem", tarfile.CHRTYPE, 0o666),
      one("../etc/cron.d/x", tarfile.REGTYPE, 0o644))')
EOF
# tar_req BASE64: tar -xf that archive (a reviewed file) -C /srv
tar_req() {
	printf '{"reason":"r","files":{"a":{"content":"%s","encoding":"base64"}},"commands":[{"id":"a","why":"w","argv":["tar","-xf",{"file":"a"},"-C","/srv"]}]}' "$1"
}
for b in $(tail -1 "$WT_T/table"); do
	case $b in
	shell) in=$(req1 '["python3","/usr/lib/x.py"]') ;;
	network) in=$(req1 '["curl","-fsSI","https://deb.debian.org/"]') ;;
	package-manager) in=$(req1 '["dpkg","-L","bash"]') ;;
	system-path-write) in=$(req1 '["cp","-n","/etc/skel/.bashrc","/etc/"]') ;;
	service-restart)
		if ! command -v systemctl >/dev/null 2>&1; then
			skip "table: $b" "systemctl is not installed"
			continue
		fi
		in=$(req1 '["systemctl","restart","nginx"]') ;;
	lockout-prone|remote)
		skip "table: $b" "needs an enrolled machine: tests/unit/test-validate.c (test_remote_badges)"
		continue ;;
	unconfined)
		skip "table: $b" "needs a host policy allowing it: test-confine.sh (9)"
		continue ;;
	indirect-exec) in=$(req1 '["timeout","60","sync"]') ;;
	long-timeout) in=$(req1 '["sync"]' '"timeout_seconds":7200') ;;
	mixed-script) in=$(req1 '["cat","/etc/p\u0430sswd"]') ;;
	sealed-at-run)
		in=$(printf '{"reason":"r","commands":[{"id":"a","why":"w","argv":["install","-m","0755","/usr/bin/true","%s"]},{"id":"b","why":"w","argv":["%s"]}]}' "$SEALED" "$SEALED") ;;
	archive-writable-dir)
		in=$(printf '{"reason":"r","files":{"site":{"content":"%s","encoding":"base64","mode":"0644"}},"commands":[{"id":"a","why":"w","argv":["tar","-xf",{"file":"site"},"-C","/srv"]}]}' "$SITE") ;;
	world-writable) in=$(req1 '["chmod","o+w","/etc/motd"]') ;;
	setuid) in=$(req1 '["chmod","u+s","/usr/local/bin/tool"]') ;;
	recursive-home-or-root) in=$(req1 '["chmod","-R","0777","/home/alice"]') ;;
	system-chown) in=$(req1 '["chown","www-data","/etc/nginx/nginx.conf"]') ;;
	lookalike) in=$(req1 '["ls","/etc\u2215passwd"]') ;;
	rtl-text) in=$(req1 '["ls","/srv/\u05e9\u05dc\u05d5\u05dd"]') ;;
	file-capability) in=$(req1 '["setcap","cap_net_bind_service=ep","/usr/local/bin/tool"]') ;;
	mount) in=$(req1 '["mount","-t","tmpfs","tmpfs","/mnt"]') ;;
	swap) in=$(req1 '["swapon","/swapfile"]') ;;
	group-change) in=$(req1 '["usermod","-aG","audio","alice"]') ;;
	privileged-group) in=$(req1 '["adduser","alice","docker"]') ;;
	starts-service) in=$(req1 '["systemctl","enable","--now","nginx"]') ;;
	archive-setid) in=$(tar_req "$A_SETID") ;;
	archive-device) in=$(tar_req "$A_DEVICE") ;;
	archive-escape) in=$(tar_req "$A_ESCAPE") ;;
	reads-cwd) in=$(req1 '["make","--version"]') ;;
	*) not_ok "table: $b has a request in this test"; continue ;;
	esac
	# the example's program, where this host has it
	tool=$("$PY" -c 'import json, sys; print(json.loads(sys.argv[1])["commands"][-1]["argv"][0])' "$in")
	if [ "${tool#/}" = "$tool" ] && ! PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    command -v "$tool" >/dev/null 2>&1; then
		skip "table: $b" "$tool is not installed"
		continue
	fi
	accepted "table: the example of $b" "$in"
	as_req "$W" show -j "$GATE" >"$WT_T/show" 2>&1
	check "table: show -j gives $b" "$PY" -c '
import json, sys
g = json.load(open(sys.argv[1]))
b = sys.argv[2]
sys.exit(0 if b in g["risk_badges"] and any(b in c["badges"] for c in g["commands"]) else 1)' "$WT_T/show" "$b"
done

diag "modes, recursion and ownership: the near misses get no badge"
# nobadge_of DESC BADGE JSON-ARGV: accepted, and BADGE on no command
nobadge_of() {
	accepted "$1" "$(req1 "$3")"
	check "$1: no $2" "$PY" -c '
import json, sys
sys.exit(0 if sys.argv[2] not in json.load(open(sys.argv[1]))["risk_badges"] else 1)' "$WT_T/desc" "$2"
}
nobadge_of "chmod 0755" world-writable '["chmod","0755","/etc/motd"]'
nobadge_of "chmod o-w" world-writable '["chmod","o-w","/etc/motd"]'
nobadge_of "chmod 1777: sticky is not setuid" setuid '["chmod","1777","/srv"]'
nobadge_of "chmod -R below a home" recursive-home-or-root '["chmod","-R","0755","/home/alice/proj"]'
nobadge_of "chown in a home" system-chown '["chown","alice","/home/alice/x"]'
nobadge_of "Cyrillic alone" lookalike '["ls","/srv/\u043f\u0440\u0438"]'
nobadge_of "ASCII - / . ~ =" lookalike '["ls","--color=never","/srv/a-b.c~"]'

diag "look-alike words: refused at the start of a ROOT word, escaped when shown"
refused lookalike_word "$C0.argv[1]" "cp (U+2010)n: reads as -n, is a source file" \
    "$(req1 '["cp","\u2010n","/etc/skel/.bashrc","/etc/"]')"
refused lookalike_word "$C0.argv[1]" "dpkg (U+2010)(U+2010)dry-run: would really install" \
    "$(req1 '["dpkg","\u2010\u2010dry-run","-i","/x.deb"]')"
refused lookalike_word "$C0.argv[1]" "(U+FF0F)etc(U+FF0F)shadow: not a path" \
    "$(req1 '["cat","\uff0fetc\uff0fshadow"]')"
refused lookalike_word "$C0.argv[2]" "find / (U+2212)print" "$(req1 '["find","/etc","\u2212print"]')"
refused lookalike_word "$C0.argv[1]" "a soft hyphen first" "$(req1 '["ls","\u00ad-l"]')"
refused lookalike_word "$C0.argv[1]" "with a cwd named too" \
    "$(req1 '["cp","\u2010n","/etc/skel/.bashrc","/etc/"]' '' '"cwd":"/etc"')"
check "the refusal shows the word escaped, as <U+2010>n" grep -qF "'<U+2010>n'" "$WT_T/out"
accepted "a YOU command with (U+2010)n is only badged" \
    "$(requ '["echo","\u2010n","\u05d0\u05d1-/x"]')"
YG=$GATE
as_req "$W" show "$YG" >"$WT_T/show" 2>&1
check "show writes argv[1] as <U+2010>n" grep -q '^    argv\[1\] <U+2010>n$' "$WT_T/show"
check "show puts no raw U+2010 on the terminal" sh -c '! grep -q "$(printf "\342\200\220")" "$1"' sh "$WT_T/show"
check "show escapes the right-to-left letters (an isolate would still reverse the word)" \
    grep -qxF "    argv[2] <U+05D0><U+05D1>-/x" "$WT_T/show"
as_req "$W" show -j "$YG" >"$WT_T/showj" 2>&1
check "show -j keeps the exact bytes, and gives lookalike and rtl-text" "$PY" -c '
import json, sys
g = json.load(open(sys.argv[1]))
c = g["manifest"]["commands"][0]
sys.exit(0 if c["argv"][1:] == ["\u2010n", "\u05d0\u05d1-/x"]
         and {"lookalike", "rtl-text"} <= set(g["commands"][0]["badges"]) else 1)' "$WT_T/showj"

diag "relative paths of ROOT commands: root runs in /"
refused relative_path "$C0.argv[3]" "install -m 0755 nc2hello /usr/local/bin/nc2hello" \
    "$(req1 '["install","-m","0755","nc2hello","/usr/local/bin/nc2hello"]')"
refused relative_path "$C0.argv[3]" "chmod -R 0755 ." "$(req1 '["chmod","-R","0755","."]')"
refused relative_path "$C0.argv[3]" "dpkg --dry-run -i X.deb" "$(req1 '["dpkg","--dry-run","-i","X.deb"]')"
refused relative_path "$C0.argv[1]" "cp --target-directory=build" \
    "$(req1 '["cp","--target-directory=build","/etc/hosts"]')"
refused relative_path "$C0.argv[2]" "dd of=disk.img" "$(req1 '["dd","if=/dev/zero","of=disk.img"]')"
refused relative_path "$C0.argv[2]" "tar -xf site.tar" "$(req1 '["tar","-xf","site.tar","-C","/srv"]')"
refused relative_path "$C0.argv[3]" "behind a wrapper: timeout 5 cp nc2hello /usr/local/bin/" \
    "$(req1 '["timeout","5","cp","nc2hello","/usr/local/bin/nc2hello"]')"
refused relative_path "$C0.argv[6]" "behind a wrapper with options: nice -n 5 install -m 0755 x" \
    "$(req1 '["nice","-n","5","install","-m","0755","x","/usr/local/bin/x"]')"
refused relative_path "$C0.argv[5]" "behind two wrappers: timeout 5 env A=1 cp x /etc/x" \
    "$(req1 '["timeout","5","env","A=1","cp","x","/etc/x.wt"]')"
refused relative_path "$C0.argv[2]" "spelled relative, any program: apt-get install ./x.deb" \
    "$(req1 '["apt-get","install","./x.deb"]')"
refused relative_path "$C0.argv[1]" "spelled relative, any program: find ." \
    "$(req1 '["find",".","-name","x"]')"
refused relative_path "$C0.argv[1]" "spelled relative in an option's value: --config=../c" \
    "$(req1 '["true","--config=../c"]')"
accepted "a wrapper's tool with absolute paths" \
    "$(req1 '["timeout","5","cp","/etc/hosts","/etc/hosts.wt"]')"
accepted "words that only contain dots: versions, patterns" \
    "$(req1 '["true","1.2.3","...","a/../b",".hidden"]')"
accepted "spelled relative, with the request's cwd named" \
    "$(req1 '["find",".","-name","hosts"]' '' '"cwd":"/etc"')"
accepted "a relative symbolic link's target behind a wrapper: from the link's directory" \
    "$(req1 '["timeout","5","ln","-s","../lib/x","/usr/local/bin/x"]')"
accepted "a wrapper's subcommand that is also a tool's name (apt-get install)" \
    "$(req1 '["timeout","60","apt-get","install","-y","bash"]')"
refused relative_path "$C0.argv[3]" "the message names /nc2hello" \
    "$(req1 '["install","-m","0755","nc2hello","/usr/local/bin/nc2hello"]')"
as_req "$W" request <"$WT_T/in" >/dev/null 2>"$WT_T/err"
check "without -j: the sentence names /nc2hello and the hint says how" \
    sh -c 'grep -qF "root would use /nc2hello" "$1" && grep -qF "hint: '"'"'nc2hello'"'"' is relative: name it by its absolute path" "$1"' sh "$WT_T/err"
accepted "the same with the request's cwd named: found from there" \
    "$(req1 '["cat","hostname"]' '' '"cwd":"/etc"')"
accepted "words that are not paths: modes, owners, scripts, values" \
    "$(printf '{"reason":"r","commands":[%s,%s,%s,%s,%s]}' \
    '{"id":"a","why":"w","argv":["chmod","-w","/etc/motd"]}' \
    '{"id":"b","why":"w","argv":["chown","root:root","/etc/motd"]}' \
    '{"id":"c","why":"w","argv":["sed","-n","1p","/etc/motd"]}' \
    '{"id":"d","why":"w","argv":["install","-m0644","-o","root","/etc/motd","/etc/motd.wt"]}' \
    '{"id":"e","why":"w","argv":["ln","-s","../lib/x","/usr/local/bin/x"]}')"
accepted "a tool warrant cannot read: not refused" "$(req1 '["true","no/such/file"]')"
accepted "a YOU command's relative path: its own cwd" "$(requ '["cp","x","y"]')"

diag "the store is intact after all of this"
as_req "$W" log --verify >"$WT_T/out" 2>&1
check "[P4] log --verify exits 0" [ $? -eq 0 ]
done_testing
