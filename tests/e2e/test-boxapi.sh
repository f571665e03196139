#!/bin/sh
# SPDX-License-Identifier: ISC
# The box password route end to end (docs/web.md "The box password
# route"): as root, `warrant box init --profile container` makes the
# throwaway users wtbapi1 and wtbapi2 (uids 61101, 61102) "in a container"
# (a test root holding .dockerenv, honoured only by a -Dtest_hooks=true
# build), `warrant box key` makes their keys, and `warrant serve --box-api`
# on a port of this run takes signed requests from curl; the signatures
# are computed here with Python's hmac. Checks /etc/shadow and the
# NOPASSWD drop-in after each request, the refusals (bad, stale and
# replayed signatures, also across a restart, another path or user, a
# 10 MB body) and that the password is in no log or output; then the
# connections: one trickling its request and one leaving its answers
# unread are cut at their deadlines, one address's connections make room
# among themselves, and 16 slow connections from each of 127.0.0.2-9 do
# not keep a signed request from its answer.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-boxapi.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"

need_root "the box password route's tests create users and run as root"
for t in curl python3 setpriv visudo sudo; do
	command -v "$t" >/dev/null 2>&1 || bail "$t is installed (scripts/deps.sh)"
done

USERS="wtbapi1 wtbapi2"
PORT=$(free_port)
U=http://127.0.0.1:$PORT
CANARY="wt-boxapi-canary-$(od -An -N6 -tx1 /dev/urandom | tr -d ' ')"
CANARY2="$CANARY-two"
DPID=
unset SUDO_USER

cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	[ -n "${FPID:-}" ] && kill "$FPID" 2>/dev/null
	for u in $USERS; do
		userdel "$u" >/dev/null 2>&1
		groupdel "$u" >/dev/null 2>&1
		rm -rf "/home/$u" "/var/mail/$u"
		rm -f "/etc/sudoers.d/warrant-box-$u" "/etc/sudoers.d/.warrant-box-$u".* \
		    "/run/sudo/ts/$u" "/var/lib/sudo/lectured/$u"
	done
	[ -n "${T:-}" ] && [ -z "${WT_KEEP:-}" ] && [ "$fails" -eq 0 ] && rm -rf "$T"
	[ -n "${T:-}" ] && [ "$fails" -ne 0 ] && echo "# transcripts kept in $T"
	[ -n "${WT_DIR:-}" ] && rm -rf "$WT_DIR"
}
cleanup
at_exit cleanup

setup_bin
case $("$W" --version) in
*"(test hooks)"*) ;;
*) bail "$WARRANT_BUILD is built with -Dtest_hooks=true" ;;
esac
T=$(mktemp -d /tmp/warrant-boxapi.XXXXXX)
export WARRANT_BOX_DIR="$T/box"
mkdir "$T/container" "$T/logs"
touch "$T/container/.dockerenv"
export WARRANT_TEST_ROOT="$T/container"
BOX=$WARRANT_BOX_DIR
LOG=$T/logs/serve.log
step=0

dropin() { echo "/etc/sudoers.d/warrant-box-$1"; }
shadow_pw() { getent shadow "$1" | cut -d: -f2; }
# hash_is USER PASSWORD: USER's shadow hash is of PASSWORD (libc crypt).
hash_is() {
	python3 -W ignore -c 'import crypt, sys; h = sys.argv[1]; sys.exit(0 if h.startswith("$") and crypt.crypt(sys.argv[2], h) == h else 1)' \
	    "$(shadow_pw "$1")" "$2"
}
wb() {
	step=$((step + 1))
	OUT="$T/logs/$step.out" ERR="$T/logs/$step.err"
	"$W" box "$@" >"$OUT" 2>"$ERR"
	RC=$?
}

start_api() {
	"$W" serve --box-api "127.0.0.1:$PORT" >>"$T/logs/serve.out" 2>>"$LOG" &
	DPID=$!
	i=0
	until curl -s -o /dev/null "$U/"; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || return 1
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.1
	done
}
stop_api() {
	kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DRC=$?
	DPID=
}

