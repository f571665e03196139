#!/bin/sh
# SPDX-License-Identifier: ISC
# The root binary stays "parse, check, run, record" (docs/design.md, the
# runner): it does not link libunistring or libarchive, and neither credential
# redaction nor display neutralisation is in it; the unprivileged
# finisher does both on the runner's raw records. Checked on the built
# warrant-runner: its dynamic dependencies (readelf -d) and its symbols
# (nm), with a positive control that the symbol check sees the runner's
# own code.
# usage: sh tests/unit/runner-links.sh BUILD/warrant-runner
runner=$1
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
echo "1..6"
needed=$(readelf -d "$runner" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
check "readelf lists the runner's libraries (libc among them)" \
    sh -c 'printf "%s\n" "$1" | grep -q "^libc\.so"' sh "$needed"
check "the runner does not link libunistring" \
    sh -c '! printf "%s\n" "$1" | grep -q unistring' sh "$needed"
syms=$(nm "$runner" 2>/dev/null | awk '{ print $NF }')
check "no libarchive in the runner, shared or static (archives are read at intake)" \
    sh -c '! printf "%s\n" "$1" | grep -q libarchive && ! printf "%s\n" "$2" | grep -Eq "^archive_read_(new|open)"' \
    sh "$needed" "$syms"
check "nm sees the runner's own code (capture_tail, text_json_safe)" \
    sh -c 'printf "%s\n" "$1" | grep -qx capture_tail && printf "%s\n" "$1" | grep -qx text_json_safe' \
    sh "$syms"
check "no redaction or credential shapes in the runner (policy.c)" \
    sh -c '! printf "%s\n" "$1" | grep -Eq "^(redact_credentials|redact_text|redact_json|contains_credential|credential_shape)$"' \
    sh "$syms"
check "no display neutralisation in the runner (text.c, libunistring)" \
    sh -c '! printf "%s\n" "$1" | grep -Eq "^(text_visible|text_output|text_word|text_lookalike|uc_[a-z_]*|u32_normalize)(@.*)?$"' \
    sh "$syms"
exit $((failed > 0))
