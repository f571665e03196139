#!/bin/sh
# SPDX-License-Identifier: ISC
# The chaos test: CHAOS_N approvals (default 20, the short run of make
# check; `make chaos N=100` is the long one) through the real sudo, each
# with a SIGKILL of `warrant answer` (sometimes at sudo's prompt), of the
# finalizer or of the root runner at a random moment (sometimes of
# nothing, as a control), and
# right after the kill a second `answer --run` of the same gate. Then,
# over the whole campaign:
#
#   gates lost        every gate is pending or approved, none vanished
#   run twice         no command ran twice: the root log has at most one
#                     line per request and command, the stamps the ROOT
#                     and YOU commands append (to a root-only file, and a
#                     file of the reviewer's) at most one per command
#   ledgers           a command the ledger says ran ran once; one it says
#                     was skipped or not approved, and every command of a
#                     gate still pending, never ran
#   second answer     never prompts or runs while the runner lives
#   gates stuck       once every process is gone and a reader recovered,
#                     no attempt is left unsettled
#   sudo tickets      none, in the answers' own sessions, a fresh pty or
#                     no terminal
#   chain, integrity  `warrant log --verify`, PRAGMA integrity_check
#
# The random choices come from a seeded generator (CHAOS_SEED, printed) so
# a failing run's choices can be replayed; the timing of the kills cannot.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. CHAOS_N=20 sh tests/e2e/test-chaos.sh
#
# Needs root: it creates the reviewer wt-reviewer (group sudo, a canary
# password per run).
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the real-sudo tests create users and run as root"