# sign KEYHEX TS METHOD PATH BODYFILE: v1=HEX over the signed text.
sign() {
	python3 -c 'import hmac, hashlib, sys
k = bytes.fromhex(sys.argv[1])
body = open(sys.argv[5], "rb").read()
text = b"v1\n" + sys.argv[2].encode() + b"\n" + sys.argv[3].encode() + b"\n" + sys.argv[4].encode() + b"\n" + body
print("v1=" + hmac.new(k, text, hashlib.sha256).hexdigest())' "$@"
}
# body FILE JSON: the request body in FILE.
body() { printf '%s' "$2" >"$1"; }
# post PATH BODYFILE TS SIG [CURL ARGS]: the status in ST, the answer in $T/resp.
post() {
	p_path=$1 p_body=$2 p_ts=$3 p_sig=$4
	shift 4
	ST=$(curl -s -o "$T/resp" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
	    -H "X-Warrant-Timestamp: $p_ts" -H "X-Warrant-Signature: $p_sig" \
	    --data-binary "@$p_body" "$@" "$U$p_path")
	step=$((step + 1))
	cp "$T/resp" "$T/logs/$step.resp"
}
# signed KEYHEX PATH BODYFILE: a fresh signed POST; TS and SIG kept.
signed() {
	TS=$(date +%s)
	SIG=$(sign "$1" "$TS" POST "$2" "$3")
	post "$2" "$3" "$TS" "$SIG"
}
# answered DESC STATUS CODE: the last answer had STATUS and error code CODE
# (or, for 200, the body holds CODE).
answered() {
	if [ "$ST" = "$2" ] && grep -qF -- "$3" "$T/resp"; then
		ok "$1"
	else
		not_ok "$1"
		diag "status $ST: $(head -c 400 "$T/resp")"
	fi
}

# --- users and keys --------------------------------------------------------
wb init --profile container --user wtbapi1 --uid 61101 --gid 61101
[ "$RC" = 0 ] || bail "box init wtbapi1 (exit $RC: $(cat "$ERR"))"
wb init --profile container --user wtbapi2 --uid 61102 --gid 61102
[ "$RC" = 0 ] || bail "box init wtbapi2 (exit $RC: $(cat "$ERR"))"
check "the container users start with the NOPASSWD drop-in" \
    test -e "$(dropin wtbapi1)" -a -e "$(dropin wtbapi2)"

wb key --user wtbapi1
KEY1=$(cat "$OUT")
check "box key prints a 64-digit hex key" sh -c "[ $RC = 0 ] && printf '%s' '$KEY1' | grep -qxE '[0-9a-f]{64}'"
is "the key file holds those 32 bytes" "$(od -An -v -tx1 "$BOX/api/wtbapi1.key" | tr -d ' \n')" "$KEY1"
is "the key file is root's, 0600, 32 bytes" "$(stat -c '%a %U %s' "$BOX/api/wtbapi1.key")" "600 root 32"
is "the key directory is root's, 0700" "$(stat -c '%a %U' "$BOX/api")" "700 root"
wb key --user wtbapi1
check "a second box key is refused (key_exists) and prints no key" sh -c \
    "[ $RC = 2 ] && grep -q key_exists '$ERR' && ! grep -qE '[0-9a-f]{64}' '$OUT' '$ERR'"
is "... and leaves the key as it was" "$(od -An -v -tx1 "$BOX/api/wtbapi1.key" | tr -d ' \n')" "$KEY1"
wb key --user wtbapi1 --rotate
KEYR=$(cat "$OUT")
check "box key --rotate prints a new key" sh -c "[ $RC = 0 ] && [ '$KEYR' != '$KEY1' ] && printf '%s' '$KEYR' | grep -qxE '[0-9a-f]{64}'"
is "... and the file holds it" "$(od -An -v -tx1 "$BOX/api/wtbapi1.key" | tr -d ' \n')" "$KEYR"
OLDKEY=$KEY1
KEY1=$KEYR
setpriv --reuid=65534 --regid=65534 --clear-groups "$W" box key --user wtbapi1 \
    >"$T/logs/nonroot.out" 2>&1
