#!/bin/sh
# SPDX-License-Identifier: ISC
# The store, from the outside: the state directory's permissions, errors
# that name the file and the cause (corruption, permissions, a full disk)
# without leaving a partial gate, expiry on read, 16 concurrent requesters
# that lose nothing and never see SQLITE_BUSY, and the audit verifier
# catching rows edited, inserted or deleted with the sqlite3 CLI.
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "needs root to create the requester and mount a tmpfs"
requester_fixture
MNT=
unmount() {
	if [ -n "$MNT" ]; then
		mountpoint -q "$MNT" && umount "$MNT"
		rmdir "$MNT"
	fi
}
at_exit unmount
REQ_GID=$(id -g "$REQ")

# A request file the requester can read (its own private directory).
J=$WT_RB/request.json
printf '%s\n' '{"reason":"store test","commands":[{"id":"a","why":"w","argv":["/usr/bin/true"]}]}' >"$J"
chmod 644 "$J"

mode_of() { stat -c '%a %U' "$1"; }
as_req_sh() { as_req sh -c "$1"; }
events() { as_req sqlite3 "$WARRANT_HOME_REQ/warrant.db" "SELECT count(*) FROM events"; }
jsonl_lines() { cat "$WARRANT_HOME_REQ/requests.jsonl" 2>/dev/null | wc -l; }

diag "first use: state directory 0700, files 0600, even under umask 000"
use_state perm
as_req sh -c 'umask 000; exec "$0" request -j' "$W" <"$J" >"$WT_T/out" 2>"$WT_T/err"
check "first request succeeds" [ $? -eq 0 ]
ID=$(jval "$WT_T/out" 'j["request_id"]')
check "state directory created 0700, owned by the requester" [ "$(mode_of "$S")" = "700 $REQ" ]
check "its missing parent created 0700 too" [ "$(mode_of "$WT_RB/perm")" = "700 $REQ" ]
check "warrant.db is 0600, owned by the requester" [ "$(mode_of "$S/warrant.db")" = "600 $REQ" ]
check "requests.jsonl is 0600, owned by the requester" [ "$(mode_of "$S/requests.jsonl")" = "600 $REQ" ]
check "no file in the state directory is open to others" \
    sh -c '[ -d "$1" ] && [ -z "$(find "$1" -type f ! -perm 600)" ]' sh "$S"
check "requests.jsonl holds the request (id, hash, sealed argv)" "$PY" -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
l = lines[-1]
d = json.load(open(sys.argv[2]))
sys.exit(0 if len(lines) == 1 and l["request_id"] == d["request_id"]
         and l["manifest_sha256"] == d["manifest_sha256"]
         and l["manifest"]["commands"][0]["argv"] == ["/usr/bin/true"] else 1)' "$S/requests.jsonl" "$WT_T/out"
wr list -a -j
check "the gate is listed" [ "$(jval "$WT_T/out" '[g["request_id"] for g in j]')" = "[\"$ID\"]" ]
PERM_S=$S

diag "state directory refusals"
use_state open
as_req mkdir -p "$S" && chmod 755 "$S"
wr request -j <"$J"
check "[P5] state dir 0755: request exits 1" [ "$RC" -eq 1 ]
check "[P5] state dir 0755: the message names the path and says it is open to others" \
    sh -c "grep -qF -- '$S' '$WT_T/err' && grep -q 'open to others' '$WT_T/err'"
check "[P5] state dir 0755: nothing created in it" [ -z "$(ls -A "$S")" ]
wr list
check "[P5] state dir 0755: list exits 1 too" [ "$RC" -eq 1 ]
chmod 710 "$S"
wr list
check "[P5] state dir 0710: refused as open to others" sh -c "[ $RC -eq 1 ] && grep -q 'open to others' '$WT_T/err'"

