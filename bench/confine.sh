#!/bin/sh
# SPDX-License-Identifier: ISC
# Benchmark 10 (bench/README.md): ROOT commands under the run-time
# supervisor against the same commands unconfined, side by side in one
# run: the kernel's floor (a notified getppid answered at once), tar -xzf
# of a 10,000-file archive into /opt, dpkg -i and apt-get install of a
# small local package, each with the supervisor's cost per call; the
# aims; and the lines of C linked into warrant-runner. Needs root.
# usage: sh bench/confine.sh BUILD_DIR
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/aim.sh"
build=$(cd "$1" && pwd)
runs=${BENCH_CONFINE_RUNS:-5}
echo "10. ROOT commands confined vs unconfined, $runs interleaved runs each"
# the root binary: the sources of the objects its link takes
# (bench/runner-lines.sh), and its resident floor: the peak RSS of a
# start that refuses at once (no SUDO_UID), its libraries loaded
set -- $(sh "$top/bench/runner-lines.sh" "$build") || exit 1
echo "  warrant-runner links $1 lines of C in $2 files (its link's objects; bench/runner-lines.sh -v lists them)"
# the layout: circles of calls between the files of one folder
sh "$top/bench/circles.sh" "$build"
if [ -x /usr/bin/time ]; then
	floor=$(env -i /usr/bin/time -f %M "$build/warrant-runner" --manifest /nonexistent \
	    --expected-sha256 x 2>&1 >/dev/null | tail -n 1)
	echo "  warrant-runner peak RSS refusing at once (libraries and start-up): $floor KiB" \
	    "(under an output flood: benchmark 5)"
else
	echo "  warrant-runner peak RSS at start: not measured (no GNU time, /usr/bin/time)"
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "  skipped: needs root"
	exit 0
fi
work=$(mktemp -d /tmp/warrant-bench-confine.XXXXXX) || exit 1
trap 'umount "$work/tmpfs" 2>/dev/null; rm -rf "$work" /opt/wt-bench-confine; dpkg -P wt-bench-confine >/dev/null 2>&1' EXIT
cc -O2 -D_GNU_SOURCE -I"$build" -I"$top/src/root" -o "$work/confine" "$top/bench/confine.c" \
    "$build/libwarrantroot.a" -ljansson -lcrypto || exit 1
mkdir -p "$work/tree/d" /opt/wt-bench-confine
i=0
while [ $i -lt 100 ]; do
	mkdir "$work/tree/d/$i"
	j=0
	while [ $j -lt 100 ]; do : >"$work/tree/d/$i/$j"; j=$((j + 1)); done
	i=$((i + 1))
done
tar -czf "$work/a.tgz" -C "$work/tree" d
# confine's lines, and on its "=" lines the aims: per call within twice
# the floor (SYNC_WAKE_UP's where the kernel has it), tar within 3.5x,
# the package installs within 1.2x
figures() {
	while IFS= read -r line; do
		case $line in
		"= "*)
			set -- ${line#= }
			label=$1 ratio=$2 per_call=$3
			case $label in tar*) limit=3.5 ;; *) limit=1.2 ;; esac
			echo "  $label: confined/unconfined $ratio, $(aim "$ratio" le "$limit" x)"
			if [ -n "$rtt" ]; then
				echo "  $label: per call $per_call us against the floor $rtt us" \
				    "($(awk -v p="$per_call" -v f="$rtt" 'BEGIN { printf "%.1f", p / f }')x)," \
				    "$(aim "$(awk -v p="$per_call" -v f="$rtt" 'BEGIN { print p / f }')" le 2 x)"
				[ -n "$judge" ] && [ -n "$syscalls" ] && awk -v l="$label" -v p="$per_call" \
				    -v r="$rtt" -v j="$judge" -v n="$syscalls" 'BEGIN {
				    c = j / 17; k = r + (n - 2) * c
				    printf "  %s: of which the kernel: round trip %.1f + %.1f system calls (besides receive and answer) at %.2f us = %.1f us; the rest %.1f us\n", l, r, n - 2, c, k, p - k }'
			fi
			;;
		*) echo "$line" ;;
		esac
	done
}
out=$("$work/confine" floor 20000)
echo "$out" | grep -v '^='
set -- $(echo "$out" | sed -n 's/^= floor //p')
rtt=${3:-}
case $rtt in -*) rtt=${2:-} ;; esac
judge=${4:-}
case $judge in -*) judge= ;; esac
# LABEL CMD...: the runs, and first, where strace is, one more confined
# run with the supervising process under strace -c (not what it runs):
# the system calls it made per call received, for the line that splits
# the cost per call into the kernel's and the rest (a system call costs
# what one of the judgement's 17 cost alone, on average)
measure() {
	label=$1
	shift
	syscalls=
	if command -v strace >/dev/null 2>&1; then
		got=$(strace -c -o "$work/strace" "$work/confine" 1 "$label" "$@" |
		    sed -n 's/.* \([0-9][0-9]*\) calls received.*/\1/p')
		total=$(awk '$NF == "total" { print (NF >= 6 ? $(NF - 2) : $(NF - 1)) }' "$work/strace")
		[ -n "$got" ] && [ "$got" -gt 0 ] && [ -n "$total" ] &&
		    syscalls=$(awk -v t="$total" -v c="$got" 'BEGIN { printf "%.1f", t / c }') &&
		    echo "  $label: the supervisor made $syscalls system calls per call received (strace -c, one run)"
	fi
	"$work/confine" "$runs" "$label" "$@" | figures
}
measure tar /bin/tar -xzf "$work/a.tgz" -C /opt/wt-bench-confine
# the same into a tmpfs: no filesystem state (ext4's recently deleted
# inodes) moves the unconfined figure from run to run
mkdir "$work/tmpfs"
if mount -t tmpfs -o size=256m,mode=0755 tmpfs "$work/tmpfs"; then
	measure tar-tmpfs /bin/tar -xzf "$work/a.tgz" -C "$work/tmpfs"
fi
# the hostile requester beside a confined tar: nothing of its gets through
breach=0
sh "$top/bench/hostile.sh" "$build" "$work/confine" || breach=1
mkdir -p "$work/pkg/DEBIAN" "$work/pkg/opt/wt-bench-confine/pkg"
printf 'Package: wt-bench-confine\nVersion: 1\nArchitecture: all\nMaintainer: bench <b@example.org>\nDescription: benchmark\n' \
    >"$work/pkg/DEBIAN/control"
i=0
while [ $i -lt 200 ]; do echo "$i" >"$work/pkg/opt/wt-bench-confine/pkg/$i"; i=$((i + 1)); done
dpkg-deb -b "$work/pkg" "$work/p.deb" >/dev/null || exit 1
measure dpkg /usr/bin/dpkg -i "$work/p.deb"
measure apt-get /usr/bin/apt-get install -y -q --reinstall "$work/p.deb"
# a breach fails the benchmark: it is not a figure
exit $breach
