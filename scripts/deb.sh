#!/bin/sh
# SPDX-License-Identifier: ISC
# Build the Debian package (make deb): copy the source tree (the files git
# tracks, and new ones it does not ignore) to DIR/warrant-VERSION, build it
# there with dpkg-buildpackage -us -uc -b, so that the tree gets no build
# litter and the results land in DIR rather than in the tree's parent, and
# copy warrant_VERSION_ARCH.deb to the top of the tree. The version is
# debian/changelog's, which must be meson.build's.
# usage: scripts/deb.sh [DIR]   (default build-deb)
# DEB_BUILD_OPTIONS is honoured (nocheck skips the unit tests); DEB_JOBS
# is dpkg-buildpackage's -J (default auto: as many jobs as processors).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-build-deb}
case $out in /*) ;; *) out="$top/$out" ;; esac

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
project=$(sed -n "s/^  version : '\([^']*\)',\$/\1/p" "$top/meson.build")
if [ "$version" != "$project" ]; then
	echo "deb: debian/changelog is at $version, meson.build at $project:" \
	    "add a changelog entry (dch -v $project)" >&2
	exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
deb="warrant_${version}_${arch}.deb"
src="$out/warrant-$version"

rm -rf "$out"
mkdir -p "$src"
cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# --ignore-failed-read: a tracked file deleted in the tree is left out.
	git ls-files -z --cached --others --exclude-standard |
	    tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$src"
else
	tar --exclude=./.git --exclude='./build*' --exclude=node_modules \
	    --exclude='./*.deb' -cf - . | tar -xf - -C "$src"
fi
[ -f "$src/debian/rules" ] || { echo "deb: copying the tree to $src failed" >&2; exit 1; }

# DEB_SOURCE=1 (tests/deb/test-deb.sh, for lintian): the source package
# too, DIR/warrant_VERSION.dsc, from the tree before it is built.
if [ -n "${DEB_SOURCE:-}" ]; then
	(cd "$out" && dpkg-source -b "warrant-$version")
fi
(cd "$src" && dpkg-buildpackage -us -uc -b -J"${DEB_JOBS:-auto}")
cp "$out/$deb" "$top/$deb"
echo "deb: $top/$deb"