check "box key as another user is refused (not_root)" grep -q not_root "$T/logs/nonroot.out"
wb key --user root
check "box key for a system account is refused" sh -c "[ $RC = 2 ] && grep -q system_account '$ERR'"

setpriv --reuid=65534 --regid=65534 --clear-groups "$W" serve --box-api "127.0.0.1:$PORT" \
    >"$T/logs/nonroot-serve.out" 2>&1
NRC=$?
check "serve --box-api refuses to run as anyone but root" sh -c \
    "[ $NRC != 0 ] && grep -q 'runs as root' '$T/logs/nonroot-serve.out'"
"$W" serve --box-api "10.1.2.3:$PORT" >"$T/logs/any.out" 2>&1
check "serve --box-api refuses a non-loopback address without --listen-any" \
    grep -q 'not a loopback address' "$T/logs/any.out"
"$W" serve --box-api "$PORT" --http 1 >"$T/logs/mix.out" 2>&1
check "serve --box-api is a mode of its own (no --http with it)" \
    grep -q 'mode of its own' "$T/logs/mix.out"

start_api || bail "serve --box-api starts on 127.0.0.1:$PORT ($(tail -3 "$LOG"))"

# --- set, clear -----------------------------------------------------------
body "$T/set1" "{\"password\":\"$CANARY\"}"
signed "$KEY1" /box/set-password "$T/set1"
SET1_TS=$TS SET1_SIG=$SIG
answered "POST /box/set-password (the one user with a key) sets the password" 200 '"password_set":true'
check "... /etc/shadow holds a hash of that password" hash_is wtbapi1 "$CANARY"
check "... and the NOPASSWD drop-in is gone (sudo asks for it)" test ! -e "$(dropin wtbapi1)"
check "... wtbapi2 is untouched (drop-in kept, no hash)" sh -c \
    "[ -e '$(dropin wtbapi2)' ] && ! getent shadow wtbapi2 | cut -d: -f2 | grep -q '^\\$'"
wb status --user wtbapi1 -j
check "box status: password set, no drop-in" grep -q '"password_set":true,"nopasswd_dropin":false' "$OUT"

body "$T/clear" '{"password":null}'
signed "$KEY1" /box/wtbapi1/set-password "$T/clear"
CLEAR_TS=$TS CLEAR_SIG=$SIG
answered "POST /box/wtbapi1/set-password with null clears it" 200 '"password_set":false'
check "... the drop-in is back and the password locked" sh -c \
    "[ -e '$(dropin wtbapi1)' ] && [ \"\$(getent shadow wtbapi1 | cut -d: -f2)\" = '!' ]"

body "$T/set2" "{\"password\":\"$CANARY2\"}"
signed "$KEY1" /box/wtbapi1/set-password "$T/set2"
answered "a new password is set again" 200 '"password_set":true'
check "... the drop-in is gone again" test ! -e "$(dropin wtbapi1)"
check "... of the new password" hash_is wtbapi1 "$CANARY2"
SHADOW=$(shadow_pw wtbapi1)

# --- replays --------------------------------------------------------------
post /box/wtbapi1/set-password "$T/clear" "$CLEAR_TS" "$CLEAR_SIG"
answered "a replayed clear is refused (replayed)" 409 '"code":"replayed"'
check "... NOPASSWD is not restored and the password stays" sh -c \
    "[ ! -e '$(dropin wtbapi1)' ] && [ \"\$(getent shadow wtbapi1 | cut -d: -f2)\" = '$SHADOW' ]"
