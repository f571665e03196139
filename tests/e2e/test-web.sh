#!/bin/sh
# SPDX-License-Identifier: ISC
# The web page of `warrant serve --http` end to end (docs/review.md "The
# web page", docs/protocol.md "The web page and its API"): as root, the
# reviewer wt-reviewer runs the daemon with --http on a port of this run;
# pairing with `warrant pair`, the JSON API and its hostile cases with
# curl, and the page itself in Debian's headless Chromium (pair from the
# printed link, see a gate, deny it; screenshots at phone size are kept
# in $WARRANT_BUILD/test-web-shots). Issue 23: the cookie alone is worth
# nothing, even when a page of the agent's on another port of 127.0.0.1
# receives it; a slow-header flood from 127.0.0.1-5 does not keep the
# paired browser out; the page shows every file of what it approves.
#
#   WARRANT_BUILD=build-e2e WARRANT_TOP=. sh tests/e2e/test-web.sh
. "$WARRANT_TOP/tests/e2e/lib.sh"
. "$WARRANT_TOP/tests/e2e/sudo-lib.sh"

need_root "the web tests create a reviewer user and run as root"
sr_need || bail "the programs the tests drive are installed"
command -v curl >/dev/null 2>&1 || bail "curl is installed (scripts/deps.sh)"

umask 022
SR_DIR=$(mktemp -d /tmp/warrant-web-e2e.XXXXXX) || exit 1
chmod 755 "$SR_DIR"
REV=$SR_USER
PORT=$(free_port)
U=http://127.0.0.1:$PORT
T=$SR_DIR/t
RMARK=/root/wt-web-mark-$PORT

cleanup() {
	stop_daemon KILL
	rm -f "$RMARK"
	sr_user_teardown
	sr_dir_done
}
at_exit cleanup

sr_user_setup || bail "the reviewer users are set up"
sr_install || bail "warrant is installed in its private prefix"
W=$SR_WARRANT
rev() { sr_as "$REV" "$W" "$@"; }
# pair_link: a fresh pairing link, for a browser profile of its own
pair_link() { rev pair --no-qr | grep -o "$U/#token=[A-Za-z0-9_-]*"; }
start_daemon() { sr_page "$U" "$@"; }
# The page's signed calls, as data/web/app.js makes them (src/web/pagesig.c):
# sig.py proof|mac|answer, the key in base64url.
SIG=$SR_DIR/sig.py
NOKEY43=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
cat >"$SIG" <<'PY'
import base64, hashlib, hmac, sys
def key(k): return base64.urlsafe_b64decode(k + "=" * (-len(k) % 4))
def b64(b): return base64.urlsafe_b64encode(b).decode().rstrip("=")
def mac(k, text): return b64(hmac.new(key(k), text.encode(), hashlib.sha256).digest())
def body(path): return hashlib.sha256(open(path, "rb").read()).hexdigest()
op = sys.argv[1]
if op == "proof":	# KEY CHALLENGE NONCE PROOF
    k, c, n, p = sys.argv[2:6]
    sys.exit(0 if hmac.compare_digest(mac(k, "warrant-server-v1\n%s\n%s" % (c, n)), p) else 1)
if op == "mac":		# KEY METHOD TARGET BODYFILE TIME NONCE
    k, m, t, f, ts, n = sys.argv[2:8]
    print(mac(k, "warrant-page-v1\n%s\n%s\n%s\n%s\n%s" % (m, t, body(f), ts, n)))
if op == "answer":	# KEY REQMAC STATUS BODYFILE ANSWER
    k, rm, st, f, a = sys.argv[2:7]
    sys.exit(0 if hmac.compare_digest(mac(k, "warrant-answer-v1\n%s\n%s\n%s" % (rm, st, body(f))), a) else 1)
if op == "derive":	# SECRETFILE SESSION: the key the daemon derives
    s = open(sys.argv[2], "rb").read()
    print(b64(hmac.new(s, ("warrant-page-key-v1\n" + sys.argv[3]).encode(), hashlib.sha256).digest()))
PY
chmod 644 "$SIG"
# hello [SESSION]: a nonce in NONCE, checked against the proof with $KEY
# (PROOF_OK 1 or 0).
hello() {
	h_c=$(head -c 32 /dev/urandom | basenc --base64url | tr -d '=')
	curl -s -o "$T.hello" -X POST -H 'Content-Type: application/json' \
	    -H "X-Warrant-Session: ${1-${SESS:-}}" -H "X-Warrant-Challenge: $h_c" -d '{}' "$U/api/hello"
	NONCE=$(jval "$T.hello" 'j["nonce"]' 2>/dev/null || true)
	PROOF_OK=0
	python3 "$SIG" proof "${KEY:-$NOKEY43}" "$h_c" "$NONCE" "$(jval "$T.hello" 'j["proof"]' 2>/dev/null)" &&
	    PROOF_OK=1
}
# api METHOD PATH [BODY [CURL ARGS]]: a signed call of the session
# ($SESS, $KEY) after a hello, the status in ST, the body in $T, the
# headers in $T.h, ANSWER_OK 1 when the answer's MAC is right; the call
# as sent in $T.req (method, path, body file, time, nonce, MAC), to replay.
api() {
	a_m=$1 a_p=$2 a_b=${3:-}
	shift 2
	[ $# -gt 0 ] && shift
	hello
	case $a_b in
	@*) a_f=${a_b#@} ;;
	*) a_f=$T.body; printf %s "$a_b" >"$a_f" ;;
	esac
	a_t=$(date +%s)
	a_mac=$(python3 "$SIG" mac "${KEY:-$NOKEY43}" "$a_m" "$a_p" "$a_f" "$a_t" "$NONCE")
	printf '%s\n' "$a_m" "$a_p" "$a_f" "$a_t" "$NONCE" "$a_mac" >"$T.req"
	resend "$T.req" "$@"
}
# resend FILE [CURL ARGS]: the call recorded in FILE sent again as it was.
resend() {
	{ read -r r_m; read -r r_p; read -r r_f; read -r r_t; read -r r_n; read -r r_mac; } <"$1"
	shift
	# JSON unless the caller names another type
	r_ct='Content-Type: application/json'
	case "$*" in *Content-Type:*) r_ct='X-Warrant-Test: 1' ;; esac
	set -- -H "X-Warrant-Session: ${SESS:-}" -H "X-Warrant-Nonce: $r_n" \
	    -H "X-Warrant-Time: $r_t" -H "X-Warrant-Mac: $r_mac" "$@"
	if [ "$r_m" = POST ]; then
		ST=$(curl -s -o "$T" -D "$T.h" -w '%{http_code}' -X POST \
		    -H "$r_ct" --data-binary "@$r_f" "$@" "$U$r_p")
	else
		ST=$(curl -s -o "$T" -D "$T.h" -w '%{http_code}' "$@" "$U$r_p")
	fi
	ANSWER_OK=0
	python3 "$SIG" answer "${KEY:-$NOKEY43}" "$r_mac" "$ST" "$T" \
	    "$(sed -n 's/^X-Warrant-Answer: \([A-Za-z0-9_-]*\).*/\1/p' "$T.h")" && ANSWER_OK=1
}
errcode() { jval "$T" 'j["error"]["code"]'; }
# gate FILE: a request as the reviewer from FILE; G the id, H its hash.
gate() {
	chmod 644 "$1"
	rev request <"$1" >"$1.out" 2>"$1.err"
	G=$(jscan 'j["request_id"]' "$1.out") || diag "request $1 refused: $(cat "$1.out" "$1.err")"
	H=$(rev show -j "$G" | jscan 'j["manifest_sha256"]')
}
state_of() { rev show -j "$1" | jscan 'j["state"]'; }
attempts_of() { sqlite3 "$SR_STATE/warrant.db" "SELECT count(*) FROM attempts WHERE gate_id = '$1'"; }

# ------------------------------------------------------------ the daemon
section "the daemon"
# the e2e build (test hooks): connections idle for 3 s are closed, and one
# without a session has 2 s in all to send a whole request
SR_EXTRA_ENV="WARRANT_TEST_WEB_TIMEOUT=3${SR_NL}WARRANT_TEST_WEB_DEADLINE_MS=2000" start_daemon ||
    bail "warrant serve --http starts"
unset SR_EXTRA_ENV
ok "warrant serve --http 127.0.0.1:$PORT answers"
rev serve --http 0.0.0.0:1 >/dev/null 2>"$T.err"
check "a non-loopback address without --listen-any is refused" grep -q 'not a loopback' "$T.err"
rev serve --http 0.0.0.0:1 --listen-any >/dev/null 2>"$T.err"
check "--listen-any without TLS is refused" grep -q 'needs --tls-cert' "$T.err"
curl -s -D "$T.h" -o "$T" "$U/"
for h in "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'" \
    "frame-ancestors 'none'" "X-Content-Type-Options: nosniff" \
    "Referrer-Policy: no-referrer" "Cache-Control: no-store"; do
	check "every response: $h" grep -qF "$h" "$T.h"
done

# ------------------------------------------------------------ pairing
section "pairing"
rev pair >"$T.pair" 2>&1
TOK=$(grep -o '#token=[A-Za-z0-9_-]*' "$T.pair" | cut -d= -f2)
check "warrant pair prints the page's URL with the token in the fragment" \
    grep -q "^  $U/#token=[A-Za-z0-9_-]\{43\}\$" "$T.pair"
check "and a QR code in half blocks" grep -q '▀' "$T.pair"
check "the store keeps only the token's hash" \
    [ "$(sqlite3 "$SR_STATE/warrant.db" "SELECT count(*) FROM pair_tokens WHERE token_sha256 = '$(printf %s "$TOK" | sha256sum | cut -c1-64)'")" = 1 ]
check "the token itself is nowhere in the store" sh -c "! grep -rqF '$TOK' '$SR_STATE'"
api GET /api/gates
is "no session: 401" "$ST" 401
ST=$(curl -s -o "$T" -D "$T.h" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"token\":\"$TOK\",\"name\":\"curl\"}" "$U/api/pair")
is "the token is traded for a session" "$ST" 200
check "no cookie is set: the session is a name and a key" sh -c "! grep -qi '^Set-Cookie' '$T.h'"
KEY=$(jval "$T" 'j["key"]')
SESS=$(jval "$T" 'j["session"]')
DEV=$(jval "$T" 'j["device"]')
check "pairing answers the session's key: 43 random characters, not its name" \
    sh -c "printf %s '$KEY' | grep -qx '[A-Za-z0-9_-]\{43\}' && [ '$KEY' != '$SESS' ]"
