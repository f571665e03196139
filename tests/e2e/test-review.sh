#!/bin/sh
# SPDX-License-Identifier: ISC
# warrant review, the reviewer's console, driven in a private tmux server
# (send-keys, capture-pane): the gate list (live, with the bell), the review
# of a ROOT+YOU request (badges, counts, pill, as/cwd, colours), every key,
# an escape-injection request, reviewed files and a program sealed at run
# time on the card (text on v), 80x24 and resizes, TERM=vt100 and NO_COLOR,
# a YOU-only approval without a prompt, a denial that `warrant wait` then
# reports, and, as root, an approval through the host's real sudo prompt
# with the password typed into the tmux pane.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-review.sh
#
# As root it creates the reviewer wt-tuirev (group sudo, a canary password
# generated per run; the helpers of sudo-lib.sh) and uses the build
# installed in its private prefix (sr_install); otherwise the console runs as the current user and the
# real-sudo tests are skipped. Screens are kept in $TD when anything fails.
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

SR_USER=wt-tuirev
SR_USER2=wt-tuirev2
# tmux is one of the packages scripts/deps.sh installs for make check.
command -v tmux >/dev/null 2>&1 || bail "tmux is installed (scripts/deps.sh)"

umask 022
TAG=$(sr_random 8 | tr 'A-Z' 'a-z')
TD=$(mktemp -d /tmp/warrant-review-e2e.XXXXXX) || exit 1
chmod 755 "$TD"
SR_DIR=$TD
TSOCK="wt-review-$$"
ROOT_MARK="/root/wt-tui-$TAG"
ESC=$(printf '\033')
ROOT_MODE=0
RV_HOME=/nonexistent
[ "$(id -u)" -eq 0 ] && ROOT_MODE=1

tm() { tmux -L "$TSOCK" -f /dev/null "$@"; }

cleanup() {
	tm kill-server >/dev/null 2>&1
	rm -f "$RV_HOME/wt-tui-you-$TAG"
	if [ "$ROOT_MODE" -eq 1 ]; then
		rm -f "$ROOT_MARK"
		sr_user_teardown
		[ -n "${SR_HOME:-}" ] && rm -rf "$SR_STATE" "$SR_HOME"/wt-tui-* 2>/dev/null
	fi
	if [ "$fails" -eq 0 ] && [ -z "${WT_KEEP:-}" ]; then
		rm -rf "$TD"
	else
		echo "# screens kept in $TD"
	fi
}
at_exit cleanup

# ---------------------------------------------------------------- setup
if [ "$ROOT_MODE" -eq 1 ]; then
	sr_need || bail "the programs the real-sudo tests drive are installed"
	sr_user_setup || bail "reviewer user $SR_USER set up"
	sr_install || bail "the build is installed in a private prefix"
	sr_root_owned_path "$SR_RUNNER" || bail "the installed runner is root-owned"
	WBIN=$SR_WARRANT
	RV_USER=$SR_USER RV_HOME=$SR_HOME STATE=$SR_STATE
	# the words that start a program as the reviewer, with a clean environment
	RV="setpriv --reuid=$SR_USER --regid=$SR_GID --init-groups env -i HOME=$SR_HOME"
	RV="$RV USER=$SR_USER LOGNAME=$SR_USER SHELL=/bin/sh PATH=/usr/bin:/bin"
else
	WBIN="$WARRANT_BUILD/warrant"
	RV_USER=$(id -un) RV_HOME=$HOME STATE="$TD/state"
	RV="env"
fi
RV="$RV WARRANT_HOME=$STATE"

# rv CMD...: run CMD as the reviewer (no terminal).
rv() {
	# shellcheck disable=SC2086
	$RV "$@"
}

# mkgate NAME [REQUEST ARGS...] < request.json: create a gate as the
# reviewer (the desktop case); G is its id.
mkgate() {
	mg=$1
	shift
	cat >"$TD/$mg.json"
	rv "$WBIN" request -j "$@" <"$TD/$mg.json" >"$TD/$mg.out" 2>"$TD/$mg.err"
	G=$(jval "$TD/$mg.out" 'j["request_id"]') || G=
	if [ -z "$G" ]; then
		G=none-$mg
		not_ok "($mg) warrant request accepts the test's request"
		diag "$(cat "$TD/$mg.out" "$TD/$mg.err")"
		return 1
	fi
	return 0
}

gate_state() { rv "$WBIN" show "$1" -j 2>/dev/null | jscan 'j["state"]'; }

# console NAME [VAR=VALUE...] [-- REVIEW ARGS...]: start warrant review as
# the reviewer in a new 80x24 tmux session NAME. After the console ends
# the pane prints REVIEW-EXIT=status, then asks sudo -n, from the same
# terminal, for a leftover ticket (TICKET=status).
console() {
	cs=$1
	shift
	cs_env="LANG=C.UTF-8 TERM=tmux-256color"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		cs_env="$cs_env $1"
		shift
	done
	[ "${1:-}" = -- ] && shift
	tm new-session -d -s "$cs" -x 80 -y 24 \
	    "$RV $cs_env /bin/sh -c 'trap : INT; $WBIN review $*; echo REVIEW-EXIT=\$?;
	    /usr/bin/sudo -n true </dev/null >/dev/null 2>&1; echo TICKET=\$?; sleep 600'" ||
	    bail "tmux session $cs started"
	CS=$cs
}

screen() { tm capture-pane -p -t "$CS" 2>/dev/null; }
screen_e() { tm capture-pane -p -e -t "$CS" 2>/dev/null; }
line() { screen | sed -n "$1p"; }
keys() { tm send-keys -t "$CS" "$@"; sleep 0.3; }
title() { tm display -p -t "$CS" '#{pane_title}'; }
bell() { tm display -p -t "$CS" '#{window_bell_flag}'; }

# wait_for TEXT [TENTHS]: the screen shows TEXT (a fixed string) in time.
wait_for() {
	wf=0
	while [ "$wf" -lt "${2:-50}" ]; do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
		wf=$((wf + 1))
	done
	return 1
}

# wait_gone TEXT [TENTHS]
wait_gone() {
	wf=0
	while [ "$wf" -lt "${2:-50}" ]; do
		screen | grep -qF -- "$1" || return 0
		sleep 0.1
		wf=$((wf + 1))
	done
	return 1
}

shot() {
	screen >"$TD/screen-$n.txt"
	diag "screen (kept in $TD/screen-$n.txt):"
	sed 's/^/  |/' "$TD/screen-$n.txt" | while IFS= read -r l; do diag "$l"; done
}

