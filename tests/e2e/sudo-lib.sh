# SPDX-License-Identifier: ISC
# Real-sudo end-to-end helpers (POSIX sh). Source lib.sh first, then this.
# Run as root: creates the reviewer users, finds warrant installed in the
# build's private prefix (sr_install), and drives the real sudo/PAM prompt
# through a pseudo-terminal (tests/e2e/pty-sudo.exp).
#
# The reviewer's password is a canary generated per run. It lives only in
# the shell variable SR_PW (never exported, never in an argument or a file):
# it reaches chpasswd and expect on standard input through the printf
# builtin.

SR_USER=wt-reviewer
SR_USER2=wt-reviewer2
SR_EXP="${WARRANT_TOP:-.}/tests/e2e/pty-sudo.exp"

# sr_need: the programs this library drives.
sr_need() {
	sr_missing=""
	for p in expect setpriv setsid chpasswd useradd usermod sudo pgrep sha256sum \
	    sha512sum md5sum base64 "$PY" meson; do
		command -v "$p" >/dev/null 2>&1 || sr_missing="$sr_missing $p"
	done
	[ -z "$sr_missing" ] && return 0
	diag "missing programs:$sr_missing"
	return 1
}

# sr_random N: N random alphanumeric characters.
sr_random() {
	r=""
	while [ "${#r}" -lt "$1" ]; do
		r="$r$(head -c 256 /dev/urandom | LC_ALL=C tr -dc 'A-Za-z0-9')"
	done
	printf '%s' "$r" | cut -c1-"$1"
}

# sr_user_setup: the reviewer (in group sudo, canary password) and a second
# ordinary user without sudo rights. Sets SR_PW, SR_HOME, SR_STATE,
# SR_HOME2, SR_STATE2, SR_GID, SR_GID2.
sr_user_setup() {
	getent group sudo >/dev/null || groupadd -r sudo || return 1
	for u in "$SR_USER" "$SR_USER2"; do
		id "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u" || return 1
	done
	usermod -aG sudo "$SR_USER" || return 1
	# The second user must not be able to use sudo at all.
	gpasswd -d "$SR_USER2" sudo >/dev/null 2>&1
	SR_PW="Cn-$(sr_random 16)"
	printf '%s:%s\n' "$SR_USER" "$SR_PW" | chpasswd || return 1
	SR_PATS=$(sr_canary_patterns)
	usermod -U "$SR_USER" >/dev/null 2>&1
	chage -E -1 -M 99999 -d "$(date +%Y-%m-%d)" "$SR_USER" || return 1
	usermod -p '!' "$SR_USER2" || return 1
	SR_HOME=$(getent passwd "$SR_USER" | cut -d: -f6)
	SR_HOME2=$(getent passwd "$SR_USER2" | cut -d: -f6)
	SR_GID=$(id -g "$SR_USER")
	SR_GID2=$(id -g "$SR_USER2")
	SR_STATE="$SR_HOME/.wt-state"
	SR_STATE2="$SR_HOME2/.wt-state"
	for d in "$SR_STATE:$SR_USER" "$SR_STATE2:$SR_USER2"; do
		rm -rf "${d%%:*}"
		install -d -m 0700 -o "${d#*:}" -g "${d#*:}" "${d%%:*}" || return 1
	done
	sr_forget_tickets
}

# sr_forget_tickets: drop every sudo time stamp the reviewers may have
# (sudo keeps them by name, sudo-rs by uid).
sr_forget_tickets() {
	for u in "$SR_USER" "$SR_USER2"; do
		rm -f "/run/sudo/ts/$u" "/var/run/sudo/ts/$u" "/var/lib/sudo/ts/$u" 2>/dev/null
		sf_uid=$(id -u "$u" 2>/dev/null) && rm -f "/run/sudo-rs/ts/$sf_uid"
	done
	return 0
}

# sr_is_sudo_rs: /usr/bin/sudo is sudo-rs (Debian 13 may put it there).
sr_is_sudo_rs() { /usr/bin/sudo -V 2>&1 | head -1 | grep -q '^sudo-rs'; }