N=${CHAOS_N:-20}
SEED=${CHAOS_SEED:-$(($(date +%s) % 1000000 + $$))}
umask 022
SR_DIR=$(mktemp -d /tmp/warrant-chaos-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
OPT=/opt/wt-chaos
BIN=$OPT/bin
RUNS=$OPT/runs            # one line per ROOT stamp that started (root-only)
URUNS=$SR_DIR/you-runs    # one line per YOU stamp that started (the reviewer's)
GATES=$SR_DIR/gates       # one line per approval: INDEX GATE TARGET DETACH
RL=/var/log/warrant.log

cleanup() {
	for p in $(stamp_pids); do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$OPT"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

# rnd N: a number in [0, N) from the seeded generator (an LCG; the state
# is in RNG).
RNG=$SEED
rnd() {
	RNG=$(((RNG * 1103515245 + 12345) % 2147483648))
	R=$(((RNG / 65536) % $1))
}
# msleep MS
msleep() { sleep "$(($1 / 1000)).$(printf %03d $(($1 % 1000)))"; }
wait_for() {
	wf_i=0
	while ! eval "$1"; do
		wf_i=$((wf_i + 1))
		[ "$wf_i" -le $(($2 * 20)) ] || return 1
		sleep 0.05
	done
}
# The processes of the approval of gate $1 (the runner as root, answer
# and the finalizer as the reviewer).
runner_pids() { pgrep -u root -f "^$SR_RUNNER --manifest $SR_STATE/runs/$1\\." 2>/dev/null; }
answer_pids() { pgrep -u "$SR_USER" -f "^$SR_WARRANT answer $1 " 2>/dev/null; }
finalizer_pids() { pgrep -u "$SR_USER" -f "^warrant finalize " 2>/dev/null; }
# (a script run from its descriptor shows as /dev/fd/N: find it by its label)
stamp_pids() { pgrep -f "chaos-a[0-9]+-[ru][0-9]" 2>/dev/null; }
# quiet ID: nothing of gate ID's approvals runs any more.
quiet() {
	[ -z "$(runner_pids "$1")$(answer_pids "$1")$(finalizer_pids)$(stamp_pids)" ] &&
	    [ -e "$SR_DIR/$1.first.rc" ]
}
# db SQL: a query of the reviewer's store, as the reviewer.
db() { sr_as "$SR_USER" sqlite3 "$SR_STATE/warrant.db" "$1"; }

# ============================================================ set-up
if sr_need && sr_user_setup && sr_install; then ok "infra: reviewer $SR_USER, warrant installed"
else bail "infra: cannot set up the reviewer or install warrant"; fi
diag "seed $SEED, $N approvals (replay the choices: CHAOS_SEED=$SEED CHAOS_N=$N)"
rm -rf "$OPT"
install -d -m 0755 -o root -g root "$OPT" "$BIN"
: >"$RUNS"
chmod 0600 "$RUNS"
install -m 0600 -o "$SR_USER" -g "$SR_GID" /dev/null "$URUNS"
: >"$GATES"
# stamp LABEL [SECONDS]: record that LABEL started (as root in RUNS,
# otherwise in URUNS), then take SECONDS.
cat >"$BIN/stamp" <<EOF
#!/bin/sh
if [ "\$(/usr/bin/id -u)" -eq 0 ]; then echo "\$1" >>$RUNS
else echo "\$1" >>$URUNS; fi
[ -n "\${2:-}" ] && /usr/bin/sleep "\$2"
exit 0
EOF
chown root:root "$BIN/stamp"
chmod 0755 "$BIN/stamp"
chown "$SR_USER" "$SR_DIR"

# ============================================================ the campaign
# Per approval: the gate; what is killed: answer, the runner (all its
# processes), the finalizer, answer at sudo's prompt (the password then
# reaches sudo all the same) or nothing; when (a random delay once the
# target exists); detached or not; all commands or a subset.
second_bad=0 second_live=0 second_ran=0 landed=0 prompts_bad=0 ticket_bad=0 stuck=0
lost_proc=0
i=0
while [ "$i" -lt "$N" ]; do
	i=$((i + 1))
	rnd 4
	s1=$R
	rnd 3
	s2=$R
	cat >"$SR_DIR/a$i.json" <<EOF
{"reason":"chaos approval $i","commands":[
  {"id":"r1","argv":["$BIN/stamp","chaos-a$i-r1","0.$s1"],"why":"root, takes a moment","timeout_seconds":10},
  {"id":"u1","as":"user","argv":["$BIN/stamp","chaos-a$i-u1","0.$s2"],"why":"a YOU command","timeout_seconds":10},
  {"id":"r2","argv":["$BIN/stamp","chaos-a$i-r2","0.3"],"why":"root","timeout_seconds":10},
  {"id":"r3","argv":["$BIN/stamp","chaos-a$i-r3"],"why":"root, quick","timeout_seconds":10}]}
EOF
	G=$(sr_request "$SR_DIR/a$i.json") || G=
	if [ -z "$G" ]; then
		not_ok "(a$i) warrant request accepts the chaos request"
		diag "$(head -c 400 "$SR_DIR/a$i.json.err" 2>/dev/null)"
		continue
	fi
	rnd 12
	case $R in
	0) target=none ;;
	1 | 2 | 3) target=answer ;;
	4 | 5 | 6) target=runner ;;
	7 | 8 | 9) target=finalizer ;;
	*) target=prompt ;;
	esac
	rnd 3
	detach=--detach
	[ "$R" -eq 0 ] && [ "$target" != finalizer ] && detach=--no-detach
	rnd 5
	sel=
	[ "$R" -eq 0 ] && sel="-c r1 -c r3"
	# about the target's lifetime here, so that most kills land
	case $target:$detach in
	answer:--detach) rnd 300 ;;
	answer:*) rnd 1400 ;;
	runner:*) rnd 700 ;;
	*) rnd 800 ;;
	esac
	delay=$R
	echo "$i $G $target $detach" >>"$GATES"

	# the approval, in a pty of its own, in the background
	mode=right
	[ "$target" = prompt ] && mode=hold
	# shellcheck disable=SC2086
	( pty_rv "$mode" "$G.first" 90 "$SR_WARRANT" answer "$G" --run $detach $sel -j
	  echo "$PTY_RC ${PTY_TICKET:-none} $(pty_prompts)" >"$SR_DIR/$G.first.rc" ) &
	first=$!
	# the kill: once the target exists, after the delay
	hit=-
	case $target in
	none) wait_for '[ -n "$(answer_pids "$G")" ] || [ -e "$SR_DIR/$G.first.rc" ]' 30 ;;
	answer) wait_for '[ -n "$(answer_pids "$G")" ] || [ -e "$SR_DIR/$G.first.rc" ]' 30 &&
	    msleep "$delay" && hit=$(answer_pids "$G") ;;
	runner) wait_for '[ -n "$(runner_pids "$G")" ] || [ -e "$SR_DIR/$G.first.rc" ]' 30 &&
	    msleep "$delay" && hit=$(runner_pids "$G") ;;
	prompt)
		# answer dies at sudo's prompt; then (after the delay) the
		# password reaches sudo all the same, which starts the runner
		if wait_for '[ -e "$SR_DIR/$G.first.at-prompt" ]' 30; then
			hit=$(answer_pids "$G")
			# shellcheck disable=SC2086
			[ -n "$hit" ] && kill -KILL $hit 2>/dev/null && landed=$((landed + 1))
			msleep "$delay"
		fi
		touch "$SR_DIR/$G.first.go" ;;
	finalizer) wait_for '[ -n "$(finalizer_pids)" ] || [ -e "$SR_DIR/$G.first.rc" ]' 30 &&
	    msleep "$delay" && hit=$(finalizer_pids) ;;
	esac
	[ -n "$hit" ] || hit=-
	if [ "$hit" != - ] && [ "$target" != prompt ]; then
		# shellcheck disable=SC2086
		kill -KILL $hit 2>/dev/null && landed=$((landed + 1))
	fi
	# the second answer, at once: while the runner lives it must be
	# refused before any prompt
	live_before=$(runner_pids "$G")
	ans_before=$(answer_pids "$G")
	pty_rv right "$G.second" 60 "$SR_WARRANT" answer "$G" --run --no-detach -j
	live_after=$(runner_pids "$G")
	# (a gate settled before it prints its state, without an outcome)
	out2=$(jscan 'j["outcome"] if "outcome" in j else "not_pending" if j.get("status") in ("approved", "denied", "expired") else "none"' "$PTY_LOG" 2>/dev/null)
	p2=$(pty_prompts)
	if [ "${PTY_TICKET:-0}" = 0 ]; then ticket_bad=$((ticket_bad + 1)); diag "(a$i) second answer: ticket '$PTY_TICKET'"; fi
	case $out2 in
	execution_in_progress | not_pending | lock_contention)
		[ "$p2" = 0 ] || { second_bad=$((second_bad + 1)); diag "(a$i) second answer: $out2 after $p2 prompts"; }
		# only a live answer holds the lease
		[ "$out2" != lock_contention ] || [ -n "$ans_before" ] ||
		    { second_bad=$((second_bad + 1)); diag "(a$i) lock_contention with no answer alive"; } ;;
	completed | command_failed | runner_error | started) second_ran=$((second_ran + 1)) ;;
	*) second_bad=$((second_bad + 1)); diag "(a$i) second answer: unexpected outcome '$out2'" ;;
	esac
	if [ -n "$live_before" ] && [ -n "$live_after" ]; then
		second_live=$((second_live + 1))
		case $out2:$p2 in
		execution_in_progress:0 | lock_contention:0) ;;
		*) second_bad=$((second_bad + 1))
		   diag "(a$i) second answer while the runner lived: '$out2', $p2 prompts" ;;
		esac
	fi
	# everything of this approval ends by itself
	if ! wait_for 'quiet "$G"' 60; then
		lost_proc=$((lost_proc + 1))
		diag "(a$i) still running after 60 s: runner '$(runner_pids "$G")' answer '$(answer_pids "$G")' finalizer '$(finalizer_pids)'"
	fi
	wait "$first" 2>/dev/null
	# shellcheck disable=SC2046
	set -- $(cat "$SR_DIR/$G.first.rc" 2>/dev/null) x x x
	[ "$2" = 0 ] && { ticket_bad=$((ticket_bad + 1)); diag "(a$i) first answer: a ticket in its session"; }
	[ "$3" = x ] || [ "$3" -le 1 ] || { prompts_bad=$((prompts_bad + 1)); diag "(a$i) $3 prompts"; }
	# a reader recovers; then no attempt of the gate may stay open
	st=$(sr_state "$G")
	open=$(db "SELECT count(*) FROM attempts WHERE gate_id = '$G' AND state <> 'settled'")
	[ "$open" = 0 ] || { stuck=$((stuck + 1)); diag "(a$i) $open attempts left unsettled"; }
	diag "a$i $G kill=$target${sel:+ (subset)} $detach delay=${delay}ms hit=$(echo "$hit" | paste -sd,) first-exit=$1 second=$out2 runner-live=$([ -n "$live_before" ] && echo y || echo n)$([ -n "$live_after" ] && echo y || echo n) state=$st"