mkdir -p "$WT_RB/rootowned" && chmod 755 "$WT_RB/rootowned"	# root's
WARRANT_HOME_REQ=$WT_RB/rootowned
wr request -j <"$J"
check "[P5] state dir owned by root, asked by the requester: exit 1" [ "$RC" -eq 1 ]
check "[P5]   the message names the path and the owner" sh -c "grep -qF -- '$WT_RB/rootowned' '$WT_T/err' && grep -q 'owned by uid 0' '$WT_T/err'"
check "[P5]   nothing created in it" [ -z "$(ls -A "$WT_RB/rootowned")" ]
WARRANT_HOME=$PERM_S timeout 60 "$W" list >"$WT_T/out" 2>"$WT_T/err"
rc=$?
check "[P5] the requester's state dir used by root: exit 1" [ "$rc" -eq 1 ]
check "[P5]   the message says whose it is" grep -q "owned by uid $REQ_UID" "$WT_T/err"
check "[P5]   root created nothing in it" [ -z "$(find "$PERM_S" -user root)" ]

as_req mkdir -m 700 "$WT_RB/real"
as_req ln -s "$WT_RB/real" "$WT_RB/link"
WARRANT_HOME_REQ=$WT_RB/link
wr request -j <"$J"
check "[P5] state dir that is a symlink: exit 1" [ "$RC" -eq 1 ]
check "[P5]   the message names the path and says symlink" sh -c "grep -qF -- '$WT_RB/link' '$WT_T/err' && grep -q symlink '$WT_T/err'"
check "[P5]   nothing created behind the link" [ -z "$(ls -A "$WT_RB/real")" ]

use_state files
wr request -j <"$J"
check "[P5] a fresh store for the file checks" [ "$RC" -eq 0 ]
chmod 644 "$S/warrant.db"
wr list
check "[P5] warrant.db 0644: exit 1" [ "$RC" -eq 1 ]
check "[P5]   the message names the file and the required mode" sh -c "grep -qF -- '$S/warrant.db' '$WT_T/err' && grep -q 0600 '$WT_T/err'"
chmod 600 "$S/warrant.db"
as_req mv "$S/warrant.db" "$WT_RB/victim.db"
as_req ln -s "$WT_RB/victim.db" "$S/warrant.db"
before=$(sha256sum <"$WT_RB/victim.db")
wr request -j <"$J"
check "[P5] warrant.db that is a symlink: request exits 1" [ "$RC" -eq 1 ]
check "[P5]   the message names the file" err_has "$S/warrant.db"
check "[P5]   the link's target is untouched" [ "$(sha256sum <"$WT_RB/victim.db")" = "$before" ]
as_req rm "$S/warrant.db"
as_req mv "$WT_RB/victim.db" "$S/warrant.db"
as_req sh -c "printf 'do not touch\n' >'$WT_RB/victim.txt'"
as_req mv "$S/requests.jsonl" "$WT_RB/old.jsonl"
as_req ln -s "$WT_RB/victim.txt" "$S/requests.jsonl"
wr request -j <"$J"
check "[P5] requests.jsonl that is a symlink: its target is not written" [ "$(cat "$WT_RB/victim.txt")" = "do not touch" ]
check "[P5]   and the failure is reported, naming the file" err_has "$S/requests.jsonl"

diag "store failures name the file and the cause"
use_state corrupt
wr request -j <"$J"
check "[P4] a fresh store to corrupt" [ "$RC" -eq 0 ]
# garbage over the database file at rest (no -wal or -shm to fall back on)
as_req sh -c "head -c 8192 /dev/urandom | tr '\\000' x >'$S/warrant.db'; rm -f '$S/warrant.db-wal' '$S/warrant.db-shm'"
lines=$(jsonl_lines)
wr list
check "[P4] corrupt warrant.db: list exits 1" [ "$RC" -eq 1 ]
check "[P4]   the message names the file" err_has "$S/warrant.db"
check "[P4]   and says it is not a database" err_has "not a database"
wr request -j <"$J"
check "[P4] corrupt warrant.db: request exits 1 (no crash)" [ "$RC" -eq 1 ]
check "[P4]   the message names the file and the cause" sh -c "grep -qF -- '$S/warrant.db' '$WT_T/err' && grep -q 'not a database' '$WT_T/err'"
check "[P4]   no descriptor printed" [ ! -s "$WT_T/out" ]
check "[P4]   requests.jsonl unchanged" [ "$(jsonl_lines)" = "$lines" ]
wr log --verify
check "[P4] corrupt warrant.db: log --verify exits 1" [ "$RC" -eq 1 ]
wr show abcd
check "[P4] corrupt warrant.db: show exits 1" [ "$RC" -eq 1 ]