# shows DESC TEXT [TENTHS]: ok when the screen shows TEXT.
shows() {
	if wait_for "$2" "${3:-50}"; then ok "$1"; else not_ok "$1"; diag "want '$2'"; shot; fi
}
# lacks DESC TEXT: ok when the screen (which must show something) lacks
# TEXT, within 5 s (a key's redraw may still be on its way).
lacks() {
	if [ -z "$(screen | tr -d ' \n')" ]; then not_ok "$1"; diag "the screen is empty"
	elif ! wait_gone "$2"; then not_ok "$1"; diag "unwanted '$2'"; shot; else ok "$1"; fi
}
# settle COMMAND...: COMMAND succeeds within 5 s, asked again every 0.1 s
# (the console redraws after a key or a resize in its own time; a
# condition waited for, not a time measured).
settle() {
	st=0
	until "$@"; do
		st=$((st + 1))
		[ "$st" -le 50 ] || return 1
		sleep 0.1
	done
}
# yes DESC COMMAND...: ok when COMMAND succeeds (settle); the screen on failure.
yes_() { d=$1; shift; if settle "$@"; then ok "$d"; else not_ok "$d"; shot; fi; }

# has TEXT: the screen shows TEXT now; line_has N TEXT: line N does.
has() { screen | grep -qF -- "$1"; }
line_has() { line "$1" | grep -qF -- "$2"; }

# select_row ID: move the list's selection down to the gate ID (the list
# is in expiry order, so a gate's row depends on the others' windows).
select_row() {
	sw=0
	while ! screen | grep -qF -- "> $1" && [ "$sw" -lt 20 ]; do
		keys j
		sw=$((sw + 1))
	done
}

# The first number of the scroll position shown at the bottom right
# ("11-31/40" gives 11; 1 when everything fits).
scroll_top() {
	p=$(line 23 | sed -n 's/.* \([0-9][0-9]*\)-[0-9][0-9]*\/[0-9][0-9]* *$/\1/p')
	echo "${p:-1}"
}
# The line number (1-based) of the first line holding TEXT.
line_of() { screen | grep -nF -- "$1" | head -1 | cut -d: -f1; }
# above TEXT1 TEXT2: TEXT1 is on a line above TEXT2's.
above() { [ "$(line_of "$1")" -lt "$(line_of "$2")" ] 2>/dev/null; }
# narrow: nothing is drawn past column 80.
narrow() { [ "$(widest)" -le 80 ]; }
# card_width: the width of the first card's top border.
card_width() { screen | grep '┌' | head -1 | "$PY" -c 'import sys; print(len(sys.stdin.read().rstrip("\n")))'; }
card_width_is() { [ "$(card_width)" = "$1" ]; }
# Widest line of the screen, in characters.
widest() {
	screen | "$PY" -c 'import sys; print(max([len(l.rstrip("\n")) for l in sys.stdin] + [0]))'
}
# A colour SGR anywhere in the screen (default-colour resets 39/49 aside).
has_colour() { screen_e | grep -Eq "$ESC\\[([0-9]*;)*(3[0-7]|4[0-7]|38|48|9[0-7]|10[0-7])(;[0-9]*)*m"; }


# ---------------------------------------------------------------- requests
mkgate mixed -o wt-agent -p wt-proj <<JSON
{"reason": "Install the marker and look around as you.",
 "commands": [
  {"id": "mark", "argv": ["/usr/bin/touch", "$ROOT_MARK"],
   "why": "A root-owned marker file."},
  {"id": "check", "as": "user", "command": "ls / >/dev/null && echo fine",
   "why": "A shell line as you."},
  {"id": "size", "as": "user", "argv": ["/usr/bin/id", "-un"],
   "why": "Who am I, as you."}
 ],
 "env": {"WT_MODE": "demo"}}
JSON
MIXED=$G

# ---------------------------------------------------------------- no terminal
section "without a terminal"
rv "$WBIN" review </dev/null >"$TD/notty.out" 2>&1
rc=$?
if [ "$rc" -eq 2 ] && grep -q "needs a terminal" "$TD/notty.out"; then
	ok "[P3] review without a terminal is refused (exit 2) and says why"
else
	not_ok "[P3] review without a terminal is refused (exit 2) and says why"
	diag "exit $rc: $(cat "$TD/notty.out")"
fi