done

# ============================================================ the reckoning
section "after $N approvals"
# every process of the campaign is gone; a reader recovers once more
wait_for '[ -z "$(pgrep -u root -f "^$SR_RUNNER ")$(finalizer_pids)$(stamp_pids)" ]' 60
sr_as "$SR_USER" "$SR_WARRANT" list -a -j >"$SR_DIR/list.json" 2>"$SR_DIR/list.err"
check "a reader of the store works after the campaign" [ -s "$SR_DIR/list.json" ]
is "[P7] processes of an approval all ended by themselves" "$lost_proc" 0
check "the campaign's kills landed on live processes (a control)" [ "$landed" -gt $((N / 4)) ]
diag "kills that landed: $landed of $N; second answers that ran: $second_ran; while the runner lived: $second_live"

db "SELECT id, state FROM gates" >"$SR_DIR/states"
is "[P4] gates lost: every gate of the campaign is pending or approved" "$(
	while read -r _ g _; do
		grep -qE "^$g\\|(pending|approved)\$" "$SR_DIR/states" || echo "$g"
	done <"$GATES" | tr '\n' ' ')" ""
is "[P4] ... and the store holds one gate per approval" \
    "$(grep -c . "$SR_DIR/states")" "$(grep -c . "$GATES")"
is "[P7] gates stuck: no attempt open once its processes were gone (per approval)" "$stuck" 0
is "[P7] ... nor after the campaign" \
    "$(db "SELECT count(*) FROM attempts WHERE state <> 'settled'")" 0