use_state unreadable
wr request -j <"$J"
check "[P4] a fresh store to lock away" [ "$RC" -eq 0 ]
chmod 000 "$S/warrant.db"
wr list
check "[P4] warrant.db mode 000: list exits 1" [ "$RC" -eq 1 ]
check "[P4]   the message names the file and the cause" sh -c "grep -qF -- '$S/warrant.db' '$WT_T/err' && grep -q 'Permission denied' '$WT_T/err'"
wr request -j <"$J"
check "[P4] warrant.db mode 000: request exits 1" [ "$RC" -eq 1 ]
chmod 600 "$S/warrant.db"
wr list -a -j
check "[P4] mode restored: the store still holds exactly the first gate" [ "$(jval "$WT_T/out" 'len(j)')" = 1 ]
chmod 000 "$S"
wr list
check "[P4] state directory mode 000: exit 1" [ "$RC" -eq 1 ]
check "[P4]   the message names the directory and the cause" sh -c "grep -qF -- '$S' '$WT_T/err' && grep -q 'Permission denied' '$WT_T/err'"
chmod 700 "$S"

diag "a full disk"
MNT=$(mktemp -d /tmp/wt-e2e-full.XXXXXX)
if mount -t tmpfs -o "size=1m,mode=0700,uid=$REQ_UID,gid=$REQ_GID" tmpfs "$MNT" 2>"$WT_T/err"; then
	WARRANT_HOME_REQ=$MNT/state
	wr request -j <"$J"
	check "[P4] a store on a 1 MiB tmpfs" [ "$RC" -eq 0 ]
	# fill: use up every free block with 4 KiB files, so deleting k of
	# them leaves exactly k blocks free.
	fill() {
		as_req sh -c 'i=0; while head -c 4096 /dev/zero >"$1/fill.$2.$i" 2>/dev/null; do i=$((i + 1)); done; rm -f "$1/fill.$2.$i"' sh "$MNT" "$1"
	}
	fill 0
	k=0 good=0 bad=0 wrong=0 kinds=
	while [ "$k" -le 20 ]; do
		fill "$k.x"
		as_req sh -c 'ls "$1"/fill.* | head -n "$2" | xargs -r rm -f' sh "$MNT" "$k"
		wr request -j <"$J"
		if [ "$RC" -eq 0 ]; then
			good=$((good + 1))
		elif [ "$RC" -eq 1 ] && [ ! -s "$WT_T/out" ] && err_has "$MNT/state/warrant.db" &&
		    grep -Eq 'disk is full|No space left on device' "$WT_T/err"; then
			bad=$((bad + 1))
			kinds="$kinds|$(sed 's/.*warrant.db: //' "$WT_T/err")"
		else
			wrong=$((wrong + 1))
			diag "with $k free blocks: exit $RC: $(cat "$WT_T/err")"
		fi
		k=$((k + 2))
	done
	diag "full disk: $good stored, $bad refused as full: $(echo "$kinds" | tr '|' '\n' | sort -u | tr '\n' ';')"
	check "[P4] a full disk fails the request (exit 1), naming the file and saying the disk is full" \
	    [ "$bad" -ge 1 ]
	check "[P4] every failure on the full disk was of that kind ($wrong others)" [ "$wrong" -eq 0 ]
	as_req sh -c 'rm -f "$1"/fill.*' sh "$MNT"
	want=$((good + 1))
	snap=$(store_snap)
	check "[P4] no partial gate: gates/commands/events/jsonl lines all $want ($snap)" \
	    [ "$snap" = "$want/$want/$want/$want" ]
	wr log --verify
	check "[P4] the audit chain on the once-full store verifies" [ "$RC" -eq 0 ]
	wr request -j <"$J"
	check "[P4] with space again, requests work" [ "$RC" -eq 0 ]
	umount "$MNT"
	check "[P4] tmpfs unmounted" sh -c "! mountpoint -q '$MNT'"