check "the key is nowhere in the store" sh -c "! grep -rqF '$KEY' '$SR_STATE'"
check "nor the session's name" sh -c "! grep -rqF '$SESS' '$SR_STATE'"
ST=$(curl -s -o "$T" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"token\":\"$TOK\"}" "$U/api/pair")
is "a replayed pairing token is refused" "$ST:$(errcode)" 403:pairing_refused
rev pair --no-qr >"$T.pair2"
TOK2=$(grep -o '#token=[A-Za-z0-9_-]*' "$T.pair2" | cut -d= -f2)
sqlite3 "$SR_STATE/warrant.db" "UPDATE pair_tokens SET expires_at = 1 WHERE used_at IS NULL"
ST=$(curl -s -o "$T" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"token\":\"$TOK2\"}" "$U/api/pair")
is "an expired pairing token is refused" "$ST:$(errcode)" 403:pairing_refused
ST=$(curl -s -o "$T" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d '{"token":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}' "$U/api/pair")
is "an unknown pairing token is refused" "$ST" 403
api GET /api/gates
is "the session reads the gates" "$ST" 200
api GET /api/session
is "the session says its device" "$(jval "$T" 'j["device"]')" "$DEV"
check "the daemon proves it holds the session's key (hello)" [ "$PROOF_OK" = 1 ]
check "its answer is signed with the key" [ "$ANSWER_OK" = 1 ]
resend "$T.req"
is "the same signed call again (a replay): 401" "$ST:$(errcode)" 401:replayed
ST=$(curl -s -o "$T" -w '%{http_code}' -H "X-Warrant-Session: $SESS" "$U/api/gates")
is "the session's name without a signature: 401" "$ST:$(errcode)" 401:no_signature
KEY_RIGHT=$KEY
KEY=$(head -c 32 /dev/urandom | basenc --base64url | tr -d '=')
api GET /api/gates
is "a call signed with another key: 401" "$ST:$(errcode)" 401:bad_signature
check "... after a hello whose proof that key does not confirm" [ "$PROOF_OK" = 0 ]
KEY=$KEY_RIGHT
hello
printf '' >"$T.body"
jcheck "hello gives the daemon's clock, which the page signs with (a phone's own may be off)" \
    "abs(j['time'] - $(date +%s)) <= 5" "$T.hello"
STALE_MAC=$(python3 "$SIG" mac "$KEY" GET /api/gates "$T.body" 1000 "$NONCE")
ST=$(curl -s -o "$T" -D "$T.h" -w '%{http_code}' -H "X-Warrant-Session: $SESS" -H "X-Warrant-Nonce: $NONCE" \
    -H "X-Warrant-Time: 1000" -H "X-Warrant-Mac: $STALE_MAC" "$U/api/gates")
is "a call signed with a stale time: 401" "$ST:$(errcode)" 401:stale_time
check "... a refusal the daemon signs (the page tells it from someone else on the port)" \
    python3 "$SIG" answer "$KEY" "$STALE_MAC" 401 "$T" \
    "$(sed -n 's/^X-Warrant-Answer: \([A-Za-z0-9_-]*\).*/\1/p' "$T.h")"
ST=$(curl -s -o "$T" -D "$T.h" -w '%{http_code}' -H "X-Warrant-Session: $NOKEY43" -H "X-Warrant-Nonce: $NONCE" \
    -H "X-Warrant-Time: 1000" -H "X-Warrant-Mac: $STALE_MAC" "$U/api/gates")
is "a call of a session nobody paired: 401 no_session" "$ST:$(errcode)" 401:no_session
check "... unsigned" sh -c "! grep -qi '^X-Warrant-Answer:' '$T.h'"
hello
api POST "/api/gates/nothing/deny" '{}'
{ sed -n 1p "$T.req"; echo "/api/gates/other/deny"; sed -n '3,6p' "$T.req"; } >"$T.req2"
resend "$T.req2"
is "a signed call sent to another path: 401" "$ST:$(errcode)" 401:bad_signature
rev pair --list >"$T.list"
check "pair --list shows the device" grep -q "^$DEV  curl" "$T.list"

# ------------------------------------------------------------ requests that are refused
section "hostile requests"
# G0 also carries look-alikes: U+2215 DIVISION SLASH in a directory, an
# environment value and the reason, which the API escapes alike (the
# reason keeping the em dash prose uses)
LOOK="$SR_DIR/x$(printf '\342\210\225')home"
mkdir -p "$LOOK"
chmod 755 "$LOOK"
printf '{"reason":"see /tmp%sx \342\200\224 done","env":{"WT_LOOK":"a%sb"},"commands":[{"id":"a","why":"w","as":"user","argv":["/bin/true"],"cwd":"%s"}]}\n' \
    "$(printf '\342\210\225')" "$(printf '\342\210\225')" "$LOOK" >"$SR_DIR/g0.json"
gate "$SR_DIR/g0.json"
G0=$G
api GET "/api/gates/$G0"
jcheck "the directory shows its look-alike as <U+2215>" \
    "j['commands'][0]['cwd'] == '$SR_DIR/x<U+2215>home'" "$T"
jcheck "so does the environment's value" "j['env']['WT_LOOK'] == 'a<U+2215>b'" "$T"
jcheck "and the reason, which keeps its em dash" \
    "j['reason'] == 'see /tmp<U+2215>x \u2014 done'" "$T"
api GET /api/gates '' -H 'Host: evil.example'
is "DNS rebinding (Host: evil.example) is refused" "$ST:$(errcode)" 421:bad_host
ST=$(curl -s -o "$T" -w '%{http_code}' -H "Host: evil.example:$PORT" "$U/")
is "even for the page" "$ST" 421
api POST "/api/gates/$G0/deny" '{}' -H 'Origin: http://evil.example'
is "a POST from another origin is refused" "$ST:$(errcode)" 403:bad_origin
api POST "/api/gates/$G0/deny" '{}' -H 'Sec-Fetch-Site: cross-site'
is "Sec-Fetch-Site: cross-site is refused" "$ST:$(errcode)" 403:cross_site
api POST "/api/gates/$G0/deny" '{}' -H 'Sec-Fetch-Site: same-site'
is "Sec-Fetch-Site: same-site is refused" "$ST" 403
ST=$(curl -s -o "$T" -w '%{http_code}' -H "X-Warrant-Session: $SESS" \
    -H 'Content-Type: application/json' -d '{}' "$U/api/gates/$G0/deny")
is "a POST without a signature is refused" "$ST:$(errcode)" 401:no_signature
api POST "/api/gates/$G0/deny" '{}' -H 'Content-Type: text/plain'
is "a form-like POST (text/plain) is refused" "$ST:$(errcode)" 415:not_json
head -c 10485760 /dev/zero >"$SR_DIR/big"
api POST "/api/gates/$G0/deny" "@$SR_DIR/big"
is "a 10 MB body is refused (Content-Length)" "$ST:$(errcode)" 413:body_too_large
api POST "/api/gates/$G0/deny" "@$SR_DIR/big" -H 'Transfer-Encoding: chunked'
is "a 10 MB chunked body is refused" "$ST:$(errcode)" 413:body_too_large
ST=$(curl -s -o "$T" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -H 'X-Warrant-Timestamp: 1' -H 'X-Warrant-Signature: v1=00' -d '{"password":null}' \
    "$U/box/set-password")
is "the box password route is not the reviewer's daemon's (404)" "$ST:$(errcode)" 404:not_found
api GET "/api/gates/$G0"
is "after all of it the gate is still pending" "$ST:$(jval "$T" 'j["state"]')" 200:pending

# ------------------------------------------------------------ neutralised text
section "agent text"
printf '{"reason":"evil \\u202e txt.exe \\u001b[2J <script>alert(1)</script>","commands":[{"id":"a","why":"why \\u200b<img src=x onerror=alert(1)>","as":"user","argv":["/bin/echo","\\u001b]0;x\\u0007","\\u2066rtl"]}]}\n' >"$SR_DIR/g1.json"
gate "$SR_DIR/g1.json"
G1=$G
api GET "/api/gates/$G1"
is "GET /api/gates/ID" "$ST" 200
check "no escape, bidi or zero-width code point is sent" sh -c "! grep -qP '\\x1b|\\x07|\\x{202e}|\\x{2066}|\\x{200b}' '$T'"
jcheck "the bidi override is shown as <U+202E>" '"<U+202E>" in j["reason"]' "$T"
jcheck "ESC is shown as \\x1b" '"\\x1b[2J" in j["reason"]' "$T"
jcheck "argv is neutralised too" 'j["commands"][0]["argv"][1] == "\\x1b]0;x\\x07" and j["commands"][0]["argv"][2] == "<U+2066>rtl"' "$T"
jcheck "why is neutralised too" '"<U+200B>" in j["commands"][0]["why"]' "$T"
api GET /api/gates
jcheck "GET /api/gates lists the pending gates with their commands" \
    "sorted(g['request_id'] for g in j['gates']) == sorted(['$G0', '$G1']) and all(len(g['commands']) == 1 for g in j['gates'])" "$T"
printf '{"reason":"r","commands":[{"id":"a","why":"w","as":"user","argv":["/bin/echo","\\u2010n","\\u05d0\\u05d1-/x"]}]}\n' >"$SR_DIR/g1b.json"
gate "$SR_DIR/g1b.json"
api GET "/api/gates/$G"
jcheck "argv words: a look-alike escaped (<U+2010>n), a right-to-left word isolated" \
    'j["commands"][0]["argv"][1] == "<U+2010>n" and j["commands"][0]["argv"][2] == "\u2066\u05d0\u05d1-/x\u2069" and {"lookalike", "rtl-text"} <= set(j["commands"][0]["badges"])' "$T"
api POST "/api/gates/$G/deny" '{}'

# ------------------------------------------------------------ deny
section "deny"
api POST "/api/gates/$G1/deny" '{"feedback":"not today"}'
is "POST /api/gates/ID/deny denies" "$ST:$(jval "$T" 'j["state"]')" 200:denied
rev show -j "$G1" >"$T.show"
jcheck "the gate is denied with the feedback" 'j["state"] == "denied" and j["feedback"] == "not today"' "$T.show"
api POST "/api/gates/$G1/deny" '{}'
is "denying it again: 409 not_pending" "$ST:$(errcode)" 409:not_pending
api POST "/api/gates/w-zzzzzzzzzz/deny" '{}'
is "an unknown gate: 404" "$ST:$(errcode)" 404:unknown_gate
api POST "/api/gates/$G0/deny" '{"feedback":7}'
is "a feedback that is not a string: 400" "$ST:$(errcode)" 400:invalid_field

# ------------------------------------------------------------ approve
section "approve"
MARK=$SR_DIR/root-mark
printf '{"reason":"root","commands":[{"id":"r","why":"w","argv":["/usr/bin/touch","%s"]},{"id":"y","why":"w","as":"user","argv":["/usr/bin/touch","%s-you"]}]}\n' "$MARK" "$MARK" >"$SR_DIR/g2.json"
gate "$SR_DIR/g2.json"
G2=$G H2=$H
api GET "/api/gates/$G2"
jcheck "a gate with a ROOT command shows the exact terminal command" \
    "j['terminal_command'] == 'warrant answer $G2 --run --expect $H2'" "$T"
api POST "/api/gates/$G2/approve" "{\"manifest_sha256\":\"$H2\",\"commands\":[\"r\"]}"
is "[P3] approving a ROOT command through the API is refused" "$ST:$(errcode)" 403:root_needs_terminal
api POST "/api/gates/$G2/approve" "{\"manifest_sha256\":\"$H2\",\"commands\":[\"y\",\"r\"]}"
is "[P3] and so is a selection with one ROOT command in it" "$ST:$(errcode)" 403:root_needs_terminal
sleep 0.3
check "[P3] nothing ran" [ ! -e "$MARK" ] && [ ! -e "$MARK-you" ]
is "[P3] no approval was even attempted" "$(attempts_of "$G2")" 0
# the passkey routes, with no passkey enrolled: the ROOT gate is not
# approved through them either
api GET "/api/passkey"
jcheck "GET /api/passkey: nothing enrolled" "j == {'enrolled': False}" "$T"
api POST "/api/gates/$G2/passkey" "{\"manifest_sha256\":\"$H2\",\"commands\":[\"r\"]}"
is "[P3] a passkey approval with no passkey enrolled is refused (passkey_not_enrolled)" \
    "$ST:$(errcode)" 409:passkey_not_enrolled