post /box/set-password "$T/set1" "$SET1_TS" "$SET1_SIG"
answered "a replayed set is refused (replayed)" 409 '"code":"replayed"'
is "the seen-signature file is root's, 0600" "$(stat -c '%a %U' "$BOX/api/seen")" "600 root"
stop_api
start_api || bail "serve --box-api starts again"
post /box/wtbapi1/set-password "$T/clear" "$CLEAR_TS" "$CLEAR_SIG"
answered "after a restart, the replayed clear is still refused" 409 '"code":"replayed"'
check "... NOPASSWD is still not restored" sh -c \
    "[ ! -e '$(dropin wtbapi1)' ] && [ \"\$(getent shadow wtbapi1 | cut -d: -f2)\" = '$SHADOW' ]"

# --- refusals, each changing nothing ---------------------------------------
unchanged() {
	check "... nothing changed" sh -c \
	    "[ ! -e '$(dropin wtbapi1)' ] && [ \"\$(getent shadow wtbapi1 | cut -d: -f2)\" = '$SHADOW' ]"
}
TS=$(date +%s)
SIG=$(sign "$KEY1" "$TS" POST /box/wtbapi1/set-password "$T/clear")
# the first hex digit changed
if [ "$(printf '%s' "$SIG" | cut -c4)" = 0 ]; then d=1; else d=0; fi
BAD="v1=$d$(printf '%s' "$SIG" | cut -c5-)"
post /box/wtbapi1/set-password "$T/clear" "$TS" "$BAD"
answered "a wrong signature is refused (one answer: 401 unauthorized)" 401 '"code":"unauthorized"'
cp "$T/resp" "$T/r-badsig"
unchanged
post /box/wtbapi1/set-password "$T/clear" "$TS" "v1=nothex"
answered "a malformed signature is refused (one answer: 401 unauthorized)" 401 '"code":"unauthorized"'
TS=$(date +%s)
SIG=$(sign "$OLDKEY" "$TS" POST /box/wtbapi1/set-password "$T/clear")
post /box/wtbapi1/set-password "$T/clear" "$TS" "$SIG"
answered "a signature with the rotated-out key is refused" 401 '"code":"unauthorized"'
unchanged
OLD=$(($(date +%s) - 400))
SIG=$(sign "$KEY1" "$OLD" POST /box/wtbapi1/set-password "$T/clear")
post /box/wtbapi1/set-password "$T/clear" "$OLD" "$SIG"
answered "a timestamp 400 s old is refused (401 unauthorized)" 401 '"code":"unauthorized"'
FUT=$(($(date +%s) + 400))
SIG=$(sign "$KEY1" "$FUT" POST /box/wtbapi1/set-password "$T/clear")
post /box/wtbapi1/set-password "$T/clear" "$FUT" "$SIG"
answered "a timestamp 400 s ahead is refused (401 unauthorized)" 401 '"code":"unauthorized"'
unchanged
post /box/wtbapi1/set-password "$T/clear" "12ab" "$SIG"
answered "a timestamp that is not digits is refused (401 unauthorized)" 401 '"code":"unauthorized"'
ST=$(curl -s -o "$T/resp" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary "@$T/clear" "$U/box/wtbapi1/set-password")
answered "no signature headers: refused (401 unauthorized)" 401 '"code":"unauthorized"'
cp "$T/resp" "$T/r-unsigned"
unchanged

