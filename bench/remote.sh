#!/bin/sh
# SPDX-License-Identifier: ISC
# Remote-machine benchmark for warrant (bench/README.md, benchmark 9),
# called from bench/run.sh; it prints figures next to its aim and asserts
# nothing. Needs root: it creates a throwaway user (reviewer and target
# at once, with an ssh key authorized for itself and a NOPASSWD sudoers
# drop-in, so that only warrant's own work and ssh are timed), starts an
# sshd of its own on 127.0.0.1 (throwaway host key, free port), and
# removes all of it on exit.
#
# It times, in a pseudo-terminal (script(1)), per round:
#   (a) `warrant answer ID --run` of a 3-command ROOT batch on the
#       enrolled machine (stage, run under the target's sudo, fetch);
#   (b) `warrant request` of that batch (the target resolves and hashes);
#   (c) the same 3 commands as 3 plain `ssh -t target sudo -n CMD`;
# and counts the ssh connections each makes (sshd's "Accepted" lines).
# usage: sh bench/remote.sh BUILD_DIR
# Environment: BENCH_REMOTE_RUNS (rounds, default 10), BENCH_REMOTE_USER
# (default wt-bench-remote; it must not exist), BENCH_NO_INSTALL=1 (skip
# instead of installing the build when the installed runner differs),
# BENCH_KEEP=1 (keep the temporary directory).
set -eu
build=$(cd "${1:-build}" && pwd)
runs=${BENCH_REMOTE_RUNS:-10}
user=${BENCH_REMOTE_USER:-wt-bench-remote}
dropin=/etc/sudoers.d/$user

skip() {
	echo "  skipped: $*"
	exit 0
}

echo "9. remote approval of a 3-command ROOT batch vs 3 plain ssh -t target sudo -n CMD"
[ "$(id -u)" -eq 0 ] || skip "needs root (a user, a sudoers drop-in and an sshd of its own)"
[ -x /usr/sbin/sshd ] || skip "openssh-server is not installed (make deps)"
for p in ssh ssh-keygen bash sudo setpriv script useradd userdel visudo python3; do
	command -v "$p" >/dev/null 2>&1 || skip "$p is required"
done
runner=$(sed -n 's/^#define WARRANT_RUNNER_PATH "\(.*\)"$/\1/p' "$build/config.h")
if ! cmp -s "$build/warrant-runner" "$runner" 2>/dev/null; then
	[ "${BENCH_NO_INSTALL:-0}" != 1 ] ||
	    skip "$runner is not the build's runner (BENCH_NO_INSTALL=1)"
	(umask 022 && meson install -C "$build" --no-rebuild >/dev/null) ||
	    { echo "bench: meson install failed" >&2; exit 1; }
fi
id "$user" >/dev/null 2>&1 && skip "user $user already exists (userdel $user, or set BENCH_REMOTE_USER)"
[ ! -e "$dropin" ] || skip "$dropin already exists"

