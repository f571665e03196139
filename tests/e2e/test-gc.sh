#!/bin/sh
# SPDX-License-Identifier: ISC
# The retention policy (warrant gc): run directories of settled gates go
# by age and then by total size, oldest first; a pending gate's, one with
# an unsettled attempt and one whose runner still holds its lock are never
# touched; --dry-run changes nothing; requests.jsonl rotates; --vacuum
# shrinks the database; `warrant answer` prunes by the default policy.
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "needs root to create the requester"
requester_fixture

# A YOU-only request whose one command writes 1 MiB of output.
J=$WT_RB/mib.json
printf '%s\n' '{"reason":"gc test","commands":[{"id":"a","as":"user","why":"w","argv":["/usr/bin/head","--bytes=1048576","/dev/zero"]}]}' >"$J"
chmod 644 "$J"
SLEEPERS=
at_exit 'for p in $SLEEPERS; do kill "$p" 2>/dev/null; done'

# approved: request and approve one gate; its id in ID.
approved() {
	wr request -j <"$J"
	ID=$(jval "$WT_T/out" 'j["request_id"]')
	wr answer "$ID" --run --no-detach -j </dev/null
	[ "$RC" -eq 0 ] || diag "answer $ID: $(cat "$WT_T/out" "$WT_T/err" | head -c 300)"
}
rundir() { echo "$S"/runs/"$1".*; }
ndirs() { find "$S/runs" -mindepth 1 -maxdepth 1 -type d | wc -l; }
du_runs() { du -sk "$S/runs" | cut -f1; }
sql() { as_req sqlite3 "$S/warrant.db" "$1"; }

use_state gc
approved; A1=$ID
approved; A2=$ID
approved; A3=$ID
approved; A4=$ID
check "four approvals, four run directories of ~1 MiB" [ "$(ndirs)" -eq 4 ] && [ "$(du_runs)" -ge 4096 ]