# sr_no_nopasswd: no sudoers rule lets the reviewer in without a password.
sr_no_nopasswd() {
	sr_l=$(sudo -l -U "$SR_USER" 2>&1) || { diag "sudo -l -U failed: $sr_l"; return 1; }
	echo "$sr_l" | grep -q '(ALL' || { diag "reviewer has no sudo rule: $sr_l"; return 1; }
	if echo "$sr_l" | grep -Eq 'NOPASSWD|!authenticate'; then
		diag "a rule lets $SR_USER skip the password:"
		echo "$sr_l" | sed 's/^/#   /'
		return 1
	fi
	return 0
}

# sr_user_teardown: the canary must not stay a valid password.
sr_user_teardown() {
	usermod -p '!' "$SR_USER" 2>/dev/null
	sr_forget_tickets
	return 0
}
# sr_two_person GROUP: a policy of two ROOT approvals among GROUP's
# members, in the build's own prefix (never the host's /etc/warrant): sets
# POLICY and SPOOL, the review spool 1770 root:GROUP. sr_policy JSON
# rewrites the policy (root's, 0644); sr_two_person_done removes both.
sr_two_person() {
	POLICY=$(build_config WARRANT_POLICY_FILE)
	SPOOL=$(build_config WARRANT_REVIEW_SPOOL)
	case $POLICY:$SPOOL in
	"$SR_PREFIX"/*:"$SR_PREFIX"/*) ;;
	*)
		POLICY= SPOOL=
		bail "the build's policy file and spool are in its prefix (make check: -Dpolicy_file, -Dreview_spool)"
		;;
	esac
	install -d -m 0755 -o root -g root "$(dirname "$POLICY")" "$(dirname "$SPOOL")" &&
	    install -d -m 1770 -o root -g "$1" "$SPOOL" &&
	    sr_policy "{\"root_approvals\": 2, \"reviewers_group\": \"$1\"}" ||
	    bail "the two-person policy and the review spool"
}
sr_policy() { printf '%s\n' "$1" >"$POLICY" && chown root:root "$POLICY" && chmod 0644 "$POLICY"; }
sr_two_person_done() {
	[ -n "${POLICY:-}" ] && rm -f "$POLICY"
	[ -n "${SPOOL:-}" ] && rm -rf "$SPOOL"
	return 0
}
# sr_soft_passkey DIR USER: the tests' software passkey
# (tests/e2e/pk-auth.py) in DIR with a P-256 key of its own, all USER's
# (the passkey keeps its sign count there).
sr_soft_passkey() {
	install -d -m 0755 -o "$2" "$1" &&
	    install -m 0755 -o "$2" "$WARRANT_TOP/tests/e2e/pk-auth.py" "$1/pk-auth.py" &&
	    openssl ecparam -name prime256v1 -genkey -noout -out "$1/key.pem" 2>/dev/null &&
	    chown "$2" "$1/key.pem" ||
	    bail "the software passkey and its P-256 key in $1"
}
# sr_dir_done: the suite's directory SR_DIR goes when every check passed
# and WT_KEEP is not set; otherwise it stays for its transcripts.
sr_dir_done() {
	if [ "$fails" -eq 0 ] && [ -z "${WT_KEEP:-}" ]; then
		rm -rf "$SR_DIR"
	else
		echo "# transcripts kept in $SR_DIR"
	fi
}
# sr_kill_bg: the suite's background runs (the subshells in BG) and what
# each of them started.
sr_kill_bg() {
	for p in $BG; do
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
}

# sr_install: find the CLI and the runner installed from the build into
# its private prefix (tests/run.sh installs them through setup.sh; a suite
# run on its own installs them itself). Refuses a build whose prefix is not
# private (/usr/local): the suites never install there. With WARRANT_PREFIX
# set, the ones a package installed there (sr_installed). Sets SR_PREFIX,
# SR_WARRANT, SR_RUNNER.
sr_install() {
	if installed_mode; then
		sr_installed
		return
	fi
	SR_PREFIX=$(build_prefix "$WARRANT_BUILD")
	if ! private_prefix "$SR_PREFIX"; then
		diag "$WARRANT_BUILD installs into '$SR_PREFIX', not a private test prefix:"
		diag "configure a build with --prefix=/opt/warrant-test (make check does)"
		return 1
	fi
	SR_WARRANT=$(sr_installed_path warrant)
	SR_RUNNER=$(build_config WARRANT_RUNNER_PATH)
	case $SR_WARRANT:$SR_RUNNER in
	"$SR_PREFIX"/*:"$SR_PREFIX"/*) ;;
	*) diag "warrant '$SR_WARRANT' or the runner '$SR_RUNNER' is outside $SR_PREFIX"; return 1 ;;
	esac
	SR_SHIPPER=$(build_config WARRANT_LOGSHIP_PATH)
	if ! cmp -s "$WARRANT_BUILD/warrant" "$SR_WARRANT" ||
	    ! cmp -s "$WARRANT_BUILD/warrant-runner" "$SR_RUNNER" ||
	    ! cmp -s "$WARRANT_BUILD/warrant-logship" "$SR_SHIPPER"; then
		sr_out=$(umask 022 && meson install -C "$WARRANT_BUILD" --no-rebuild 2>&1) || {
			echo "$sr_out" | tail -15 | sed 's/^/# /'
			return 1
		}
	fi
	# The installed files are this build's.
	cmp -s "$WARRANT_BUILD/warrant" "$SR_WARRANT" &&
	    cmp -s "$WARRANT_BUILD/warrant-runner" "$SR_RUNNER" &&
	    cmp -s "$WARRANT_BUILD/warrant-logship" "$SR_SHIPPER"
}

# sr_installed: the CLI and the runner installed under WARRANT_PREFIX (by
# the Debian package): both executable, and the runner's path is the one
# compiled into that warrant.
sr_installed() {
	SR_PREFIX=$WARRANT_PREFIX
	SR_WARRANT=$SR_PREFIX/bin/warrant
	SR_RUNNER=$SR_PREFIX/libexec/warrant/warrant-runner
	[ -x "$SR_WARRANT" ] && [ -x "$SR_RUNNER" ] || {
		diag "no $SR_WARRANT or $SR_RUNNER: is warrant installed under $SR_PREFIX?"
		return 1
	}
	tr '\0' '\n' <"$SR_WARRANT" | grep -qxF "$SR_RUNNER" || {
		diag "$SR_WARRANT does not name the runner $SR_RUNNER"
		return 1
	}
}

# sr_installed_path NAME: where meson installs the build target NAME.
sr_installed_path() {
	meson introspect --installed "$WARRANT_BUILD" 2>/dev/null | "$PY" -c '
import json, os, sys
m = json.load(sys.stdin)
for src, dst in m.items():
    if os.path.basename(src) == sys.argv[1]:
        print(dst)
        break
' "$1"
}

# sr_root_owned_path FILE: FILE is root-owned, not group/other writable, and
# so is every directory above it.
sr_root_owned_path() {
	p=$1
	while :; do
		[ -e "$p" ] || { diag "$p: missing"; return 1; }
		# shellcheck disable=SC2046
		set -- $(stat -L -c '%u %a' "$p")
		if [ "$1" != 0 ]; then diag "$p: owned by uid $1"; return 1; fi
		case $2 in
		*[2367]? | *[2367]) diag "$p: mode $2 is writable by others"; return 1 ;;
		esac
		[ "$p" = / ] && break
		p=$(dirname "$p")
	done
	return 0
}

# sr_as_words USER: the words that start a command as USER with a clean,
# login-like environment and USER's state directory, one per line.
# SR_EXTRA_ENV: newline-separated VAR=VALUE words added to that environment.
# SR_PATH: the PATH given (default /usr/bin:/bin).
sr_as_words() {
	if [ "$1" = "$SR_USER2" ]; then
		sw_h=$SR_HOME2 sw_s=$SR_STATE2 sw_g=$SR_GID2
	else
		sw_h=$SR_HOME sw_s=$SR_STATE sw_g=$SR_GID
	fi
	printf '%s\n' setpriv --reuid="$1" --regid="$sw_g" --init-groups \
	    env -i HOME="$sw_h" USER="$1" LOGNAME="$1" SHELL=/bin/bash \
	    PATH="${SR_PATH:-/usr/bin:/bin}" LANG=C TERM=xterm \
	    WARRANT_HOME="$sw_s"
	if [ -n "${SR_EXTRA_ENV:-}" ]; then printf '%s\n' "$SR_EXTRA_ENV"; fi
}

SR_NL='
'

# sr_serve USER [ARG...]: start `warrant serve [ARG...]` as USER in the
# background, its standard error appended to $SR_DIR/serve.log; DPID is
# the daemon's pid (the subshell execs it).
sr_serve() {
	ss_user=$1
	shift
	(
		set -f
		IFS=$SR_NL
		# shellcheck disable=SC2046
		set -- $(sr_as_words "$ss_user") "$SR_WARRANT" serve "$@"
		unset IFS
		exec "$@"
	) 2>>"$SR_DIR/serve.log" &
	DPID=$!
}

# sr_page PROBE_URL [ARG...]: the reviewer's daemon serving the page
# (`--http ADDR:PORT`, those of PROBE_URL, and ARG...); returns once
# PROBE_URL/app.css answers, 1 when the daemon ended or did not answer
# within 30 s.
sr_page() {
	sp_probe=$1
	shift
	sr_serve "$SR_USER" --http "${sp_probe#*://}" "$@"
	sp_i=0
	until curl -sk -o /dev/null "$sp_probe/app.css"; do
		sp_i=$((sp_i + 1))
		{ [ "$sp_i" -lt 300 ] && kill -0 "$DPID" 2>/dev/null; } || return 1
		sleep 0.1
	done
}

# sr_as USER CMD...: run CMD as USER (see sr_as_words), same terminal.
sr_as() {
	sa_u=$1
	shift
	(
		set -f
		IFS=$SR_NL
		# shellcheck disable=SC2046
		set -- $(sr_as_words "$sa_u") "$@"
		unset IFS
		exec "$@"
	)
}

# The shell the pty runs: it starts the command with job control (so the
# command owns the terminal's foreground, as from an interactive shell),
# reports its status, then asks sudo -n for a ticket from the SAME terminal
# session (Debian's sudo keeps per-tty tickets), and says it is done.
# shellcheck disable=SC2016
SR_WRAP='set -m 2>/dev/null; trap : INT; "$@"; rc=$?
echo "WT-EXIT=$rc"
/usr/bin/sudo -n true </dev/null >/dev/null 2>&1; echo "WT-TICKET=$?"
echo "WT-DONE"; exit $rc'

# pty_run MODE NAME TIMEOUT CMD...: drive CMD (already wrapped to run as
# whoever) through the pty driver. Transcript: $SR_DIR/NAME.log. Sets
# PTY_RC (the command's status), PTY_LOG, PTY_TICKET (WT-TICKET value,
# empty when the wrapper did not get that far). The hold flags are
# $SR_DIR/NAME.at-prompt and $SR_DIR/NAME.go.
pty_run() {
	pr_mode=$1 pr_name=$2 pr_limit=$3
	shift 3
	PTY_LOG="$SR_DIR/$pr_name.log"
	rm -f "$PTY_LOG" "$SR_DIR/$pr_name.at-prompt" "$SR_DIR/$pr_name.go" "$SR_DIR/$pr_name.abort"
	case $pr_mode in
	right | hold)
		printf '%s\n' "$SR_PW" | expect -f "$SR_EXP" "$pr_mode" "$PTY_LOG" \
		    "$pr_limit" "$SR_DIR/$pr_name" "$@" >/dev/null 2>>"$SR_DIR/driver.err"
		;;
	*)
		expect -f "$SR_EXP" "$pr_mode" "$PTY_LOG" "$pr_limit" \
		    "$SR_DIR/$pr_name" "$@" </dev/null >/dev/null 2>>"$SR_DIR/driver.err"
		;;
	esac
	PTY_RC=$?
	PTY_TICKET=$(sed -n 's/.*WT-TICKET=\([0-9]*\).*/\1/p' "$PTY_LOG" 2>/dev/null | tail -1)
	return $PTY_RC
}

