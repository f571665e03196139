// SPDX-License-Identifier: ISC
// Records chromium.json beside this file: a real WebAuthn assertion of
// Chromium's virtual authenticator (DevTools WebAuthn domain: CTAP2,
// internal, user verified), over the challenge of a fixed approval as
// src/root/passkey.c makes it, for tests/unit/test-passkey.c. Run from the
// top of the tree (node 20, Debian's chromium, no npm packages):
//   node tests/vectors/passkey/record.js [CHROMIUM]
// It serves an empty page on http://localhost:PORT (a secure context whose
// RP ID is a domain), drives Chromium with tests/e2e/cdp.js, creates a
// credential (ES256, attestation "none", user verification required) and
// asks it for an assertion. The SPKI comes from response.getPublicKey().
"use strict";
const { spawn } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const http = require("http");
const os = require("os");
const path = require("path");

const chromium = process.argv[2] || "/usr/bin/chromium";
const here = __dirname;
// the approval the assertion is for
const gate = "w-recordedab", sha = "5e".repeat(32), ids = ["install", "restart"];
const nonce = "recorded-nonce-0123456789", expiry = 2000000000;

// passkey_challenge's bytes: see the top of src/root/passkey.c
function challenge() {
	const parts = [Buffer.from("warrant-passkey-v1\0")];
	const u32 = n => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
	const field = s => { const b = Buffer.from(s, "utf8"); parts.push(u32(b.length), b); };
	field(gate);
	field(sha);
	parts.push(u32(ids.length));
	ids.forEach(field);
	field(nonce);
	const e = Buffer.alloc(8);
	e.writeBigUInt64BE(BigInt(expiry));
	parts.push(e);
	return crypto.createHash("sha256").update(Buffer.concat(parts)).digest();
}

const ch = challenge();
const page = `(async () => {
	const b64 = b => btoa(String.fromCharCode(...new Uint8Array(b)))
		.replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
	const cred = await navigator.credentials.create({ publicKey: {
		rp: { id: "localhost", name: "warrant" },
		user: { id: new Uint8Array([1, 2, 3, 4]), name: "alice", displayName: "alice" },
		challenge: crypto.getRandomValues(new Uint8Array(32)),
		pubKeyCredParams: [{ type: "public-key", alg: -7 }], attestation: "none",
		authenticatorSelection: { residentKey: "required", userVerification: "required" } } });
	const a = await navigator.credentials.get({ publicKey: { rpId: "localhost",
		challenge: new Uint8Array(${JSON.stringify([...ch])}),
		allowCredentials: [{ type: "public-key", id: cred.rawId }],
		userVerification: "required" } });
	return JSON.stringify({ credential_id: b64(cred.rawId), spki: b64(cred.response.getPublicKey()),
		authenticator_data: b64(a.response.authenticatorData),
		client_data_json: b64(a.response.clientDataJSON), signature: b64(a.response.signature) });
})()`;

const server = http.createServer((req, res) => {
	res.writeHead(200, { "Content-Type": "text/html" });
	res.end("<!doctype html><title>passkey</title>");
});
server.listen(0, "127.0.0.1", () => {
	const port = server.address().port, origin = "http://localhost:" + port;
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "passkey-record-"));
	const steps = path.join(dir, "steps.json");
	fs.writeFileSync(steps, JSON.stringify([
		{ open: origin + "/" },
		{ cdp: "WebAuthn.enable" },
		{ cdp: "WebAuthn.addVirtualAuthenticator", params: { options: { protocol: "ctap2",
			transport: "internal", hasResidentKey: true, hasUserVerification: true,
			isUserVerified: true, automaticPresenceSimulation: true } } },
		{ eval: page },
	]));
	const cdp = spawn(process.execPath, [path.join(here, "../../e2e/cdp.js"), chromium,
		path.join(dir, "profile"), steps], { stdio: ["ignore", "pipe", "inherit"] });
	let out = "";
	cdp.stdout.on("data", d => { out += d; });
	cdp.on("close", code => {
		server.close();
		fs.rmSync(dir, { recursive: true, force: true });
		const lines = out.trim().split("\n").map(l => JSON.parse(l));
		const last = lines[lines.length - 1];
		if (code !== 0 || !last.ok) {
			console.error("recording failed:", out);
			process.exit(1);
		}
		const got = JSON.parse(last.value);
		const b64 = b => b.toString("base64url");
		const v = { comment: "recorded by tests/vectors/passkey/record.js with " +
			"Chromium's virtual authenticator", gate_id: gate, manifest_sha256: sha,
			command_ids: ids, nonce, expiry, challenge: b64(ch), rp_id: "localhost", origin,
			...got };
		fs.writeFileSync(path.join(here, "chromium.json"), JSON.stringify(v, null, 1) + "\n");
		console.log("wrote", path.join(here, "chromium.json"));
	});
});