# reckon ROOT-STAMPS: the stamps, root log lines and ledgers of every
# gate, side by side: "twice" lists what ran more than once, "lies" the
# ledger entries they contradict, "tally" the ledgers' statuses.
reckon() {
	"$PY" -c "$RECKON_PY" "$GATES" "$SR_DIR/states" "$SR_DIR/ledgers" "$1" "$URUNS" "$RL"
}
# shellcheck disable=SC2016
RECKON_PY='
import collections, json, sys
gates, states, ledgers, runs, uruns, rootlog = sys.argv[1:7]
idx = {}
for line in open(gates):
    i, g = line.split()[:2]
    idx[g] = i
state = dict(l.rstrip("\n").split("|", 1) for l in open(states) if l.strip())
ledger = {}
for l in open(ledgers):
    g, j = l.rstrip("\n").split("|", 1)
    ledger[g] = json.loads(j)
stamps = collections.Counter(l.strip() for l in open(runs)) + \
    collections.Counter(l.strip() for l in open(uruns))
logged = collections.Counter()
for l in open(rootlog, errors="replace"):
    try:
        e = json.loads(l)
    except ValueError:
        continue
    if e.get("request_id") in idx:
        logged[(e["request_id"], e.get("id"))] += 1
twice = [k for k, v in stamps.items() if v > 1] + \
    ["%s:%s" % k for k, v in logged.items() if v > 1]
print("twice", " ".join(sorted(twice)))
lies = []
tally = collections.Counter()
for g, i in idx.items():
    for c in ("r1", "u1", "r2", "r3"):
        n = stamps["chaos-a%s-%s" % (i, c)]
        if state.get(g) != "approved":
            if n:
                lies.append("%s a%s %s: ran %d times on a %s gate" % (g, i, c, n, state.get(g)))
            continue
        es = [e for e in ledger.get(g, {}).get("entries", []) if e.get("id") == c]
        st = es[0]["status"] if es else "missing"
        tally[st] += 1
        ok = {"ran": n == 1, "failed": n <= 1, "interrupted": n <= 1}.get(st, n == 0)
        if c != "u1" and st in ("ran", "failed") and logged[(g, c)] != 1:
            ok = False
        if not ok:
            lies.append("%s a%s %s: ledger says %s, stamps %d, root log %d" %
                (g, i, c, st, n, logged[(g, c)]))
print("lies", " ; ".join(lies))
print("tally", " ".join("%s=%d" % kv for kv in sorted(tally.items())))
'
db "SELECT gate_id, ledger FROM ledgers" >"$SR_DIR/ledgers"
reckon "$RUNS" >"$SR_DIR/reckon" 2>&1
# positive control: one ROOT stamp that ran, planted a second time
cp "$RUNS" "$SR_DIR/runs-planted"
grep -m1 . "$RUNS" >>"$SR_DIR/runs-planted"
reckon "$SR_DIR/runs-planted" >"$SR_DIR/reckon-planted" 2>&1
twice=$(sed -n 's/^twice //p' "$SR_DIR/reckon")
lies=$(sed -n 's/^lies //p' "$SR_DIR/reckon")
check "the campaign's records could be read" grep -q '^tally' "$SR_DIR/reckon" ||
    diag "$(head -c 600 "$SR_DIR/reckon")"
diag "ledger entries of the approved gates: $(sed -n 's/^tally //p' "$SR_DIR/reckon")"
is "[P7] commands run twice (root log lines, ROOT and YOU stamps)" "$twice" ""
check "[P7] control: a ROOT stamp planted twice is found" \
    grep -q "^twice chaos-a[0-9]*-r" "$SR_DIR/reckon-planted"
is "[P4] every ledger entry agrees with the stamps and the root log; pending gates ran nothing" \
    "$lies" ""
is "[P7] a second answer never prompted or ran while the runner lived" "$second_bad" 0
is "[P7] one sudo prompt at most per approval" "$prompts_bad" 0

is "[P2] no sudo ticket in the sessions of the answers" "$ticket_bad" 0
if reviewer_has_ticket; then
	not_ok "[P2] no sudo ticket for the reviewer (fresh pty, no tty)"
else
	ok "[P2] no sudo ticket for the reviewer (fresh pty, no tty)"
fi

sr_as "$SR_USER" "$SR_WARRANT" log --verify -j >"$SR_DIR/verify" 2>&1
is "[P4] warrant log --verify accepts the chain" "$?" 0
is "[P4] PRAGMA integrity_check" "$(db 'PRAGMA integrity_check')" ok

done_testing
[ "$fails" -eq 0 ]
