#!/bin/sh
# SPDX-License-Identifier: ISC
# The root binary stays "parse, check, run, record" (docs/design.md, the
# runner): it does not link libunistring or libarchive, and neither credential
# redaction nor display neutralisation is in it; the unprivileged
# finisher does both on the runner's raw records. Checked on the built
# warrant-runner: its dynamic dependencies (readelf -d) and its symbols
# (nm), with a positive control that the symbol check sees the runner's
# own code; and the layout: the C files it links (bench/runner-lines.sh,
# the link itself traced) are exactly those of src/root/, which includes
# no project header from outside it but the build's config.h.
# usage: sh tests/unit/runner-links.sh BUILD/warrant-runner
runner=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$runner")" && pwd)
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
echo "1..8"
needed=$(readelf -d "$runner" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
check "readelf lists the runner's libraries (libc among them)" \
    sh -c 'printf "%s\n" "$1" | grep -q "^libc\.so"' sh "$needed"
check "the runner does not link libunistring" \
    sh -c '! printf "%s\n" "$1" | grep -q unistring' sh "$needed"
# in a file, not an argument: a static libcrypto's symbols are too many
syms=$(mktemp /tmp/runner-syms.XXXXXX) || exit 1
trap 'rm -f "$syms"' EXIT
nm "$runner" 2>/dev/null | awk '{ print $NF }' >"$syms"
check "no libarchive in the runner, shared or static (archives are read at intake)" \
    sh -c '! printf "%s\n" "$1" | grep -q libarchive && ! grep -Eq "^archive_read_(new|open)" "$2"' \
    sh "$needed" "$syms"
check "nm sees the runner's own code (capture_tail, text_json_safe)" \
    sh -c 'grep -qx capture_tail "$1" && grep -qx text_json_safe "$1"' sh "$syms"
check "no redaction or credential shapes in the runner (policy.c)" \
    sh -c '! grep -Eq "^(redact_credentials|redact_text|redact_json|contains_credential|credential_shape)$" "$1"' \
    sh "$syms"
check "no display neutralisation in the runner (text.c, libunistring)" \
    sh -c '! grep -Eq "^(text_visible|text_output|text_word|text_lookalike|uc_[a-z_]*|u32_normalize)(@.*)?$" "$1"' \
    sh "$syms"
linked=$(sh "$top/bench/runner-lines.sh" -v "$build" | awk 'NF == 2 && $2 ~ /^src\// { print $2 }' | sort)
tree=$(cd "$top" && find src/root -name '*.c' | sort)
check "the runner links every C file of src/root/ and no other of the project's" \
    sh -c '[ -n "$1" ] && [ "$1" = "$2" ] || { printf "linked:\n%s\nsrc/root:\n%s\n" "$1" "$2" >&2; exit 1; }' \
    sh "$linked" "$tree"
# every #include "X" of src/root/ names a file beside it or in src/root/
outside=$(cd "$top" && for f in $(find src/root -name '*.[ch]'); do
	sed -n 's/^#include "\(.*\)".*/\1/p' "$f" | while read -r h; do
		[ "$h" = config.h ] && continue
		r=$(realpath -m "$(dirname "$f")/$h")
		[ -f "$r" ] || r=$(realpath -m "src/root/$h")
		case $r in "$top"/src/root/*) [ -f "$r" ] && continue ;; esac
		echo "$f: $h"
	done
done)
check "src/root/ includes nothing from outside it (but config.h)" \
    sh -c '[ -z "$1" ] || { printf "%s\n" "$1" >&2; exit 1; }' sh "$outside"
exit $((failed > 0))
