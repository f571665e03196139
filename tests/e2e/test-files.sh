#!/bin/sh
# SPDX-License-Identifier: ISC
# Reviewed files end to end (docs/design.md §3 "files"), with the host's
# real sudo and PAM: an inline config and a snapshot binary installed by
# ROOT commands end with exactly the reviewed bytes and modes, root-owned;
# a snapshot changed after the request does not change what is installed;
# the card shows each file; a blob changed in the store before the answer
# is refused before any prompt, and one changed at the prompt is refused
# by the runner with nothing run; the staged copies are root's, in a
# fresh directory that is gone after the batch (attached and detached;
# run_as's own when it is another user);
# YOU commands get their own staged copies; --via sudo cannot stage.
# Install, then use: a program an earlier ROOT command creates is sealed
# at run time, judged then (a renamed shell, one the requester could
# change: refused) and the hash that ran is in the ledger and root log.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-files.sh
#
# Needs root: it creates the reviewer wt-reviewer (group sudo, a canary
# password per run). The reviewer is also the requester (the desktop case).
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the real-sudo tests create users and run as root"

umask 022
SR_DIR=$(mktemp -d /tmp/warrant-files-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
OPT=/opt/wt-files
DEST=$OPT/dest
STAGE=/run/warrant-stage
RL=/var/log/warrant.log
BG=""
SRC=""

cleanup() {
	sr_kill_bg
	rm -rf "$OPT"
	[ -n "$SRC" ] && rm -rf "$SRC"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# mkgate NAME < request.json: create the gate as the reviewer; G, SHA.
mkgate() {
	sr_gate "$1" || { SHA=; return 1; }
	SHA=$(jscan 'j["manifest_sha256"]' "$SR_DIR/$1.json.out")
}
# answer MODE NAME ID ARGS...: warrant answer in a pty as the reviewer.
answer() { sr_answer "$@"; }
wait_for_file() {
	wf_i=0
	while [ ! -e "$1" ]; do
		wf_i=$((wf_i + 1))
		[ "$wf_i" -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}
state_is() { sr_state_is "$@"; }
# settled ID SECONDS: wait until the gate is no longer pending.
settled() {
	st_i=0
	while state_is "$1" pending; do
		st_i=$((st_i + 1))
		[ "$st_i" -le $(($2 * 5)) ] || return 1
		sleep 0.2
	done
}
# stage_count: the batch directories under /run/warrant-stage now.
stage_count() { find "$STAGE" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
# sha TEXT: the SHA-256 of the bytes printf '%b' makes of TEXT.
sha() { printf '%b' "$1" | sha256sum | cut -d' ' -f1; }
# owner_mode PATH: "OWNER MODE"
owner_mode() { stat -c '%U %a' "$1" 2>/dev/null; }
# blob HEX: the path of a blob in the reviewer's store
blob() { echo "$SR_STATE/blobs/sha256/$1"; }
# tamper PATH: change one byte in place (same inode, same size)
tamper() { printf 'X' | dd of="$1" bs=1 count=1 conv=notrunc 2>/dev/null; }

# ============================================================ set-up
section "set-up"
if sr_need && sr_user_setup && sr_install; then ok "infra: reviewer $SR_USER, warrant installed"
else bail "infra: cannot set up the reviewer or install warrant"; fi
rm -rf "$OPT"
install -d -m 0755 -o root -g root "$OPT" "$DEST" "$OPT/bin"
SRC=$SR_HOME/wt-files-src
rm -rf "$SRC"
install -d -m 0755 -o "$SR_USER" -g "$SR_GID" "$SRC" "$SR_DIR/you"
cp /usr/bin/true "$SRC/tool"
chown "$SR_USER:$SR_GID" "$SRC/tool"
chmod 0755 "$SRC/tool"
cp "$SRC/tool" "$SR_DIR/tool.orig"
TOOL_SHA=$(sha256sum <"$SRC/tool" | cut -d' ' -f1)
TOOL_SIZE=$(stat -c %s "$SRC/tool")
STAGE0=$(stage_count)
RL0=$(wc -l <"$RL" 2>/dev/null || echo 0)

# ============================================================ (a) install, attached
section "(a) an inline config and a snapshot binary, installed as root"
CONF='listen 8080\nname wt-files\n'
mkgate a <<EOF
{"reason":"files (a): install a config and a binary",
 "files":{"app.conf":{"content":"listen 8080\\nname wt-files\\n","mode":"0640"},
          "tool":{"snapshot":"$SRC/tool","mode":"0755"},
          "blob":{"content":"AAEC/w==","encoding":"base64","mode":"0600"}},
 "commands":[
  {"id":"conf","argv":["/usr/bin/install","-m","0640",{"file":"app.conf"},"$DEST/app.conf"],"why":"the config"},
  {"id":"tool","argv":["/usr/bin/install","-m","0755",{"file":"tool"},"$DEST/tool"],"why":"the binary"},
  {"id":"blob","argv":["/usr/bin/cp",{"file":"blob"},"$DEST/blob"],"why":"bytes given in base64"},
  {"id":"where","argv":["/usr/bin/stat","--format","%U:%G %a %n",{"file":"app.conf"},{"file":"tool"}],"why":"the staged copies"}]}
EOF
GA=$G
# The agent changes its file after asking: the snapshot was taken already.
printf 'changed after the request' >>"$SRC/tool"
check "[P1] (a) the snapshot's source changed after the request" \
    sh -c '! cmp -s "$1" "$2"' sh "$SRC/tool" "$SR_DIR/tool.orig"

sr_as "$SR_USER" "$SR_WARRANT" show "$GA" >"$SR_DIR/a.show" 2>&1
check "[P1] (a) the card names the config with its size and mode" \
    grep -q "FILE    app.conf  26 bytes  mode 0640" "$SR_DIR/a.show"
check "[P1] (a) ... and its SHA-256" grep -q "sha256 $(sha "$CONF")" "$SR_DIR/a.show"
check "[P1] (a) ... and its text, line by line" \
    sh -c 'grep -q "| listen 8080" "$1" && grep -q "| name wt-files" "$1"' sh "$SR_DIR/a.show"
check "[P1] (a) the card names the binary: size, mode, SHA-256, 'binary'" sh -c '
	grep -q "FILE    tool  $2 bytes  mode 0755" "$1" && grep -q "sha256 $3" "$1" &&
	grep -q "binary, $2 bytes" "$1" && grep -q "snapshot of $4" "$1"' sh \
    "$SR_DIR/a.show" "$TOOL_SIZE" "$TOOL_SHA" "$SRC/tool"
check "[P1] (a) argv shows where a file goes" grep -q "argv\[3\] (file app.conf" "$SR_DIR/a.show"
sr_as "$SR_USER" "$SR_WARRANT" show "$GA" -j >"$SR_DIR/a.showj" 2>&1
jcheck "[P1] (a) the sealed manifest keeps {\"file\": NAME} in argv and seals name, sha256, size, mode" \
    "j['manifest']['commands'][0]['argv'][3] == {'file': 'app.conf'} and j['manifest']['files']['tool'] == {'mode': '0755', 'sha256': '$TOOL_SHA', 'size': $TOOL_SIZE, 'source': '$SRC/tool'}" \
    "$SR_DIR/a.showj"

answer right a "$GA" --run --no-detach -j
is "[P3] (a) answer exits 0" "$ANS_RC" 0
jcheck "[P1] (a) every command ran" \
    "j['status'] == 'approved' and all(e['status'] == 'ran' for e in entries(j))" "$ANS"
check "[P1] (a) the config has exactly the reviewed bytes" \
    sh -c 'printf "%b" "$1" | cmp -s - "$2"' sh "$CONF" "$DEST/app.conf"
is "[P1] (a) ... root-owned, mode 0640" "$(owner_mode "$DEST/app.conf")" "root 640"
check "[P1] (a) the binary is the snapshot taken at request time, not the changed source" \
    cmp -s "$SR_DIR/tool.orig" "$DEST/tool"
is "[P1] (a) ... root-owned, mode 0755" "$(owner_mode "$DEST/tool")" "root 755"
check "[P1] (a) base64 content arrives byte for byte" \
    sh -c 'printf "\000\001\002\377" | cmp -s - "$1"' sh "$DEST/blob"
jscan "entry(j, 'where')['output_tail']" "$ANS" >"$SR_DIR/a.where" 2>/dev/null
check "[P1] (a) the staged copies were root's, with the sealed modes, under $STAGE" sh -c '
	grep -Eq "^root:root 640 $2/batch\.[A-Za-z0-9]{6}/app\.conf$" "$1" &&
	grep -Eq "^root:root 755 $2/batch\.[A-Za-z0-9]{6}/tool$" "$1"' sh "$SR_DIR/a.where" "$STAGE"
SD=$(sed -n 's#^root:root 640 \(.*\)/app\.conf$#\1#p' "$SR_DIR/a.where")
check "[P1] (a) the staging directory is gone after the batch" \
    sh -c '[ -n "$1" ] && [ ! -e "$1" ]' sh "$SD"
is "[P1] (a) nothing is left under $STAGE" "$(stage_count)" "$STAGE0"
check "[P1] (a) $STAGE is root's 0711" [ "$(stat -c '%U %a' "$STAGE")" = "root 711" ]
tail -n +"$((RL0 + 1))" "$RL" | grep "\"request_id\":\"$GA\"" | grep '"id":"conf"' >"$SR_DIR/a.rl"
jcheck "[P4] (a) the root log line names the file by its seal and argv as it ran" \
    "j['files'] == {'app.conf': '$(sha "$CONF")'} and j['argv'][3].endswith('/app.conf') and j['argv'][3].startswith('$STAGE/')" \
    "$SR_DIR/a.rl"

# ============================================================ (b) blob changed before the answer
section "(b) a blob changed in the store before the answer"
mkgate b <<EOF
{"reason":"files (b)","files":{"note":{"content":"note b\\n"}},
 "commands":[{"id":"b","argv":["/usr/bin/install","-m","0644",{"file":"note"},"$DEST/b"],"why":"b"}]}
EOF
GB=$G
check "(b) the blob is in the store, 0600" [ "$(stat -c %a "$(blob "$(sha 'note b\n')")")" = 600 ]
tamper "$(blob "$(sha 'note b\n')")"
answer none b "$GB" --run --no-detach -j
is "[P1] (b) answer refuses: exit 1 (runner_error)" "$ANS_RC" 1
is "[P1] (b) ... before any password prompt" "$(pty_prompts)" 0
jcheck "[P1] (b) ... the gate stays pending, the message says the content changed" \
    "j['status'] == 'pending' and j['outcome'] == 'runner_error' and 'no longer hashes' in j['message']" "$ANS"
check "[P1] (b) nothing ran" [ ! -e "$DEST/b" ]
check "[P1] (b) the gate is still pending" state_is "$GB" pending
sr_as "$SR_USER" "$SR_WARRANT" show "$GB" >"$SR_DIR/b.show" 2>&1
check "[P1] (b) the card says the content changed, not shows it" \
    sh -c 'grep -q "content changed in the store" "$1" && ! grep -q "| Xote b" "$1"' sh "$SR_DIR/b.show"

# ============================================================ (c) blob changed at the prompt
section "(c) a blob changed while sudo prompts: the runner refuses"
mkgate c <<EOF
{"reason":"files (c)","files":{"note":{"content":"note c\\n"}},
 "commands":[
  {"id":"first","argv":["/usr/bin/touch","$DEST/c-first"],"why":"would run first"},
  {"id":"c","argv":["/usr/bin/install","-m","0644",{"file":"note"},"$DEST/c"],"why":"c"}]}
EOF
GC=$G
( pty_rv hold c 120 "$SR_WARRANT" answer "$GC" --run --no-detach -j; echo "$PTY_RC" >"$SR_DIR/c.rc" ) &
BG="$BG $!"
if wait_for_file "$SR_DIR/c.at-prompt" 30; then
	ok "[P1] (c) answer checked the blob and sits at the sudo prompt"
	tamper "$(blob "$(sha 'note c\n')")"
	touch "$SR_DIR/c.go"
else
	not_ok "[P1] (c) answer checked the blob and sits at the sudo prompt"
	touch "$SR_DIR/c.abort"
fi
wait_for_file "$SR_DIR/c.rc" 90
is "[P1] (c) answer exits 1 (the runner refused)" "$(cat "$SR_DIR/c.rc" 2>/dev/null)" 1
check "[P1] (c) the runner said the file does not match its seal" \
    grep -q "file 'note' does not match its seal" "$SR_DIR/c.log"
jcheck "[P1] (c) the gate stays pending (runner_error)" \
    "j['status'] == 'pending' and j['outcome'] == 'runner_error'" "$SR_DIR/c.log"
check "[P1] (c) nothing ran, not even the command before it" \
    sh -c '[ ! -e "$1" ] && [ ! -e "$2" ]' sh "$DEST/c-first" "$DEST/c"
is "[P1] (c) no staging directory is left" "$(stage_count)" "$STAGE0"
check "[P1] (c) the gate is still pending" state_is "$GC" pending

# ============================================================ (d) YOU commands
section "(d) YOU commands get their own staged copy"
mkgate d <<EOF
{"reason":"files (d)","files":{"note":{"content":"you note\\n","mode":"0640"}},
 "commands":[
  {"id":"cp","as":"user","argv":["/usr/bin/cp",{"file":"note"},"$SR_DIR/you/note"],"why":"copy"},
  {"id":"where","as":"user","argv":["/usr/bin/stat","--format","%U %a %n",{"file":"note"}],"why":"where"}]}
EOF
GD=$G
sr_as "$SR_USER" setsid -w "$SR_WARRANT" answer "$GD" --run --no-detach -j \
    </dev/null >"$SR_DIR/d.out" 2>"$SR_DIR/d.err"
is "[P3] (d) a YOU-only request with a file is approved without a terminal" "$?" 0
check "(d) the YOU command got the reviewed bytes" \
    sh -c 'printf "you note\n" | cmp -s - "$1"' sh "$SR_DIR/you/note"
jscan "entry(j, 'where')['output_tail']" "$SR_DIR/d.out" >"$SR_DIR/d.where" 2>/dev/null
check "(d) the staged copy was the reviewer's, 0640, in the run directory" \
    grep -Eq "^$SR_USER 640 $SR_STATE/runs/$GD\.[A-Za-z0-9]{6}/files/note$" "$SR_DIR/d.where"
SD=$(sed -n "s#^$SR_USER 640 \(.*\)/note\$#\1#p" "$SR_DIR/d.where")
check "(d) ... and is gone after the batch" sh -c '[ -n "$1" ] && [ ! -e "$1" ]' sh "$SD"

# ============================================================ (e) ROOT and YOU, detached
section "(e) ROOT and YOU commands name one file, detached"
mkgate e <<EOF
{"reason":"files (e)","files":{"shared":{"content":"shared e\\n"}},
 "commands":[
  {"id":"root","argv":["/usr/bin/install","-m","0644",{"file":"shared"},"$DEST/e"],"why":"as root"},
  {"id":"rwhere","argv":["/usr/bin/stat","--format","%U %a %n",{"file":"shared"}],"why":"root's copy"},
  {"id":"you","as":"user","argv":["/usr/bin/stat","--format","%U %a %n",{"file":"shared"}],"why":"your copy"}]}
EOF
GE=$G
answer right e "$GE" --run -j
is "[P3] (e) answer (detached) exits 0" "$ANS_RC" 0
check "(e) the gate settles" settled "$GE" 60
sr_as "$SR_USER" "$SR_WARRANT" wait "$GE" -t 10 -j >"$SR_DIR/e.wait" 2>&1
jcheck "[P1] (e) every command ran" "all(e['status'] == 'ran' for e in entries(j))" "$SR_DIR/e.wait"
check "[P1] (e) the ROOT command installed the reviewed bytes" \
    sh -c 'printf "shared e\n" | cmp -s - "$1"' sh "$DEST/e"
jcheck "[P1] (e) ROOT read root's copy under $STAGE, YOU the reviewer's in the run directory" \
    "entry(j, 'rwhere')['output_tail'].startswith('root 644 $STAGE/batch.') and entry(j, 'you')['output_tail'].startswith('$SR_USER 644 $SR_STATE/runs/$GE.')" \
    "$SR_DIR/e.wait"
is "[P1] (e) the detached runner removed its staging directory" "$(stage_count)" "$STAGE0"
check "[P1] (e) ... and the YOU copies" \
    sh -c '! ls -d "$1"/runs/"$2".*/files >/dev/null 2>&1' sh "$SR_STATE" "$GE"

# ============================================================ (g) run_as another user
section "(g) run_as another user: the staged copies are that user's"
mkgate g <<EOF
{"reason":"files (g)","run_as":"$SR_USER2","files":{"note":{"content":"note g\\n","mode":"0600"}},
 "commands":[
  {"id":"where","argv":["/usr/bin/stat","--format","%U %a %n",{"file":"note"}],"why":"where"},
  {"id":"read","argv":["/usr/bin/cat",{"file":"note"}],"why":"run_as reads it"}]}
EOF
answer right g "$G" --run --no-detach -j
is "[P3] (g) answer exits 0" "$ANS_RC" 0
jcheck "[P1] (g) the copy is $SR_USER2's, 0600, under $STAGE, and $SR_USER2 reads it" \
    "entry(j, 'where')['output_tail'].startswith('$SR_USER2 600 $STAGE/batch.') and entry(j, 'read')['output_tail'] == 'note g\\n'" "$ANS"
is "[P1] (g) no staging directory is left" "$(stage_count)" "$STAGE0"

# ============================================================ (h) install, then use
section "(h) install, then use: an executable sealed at run time"
TRUE_SHA=$(sha256sum </usr/bin/true | cut -d' ' -f1)
BASH_SHA=$(sha256sum </bin/bash | cut -d' ' -f1)
# A gate made now for a program that appears later (h4).
mkgate h4 <<EOF
{"reason":"files (h4)","commands":[
  {"id":"install","argv":["/usr/bin/install","-m","0755","/usr/bin/true","$OPT/bin/wt-later"],"why":"install"},
  {"id":"you","as":"user","argv":["$OPT/bin/wt-later"],"why":"use it as you"}]}
EOF
GH4=$G
mkgate h1 <<EOF
{"reason":"files (h1): install a tool I built, then run it",
 "files":{"tool":{"snapshot":"$SR_DIR/tool.orig","mode":"0755"}},
 "commands":[
  {"id":"install","argv":["/usr/bin/install","-m","0755",{"file":"tool"},"$OPT/bin/wt-newtool"],"why":"install"},
  {"id":"run","argv":["$OPT/bin/wt-newtool"],"why":"run it as root"},
  {"id":"you","as":"user","argv":["$OPT/bin/wt-newtool"],"why":"run it as you"}]}
EOF
GH1=$G
sr_as "$SR_USER" "$SR_WARRANT" show "$GH1" -j >"$SR_DIR/h1.showj" 2>&1
jcheck "[P1] (h1) the program that does not exist yet is sealed at run time: no hash, the badge" \
    "j['manifest']['commands'][1]['sealed_at_run'] is True and j['manifest']['commands'][1]['executable_sha256'] is None and 'sealed-at-run' in j['commands'][1]['badges'] and 'sealed-at-run' in j['commands'][2]['badges'] and j['manifest']['commands'][0]['sealed_at_run'] is False" \
    "$SR_DIR/h1.showj"
sr_as "$SR_USER" "$SR_WARRANT" show "$GH1" >"$SR_DIR/h1.show" 2>&1
check "[P1] (h1) the card says why" grep -q "sealed at run time: it does not exist yet" "$SR_DIR/h1.show"
answer right h1 "$GH1" --run --no-detach -j
is "[P3] (h1) answer exits 0" "$ANS_RC" 0
jcheck "[P1] (h1) installed, then run as root and as you" \
    "[e['status'] for e in entries(j)] == ['ran', 'ran', 'ran']" "$ANS"
jcheck "[P1] (h1) the ledger carries the path and the hash that ran, for both" \
    "all(entry(j, i)['executable_sha256'] == '$TRUE_SHA' and entry(j, i)['path'] == '$OPT/bin/wt-newtool' for i in ('run', 'you')) and 'executable_sha256' not in entry(j, 'install')" \
    "$ANS"
tail -n +"$((RL0 + 1))" "$RL" | grep "\"request_id\":\"$GH1\"" | grep '"id":"run"' >"$SR_DIR/h1.rl"
jcheck "[P4] (h1) the root log has the hash that ran, sealed at run time" \
    "j['sealed_at_run'] is True and j['executable_sha256'] == '$TRUE_SHA' and j['path'] == '$OPT/bin/wt-newtool'" \
    "$SR_DIR/h1.rl"

section "(h2) a shell under another name, created by the batch: refused when it runs"
D=$(mktemp -d)
cp /bin/bash "$D/wt-sh"
chmod 0755 "$D/wt-sh"
tar -cf "$OPT/shell.tar" -C "$D" wt-sh
rm -rf "$D"
chmod 0644 "$OPT/shell.tar"
mkgate h2 <<EOF
{"reason":"files (h2)","stop_on_failure":false,"commands":[
  {"id":"untar","argv":["/usr/bin/tar","-xf","$OPT/shell.tar","-C","$OPT/bin"],"why":"unpack"},
  {"id":"sh","argv":["$OPT/bin/wt-sh","--version"],"why":"what it is"},
  {"id":"after","argv":["/usr/bin/true"],"why":"still runs"}]}
EOF
answer right h2 "$G" --run --no-detach -j
is "[P3] (h2) answer exits 0 (a command was refused)" "$ANS_RC" 0
jcheck "[P1] (h2) the renamed shell is refused as root, by its hash, and never ran" \
    "entry(j, 'untar')['status'] == 'ran' and entry(j, 'sh')['status'] == 'refused' and 'shell' in entry(j, 'sh')['error'] and entry(j, 'sh')['executable_sha256'] == '$BASH_SHA' and entry(j, 'sh')['output_tail'] == '' and entry(j, 'after')['status'] == 'ran'" \
    "$ANS"
check "[P1] (h2) ... and has no root log line" \
    sh -c '! tail -n +"$(($1 + 1))" "$2" | grep "\"request_id\":\"$3\"" | grep -q "\"id\":\"sh\""' \
    sh "$RL0" "$RL" "$G"

section "(h3) writable by the requester when it runs: refused"
mkgate h3 <<EOF
{"reason":"files (h3)","files":{"tool":{"snapshot":"$SR_DIR/tool.orig","mode":"0755"}},
 "commands":[
  {"id":"install","argv":["/usr/bin/install","-m","0757",{"file":"tool"},"$OPT/bin/wt-open"],"why":"install it world-writable"},
  {"id":"run","argv":["$OPT/bin/wt-open"],"why":"run it"},
  {"id":"next","argv":["/usr/bin/true"],"why":"after a refusal: skipped"}]}
EOF
answer right h3 "$G" --run --no-detach -j
jcheck "[P1] (h3) a world-writable program is refused at run time; the rest skipped" \
    "entry(j, 'install')['status'] == 'ran' and entry(j, 'run')['status'] == 'refused' and 'could change' in entry(j, 'run')['error'] and entry(j, 'run')['executable_sha256'] == '$TRUE_SHA' and entry(j, 'next')['status'] == 'skipped'" \
    "$ANS"

section "(h4) a YOU command run by answer itself, sealed at run time"
install -m 0755 /usr/bin/true "$OPT/bin/wt-later"
sr_as "$SR_USER" setsid -w "$SR_WARRANT" answer "$GH4" --run -c you --no-detach -j \
    </dev/null >"$SR_DIR/h4.out" 2>"$SR_DIR/h4.err"
is "[P3] (h4) the YOU command alone is approved without a terminal" "$?" 0
jcheck "[P1] (h4) it ran, judged and hashed when it ran" \
    "entry(j, 'you')['status'] == 'ran' and entry(j, 'you')['executable_sha256'] == '$TRUE_SHA' and entry(j, 'install')['status'] == 'not_approved'" \
    "$SR_DIR/h4.out"
mkgate h4b <<EOF
{"reason":"files (h4b)","commands":[
  {"id":"install","argv":["/usr/bin/true"],"why":"stands for an install"},
  {"id":"you","as":"user","argv":["$OPT/bin/wt-later2"],"why":"use it as you"}]}
EOF
install -m 0757 /usr/bin/true "$OPT/bin/wt-later2"
sr_as "$SR_USER" setsid -w "$SR_WARRANT" answer "$G" --run -c you --no-detach -j \
    </dev/null >"$SR_DIR/h4b.out" 2>"$SR_DIR/h4b.err"
jcheck "[P1] (h4) ... and refused when the requester could change it" \
    "entry(j, 'you')['status'] == 'refused' and 'could change' in entry(j, 'you')['error']" \
    "$SR_DIR/h4b.out"

section "(h6) install a local .deb as root, then use its program as you"
# The most common batch there is: a package, then its program. The .deb is
# built here (dpkg-deb) and travels as a reviewed file.
DEB=wt-deb-hello
DEBBIN=/usr/bin/wt-deb-hello
TAG=$(sr_random 8)
dpkg --purge "$DEB" >/dev/null 2>&1
rm -rf "$SR_DIR/deb"
install -d "$SR_DIR/deb/DEBIAN" "$SR_DIR/deb/usr/bin"
cp /usr/bin/echo "$SR_DIR/deb$DEBBIN"
printf 'Package: %s\nVersion: 1.0\nArchitecture: all\nMaintainer: warrant tests <t@example.invalid>\nDescription: warrant e2e package\n' \
    "$DEB" >"$SR_DIR/deb/DEBIAN/control"
dpkg-deb --root-owner-group -b "$SR_DIR/deb" "$SRC/hello.deb" >/dev/null 2>&1
chown "$SR_USER:$SR_GID" "$SRC/hello.deb"
check "(h6) the test builds a .deb with dpkg-deb" [ -s "$SRC/hello.deb" ]
at_exit 'dpkg --purge wt-deb-hello >/dev/null 2>&1'
mkgate h6 <<EOF
{"reason":"files (h6): install my package, then use it",
 "files":{"hello.deb":{"snapshot":"$SRC/hello.deb","mode":"0644"}},
 "commands":[
  {"id":"install","argv":["/usr/bin/dpkg","-i",{"file":"hello.deb"}],"why":"install the package"},
  {"id":"hello","as":"user","argv":["$DEBBIN","hello-$TAG"],"why":"use its program"}]}
EOF
GH6=$G
check "[P5] (h6) the request is accepted though $DEBBIN does not exist yet" [ "${GH6#none-}" = "$GH6" ]
answer right h6 "$GH6" --run --no-detach -j
jcheck "[P1] (h6) dpkg installed it as root and the program ran as you" \
    "[e['status'] for e in entries(j)] == ['ran', 'ran'] and 'hello-$TAG' in entry(j, 'hello')['output_tail']" "$ANS"
check "(h6) the package is installed" sh -c "dpkg -s $DEB 2>/dev/null | grep -q 'Status: install ok installed'"
dpkg --purge "$DEB" >/dev/null 2>&1

section "(h5) refused at request time"
req_as_reviewer() {
	printf '%s' "$2" >"$SR_DIR/$1.json"
	sr_as "$SR_USER" "$SR_WARRANT" request -j <"$SR_DIR/$1.json" >"$SR_DIR/$1.out" 2>&1
	REQ_RC=$?
}
req_as_reviewer h5a "{\"reason\":\"r\",\"commands\":[{\"id\":\"a\",\"why\":\"w\",\"argv\":[\"$OPT/bin/wt-none\"]}]}"
jcheck "[P5] (h5) a missing program with no ROOT command before it: bad_executable" \
    "j['error']['code'] == 'bad_executable' and j['error']['path'] == '\$.commands[0].argv[0]'" "$SR_DIR/h5a.out"
req_as_reviewer h5b "{\"reason\":\"r\",\"commands\":[{\"id\":\"i\",\"why\":\"w\",\"argv\":[\"/usr/bin/true\"]},{\"id\":\"a\",\"why\":\"w\",\"argv\":[\"$SRC/wt-none\"]}]}"
jcheck "[P5] (h5) one the requester could create itself: writable_executable" \
    "j['error']['code'] == 'writable_executable' and j['error']['path'] == '\$.commands[1].argv[0]'" "$SR_DIR/h5b.out"
req_as_reviewer h5c "{\"reason\":\"r\",\"commands\":[{\"id\":\"i\",\"why\":\"w\",\"argv\":[\"/usr/bin/true\"]},{\"id\":\"a\",\"why\":\"w\",\"argv\":[\"$OPT/bin/dash\"]}]}"
jcheck "[P5] (h5) one named like a shell: interactive_program" \
    "j['error']['code'] == 'interactive_program'" "$SR_DIR/h5c.out"

# ============================================================ (f) refusals
section "(f) refusals"
req_as_reviewer f1 '{"reason":"r","files":{"x":{"snapshot":"/etc/shadow"}},"commands":[{"id":"a","why":"w","argv":["/usr/bin/true",{"file":"x"}]}]}'
is "[P5] (f) a snapshot the requester cannot read: exit 2" "$REQ_RC" 2
jcheck "[P5] (f) ... invalid_field at \$.files.x.snapshot" \
    "j['error']['code'] == 'invalid_field' and j['error']['path'] == '\$.files.x.snapshot'" "$SR_DIR/f1.out"
ln -sf "$SRC/tool" "$SRC/link"
req_as_reviewer f2 "{\"reason\":\"r\",\"files\":{\"x\":{\"snapshot\":\"$SRC/link\"}},\"commands\":[{\"id\":\"a\",\"why\":\"w\",\"argv\":[\"/usr/bin/true\",{\"file\":\"x\"}]}]}"
jcheck "[P5] (f) a snapshot of a symlink is refused" \
    "j['error']['path'] == '\$.files.x.snapshot' and 'symbolic link' in j['error']['message']" "$SR_DIR/f2.out"
req_as_reviewer f3 '{"reason":"r","files":{"x":{"content":"x"}},"commands":[{"id":"a","why":"w","argv":["/usr/bin/true",{"file":"y"}]}]}'
jcheck "[P5] (f) an unknown file name is refused at its argv entry" \
    "j['error']['path'] == '\$.commands[0].argv[1].file'" "$SR_DIR/f3.out"
mkgate f4 <<EOF
{"reason":"files (f4)","files":{"note":{"content":"f4\\n"}},
 "commands":[{"id":"f4","argv":["/usr/bin/install","-m","0644",{"file":"note"},"$DEST/f4"],"why":"f4"}]}
EOF
answer none f4 "$G" --run --via sudo --no-detach -j
is "(f) --via sudo cannot stage a ROOT command's file: exit 1" "$ANS_RC" 1
jcheck "(f) ... before any prompt, pending, saying why" \
    "j['status'] == 'pending' and '--via sudo cannot stage' in j['message']" "$ANS"
is "(f) ... no prompt" "$(pty_prompts)" 0

done_testing
