#!/bin/sh
# SPDX-License-Identifier: ISC
# make install's record, and make uninstall (docs/setup.md, "Taking it
# down"). meson install writes BUILD/meson-logs/install-log.txt: every
# file it installed and every directory it had to create, as absolute
# paths with DESTDIR. Installing again over an install logs no directory
# (they exist by then), so each make install adds its log to
# BUILD/install-manifest.txt, and uninstall works from that: the files
# under DESTDIR+PREFIX, then the directories an install created, deepest
# first, each only once it is empty. Nothing else is touched.
#
# usage: scripts/uninstall.sh --record BUILD   (make install, after meson install)
#        scripts/uninstall.sh BUILD DESTDIR PREFIX   (make uninstall)
set -eu

if [ "${1:-}" = --record ]; then
	log=$2/meson-logs/install-log.txt
	manifest=$2/install-manifest.txt
	[ -f "$log" ] || { echo "uninstall: no $log after meson install" >&2; exit 1; }
	{ [ ! -f "$manifest" ] || cat "$manifest"; grep -v '^#' "$log"; } |
	    LC_ALL=C sort -u >"$manifest.tmp"
	mv -f "$manifest.tmp" "$manifest"
	exit 0
fi

[ $# -eq 3 ] || { echo "usage: scripts/uninstall.sh BUILD DESTDIR PREFIX" >&2; exit 2; }
build=$1
manifest=$build/install-manifest.txt
case $3 in
/*) ;;
*) echo "uninstall: PREFIX must be an absolute path, not '$3'" >&2; exit 2 ;;
esac
# DESTDIR + PREFIX as meson joins them, without a trailing slash.
root=${2%/}$3
root=${root%/}
if [ ! -d "$build" ]; then
	echo "uninstall: no directory $build: make uninstall needs the BUILD" \
	    "directory make install used (make uninstall BUILD=DIR)" >&2
	exit 1
fi
if [ ! -f "$manifest" ]; then
	echo "uninstall: nothing recorded in $manifest (nothing was installed" \
	    "from $build, or it was uninstalled already): nothing to remove"
	exit 0
fi

# mine PATH: PATH is DESTDIR+PREFIX or lies under it.
mine() { case $1 in "$root" | "$root"/*) return 0 ;; esac; return 1; }

files=0 dirs=0
while IFS= read -r p; do
	mine "$p" || continue
	if [ -L "$p" ] || { [ -e "$p" ] && [ ! -d "$p" ]; }; then
		rm -f -- "$p"
		echo "removed $p"
		files=$((files + 1))
	fi
done <"$manifest"
# The directories an install created, deepest first; one that holds
# something else now stays.
set -f
IFS='
'
for p in $(awk -F/ '{ print NF "\t" $0 }' "$manifest" | LC_ALL=C sort -rn | cut -f2-); do
	mine "$p" && [ -d "$p" ] && [ ! -L "$p" ] || continue
	if rmdir -- "$p" 2>/dev/null; then
		echo "removed directory $p"
		dirs=$((dirs + 1))
	else
		echo "kept directory $p (it holds what make install did not put there)"
	fi
done
# What was installed elsewhere (another DESTDIR or PREFIX) stays recorded.
while IFS= read -r p; do mine "$p" || printf '%s\n' "$p"; done <"$manifest" >"$manifest.tmp"
if [ -s "$manifest.tmp" ]; then mv -f "$manifest.tmp" "$manifest"; else rm -f "$manifest.tmp" "$manifest"; fi
if [ "$files" -eq 0 ] && [ "$dirs" -eq 0 ]; then
	echo "uninstall: nothing of warrant's is installed under $root"
else
	echo "uninstall: removed $files files and $dirs directories under $root"
fi
