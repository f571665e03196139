#!/bin/sh
# SPDX-License-Identifier: ISC
# The machine-wide set-up and teardown around the end-to-end suites
# (tests/run.sh runs it), as TAP.
#
#   setup.sh install    install the build WARRANT_BUILD into its private
#                       prefix (e.g. /opt/warrant-test): the runner path is
#                       compiled in from the prefix, and `warrant answer`
#                       wants it and every directory above it root-owned
#   setup.sh teardown   remove that prefix and the throwaway users the
#                       suites created; check nothing landed in /usr/local
#
# With WARRANT_PREFIX set (the suites run on the warrant a package
# installed there: tests/deb/test-deb.sh), install only checks that
# warrant and its runner are there, and teardown only removes the users:
# the package's files are the package manager's.
#
# Needs root (otherwise it skips, as do the suites that would use it).
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "installing and removing users needs root"
if installed_mode; then
	PREFIX=$WARRANT_PREFIX
else
	PREFIX=$(build_prefix "$WARRANT_BUILD")
	private_prefix "$PREFIX" ||
	    bail "the e2e build's prefix '$PREFIX' is private (…/warrant-test; make check configures it)"
fi
# Marks the start of the run, for the /usr/local check at teardown.
MARK=/run/warrant-e2e.start

case ${1:-}:$(installed_mode && echo installed) in
install:installed)
	touch "$MARK"
	. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"
	check "warrant and the runner it names are installed under $PREFIX" sr_installed
	check "the runner $SR_RUNNER is root-owned in root-owned directories" \
	    sr_root_owned_path "$SR_RUNNER"
	;;
install:)
	touch "$MARK"
	rm -rf "$PREFIX"
	out=$(umask 022 && meson install -C "$WARRANT_BUILD" --no-rebuild 2>&1)
	check "meson install into the private prefix $PREFIX" [ $? -eq 0 ]
	[ -n "$out" ] && echo "$out" | tail -5 | sed 's/^/# /'
	runner=$(build_config WARRANT_RUNNER_PATH)
	check "the runner path compiled into warrant ($runner) is under $PREFIX" \
	    sh -c 'case $1 in "$2"/*) [ -x "$1" ] ;; *) false ;; esac' sh "$runner" "$PREFIX"
	;;
teardown:*)
	if ! installed_mode; then
		rm -rf "$PREFIX"
		check "the private prefix $PREFIX is removed" [ ! -e "$PREFIX" ]
	fi
	# The users of lib.sh and sudo-lib.sh (test-box.sh removes its own).
	left=
	for u in wt-requester wt-reviewer wt-reviewer2 wt-tuirev wt-tuirev2 wt-tprev3 wt-tpreq; do
		id "$u" >/dev/null 2>&1 || continue
		# A process a suite left behind keeps the user: name it (and
		# give it a moment to end on its own).
		i=0
		while pgrep -u "$u" >/dev/null && [ "$i" -lt 30 ]; do
			sleep 1
			i=$((i + 1))
		done
		ps -o pid,etime,args -u "$u" 2>/dev/null | sed 1d | while read -r l; do
			diag "left running as $u: $l"
		done
		userdel -r "$u" >/dev/null 2>&1
		rm -f "/run/sudo/ts/$u" "/var/lib/sudo/ts/$u" "/var/lib/sudo/lectured/$u"
		id "$u" >/dev/null 2>&1 && left="$left $u"
	done
	is "the throwaway users are removed" "$left" ""
	if [ -e "$MARK" ]; then
		new=$(find /usr/local -newer "$MARK" -name '*warrant*' 2>/dev/null | head -5)
		is "nothing named warrant was written under /usr/local during the run" "$new" ""
		rm -f "$MARK"
	else
		not_ok "the run's start mark $MARK exists (setup.sh install ran)"
	fi
	;;
*)
	bail "usage: setup.sh install | teardown"
	;;
esac
done_testing
