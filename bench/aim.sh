# SPDX-License-Identifier: ISC
# Sourced by the benchmarks: aim VALUE le|ge LIMIT [UNIT] prints
# "aim <= LIMITUNIT: met" or "aim <= LIMITUNIT: missed by N%".
aim() {
	awk -v v="$1" -v op="$2" -v l="$3" -v u="${4:-}" 'BEGIN {
	    ok = op == "le" ? v + 0 <= l + 0 : v + 0 >= l + 0
	    printf "aim %s %s%s: %s", op == "le" ? "<=" : ">=", l, u,
	        ok ? "met" : sprintf("missed by %.0f%%", op == "le" ? (v / l - 1) * 100 : (1 - v / l) * 100) }'
}