out=$(sh "$WARRANT_TOP/scripts/demo.sh" "$WARRANT_BUILD" </dev/null 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && echo "$out" | grep -q "ROOT 1  install-jq" &&
    echo "$out" | grep -q "warrant show"; then
	ok "make demo without a terminal prints the gate with warrant show"
else
	not_ok "make demo without a terminal prints the gate with warrant show"
	diag "exit $rc: $(echo "$out" | tail -5)"
fi

# ---------------------------------------------------------------- the list
section "the gate list"
console list
shows "the list shows the pending ROOT+YOU gate" "$MIXED"
gl=$(line_of "$MIXED")
glt=$(screen | sed -n "${gl:-1}p")
glt2=$(screen | sed -n "$(( ${gl:-1} + 1 ))p")
if echo "$glt" | grep -q " ROOT 1 " && echo "$glt" | grep -q " YOU 2 " &&
    echo "$glt" | grep -Eq '[0-9]+s ago' && echo "$glt" | grep -Eq '[0-9]m[0-9]{2}s left' &&
    echo "$glt" | grep -qF "$RV_USER" && echo "$glt" | grep -q "wt-proj"; then
	ok "a list row has ROOT/YOU counts, age, expiry countdown, requester and project"
else
	not_ok "a list row has ROOT/YOU counts, age, expiry countdown, requester and project"
	diag "row: $glt"
fi
if echo "$glt2" | grep -q "\[shell\]" && echo "$glt2" | grep -q "Install the marker"; then
	ok "under it, the risk badges and the reason"
else
	not_ok "under it, the risk badges and the reason"
	diag "row: $glt2"
fi
is "no bell for gates that were pending at start" "$(bell)" 0
mkgate live -p wt-live <<'JSON'
{"reason": "Arrives while the console is open.", "gate_timeout_seconds": 120,
 "commands": [{"id": "y", "as": "user", "argv": ["/usr/bin/true"], "why": "nothing"}]}
JSON
LIVE=$G
shows "a new request appears within a second, without a restart" "$LIVE" 12
is "a new pending gate rings the bell" "$(bell)" 1
yes_ "the gate that expires first is listed first (the new one: a shorter window)" \
    above "$LIVE" "$MIXED"
rv "$WBIN" answer "$LIVE" --deny -f "not this one" >/dev/null 2>&1
wait_gone "$LIVE" 15
lacks "a settled gate leaves the pending list" "$LIVE"
keys a
shows "a shows settled gates too" "$LIVE"
yes_ "settled gates come after the pending ones" above "$MIXED" "$LIVE"
if screen | grep -F "$LIVE" | grep -q denied; then ok "the settled row says denied"; else
	not_ok "the settled row says denied"; shot; fi
keys a
wait_gone "$LIVE" 15
lacks "a again hides them" "$LIVE"
# selection moves with j/k and the arrows
sel() { screen | grep '^>' | head -1 | grep -o 'w-[a-z2-7]*'; }
keys G
sel_has() { sel | grep -qF -- "$1"; }
yes_ "G selects the last gate" sel_has "$MIXED"
mkgate second <<'JSON'
{"reason": "Second gate.", "commands": [{"id": "z", "as": "user", "argv": ["/usr/bin/true"], "why": "n"}]}
JSON
SECOND=$G
wait_for "$SECOND" 15
keys g
s1=$(sel)
keys j
s2=$(sel)
keys k
s3=$(sel)
keys Down
s4=$(sel)
keys Up
if [ "$s1" != "$s2" ] && [ "$s1" = "$s3" ] && [ "$s4" = "$s2" ]; then
	ok "j/k and the arrows move the selection"
else
	not_ok "j/k and the arrows move the selection"
	diag "g: $s1 | j: $s2 | k: $s3 | Down: $s4"
fi
keys q
shows "q quits the console (exit 0)" "REVIEW-EXIT=0" 30
tm kill-session -t "$CS"

# ---------------------------------------------------------------- review
section "reviewing a ROOT+YOU request"
console mixed -- "$MIXED"
shows "review ID opens the gate" "1 command as root and 2 as you"
if line 1 | grep -qF "1 command as root and 2 as you" && line 1 | grep -q "Root access" &&
    line 1 | grep -qF "$MIXED"; then
	ok "the top bar counts 1 command as root and 2 as you, with the Root access pill"
else
	not_ok "the top bar counts 1 command as root and 2 as you, with the Root access pill"
	diag "bar: $(line 1)"
fi
ctx_ok=1
for f in "Reason      Install the marker" "Host        $(hostname)" "Run as      root" \
    "Cwd         /" "Environment clean" "WT_MODE=demo" "Requester   $RV_USER via agent wt-agent" \
    "Project     wt-proj" "Expires     in " "Risk        [shell]"; do
	screen | grep -qF -- "$f" || { ctx_ok=0; diag "context lacks '$f'"; }
done
if [ "$ctx_ok" -eq 1 ]; then ok "the context: reason, host, run as, cwd, environment, requester, project, expiry, risk"; else
	not_ok "the context: reason, host, run as, cwd, environment, requester, project, expiry, risk"; shot; fi
rootl=$(line_of "ROOT 1")
rootline=$(screen | sed -n "${rootl:-1}p")
if echo "$rootline" | grep -qF "[x]  ROOT 1  mark" && echo "$rootline" | grep -q '│ *$' &&
    screen | sed -n "$((rootl - 1))p" | grep -q '┌'; then
	ok "the ROOT command has its own card with a numbered ROOT badge, ticked"
else
	not_ok "the ROOT command has its own card with a numbered ROOT badge, ticked"
	shot
fi
yes_ "the ROOT card says as root, in /" line_has "$((rootl + 1))" "as root, in /"
youl=$(line_of "YOU  check")
if [ -n "$youl" ] && screen | sed -n "${youl}p" | grep -qF "[x]  YOU  check" &&
    screen | sed -n "$((youl + 1))p" | grep -qF "as $RV_USER, in $RV_HOME"; then
	ok "the YOU command has a YOU badge and 'as $RV_USER, in $RV_HOME' under it"
else
	not_ok "the YOU command has a YOU badge and 'as $RV_USER, in $RV_HOME' under it"
	shot
fi
yes_ "argv is shown with the resolved path" has "/usr/bin/touch $ROOT_MARK"
# colours: the ROOT badge on red, the ROOT card's border red, YOU cards not
re=$(screen_e | sed -n "${rootl}p")
ye=$(screen_e | sed -n "${youl:-1}p")
if echo "$re" | grep -Eq "$ESC\\[([0-9]*;)*41m" && echo "$re" | grep -Eq "$ESC\\[([0-9]*;)*31m│" &&
    ! echo "$ye" | grep -Eq "$ESC\\[([0-9]*;)*(31|41)m"; then
	ok "in colour: a red ROOT badge and a red border on the ROOT card only"
else
	not_ok "in colour: a red ROOT badge and a red border on the ROOT card only"
	diag "ROOT line: $(echo "$re" | cat -v)"
	diag "YOU line: $(echo "$ye" | cat -v)"
fi
yes_ "80x24: nothing is drawn past column 80" narrow
# Space unticks the focused (ROOT) card: the counts and the pill follow
keys Space
unticked() {
	line 1 | grep -qF "0 commands as root and 2 as you" && ! line 1 | grep -q "Root access" &&
	    screen | grep -qF "[ ]  ROOT 1  mark"
}
yes_ "Space unticks: 0 commands as root and 2 as you, and no Root access pill" unticked
keys Space
yes_ "Space ticks it again, and the pill is back" line_has 1 "Root access"
# j/k and the arrows move the focus from card to card
focus() { screen | grep '^>' | grep -Eo '(ROOT 1|YOU)  [a-z]+' | head -1; }
focus_is() { [ "$(focus)" = "$1" ]; }
# move KEY WANT: the focus after KEY, once it is WANT (or after 5 s)
move() { keys "$1"; settle focus_is "$2"; focus; }
f0=$(focus)
f1=$(move j "YOU  check")
f2=$(move k "ROOT 1  mark")
f3=$(move Down "YOU  check")
f4=$(move Up "ROOT 1  mark")
if [ "$f0" = "ROOT 1  mark" ] && [ "$f1" = "YOU  check" ] && [ "$f2" = "$f0" ] &&
    [ "$f3" = "$f1" ] && [ "$f4" = "$f0" ]; then
	ok "j/k and the arrows move the focus between cards"
else
	not_ok "j/k and the arrows move the focus between cards"
	diag "focus: '$f0' j '$f1' k '$f2' Down '$f3' Up '$f4'"
fi
# v: details
keys v
exe_sha=$(sha256sum /usr/bin/touch | cut -d' ' -f1)
details_shown() {
	for f in "argv[0]  /usr/bin/touch" "argv[1]  $ROOT_MARK" "path     /usr/bin/touch" \
	    "sha256   $exe_sha" "timeout  300 s" "env      clean"; do
		screen | grep -qF -- "$f" || return 1
	done
}
yes_ "v shows details: argv one per line, path, executable SHA-256, timeout, env" details_shown
# Ctrl+D / Ctrl+U / G / g
scrolled() { [ "$(scroll_top)" -gt 5 ]; }
at_top() { [ "$(scroll_top)" = 1 ]; }
keys g
settle at_top
t0=$(scroll_top)
keys C-d
settle scrolled
t1=$(scroll_top)
keys C-u
settle at_top
t2=$(scroll_top)
if [ "$t0" = 1 ] && [ "$t1" -gt 5 ] && [ "$t2" = 1 ]; then
	ok "Ctrl+D scrolls half a page down, Ctrl+U back up"
else
	not_ok "Ctrl+D scrolls half a page down, Ctrl+U back up"
	diag "top: $t0, after ^D $t1, after ^U $t2"
fi
keys G
msha=$(rv "$WBIN" show "$MIXED" -j | jscan 'j["manifest_sha256"]')
at_bottom() {
	[ -n "$msha" ] && screen | grep -qF "Manifest    $msha" && screen | grep -q "Stop        on the first failure" &&
	    screen | grep -q "Output      tail" && screen | grep -q "WT_MODE=demo"
}
yes_ "G goes to the bottom: the manifest SHA-256, stop and output policies, the environment" at_bottom
yes_ "G focuses the last card" focus_is "YOU  size"
keys g
yes_ "g goes back to the top" has "Reason      Install"
keys v
lacks "v again hides the details" "argv[0]"
# resize: the layout follows the window
tm resize-window -t "$CS" -x 100 -y 30
settle card_width_is 98
is "after a resize to 100x30 the cards span the new width" "$(card_width)" 98
yes_ "and the top bar still counts" line_has 1 "1 command as root and 2 as you"
tm resize-window -t "$CS" -x 30 -y 8
shows "a terminal too small says so" "too small"
tm resize-window -t "$CS" -x 80 -y 24
settle card_width_is 78
is "back at 80x24 the cards fit again" "$(card_width)" 78
yes_ "80x24 after resizes: nothing past column 80" narrow
# q and Esc close without answering
keys q
shows "q closes the review, back to the list" "Enter review"
is "closing did not answer the gate" "$(gate_state "$MIXED")" pending
keys Enter
wait_for "Root access"
keys Escape
sleep 0.3
shows "Esc closes it too" "Enter review"
keys Escape
shows "Esc in the list quits" "REVIEW-EXIT=0" 30
tm kill-session -t "$CS"

# ---------------------------------------------------------------- colour degradation
section "TERM=vt100 and NO_COLOR"
console vt100 TERM=vt100 -- "$MIXED"
shows "the console runs with TERM=vt100" "1 command as root and 2 as you"
if has_colour; then
	not_ok "TERM=vt100: no colour"
	diag "$(screen_e | head -3 | cat -v)"
else
	ok "TERM=vt100: no colour"
fi
rl=$(line_of "ROOT 1")
if screen_e | sed -n "${rl:-1}p" | grep -Eq "$ESC\\[([0-9]*;)*7m($ESC\\[[0-9;]*m)* ROOT 1 " &&
    screen_e | sed -n "1p" | grep -Eq "$ESC\\[([0-9]*;)*7m($ESC\\[[0-9;]*m)* Root access "; then
	ok "TERM=vt100: the ROOT badge and the pill in reverse video"
else
	not_ok "TERM=vt100: the ROOT badge and the pill in reverse video"
	diag "$(screen_e | sed -n "1p;${rl:-1}p" | cat -v)"
fi
tm kill-session -t "$CS"
console nocolor NO_COLOR=1 -- "$MIXED"
shows "the console runs with NO_COLOR=1" "1 command as root and 2 as you"
if has_colour; then not_ok "NO_COLOR: no colour"; diag "$(screen_e | head -3 | cat -v)"; else
	ok "NO_COLOR: no colour"; fi
rl=$(line_of "ROOT 1")
if screen_e | sed -n "${rl:-1}p" | grep -Eq "$ESC\\[([0-9]*;)*7m($ESC\\[[0-9;]*m)* ROOT 1 "; then
	ok "NO_COLOR: the ROOT badge in reverse video"
else
	not_ok "NO_COLOR: the ROOT badge in reverse video"
fi
tm kill-session -t "$CS"

# ---------------------------------------------------------------- wrapping
section "wrapping at 80 columns"
WR_REASON="Enable the development proxy site so that the new frontend is reachable through nginx on this machine while we test it"
WR_WHY="Link the site configuration into sites-enabled so that nginx picks it up on the next reload of its configuration files"
WR_LONG="/srv/$(printf 'd0123456789/%.0s' 1 2 3 4 5 6 7 8 9 10 11 12)end"
mkgate wrap <<JSON
{"reason": "$WR_REASON",
 "commands": [
  {"id": "link", "argv": ["/usr/bin/ln", "-s", "/etc/nginx/sites-available/dev-proxy",
    "/etc/nginx/sites-enabled/dev-proxy"], "why": "$WR_WHY"},
  {"id": "long", "as": "user", "argv": ["/usr/bin/true", "$WR_LONG"], "why": "A long path."}
 ]}
JSON
WRAP=$G
# block FIRST STOP: the screen from the line holding FIRST to the one
# before the next line holding STOP, card borders and the focus mark
# taken off (80 columns), blanks squeezed, one line each.
block() {
	screen | "$PY" -c '
import sys
first, stop = sys.argv[1], sys.argv[2]
out, on = [], False
for l in sys.stdin.read().split("\n"):
    if not on and first in l:
        on = True
    elif on and stop in l:
        break
    if on:
        if len(l) >= 78 and l[1] in "│x" and l[77] in "│x":
            l = l[2:77]    # a card line (x: its border without UTF-8)
        out.append(" ".join(l.split()))
print("\n".join(out))' "$1" "$2"
}
# whole_args WORD...: every line of stdin is a run of whole WORDs.
whole_args() {
	"$PY" -c '
import sys
args = set(sys.argv[1:])
lines = [l for l in sys.stdin.read().split("\n") if l]
sys.exit(0 if len(lines) > 1 and all(set(l.split()) <= args for l in lines) else 1)' "$@"
}
console wrap -- "$WRAP"
wait_for "Root access"
b=$(block "/usr/bin/ln" "why")
if echo "$b" | whole_args /usr/bin/ln -s /etc/nginx/sites-available/dev-proxy \
    /etc/nginx/sites-enabled/dev-proxy; then
	ok "a command line wraps between arguments, never inside one"
else
	not_ok "a command line wraps between arguments, never inside one"
	diag "$b"
	shot
fi
is "the reason wraps at spaces: no word is cut" "$(block "Reason " "Host " | tr '\n' ' ' | sed 's/ *$//')" \
    "Reason $WR_REASON"
is "a why wraps at spaces: no word is cut" "$(block "why " "└" | tr '\n' ' ' | sed 's/ *$//')" \
    "why $WR_WHY"
keys j
b=$(block "/usr/bin/true" "why")
if [ "$(echo "$b" | sed 1d | grep -vc '^↪ ')" = 0 ] && [ "$(echo "$b" | wc -l)" -gt 1 ] &&
    [ "$(echo "$b" | sed 's/^↪ //' | tr -d '\n')" = "/usr/bin/true $WR_LONG" ]; then
	ok "an argument longer than a line is cut, each line that goes on with it marked ↪"
else
	not_ok "an argument longer than a line is cut, each line that goes on with it marked ↪"
	diag "$b"
	shot
fi
yes_ "80x24 with wrapped text: nothing past column 80" narrow
tm kill-session -t "$CS"
console wrapc LANG=C -- "$WRAP"
wait_for "Root access"
keys j
b=$(block "/usr/bin/true" "why")
if [ "$(echo "$b" | sed 1d | grep -vc '^\\ ')" = 0 ] && [ "$(echo "$b" | wc -l)" -gt 1 ] &&
    [ "$(echo "$b" | sed 's/^\\ //' | tr -d '\n')" = "/usr/bin/true $WR_LONG" ]; then
	ok "without UTF-8 (LANG=C) the mark is a plain backslash"
else
	not_ok "without UTF-8 (LANG=C) the mark is a plain backslash"
	diag "$b"
	shot
fi
tm kill-session -t "$CS"
rv "$WBIN" answer "$WRAP" --deny >/dev/null 2>&1

# ---------------------------------------------------------------- injection
section "escape injection"
LONG=""
i=1
while [ "$i" -le 40 ]; do LONG="${LONG}k$(printf '%03d' "$i")-"; i=$((i + 1)); done
mkgate inject <<JSON
{"reason": "pwn \u001b]2;PWNED\u0007 clear\u001b[2J\u001b[H bell\u0007 rtl \u202eevil\u202c end",
 "commands": [{"id": "esc", "argv": ["/usr/bin/printf", "\u001b[2J\u001b[1;1HFAKE", "$LONG", "it's\u3164\u3164x"],
   "why": "why \u001b[31mred\u001b[0m \u001b]0;TITLE2\u001b\\\\ done"}],
 "env": {"WT_X": "\u001b[5mblink"}}
JSON
INJ=$G
console inject
wait_for "$INJ"
select_row "$INJ"
t_before=$(title)
keys Enter
shows "[P6] the injection request opens" "1 command as root and 0 as you"
is "[P6] the pane title is unchanged (no OSC 2 got through)" "$(title)" "$t_before"
is "[P6] no bell rang (no BEL got through)" "$(bell)" 0
inj_ok=1
for f in 'pwn \x1b]2;PWNED\x07 clear\x1b[2J\x1b[H bell\x07' 'rtl <U+202E>evil' \
    'why \x1b[31mred\x1b[0m \x1b]0;TITLE2\x1b\\ done' "'"'\x1b[2J\x1b[1;1HFAKE'"'" 'WT_X=\x1b[5mblink' \
    "'it'\\''s<U+3164><U+3164>x'"; do
	screen | tr -d '\n' | sed 's/ *│ *//g' | tr -s ' ' | grep -qF -- "$f" ||
	    { inj_ok=0; diag "not shown: $f"; }
done
if [ "$inj_ok" -eq 1 ]; then ok "reason, why, argv and env escapes are shown as visible escapes"; else
	not_ok "[P6] reason, why, argv and env escapes are shown as visible escapes"; shot; fi
yes_ "[P6] the screen was not cleared or moved: the top bar is still on line 1" line_has 1 "$INJ"
if screen | tr -d '\n' | sed 's/ *│ *//g' | grep -qF -- "'\\\\''"; then
	not_ok "a quote in an argument is shown as '\\'' with one backslash"; shot
else
	ok "a quote in an argument is shown as '\\'' with one backslash"
fi
# (a cut argument goes on after a ↪ in the gutter)
all=$(screen | sed 's/^.│ *//; s/ *│ *$//; s/^↪//' | tr -d '\n ')
miss=""
i=1
while [ "$i" -le 40 ]; do
	k="k$(printf '%03d' "$i")-"
	echo "$all" | grep -qF -- "$k" || miss="$miss $k"
	i=$((i + 1))
done
if [ -z "$miss" ] && echo "$all" | grep -qF -- "$LONG"; then
	ok "[P6] a long argv element is shown in full, wrapped, never cut"
else
	not_ok "[P6] a long argv element is shown in full, wrapped, never cut"
	diag "missing:$miss"
	shot
fi
keys v
keys G
is "[P6] details and scrolling leave the title alone too" "$(title)" "$t_before"
keys g
keys d
keys -l "no"
keys Enter
wait_for "Feedback    no"
is "[P6] the injection gate is denied" "$(gate_state "$INJ")" denied
keys q
keys q
tm kill-session -t "$CS"

# ---------------------------------------------------------------- look-alikes
section "look-alike punctuation and right-to-left text"
# a directory whose name holds U+2215 DIVISION SLASH reads as another path
LOOKDIR="$TD/x$(printf '\342\210\225')home"
mkdir -p "$LOOKDIR"
chmod 755 "$TD" "$LOOKDIR"
mkgate lookalike <<JSON
{"reason": "look-alikes: see /tmp\u2215x \u2014 or not",
 "commands": [{"id": "lk", "as": "user", "argv": ["/usr/bin/cp", "\u2010n", "/etc/skel/.bashrc", "\u05d0\u05d1-/x"],
   "why": "-n: never overwrites", "cwd": "$LOOKDIR"}]}
JSON
LK=$G
console lookalike -- "$LK"
shows "the directory's look-alike is escaped on the card" "x<U+2215>home"
shows "so is the reason's, which keeps its em dash" "see /tmp<U+2215>x $(printf '\342\200\224') or not"
shows "the look-alike gate opens" "0 commands as root and 1 as you"
shows "the card has the lookalike badge" "[lookalike]"
shows "the card has the rtl-text badge" "[rtl-text]"
shows "the console shows cp (U+2010)n as <U+2010>n, never as -n" "'<U+2010>n'"
lacks "no raw U+2010 on the screen" "$(printf '\342\200\220')"
shows "right-to-left letters are escaped on the console" "'<U+05D0><U+05D1>-/x'"
lacks "no raw right-to-left letter on the screen" "$(printf '\327\220')"
keys v
shows "details show argv[1] as <U+2010>n" "argv[1]  <U+2010>n"
keys q
keys q
tm kill-session -t "$CS"
rv "$WBIN" answer "$LK" --deny >/dev/null 2>&1

# ---------------------------------------------------------------- YOU only
section "a YOU-only request"
YOU_MARK="$RV_HOME/wt-tui-you-$TAG"
mkgate you <<JSON
{"reason": "Only as you.",
 "commands": [
  {"id": "touch-it", "as": "user", "argv": ["/usr/bin/touch", "$YOU_MARK"], "why": "A marker as you."},
  {"id": "say", "as": "user", "argv": ["/usr/bin/printf", "\u001b]2;OUTPWN\u0007 said\\\\n"], "why": "Output with an escape."}
 ]}
JSON
YOU=$G
console you -- "$YOU"
shows "[P3] the YOU-only request opens" "0 commands as root and 2 as you"
lacks "[P3] no Root access pill for a YOU-only request" "Root access"
shows "a YOU-only request says it has no root part" "none: every command runs as you"
lacks "... and shows no root run-as" "Run as"
t_before=$(title)
keys Enter
shows "[P3] Enter approves it without leaving the console: completed" "completed: every ticked command ran" 100
lacks "[P3] no password prompt" "password"
yes_ "[P3] the YOU command ran as the reviewer" [ "$(stat -c %U "$YOU_MARK" 2>/dev/null)" = "$RV_USER" ]
shows "[P3] the gate is settled as approved" "approved" 30
is "[P3] warrant wait reports success (exit 0)" "$(rv "$WBIN" wait "$YOU" -t 10 >/dev/null 2>&1; echo $?)" 0
keys v
keys G
shows "[P3] the ledger's output is shown with the escape visible" '\x1b]2;OUTPWN\x07 said'
is "[P3] and the pane title is unchanged by the output" "$(title)" "$t_before"
keys q
keys q
tm kill-session -t "$CS"

# ---------------------------------------------------------------- files
section "reviewed files and a program sealed at run time"
LATER="/usr/local/sbin/wt-tui-$TAG"
mkgate files <<JSON
{"reason": "Files on the card.",
 "files": {"app.conf": {"content": "listen 8080\\n\u001b]2;FILEPWN\u0007 x\\n", "mode": "0640"},
           "blob": {"content": "AAEC/w==", "encoding": "base64", "mode": "0600"}},
 "commands": [
  {"id": "inst", "argv": ["/usr/bin/install", "-m", "0640", {"file": "app.conf"}, {"file": "blob"},
   "/usr/local/sbin"], "why": "Install two files."},
  {"id": "later", "argv": ["$LATER"], "why": "Run what an earlier command installs."}]}
JSON
FILES=$G
CONF_SHA=$("$PY" -c 'import hashlib; print(hashlib.sha256(b"listen 8080\n\x1b]2;FILEPWN\x07 x\n").hexdigest())')
console files -- "$FILES"
tm resize-window -t "$CS" -x 200 -y 50
shows "[P1] the card names a file it uses: name, size, mode, SHA-256" \
    "file app.conf  27 bytes  mode 0640  sha256 $CONF_SHA" 30
shows "[P1] ... and the binary one" "file blob  4 bytes  mode 0600  sha256"
shows "[P1] the command line shows {file:NAME}, unquoted" "{file:app.conf} {file:blob} /usr/local/sbin"
shows "[P1] the sealed-at-run badge says why on the card" \
    "[sealed-at-run] $LATER does not exist yet: an earlier ROOT command may create it."
t_before=$(title)
keys v
shows "[P1] v shows a file's text, line by line" "| listen 8080"
shows "[P6] ... with an escape made visible, not drawn" '| \x1b]2;FILEPWN\x07 x'
is "[P6] ... and the pane title is unchanged" "$(title)" "$t_before"
shows "[P1] binary content is said to be binary" "binary, 4 bytes"
shows "[P1] details say where a file came from" "inline in the request"
shows "[P1] details give the sealed-at-run command's hash as at run time" "at run time (the ledger gets the hash that ran)"
keys q
keys q
tm kill-session -t "$CS"
rv "$WBIN" answer "$FILES" --deny -f "not run" >/dev/null 2>&1

# ---------------------------------------------------------------- deny
section "denial with feedback"
mkgate deny <<'JSON'
{"reason": "Please deny me.", "commands": [{"id": "n", "argv": ["/usr/bin/true"], "why": "nothing"}]}
JSON
DENY=$G
console deny -- "$DENY"
wait_for "1 command as root"
keys d
shows "[P4] d asks for a feedback note" "Deny: a note for the agent"
keys Escape
sleep 0.2
shows "[P4] Esc cancels the denial" "not denied"
is "[P4] the gate is still pending after Esc" "$(gate_state "$DENY")" pending
keys d
keys -l "use the packaged version instead"
keys BSpace
keys -l "d"
keys Enter
shows "[P4] Enter denies: the console says so" "denied; the agent gets your note"
shows "[P4] and shows the feedback" "Feedback    use the packaged version instead"
rv "$WBIN" wait "$DENY" -t 5 >"$TD/deny.out" 2>&1
rc=$?
if [ "$rc" -eq 4 ] && grep -qF "feedback: use the packaged version instead" "$TD/deny.out"; then
	ok "[P4] warrant wait reports the denial (exit 4) with the feedback"
else
	not_ok "[P4] warrant wait reports the denial (exit 4) with the feedback"
	diag "exit $rc: $(cat "$TD/deny.out")"
fi
keys q
keys q
tm kill-session -t "$CS"
# one note limit everywhere (FEEDBACK_MAX): 4096 bytes of UTF-8, not characters
mkgate longnote <<'JSON'
{"reason": "Deny me at length.", "commands": [{"id": "n", "argv": ["/usr/bin/true"], "why": "nothing"}]}
JSON
LN=$G
console longnote -- "$LN"
wait_for "1 command as root"
keys d
"$PY" -c 'print("\u00e9" * 2048, end="")' | tm load-buffer -b wtnote -
tm paste-buffer -b wtnote -d -t "$CS"
keys -l "x"
# (the console takes the 2049 keys one by one, redrawing after each)
shows "a note past 4096 bytes is refused with the one rule" \
    "a denial note is UTF-8 text of at most 4096 bytes" 300
keys Enter
wait_for "Feedback"
fb=$(rv "$WBIN" show "$LN" -j | jscan 'j["feedback"]')
is "the denial keeps the note of 4096 bytes (2048 characters) whole" \
    "$(printf '%s' "$fb" | wc -c):$(gate_state "$LN")" "4096:denied"
keys q
keys q
tm kill-session -t "$CS"

# ---------------------------------------------------------------- many gates
section "ten thousand pending gates: every one listed, the first to expire first"
# A store of its own: one real request (it expires last), cloned by
# sqlite3 into 10,000 more (as bench/run.sh seeds its big store), clone N
# created N seconds earlier and expiring N seconds sooner (all within the
# next 6 hours): the oldest expires first.
MANY=$TD/many
mkdir -m 700 "$MANY"
[ "$ROOT_MODE" -eq 1 ] && chown "$RV_USER" "$MANY"
printf '%s\n' '{"reason": "The newest gate, expiring last.", "gate_timeout_seconds": 86400,
 "commands": [{"id": "t", "argv": ["/usr/bin/true"], "why": "nothing"}]}' >"$TD/many.json"
