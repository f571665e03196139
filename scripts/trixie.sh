#!/bin/sh
# SPDX-License-Identifier: ISC
# warrant on Debian 13 (trixie), with its sudo (1.9.16) and with sudo-rs
# (0.2.5, Ubuntu 26.04's default sudo) as /usr/bin/sudo: a root made with
# `debootstrap --variant=minbase trixie` from the Debian mirror, warrant
# built inside it, and the end-to-end suites that exercise sudo run there
# twice, once per sudo (make check-trixie; make check runs a subset).
#
# usage: scripts/trixie.sh [SUITE...]     (as root; names like "answer")
#        scripts/trixie.sh --root-only   the root and its packages, no more
#        scripts/trixie.sh --root-start  --root-only in the background;
#                                        returns at once (make check)
#        scripts/trixie.sh --root-wait   its outcome once it is done (or
#                                        --root-only here, none started)
#
#   TRIXIE_DIR     where the root is kept (default build-trixie/): made
#                  once and reused, packages added when the list grows
#   TRIXIE_FRESH=1 make it again from the mirror (CI)
#   TRIXIE_SUDOS   which sudos (default "sudo sudo-rs")
#   TRIXIE_MIRROR  default http://deb.debian.org/debian
#
# Processes are visible across the chroot and the suites use shared names
# (users wt-*, /opt/warrant-test, pkill of "warrant" processes), so the
# suites run under the host's lock /tmp/warrant-e2e.lock, as they do on
# the host (WARRANT_E2E_LOCK_HELD=1: the caller holds it already, for a
# whole make check run beside other users of the machine; flock would
# wait for itself). /proc, /dev and /dev/pts are bound into the root for as long
# as this runs and unbound on every way out; a root that still has
# anything mounted below it is never removed (an rm -rf through a bound
# /dev would empty the host's).
#
# Output: one TAP line per suite and sudo ("ok N - trixie sudo-rs
# test-answer.sh: 80 passed"), the inner failures as diagnostics, then
# "N passed, N failed" over every check of every suite.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${TRIXIE_DIR:-$top/build-trixie}
mirror=${TRIXIE_MIRROR:-http://deb.debian.org/debian}
sudos=${TRIXIE_SUDOS:-sudo sudo-rs}
root=$dir/root
# Making the root is mostly waiting on the mirror: make check starts it
# before its builds and tests/run.sh waits for it before the end-to-end
# suites, whose view of processes the root's must not share.
case ${1:-} in
--root-start)
	rm -f "$dir/root-only.pid" "$dir/root-only.rc"
	[ "$(id -u)" -eq 0 ] || exit 0
	mkdir -p "$dir"
	(
		sh "$top/scripts/trixie.sh" --root-only >"$dir/root-only.tap" 2>&1
		echo $? >"$dir/root-only.rc"
	) </dev/null >/dev/null 2>&1 &
	echo $! >"$dir/root-only.pid"
	exit 0
	;;
--root-wait)
	# the outcome file comes last; 30 minutes at most (a pid reused)
	i=0
	while [ ! -s "$dir/root-only.rc" ] && [ -s "$dir/root-only.pid" ] &&
	    kill -0 "$(cat "$dir/root-only.pid")" 2>/dev/null && [ "$i" -lt 1800 ]; do
		i=$((i + 1))
		sleep 1
	done
	rm -f "$dir/root-only.pid"
	if [ -s "$dir/root-only.rc" ]; then
		cat "$dir/root-only.tap"
		rc=$(cat "$dir/root-only.rc")
		rm -f "$dir/root-only.rc"
		exit "$rc"
	fi
	set -- --root-only
	;;
esac
root_only=
if [ "${1:-}" = --root-only ]; then
	root_only=1
	shift
fi
suites=${*:-answer hardening serve files iolog remote twoperson logship sudors}
# What the root needs: warrant's build, the suites' tools, both sudos.
packages="build-essential meson ninja-build pkg-config libjansson-dev libssl-dev libfido2-dev
libsqlite3-dev sqlite3 libcmocka-dev libncurses-dev libunistring-dev zlib1g-dev libzstd-dev
libmicrohttpd-dev libarchive-dev
libqrencode-dev sudo sudo-rs expect util-linux passwd openssl python3 procps acl strace
valgrind curl openssh-server openssh-client nodejs npm ca-certificates"
# inside the root: the tree, its e2e build (tests/run.sh installs it into
# the private prefix, as make check does)
src=/src/warrant
e2e_opts="-Dtest_hooks=true -Dpolicy_file=/opt/warrant-test/etc/policy.json
-Dreview_spool=/opt/warrant-test/spool/reviews -Dlogship_spool=/opt/warrant-test/spool/unshipped
-Dpasskey_dir=/opt/warrant-test/etc/passkeys"