# pty_rv MODE NAME TIMEOUT CMD...: CMD as the reviewer in a pty, wrapped so
# the same terminal session is checked for a leftover sudo ticket.
pty_rv() {
	pv_mode=$1 pv_name=$2 pv_limit=$3
	shift 3
	pv_user=${PTY_USER:-$SR_USER}
	set -f
	IFS=$SR_NL
	# shellcheck disable=SC2046
	set -- $(sr_as_words "$pv_user") /bin/sh -c "$SR_WRAP" wt-pty "$@"
	unset IFS
	set +f
	pty_run "$pv_mode" "$pv_name" "$pv_limit" "$@"
}

# pty_summary: the driver's summary line of the last run.
pty_summary() { grep '^## ptydrive:' "$PTY_LOG" | tail -1; }
pty_prompts() { pty_summary | sed -n 's/.* prompts=\([0-9]*\).*/\1/p'; }
pty_note() { pty_summary | sed -n 's/.* note=\([^ ]*\) .*/\1/p'; }

# pty_no_ticket: the session of the last pty run had no sudo ticket left.
pty_no_ticket() {
	[ -n "$PTY_TICKET" ] || { diag "no ticket check in $PTY_LOG"; return 1; }
	[ "$PTY_TICKET" != 0 ] || { diag "sudo -n true succeeded in the same terminal session"; return 1; }
}