# another path or another user
wb key --user wtbapi2
KEY2=$(cat "$OUT")
[ "$RC" = 0 ] || bail "box key wtbapi2"
TS=$(date +%s)
SIG=$(sign "$KEY1" "$TS" POST /box/wtbapi2/set-password "$T/clear")
post /box/wtbapi1/set-password "$T/clear" "$TS" "$SIG"
answered "a signature made for another user's path is refused" 401 '"code":"unauthorized"'
unchanged
SIG=$(sign "$KEY1" "$TS" POST /box/wtbapi1/set-password "$T/clear")
post /box/wtbapi2/set-password "$T/clear" "$TS" "$SIG"
answered "wtbapi1's signature sent for wtbapi2 is refused" 401 '"code":"unauthorized"'
check "... wtbapi2 keeps its drop-in" test -e "$(dropin wtbapi2)"
SIG=$(sign "$KEY1" "$TS" POST /box/set-password "$T/clear")
post /box/set-password "$T/clear" "$TS" "$SIG"
answered "with two keys, /box/set-password names no one (401 unauthorized)" 401 '"code":"unauthorized"'
unchanged
signed "$KEY2" /box/nosuchbox/set-password "$T/clear"
answered "a user without a key is refused (401 unauthorized)" 401 '"code":"unauthorized"'
cp "$T/resp" "$T/r-unknown"
ST=$(curl -s -o "$T/resp" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary "@$T/clear" "$U/box/nosuchbox/set-password")
cp "$T/resp" "$T/r-unknown-unsigned"
check "unsigned, unknown user and bad signature get the very same answer" sh -c \
    "cmp -s '$T/r-unsigned' '$T/r-badsig' && cmp -s '$T/r-unsigned' '$T/r-unknown' && cmp -s '$T/r-unsigned' '$T/r-unknown-unsigned'"
check "... which names no user" sh -c "! grep -q 'nosuchbox\|wtbapi' '$T/r-unknown'"
check "the server's log still says which (root's)" grep -q 'nosuchbox: unknown_box_user' "$LOG"
signed "$KEY2" /box/wtbapi2/set-password "$T/clear"
answered "wtbapi2's own key clears wtbapi2 (was not set)" 200 '"user":"wtbapi2"'

# the signature covers the request target exactly as sent
signed "$KEY2" '/box/%77tbapi2/set-password' "$T/clear"
answered "a percent-encoded target, signed as sent, is accepted" 200 '"user":"wtbapi2"'
TS=$(date +%s)
SIG=$(sign "$KEY2" "$TS" POST /box/wtbapi2/set-password "$T/clear")
post '/box/%77tbapi2/set-password' "$T/clear" "$TS" "$SIG"
answered "... signed as decoded, it is refused" 401 '"code":"unauthorized"'
signed "$KEY2" '/box/wtbapi2/set-password?via=platform' "$T/clear"
answered "a target with a query, signed with it, is accepted" 200 '"user":"wtbapi2"'
TS=$(date +%s)
SIG=$(sign "$KEY2" "$TS" POST /box/wtbapi2/set-password "$T/clear")
post '/box/wtbapi2/set-password?via=platform' "$T/clear" "$TS" "$SIG"
answered "... signed without the query, it is refused" 401 '"code":"unauthorized"'

# bodies
head -c 10485760 /dev/zero | tr '\0' a >"$T/big"
TS=$(date +%s)
post /box/wtbapi1/set-password "$T/big" "$TS" "v1=00"
answered "a 10 MB body is refused (body_too_large)" 413 '"code":"body_too_large"'
post /box/wtbapi1/set-password "$T/big" "$TS" "v1=00" -H 'Transfer-Encoding: chunked'
answered "... also chunked, without a length" 413 '"code":"body_too_large"'
kill -0 "$DPID" 2>/dev/null
check "the server is still up" test $? = 0
body "$T/short" '{"password":"short"}'
signed "$KEY1" /box/wtbapi1/set-password "$T/short"
answered "a signed short password is refused (bad_password)" 400 '"code":"bad_password"'
unchanged
body "$T/extra" "{\"password\":null,\"user\":\"root\"}"
signed "$KEY1" /box/wtbapi1/set-password "$T/extra"
answered "a body with another field is refused (invalid_body)" 400 '"code":"invalid_body"'
unchanged
ST=$(curl -s -o "$T/resp" -w '%{http_code}' "$U/box/wtbapi1/set-password")
answered "GET is refused" 405 '"code":"method_not_allowed"'
ST=$(curl -s -o "$T/resp" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary '{}' "$U/api/gates")
answered "any other path is not found" 404 '"code":"not_found"'
ST=$(curl -s -o "$T/resp" -w '%{http_code}' -X POST -H 'Content-Type: text/plain' \
    --data-binary "@$T/clear" "$U/box/wtbapi1/set-password")
