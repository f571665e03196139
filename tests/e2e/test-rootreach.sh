#!/bin/sh
# SPDX-License-Identifier: ISC
# Promise 8 at request time, asked by a non-root requester: root reaches
# nothing the requester can change. A relative symbolic link target is
# judged from the link's directory (where the kernel resolves it), in
# every spelling of ln -s and cp -s; a process the requester owns, or one
# that is not there, is not entered or attached to (requester_process);
# a directory writable only through the requester's 290th group is
# changeable (no group list is cut short); a reviewed tar archive with a
# world-writable directory is badged.
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "needs root to create the requester, its groups and root-owned fixtures"

NG=300
GP=wtrg$$-		# per-run names: NG throwaway groups
FX=
RPID=
SPID=
cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	[ -n "$FX" ] && rm -rf "$FX"
	i=1
	while [ "$i" -le "$NG" ]; do
		groupdel "$GP$i" 2>/dev/null
		i=$((i + 1))
	done
}
requester_fixture
at_exit cleanup
use_state r

mkdir -p /opt
FX=$(mktemp -d /opt/wt-e2e-reach.XXXXXX)
chmod 755 "$FX"
mkdir -p "$FX/etc/profile.d" "$FX/usr/share/doc"
chmod -R 755 "$FX/etc" "$FX/usr"
mkdir "$FX/tmp" && chmod 1777 "$FX/tmp"
C0='$.commands[0]'
DOC="\"cwd\":\"$FX/usr/share/doc\""

diag "writable_argument: a relative symlink target is judged from the link's directory"
# From the cwd $FX/usr/share/doc, ../../tmp/helper.sh is $FX/usr/tmp/...,
# which nobody may create; from $FX/etc/profile.d it is $FX/tmp/helper.sh,
# in a sticky world-writable directory the requester may create it in.
refused writable_argument "$C0.argv[2]" "ln -s ../../tmp/helper.sh DIR/helper.sh" \
    "$(req1 "[\"ln\",\"-s\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\"]" '' "$DOC")"
grep -q "$FX/tmp/helper.sh" "$WT_T/out"
check "the refusal names the target as the kernel resolves it" [ $? -eq 0 ]
refused writable_argument "$C0.argv[2]" "ln -sf" \
    "$(req1 "[\"ln\",\"-sf\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\"]" '' "$DOC")"
refused writable_argument "$C0.argv[2]" "ln --symbolic" \
    "$(req1 "[\"ln\",\"--symbolic\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\"]" '' "$DOC")"
refused writable_argument "$C0.argv[1]" "ln TARGET LINK -s (options permuted)" \
    "$(req1 "[\"ln\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\",\"-s\"]" '' "$DOC")"
refused writable_argument "$C0.argv[4]" "ln -s -t DIR TARGET" \
    "$(req1 "[\"ln\",\"-s\",\"-t\",\"$FX/etc/profile.d\",\"../../tmp/helper.sh\"]" '' "$DOC")"
refused writable_argument "$C0.argv[3]" "ln -s --target-directory=DIR TARGET" \
    "$(req1 "[\"ln\",\"-s\",\"--target-directory=$FX/etc/profile.d\",\"../../tmp/helper.sh\"]" '' "$DOC")"
refused writable_argument "$C0.argv[2]" "ln -s TARGET DIR (the link is DIR/helper.sh)" \
    "$(req1 "[\"ln\",\"-s\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d\"]" '' "$DOC")"
refused writable_argument "$C0.argv[2]" "cp -s TARGET LINK" \
    "$(req1 "[\"cp\",\"-s\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\"]" '' "$DOC")"
refused writable_argument "$C0.argv[2]" "cp --symbolic-link TARGET LINK" \
    "$(req1 "[\"cp\",\"--symbolic-link\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\"]" '' "$DOC")"
refused writable_argument "$C0.argv[4]" "timeout 5 ln -s TARGET LINK" \
    "$(req1 "[\"timeout\",\"5\",\"ln\",\"-s\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\"]" '' "$DOC")"
refused writable_argument "$C0.argv[2]" "ln -s /tmp/x DIR/x (an absolute target in /tmp)" \
    "$(req1 "[\"ln\",\"-s\",\"/tmp/wt-e2e-reach-$$\",\"$FX/etc/profile.d/x\"]")"
accepted "ln -s ../../usr/share/doc DIR/doc (root's)" \
    "$(req1 "[\"ln\",\"-s\",\"../../usr/share/doc\",\"$FX/etc/profile.d/doc\"]" '' "$DOC")"
accepted "ln -sr ../../tmp/helper.sh (relative to the cwd: $FX/usr/tmp)" \
    "$(req1 "[\"ln\",\"-sr\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\"]" '' "$DOC")"
accepted "ln (hard) ../../tmp/helper.sh: judged from the cwd" \
    "$(req1 "[\"ln\",\"../../tmp/helper.sh\",\"$FX/etc/profile.d/helper.sh\"]" '' "$DOC")"