# reviewer_has_ticket: true when the reviewer can run sudo without a
# password, asked from a fresh pty session and from no terminal at all.
reviewer_has_ticket() {
	rht_env=${SR_EXTRA_ENV:-}
	SR_EXTRA_ENV=
	set -f
	IFS=$SR_NL
	# shellcheck disable=SC2046
	set -- $(sr_as_words "$SR_USER") /usr/bin/sudo -n true
	unset IFS
	set +f
	SR_EXTRA_ENV=$rht_env
	pty_run none "ticket-probe" 30 "$@"
	rht_tty=$PTY_RC
	sr_as "$SR_USER" setsid -w /usr/bin/sudo -n true </dev/null >/dev/null 2>&1
	rht_notty=$?
	[ "$rht_tty" -eq 0 ] || [ "$rht_notty" -eq 0 ]
}

# no_ticket_anywhere: the pty session just used and fresh sessions all
# have no sudo ticket for the reviewer.
no_ticket_anywhere() {
	nt_t=$PTY_TICKET nt_log=$PTY_LOG
	if reviewer_has_ticket; then
		PTY_TICKET=$nt_t PTY_LOG=$nt_log
		diag "the reviewer can sudo -n without a password"
		return 1
	fi
	PTY_TICKET=$nt_t PTY_LOG=$nt_log
	pty_no_ticket
}