# A pending gate with a run directory (as an abandoned attempt leaves it).
wr request -j <"$J"
P=$(jval "$WT_T/out" 'j["request_id"]')
as_req sh -c "mkdir -m 700 '$S/runs/$P.abcdef' && head -c 1048576 /dev/zero >'$S/runs/$P.abcdef/output-0.log'"
# A1: settled, but an attempt of it is unsettled (its executor, a live
# process of the requester, recorded as recovery checks it).
as_req sleep 300 &
SL=$!
SLEEPERS="$SLEEPERS $SL"
sleep 0.2
SPID=$(pgrep -P "$SL" sleep || echo "$SL")
[ -r "/proc/$SPID/stat" ] || SPID=$SL
START=$(awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$SPID/stat")
sql "INSERT INTO attempts (gate_id, state, pid, pid_start, started_at, updated_at, run_dir)
     VALUES ('$A1', 'running', $SPID, $START, strftime('%s','now'), strftime('%s','now'), '$(rundir "$A1")')"
# A2: settled, but a runner still holds runner.lock in its run directory.
as_req sh -c "touch '$(rundir "$A2")/runner.lock'"
as_req flock "$(rundir "$A2")/runner.lock" sleep 300 &
SLEEPERS="$SLEEPERS $!"
# held: a second lock cannot be had
wait_for '! flock -n "$(rundir "$A2")/runner.lock" true' 30

diag "dry run: says what would go, changes nothing"
before_ls=$(ls -R "$S/runs" | sha256sum)
before_db=$(store_snap)
wr gc -n -j --max-age 0 --max-size 0
check "gc -n exits 0" [ "$RC" -eq 0 ]
jcheck "gc -n names A3 and A4 (settled, no attempt, no runner) and only them" \
    "j['dry_run'] and sorted(n.split('.')[0] for n in j['run_dirs']['pruned_names']) == sorted(['$A3', '$A4'])" "$WT_T/out"
check "gc -n removed nothing" [ "$(ls -R "$S/runs" | sha256sum)" = "$before_ls" ]
check "gc -n left the store as it was" [ "$(store_snap)" = "$before_db" ]

diag "defaults (30 days, 256 MiB): fresh run directories stay"
wr gc -j
jcheck "gc with the defaults prunes nothing here" "j['run_dirs']['pruned'] == 0" "$WT_T/out"
check "  four + one run directories still there" [ "$(ndirs)" -eq 5 ]

diag "max-age 0, max-size 0: every prunable run directory goes, the others stay"
kb=$(du_runs)
wr gc -j --max-age 0 --max-size 0
check "gc exits 0" [ "$RC" -eq 0 ]
jcheck "it reports A3 and A4 pruned" "j['run_dirs']['pruned'] == 2 and not j['dry_run']" "$WT_T/out"
check "  A3's run directory is gone" [ ! -e "$(rundir "$A3")" ]
check "  A4's run directory is gone" [ ! -e "$(rundir "$A4")" ]
check "  the pending gate's run directory stays, output and all" [ -s "$S/runs/$P.abcdef/output-0.log" ]
check "  the run directory of a gate with an unsettled attempt stays" [ -s "$(rundir "$A1")/output-0.log" ]
check "  the run directory whose runner holds its lock stays" [ -s "$(rundir "$A2")/output-0.log" ]
check "  disk use of runs/ shrank by about 2 MiB" [ "$(du_runs)" -le $((kb - 2000)) ]
# settled gates past the age go (their audit events stay), A2's too,
# whose run directory stays while a runner holds it (pruned once it lets
# go); the pending gate and A1, whose attempt is unsettled, stay
is "  A2, A3 and A4, settled, are pruned" \
    "$(sql "SELECT count(*) FROM gates WHERE id IN ('$A2', '$A3', '$A4')")" 0
is "  the pending gate and A1 stay" \
    "$(sql "SELECT count(*) FROM gates WHERE id IN ('$P', '$A1')")" 2
wr log --verify
check "  the audit chain still verifies after the pruning" [ "$RC" -eq 0 ]

diag "once the attempt settles and the runner lets go, they may go too"
for p in $SLEEPERS; do kill "$p" 2>/dev/null; done
pkill -u "$REQ" -x sleep 2>/dev/null
SLEEPERS=
# let go: the lock can be had again
wait_for 'flock -n "$(rundir "$A2")/runner.lock" true' 30
# (the hand-made attempt has no selection for recovery to settle it from)
sql "UPDATE attempts SET state = 'settled', outcome = 'interrupted' WHERE gate_id = '$A1' AND state <> 'settled'"
wr gc -j --max-age 0 --max-size 0
check "  A1's run directory is gone (its attempt settled)" [ ! -e "$(rundir "$A1")" ]
check "  A2's run directory is gone" [ ! -e "$(rundir "$A2")" ]
check "  the pending gate's stays" [ -d "$S/runs/$P.abcdef" ]

diag "by size: the oldest settled go first"
use_state gcsize
approved; B1=$ID
sleep 1.1
approved; B2=$ID
sleep 1.1
approved; B3=$ID
wr gc -j --max-size 2
jcheck "--max-size 2 with three ~1.05 MiB directories prunes two" "j['run_dirs']['pruned'] == 2" "$WT_T/out"
check "  the oldest two are gone" [ ! -e "$(rundir "$B1")" ] && [ ! -e "$(rundir "$B2")" ]
check "  the newest stays" [ -d "$(rundir "$B3")" ]

diag "requests.jsonl rotates past 16 MiB, one old file kept"
as_req sh -c "head -c 17825792 /dev/zero | tr '\\000' x >>'$S/requests.jsonl'"
size=$(stat -c %s "$S/requests.jsonl")
wr gc -n -j
jcheck "gc -n says it would rotate" "j['requests_jsonl']['rotated']" "$WT_T/out"
check "  and does not" [ "$(stat -c %s "$S/requests.jsonl")" -eq "$size" ]
wr gc -j
jcheck "gc rotates it" "j['requests_jsonl']['rotated']" "$WT_T/out"
check "  requests.jsonl.1 is the old file" [ "$(stat -c %s "$S/requests.jsonl.1" 2>/dev/null)" = "$size" ]
wr request -j <"$J"
check "  the next request starts a new requests.jsonl, 0600" \
    [ "$(stat -c '%a %s' "$S/requests.jsonl" | cut -d' ' -f1)" = 600 ] && [ "$(stat -c %s "$S/requests.jsonl")" -lt 1048576 ]

diag "--vacuum compacts the database"
sql "CREATE TABLE junk (b BLOB); INSERT INTO junk SELECT randomblob(4096) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) SELECT n FROM c); DROP TABLE junk; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
wr gc -j --vacuum
check "gc --vacuum exits 0" [ "$RC" -eq 0 ]
jcheck "the database shrank by the freed 4 MB" "j['database']['bytes_before'] - j['database']['bytes_after'] > 3000000" "$WT_T/out"
wr log --verify
check "  the audit chain still verifies" [ "$RC" -eq 0 ]

diag "warrant answer prunes by the default policy after it settles a batch"
use_state gcauto
approved; C1=$ID
approved; C2=$ID
# C1 settled 31 days ago (its row hash no longer verifies; nothing here checks it)
sql "UPDATE gates SET settled_at = settled_at - 31 * 86400 WHERE id = '$C1'"
check "  C1's run directory is there before the next answer" [ -d "$(rundir "$C1")" ]
approved; C3=$ID
check "  after an approval, C1's (settled 31 days ago) is gone" [ ! -e "$(rundir "$C1")" ]
check "  C2's and C3's stay" [ -d "$(rundir "$C2")" ] && [ -d "$(rundir "$C3")" ]

done_testing