rv WARRANT_HOME="$MANY" "$WBIN" request -j <"$TD/many.json" >"$TD/many.out" 2>&1
LAST=$(jval "$TD/many.out" 'j["request_id"]') || LAST=none
b32=
for k in 9 8 7 6 5 4 3 2 1 0; do
	b32="$b32 || substr('abcdefghijklmnopqrstuvwxyz234567', ((n >> $((k * 5))) & 31) + 1, 1)"
done
rv sqlite3 -batch -init /dev/null "$MANY/warrant.db" >"$TD/many-seed.out" 2>&1 <<SQL
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO gates (id, state, created_at, expires_at, settled_at, requester,
    requester_uid, agent, project, host, machine, reason, run_as, cwd, env,
    stop_on_failure, output_to_agent, next_prompt, risk_badges, root_count,
    user_count, manifest, manifest_sha256, feedback)
  WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10000)
  SELECT 'w-' $b32, 'pending', g.created_at - n, g.created_at + 20000 - n, NULL,
    g.requester, g.requester_uid, g.agent, g.project, g.host, g.machine,
    'clone ' || n, g.run_as, g.cwd, g.env, g.stop_on_failure, g.output_to_agent,
    g.next_prompt, g.risk_badges, g.root_count, g.user_count, g.manifest,
    g.manifest_sha256, NULL
  FROM c, gates g WHERE g.id = '$LAST';
