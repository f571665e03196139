# SPDX-License-Identifier: ISC
# The helpers of the suites that run ROOT commands the agent asked for
# through the reviewer's daemon, approved with the real sudo, and read
# what the run-time supervisor recorded (test-confine.sh, test-reached.sh):
# requests made of reviewed scripts and plain argv, the agent's request,
# the reviewer's approval in a pty, the ledger and checks on it. Sourced
# after lib.sh and sudo-lib.sh; uses SR_DIR, REV (the reviewer) and the
# requester of lib.sh (as_req).

# jstr TEXT: TEXT as a JSON string.
jstr() { "$PY" -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }
# sfile NAME TEXT: a "files" member: a reviewed script, mode 0755.
sfile() { printf '"%s":{"content":%s,"mode":"0755"}' "$1" "$(jstr "$2")"; }
# cfile NAME TEXT: a "files" member: reviewed content, mode 0644.
cfile() { printf '"%s":{"content":%s,"mode":"0644"}' "$1" "$(jstr "$2")"; }
# snap NAME PATH: a "files" member: a snapshot of the agent's file PATH.
snap() { printf '"%s":{"snapshot":%s,"mode":"0644"}' "$1" "$(jstr "$2")"; }
# scmd ID FILE WHY: a ROOT command that runs the reviewed script FILE.
scmd() {
	printf '{"id":"%s","argv":["/usr/bin/env",{"file":"%s"}],"why":%s}' \
	    "$1" "$2" "$(jstr "${3:-runs the reviewed script $2}")"
}
# cmd ID WHY ARGV...: a ROOT command with a plain argv.
cmd() {
	c_id=$1 c_why=$2
	shift 2
	printf '{"id":"%s","why":%s,"argv":[' "$c_id" "$(jstr "$c_why")"
	c_sep=
	for a in "$@"; do
		case $a in
		'{"file":'*) printf '%s%s' "$c_sep" "$a" ;;
		*) printf '%s%s' "$c_sep" "$(jstr "$a")" ;;
		esac
		c_sep=,
	done
	printf ']}'
}
# as_r CMD...: as the requester (lib.sh's as_req, with its groups).
as_r() { as_req "$@"; }
rev() { sr_as "$REV" "$SR_WARRANT" "$@"; }
# mkgate NAME < request.json: the requester asks through the reviewer's
# daemon; G is the id (none-NAME when refused), REFUSAL "CODE PATH" when
# it was refused at request time.
mkgate() {
	cat >"$SR_DIR/$1.json"
	chmod 644 "$SR_DIR/$1.json"
	as_r "$SR_WARRANT" request -j --to "$REV" <"$SR_DIR/$1.json" \
	    >"$SR_DIR/$1.req" 2>"$SR_DIR/$1.req.err"
	MK_RC=$?
	G=$(jscan 'j["request_id"]' "$SR_DIR/$1.req" 2>/dev/null) || G=
	REFUSAL=
	if [ "$MK_RC" -ne 0 ] || [ -z "$G" ]; then
		REFUSAL=$(jscan 'j["error"]["code"] + " " + j["error"]["path"]' "$SR_DIR/$1.req" 2>/dev/null)
		G=none-$1
		return 1
	fi
}
# gate NAME < request.json: mkgate that must succeed (a check either way).
gate() {
	if mkgate "$1"; then
		ok "($1) the requester's request is accepted ($G)"
		return 0
	fi
	not_ok "($1) the requester's request is accepted"
	diag "exit $MK_RC; refusal '$REFUSAL'"
	diag "$(head -c 800 "$SR_DIR/$1.req" "$SR_DIR/$1.req.err" 2>/dev/null | tr '\n' ' ')"
	return 1
}
# approve NAME ID: the reviewer approves the whole gate in a pty with the
# real sudo (attached: --no-detach); then ledger_of. When answer does not
# end within its limit, the ROOT processes still running 20 s before it
# are shown (which command of the batch hangs).
approve() {
	ap_lim=${ANSWER_LIMIT:-300}
	( sleep $((ap_lim - 20)) && ps -eo pid,ppid,etimes,stat,wchan:24,args --forest >"$SR_DIR/$1.ps" ) &
	ap_ps=$!
	pty_rv right "$1" "$ap_lim" "$SR_WARRANT" answer "$2" --run --no-detach -j
	ANS_RC=$PTY_RC ANS=$PTY_LOG
	pkill -P "$ap_ps" 2>/dev/null
	wait "$ap_ps" 2>/dev/null
	if [ -s "$SR_DIR/$1.ps" ]; then
		diag "($1) answer did not end within $ap_lim s; the runner's processes $((ap_lim - 20)) s in:"
		grep -A25 'warrant-runner' "$SR_DIR/$1.ps" | head -40 | cut -c1-200 | while IFS= read -r l; do diag "  $l"; done
	fi
	ledger_of "$1" "$2"
}
# ledger_of NAME ID: L is a file holding the settled gate's ledger: the
# gate as the reviewer's store shows it (show -j) when it has the ledger,
# else what the agent gets (warrant wait as the requester), else answer's
# own report in the pty transcript.
ledger_of() {
	L=$SR_DIR/$1.ledger LSRC=show
	rev show "$2" -j >"$L" 2>&1
	jscan 'ledger(j)' "$L" >/dev/null 2>&1 && return 0
	as_r "$SR_WARRANT" wait "$2" --to "$REV" -t 10 -j >"$L" 2>&1
	jscan 'ledger(j)' "$L" >/dev/null 2>&1 && { LSRC="wait"; return 0; }
	LSRC=answer
	cp "$ANS" "$L" 2>/dev/null
}
# approved NAME: approve's checks: sudo prompted once and answer exited 0.
approved() {
	is "($1) the reviewer approves with the real sudo: answer exits 0" "$ANS_RC" 0
	if [ "$ANS_RC" -ne 0 ]; then
		diag "$(tr -d '\r' <"$ANS" 2>/dev/null | grep -v '^## ptydrive' | tail -c 800 | tr '\n' ' ')"
	fi
}
# names DESC ID S: the ledger names S for command ID: a refused access
# (confinement.refused) whose path or reason has S, or the command itself
# refused (the runner's re-judgement before it starts) with S in its reason.
names() {
	jcheck "$1" "(lambda e: any(('$3' in str(r.get('path', '')) or '$3' in str(r.get('reason', ''))) for r in (e.get('confinement') or {}).get('refused', [])) or (e.get('status') == 'refused' and '$3' in str(e.get('error', '')) + str(e.get('reason', ''))))(entry(j, '$2'))" "$L"
}
# refused_call ID CALL S: the refused accesses of ID include one of CALL
# (a substring of the call's name: open, exec, symlink, setns, ...) whose
# path or reason has S.
refused_call() {
	jcheck "$1" "any('$3' in str(r.get('call', '')) and ('$4' in str(r.get('path', '')) or '$4' in str(r.get('reason', ''))) for r in (entry(j, '$2').get('confinement') or {}).get('refused', []))" "$L"
}
# ran_ok ID: jcheck that command ID ran and exited 0.
ran_ok() {
	jcheck "$1" "entry(j, '$2')['status'] == 'ran' and entry(j, '$2')['exit_code'] == 0" "$L"
}
# confined ID: the entry has a confinement object and was not unconfined.
confined() {
	jcheck "$1" "isinstance(entry(j, '$2').get('confinement'), dict) and entry(j, '$2')['confinement'].get('unconfined') is False and all(k in entry(j, '$2')['confinement'] for k in ('executed', 'written', 'refused', 'omitted'))" "$L"
}
# tail_lacks ID TEXT: the command's output does not hold TEXT.
tail_lacks() {
	jcheck "$1" "'$3' not in (entry(j, '$2').get('output_tail') or '')" "$L"
}
tail_has() {
	jcheck "$1" "'$3' in (entry(j, '$2').get('output_tail') or '')" "$L"
}
absent() { check "$1" sh -c '[ ! -e "$1" ] && [ ! -L "$1" ]' sh "$2"; }
present() { check "$1" [ -e "$2" ]; }
# no_content FILE TEXT: FILE is absent or does not hold TEXT.
no_content() {
	check "$1" sh -c '[ ! -e "$1" ] || ! grep -qF -- "$2" "$1"' sh "$2" "$3"
}
# hold_start NAME LOCK: the test takes LOCK (a root-owned file, named with
# this run's TAG so that batch_at never sees a process of an earlier,
# killed run) and keeps it until hold_release NAME; the batch's `flock LOCK
# true` waits for it. The holder also lets go when the test's directory
# is gone or after 10 minutes, so a killed run leaves nothing waiting.
hold_start() {
	rm -f "$SR_DIR/$1.held" "$SR_DIR/$1.release"
	flock "$2" sh -c 'touch "$1"; i=0
	    while [ ! -e "$2" ] && [ -d "$3" ] && [ "$i" -lt 6000 ]; do sleep 0.1; i=$((i + 1)); done' sh \
	    "$SR_DIR/$1.held" "$SR_DIR/$1.release" "$SR_DIR" &
	BG="$BG $!"
	wait_for "[ -e '$SR_DIR/$1.held' ]" 60
}
hold_release() { touch "$SR_DIR/$1.release"; }
# approve_bg NAME ID: approve in the background; $SR_DIR/NAME.rc when done.
approve_bg() {
	rm -f "$SR_DIR/$1.rc"
	( pty_rv right "$1" "${ANSWER_LIMIT:-300}" "$SR_WARRANT" answer "$2" --run --no-detach -j
	  echo "$PTY_RC" >"$SR_DIR/$1.rc" ) &
	BG="$BG $!"
}
# approve_bg_done NAME ID: wait for it, then ANS_RC, ANS and L as approve.
approve_bg_done() {
	wait_for "[ -e '$SR_DIR/$1.rc' ]" 400
	ANS_RC=$(cat "$SR_DIR/$1.rc" 2>/dev/null || echo none)
	ANS=$SR_DIR/$1.log
	ledger_of "$1" "$2"
}
# batch_at LOCK: the batch's `flock LOCK /usr/bin/true` runs (a root
# process whose argv has exactly those two words, in that order; not the
# runner's `sudo -l` question of the same words, which comes first).
batch_at() {
	for ba_p in $(running_pids "$1"); do
		[ "$(stat -c %u "/proc/$ba_p" 2>/dev/null)" = 0 ] || continue
		tr '\0' '\n' 2>/dev/null <"/proc/$ba_p/cmdline" | grep -A1 -x -- "$1" |
		    sed -n 2p | grep -qx /usr/bin/true && return 0
	done
	return 1
}