check "[P3] and nothing ran" [ ! -e "$MARK" ]
api POST "/api/gates/$G2/passkey/assertion" '{"ceremony":"x","authenticator_data":"AA","client_data_json":"AA","signature":"AA"}'
is "an assertion with no ceremony: passkey_no_ceremony" "$ST:$(errcode)" 409:passkey_no_ceremony
api POST "/api/passkey/register" '{"code":"not-a-code"}'
is "register with something that is not the code: passkey_code" "$ST:$(errcode)" 400:passkey_code
api POST "/api/passkey/staged" '{"code":"ABCD-2345","rp_id":"localhost","credential_id":"AA","public_key":"AA","authenticator_data":"AA","client_data_json":"AA"}'
is "a staged passkey that answers no code: passkey_registration_invalid" "$ST:$(errcode)" \
    422:passkey_registration_invalid
# a well-made registration for the code, but for an address (the tests'
# software passkey)
sr_soft_passkey "$SR_DIR/pk" "$REV"
python3 "$SR_DIR/pk/pk-auth.py" register ABCD-2345 "$REV" 127.0.0.1 "$U" |
    python3 -c 'import json, sys; j = json.load(sys.stdin); j["code"] = "abcd 2345"; print(json.dumps(j))' \
    >"$SR_DIR/staged-ip.json"