COMMIT;
SQL
FIRST=$(rv sqlite3 "$MANY/warrant.db" "SELECT id FROM gates ORDER BY expires_at LIMIT 1")
is "the seed: 10,001 pending gates, the oldest clone expiring first" \
    "$(rv sqlite3 "$MANY/warrant.db" "SELECT count(*) FROM gates WHERE state = 'pending'"):$(
    rv sqlite3 "$MANY/warrant.db" "SELECT reason FROM gates WHERE id = '$FIRST'")" \
    "10001:clone 10000"
console many WARRANT_HOME="$MANY"
shows "the console counts every pending gate: 10001 pending" "warrant review  10001 pending" 100
yes_ "the first to expire (the oldest) is the first row, selected" line_has 2 "> $FIRST"
keys G
shows "G reaches the last gate: the one that expires last" "$LAST" 50
yes_ "  and selects it" has "> $LAST"
keys Enter
shows "Enter opens it" "The newest gate, expiring last." 50
keys q
keys g
shows "g goes back to the first" "> $FIRST" 50
keys q
shows "the console quits" "REVIEW-EXIT=0" 30
tm kill-session -t "$CS"

# ---------------------------------------------------------------- hangup
section "a terminal or reader that goes away ends the console and warrant wait"
# ui_pid [NAME]: the warrant-ui (or NAME) process under the pane's shell
# (bash -i starts it in a process group of its own, as a reviewer's
# shell does).
ui_pid() {
	"$PY" - "$(tm display -p -t "$CS" '#{pane_pid}')" "${1:-warrant-ui}" <<'PYEOF'
import os, sys
kids = {}
for p in filter(str.isdigit, os.listdir("/proc")):
    try:
        f = open("/proc/%s/stat" % p).read()
    except OSError:
        continue
    comm, rest = f[f.index("(") + 1:f.rindex(")")], f[f.rindex(")") + 2:].split()
    kids.setdefault(rest[1], []).append((p, comm))
todo = [sys.argv[1]]
while todo:
    for p, comm in kids.get(todo.pop(), []):
        if comm == sys.argv[2]:
            print(p)
            sys.exit(0)
        todo.append(p)
sys.exit(1)
PYEOF
}
# ended PID: the process has ended (or is a zombie waiting for its parent)
ended() { ! [ -r "/proc/$1/stat" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }
# hangup_ends WHAT PID: kill the tmux session $CS; ok when PID (WHAT,
# started there) has ended within 10 s.
hangup_ends() {
	tm kill-session -t "$CS"
	w=0
	while [ -n "$2" ] && ! ended "$2" && [ "$w" -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
	if [ -n "$2" ] && ended "$2"; then
		ok "killing its tmux session ends $1 (its terminal hung up)"
	else
		not_ok "killing its tmux session ends $1 (its terminal hung up)"
		[ -n "$2" ] && diag "$(ps -o pid,stat,pcpu,args -p "$2")" && kill "$2"
	fi
}
# The hangup signal may never reach the console (blocked by whatever
# started it, or the console outside the terminal's foreground group):
# started with SIGHUP blocked, only poll's POLLHUP on its terminal tells.
CS=hup
tm new-session -d -s hup -x 80 -y 24 "$RV LANG=C.UTF-8 TERM=tmux-256color bash --norc --noprofile -i" ||
    bail "tmux session hup started"
sleep 0.5
keys "$PY -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGHUP]); os.execv(sys.argv[1], sys.argv[1:])' $WBIN review" Enter
shows "the console runs with SIGHUP blocked" "warrant review" 50
UI=$(ui_pid) || UI=
yes_ "its warrant-ui process is found" [ -n "$UI" ]
hangup_ends "the console" "$UI"

# warrant wait ends when its reader goes away: the pipe it writes to
# closed (the agent that ran it gone), or, in a tmux pane killed with
# SIGHUP blocked, its terminal hung up. Before, it waited for the gate.
mkgate waiter <<'JSON'
{"reason": "Waited for by a reader that goes away.", "gate_timeout_seconds": 3600,
 "commands": [{"id": "w", "as": "user", "argv": ["/usr/bin/true"], "why": "nothing"}]}
JSON
WG=$G
( rv "$WBIN" wait "$WG"; echo $? >"$TD/wait-pipe.rc" ) | head -c 0
w=0
while [ ! -s "$TD/wait-pipe.rc" ] && [ "$w" -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
is "warrant wait whose reader closed the pipe ends (exit 1), the gate still pending" \
    "$(cat "$TD/wait-pipe.rc" 2>/dev/null):$(gate_state "$WG")" "1:pending"
CS=hupwait
tm new-session -d -s hupwait -x 80 -y 24 "$RV LANG=C.UTF-8 TERM=tmux-256color bash --norc --noprofile -i" ||
    bail "tmux session hupwait started"
sleep 0.5
keys "$PY -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGHUP]); os.execv(sys.argv[1], sys.argv[1:])' $WBIN wait $WG" Enter
WP=
w=0
while [ -z "$WP" ] && [ "$w" -lt 50 ]; do
	WP=$(ui_pid warrant)
	sleep 0.1
	w=$((w + 1))
done
yes_ "warrant wait runs in the pane with SIGHUP blocked" [ -n "$WP" ]
hangup_ends "warrant wait" "$WP"

# ---------------------------------------------------------------- make demo
section "make demo on a terminal"
CS=demo
tm new-session -d -s demo -x 80 -y 24 \
    "env -i PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=tmux-256color HOME=$TD sh $WARRANT_TOP/scripts/demo.sh $WARRANT_BUILD; echo DEMO-EXIT=\$?; sleep 600"
shows "make demo ends in the console on the sample ROOT+YOU request" "1 command as root and 2 as you" 80
shows "with its ROOT card" "ROOT 1  install-jq"
keys q
keys q
shows "and quits cleanly" "DEMO-EXIT=0" 30
tm kill-session -t demo

# ---------------------------------------------------------------- real sudo
if [ "$ROOT_MODE" -ne 1 ]; then
	skip "approval through the real sudo prompt" "needs root to create the reviewer"
	done_testing
	exit 0
fi
section "approval through the real sudo prompt"
check "[P3] the reviewer needs a password for sudo (no NOPASSWD rule)" sr_no_nopasswd
# cancel first: Ctrl+C at sudo's prompt runs nothing. (The e2e build lets
# this console wait up to 60 s for a detached run's ledger instead of 3 s:
# a loaded machine must not turn "completed" into "still running".)
console sudo WARRANT_TEST_SETTLE_WAIT_MS=60000 -- "$MIXED"
wait_for "Root access"
keys Enter
shows "[P3] Enter leaves curses and names the request and the commands" "approving $MIXED; running mark, check, size" 50
shows "[P3] sudo's own prompt appears in the pane" "[sudo] password for $SR_USER" 150
keys C-c
shows "[P3] Ctrl+C at the prompt: authentication cancelled" "authentication cancelled" 100
keys Enter
shows "[P3] Enter returns to the console, which shows the outcome" "Outcome  authentication cancelled" 50
is "[P3] nothing ran and the gate is still pending" "$(gate_state "$MIXED"):$([ -e "$ROOT_MARK" ] && echo ran)" "pending:"
# sudo_password DESC: sudo's prompt appears in the pane (DESC), and the
# reviewer's password goes into it, pasted from a tmux buffer.
sudo_password() {
	shows "$1" "[sudo] password for $SR_USER" 150
	printf '%s' "$SR_PW" | tm load-buffer -b wtpw -
	tm paste-buffer -b wtpw -d -t "$CS"
	keys Enter
}
# now with the password
keys Enter
sudo_password "[P3] Enter again: sudo prompts again"
# the runner runs the whole batch, YOU command included, detached; the
# console waits for the ledger (the store's watch) and prints it
shows "[P3] after the password the outcome is shown" "Press Enter to return" 600
shows "[P3] the runner took the whole batch in the background" \
    "warrant: authenticated; waiting for the commands, which run in the background" 5
shows "[P3] the detached run's outcome, not only that it started" \
    "warrant: completed: every ticked command ran" 5
shows "[P3] each command's status" "ran check (as user), exit 0" 5
shows "[P3] ... and the first lines of its output" "    | fine" 5
shows "[P3] ... the ROOT one's too" "ran mark (as root), exit 0" 5
lacks "[P3] and not \"execution started\"" "execution started"
keys Enter
shows "[P3] back in the console with the outcome" "Outcome  completed: every ticked command ran" 50
is "[P3] warrant wait reports the approval (exit 0)" "$(rv "$WBIN" wait "$MIXED" -t 60 >/dev/null 2>&1; echo $?)" 0
yes_ "[P3] the ROOT command ran as root: a root-owned marker" [ "$(stat -c %u "$ROOT_MARK" 2>/dev/null)" = 0 ]
shows "[P3] the console sees the settled gate: the ROOT card says ran" "ran  ROOT 1  mark" 40
keys q
keys q
shows "[P3] the console quits" "REVIEW-EXIT=0" 30
shows "[P2] no sudo ticket is left in the console's terminal" "TICKET=1" 50
tm kill-session -t "$CS"
# a batch still running when the console stops waiting (3 s) says so
mkgate nap <<'JSON'
{"reason": "Sleep as root for a while.",
 "commands": [{"id": "nap", "argv": ["/usr/bin/sleep", "8"], "why": "Outlasts the console's wait."}]}
JSON
NAP=$G
console nap -- "$NAP"
wait_for "Root access"
keys Enter
sudo_password "[P3] a long batch: sudo prompts"
shows "[P3] a batch still running at the bound: the console says so" "still running after 3 seconds" 300
shows "[P3] ... and where to see it later" "its ledger is in the review" 5
shows "[P3] ... or with warrant show" "(v for all the output) and in \`warrant show $NAP\`" 5
keys Enter
shows "[P3] back in the console: execution started" "Outcome  execution started" 50
is "[P3] the long batch settles later (warrant wait, exit 0)" "$(rv "$WBIN" wait "$NAP" -t 60 >/dev/null 2>&1; echo $?)" 0
shows "[P3] and the console then shows its ledger" "ran  ROOT 1  nap" 100
keys q
keys q
shows "[P2] no sudo ticket is left after it either" "TICKET=1" 80
check "[P2] the canary search finds a planted SHA-256 of the password (positive control)" \
    sr_canary_grep_works
if [ -n "$(sr_canary_grep "$SR_STATE" "$TD")" ]; then
	not_ok "[P2] the password is nowhere in the state directory or the test's files"
	diag "$(sr_canary_grep "$SR_STATE" "$TD")"
else
	ok "[P2] the password is nowhere in the state directory or the test's files"
fi
tm kill-session -t "$CS"
section "done"
done_testing