else
	diag "mount: $(cat "$WT_T/err")"
	for t in "a full disk fails naming the file" "only that kind of failure" "no partial gate" \
	    "the once-full store verifies" "requests work again" "tmpfs unmounted"; do
		skip "[P4] $t" "cannot mount a tmpfs here"
	done
fi

diag "expiry on read"
use_state audit
wr request -j <"$J"
check "gate 1" [ "$RC" -eq 0 ]
printf '%s\n' '{"reason":"short","gate_timeout_seconds":1,"commands":[{"id":"a","why":"w","argv":["/usr/bin/true"]}]}' >"$WT_RB/short.json"
wr request -j <"$WT_RB/short.json"
check "a gate with gate_timeout_seconds 1" [ "$RC" -eq 0 ]
EXP=$(jval "$WT_T/out" 'j["request_id"]')
for i in 3 4 5; do
	wr request -j -p "p$i" <"$J"
	check "gate $i" [ "$RC" -eq 0 ]
done
sleep 2
wr list -j
check "after 2 s the short gate is no longer pending" [ "$(jval "$WT_T/out" "'$EXP' in [g['request_id'] for g in j]")" = false ]
wr list -a -j
check "list -a shows it expired, with a settled time" \
    [ "$(jval "$WT_T/out" "[g['state'] + str(g['settled_at'] is not None) for g in j if g['request_id'] == '$EXP']")" = '["expiredTrue"]' ]
check "the other four are still pending" \
    [ "$(jval "$WT_T/out" "sorted(set(g['state'] for g in j if g['request_id'] != '$EXP'))")" = '["pending"]' ]
wr list -a -j
wr log -j
check "log has exactly one expired event for it, after reading twice" \
    [ "$(jval "$WT_T/out" "[e['kind'] for e in j if e.get('gate_id') == '$EXP']")" = '["request","expired"]' ]
wr show "$EXP"
check "show says expired" grep -Eq '^state +expired' "$WT_T/out"
wr log --verify
check "log --verify exits 0 after expiry" [ "$RC" -eq 0 ]
check "  and says the chain is intact with 6 events" grep -q 'intact: 6 events' "$WT_T/out"

diag "the audit verifier catches tampering"
AUD=$S
# tamper NAME REGEX SQL: on a fresh copy of the audit store, run SQL with
# the sqlite3 CLI; log --verify must exit non-zero and print REGEX.
tamper() {
	_dir=$WT_RB/tamper-$(echo "$1" | tr -c 'a-zA-Z0-9\n' '-')
	mkdir -p "$_dir" && chown "$REQ_UID:$REQ_GID" "$_dir" && chmod 700 "$_dir"
	cp -a "$AUD" "$_dir/state"
	WARRANT_HOME_REQ=$_dir/state
	as_req sqlite3 "$_dir/state/warrant.db" "$3" 2>"$WT_T/err"
	_sqlrc=$?
	wr log --verify
	if [ "$_sqlrc" -eq 0 ] && [ "$RC" -ne 0 ] && grep -Eq -- "$2" "$WT_T/out"; then
		ok "[P4] tampering ($1) detected: $(head -c 150 "$WT_T/out")"
	else
		not_ok "[P4] tampering ($1) detected"
		diag "sqlite3 exit $_sqlrc, verify exit $RC: $(cat "$WT_T/out" "$WT_T/err")"
	fi
}
tamper "edit a row's detail" 'event 2: .*edited' \
    "UPDATE events SET detail = '{\"commands\":9}' WHERE seq = 2"
tamper "edit a row's time" 'event 3: .*edited' "UPDATE events SET at = at - 3600 WHERE seq = 3"
tamper "edit a row's kind" 'event 6: .*edited' "UPDATE events SET kind = 'denied' WHERE seq = 6"
tamper "insert a row before the first" 'event 0: .*inserted' \
    "INSERT INTO events SELECT 0, at, gate_id, kind, detail, prev_sha256, sha256 FROM events WHERE seq = 1"
tamper "append a forged row" 'event 7: .*edited' \
    "INSERT INTO events SELECT seq + 1, at, gate_id, 'denied', '{}', sha256, '$(printf 'f%.0s' $(seq 64))' FROM events WHERE seq = 6"