api POST "/api/passkey/staged" "@$SR_DIR/staged-ip.json"
is "a staged passkey for an address: passkey_rp_not_name" "$ST:$(errcode)" 422:passkey_rp_not_name
check "... and nothing was staged" [ ! -e "$SR_STATE/passkey-new.json" ]
is "[P3] the gate stays pending" "$(state_of "$G2")" pending
check "[P3] the daemon started no sudo" sh -c "! grep -q 'sudo' '$SR_DIR/serve.log'"
YM=$SR_DIR/you-mark
printf '{"reason":"you","commands":[{"id":"one","why":"w","as":"user","argv":["/usr/bin/touch","%s"]},{"id":"two","why":"w","as":"user","argv":["/usr/bin/touch","%s-2"]}]}\n' "$YM" "$YM" >"$SR_DIR/g3.json"
chmod 777 "$SR_DIR"
gate "$SR_DIR/g3.json"
G3=$G H3=$H
api POST "/api/gates/$G3/approve" "{\"manifest_sha256\":\"$(printf %064d 0)\",\"commands\":[\"one\"]}"
is "approval with a stale manifest hash is refused" "$ST:$(errcode)" 409:gate_changed
api POST "/api/gates/$G3/approve" "{\"manifest_sha256\":\"$H3\",\"commands\":[\"three\"]}"
is "approval of an unknown command id is refused" "$ST:$(errcode)" 422:unknown_command
api POST "/api/gates/$G3/approve" "{\"manifest_sha256\":\"$H3\",\"commands\":[]}"
is "approval of nothing is refused" "$ST:$(errcode)" 400:invalid_field
check "nothing ran yet" [ ! -e "$YM" ]
api POST "/api/gates/$G3/approve" "{\"manifest_sha256\":\"$H3\",\"commands\":[\"one\"]}"
is "a YOU-only approval of the ticked subset runs" "$ST:$(jval "$T" 'j["status"]')" 200:approved
check "the ticked command ran, as the reviewer" [ "$(stat -c %U "$YM" 2>/dev/null)" = "$REV" ]
check "the unticked one did not" [ ! -e "$YM-2" ]
api GET "/api/gates/$G3"
jcheck "the gate shows its ledger" 'j["state"] == "approved" and j["ledger"]["entries"][0]["id"] == "one"' "$T"
# A constructed ledger: the runner side of the run-time supervisor is
# tested in tests/e2e/test-confine.sh; here a ROOT entry with a confinement
# record whose path and reason an agent chose (ESC, U+202E) is written into
# the stored ledger (the store edited with the sqlite3 CLI, as above).
sqlite3 "$SR_STATE/warrant.db" "UPDATE ledgers SET ledger = json_set(ledger,
    '\$.entries[1].as', 'root', '\$.entries[1].status', 'failed',
    '\$.entries[1].confinement', json('{\"executed\":[],\"written\":[],
    \"refused\":[{\"call\":\"open\",\"path\":\"/home/a/proj/Makefile\\u001b[2J\\u202e\",
    \"reason\":\"the requester can change it\\u001b[2J\\u202e\"}],
    \"omitted\":{\"executed\":0,\"written\":0,\"refused\":3},\"unconfined\":false}'))
    WHERE gate_id = '$G3'"
api GET "/api/gates/$G3"
jcheck "a ROOT entry's refused access: its path neutralised on the page's API" \
    'j["ledger"]["entries"][1]["confinement"]["refused"][0]["path"] == "/home/a/proj/Makefile\\x1b[2J<U+202E>"' "$T"
jcheck "... its reason too, and the count of the others" \
    'j["ledger"]["entries"][1]["confinement"]["refused"][0]["reason"] == "the requester can change it\\x1b[2J<U+202E>" and j["ledger"]["entries"][1]["confinement"]["omitted"]["refused"] == 3' "$T"
api POST "/api/gates/$G3/approve" "{\"manifest_sha256\":\"$H3\",\"commands\":[\"two\"]}"
is "[P7] approving it again is refused" "$ST:$(errcode)" 409:not_pending
check "[P7] and ran nothing" [ ! -e "$YM-2" ]
chmod 755 "$SR_DIR"

# ------------------------------------------------------------ events
section "events"
api POST /api/events/ticket '{}'
TICKET=$(jval "$T" 'j["ticket"]')
is "POST /api/events/ticket gives a ticket" "$ST:${#TICKET}" 200:43
curl -s -N --max-time 2 "$U/api/events?ticket=$TICKET" >"$T.sse"
check "GET /api/events?ticket= streams the gate count" grep -q '^data: {"pending":' "$T.sse"
ST=$(curl -s -o "$T" -w '%{http_code}' --max-time 2 "$U/api/events?ticket=$TICKET")
is "a ticket is good once" "$ST:$(errcode)" 401:no_session
ST=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$U/api/events")
is "the event stream needs a session" "$ST" 401

# ------------------------------------------------------------ the page in Chromium
section "the page in Chromium"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
SHOTS=$WARRANT_BUILD/test-web-shots
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null 2>&1; then
	for d in "pair from the printed link" "see the gates" "deny with feedback" \
	    "approve YOU-only" "ROOT gate: the terminal command, no approve control"; do
		skip "$d" "chromium or node is missing (scripts/deps.sh)"
	done
else
	rm -rf "$SHOTS"
	mkdir -p "$SHOTS"
	printf '{"reason":"deny me \\u202e","commands":[{"id":"d","why":"w","as":"user","argv":["/usr/bin/touch","%s/deny-mark"]}]}\n' "$SR_DIR" >"$SR_DIR/b1.json"
	gate "$SR_DIR/b1.json"
	GD=$G
	printf '{"reason":"root only","commands":[{"id":"r1","why":"w","argv":["/usr/bin/touch","%s"]}]}\n' "$RMARK" >"$SR_DIR/b3.json"
	gate "$SR_DIR/b3.json"
	GR=$G HR=$H
	chmod 777 "$SR_DIR"
	printf '{"reason":"run me","commands":[{"id":"y1","why":"w","as":"user","argv":["/bin/sh","-c","echo hello-from-you; touch %s/page-mark"]}]}\n' "$SR_DIR" >"$SR_DIR/b2.json"
	gate "$SR_DIR/b2.json"
	GY=$G
	rev pair --no-qr >"$T.bpair"
	BURL=$(grep -o "$U/#token=[A-Za-z0-9_-]*" "$T.bpair")
	cat >"$SR_DIR/steps.json" <<EOF
[{"open": "$BURL"},
 {"wait": "document.querySelectorAll('#pending article.gate').length >= 3"},
 {"eval": "location.href"},
 {"eval": "document.querySelector('article[data-gate=\"$GR\"] code.term').textContent"},
 {"eval": "document.querySelectorAll('article[data-gate=\"$GR\"] button.approve, article[data-gate=\"$GR\"] input[type=checkbox]').length"},
 {"eval": "document.querySelector('article[data-gate=\"$GD\"] .reason').textContent"},
 {"eval": "document.querySelectorAll('script, img, b').length"},
 {"shot": "$SHOTS/list-390x844.png"},
 {"type": ["article[data-gate=\"$GD\"] textarea", "not from the phone"]},
 {"click": "article[data-gate=\"$GD\"] button.deny"},
 {"wait": "!document.querySelector('#pending article[data-gate=\"$GD\"]')"},
 {"click": "article[data-gate=\"$GY\"] button.approve", "when": "document.getElementById('pending').dataset.steady !== '0'"},
 {"eval": "document.querySelector('article[data-gate=\"$GY\"] button.approve').textContent"},
 {"click": "article[data-gate=\"$GY\"] button.approve", "when": "document.getElementById('pending').dataset.steady !== '0'"},
 {"wait": "(document.querySelector('#recent article[data-gate=\"$GY\"]') || {textContent: ''}).textContent.includes('hello-from-you')", "ms": 20000},
 {"eval": "document.querySelector('#recent article[data-gate=\"$GY\"]').scrollIntoView(), 1"},
 {"shot": "$SHOTS/gate-390x844.png"},
 {"eval": "document.getElementById('passkey').open = true, document.getElementById('pk-state').textContent"},
 {"type": ["#pk-code", "abcd-2345"]},
 {"click": "#pk-add"},
 {"wait": "document.getElementById('pk-status').textContent.includes('not an address')"}]
EOF
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome" "$SR_DIR/steps.json" \
	    >"$T.cdp" 2>"$T.cdp.err"
	step() { sed -n "${1}p" "$T.cdp" | jscan "$2" >/dev/null 2>&1; }
	check "pair from the printed link (the token leaves the address bar)" step 3 "j['value'] == '$U/'"
	check "the ROOT gate shows the exact terminal command" step 4 "j['value'] == 'warrant answer $GR --run --expect $HR'"
	check "[P3] and no approve control" step 5 "j['value'] == 0"
	check "[P6] agent text is shown neutralised, as text" step 6 "j['value'] == 'deny me <U+202E>'"
	check "no markup from the agent became an element" step 7 "j['value'] == 1"
	check "a screenshot of the list at 390x844" [ -s "$SHOTS/list-390x844.png" ]
	check "deny with feedback from the page" step 11 "j['ok']"
	rev wait -j -t 5 "$GD" >"$T.wait" 2>&1
	jcheck "the agent's wait sees the denial and the feedback" \
	    'j["state"] == "denied" and j["feedback"] == "not from the phone"' "$T.wait"
	check "the first tap on Run only asks, naming the gate and its requester" \
	    step 13 "j['value'] == 'Run 1 command of $GY from $REV as you: tap again'"
	check "approve a YOU-only gate with the second: its ledger shows up on the page" step 15 "j['ok']"
	check "it ran" [ -e "$SR_DIR/page-mark" ]
	check "a screenshot of the settled gate" [ -s "$SHOTS/gate-390x844.png" ]
	check "no passkey is enrolled, and the page says so" step 18 "j['value'] == 'No passkey is enrolled.'"
	check "on 127.0.0.1 the page makes no passkey: a passkey needs a name (localhost)" step 21 "j['ok']"
	check "[P3] the ROOT gate's command did not run" [ ! -e "$RMARK" ]
	is "[P3] and its gate is pending" "$(state_of "$GR")" pending
	if [ "$fails" -ne 0 ]; then diag "$(cat "$T.cdp" "$T.cdp.err" | tail -c 1500)"; fi
	chmod 755 "$SR_DIR"
fi

# ------------------------------------------------------------ a card arriving during a tap
section "what you tap is what you read"
# The reviewer has gate A on the screen, its Run button under the finger;
# then a look-alike B arrives (the agent's, in the attack). B goes below
# A, A stays where it was, a tap at that very moment (in the page, as the
# new card lands) does nothing but say so, and the taps after approve A,
# named, and never B.
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null 2>&1; then
	skip "a card arriving during a tap approves nothing unintended" "chromium or node is missing"
else
	chmod 777 "$SR_DIR"
	for x in a b; do
		printf '{"reason":"look here","commands":[{"id":"a1","why":"w","as":"user","argv":["/usr/bin/touch","%s/tap-%s"]}]}\n' \
		    "$SR_DIR" "$x" >"$SR_DIR/t$x.json"
	done
	gate "$SR_DIR/ta.json"
	GA=$G
	A="#pending article[data-gate=\\\"$GA\\\"]"
	LAST="#pending article.gate:last-child"
	cat >"$SR_DIR/tap-steps.json" <<EOF
[{"open": "$(pair_link)"},
 {"wait": "document.querySelector('$A button.approve') && document.getElementById('pending').dataset.steady !== '0'", "ms": 20000},
 {"eval": "document.querySelector('$A textarea').focus(), document.querySelector('$A').scrollIntoView({block: 'start'}), window.wtAt = (r => [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)])(document.querySelector('$A button.approve').getBoundingClientRect())"},
 {"eval": "new Promise(ok => { const pend = document.getElementById('pending'); const look = () => { const b = pend.querySelector('article.gate:last-child'); if (!b || b.getAttribute('data-gate') === '$GA') return false; const hit = document.elementFromPoint(window.wtAt[0], window.wtAt[1]); const same = hit === document.querySelector('$A button.approve'); if (hit) hit.click(); ok({ b: b.getAttribute('data-gate'), same, focused: document.activeElement === document.querySelector('$A textarea'), armed: document.querySelectorAll('button.confirm').length, notice: document.getElementById('notice').textContent }); return true; }; if (!look()) new MutationObserver((m, o) => { if (look()) o.disconnect(); }).observe(pend, { childList: true }); })"},
 {"wait": "document.getElementById('pending').dataset.steady !== '0'"},
 {"eval": "(b => [document.elementFromPoint(window.wtAt[0], window.wtAt[1]) === document.querySelector('$A button.approve'), !!(document.querySelector('$A').compareDocumentPosition(b) & 4), b.getBoundingClientRect().top < innerHeight])(document.querySelector('$LAST'))"},
 {"tap": "window.wtAt"},
 {"eval": "document.querySelector('$A button.approve').textContent + '|' + document.querySelectorAll('$LAST button.confirm').length"},
 {"eval": "(() => { let last = document.querySelector('$LAST').getBoundingClientRect().top; window.wtMoved = null; new MutationObserver(() => { const t = document.querySelector('$LAST').getBoundingClientRect().top; if (!document.querySelector('$A') && window.wtMoved === null) window.wtMoved = t - last; last = t; }).observe(document.body, { childList: true, subtree: true, characterData: true }); return true; })()"},
 {"tap": "window.wtAt"},
 {"wait": "(document.querySelector('#recent article[data-gate=\"$GA\"]') || {textContent: ''}).textContent.includes('completed')", "ms": 20000},
 {"eval": "window.wtMoved"}]
EOF
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome-tap" "$SR_DIR/tap-steps.json" \
	    >"$T.tap" 2>"$T.tap.err" &
	TAPPID=$!
	# B is made once the page has A under the finger (step 3 printed)
	i=0
	until [ "$(grep -c '"ok":true' "$T.tap" 2>/dev/null)" -ge 3 ] || [ "$i" -ge 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	gate "$SR_DIR/tb.json"
	GB=$G
	wait "$TAPPID"
	tstep() { sed -n "${1}p" "$T.tap" | jscan "$2" >/dev/null 2>&1; }
	check "B arrived while A was on the screen" tstep 4 "j['value']['b'] == '$GB'"
	check "A did not move: its Run button is still under the finger" tstep 4 "j['value']['same'] is True"
	check "the feedback field being typed in kept its focus (a phone's keyboard stays open)" \
	    tstep 4 "j['value']['focused'] is True"
	check "a tap as B landed armed nothing and said the list changed" \
	    tstep 4 "j['value']['armed'] == 0 and 'just changed' in j['value']['notice']"
	check "B came below A, in view; A's button is still where it was" tstep 6 "j['value'] == [True, True, True]"
	check "the first tap arms A's Run, naming A and its requester; B's is not armed" \
	    tstep 8 "j['value'] == 'Run 1 command of $GA from $REV as you: tap again|0'"
	check "the second tap runs A" tstep 11 "j['ok']"
	check "A ran" [ -e "$SR_DIR/tap-a" ]
	check "B did not run" [ ! -e "$SR_DIR/tap-b" ]
	is "... and B is still pending" "$(state_of "$GB")" pending
	check "after approving, the view stays where it was: B did not move as A left the list" \
	    tstep 12 "j['value'] is not None and abs(j['value']) < 1"
	if [ "$fails" -ne 0 ]; then diag "$(cat "$T.tap" "$T.tap.err" | tail -c 1500)"; fi
	rev answer "$GB" --deny >/dev/null 2>&1
	chmod 755 "$SR_DIR"
fi

# ------------------------------------------------------------ issue 23 in Chromium
section "the cookie is not a session; the page shows what it approves; a flood"
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null 2>&1; then
	for d in "an agent's page on another port receives the cookie, and it is worth nothing" \
	    "the page shows a reviewed file's text" "no approve control for a binary file" \
	    "argv words in their own boxes" "the page loads and approves under a flood"; do
		skip "$d" "chromium or node is missing (scripts/deps.sh)"
	done
else
	AG=$SR_USER2
	# as_agent CMD...: CMD as the agent user, in the background; its pid in $!
	as_agent() {
		(
			set -f
			IFS=$SR_NL
			# shellcheck disable=SC2046
			set -- $(sr_as_words "$AG") "$@"
			unset IFS
			exec "$@"
		) &
	}
	mkdir -p "$SR_DIR/agent"
	chown "$AG" "$SR_DIR/agent"
	chmod 777 "$SR_DIR"
	# a gate with an inline script (long: "Show all") and a long argv,
	# one of whose words imitates two; and one with a binary snapshot
	head -c 200 /dev/urandom >"$SR_DIR/blob.bin"
	printf '\0\1\2' >>"$SR_DIR/blob.bin"
	chmod 644 "$SR_DIR/blob.bin"
	"$PY" - "$SR_DIR" <<'EOF'
import json, sys
d = sys.argv[1]
script = "".join("# line %d of the review: nothing to see here, keep reading\n" % i for i in range(60))
script += "echo lint-ok\ntouch %s/lint-mark\n" % d
argv = ["/bin/sh", {"file": "lint.sh"}, "safe  [file notes.txt]"] + \
    ["--option-number-%d=some-long-value-%d" % (i, i) for i in range(12)]
json.dump({"reason": "lint the project", "commands": [{"id": "lint", "why": "w", "as": "user",
    "argv": argv}], "files": {"lint.sh": {"content": script, "mode": "0644"}}},
    open(d + "/b4.json", "w"))
json.dump({"reason": "cat a binary", "commands": [{"id": "bin", "why": "w", "as": "user",
    "argv": ["/usr/bin/touch", "%s/bin-mark" % d, {"file": "blob.bin"}]}],
    "files": {"blob.bin": {"snapshot": d + "/blob.bin"}}}, open(d + "/b5.json", "w"))
EOF
	gate "$SR_DIR/b4.json"
	GL=$G HL=$H
	gate "$SR_DIR/b5.json"
	GB=$G HB=$H
	NARGV=$(rev show -j "$GL" | jscan 'len(j["commands"][0]["argv"])')
	# the agent's own web server on another port of 127.0.0.1: it logs the
	# Cookie header of each request it gets
	APORT=$(free_port)
	cat >"$SR_DIR/agent.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(sys.argv[2], "a") as f:
            f.write((self.headers.get("Cookie") or "") + "\n")
        body = b"<!doctype html><title>dev server</title><p>my dev server</p>"
        self.send_response(200)
        # cookie tossing: a cookie of the page's old name, for every port
        self.send_header("Set-Cookie", "warrant=tossed; Path=/; HttpOnly; SameSite=Strict")
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
	chmod 644 "$SR_DIR/agent.py"
	as_agent python3 "$SR_DIR/agent.py" "$APORT" "$SR_DIR/agent/cookies"
	APID=$!
	at_exit "kill $APID 2>/dev/null"
	i=0
	until curl -s -o /dev/null "http://127.0.0.1:$APORT/x" || [ "$i" -ge 50 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	: >"$SR_DIR/agent/cookies"
	rev pair --no-qr >"$T.cpair"
	CURL2=$(grep -o "$U/#token=[A-Za-z0-9_-]*" "$T.cpair")
	# selectors for the steps' JSON strings: the quotes escaped
	L="article[data-gate=\\\"$GL\\\"]"
	B="article[data-gate=\\\"$GB\\\"]"
	cat >"$SR_DIR/steps2.json" <<EOF
[{"open": "$CURL2"},
 {"wait": "document.querySelector('$L .file pre.content') && document.querySelector('$B')"},
 {"eval": "document.querySelector('$L .file[data-file=\"lint.sh\"] pre.content').textContent.startsWith('# line 0 of the review')"},
 {"eval": "document.querySelectorAll('$L button.show-all').length"},
 {"eval": "document.querySelectorAll('$L li .argv .word').length"},
 {"eval": "[...document.querySelectorAll('$L li .argv .word')].map(w => w.querySelector('.idx').textContent + '|' + w.querySelector('.w').textContent)[2]"},
 {"eval": "document.querySelectorAll('$L input[type=checkbox][data-id=\"lint\"], $L button.approve').length"},
 {"eval": "document.querySelector('$L').scrollIntoView(), 1"},
 {"shot": "$SHOTS/long-argv-file-390x844.png"},
 {"click": "$L button.show-all"},
 {"eval": "document.querySelector('$L .file pre.content').textContent.includes('echo lint-ok')"},
 {"eval": "document.querySelectorAll('$B input[type=checkbox], $B button.approve').length"},
 {"eval": "document.querySelector('$B .file .not-shown').textContent"},
 {"eval": "new Promise(ok => { const o = indexedDB.open('warrant', 1); o.onsuccess = () => { const g = o.result.transaction('session').objectStore('session').get('current'); g.onsuccess = () => ok(g.result.key instanceof CryptoKey && g.result.key.extractable === false && localStorage.length === 0); }; })"},
 {"eval": "document.querySelector('$L .file').scrollIntoView(), 1"},
 {"shot": "$SHOTS/file-text-390x844.png"},
 {"eval": "[...document.querySelectorAll('$L li .argv .word .w')].every(w => w.tagName === 'BDI' && w.dir === 'ltr')"},
 {"open": "http://127.0.0.1:$APORT/dev"},
 {"wait": "document.body && document.body.textContent.includes('my dev server')"},
 {"open": "$U/"},
 {"wait": "document.getElementById('conn').textContent.startsWith('device') || document.getElementById('conn').textContent === 'live'"}]
EOF
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome2" "$SR_DIR/steps2.json" \
	    >"$T.cdp2" 2>"$T.cdp2.err"
	step2() { sed -n "${1}p" "$T.cdp2" | jscan "$2" >/dev/null 2>&1; }
	check "the page shows an inline script's text" step2 3 "j['value'] is True"
	check "... cut, with \"Show all\"" step2 4 "j['value'] == 1"
	check "argv: each word its own box ($NARGV words)" step2 5 "j['value'] == $NARGV"
	check "... with its index: a word with spaces and brackets stays one word" \
	    step2 6 "j['value'] == '2|safe  [file notes.txt]'"
	check "the command whose file is shown can be ticked and approved" step2 7 "j['value'] == 2"
	check "a screenshot at 390x844 of a gate with a long argv and a file" \
	    [ -s "$SHOTS/long-argv-file-390x844.png" ]
	check "\"Show all\" shows the whole script" step2 11 "j['value'] is True"
	check "a binary snapshot: no approve control for its command" step2 12 "j['value'] == 0"
	check "... and the page says to use the terminal" step2 13 \
	    "'binary' in j['value'] and 'warrant show $GB' in j['value']"
	check "the key is a CryptoKey that cannot be exported, in this origin's IndexedDB" \
	    step2 14 "j['value'] is True"
	check "a screenshot of the file's text after \"Show all\"" [ -s "$SHOTS/file-text-390x844.png" ]
	check "each argv word is its own left-to-right isolate (<bdi dir=ltr>)" step2 17 "j['value'] is True"
	check "the agent's page on 127.0.0.1:$APORT opened in the paired browser" step2 19 "j['ok']"
	api POST "/api/gates/$GB/approve" "{\"manifest_sha256\":\"$HB\",\"commands\":[\"bin\"]}"
	is "the API refuses approving a command whose file the page cannot show" \
	    "$ST:$(errcode)" 403:file_not_shown
	check "... and nothing ran" [ ! -e "$SR_DIR/bin-mark" ]
	is "... nor was an approval attempted" "$(attempts_of "$GB")" 0

	# what the agent got, and all it can do with it
	check "the page tossed a cookie from another port is still paired" step2 21 "j['ok']"
	STOLEN=$(grep -o 'warrant=[A-Za-z0-9_-]*' "$SR_DIR/agent/cookies" | grep -v tossed | tail -1 | cut -d= -f2)
	check "the agent's server on another port received no cookie of the page (it sets none)" \
	    [ -z "$STOLEN" ]
	CSRF_OLD=$(printf 'warrant-csrf\n%s' "$STOLEN" | sha256sum | cut -c1-64)
	SHA_C=$(printf %s "$STOLEN" | sha256sum | cut -c1-64)
	forged() {
		# every header curl can forge, each token one could compute from the cookie
		for fk in "" "$STOLEN" "$CSRF_OLD" "$SHA_C"; do
			ST=$(curl -s -o "$T" -w '%{http_code}' --max-time 3 -H "Cookie: warrant=$STOLEN" \
			    -H "Origin: $U" -H "Referer: $U/" -H 'Sec-Fetch-Site: same-origin' \
			    -H 'Sec-Fetch-Mode: cors' -H 'Sec-Fetch-Dest: empty' \
			    -H "X-Warrant-CSRF: $CSRF_OLD" -H "X-Warrant-Key: $fk" "$@")
			printf '%s ' "$ST"
		done
	}
	YOUM=$SR_DIR/agent-you-mark
	printf '{"reason":"agent","commands":[{"id":"x","why":"w","as":"user","argv":["/usr/bin/touch","%s"]}]}\n' "$YOUM" >"$SR_DIR/b6.json"
	gate "$SR_DIR/b6.json"
	GX=$G HX=$H
	is "with the stolen cookie: reading the list is 401" "$(forged "$U/api/gates?all=1")" "401 401 401 401 "
	is "... reading a gate is 401" "$(forged "$U/api/gates/$GX")" "401 401 401 401 "
	is "... the session is 401" "$(forged "$U/api/session")" "401 401 401 401 "
	is "... denying is 401" "$(forged -H 'Content-Type: application/json' -d '{}' \
	    "$U/api/gates/$GX/deny")" "401 401 401 401 "
	is "... approving its own YOU command is 401" "$(forged -H 'Content-Type: application/json' \
	    -d "{\"manifest_sha256\":\"$HX\",\"commands\":[\"x\"]}" "$U/api/gates/$GX/approve")" \
	    "401 401 401 401 "
	is "... a ticket to the event stream is 401" "$(forged -H 'Content-Type: application/json' \
	    -d '{}' "$U/api/events/ticket")" "401 401 401 401 "
	is "... the event stream is 401" "$(forged "$U/api/events")" "401 401 401 401 "
	is "... with a ticket made of the cookie, too" "$(forged "$U/api/events?ticket=$STOLEN")" \
	    "401 401 401 401 "
	curl -s -N --max-time 2 -H "Cookie: warrant=$STOLEN" "$U/api/events" >"$T.sse2"
	check "the event stream gave the cookie nothing" sh -c "! grep -q 'data:' '$T.sse2'"
	sleep 0.3
	check "no YOU command of the agent's ran" [ ! -e "$YOUM" ]
	is "its gate is still pending" "$(state_of "$GX")" pending
	is "and no approval was attempted" "$(attempts_of "$GX")" 0
	kill "$APID" 2>/dev/null
	wait "$APID" 2>/dev/null

	# a squatter, as the agent user, on the page's port while the daemon
	# restarts: the open page's retries reach it; it records every request
	cat >"$SR_DIR/squat.py" <<'PY'
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def rec(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode("utf-8", "replace") if n else ""
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                "headers": dict(self.headers.items()), "body": body}) + "\n")
        out = json.dumps({"nonce": "A" * 54, "proof": "B" * 43, "gates": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    do_GET = do_POST = rec
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer.allow_reuse_address = True
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
	chmod 644 "$SR_DIR/squat.py"
	SQ=$SR_DIR/agent/squat.jsonl
	cat >"$SR_DIR/steps3.json" <<STEPS
[{"open": "$U/"},
 {"wait": "document.getElementById('conn').textContent === 'live'", "ms": 20000},
 {"wait": "document.getElementById('notice').textContent.includes('could not prove')", "ms": 40000},
 {"wait": "document.getElementById('conn').textContent === 'live' && document.getElementById('notice').hidden", "ms": 40000},
 {"eval": "document.querySelectorAll('#pending article.gate').length > 0"}]
STEPS
	: >"$T.cdp3"
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome2" "$SR_DIR/steps3.json" \
	    >"$T.cdp3" 2>"$T.cdp3.err" &
	CPID=$!
	i=0
	until [ "$(wc -l <"$T.cdp3")" -ge 2 ] || [ "$i" -ge 300 ]; do i=$((i + 1)); sleep 0.1; done
	stop_daemon TERM
	as_agent python3 "$SR_DIR/squat.py" "$PORT" "$SQ"
	SQPID=$!
	i=0
	until [ "$(wc -l <"$T.cdp3")" -ge 3 ] || [ "$i" -ge 400 ]; do i=$((i + 1)); sleep 0.1; done
	kill "$SQPID" 2>/dev/null
	wait "$SQPID" 2>/dev/null
	SR_EXTRA_ENV="WARRANT_TEST_WEB_TIMEOUT=3${SR_NL}WARRANT_TEST_WEB_DEADLINE_MS=2000" start_daemon
	unset SR_EXTRA_ENV
	wait "$CPID"
	step3() { sed -n "${1}p" "$T.cdp3" | jscan "$2" >/dev/null 2>&1; }
	check "a squatter on the port: the open page says whoever answers could not prove it is the daemon" \
	    step3 3 "j['ok']"
	check "after the restart the page is live again and shows the gates" step3 5 "j['value'] is True"
	check "the squatter recorded the page's requests" [ -s "$SQ" ]
	check "... no cookie" sh -c "! grep -qi '\"cookie\"' '$SQ'"
	check "... no signed call (the page sent nothing past the hello)" \
	    sh -c "! grep -qi 'x-warrant-mac' '$SQ' && ! grep -q '/api/gates' '$SQ'"
	# the key of every session it heard named, as the daemon derives it
	cp "$SR_STATE/web.key" "$SR_DIR/web.key" && chmod 644 "$SR_DIR/web.key"
	NOKEY=1
	for sn in $(python3 -c 'import json, sys
for l in open(sys.argv[1]): print(json.loads(l)["headers"].get("X-Warrant-Session", ""))' "$SQ" | sort -u); do
		k=$(python3 "$SIG" derive "$SR_DIR/web.key" "$sn")
		grep -qF "$k" "$SQ" && NOKEY=0
	done
	rm -f "$SR_DIR/web.key"
	check "... no session key" [ "$NOKEY" = 1 ]
	# everything it recorded, sent to the daemon again
	cat >"$SR_DIR/replay.py" <<'PY'
import http.client, json, sys
for line in open(sys.argv[2]):
    r = json.loads(line)
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
    h = {k: v for k, v in r["headers"].items() if k.lower() not in ("content-length", "connection")}
    c.request(r["method"], r["path"], body=r["body"].encode() or None, headers=h)
    a = c.getresponse()
    a.read()
    print(r["path"], a.status)
PY
	python3 "$SR_DIR/replay.py" "$PORT" "$SQ" >"$T.replay"
	# a hello answers anyone who names a session: a nonce and a proof, of no use without the key
	check "replaying what the squatter recorded gets no call through" \
	    sh -c "! grep -v '^/api/hello ' '$T.replay' | grep -q ' 2[0-9][0-9]\$'"

	# a slow-header flood from 127.0.0.1-5, as the agent user, while the
	# paired browser loads the page and approves
	cat >"$SR_DIR/flood.py" <<'PY'
import os, socket, sys, time, select
port, secs, out, stop = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
addrs = ["127.0.0.%d" % i for i in range(1, 6)]
conns, made, cut = {}, 0, 0
def connect(a):
    global made
    try:
        s = socket.socket()
        s.setblocking(False)
        s.bind((a, 0))
        s.connect_ex(("127.0.0.1", port))
        made += 1
        return s
    except OSError:
        return None
slots = [(a, k) for a in addrs for k in range(16)]
for sl in slots:
    conns[sl] = connect(sl[0])
end = time.time() + secs
nxt = time.time()
while time.time() < end and not os.path.exists(stop):
    live = [s for s in conns.values() if s is not None]
    r, _, _ = select.select(live, [], [], 0.05)
    for sl, s in list(conns.items()):
        if s is None or s in r:
            if s is not None:
                try:
                    d = s.recv(4096)
                except OSError:
                    d = b""
                if d:
                    continue
                cut += 1
                s.close()
            conns[sl] = connect(sl[0])
            if conns[sl] is not None:
                try:
                    conns[sl].send(b"GET / HTTP/1.1\r\n")
                except OSError:
                    pass
    if time.time() >= nxt:
        nxt = time.time() + 0.5
        for s in conns.values():
            try:
                if s is not None:
                    s.send(b"X-Slow: a\r\n")
            except OSError:
                pass
open(out, "w").write("%d %d\n" % (made, cut))
PY
	chmod 644 "$SR_DIR/flood.py"
	printf '{"reason":"under the flood","commands":[{"id":"f","why":"w","as":"user","argv":["/usr/bin/touch","%s/flood-mark"]}]}\n' "$SR_DIR" >"$SR_DIR/b7.json"
	gate "$SR_DIR/b7.json"
	GF=$G
	rev pair --no-qr >"$T.fpair"
	FURL=$(grep -o "$U/#token=[A-Za-z0-9_-]*" "$T.fpair")
	LOGN=$(wc -l <"$SR_DIR/serve.log")
	# it floods until the browser is done (the test's stop file), 60 s at most
	as_agent python3 "$SR_DIR/flood.py" "$PORT" 60 "$SR_DIR/agent/flood" "$SR_DIR/flood.stop"
	FPID=$!
	at_exit "kill $FPID 2>/dev/null"
	sleep 4
	cat >"$SR_DIR/steps3.json" <<EOF
[{"open": "$FURL"},
 {"wait": "document.querySelector('#pending article[data-gate=\"$GF\"] button.approve') && document.getElementById('pending').dataset.steady !== '0'", "ms": 20000},
 {"click": "#pending article[data-gate=\"$GF\"] button.approve", "when": "document.getElementById('pending').dataset.steady !== '0'", "ms": 20000},
 {"click": "#pending article[data-gate=\"$GF\"] button.approve", "when": "document.getElementById('pending').dataset.steady !== '0'", "ms": 20000},
 {"wait": "/Ran:|Running;|Not approved|look again/.test((document.querySelector('article[data-gate=\"$GF\"]') || {textContent: ''}).textContent + document.getElementById('notice').textContent)", "ms": 20000},
 {"eval": "(document.querySelector('article[data-gate=\"$GF\"]') || {textContent: 'no card'}).textContent + ' | notice: ' + document.getElementById('notice').textContent"}]
EOF
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome3" "$SR_DIR/steps3.json" \
	    >"$T.cdp3" 2>"$T.cdp3.err"
	FLOODING=0
	kill -0 "$FPID" 2>/dev/null && FLOODING=1
	: >"$SR_DIR/flood.stop"
	wait "$FPID"
	read -r fmade fcut <"$SR_DIR/agent/flood" || fmade=0
	check "the flood ran all along ($fmade connections opened, $fcut cut)" \
	    [ "$FLOODING" = 1 -a "${fcut:-0}" -gt 80 ]
	check "under the flood the paired browser loads the page" sh -c "sed -n 2p '$T.cdp3' | grep -q '\"ok\":true'"
	check "... and approves a YOU command (the card says it ran)" sh -c "sed -n 6p '$T.cdp3' | grep -q 'Ran:'"
	check "it ran" [ -e "$SR_DIR/flood-mark" ]
	NREF=$(tail -n +"$((LOGN + 1))" "$SR_DIR/serve.log" | grep -c 'refused or cut\|was cut\|refused a')
	NLOG=$(($(wc -l <"$SR_DIR/serve.log") - LOGN))
	check "the refusals are logged at most once every 10 s ($NREF lines of them, $NLOG in all)" \
	    [ "$NREF" -ge 1 -a "$NREF" -le 7 -a "$NLOG" -le 20 ]
	check "... with the count" grep -q 'connections or requests refused or cut in the last 10 s' "$SR_DIR/serve.log"
	if [ "$fails" -ne 0 ]; then
		diag "flood browser: $(cat "$T.cdp3" "$T.cdp3.err" | tail -c 1500)"
		diag "flood daemon: $(tail -n +"$((LOGN + 1))" "$SR_DIR/serve.log" | tail -c 1500)"
	fi
	chmod 755 "$SR_DIR"
fi

# ------------------------------------------------------------ issue 25 in Chromium
section "settled outcomes, relative expiry, argv words at a phone's width"
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null 2>&1; then
	for d in "a settled request's badge says its outcome" "expiry in minutes, the time on hover and tap" \
	    "no argv word breaks across lines at 360 px"; do
		skip "$d" "chromium or node is missing (scripts/deps.sh)"
	done
else
	# settled five ways: completed, a failed command, denied, expired and
	# withdrawn (an MCP session that ends while its call waits)
	printf '{"reason":"outcome ok","commands":[{"id":"c1","why":"w","as":"user","argv":["/usr/bin/true"]}]}\n' >"$SR_DIR/o1.json"
	gate "$SR_DIR/o1.json"
	GOK=$G
	api POST "/api/gates/$GOK/approve" "{\"manifest_sha256\":\"$H\",\"commands\":[\"c1\"]}"
	is "a YOU command that succeeds is approved from the API" "$ST" 200
	printf '{"reason":"outcome failed","commands":[{"id":"f1","why":"w","as":"user","argv":["/bin/sh","-c","echo about to fail; exit 7"]}]}\n' >"$SR_DIR/o2.json"
	gate "$SR_DIR/o2.json"
	GFL=$G
	api POST "/api/gates/$GFL/approve" "{\"manifest_sha256\":\"$H\",\"commands\":[\"f1\"]}"
	is "... and one that exits 7" "$ST:$(jval "$T" 'j["ledger"]["entries"][0]["exit_code"]')" 200:7
	is "... settles as approved: the state alone would not say it failed" "$(state_of "$GFL")" approved
	printf '{"reason":"outcome denied","commands":[{"id":"d1","why":"w","as":"user","argv":["/usr/bin/true"]}]}\n' >"$SR_DIR/o3.json"
	gate "$SR_DIR/o3.json"
	GDN=$G
	api POST "/api/gates/$GDN/deny" '{"feedback":"no"}'
	printf '{"reason":"outcome expired","gate_timeout_seconds":1,"commands":[{"id":"e1","why":"w","as":"user","argv":["/usr/bin/true"]}]}\n' >"$SR_DIR/o4.json"
	gate "$SR_DIR/o4.json"
	GEX=$G
	sleep 2
	is "a gate with a 1 s review window expires" "$(state_of "$GEX")" expired
	printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"request_commands","arguments":{"reason":"outcome withdrawn","commands":[{"id":"w1","why":"w","as":"user","argv":["/usr/bin/true"]}]}}}' \
	    >"$SR_DIR/o5.jsonl"
	chmod 644 "$SR_DIR/o5.jsonl"
	rev mcp <"$SR_DIR/o5.jsonl" >"$T.mcp" 2>&1
	GWD=$(rev list -a -j | jscan "' '.join(g['request_id'] for g in j if g['reason'] == 'outcome withdrawn')")
	is "an MCP call whose session ends is withdrawn (a denial with the requester's words)" \
	    "$(rev show -j "$GWD" | jscan 'j["state"] + ":" + j["feedback"].split(":")[0]')" \
	    "denied:withdrawn by the requester"
	# pending, with argv words that break badly when a line may break
	# inside them: hyphens and spaces near where a 360 px line ends
	"$PY" - "$SR_DIR" <<'EOF'
import json, sys
argv = ["/usr/bin/git", "log", "--short", "--", "safe  [file notes.txt]",
    "--pretty=format:%h %s", "/home/someone/projects/a-very-long-directory-name/another-long-directory/file-with-a-long-name.txt",
    "-x", "--option-number-1=some-long-value-1", "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j"]
json.dump({"reason": "outcome pending", "commands": [{"id": "p1", "why": "w", "as": "user", "argv": argv}]},
    open(sys.argv[1] + "/o6.json", "w"))
EOF
	gate "$SR_DIR/o6.json"
	GPD=$G
	EXP=$(rev show -j "$GPD" | jscan 'j["expires_at"]')
	rev pair --no-qr >"$T.opair"
	OURL=$(grep -o "$U/#token=[A-Za-z0-9_-]*" "$T.opair")
	"$PY" - "$SR_DIR/steps4.json" "$OURL" "$SHOTS" "$GPD" "$EXP" "$GOK" "$GFL" "$GDN" "$GEX" "$GWD" <<'EOF'
import json, sys
out, url, shots, gpd, exp = sys.argv[1:6]
settled = sys.argv[6:]
P = 'article[data-gate="%s"]' % gpd
# Each argv word of P: "ok", or what is wrong with it. A word is one box
# (getClientRects); its text, character by character, lies on one line
# unless the box is as wide as the argv line; a word that wraps does so
# only at its box's edge: each of its lines but the last ends within
# 1.5 characters of the box's right edge.
words = """[...document.querySelectorAll('%s .argv .word')].map(w => {
  const t = w.querySelector('.w'), node = t.firstChild, line = w.parentNode.clientWidth;
  const right = t.getBoundingClientRect().right - parseFloat(getComputedStyle(t).paddingRight);
  const lines = [];
  for (let i = 0; i < node.length; i++) {
    const r = document.createRange();
    r.setStart(node, i);
    r.setEnd(node, i + 1);
    const b = r.getBoundingClientRect();
    if (!b.width) continue;
    let l = lines.find(x => Math.abs(x.top - b.top) < 2);
    if (!l) lines.push(l = { top: b.top, right: 0, w: 0 });
    l.right = Math.max(l.right, b.right);
    l.w = Math.max(l.w, b.width);
  }
  if (w.getClientRects().length !== 1) return 'split box: ' + node.data;
  if (lines.length > 1 && w.getBoundingClientRect().width < line - 1) return 'wrapped though it fits: ' + node.data;
  if (lines.slice(0, -1).some(l => l.right < right - 1.5 * l.w)) return 'broke before its edge: ' + node.data;
  return 'ok';
})""" % P
steps = [
    {"viewport": [360, 740]},
    {"open": url},
    {"wait": "document.querySelector('%s button.expiry') && %s" % (P, " && ".join(
        "document.querySelector('#recent article[data-gate=\"%s\"] .badge.outcome')" % g for g in settled)), "ms": 15000},
    {"eval": "document.documentElement.clientWidth"},
    {"eval": "[%s].map(g => document.querySelector('#recent article[data-gate=\"' + g + '\"] .badge.outcome').textContent)" %
        ",".join(json.dumps(g) for g in settled)},
    {"eval": "document.querySelector('%s button.expiry').textContent" % P},
    {"eval": "(() => { const b = document.querySelector('%s button.expiry'); return /^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$/.test(b.title) && new Date(b.title.replace(' ', 'T')).getTime() / 1000 === %s; })()" % (P, exp)},
    {"click": "%s button.expiry" % P},
    {"eval": "(() => { const b = document.querySelector('%s button.expiry'); return b.textContent === b.title; })()" % P},
    {"click": "%s button.expiry" % P},
    {"eval": "document.querySelector('%s button.expiry').textContent" % P},
    {"eval": words},
    {"eval": "document.querySelector('%s').scrollIntoView(), 1" % P},
    {"shot": shots + "/argv-words-360x740.png"},
]
json.dump(steps, open(out, "w"))
EOF
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome4" "$SR_DIR/steps4.json" \
	    >"$T.cdp4" 2>"$T.cdp4.err"
	step4() { sed -n "${1}p" "$T.cdp4" | jscan "$2" >/dev/null 2>&1; }
	check "the page at a phone's width: 360 px" step4 4 "j['value'] == 360"
	check "a settled request's badge says its outcome: completed, failed (exit 7), denied, expired, withdrawn" \
	    step4 5 "j['value'] == ['completed', 'failed (exit 7)', 'denied', 'expired', 'withdrawn']"
	IN_MIN="j['value'].startswith('in ') and j['value'].endswith(' min') and j['value'][3:-4] in ('1', '2', '3', '4', '5')"
	check "a pending request's expiry is relative: \"in N min\"" step4 6 "$IN_MIN"
	check "... with the absolute time in its title" step4 7 "j['value'] is True"
	check "... which a tap shows in place (touch has no hover)" step4 9 "j['value'] is True"
	check "... and another tap hides again" step4 11 "$IN_MIN"
	check "no argv word is split across lines, or wraps but at its box's edge" \
	    step4 12 "len(j['value']) == 10 and set(j['value']) == {'ok'}"
	check "a screenshot at 360x740 of the argv words" [ -s "$SHOTS/argv-words-360x740.png" ]
	if [ "$fails" -ne 0 ]; then diag "$(cat "$T.cdp4" "$T.cdp4.err" | tail -c 3000)"; fi
fi

# ------------------------------------------------------------ grants on the page
section "grants: allow again for, the list, Revoke (issue 28)"
# the grant is of an exact argv: a word of this run's, so no grant of an
# earlier run can match it; in /, which the requester cannot change (a
# grant never covers a cwd it can write: its home)
GWORD=grant-web-$PORT
printf '{"reason":"allow me again","commands":[{"id":"e","why":"w","as":"user","argv":["/bin/echo","%s"],"cwd":"/"}]}\n' "$GWORD" >"$SR_DIR/k1.json"
cp "$SR_DIR/k1.json" "$SR_DIR/k2.json"
cp "$SR_DIR/k1.json" "$SR_DIR/k3.json"
gate "$SR_DIR/k1.json"
GK=$G HK=$H
api GET "/api/gates/$GK"
jcheck "a YOU command that may be granted is marked grantable" 'j["commands"][0]["grantable"] is True' "$T"
printf '{"reason":"a shell","commands":[{"id":"s","why":"w","as":"user","argv":["/bin/sh","-c","touch %s/grant-shell-mark"]}]}\n' "$SR_DIR" >"$SR_DIR/k4.json"
gate "$SR_DIR/k4.json"
GKS=$G HKS=$H
api GET "/api/gates/$GKS"
jcheck "a shell is not" 'j["commands"][0]["grantable"] is False' "$T"
api POST "/api/gates/$GKS/approve" "{\"manifest_sha256\":\"$HKS\",\"commands\":[\"s\"],\"grant\":\"1h\"}"
is "approving it with a grant is refused with answer --grant's code" "$ST:$(errcode)" 409:grant_shell
check "... and nothing ran" [ ! -e "$SR_DIR/grant-shell-mark" ]
is "... the gate stays pending" "$(state_of "$GKS")" pending
printf '{"reason":"root and you","commands":[{"id":"r","why":"w","argv":["/usr/bin/touch","%s-grant"]},{"id":"y","why":"w","as":"user","argv":["/bin/echo","%s"]}]}\n' "$RMARK" "$GWORD" >"$SR_DIR/k5.json"
gate "$SR_DIR/k5.json"
GKR=$G HKR=$H
api GET "/api/gates/$GKR"
jcheck "a ROOT gate offers no grant: no command of it is marked" \
    'all("grantable" not in c for c in j["commands"])' "$T"
api POST "/api/gates/$GKR/approve" "{\"manifest_sha256\":\"$HKR\",\"commands\":[\"y\"],\"grant\":\"1h\"}"
is "a grant on a ROOT gate is refused (grant_root), even for its YOU command" "$ST:$(errcode)" 403:grant_root
is "... no approval was attempted" "$(attempts_of "$GKR")" 0
api POST "/api/gates/$GK/approve" "{\"manifest_sha256\":\"$HK\",\"commands\":[\"e\"],\"grant\":\"2d\"}"
is "a grant that is no duration is refused" "$ST:$(errcode)" 400:grant_duration
api POST "/api/gates/$GK/approve" "{\"manifest_sha256\":\"$HK\",\"commands\":[\"e\"],\"grant\":\"25h\"}"
is "a grant over 24h is refused" "$ST:$(errcode)" 400:grant_too_long
api POST "/api/gates/$GK/approve" "{\"manifest_sha256\":\"$HK\",\"commands\":[\"e\"],\"grant\":3600}"
is "a grant that is not a string is refused" "$ST:$(errcode)" 400:grant_duration
ST=$(curl -s -o "$T" -w '%{http_code}' -H "X-Warrant-Session: $SESS" -H 'Content-Type: application/json' \
    -d "{\"manifest_sha256\":\"$HK\",\"commands\":[\"e\"],\"grant\":\"1h\"}" "$U/api/gates/$GK/approve")
is "an approval with a grant without a signature: 401" "$ST:$(errcode)" 401:no_signature
ST=$(curl -s -o "$T" -w '%{http_code}' -H "X-Warrant-Session: $SESS" "$U/api/grants")
is "the grants list without a signature: 401" "$ST:$(errcode)" 401:no_signature
is "after the refusals the gate is pending, nothing attempted" "$(state_of "$GK"):$(attempts_of "$GK")" pending:0
is "... and no grant exists" "$(rev grants -j | jscan 'len(j)')" 0
if [ -n "$CHROMIUM" ] && command -v node >/dev/null 2>&1; then
	KURL=$(pair_link)
	K="article[data-gate=\\\"$GK\\\"]"
	cat >"$SR_DIR/steps5.json" <<EOF
[{"open": "$KURL"},
 {"wait": "document.querySelector('$K label.grant') && !document.querySelector('$K label.grant').hidden"},
 {"eval": "document.querySelectorAll('article[data-gate=\"$GKR\"] label.grant, article[data-gate=\"$GKS\"] label.grant').length"},
 {"eval": "[...document.querySelectorAll('$K select.grant option')].map(o => o.textContent)"},
 {"eval": "(s => (s.value = '1h', s.value))(document.querySelector('$K select.grant'))"},
 {"click": "$K button.approve", "when": "document.getElementById('pending').dataset.steady !== '0'"},
 {"click": "$K button.approve", "when": "document.getElementById('pending').dataset.steady !== '0'"},
 {"wait": "(document.querySelector('$K') || {textContent: ''}).textContent.includes('Allowed again until')", "ms": 20000},
 {"wait": "document.querySelectorAll('#grants article.grant').length === 1"},
 {"eval": "document.querySelector('#grants article.grant').getAttribute('data-grant') + ' ' + document.querySelector('#grants article.grant .argv').textContent"},
 {"eval": "document.querySelector('#grants article.grant .muted').textContent"},
 {"eval": "document.getElementById('grants-title').scrollIntoView(), 1"},
 {"shot": "$SHOTS/grants-390x844.png"}]
EOF
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome5" "$SR_DIR/steps5.json" \
	    >"$T.cdp5" 2>"$T.cdp5.err"
	step5() { sed -n "${1}p" "$T.cdp5" | jscan "$2" >/dev/null 2>&1; }
	check "the page offers 'allow again for' on a YOU gate that may be granted" step5 2 "j['ok']"
	check "... not on a ROOT gate nor on a shell's" step5 3 "j['value'] == 0"
	check "... none, 10 min, 1 h, 8 h or 24 h" step5 4 "j['value'] == ['none', '10 min', '1 h', '8 h', '24 h']"
	check "approve with allow again for 1 h from the page: it says so" step5 8 "j['ok']"
	rev grants -j >"$T.grants"
	jcheck "warrant grants -j as the reviewer shows the grant: the gate's command, for 1 h" \
	    "len(j) == 1 and j[0]['gate_id'] == '$GK' and j[0]['command_id'] == 'e' and j[0]['argv'] == ['/bin/echo', '$GWORD'] and 3500 <= j[0]['expires_at'] - j[0]['created_at'] <= 3600" "$T.grants"
	GID=$(jval "$T.grants" 'j[0]["id"]')
	check "the page lists it" step5 10 "j['value'].startswith('$GID ') and '$GWORD' in j['value']"
	check "... naming its requester by name and uid" step5 11 "j['value'].startswith('$REV (uid $(id -u "$REV")), in ')"
	check "a screenshot of the grants list" [ -s "$SHOTS/grants-390x844.png" ]
	api GET /api/grants
	jcheck "GET /api/grants lists it, with its requester" \
	    "[(g['id'], g['requester']) for g in j['grants']] == [('$GID', '$REV (uid $(id -u "$REV"))')]" "$T"
	gate "$SR_DIR/k2.json"
	GK2=$G
	rev wait -j -t 60 "$GK2" >"$T.kwait" 2>&1
	jcheck "an identical request runs with no review" 'j["state"] == "approved"' "$T.kwait"
	rev show -j "$GK2" >"$T.kshow"
	jcheck "... its ledger names the grant" "j['ledger']['entries'][0]['granted_by'] == '$GID'" "$T.kshow"
	cat >"$SR_DIR/steps6.json" <<EOF
[{"open": "$(pair_link)"},
 {"wait": "document.querySelector('#grants article.grant[data-grant=\"$GID\"] button.revoke')"},
 {"click": "#grants article.grant[data-grant=\"$GID\"] button.revoke"},
 {"wait": "!document.querySelector('#grants article.grant') && document.getElementById('grants-title').hidden"}]
EOF
	node "$WARRANT_TOP/tests/e2e/cdp.js" "$CHROMIUM" "$SR_DIR/chrome6" "$SR_DIR/steps6.json" \
	    >"$T.cdp6" 2>"$T.cdp6.err"
	check "Revoke on the page removes it from the list" sh -c "sed -n 4p '$T.cdp6' | grep -q '\"ok\":true'"
	is "... and from warrant grants" "$(rev grants -j | jscan 'len(j)')" 0
	gate "$SR_DIR/k3.json"
	is "an identical request after the revocation waits for review" "$(state_of "$G")" pending
	# a grant revoked elsewhere reaches an open page: the event stream
	# fires when the live grants change, with no gate changing
	api POST "/api/gates/$G/approve" "{\"manifest_sha256\":\"$H\",\"commands\":[\"e\"],\"grant\":\"1h\"}"
	GID3=$(jval "$T" 'j["grants"][0]["id"]')
	rev wait -t 60 "$G" >/dev/null 2>&1
	api POST /api/events/ticket '{}'
	TICKET=$(jval "$T" 'j["ticket"]')
	curl -s -N --max-time 60 "$U/api/events?ticket=$TICKET" >"$T.gsse" &
	GSSE=$!
	check "(infra) the event stream's first event" \
	    wait_for "grep -q '^event: gates' '$T.gsse'" 30
	rev grants --revoke "$GID3" >/dev/null
	check "a grant revoked with warrant grants: the open event stream tells the page" \
	    wait_for "[ \$(grep -c '^event: gates' '$T.gsse') -ge 2 ]" 30
	kill "$GSSE" 2>/dev/null
	api POST "/api/grants/$GID/revoke" '{}'
	is "revoking it again: 404 no_such_grant" "$ST:$(errcode)" 404:no_such_grant
	api POST "/api/grants/g-bad/revoke" '{}'
	is "a malformed grant id: 404 no_such_grant" "$ST:$(errcode)" 404:no_such_grant
	ST=$(curl -s -o "$T" -w '%{http_code}' -H "X-Warrant-Session: $SESS" \
	    -H 'Content-Type: application/json' -d '{}' "$U/api/grants/$GID/revoke")
	is "Revoke without a signature: 401" "$ST:$(errcode)" 401:no_signature
	if [ "$fails" -ne 0 ]; then diag "$(cat "$T.cdp5" "$T.cdp5.err" "$T.cdp6" "$T.cdp6.err" | tail -c 3000)"; fi
else
	skip "allow again for 1 h from the page, the identical request, the list and Revoke" \
	    "chromium or node is missing (scripts/deps.sh)"
fi

# ------------------------------------------------------------ many connections
section "connections"
"$PY" - "$PORT" >"$T.conn" <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
socks = []
for i in range(1000):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        socks.append(s)
    except OSError:
        pass
time.sleep(0.5)
# which of them the daemon kept open
alive = 0
for s in socks:
    s.setblocking(False)
    try:
        d = s.recv(1)
        if d:
            alive += 1
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
print(len(socks), alive)
for s in socks:
    s.close()
EOF
read -r opened alive <"$T.conn"
check "1000 connections: the daemon keeps at most 32 without a session (kept $alive)" [ "${alive:-99}" -le 32 ]
# the daemon may not have seen every close yet
wait_for 'api GET /api/gates; [ "$ST" = 200 ]' 10
is "and answers again once they are gone" "$ST" 200
check "the daemon lived through it" kill -0 "$DPID"

# a slow client: half a request, then a header line every half second
"$PY" - "$PORT" >"$T.slow" <<'EOF'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"GET /api/gates HTTP/1.1\r\nHost: 127.0.0.1\r\n")
s.settimeout(0.5)
t0 = time.time()
how = "open"
while time.time() - t0 < 12:
    try:
        d = s.recv(4096)
        how = "answered" if d else "closed"
        break
    except socket.timeout:
        pass
    except OSError:
        how = "closed"
        break
    try:
        s.sendall(b"X-Slow: a\r\n")
    except OSError:
        how = "closed"
        break
print(how, round(time.time() - t0))
EOF
read -r how secs <"$T.slow"
check "a trickling client is cut at its total deadline ($how after ${secs}s, 2 s in this build; idle limit 3 s)" \
    [ "$how" = closed -a "${secs:-99}" -le 6 ]

# a flood's new connections pass over a browser's that made progress:
# one idle after an answer (kept alive), and one whose request head is
# in while its body comes; with age alone, the flood's (the youngest)
# would always push those out
"$PY" - "$PORT" >"$T.rank" <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
def conn():
    return socket.create_connection(("127.0.0.1", port), timeout=5)
def answer(s):
    s.settimeout(5)
    try:
        d = s.recv(4096)
    except OSError:
        return "cut"
    return d.split(b"\r\n")[0].decode(errors="replace") if d else "cut"
def flood(n):
    fl = []
    for _ in range(n):
        f = conn()
        f.sendall(b"GET / HTTP/1.1\r\n")
        fl.append(f)
    time.sleep(0.5)
    cut = 0
    for f in fl:
        f.settimeout(0.01)
        try:
            cut += f.recv(1) == b""
        except socket.timeout:
            pass
        except OSError:
            cut += 1
        f.close()
    return cut
# idle after an answer
k = conn()
k.sendall(b"GET /app.css HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
head = b""
k.settimeout(5)
while b"\r\n\r\n" not in head:
    head += k.recv(1)
size = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
while size > 0:
    size -= len(k.recv(min(size, 65536)))
cut1 = flood(12)
k.sendall(b"GET /app.css HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
print("kept", answer(k).replace(" ", "_"), cut1)
# a request head in, its body coming
b = conn()
b.sendall(b"POST /api/hello HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n" % port)
time.sleep(0.3)
cut2 = flood(12)
b.sendall(b"{}")
print("body", answer(b).replace(" ", "_"), cut2)
EOF
read -r _ kept cut1 <"$T.rank"
check "a connection idle after its answer outlives a flood's 12 new ones ($kept; $cut1 of the flood's cut)" \
    [ "$kept" = HTTP/1.1_200_OK -a "${cut1:-0}" -ge 4 ]
read -r _ body cut2 <<EOF
$(sed -n 2p "$T.rank")
EOF
check "... and one whose body is still coming is answered ($body; $cut2 of the flood's cut)" \
    sh -c '[ "${1#HTTP/1.1_}" != "$1" -a "$2" -ge 4 ]' sh "$body" "${cut2:-0}"

# ------------------------------------------------------------ revoke
section "revoke"
# an event stream open at the revocation ends with it (the stream looks
# twice a second); 30 s is only the bound on a broken daemon
api POST /api/events/ticket '{}'
TICKET=$(jval "$T" 'j["ticket"]')
curl -s -N --max-time 30 -o "$T.rsse" "$U/api/events?ticket=$TICKET" &
RSSE=$!
i=0
until grep -q '^data: ' "$T.rsse" 2>/dev/null || [ "$i" -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
rev pair --revoke "$DEV" >"$T.rev"
check "pair --revoke" grep -q "revoked" "$T.rev"
wait "$RSSE"
is "... ends the session's open event stream (curl ends, not at its 30 s bound)" "$?" 0
hello
is "after --revoke the daemon answers no hello for the session" \
    "$(jval "$T.hello" 'j["error"]["code"]'):$(jval "$T.hello" '"nonce" in j')" no_session:false
api GET /api/gates
is "... and its calls get 401" "$ST" 401
api POST "/api/gates/$G0/deny" '{}'
is "and it cannot deny" "$ST" 401
rev pair --revoke "$DEV" >/dev/null 2>"$T.err"
check "revoking it again is refused" grep -q 'unknown_device' "$T.err"

stop_daemon
is "SIGTERM stops the daemon cleanly" "$DRC" 0
check "and the URL file is removed" [ ! -e "$SR_STATE/web.url" ]

# ------------------------------------------------------------ the hint-only push
section "push (--notify-url)"
rev serve --notify-url ftp://127.0.0.1/x >/dev/null 2>"$T.err"
check "--notify-url refuses another scheme" grep -q 'not an http:// or https:// URL' "$T.err"
rev serve --notify-url "$(printf 'http://127.0.0.1/a\033b')" >/dev/null 2>"$T.err"
check "--notify-url refuses a control character" grep -q 'control character' "$T.err"
# a receiver on a port of this run: each POST as a JSON line
PPORT=$(free_port)
cat >"$SR_DIR/recv.py" <<'PY'
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode("utf-8", "replace")
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps({"path": self.path, "headers": str(self.headers), "body": body}) + "\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
: >"$SR_DIR/pushes"
python3 "$SR_DIR/recv.py" "$PPORT" "$SR_DIR/pushes" &
RPID=$!
at_exit "kill $RPID 2>/dev/null"
# the receiver listens before the daemon can push (a GET is not recorded)
i=0
until curl -s -o /dev/null "http://127.0.0.1:$PPORT/" || [ "$i" -ge 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
U=http://127.0.0.1:$PORT
# the e2e build (test hooks): 2 s between pushes instead of 30
SR_EXTRA_ENV=WARRANT_TEST_PUSH_GAP=2 start_daemon --notify-url "http://127.0.0.1:$PPORT/wt-topic"
check "warrant serve --notify-url starts" test $? = 0
unset SR_EXTRA_ENV
PCANARY="wt-push-canary-$$"
printf '{"reason":"%s reason","commands":[{"id":"a","why":"%s why","as":"user","argv":["/bin/echo","%s-argv"]}]}\n' \
    "$PCANARY" "$PCANARY" "$PCANARY" >"$SR_DIR/gp.json"
gate "$SR_DIR/gp.json"
GP=$G
NP=$(sqlite3 "$SR_STATE/warrant.db" "SELECT count(*) FROM gates WHERE state = 'pending'")
i=0
until [ -s "$SR_DIR/pushes" ] || [ "$i" -ge 150 ]; do
	i=$((i + 1))
	sleep 0.1
done
is "a new gate makes the receiver get one POST: \"$NP pending\"" \
    "$(jscan 'j["body"]' "$SR_DIR/pushes" 2>/dev/null | head -1)|$(wc -l <"$SR_DIR/pushes")" "$NP pending|1"
check "to the URL's path" grep -q '"path": "/wt-topic"' "$SR_DIR/pushes"
check "without the reason, why, argv or gate id" sh -c \
    "! grep -qF -e '$PCANARY' -e '$GP' '$SR_DIR/pushes'"
check "the URL is not in the daemon's log" sh -c \
    "! grep -q 'wt-topic' '$SR_DIR/serve.log'"
kill "$RPID" 2>/dev/null
wait "$RPID" 2>/dev/null
printf '{"reason":"r","commands":[{"id":"a","why":"w","as":"user","argv":["/bin/true"]}]}\n' >"$SR_DIR/gp2.json"
gate "$SR_DIR/gp2.json"
i=0
until grep -q 'push to --notify-url failed' "$SR_DIR/serve.log" || [ "$i" -ge 150 ]; do
	i=$((i + 1))
	sleep 0.1
done
check "with the receiver gone, the next push's failure is logged" \
    grep -q 'push to --notify-url failed (curl exit 7)' "$SR_DIR/serve.log"
api GET /api/gates 2>/dev/null
check "... and the daemon goes on" kill -0 "$DPID"
stop_daemon
is "the daemon with --notify-url stops cleanly" "$DRC" 0

# ------------------------------------------------------------ TLS
section "TLS"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
    -keyout "$SR_DIR/key.pem" -out "$SR_DIR/cert.pem" -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
chown "$REV" "$SR_DIR/key.pem" "$SR_DIR/cert.pem"
chmod 600 "$SR_DIR/key.pem"
U=https://127.0.0.1:$PORT
check "warrant serve --http with --tls-cert and --tls-key" \
    start_daemon --tls-cert "$SR_DIR/cert.pem" --tls-key "$SR_DIR/key.pem"
rev pair --no-qr >"$T.tpair"
TOK=$(grep -o '#token=[A-Za-z0-9_-]*' "$T.tpair" | cut -d= -f2)
check "under TLS the link is https://" grep -q "^  $U/#token=" "$T.tpair"
ST=$(curl -sk -o "$T" -D "$T.h" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"token\":\"$TOK\"}" "$U/api/pair")
is "pairing over TLS" "$ST" 200
is "it answers the session's name and key" "$(jval "$T" 'len(j["key"])'):$(jval "$T" 'len(j["session"])')" 43:43
check "... and sets no cookie" sh -c "! grep -qi '^Set-Cookie' '$T.h'"
ST=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")
check "plain HTTP gets no page" [ "$ST" = 000 ]
stop_daemon
done_testing