home=$(mktemp -d /tmp/warrant-bench-remote.XXXXXX)
made_user=0 sshd_pid=""
cleanup() {
	set +e
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
	rm -f "$dropin"
	if [ "$made_user" = 1 ]; then
		for p in $(pgrep -u "$user" 2>/dev/null); do kill "$p" 2>/dev/null; done
		userdel "$user" 2>/dev/null || echo "bench: userdel $user failed" >&2
		! getent group "$user" >/dev/null || groupdel "$user" 2>/dev/null
	fi
	if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "bench: kept $home"; else rm -rf "$home"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

chmod 755 "$home"
useradd -M -d "$home/u" -s /bin/sh -U "$user"
made_user=1
install -d -m 0700 -o "$user" -g "$user" "$home/u" "$home/u/.ssh" "$home/u/state"
printf '%s ALL=(ALL:ALL) NOPASSWD: ALL\n' "$user" >"$home/sudoers.tmp"
visudo -cqf "$home/sudoers.tmp" || { echo "bench: the drop-in does not parse" >&2; exit 1; }
install -m 0440 "$home/sudoers.tmp" "$dropin"
install -d -m 0755 "$home/bin"
install -m 0755 "$build/warrant" "$home/bin/warrant"
warrant=$home/bin/warrant

as() {
	setpriv --reuid="$user" --regid="$user" --init-groups \
	    env -i HOME="$home/u" USER="$user" LOGNAME="$user" SHELL=/bin/sh \
	    PATH=/usr/bin:/bin LANG=C TERM=xterm WARRANT_HOME="$home/u/state" "$@"
}
as ssh-keygen -q -t ed25519 -N '' -f "$home/u/.ssh/id_ed25519"
cp "$home/u/.ssh/id_ed25519.pub" "$home/authorized_keys"
chmod 644 "$home/authorized_keys"
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$home/host_key"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$home/sshd_config" <<CFG
ListenAddress 127.0.0.1
Port $port
HostKey $home/host_key
PidFile $home/sshd.pid
AuthorizedKeysFile $home/authorized_keys
StrictModes no
UsePAM yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AllowUsers $user
PrintMotd no
LogLevel INFO
CFG
# readable by the timed loop, which counts the connections in it
: >"$home/sshd.log"
chmod 644 "$home/sshd.log"
/usr/sbin/sshd -f "$home/sshd_config" -E "$home/sshd.log"
i=0
while [ ! -s "$home/sshd.pid" ]; do i=$((i + 1)); [ $i -le 50 ] || exit 1; sleep 0.1; done
sshd_pid=$(cat "$home/sshd.pid")
dest="ssh://$user@127.0.0.1:$port"
as "$warrant" machine add bench "$dest" --warrant "$warrant" >/dev/null ||
    { echo "bench: machine add failed" >&2; exit 1; }
# the baseline's ssh: the same pinned key, no connection sharing
ssh_base="ssh -t -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$home/u/state/known_hosts -o HostKeyAlias=bench -o ControlMaster=no -o ControlPath=none -o LogLevel=ERROR -p $port -l $user 127.0.0.1"

cat >"$home/req.json" <<'JSON'
{"reason": "bench", "machine": "bench", "gate_timeout_seconds": 3600,
 "commands": [{"id": "c1", "argv": ["/usr/bin/true"], "why": "bench"},
  {"id": "c2", "argv": ["/usr/bin/id", "-u"], "why": "bench"},
  {"id": "c3", "argv": ["/usr/bin/uname", "-a"], "why": "bench"}]}
JSON
chmod 644 "$home/req.json"

cat >"$home/inner.bash" <<'EOF2'
set -u
warrant=$1 dir=$2 runs=$3 base=$4
res=$dir/results
: >"$res"
us() { local t=${1/./}; echo $((10#$t)); }
acc() { grep -c 'Accepted publickey' "$dir/sshd.log"; }
for ((r = 0; r <= runs; r++)); do
	a0=$(acc)
	t0=$EPOCHREALTIME
	id=$("$warrant" request <"$dir/req.json" | sed -n 's/^{"request_id":"\([^"]*\)".*/\1/p')
	t1=$EPOCHREALTIME
	a1=$(acc)
	"$warrant" answer "$id" --run -j >"$dir/answer-$r.json" 2>"$dir/answer-$r.err"
	rc=$?
	t2=$EPOCHREALTIME
	a2=$(acc)
	grep -q '"outcome":"completed"' "$dir/answer-$r.json" || rc=1
	rc3=0
	t3=$EPOCHREALTIME
	$base sudo -n /usr/bin/true || rc3=1
	$base sudo -n /usr/bin/id -u >/dev/null || rc3=1
	$base sudo -n /usr/bin/uname -a >/dev/null || rc3=1
	t4=$EPOCHREALTIME
	a3=$(acc)
	if ((r > 0)); then
		echo "request $(($(us "$t1") - $(us "$t0"))) 0 $((a1 - a0))"
		echo "answer $(($(us "$t2") - $(us "$t1"))) $rc $((a2 - a1))"
		echo "ssh $(($(us "$t4") - $(us "$t3"))) $rc3 $((a3 - a2))"
	fi >>"$res"
done
EOF2
chmod 644 "$home/inner.bash"
chown "$user" "$home"
as script -qec "bash $home/inner.bash $warrant $home $runs '$ssh_base'" /dev/null \
    </dev/null >"$home/pty.log" 2>&1 || true
[ -s "$home/results" ] || { echo "bench: no results (see $home/pty.log)" >&2; BENCH_KEEP=1; exit 1; }
python3 - "$home/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, us, rc, n = line.split()
    rows.setdefault(k, []).append((int(us) / 1000, int(rc), int(n)))
def fig(k):
    v = rows.get(k, [])
    t = [x[0] for x in v]
    bad = sum(1 for x in v if x[1] != 0)
    conns = sorted(set(x[2] for x in v))
    return statistics.median(t), min(t), max(t), bad, conns, len(v)
for k, label in (("answer", "warrant answer --run (3 ROOT on the machine)"),
                 ("ssh", "3 x ssh -t target sudo -n CMD"),
                 ("request", "warrant request (resolved on the machine)")):
    med, lo, hi, bad, conns, n = fig(k)
    print("  %-46s median %7.1f ms (min %.1f, max %.1f; %d runs, %d failed); ssh connections %s"
          % (label, med, lo, hi, n, bad, "/".join(map(str, conns))))
a, s = fig("answer")[0], fig("ssh")[0]
print("  approval overhead: answer / plain ssh = %.2fx (aim <= 1.5x)" % (a / s))
PY