answered "a body that is not JSON is refused (not_json)" 415 '"code":"not_json"'
curl -s -D "$T/headers" -o /dev/null "$U/box/set-password"
check "answers carry the security headers" sh -c \
    "grep -qi '^Content-Security-Policy: default-src .none.' '$T/headers' && grep -qi '^X-Content-Type-Options: nosniff' '$T/headers' && grep -qi '^Cache-Control: no-store' '$T/headers'"

# --- connections: deadlines, a share per address, a flood -----------------
# crowd.py PORT MODE ...: connections from addresses of 127.0.0.0/8, each
# reporting what happened to it as a word on stdout (no time measured).
cat >"$T/crowd.py" <<'EOF'
import os, select, socket, sys, time
port = int(sys.argv[1])
def conn(src, rcvbuf=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s
def gone(s, secs):
    """Whether the server closed or reset s within secs (the bound)."""
    p = select.poll()
    p.register(s, select.POLLIN | select.POLLERR | select.POLLHUP)
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if p.poll(500):
            try:
                if s.recv(65536, socket.MSG_DONTWAIT) == b"":
                    return True
            except BlockingIOError:
                pass
            except OSError:
                return True
    return False
def open_now(s):
    try:
        return s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
mode = sys.argv[2]
if mode == "trickle":
    # half a request, then a header line every half second
    s = conn("127.0.0.10")
    s.sendall(b"POST /box/set-password HTTP/1.1\r\nHost: x\r\n")
    end = time.monotonic() + 60
    how = "open"
    while time.monotonic() < end and how == "open":
        if gone(s, 0.5):
            how = "cut"
        else:
            try:
                s.sendall(b"X-Slow: a\r\n")
            except OSError:
                how = "cut"
    print(how)
elif mode == "noread":
    # fifty requests sent back to back, their answers left unread until
    # the file argv[3] says to look; then read: an end, or still open
    s = conn("127.0.0.11", 4096)
    req = (b"POST /box/set-password HTTP/1.1\r\nHost: x\r\nContent-Type: "
        b"application/json\r\nContent-Length: 2\r\n\r\n{}")
    s.sendall(req * 50)
    end = time.monotonic() + 120
    while time.monotonic() < end and not os.path.exists(sys.argv[3]):
        time.sleep(0.2)
    s.settimeout(10)
    got, how = b"", "open"
    try:
        while True:
            d = s.recv(65536)
            if d == b"":
                how = "cut"
                break
            got += d
    except socket.timeout:
        pass
    except OSError:
        how = "cut"
    print(how, got.count(b"HTTP/1.1 401"), "answers of 50 read")
elif mode == "share":
    # one connection from .12, then nine from .13: the tenth address's
    # ninth takes the place of its own first, not of .12's
    a = conn("127.0.0.12")
    b = [conn("127.0.0.13") for i in range(9)]
    first = "cut" if gone(b[0], 60) else "open"
    print(first, "open" if open_now(a) and all(open_now(x) for x in b[1:]) else "cut")
elif mode == "flood":
    # 16 slow connections from each of 127.0.0.2-9, kept until killed
    held, refused = [], 0
    for i in range(16):
        for a in range(2, 10):
            try:
                s = conn("127.0.0.%d" % a)
                if i % 2:
                    s.sendall(b"POST /box/set-password HTTP/1.1\r\nHost: x\r\n")
                held.append(s)
            except OSError:
                refused += 1
    print("ready", len(held), refused, flush=True)
    while True:
        time.sleep(0.5)
        for s in held:
            try:
                s.send(b"X-Slow: a\r\n")
            except OSError:
                pass
EOF

# one deadline of 2 s at a time (this build's hooks), the other and the
# idle limit far past it, so each cut is the one deadline's
stop_api
export WARRANT_TEST_WEB_DEADLINE_MS=2000 WARRANT_TEST_WEB_WRITE_MS=600000 WARRANT_TEST_WEB_TIMEOUT=600
start_api || bail "serve --box-api starts with a short request deadline"
"$PY" "$T/crowd.py" "$PORT" trickle >"$T/trickle" 2>&1
is "a connection trickling its request's headers is cut at its deadline" "$(cat "$T/trickle")" cut
stop_api
export WARRANT_TEST_WEB_DEADLINE_MS=600000 WARRANT_TEST_WEB_WRITE_MS=2000
start_api || bail "serve --box-api starts with a short answer deadline"
"$PY" "$T/crowd.py" "$PORT" noread "$T/look" >"$T/noread" 2>&1 &
NPID=$!
wait_for "grep -q 'box-api: .*did not read its answer in time' '$LOG'" 60
check "a connection that sends requests and leaves the answers unread is cut (root's log)" \
    grep -q 'box-api: .*did not read its answer in time' "$LOG"
touch "$T/look"
wait "$NPID"
check "... and its client finds it closed once it reads ($(cat "$T/noread"))" \
    grep -q '^cut ' "$T/noread"
stop_api

# the deadlines out of the way: only the pool makes room
export WARRANT_TEST_WEB_WRITE_MS=600000
start_api || bail "serve --box-api starts with long deadlines"
"$PY" "$T/crowd.py" "$PORT" share >"$T/share" 2>&1
is "one address's ninth connection without a request takes its own first's place, not another's" \
    "$(cat "$T/share")" "cut open"
"$PY" -u "$T/crowd.py" "$PORT" flood >"$T/flood" 2>&1 &
FPID=$!
i=0
until grep -q '^ready' "$T/flood" || [ "$i" -ge 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
diag "flood: $(head -1 "$T/flood")"
TS=$(date +%s)
SIG=$(sign "$KEY2" "$TS" POST /box/wtbapi2/set-password "$T/clear")
post /box/wtbapi2/set-password "$T/clear" "$TS" "$SIG" --max-time 120
answered "with 16 slow connections from each of 127.0.0.2-9 open, a signed request is answered" \
    200 '"user":"wtbapi2"'
kill "$FPID" 2>/dev/null
wait "$FPID" 2>/dev/null
check "... the flood's connections were cut to make room (root's log)" \
    grep -q 'box-api: .*cut to make room' "$LOG"
unset WARRANT_TEST_WEB_DEADLINE_MS WARRANT_TEST_WEB_WRITE_MS WARRANT_TEST_WEB_TIMEOUT

stop_api
check "serve --box-api stops cleanly on SIGTERM" test "$DRC" = 0
check "the log names each change and each refusal by code" sh -c \
    "grep -q 'box-api: the box password of wtbapi1 is set' '$LOG' && grep -q 'box-api: refused a request for wtbapi1: replayed' '$LOG'"

# --- no password anywhere --------------------------------------------------
CONTROL=$(mktemp -d /tmp/warrant-boxapi-control.XXXXXX)
printf 'x%sx\n' "$CANARY" >"$CONTROL/planted"
hits=$(grep -rlaF -- "$CANARY" "$T/logs" "$BOX" /etc/sudoers.d /var/log /home/wtbapi1 "$CONTROL" 2>/dev/null)
check "[P2] the search finds a planted copy (positive control)" sh -c \
    "printf '%s\n' '$hits' | grep -qx '$CONTROL/planted'"
rm -rf "$CONTROL"
hits=$(printf '%s\n' "$hits" | grep -vx "$CONTROL/planted")
if [ -z "$hits" ]; then
	ok "[P2] neither password is in the server's log, its output or any file searched"
else
	not_ok "[P2] neither password is in the server's log, its output or any file searched"
	diag "$hits"
fi
check "[P2] the searched logs hold the server's log" test -s "$LOG"

done_testing
