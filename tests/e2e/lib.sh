# Shared helpers for the end-to-end tests (POSIX sh, TAP output).
# Each test script: . "$WARRANT_TOP/tests/e2e/lib.sh", then ok/not_ok, then done_testing.
set -u
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
# check DESC COMMAND...: ok when the command succeeds.
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
done_testing() { echo "1..$n"; }
diag() { echo "# $*"; }

# A copy of the built binaries that any user can execute, outside the
# (possibly private) build tree.
setup_bin() {
	WT_DIR=$(mktemp -d /tmp/warrant-e2e.XXXXXX)
	chmod 755 "$WT_DIR"
	mkdir -p "$WT_DIR/bin"
	chmod 755 "$WT_DIR/bin"
	cp "$WARRANT_BUILD/warrant" "$WT_DIR/bin/warrant"
	chmod 755 "$WT_DIR/bin/warrant"
	W="$WT_DIR/bin/warrant"
}

# The non-root requester the tests act as: created when running as root,
# otherwise the current user.
setup_requester() {
	if [ "$(id -u)" -eq 0 ]; then
		REQ=wt-requester
		id "$REQ" >/dev/null 2>&1 || useradd -m -s /bin/sh "$REQ" || return 1
		REQ_HOME=$(getent passwd "$REQ" | cut -d: -f6)
	else
		REQ=$(id -un)
		REQ_HOME=$HOME
	fi
}

# as_req CMD...: run as the requester with a clean environment and the
# test's state directory.
as_req() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid="$REQ" --regid="$(id -g "$REQ")" --init-groups \
		    env -i HOME="$REQ_HOME" PATH=/usr/bin:/bin LANG=C \
		    WARRANT_HOME="${WARRANT_HOME_REQ:-$REQ_HOME/.wt-state}" "$@"
	else
		env WARRANT_HOME="${WARRANT_HOME_REQ:-$REQ_HOME/.wt-state}" "$@"
	fi
}

cleanup_bin() { rm -rf "$WT_DIR"; }
