#!/bin/sh
# SPDX-License-Identifier: ISC
# The Debian package end to end (make check-deb), as TAP: build it as
# `make deb` does (plus the source package, for lintian), check its
# contents and run lintian on both; install it with apt-get on this
# machine, check what the maintainer scripts made; run end-to-end suites
# on the installed warrant under /usr (as tests/run.sh --installed does:
# the same suites as on the private prefix of make check, with the real
# sudo approving through the installed runner), each of their tests
# reported as one of this script's; then apt-get remove and purge,
# and compare the list of files on the machine with the one taken before
# the install: only the logs may stay.
#
# Needs root. Refuses to run when dpkg already knows a package warrant.
# The install is machine-wide: whoever runs this on a shared machine holds
# the lock the end-to-end runs share for the whole run (make check-deb
# takes no lock of its own, as make check does not).
#
#   sh tests/deb/test-deb.sh
#
# env: WARRANT_DEB_BUILD (where the package is built, default build-deb),
# WARRANT_DEB_SUITES (the end-to-end suites run on the installed package,
# default: the suites whose subject depends on where and how warrant is
# installed: the runner under /usr/libexec through sudo, the daemon's
# socket directory under /run/warrant (test-requesters, test-setup), the
# logs, the set-up walkthrough, the pinned path of remote targets.
# test-validate, test-store and test-serve (the daemon's own bounds,
# workers and blobs) are the same code wherever it is installed, and run
# once in make check on the private prefix; test-box, test-boxapi, test-mcp,
# test-review, test-web, test-twoperson, test-hardening and test-chaos
# need the build directory or its test hooks).
WARRANT_TOP=$(cd "$(dirname "$0")/../.." && pwd)
export WARRANT_TOP
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

top=$WARRANT_TOP
need_root "installing a package needs root"
for p in dpkg-buildpackage dh dpkg-deb dpkg-query apt-get lintian; do
	command -v "$p" >/dev/null 2>&1 || bail "$p is installed (make deps-deb)"
done

PREFIX=/usr
RUNNER=$PREFIX/libexec/warrant/warrant-runner
LOG=/var/log/warrant.log
IODIR=/var/log/warrant-io
OUT=${WARRANT_DEB_BUILD:-$top/build-deb}
case $OUT in /*) ;; *) OUT="$top/$OUT" ;; esac
SUITES=${WARRANT_DEB_SUITES:-test-cli.sh test-answer.sh \
    test-files.sh test-iolog.sh test-gc.sh \
    test-requesters.sh test-remote.sh test-setup.sh}
VERSION=$(sed -n "s/^  version : '\([^']*\)',\$/\1/p" "$top/meson.build")
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
DEB=$top/warrant_${VERSION}_$ARCH.deb
ST=$(mktemp -d /tmp/warrant-deb-test.XXXXXX) || exit 1
SAVED=

# dpkg_status: "install ok installed", "deinstall ok config-files"…, or
# "unknown" when dpkg has never heard of the package (or forgot it).
dpkg_status() { dpkg-query -W -f='${Status}' warrant 2>/dev/null || echo unknown; }

# installed_env CMD...: CMD with the environment of the end-to-end suites
# run on the installed package.
installed_env() { env WARRANT_BUILD= WARRANT_PREFIX="$PREFIX" WARRANT_TOP="$top" "$@"; }
USERS=

cleanup() {
	[ -n "$USERS" ] && installed_env sh "$top/tests/e2e/setup.sh" teardown >/dev/null 2>&1
	# an interrupted run leaves nothing installed
	case $(dpkg_status) in
	unknown | *not-installed) ;;
	*) DEBIAN_FRONTEND=noninteractive dpkg --purge warrant >/dev/null 2>&1 ;;
	esac
	# the machine's root log, moved aside for the run, gets back its
	# place with the lines the run added after its own
	if [ -n "$SAVED" ] && [ -f "$SAVED" ]; then
		[ -f "$LOG" ] && cat "$LOG" >>"$SAVED"
		mv -f "$SAVED" "$LOG"
	fi
	rm -rf "$ST"
}
at_exit cleanup

case $(dpkg_status) in
unknown | *not-installed) ;;
*) bail "dpkg knows no package warrant yet ($(dpkg_status)): this test installs and purges it" ;;
esac
[ -e "$PREFIX/bin/warrant" ] && bail "no $PREFIX/bin/warrant before the package is installed"

# relay NAME CMD...: run a TAP producer and report each of its tests as
# one of this script's, named "NAME: …"; its comments are passed on. A
# producer that exits non-zero without a failure, or runs no test, fails.
relay() {
	rl_name=$1
	shift
	"$@" >"$ST/relay.tap" 2>"$ST/relay.err"
	rl_rc=$?
	rl_seen=0 rl_bad=0
	while IFS= read -r rl_line; do
		case $rl_line in
		"not ok "*)
			rl_seen=1 rl_bad=1
			not_ok "$rl_name: $(printf '%s' "$rl_line" | sed 's/^not ok [0-9]* *-* *//')"
			;;
		"ok "*)
			rl_seen=1
			rl_d=$(printf '%s' "$rl_line" | sed 's/^ok [0-9]* *-* *//')
			n=$((n + 1))
			printf 'ok %s - %s: %s\n' "$n" "$rl_name" "$rl_d"
			;;
		"#"*) printf '%s\n' "$rl_line" ;;
		esac
	done <"$ST/relay.tap"
	if [ "$rl_seen" -eq 0 ]; then
		not_ok "$rl_name ran no test (exit $rl_rc)"
		rl_bad=1
	elif [ "$rl_rc" -ne 0 ] && [ "$rl_bad" -eq 0 ]; then
		not_ok "$rl_name exited $rl_rc"
		rl_bad=1
	fi
	[ "$rl_bad" -eq 0 ] || tail -20 "$ST/relay.err" | sed 's/^/# stderr: /'
}

