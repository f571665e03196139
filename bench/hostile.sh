#!/bin/sh
# SPDX-License-Identifier: ISC
# Benchmark 10's last part (bench/README.md): the hostile requester
# (tests/e2e/hostile.c) runs beside a confined tar, as the user the
# harness judges against (nobody, 65534). The archive holds a directory
# of root's (x/) and a shared one (x/shared, 0777) in which the hostile
# requester swaps its entries with RENAME_EXCHANGE, plants links to a
# root-only directory, and holds its files open for writing, without
# ever sleeping. Nothing of its may get through: the root-only directory
# and its file unchanged, every file tar made in x/ root's own with the
# archive's content, the canary in no file of root's. Prints the confined runs' figures, the hostile requester's
# counts and the verdict; exits 1 when something got through.
# usage: sh bench/hostile.sh BUILD_DIR CONFINE (the harness of confine.c)
set -u
build=$1 confine=$2
runs=${BENCH_CONFINE_RUNS:-5}
if [ ! -x "$build/wt-hostile" ] || ! command -v setpriv >/dev/null 2>&1; then
	echo "  hostile: skipped (needs $build/wt-hostile and setpriv)"
	exit 0
fi
h=$(mktemp -d /tmp/wt-bench-hostile.XXXXXX) || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$h"' EXIT
chmod 0755 "$h"
canary=HOSTILE-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
printf '%s' "$canary" >"$h/canary"
cp "$build/wt-hostile" "$h/wt-hostile"
chmod 0644 "$h/canary"
chmod 0755 "$h/wt-hostile"
# what its links point at: root's directory and root-only file
install -d -m 0700 "$h/victim"
printf 'root-only\n' >"$h/victim/v"
chmod 0600 "$h/victim/v"
install -d -o 65534 -g 65534 -m 0755 "$h/its"
mkdir -p "$h/src/x/shared" "$h/out"
chmod 0777 "$h/src/x/shared"
i=0
while [ $i -lt 200 ]; do
	echo "reviewed $i" >"$h/src/x/a$i"
	echo "shared $i" >"$h/src/x/shared/s$i"
	i=$((i + 1))
done
tar -czf "$h/a.tgz" --owner=root --group=root -C "$h/src" x
setpriv --reuid=65534 --regid=65534 --clear-groups nice -n 10 "$h/wt-hostile" \
    -o "$h/its/status" -c "$h/canary" -l "$h/victim" -p "$h/its/payload" -e "$h/src" \
    -w "$h/out/x/shared" -H "$h/out/x/shared" </dev/null >/dev/null 2>&1 &
pid=$!
i=0
while [ ! -s "$h/its/status" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
# entries of the shared directory are refused (the hostile requester may
# replace them), so tar exits 2: the harness's WARNING line says so
"$confine" "$runs" tar-hostile /bin/tar -xzf "$h/a.tgz" -C "$h/out" | grep -v '^='
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
echo "  tar-hostile  the hostile requester: $(cat "$h/its/status" 2>/dev/null)"
bad=
[ "$(cat "$h/victim/v")" = root-only ] || bad="$bad the root-only file changed;"
[ "$(ls -A "$h/victim")" = v ] || bad="$bad the root-only directory has new entries;"
[ "$(stat -c %a "$h/victim")" = 700 ] || bad="$bad the root-only directory's mode changed;"
i=0
while [ $i -lt 200 ]; do
	f=$h/out/x/a$i
	if [ -L "$f" ] || [ ! -f "$f" ] || [ "$(stat -c %u "$f")" != 0 ] ||
	    [ "$(cat "$f")" != "reviewed $i" ]; then
		bad="$bad x/a$i is not the archive's;"
		break
	fi
	i=$((i + 1))
done
find "$h/out" "$h/victim" -type f -user 0 -exec grep -lF "$canary" {} + 2>/dev/null |
    grep -q . && bad="$bad the canary is in a file of root's;"
if [ -n "$bad" ]; then
	echo "  tar-hostile  FAILED: something of the hostile requester's got through:$bad"
	exit 1
fi
echo "  tar-hostile  nothing of the hostile requester's got through (the root-only" \
    "directory and file unchanged, x/ the archive's, no canary in a file of root's)"