# sr_request FILE: create a gate as the reviewer (the desktop case: agent
# and reviewer are the same uid). Prints the request id; the descriptor
# and errors are left in FILE.out and FILE.err.
sr_request() {
	sr_as "$SR_USER" "$SR_WARRANT" request <"$1" >"$1.out" 2>"$1.err" || return 1
	jscan 'j["request_id"]' "$1.out"
}

# sr_gate NAME < request.json: create the gate as the reviewer from the
# JSON on stdin (kept as $SR_DIR/NAME.json); sets G, or G=none-NAME with
# a failed check when it is refused.
sr_gate() {
	cat >"$SR_DIR/$1.json"
	G=$(sr_request "$SR_DIR/$1.json") || G=
	[ -n "$G" ] || {
		G=none-$1
		not_ok "($1) warrant request accepts the test's request"
		diag "$(head -c 400 "$SR_DIR/$1.json.err" "$SR_DIR/$1.json.out" 2>/dev/null | tr '\n' ' ')"
		return 1
	}
}

# sr_answer MODE NAME ID ARGS...: warrant answer ID ARGS in a pty as the
# reviewer (pty_rv; ANSWER_LIMIT seconds, default 120); sets ANS_RC and
# ANS (the transcript).
sr_answer() {
	sa_mode=$1 sa_name=$2
	shift 2
	pty_rv "$sa_mode" "$sa_name" "${ANSWER_LIMIT:-120}" "$SR_WARRANT" answer "$@"
	ANS_RC=$PTY_RC ANS=$PTY_LOG
}