# snapshot FILE: every path on the machine's system trees, sorted, except
# the kernel's and runtime trees (/proc /sys /dev /run /tmp), caches (and
# root's: npm's, perf's) and the package manager's own records (/var/cache /var/lib/apt /var/lib/dpkg,
# apt's and dpkg's logs), the logs warrant keeps (LOG, IODIR), the
# backups the shadow tools write of the account files when the suites add
# and remove their users, and this source tree. Working trees elsewhere
# (CI checkouts, other builds) change for reasons of their own and are not
# looked at: a package and its scripts write under these roots.
snapshot() {
	sn_roots=
	for d in /etc /usr /var /opt /srv /home /root /bin /sbin /lib /lib32 /lib64 /libx32; do
		[ -d "$d" ] && [ ! -L "$d" ] && sn_roots="$sn_roots $d"
	done
	# shellcheck disable=SC2086
	find $sn_roots -xdev \( -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg \
	    -o -path /var/log/apt -o -path /var/log/dpkg.log -o -path /var/log/alternatives.log \
	    -o -path "$LOG" -o -path "$IODIR" -o -path /root/.cache -o -path /root/.npm -o -path /root/.debug \
	    -o -path '/etc/*-' -o -path "$top" \) -prune -o -print 2>/dev/null | LC_ALL=C sort >"$1"
}

# same_files DESC AFTER [KEPT...]: the file list AFTER is the one taken
# before the install, but for new paths under the directories KEPT; the
# differences are shown.
same_files() {
	sf_desc=$1
	LC_ALL=C comm -13 "$ST/before" "$2" >"$ST/left"
	LC_ALL=C comm -23 "$ST/before" "$2" >"$ST/gone"
	shift 2
	for kept in "$@"; do
		grep -v -e "^$kept\$" -e "^$kept/" "$ST/left" >"$ST/left.not-kept"
		grep -e "^$kept\$" -e "^$kept/" "$ST/left" | sed 's/^/# kept until purge: /'
		mv "$ST/left.not-kept" "$ST/left"
	done
	if [ ! -s "$ST/left" ] && [ ! -s "$ST/gone" ]; then
		ok "$sf_desc"
	else
		not_ok "$sf_desc"
		head -20 "$ST/left" | sed 's/^/# left: /'
		head -20 "$ST/gone" | sed 's/^/# gone: /'
	fi
}

# ================================================================ build
section "build"
# The libraries make deps installs are the package's build dependencies
# (but clang's runtimes, which only the fuzz build uses).
missing=
for p in $(sed -n '/^for p in/,/; do$/p' "$top/scripts/deps.sh" | tr -s ' \t\\' '\n' |
    grep -E '^lib[a-z0-9.+-]*-dev$' | grep -vx 'libclang-rt-dev'); do
	sed -n '/^Build-Depends:/,/^[A-Z]/p' "$top/debian/control" | grep -Eq "^ $p( |,)" ||
	    missing="$missing $p"
done
is "debian/control's Build-Depends has every library of scripts/deps.sh" "$missing" ""
rm -f "$DEB"
DEB_SOURCE=1 sh "$top/scripts/deb.sh" "$OUT" >"$ST/build.log" 2>&1
rc=$?
is "make deb's build (dpkg-buildpackage -us -uc -b) exits 0" "$rc" 0
[ "$rc" -eq 0 ] || tail -30 "$ST/build.log" | sed 's/^/# /'
[ -f "$DEB" ] || bail "the build left warrant_${VERSION}_$ARCH.deb at the top of the tree"
ok "the package is warrant_${VERSION}_$ARCH.deb (meson.build's version)"
is "its control: package, version and architecture" \
    "$(dpkg-deb -f "$DEB" Package Version Architecture | tr '\n' ' ')" \
    "Package: warrant Version: $VERSION Architecture: $ARCH "