tamper "delete a middle row" 'event 4: expected sequence number 3 .*deleted' "DELETE FROM events WHERE seq = 3"
tamper "delete the first row" 'event 2: expected sequence number 1 .*deleted' "DELETE FROM events WHERE seq = 1"
tamper "delete the last row" "gate $EXP is expired but its last event is request" \
    "DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)"
tamper "delete the last two rows" 'gate w-[a-z2-7]{10} (has no audit events|is expired)' \
    "DELETE FROM events WHERE seq >= 5"
tamper "change gates.manifest_sha256" 'manifest hash differs' \
    "UPDATE gates SET manifest_sha256 = '$(printf '0%.0s' $(seq 64))' WHERE id = '$EXP'"
tamper "edit the sealed manifest bytes" 'stored manifest does not match' \
    "UPDATE gates SET manifest = replace(manifest, '/usr/bin/true', '/usr/bin/id') WHERE id = '$EXP'"
tamper "change a gate's state" 'is approved but its last event is request' \
    "UPDATE gates SET state = 'approved' WHERE state = 'pending' AND project = 'p3'"
WARRANT_HOME_REQ=$AUD
wr log --verify -j
check "[P4] the untouched original still verifies (-j: ok true, 6 events)" \
    [ "$(jval "$WT_T/out" '[j["ok"], j["events"]]')" = '[true,6]' ]
WARRANT_HOME_REQ=$WT_RB/tamper-delete-a-middle-row/state
wr log --verify -j
check "[P4] a broken chain with -j: ok false and the problem named" \
    [ "$(jval "$WT_T/out" '[j["ok"], "deleted" in j["problem"]]')" = '[false,true]' ]

diag "16 processes x 50 requests at once"
use_state conc
OUTD=$WT_RB/conc-out
as_req mkdir -m 700 "$OUTD"
p=1
while [ "$p" -le 16 ]; do
	as_req sh -c '
		while [ ! -e "$3/go" ]; do sleep 0.05; done
		i=0 f=0
		while [ $i -lt 50 ]; do
			i=$((i + 1))
			"$1" request -j <"$2" >>"$3/out.$4" 2>>"$3/err.$4" || f=$((f + 1))
		done
		echo $f >"$3/fails.$4"' sh "$W" "$J" "$OUTD" "$p" &
	p=$((p + 1))
done
sleep 1
as_req touch "$OUTD/go"
start=$(date +%s)
wait
diag "800 requests took $(($(date +%s) - start)) s"
check "[P4] every process finished" [ "$(ls "$OUTD"/fails.* | wc -l)" -eq 16 ]
check "[P4] every request exited 0" [ "$(cat "$OUTD"/fails.* | sort -u)" = 0 ]
check "[P4] no stderr at all from any of the 16 processes" \
    sh -c '[ "$(ls "$1"/err.* | wc -l)" -eq 16 ] && [ -z "$(cat "$1"/err.*)" ]' sh "$OUTD"
cat "$OUTD"/out.* | "$PY" -c '
import json, sys
ids = sorted(json.loads(l)["request_id"] for l in sys.stdin)
open(sys.argv[1], "w").write("".join(i + "\n" for i in ids))
print(len(ids), len(set(ids)))' "$WT_T/printed" >"$WT_T/counts"
check "[P4] 800 descriptors printed, 800 distinct ids" [ "$(cat "$WT_T/counts")" = "800 800" ]
wr list -a -j -l 1000000
check "[P4] list -a -j -l 1000000 holds 800 gates, 800 distinct ids" \
    [ "$(jval "$WT_T/out" '[len(j), len(set(g["request_id"] for g in j))]')" = '[800,800]' ]
check "[P4] the stored ids are exactly the printed ones" sh -c "
    '$PY' -c 'import json; [print(g[\"request_id\"]) for g in json.load(open(\"$WT_T/out\"))]' | sort | cmp -s - '$WT_T/printed'"
check "[P4] events: 800; requests.jsonl: 800 lines" [ "$(events)/$(jsonl_lines)" = 800/800 ]
wr log --verify
check "[P4] the audit chain verifies after the stampede" [ "$RC" -eq 0 ]
check "[P4]   with 800 events" grep -q 'intact: 800 events' "$WT_T/out"

done_testing