# sr_state_is ID STATE: the gate is in STATE.
sr_state_is() { [ "$(sr_state "$1")" = "$2" ]; }

# sr_state ID: the gate's state as the reviewer's store reports it.
sr_state() {
	sr_as "$SR_USER" "$SR_WARRANT" show "$1" -j 2>/dev/null | jscan 'j["state"]'
}

# sr_canary_patterns: every form of the canary looked for, one per line,
# on stdout (kept in the unexported SR_PATS). Pipe it into grep -F -f - so
# the value is never an argument.
sr_canary_patterns() {
	printf '%s\n' "$SR_PW"
	printf '%s' "$SR_PW" | sha256sum | cut -d' ' -f1
	printf '%s' "$SR_PW" | sha512sum | cut -d' ' -f1
	printf '%s' "$SR_PW" | md5sum | cut -d' ' -f1
	printf '%s' "$SR_PW" | base64 | tr -d '\n'
	echo
	printf '%s' "$SR_PW" | sha256sum | cut -d' ' -f1 | tr a-f A-F
}

# sr_canary_grep PATH...: print the files under PATH that contain the
# canary in any form. Devices, fifos and sockets are skipped.
sr_canary_grep() {
	printf '%s\n' "$SR_PATS" | grep -rlsF -D skip -a -f - "$@" 2>/dev/null
}

# sr_canary_grep_works: a positive control for sr_canary_grep: it finds
# the SHA-256 form of the canary planted in a private directory, which is
# removed again at once.
sr_canary_grep_works() {
	cw_d=$(mktemp -d /tmp/warrant-canary.XXXXXX) || return 1
	printf 'x %s x\n' "$(printf '%s' "$SR_PW" | sha256sum | cut -d' ' -f1)" >"$cw_d/planted"
	cw_hit=$(sr_canary_grep "$cw_d")
	rm -rf "$cw_d"
	[ "$cw_hit" = "$cw_d/planted" ] && [ "$(printf '%s\n' "$SR_PATS" | grep -c .)" -ge 6 ]
}

# sr_sampler_start: in the background, look at the cmdline and environ of
# every warrant process (CLI, runner, finalizer, and sudo running them)
# every 0.2 s: note any that hold the canary, and the peak resident size of
# warrant-runner. Results in $SR_DIR/sampler.*
sr_sampler_start() {
	: >"$SR_DIR/sampler.leaks"
	echo 0 >"$SR_DIR/sampler.runner-rss"
	echo 0 >"$SR_DIR/sampler.seen"
	(
		seen=0 peak=0
		while [ ! -e "$SR_DIR/sampler.stop" ]; do
			for p in $(pgrep -f 'warrant' 2>/dev/null); do
				[ "$p" = "$$" ] && continue
				comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
				case $comm in
				warrant* | sudo) ;;
				*) continue ;;
				esac
				seen=$((seen + 1))
				if printf '%s\n' "$SR_PATS" | grep -qsF -a -f - \
				    "/proc/$p/cmdline" "/proc/$p/environ"; then
					echo "pid $p ($comm)" >>"$SR_DIR/sampler.leaks"
				fi
				if [ "$comm" = warrant-runner ]; then
					rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' \
					    "/proc/$p/status" 2>/dev/null)
					if [ -n "$rss" ] && [ "$rss" -gt "$peak" ]; then
						peak=$rss
						echo "$peak" >"$SR_DIR/sampler.runner-rss"
					fi
				fi
			done
			echo "$seen" >"$SR_DIR/sampler.seen"
			sleep 0.2
		done
	) &
	SR_SAMPLER=$!
}

sr_sampler_stop() {
	[ -n "${SR_SAMPLER:-}" ] || return 0
	touch "$SR_DIR/sampler.stop"
	wait "$SR_SAMPLER" 2>/dev/null
	SR_SAMPLER=
}