n=0 passed=0 failed=0
say() { printf '%s\n' "$*" | sed 's/^/# /'; }
tap() {
	n=$((n + 1))
	printf '%s %d - %s\n' "$1" "$n" "$2"
}
die() {
	tap "not ok" "$*"
	echo "1..$n"
	echo "$passed passed, $((failed + 1)) failed"
	exit 1
}

[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP scripts/trixie.sh needs root (debootstrap, chroot)"; exit 0; }
command -v debootstrap >/dev/null 2>&1 || die "debootstrap is installed (scripts/deps.sh)"

# mounted_below PATH: the mount points at or under PATH, one a line.
mounted_below() { findmnt -rn -o TARGET | grep -E "^$1(/|\$)"; }

unbind() {
	for m in dev/pts dev proc; do
		mountpoint -q "$root/$m" 2>/dev/null || continue
		umount "$root/$m" 2>/dev/null || umount -l "$root/$m"
	done
	if [ -n "$(mounted_below "$root")" ]; then
		say "still mounted below $root (remove nothing there): $(mounted_below "$root" | tr '\n' ' ')"
		return 1
	fi
}
# remove_root PATH: rm -rf, but only when nothing is mounted below it,
# and never across a file system boundary.
remove_root() {
	[ -e "$1" ] || return 0
	if [ -n "$(mounted_below "$1")" ]; then
		say "refusing to remove $1: something is mounted below it"
		return 1
	fi
	rm -rf --one-file-system "$1"
}
trap 'unbind' EXIT
trap 'exit 130' INT TERM HUP

bind() {
	for m in proc dev dev/pts; do
		mountpoint -q "$root/$m" && continue
		mount --bind "/$m" "$root/$m" || return 1
	done
}
# in_root CMD...: CMD in the root, a clean environment.
in_root() {
	chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	    HOME=/root LANG=C.UTF-8 TERM="${TERM:-xterm}" DEBIAN_FRONTEND=noninteractive "$@"
}

# ------------------------------------------------------------ the root
t0=$(date +%s)
mkdir -p "$dir"
if [ -n "${TRIXIE_FRESH:-}" ]; then
	unbind || die "nothing is left mounted in the old root"
	remove_root "$root" || die "the old root is removed"
fi
if [ ! -x "$root/usr/bin/apt-get" ]; then
	remove_root "$root.new" || die "a half-made root is removed"
	say "debootstrap --variant=minbase trixie from $mirror"
	# a mirror that fails a download now and then gets a second try
	debootstrap --variant=minbase trixie "$root.new" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
	    { say "debootstrap failed; once more (the first try's log: $dir/debootstrap.log.1)" &&
	      mv "$dir/debootstrap.log" "$dir/debootstrap.log.1" && remove_root "$root.new" &&
	      debootstrap --variant=minbase trixie "$root.new" "$mirror" >"$dir/debootstrap.log" 2>&1; } ||
	    die "debootstrap trixie (see $dir/debootstrap.log)"
	mv "$root.new" "$root" || die "the new root is put in place"
fi
tap ok "a Debian 13 root in $root ($(cat "$root/etc/debian_version"))"
# the host's name resolves inside (sudo looks it up); the CAs the host
# added to its trust store (a proxy's) are trusted inside too (npm ci of
# the MCP SDK in test-serve)
cp /etc/hosts "$root/etc/hosts"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
mkdir -p "$root/usr/local/share/ca-certificates"
for c in /usr/local/share/ca-certificates/*.crt; do
	[ -f "$c" ] && cp "$c" "$root/usr/local/share/ca-certificates/"
done
bind || die "/proc, /dev and /dev/pts are bound into the root"
# shellcheck disable=SC2086
if [ "$(cat "$root/var/lib/warrant-trixie.packages" 2>/dev/null)" != "$(echo $packages)" ]; then
	say "apt-get install in the root"
	# shellcheck disable=SC2086
	in_root sh -c 'apt-get -o Acquire::Retries=3 update -qq &&
	    apt-get -o Acquire::Retries=3 install -y -qq --no-install-recommends "$@"' \
	    sh $packages >"$dir/apt.log" 2>&1 || die "the packages install in the root (see $dir/apt.log)"
	in_root apt-get clean
	# shellcheck disable=SC2086
	echo $packages >"$root/var/lib/warrant-trixie.packages"
fi
in_root update-ca-certificates >/dev/null 2>&1
tap ok "sudo $(in_root dpkg-query -W -f '${Version}' sudo), sudo-rs $(in_root dpkg-query -W -f '${Version}' sudo-rs) in the root ($(($(date +%s) - t0)) s)"
if [ -n "$root_only" ]; then
	echo "1..$n"
	echo "$passed passed, $failed failed"
	exit 0
fi

# ------------------------------------------------------------ the build
t0=$(date +%s)
remove_root "$root$src" || die "the old copy of the tree is removed"
mkdir -p "$root$src"
(cd "$top" && tar -cf - --exclude='./build*' --exclude=./.git .) |
    (cd "$root$src" && tar -xf -) || die "the tree is copied into the root"
# shellcheck disable=SC2086
in_root sh -c "cd $src && meson setup build-e2e --prefix=/opt/warrant-test \
    --buildtype=debugoptimized $(echo $e2e_opts) && ninja -C build-e2e -j2 warrant warrant-ui warrant-runner warrant-logship" \
    >"$dir/build.log" 2>&1 || die "warrant builds in the root (see $dir/build.log)"
tap ok "warrant builds in the root ($(($(date +%s) - t0)) s)"

# the root is the tests': what earlier runs left in its I/O log goes
# (test-answer writes 1 GiB there each time)
remove_root "$root/var/log/warrant-io" || die "the root's old I/O log is removed"

# ------------------------------------------------------------ which sudo
# use_sudo NAME: /usr/bin/sudo is Debian's sudo, or sudo-rs in its place
# (a local diversion keeps sudo's own binary aside).
use_sudo() {
	if [ "$1" = sudo-rs ]; then
		in_root sh -c '[ -L /usr/bin/sudo ] ||
		    { dpkg-divert --quiet --local --rename --divert /usr/bin/sudo.sudo --add /usr/bin/sudo &&
		      ln -s /usr/lib/cargo/bin/sudo /usr/bin/sudo; }'
	else
		in_root sh -c '[ ! -L /usr/bin/sudo ] ||
		    { rm -f /usr/bin/sudo && dpkg-divert --quiet --local --rename --remove /usr/bin/sudo; }'
	fi
}

# ------------------------------------------------------------ the suites
for s in $sudos; do
	use_sudo "$s" || die "/usr/bin/sudo is $s"
	ver=$(in_root /usr/bin/sudo -V 2>&1 | head -1)
	tap ok "/usr/bin/sudo is $s: $ver"
	list=
	for t in $suites; do list="$list tests/e2e/test-$t.sh"; done
	t0=$(date +%s)
	rc=0
	lock="flock /tmp/warrant-e2e.lock"
	[ "${WARRANT_E2E_LOCK_HELD:-}" = 1 ] && lock=
	# shellcheck disable=SC2086
	$lock chroot "$root" env -i \
	    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	    LANG=C.UTF-8 TERM="${TERM:-xterm}" NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
	    sh -c "date +WT-START=%s; cd $src && sh tests/run.sh --e2e build-e2e $list" \
	    >"$dir/$s.log" 2>&1 || rc=$?
	# every suite asked for reports, or the pass failed (a run cut short
	# reports nothing, which must not count as passing)
	seen=$(grep -c '^== e2e/test-' "$dir/$s.log")
	# shellcheck disable=SC2086
	want=$(set -- $suites; echo $#)
	if [ "$seen" -lt "$want" ]; then
		failed=$((failed + 1))
		tap "not ok" "trixie $s: $seen of $want suites reported (exit $rc; log: $dir/$s.log)"
	fi
	t1=$(sed -n 's/^WT-START=//p' "$dir/$s.log")
	say "$s: the suites took $(($(date +%s) - ${t1:-$t0})) s, after $((${t1:-$t0} - t0)) s waiting for the lock (log: $dir/$s.log)"
	# one TAP line per suite, the inner checks summed
	while IFS= read -r line; do
		case $line in
		"== "*": "*" passed, "*" failed"*)
			name=${line#== }
			name=${name%%: *}
			p=${line##*: }
			p=${p%% passed*}
			f=${line##*passed, }
			f=${f%% failed*}
			passed=$((passed + p))
			failed=$((failed + f))
			if [ "$f" -eq 0 ]; then tap ok "trixie $s $name: $p passed"
			else tap "not ok" "trixie $s $name: $p passed, $f failed"; fi
			;;
		"not ok"* | "#"*) say "$s: $line" ;;
		esac
	done <"$dir/$s.log"
done
use_sudo sudo
echo "1..$n"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
