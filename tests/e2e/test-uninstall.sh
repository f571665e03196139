#!/bin/sh
# SPDX-License-Identifier: ISC
# make install, then make uninstall with the same settings, in a throwaway
# prefix and build directory: uninstall removes every file install placed
# and every directory it created, saying each, and nothing else (a file
# that was in the prefix before, and its directory, stay); an install over
# an install is undone as wholly as one; uninstall with another PREFIX, or
# a second time, removes nothing and says so. The build is made first with
# ninja -j2 (unoptimised: only what is installed matters), so that make
# install only installs.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-uninstall.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"

command -v make >/dev/null 2>&1 || bail "make is installed (build-essential)"
T=$(mktemp -d /tmp/warrant-uninstall.XXXXXX) || exit 1
PFX=$T/prefix
BUILD=$T/build
cleanup() {
	if [ "$fails" -eq 0 ] && [ -z "${WT_KEEP:-}" ]; then
		rm -rf "$T"
	else
		echo "# logs kept in $T"
	fi
}
at_exit cleanup

# listing: every path under the prefix with its type.
listing() { find "$PFX" -printf '%p %y\n' | LC_ALL=C sort; }
# mk TARGET [VAR=VALUE...]: make with the test's settings (a later VAR wins).
mk() { make -C "$WARRANT_TOP" PREFIX="$PFX" BUILD="$BUILD" "$@"; }

# What was there before: a foreign file in a directory install also uses.
mkdir -p "$PFX/share/man"
echo "not warrant's" >"$PFX/share/man/foreign"
before=$(listing)

meson setup "$BUILD" --prefix="$PFX" --buildtype=debug >"$T/setup.log" 2>&1 &&
    ninja -C "$BUILD" -j2 >"$T/build.log" 2>&1 || bail "warrant builds in $BUILD (see $T/build.log)"
mk install >"$T/install.log" 2>&1
is "make install PREFIX=$PFX BUILD=$BUILD" "$?" 0
for f in bin/warrant libexec/warrant/warrant-runner libexec/warrant/warrant-logship \
    libexec/warrant/warrant-ui \
    share/man/man1/warrant.1 share/man/man5/warrant-request.5 \
    lib/systemd/user/warrant.service share/bash-completion/completions/warrant; do
	check "... installed $f" test -f "$PFX/$f"
done
check "... and kept what it placed in $BUILD/install-manifest.txt" \
    grep -qx "$PFX/bin/warrant" "$BUILD/install-manifest.txt"
installed=$(listing)
# The paths install added: what uninstall must name.
printf '%s\n' "$before" | cut -d' ' -f1 >"$T/before.paths"
printf '%s\n' "$installed" | cut -d' ' -f1 | grep -vxF -f "$T/before.paths" >"$T/added.paths"
check "install created directories of its own (libexec/warrant, share/man/man1)" sh -c \
    "grep -qx '$PFX/libexec/warrant' '$T/added.paths' && grep -qx '$PFX/share/man/man1' '$T/added.paths'"

mk install >"$T/install2.log" 2>&1
is "make install again over it" "$?" 0
is "... which places the same files" "$(listing)" "$installed"

mk uninstall PREFIX="$T/elsewhere" >"$T/uninstall-elsewhere.log" 2>&1
is "make uninstall with another PREFIX exits 0" "$?" 0
check "... removes nothing and says so" grep -q "nothing of warrant's is installed under $T/elsewhere" \
    "$T/uninstall-elsewhere.log"
is "... and the prefix is untouched" "$(listing)" "$installed"

mk uninstall >"$T/uninstall.log" 2>&1
is "make uninstall with the same settings" "$?" 0
is "the prefix is as before make install: the foreign file and its directory stay" \
    "$(listing)" "$before"
missing=
while IFS= read -r p; do
	grep -qxF -e "removed $p" -e "removed directory $p" "$T/uninstall.log" || missing="$missing $p"
done <"$T/added.paths"
is "it named each file and directory it removed" "$missing" ""
check "... and counted them" grep -q "^uninstall: removed [1-9][0-9]* files and [1-9][0-9]* directories under $PFX$" \
    "$T/uninstall.log"
check "it removed no directory that was there before (share/man)" sh -c \
    "! grep -qx 'removed directory $PFX/share/man' '$T/uninstall.log' && ! grep -qx 'removed directory $PFX/share' '$T/uninstall.log'"

mk uninstall >"$T/uninstall2.log" 2>&1
is "a second make uninstall exits 0" "$?" 0
check "... and says there is nothing to remove" grep -q 'nothing to remove' "$T/uninstall2.log"
is "... changing nothing" "$(listing)" "$before"

done_testing
