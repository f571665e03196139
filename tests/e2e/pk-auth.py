#!/usr/bin/python3
# SPDX-License-Identifier: ISC
"""A software passkey for the e2e tests (sudo-lib.sh sr_soft_passkey puts
it in place): a P-256 key (key.pem beside this script's copy), signing
with the openssl CLI, as a security key would sign a WebAuthn assertion
(authenticatorData || SHA-256 of clientDataJSON; UP and UV set, a sign
count that moves forward).

  pk-auth.py            the authenticator `warrant answer --passkey` runs
                        (WARRANT_TEST_AUTHENTICATOR): the request on stdin,
                        the assertion on stdout. What it does wrong is
                        named in the file `mode` beside it (empty: nothing).
  pk-auth.py forge RUN_DIR [gate=ID] [sha=HEX] [expires=N] [count=N]
                        passkey.json for the manifest in RUN_DIR, written
                        by the test itself (fields overridden to forge).
  pk-auth.py record REVIEWER RP_ID ORIGIN [count=N]
                        the credential record root keeps (as `sudo warrant
                        passkey add` writes it): the test resets the sign
                        count with it.
  pk-auth.py register CODE REVIEWER RP_ID ORIGIN [wrong=WHAT]
                        the registration the page stages for `sudo warrant
                        passkey add` (PASSKEY_STAGED), made for CODE;
                        wrong=noup|nouv|otherkey|othercode forges it.
"""
import base64, hashlib, json, os, struct, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
KEY = os.path.join(HERE, "key.pem")


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64u(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def setting(name, default=""):
    try:
        with open(os.path.join(HERE, name)) as f:
            return f.read().strip()
    except FileNotFoundError:
        return default


def next_count():
    path = os.path.join(HERE, "count")
    n = int(setting("count", "0")) + 1
    with open(path, "w") as f:
        f.write(str(n))
    return n


def sign(data):
    return subprocess.run(["openssl", "dgst", "-sha256", "-sign", KEY], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def assertion(rp_id, origin, challenge, mode, count):
    flags = 0x05
    if "noup" in mode:
        flags &= ~0x01
    if "nouv" in mode:
        flags &= ~0x04
    if "wrongrp" in mode:
        rp_id = "evil.example"
    if "wrongorigin" in mode:
        origin = "https://evil.example"
    ad = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", count)
    cd = json.dumps({"type": "webauthn.get", "challenge": challenge, "origin": origin,
                     "crossOrigin": False}, separators=(",", ":")).encode()
    sig = sign(ad + hashlib.sha256(cd).digest())
    if "badsig" in mode:
        sig = sig[:-1] + bytes([sig[-1] ^ 1])
    return {"authenticator_data": b64u(ad), "client_data_json": b64u(cd),
            "signature": b64u(sig)}


def challenge(gate, sha, ids, nonce, expires):
    m = b"warrant-passkey-v1\0" + field(gate) + field(sha) + struct.pack(">I", len(ids))
    for i in ids:
        m += field(i)
    m += field(nonce) + struct.pack(">Q", expires)
    return b64u(hashlib.sha256(m).digest())


def authenticate():
    req = json.load(sys.stdin)
    mode = setting("mode")
    if "save" in mode:
        with open(os.path.join(HERE, "saved-request.json"), "w") as f:
            json.dump(req, f)
    if "fail" in mode:
        sys.exit(1)
    if "replay" in mode:
        sys.stdout.write(setting("saved.json"))
        return
    ch = req["challenge"]
    if "otherchallenge" in mode:
        ch = json.loads(setting("saved-request.json"))["challenge"]
    out = json.dumps(assertion(req["rp_id"], req["origin"], ch, mode,
                               0 if "count0" in mode else next_count()))
    if "save" in mode:
        with open(os.path.join(HERE, "saved.json"), "w") as f:
            f.write(out)
    sys.stdout.write(out)


def opts(args):
    return dict(a.split("=", 1) for a in args)


def forge(run_dir, args):
    o = opts(args)
    with open(os.path.join(run_dir, "manifest.json"), "rb") as f:
        raw = f.read()
    m = json.loads(raw)
    rec = json.loads(setting("record.json"))
    nonce = b64u(os.urandom(32))
    expires = int(o.get("expires", int(time.time()) + 60))
    ch = challenge(o.get("gate", m["request_id"]), o.get("sha", hashlib.sha256(raw).hexdigest()),
                   [c["id"] for c in m["commands"]], nonce, expires)
    count = int(o["count"]) if "count" in o else next_count()
    a = assertion(rec["rp_id"], rec["origin"], ch, setting("mode"), count)
    a.update({"nonce": nonce, "expires": expires})
    sys.stdout.write(json.dumps(a))


def spki_of_key():
    return subprocess.run(["openssl", "pkey", "-in", KEY, "-pubout", "-outform", "DER"],
                          stdout=subprocess.PIPE, check=True).stdout


def field(s):
    b = s.encode()
    return struct.pack(">I", len(b)) + b


def register(code, reviewer, rp_id, origin, args):
    wrong = opts(args).get("wrong", "")
    spki = spki_of_key()
    cred = hashlib.sha256(spki).digest()[:16]
    xy = spki[-64:]
    if wrong == "otherkey":
        xy = bytes(64 - len(xy)) + bytes(b ^ 1 for b in xy)
    cose = bytes([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]) + xy[:32] + \
        bytes([0x22, 0x58, 0x20]) + xy[32:]
    flags = 0x45
    if wrong == "noup":
        flags &= ~0x01
    if wrong == "nouv":
        flags &= ~0x04
    ad = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", 0) + \
        bytes(16) + struct.pack(">H", len(cred)) + cred + cose
    canon = code.replace("-", "").upper()
    if wrong == "othercode":
        canon = "0000" + canon[4:] if canon[:4] != "0000" else "1111" + canon[4:]
    ch = hashlib.sha256(b"warrant-passkey-enrol-v1\0" + field(reviewer) + field(canon)).digest()
    cd = json.dumps({"type": "webauthn.create", "challenge": b64u(ch), "origin": origin,
                     "crossOrigin": False}, separators=(",", ":")).encode()
    sys.stdout.write(json.dumps({"rp_id": rp_id, "credential_id": b64u(cred),
                                 "public_key": b64u(spki), "authenticator_data": b64u(ad),
                                 "client_data_json": b64u(cd)}))


def record(reviewer, rp_id, origin, args):
    o = opts(args)
    spki = spki_of_key()
    r = {"reviewer": reviewer, "credential_id": b64u(hashlib.sha256(spki).digest()[:16]),
         "public_key": b64u(spki), "rp_id": rp_id, "origin": origin,
         "sign_count": int(o.get("count", 0)), "created": int(time.time())}
    sys.stdout.write(json.dumps(r))


if len(sys.argv) > 1 and sys.argv[1] == "forge":
    forge(sys.argv[2], sys.argv[3:])
elif len(sys.argv) > 1 and sys.argv[1] == "register":
    register(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
elif len(sys.argv) > 1 and sys.argv[1] == "record":
    record(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
else:
    authenticate()