dep=$(dpkg-deb -f "$DEB" Depends)
if echo "$dep" | grep -Eq '(^|, )sudo(,|$)' && echo "$dep" | grep -q 'libjansson'; then
	ok "it depends on sudo and on the libraries it links (shlibs)"
else
	not_ok "it depends on sudo and on the libraries it links (shlibs)"
	diag "Depends: $dep"
fi

dpkg-deb -c "$DEB" | awk '{ print $1, $2, $6 }' >"$ST/contents"
is "warrant-runner: $RUNNER, root-owned, 0755" \
    "$(grep " \.$RUNNER\$" "$ST/contents")" "-rwxr-xr-x root/root .$RUNNER"
is "warrant-logship: beside the runner, root-owned, 0755" \
    "$(grep " \.${RUNNER%/*}/warrant-logship\$" "$ST/contents")" \
    "-rwxr-xr-x root/root .${RUNNER%/*}/warrant-logship"
is "warrant: $PREFIX/bin/warrant, root-owned, 0755" \
    "$(grep " \./usr/bin/warrant\$" "$ST/contents")" "-rwxr-xr-x root/root ./usr/bin/warrant"
for f in share/man/man1/warrant.1.gz share/man/man5/warrant-request.5.gz \
    share/bash-completion/completions/warrant lib/systemd/user/warrant.service \
    lib/tmpfiles.d/warrant.conf share/doc/warrant/copyright share/doc/warrant/docs/setup.md.gz; do
	check "it ships $PREFIX/$f" grep -q " \.$PREFIX/$f\$" "$ST/contents"
done
is "every file it ships is root's and under /usr (the logs and /run are made at install)" \
    "$(awk '$2 != "root/root" || $3 !~ /^\.\/(usr\/.*)?$/' "$ST/contents")" ""

X=$ST/unpacked
dpkg-deb -x "$DEB" "$X"
is "the user unit starts $PREFIX/bin/warrant serve" \
    "$(sed -n 's/^ExecStart=//p' "$X/usr/lib/systemd/user/warrant.service")" "$PREFIX/bin/warrant serve"
is "the tmpfiles.d entry makes /run/warrant, root's, 0755" \
    "$(grep -v '^#' "$X/usr/lib/tmpfiles.d/warrant.conf")" "d /run/warrant 0755 root root -"
is "the runner path compiled into warrant is $RUNNER" \
    "$(tr '\0' '\n' <"$X/usr/bin/warrant" | grep -x '/.*/warrant-runner')" "$RUNNER"
is "the installed build has no test hook (no WARRANT_TEST_ROOT in warrant)" \
    "$(grep -c -a WARRANT_TEST_ROOT "$X/usr/bin/warrant")" 0

# ================================================================ lintian
section "lintian"
# Positive control: a package without a copyright file or a description
# worth the name gets errors and warnings from this lintian.
P=$ST/probe
mkdir -p "$P/DEBIAN" "$P/usr/bin"
printf '#!/bin/sh\n' >"$P/usr/bin/wt-probe"
chmod 755 "$P/usr/bin/wt-probe"
printf 'Package: wt-lintian-probe\nVersion: 1\nArchitecture: all\nMaintainer: x <x@example.org>\nDescription: probe\n' \
    >"$P/DEBIAN/control"
dpkg-deb --root-owner-group -b "$P" "$ST/probe.deb" >/dev/null 2>&1
lintian --fail-on warning "$ST/probe.deb" >"$ST/probe.lintian" 2>&1
rc=$?
check "lintian fails a package without a copyright file (positive control)" \
    sh -c '[ "$1" -ne 0 ] && grep -q "no-copyright-file" "$2"' sh "$rc" "$ST/probe.lintian"
for f in "$OUT/warrant_${VERSION}_$ARCH.changes" "$OUT/warrant_$VERSION.dsc"; do
	lintian --fail-on warning --pedantic -I "$f" >"$ST/lintian" 2>&1
	rc=$?
	check "lintian $(basename "$f"): no error or warning" [ "$rc" -eq 0 ]
	grep -v 'running with root privileges' "$ST/lintian" | sed 's/^/# /'
done

# ================================================================ install
section "install"
# The root log and the I/O log directory are moved aside (and given back
# at the end), so that what postinst makes can be seen.
if [ -e "$LOG" ] || [ -L "$LOG" ]; then
	SAVED=$LOG.test-deb.$$
	mv "$LOG" "$SAVED" || bail "moving $LOG aside"
fi
[ -d "$IODIR" ] && rmdir "$IODIR" 2>/dev/null
io_before=$([ -e "$IODIR" ] && echo yes)
[ -d /run/warrant ] && rmdir /run/warrant 2>/dev/null
snapshot "$ST/before"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$DEB" >"$ST/install.log" 2>&1
rc=$?
is "apt-get install ./warrant_${VERSION}_$ARCH.deb exits 0" "$rc" 0
[ "$rc" -eq 0 ] || tail -20 "$ST/install.log" | sed 's/^/# /'
is "dpkg: installed" "$(dpkg_status)" "install ok installed"
dpkg -L warrant >"$ST/files" 2>/dev/null
is "$PREFIX/bin/warrant --version" "$("$PREFIX/bin/warrant" --version 2>&1)" "warrant $VERSION"
check "[P1] the runner and every directory above it are root's, writable by root only" \
    sr_root_owned_path "$RUNNER"
is "postinst: $LOG, a regular file, root's, 0600" \
    "$(stat -c '%F %U:%G %a' "$LOG" 2>&1)" "regular empty file root:root 600"
if [ -z "$io_before" ]; then
	is "postinst: $IODIR, root's, 0700" "$(stat -c '%F %U:%G %a' "$IODIR" 2>&1)" "directory root:root 700"
else
	skip "postinst: $IODIR, root's, 0700" "$IODIR was there before, with files"
fi
if command -v systemd-tmpfiles >/dev/null 2>&1; then
	is "the tmpfiles.d entry made /run/warrant, root's, 0755" \
	    "$(stat -c '%F %U:%G %a' /run/warrant 2>&1)" "directory root:root 755"
else
	skip "the tmpfiles.d entry made /run/warrant" "no systemd-tmpfiles"
fi
if command -v systemctl >/dev/null 2>&1; then
	is "the user unit is installed but not enabled for every user" \
	    "$(systemctl --global is-enabled warrant.service 2>&1)" disabled
else
	skip "the user unit is not enabled for every user" "no systemctl"
fi
if command -v man >/dev/null 2>&1; then
	# -a: pages of another install (under /usr/local) may come first
	man -aw warrant warrant-request >"$ST/man" 2>&1
	check "man finds warrant(1) and warrant-request(5)" \
	    sh -c 'grep -qx "$1/share/man/man1/warrant.1.gz" "$2" &&
	    grep -qx "$1/share/man/man5/warrant-request.5.gz" "$2"' sh "$PREFIX" "$ST/man"
else
	skip "man finds the pages" "no man"
fi
check "bash loads the completion (complete -p warrant)" \
    bash -c '. /usr/share/bash-completion/completions/warrant && complete -p warrant >/dev/null'

# ================================================================ suites
section "end-to-end suites on the installed package"
# As tests/run.sh --installed runs them: setup.sh (with WARRANT_PREFIX
# set it installs nothing; its teardown removes the suites' users), then
# each suite.
relay "setup install" installed_env sh "$top/tests/e2e/setup.sh" install
USERS=1
for s in $SUITES; do
	began=$(date +%s)
	relay "$s" installed_env sh "$top/tests/e2e/$s"
	printf '# %s took %s s\n' "$s" $(($(date +%s) - began))
done
relay "setup teardown" installed_env sh "$top/tests/e2e/setup.sh" teardown
USERS=

# ================================================================ remove
section "remove and purge"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q warrant >"$ST/remove.log" 2>&1
rc=$?
is "apt-get remove warrant exits 0" "$rc" 0
[ "$rc" -eq 0 ] || tail -20 "$ST/remove.log" | sed 's/^/# /'
left=$(while read -r f; do
	[ -f "$f" ] || [ -L "$f" ] && echo "$f"
done <"$ST/files")
is "remove: none of the package's files is left" "$left" ""
snapshot "$ST/removed"
# deb-systemd-helper keeps its record of the user unit's state (enabled
# by whom) until purge, as dpkg keeps a removed package's conffiles, and
# warrant its record of the ids of removed box users.
same_files "remove: the machine's files are the ones before the install (but deb-systemd-helper's and the retired ids' records)" \
    "$ST/removed" /var/lib/systemd/deb-systemd-user-helper-enabled /var/lib/warrant/box/retired
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q warrant >"$ST/purge.log" 2>&1
rc=$?
is "apt-get purge warrant exits 0" "$rc" 0
[ "$rc" -eq 0 ] || tail -20 "$ST/purge.log" | sed 's/^/# /'
case $(dpkg_status) in
unknown | *not-installed) ok "purge: dpkg no longer knows warrant" ;;
*) not_ok "purge: dpkg no longer knows warrant"; diag "dpkg: $(dpkg_status)" ;;
esac
snapshot "$ST/purged"
same_files "purge: the machine's files are the ones before the install" "$ST/purged"
is "purge keeps the root log $LOG (an audit trail)" "$(stat -c '%F %U %a' "$LOG" 2>&1 | sed 's/empty //')" \
    "regular file root 600"
check "purge keeps $IODIR" [ -d "$IODIR" ]
done_testing