diag "requester_process: root enters or attaches to no process the requester controls"
as_req sleep 300 &
wait_for '[ -n "$(pgrep -u "$REQ" -n -x sleep)" ]' 30
RPID=$(pgrep -u "$REQ" -n -x sleep)
sleep 300 &
SPID=$!
check "a process of the requester is running" [ -n "$RPID" ]
for form in "nsenter -t # -m true" "nsenter -t# -a true" "nsenter --target=# true" \
    "nsenter --target # true" "nsenter -mt # true" "nsenter --wd -t # true" \
    "nsenter -w -t # true" "strace -p #" "strace -fp #" "strace --attach=#" "strace -p 1,#" \
    "timeout 5 strace -p#" "gcore #" "gdb -p #" "gdb --pid=#" "gdb /usr/bin/true #" \
    "perf record -p #" "ltrace -p #" "criu dump -t #" "eu-stack -p #" "pstack #" \
    "cat /proc/#/environ"; do
	argv=$(printf '%s' "$form" | sed "s/#/$RPID/g" | "$PY" -c 'import json,sys; print(json.dumps(sys.stdin.read().split()))')
	# refused at the word that names the process
	at=$(printf '%s' "$form" | "$PY" -c 'import sys; print([i for i, w in enumerate(sys.stdin.read().split()) if "#" in w][0])')
	prog=${form%% *}
	[ "$prog" = timeout ] && prog=strace
	if command -v "$prog" >/dev/null 2>&1; then
		refused requester_process "$C0.argv[$at]" "$form (the requester's process)" "$(req1 "$argv")"
	else
		skip "$form (the requester's process)" "$prog is not installed"
	fi
done
grep -q "belongs to the requester" "$WT_T/out"
check "the refusal says whose process it is" [ $? -eq 0 ]
refused requester_process "$C0.argv[2]" "nsenter -t PID of no process" \
    "$(req1 '["nsenter","-t","999999999","-m","true"]')"
refused requester_process "$C0.argv[2]" "nsenter -t NOTANUMBER" \
    "$(req1 '["nsenter","-t","self","-m","true"]')"
refused requester_process "$C0.argv[1]" "nsenter -a with no target" \
    "$(req1 '["nsenter","-a","true"]')"
accepted "nsenter -t PID of a root process" "$(req1 "[\"nsenter\",\"-t\",\"$SPID\",\"-m\",\"true\"]")"
accepted "strace -p PID of a root process" "$(req1 "[\"strace\",\"-p\",\"$SPID\"]")"
accepted "strace running a program whose own -p names the requester's process" \
    "$(req1 "[\"strace\",\"-o\",\"/var/log/wt-e2e-x\",\"/usr/bin/true\",\"-p\",\"$RPID\"]")"

diag "writable_argument: every group counts ($NG groups, a directory of the 290th)"
i=1
list=
while [ "$i" -le "$NG" ]; do
	groupadd "$GP$i" || bail "group $GP$i is created"
	list="$list${list:+,}$GP$i"
	i=$((i + 1))
done
usermod -a -G "$list" "$REQ" || bail "the requester joins $NG groups"
# (not n: lib.sh numbers the results with it)
ngroups=$(as_req id -G | wc -w)
check "the requester's process has more than $NG groups ($ngroups)" [ "$ngroups" -gt "$NG" ]
mkdir "$FX/g290" && chgrp "$GP"290 "$FX/g290" && chmod 775 "$FX/g290"
mkdir "$FX/g300" && chgrp "$GP"300 "$FX/g300" && chmod 755 "$FX/g300"
refused writable_argument "$C0.argv[1]" "a path in a directory writable through group 290" \
    "$(req1 "[\"true\",\"$FX/g290/conf\"]")"
accepted "the same in a directory of group 300 that its group may not write" \
    "$(req1 "[\"true\",\"$FX/g300/conf\"]")"

diag "archive-writable-dir: a reviewed tar archive with a world-writable directory"
tarb64() {
	"$PY" -c '
import base64, io, sys, tarfile
b = io.BytesIO()
with tarfile.open(fileobj=b, mode="w", format=tarfile.USTAR_FORMAT) as t:
    for name, mode in (("srv/", 0o755), ("srv/site/", int(sys.argv[1], 8))):
        i = tarfile.TarInfo(name.rstrip("/")); i.type = tarfile.DIRTYPE; i.mode = mode
        t.addfile(i)
    data = b"hello\n"
    i = tarfile.TarInfo("srv/site/index.html"); i.size = len(data); i.mode = 0o644
    t.addfile(i, io.BytesIO(data))
print(base64.b64encode(b.getvalue()).decode())' "$1"
}
files="\"files\":{\"site\":{\"content\":\"$(tarb64 0777)\",\"encoding\":\"base64\"}}"
accepted "tar -xf an inline archive with a 0777 directory" \
    "$(req1 '["tar","-xf",{"file":"site"},"-C","/srv"]' '' "$files")"
check "archive-writable-dir badge" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if "archive-writable-dir" in d["risk_badges"] and "archive-writable-dir" in d["commands"][0]["badges"] else 1)' "$WT_T/desc"
files="\"files\":{\"site\":{\"content\":\"$(tarb64 0755)\",\"encoding\":\"base64\"}}"
accepted "tar -xf an inline archive of 0755 directories" \
    "$(req1 '["tar","-xf",{"file":"site"},"-C","/srv"]' '' "$files")"
check "no archive-writable-dir badge" "$PY" -c '
import json, sys
sys.exit(0 if "archive-writable-dir" not in json.load(open(sys.argv[1]))["risk_badges"] else 1)' "$WT_T/desc"

done_testing
