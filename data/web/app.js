// SPDX-License-Identifier: ISC
// The warrant web page: pairing from the link's #token=, the gates from
// /api/gates, live updates from /api/events, deny with feedback, approve
// of commands that run as you, and, where root enrolled this reviewer's
// passkey for this page's origin, of commands that run as root with that
// passkey (docs/passkeys.md: the runner checks the assertion as root).
// Every string from the server (agent text already neutralised there)
// goes into the page as text, never as HTML.
//
// The session is a name and a key (docs/web.md, "A port anyone may
// bind"). The key comes once, in the answer to pairing; the page imports
// it as a WebCrypto key it cannot export and keeps that in this origin's
// IndexedDB, and it never sends it. Whoever answers on this port must
// first prove it holds the key (POST /api/hello: the MAC of a random
// challenge) before a call goes out; each call is MAC'd with a nonce of
// the daemon's, and each answer's MAC is checked before it is shown.
"use strict";

let session = null;	// { name, key: a non-extractable CryptoKey }
let events = null;
const busy = new Set();		// gates with a request of ours under way
const results = new Map();	// gate id -> the last result shown on its card
const absolute = new Set();	// gates whose expiry is shown as a time, after a tap
let passkey = { enrolled: false };	// GET /api/passkey

function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (k === "class") e.className = v;
		else if (k === "text") e.textContent = v;
		else if (k === "on") for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
		else e.setAttribute(k, v);
	}
	for (const k of kids) if (k != null) e.append(typeof k === "string" ? document.createTextNode(k) : k);
	return e;
}

function notice(text) {
	const n = document.getElementById("notice");
	n.textContent = text || "";
	n.hidden = !text;
}

// The session in IndexedDB, which keeps a CryptoKey as it is (still not
// extractable); localStorage and sessionStorage keep only strings.
function sessionStore(mode, f) {
	return new Promise((ok, fail) => {
		const open = indexedDB.open("warrant", 1);
		open.onupgradeneeded = () => open.result.createObjectStore("session");
		open.onerror = () => fail(open.error);
		open.onsuccess = () => {
			const db = open.result, tx = db.transaction("session", mode);
			const req = f(tx.objectStore("session"));
			tx.oncomplete = () => { db.close(); ok(req.result); };
			tx.onerror = () => { db.close(); fail(tx.error); };
		};
	});
}

const utf8 = new TextEncoder();
function b64url(bytes) {
	let s = "";
	for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
	return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function unb64url(s) {
	return Uint8Array.from(atob(String(s).replace(/-/g, "+").replace(/_/g, "/")), c => c.charCodeAt(0));
}
async function sha256hex(bytes) {
	const d = await crypto.subtle.digest("SHA-256", bytes);
	return [...new Uint8Array(d)].map(b => b.toString(16).padStart(2, "0")).join("");
}
async function sign(text) {
	return b64url(await crypto.subtle.sign("HMAC", session.key, utf8.encode(text)));
}
async function signedBy(text, mac) {
	try {
		return await crypto.subtle.verify("HMAC", session.key, unb64url(mac), utf8.encode(text));
	} catch (e) {
		return false;
	}
}

// The key from pairing: imported so that no script can read it back, and
// the bytes it came in wiped.
async function sessionKeep(name, key64) {
	const raw = unb64url(key64);
	const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" },
		false, ["sign", "verify"]);
	raw.fill(0);
	await sessionStore("readwrite", st => st.put({ name, key }, "current"));
}

const NOT_DAEMON = { status: 0, body: { error: { code: "not_the_daemon", message:
	"whoever answers on this port could not prove it is your warrant daemon (it may be " +
	"restarting, or someone else holds the port); nothing was sent to it" } } };
const LOST = { status: 0, body: { error: { code: "network",
	message: "the connection to the computer was lost" } } };

// One signed call: hello (the daemon proves it holds the key), the call
// with its MAC, the answer's MAC checked. A status of 0 when any of that
// fails; 401 from hello is the one unsigned answer the page believes,
// and it only ever says so (nothing is forgotten on it).
async function signedCall(method, path, body) {
	const challenge = b64url(crypto.getRandomValues(new Uint8Array(32)));
	const h = await fetch("/api/hello", { method: "POST", credentials: "omit", body: "{}",
		headers: { "Content-Type": "application/json", "X-Warrant-Session": session.name,
			"X-Warrant-Challenge": challenge } });
	if (h.status === 401) return { status: 401, body: { error: { code: "no_session",
		message: "this browser is not paired (or was revoked)" } } };
	const hj = await h.json().catch(() => null);
	if (!hj || typeof hj.nonce !== "string" ||
	    !(await signedBy("warrant-server-v1\n" + challenge + "\n" + hj.nonce, hj.proof)))
		return NOT_DAEMON;
	const text = body === undefined ? "" : JSON.stringify(body);
	// the daemon's clock, from its hello: a phone whose clock is off still
	// signs a time the daemon takes
	const time = String(Number.isSafeInteger(hj.time) ? hj.time : Math.floor(Date.now() / 1000));
	const mac = await sign("warrant-page-v1\n" + method + "\n" + path + "\n" +
		await sha256hex(utf8.encode(text)) + "\n" + time + "\n" + hj.nonce);
	const headers = { "X-Warrant-Session": session.name, "X-Warrant-Nonce": hj.nonce,
		"X-Warrant-Time": time, "X-Warrant-Mac": mac };
	if (body !== undefined) headers["Content-Type"] = "application/json";
	const r = await fetch(path, { method, headers, credentials: "omit",
		body: body === undefined ? undefined : text });
	const raw = new Uint8Array(await r.arrayBuffer());
	const answer = r.headers.get("X-Warrant-Answer");
	if (!answer || !(await signedBy("warrant-answer-v1\n" + mac + "\n" + r.status + "\n" +
		await sha256hex(raw), answer)))
		return NOT_DAEMON;
	let j = null;
	try { j = JSON.parse(new TextDecoder().decode(raw)); } catch (e) { j = null; }
	return { status: r.status, body: j };
}

async function api(method, path, body) {
	if (!session) return { status: 401, body: null };
	// a connection lost, or an answer nobody signed (the daemon restarting):
	// reads and tickets are tried again, each with a new hello; an
	// approval, denial or stop is not, and says so
	const again = method === "GET" || path === "/api/events/ticket";
	for (let i = 0; ; i++) {
		let r = null;
		try {
			r = await signedCall(method, path, body);
		} catch (e) {
			r = LOST;
		}
		if (r.status !== 0 || !again || i >= 4) return r;
		await new Promise(ok => setTimeout(ok, 250 * (i + 1)));
	}
}

// Not paired (or revoked): the one refusal that forgets nothing but says
// so. Any other refusal, signed by the daemon, is shown as it is.
function unpairedAnswer(r) {
	return r.status === 401 && (!r.body || !r.body.error || r.body.error.code === "no_session");
}

function errText(r) {
	const e = r.body && r.body.error;
	return e ? e.message + " (" + e.code + ")" : "HTTP " + r.status;
}

function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

// Each word its own bounded box with its index, so no word can pass for
// two; each in its own left-to-right isolate (<bdi dir="ltr">), so that
// right-to-left letters in one word cannot reorder what is around it.
function argvView(argv) {
	const box = el("div", { class: "argv" });
	(argv || []).forEach((a, i) => {
		const file = typeof a !== "string";
		box.append(el("span", { class: "word" + (file ? " file" : "") },
			el("span", { class: "idx", text: String(i) }),
			el("bdi", { class: "w", dir: "ltr", text: file ? "file " + a.file : a })));
	});
	return box;
}

const SHOW_CHARS = 2000;

// A reviewed file: what it is, and its text (cut, with "Show all"), or
// why the page cannot show it.
function fileView(g, name, f) {
	const box = el("div", { class: "file", "data-file": name });
	box.append(el("div", {}, el("span", { class: "badge", text: "FILE" }), " ",
		el("code", { text: name }), " ",
		el("span", { class: "muted", text: f.size + " bytes, mode " + f.mode +
			(f.source ? ", snapshot of " + f.source : ", inline") +
			", sha256 " + String(f.sha256).slice(0, 12) })));
	if (typeof f.text === "string") {
		const pre = el("pre", { class: "content" });
		if (f.text.length > SHOW_CHARS) {
			pre.textContent = f.text.slice(0, SHOW_CHARS);
			const b = el("button", { type: "button", class: "show-all",
				text: "Show all (" + (f.text.length - SHOW_CHARS) + " more characters)" });
			b.addEventListener("click", () => { pre.textContent = f.text; b.remove(); });
			box.append(pre, b);
		} else {
			pre.textContent = f.size === 0 ? "(empty)" : f.text;
			box.append(pre);
		}
	} else {
		// an archive: its summary, then its members, flagged ones first
		if (Array.isArray(f.archive_lines)) {
			const list = el("div", { class: "archive" });
			for (const line of f.archive_lines)
				list.append(el("div", { class: line.alert ? "alert" : "", text: line.text }));
			box.append(list);
		}
		box.append(el("div", { class: "not-shown", text: (f.not_shown === "binary" ?
			"binary content: " : "content not shown (" + f.not_shown + "): ") +
			"the page cannot show it, so it approves no command that uses it. " +
			"Read it on the computer: warrant show " + g.request_id }));
	}
	return box;
}

function more(n) { return n > 0 ? " (and " + n + " more)" : ""; }

// What the run-time supervisor recorded for a ROOT command: every refused
// access first, then the programs it executed and the files it wrote. Each
// path and reason is its own element, inserted as text.
function confinementView(c) {
	const box = el("div", { class: "confinement" });
	const om = c.omitted || {};
	const count = k => (c[k] || []).length + (om[k] || 0);
	if (c.unconfined) {
		box.append(el("div", { class: "refused", text: "unconfined: ran without the run-time " +
			"supervisor (the host's policy allows it); nothing it did was checked or recorded" }));
		return box;
	}
	box.append(el("div", { class: "muted", text: "run-time supervisor: " +
		plural(count("executed"), "program", "programs") + " executed, " +
		plural(count("written"), "file", "files") + " written, " +
		plural(count("refused"), "access", "accesses") + " refused" }));
	for (const r of c.refused || [])
		box.append(el("div", { class: "refused" }, "refused at run time: ",
			el("span", { class: "call", text: r.call }), " ",
			el("code", { class: "path", text: r.path }), " — ",
			el("span", { class: "why-refused", text: r.reason })));
	if (om.refused > 0) box.append(el("div", { class: "refused", text: "refused at run time:" + more(om.refused) }));
	for (const x of c.executed || [])
		box.append(el("div", {}, "executed: ", el("code", { class: "path", text: x.path }), " ",
			el("span", { class: "muted", text: "sha256 " + String(x.sha256).slice(0, 12) })));
	if (om.executed > 0) box.append(el("div", { text: "executed:" + more(om.executed) }));
	for (const w of c.written || [])
		box.append(el("div", {}, "written: ", el("code", { class: "path", text: w })));
	if (om.written > 0) box.append(el("div", { text: "written:" + more(om.written) }));
	return box;
}

// What became of a settled request, as its badge says it: the ledger's
// real outcome (a failed command's exit code first) rather than the
// state "approved"; a withdrawal is a denial the requester made.
function outcomeOf(g) {
	if (g.state === "denied") return /^withdrawn\b/.test(g.feedback || "") ? "withdrawn" : "denied";
	if (g.state !== "approved" || !g.ledger) return g.state;
	// stopped by the reviewer: its command's signal is the stop, not a failure
	if (g.ledger.stopped) return "stopped";
	const bad = (g.ledger.entries || []).find(e => e.status !== "ran" && e.status !== "not_approved");
	if (bad && bad.status === "failed")
		return "failed" + (bad.exit_code != null ? " (exit " + bad.exit_code + ")" :
			bad.signal != null ? " (signal " + bad.signal + ")" : "");
	if (bad) return bad.status;
	if (g.ledger.outcome !== "completed") return String(g.ledger.outcome).replace(/_/g, " ");
	return "completed";
}

// "in 4 min": the time a pending request has left.
function expiryText(at) {
	const s = Math.floor(at - Date.now() / 1000);
	if (s <= 0) return "now";
	if (s < 60) return "in " + s + " s";
	if (s < 3600) return "in " + Math.floor(s / 60) + " min";
	return "in " + Math.floor(s / 3600) + " h " + Math.floor(s % 3600 / 60) + " min";
}

// The same moment as a time, the same way in every locale.
function absoluteTime(at) {
	const d = new Date(at * 1000), p = n => String(n).padStart(2, "0");
	return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " +
		p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
}

// The expiry, relative; the time itself on hover (title) and, since a
// phone has no hover, in place after a tap (another tap goes back).
function expiryView(g) {
	const b = el("button", { type: "button", class: "expiry", "data-at": String(g.expires_at),
		title: absoluteTime(g.expires_at) });
	const show = () => {
		b.classList.toggle("absolute", absolute.has(g.request_id));
		b.textContent = absolute.has(g.request_id) ? b.title : expiryText(g.expires_at);
	};
	b.addEventListener("click", () => {
		if (!absolute.delete(g.request_id)) absolute.add(g.request_id);
		show();
	});
	show();
	return el("div", { class: "meta muted" }, "expires ", b);
}

function ledgerView(ledger) {
	const box = el("div", { class: "ledger" });
	for (const e of (ledger && ledger.entries) || []) {
		const head = e.id + ": " + e.status + (e.exit_code != null ? " (exit " + e.exit_code + ")" : "") +
			(e.error ? " — " + e.error : "");
		box.append(el("div", { class: "result", text: head }));
		if (e.confinement) box.append(confinementView(e.confinement));
		if (e.output_tail) box.append(el("pre", { text: e.output_tail }));
	}
	return box;
}

function commandItem(g, c, i) {
	const root = c.as !== "user";
	const li = el("li", { class: root ? "root" : "you" });
	if (c.approvable) {
		const box = el("input", { type: "checkbox", "data-id": c.id, "aria-label": "run " + c.id });
		box.checked = true;
		box.disabled = !!g.busy;	// running: what runs is no longer chosen
		li.append(box);
	}
	const cmd = el("div", { class: "cmd" });
	cmd.append(el("div", {},
		el("span", { class: "badge " + (root ? "root" : "you"), text: root ? "ROOT " + (i + 1) : "YOU" }), " ",
		el("code", { text: c.id }), " ",
		el("span", { class: "muted", text: (root ? "as " + g.run_as : "as you") + ", in " + c.cwd })));
	cmd.append(argvView(c.argv));
	if (!root && !c.approvable && g.state === "pending" && !g.terminal_command)
		cmd.append(el("div", { class: "not-shown", text: "uses a file the page cannot show: " +
			"approve it on the computer's terminal: warrant answer " + g.request_id +
			" --run --expect " + g.manifest_sha256 }));
	if (c.why) cmd.append(el("div", { class: "why", text: "why: " + c.why }));
	for (const b of c.badges || []) cmd.append(el("span", { class: "badge risk", text: b }), " ");
	li.append(cmd);
	return li;
}

function copyButton(text) {
	const b = el("button", { type: "button", text: "Copy" });
	b.addEventListener("click", async () => {
		try {
			await navigator.clipboard.writeText(text);
			b.textContent = "Copied";
		} catch (e) {
			const sel = window.getSelection(), range = document.createRange();
			range.selectNodeContents(b.previousSibling);
			sel.removeAllRanges();
			sel.addRange(range);
			b.textContent = "Selected: copy it";
		}
	});
	return b;
}

function showResult(card, id, text, error) {
	results.set(id, { text, error });
	const old = card.querySelector(".result.last");
	if (old) old.remove();
	card.append(el("div", { class: "result last" + (error ? " error" : ""), text }));
}

async function deny(g, card, feedback) {
	busy.add(g.request_id);
	card.querySelectorAll("button").forEach(b => b.disabled = true);
	const r = await api("POST", "/api/gates/" + encodeURIComponent(g.request_id) + "/deny",
		feedback ? { feedback } : {});
	busy.delete(g.request_id);
	if (r.status === 200) showResult(card, g.request_id, "Denied.", false);
	else showResult(card, g.request_id, "Not denied: " + errText(r), true);
	load();
}

// What to approve, named: the first tap asks again with the gate's id and
// requester, so a card that moved under the finger approves nothing; the
// second tap runs. Changing the ticks asks again.
function approveTap(g, card, b) {
	const ids = [...card.querySelectorAll("input[type=checkbox][data-id]")]
		.filter(x => x.checked).map(x => x.getAttribute("data-id"));
	if (ids.length === 0) {
		showResult(card, g.request_id, "Tick at least one command.", true);
		return;
	}
	if (b.classList.contains("confirm")) return approve(g, card, ids);
	const grant = grantChosen(card);
	b.classList.add("confirm");
	b.textContent = "Run " + plural(ids.length, "command", "commands") + " of " + g.request_id +
		" from " + g.requester + " as you" + (grant ? ", and allow again for " + grant : "") +
		": tap again";
}

async function approve(g, card, ids) {
	busy.add(g.request_id);
	card.querySelectorAll("button").forEach(b => b.disabled = true);
	showResult(card, g.request_id, "Running " + plural(ids.length, "command", "commands") + "…", false);
	const body = { manifest_sha256: g.manifest_sha256, commands: ids };
	const grant = grantChosen(card);
	if (grant) body.grant = grant;
	const r = await api("POST", "/api/gates/" + encodeURIComponent(g.request_id) + "/approve", body);
	busy.delete(g.request_id);
	if (r.status === 200) showResult(card, g.request_id, "Ran: " + r.body.outcome + "." +
		grantsMade(r.body.grants), false);
	else if (r.status === 202) showResult(card, g.request_id, "Running; the result will show below.", false);
	else showResult(card, g.request_id, "Not approved: " + errText(r), true);
	load();
}

// A running batch: which command, its latest lines (neutralised by the
// daemon), and Stop, which asks once more before it stops anything.
const LIVE_LINES = 8;
function liveView(g, card) {
	const box = el("div", { class: "live" });
	if (g.live) {
		box.append(el("div", { class: "result", text: "Running " + g.live.command + " (" +
			plural(g.live.output_bytes, "byte", "bytes") + " of output so far)" }));
		const lines = (g.live.output || "").replace(/\n$/, "").split("\n").slice(-LIVE_LINES);
		box.append(el("pre", { class: "live-output", text: lines.join("\n") }));
	}
	const b = el("button", { type: "button", class: "stop", text: "Stop" });
	b.addEventListener("click", steady(() => {
		if (b.classList.contains("confirm")) return stop(g, card);
		b.classList.add("confirm");
		b.textContent = "Stop " + g.request_id + ": kill the running command, skip the rest";
	}));
	box.append(b);
	return box;
}

async function stop(g, card) {
	busy.add(g.request_id);
	card.querySelectorAll("button").forEach(b => b.disabled = true);
	const r = await api("POST", "/api/gates/" + encodeURIComponent(g.request_id) + "/stop", {});
	busy.delete(g.request_id);
	if (r.status === 200) showResult(card, g.request_id, "Stopping: its command is being killed.", false);
	else showResult(card, g.request_id, "Not stopped: " + errText(r), true);
	load();
}

// "Allow again for…" (docs/grants.md): offered when every ticked command
// may be granted; the daemon approves with `answer --grant` and judges
// them again. A ticked command that may not be granted hides it and says
// why, with answer --grant's code and sentence (grant_refusal).
const GRANT_CHOICES = [["", "none"], ["10m", "10 min"], ["1h", "1 h"], ["8h", "8 h"], ["24h", "24 h"]];
function grantChoice(g, card) {
	const cmds = (g.commands || []).filter(c => c.approvable);
	const offered = cmds.some(c => c.grantable);
	if (!offered && !cmds.some(c => c.grant_refusal)) return null;
	const sel = el("select", { class: "grant", "aria-label": "allow again for" },
		...GRANT_CHOICES.map(([v, t]) => el("option", { value: v, text: t })));
	const box = el("label", { class: "grant" }, "Allow the same commands again, without review, for ", sel);
	const why = el("p", { class: "grant-refused muted" });
	const sync = () => {
		const ticked = [...card.querySelectorAll("input[type=checkbox][data-id]")].filter(b => b.checked)
			.map(b => (g.commands || []).find(c => c.id === b.getAttribute("data-id")));
		const refused = ticked.find(c => c && c.grant_refusal);
		box.hidden = ticked.length === 0 || !ticked.every(c => c && c.grantable);
		why.hidden = !refused;
		why.textContent = refused ? "Not offered to allow again (" + refused.grant_refusal.code + "): " +
			refused.grant_refusal.message : "";
	};
	card.querySelectorAll("input[type=checkbox][data-id]").forEach(b => b.addEventListener("change", sync));
	sync();
	return offered ? el("div", { class: "grant-offer" }, box, why) : why;
}

function grantChosen(card) {
	const box = card.querySelector("label.grant");
	return box && !box.hidden ? box.querySelector("select").value : "";
}

function grantsMade(grants) {
	if (Array.isArray(grants) && grants.length > 0)
		return " Allowed again until " + absoluteTime(grants[0].expires_at) + " (" +
			grants.map(x => x.id).join(", ") + ").";
	return grants && grants.message ? " No grant made: " + grants.message : "";
}

// The live grants, each with Revoke.
async function loadGrants() {
	const r = await api("GET", "/api/grants");
	const box = document.getElementById("grants");
	if (r.status !== 200) return;
	box.replaceChildren(...r.body.grants.map(x => {
		const b = el("button", { type: "button", class: "revoke", text: "Revoke" });
		b.addEventListener("click", async () => {
			b.disabled = true;
			const v = await api("POST", "/api/grants/" + encodeURIComponent(x.id) + "/revoke", {});
			if (v.status !== 200) notice("Not revoked: " + errText(v));
			loadGrants();
		});
		return el("article", { class: "grant", "data-grant": x.id },
			el("div", {}, el("code", { text: x.id }), " ", el("span", { class: "muted",
				text: x.requester + (x.agent ? ", agent " + x.agent : "") +
				", in " + x.cwd + ", until " + absoluteTime(x.expires_at) })),
			argvView(x.argv), b);
	}));
	document.getElementById("grants-title").hidden = r.body.grants.length === 0;
}

// The passkey root enrolled for this reviewer, usable on this page only
// when the record names this very origin (an RP ID is bound to its name).
function passkeyHere() {
	return passkey.enrolled && passkey.origin === location.origin;
}

// Approve a ROOT gate (all its commands, as `warrant answer ID --run`
// would) with the passkey: the first tap asks again, naming the gate; the
// second asks the daemon for the challenge (it binds the gate, its seal,
// the commands, a nonce and an expiry), the authenticator signs it, and
// the assertion goes back for the runner to check as root.
function passkeyTap(g, card, b) {
	if (!b.classList.contains("confirm")) {
		b.classList.add("confirm");
		b.textContent = "Run " + plural((g.commands || []).length, "command", "commands") + " of " +
			g.request_id + " from " + g.requester + ", as root where marked, with your passkey: tap again";
		return;
	}
	return passkeyApprove(g, card);
}

async function passkeyApprove(g, card) {
	const at = "/api/gates/" + encodeURIComponent(g.request_id) + "/passkey";
	busy.add(g.request_id);
	card.querySelectorAll("button").forEach(b => b.disabled = true);
	showResult(card, g.request_id, "Asking for the passkey…", false);
	let r = await api("POST", at, { manifest_sha256: g.manifest_sha256,
		commands: (g.commands || []).map(c => c.id) });
	if (r.status === 200) {
		let a = null;
		try {
			a = await navigator.credentials.get({ publicKey: {
				challenge: unb64url(r.body.challenge), rpId: r.body.rp_id,
				allowCredentials: [{ type: "public-key", id: unb64url(r.body.credential_id) }],
				userVerification: "required", timeout: r.body.timeout_ms } });
		} catch (e) {
			a = null;
		}
		if (a) {
			showResult(card, g.request_id, "Running…", false);
			r = await api("POST", at + "/assertion", { ceremony: r.body.ceremony,
				authenticator_data: b64url(a.response.authenticatorData),
				client_data_json: b64url(a.response.clientDataJSON),
				signature: b64url(a.response.signature) });
		} else r = { status: 0, body: { error: { code: "passkey_cancelled",
			message: "the passkey gave no assertion (cancelled, or not this device's); nothing ran" } } };
	}
	busy.delete(g.request_id);
	if (r.status === 200) showResult(card, g.request_id, "Ran: " + r.body.outcome + ", approved with the passkey.", false);
	else if (r.status === 202) showResult(card, g.request_id, "Running; the result will show below.", false);
	else showResult(card, g.request_id, "Not approved: " + errText(r), true);
	load();
}

// Enrolment, the page's half: `sudo warrant passkey add` prints a code on
// the computer; typed here, it makes the registration's challenge, so that
// root adopts only the credential made with it. The page stages the new
// credential at the daemon; root's terminal finishes.
async function passkeyEnrol() {
	const say = t => { document.getElementById("pk-status").textContent = t; };
	const code = document.getElementById("pk-code").value;
	// WebAuthn binds a passkey to a name, never to an address
	if (/^[0-9.]+$/.test(location.hostname) || location.hostname.includes(":") ||
	    location.hostname.startsWith("["))
		return say("Not added: a passkey is bound to a name, not an address: open this page as " +
			"http://localhost:" + location.port + "/ (or by its https name) and pair it there");
	const r = await api("POST", "/api/passkey/register", { code });
	if (r.status !== 200) return say("Not added: " + errText(r));
	let c = null;
	try {
		c = await navigator.credentials.create({ publicKey: {
			rp: { id: location.hostname, name: "warrant" },
			user: { id: unb64url(r.body.user_id), name: r.body.user_name, displayName: r.body.user_name },
			challenge: unb64url(r.body.challenge),
			pubKeyCredParams: [{ type: "public-key", alg: -7 }],
			authenticatorSelection: { userVerification: "required", residentKey: "preferred" },
			attestation: "none", timeout: 120000 } });
	} catch (e) {
		return say("Not added: the authenticator made no passkey (" + e.name + ")");
	}
	const s = await api("POST", "/api/passkey/staged", { code, rp_id: location.hostname,
		credential_id: b64url(c.rawId), public_key: b64url(c.response.getPublicKey()),
		authenticator_data: b64url(c.response.getAuthenticatorData()),
		client_data_json: b64url(c.response.clientDataJSON) });
	if (s.status !== 200) return say("Not added: " + errText(s));
	say("Made. The computer's terminal finishes the enrolment; reload this page then.");
}

// The enrolment, read after the gates (it must not delay them); the cards
// are drawn again when it changes what they offer.
async function loadPasskey() {
	const before = passkeyHere();
	const r = await api("GET", "/api/passkey");
	if (r.status === 200 && r.body) passkey = r.body;
	if (passkeyHere() !== before) load();
	document.getElementById("pk-state").textContent = passkeyHere() ?
		"A passkey is enrolled for this page: commands that run as root can be approved with it." :
		passkey.enrolled ? "A passkey is enrolled for " + passkey.origin + ", not for this page." :
		"No passkey is enrolled.";
}

function gateCard(g) {
	const pending = g.state === "pending";
	const card = el("article", { class: "gate" + (g.root_count > 0 ? " root" : ""), "data-gate": g.request_id });
	const h = el("h3", {}, el("code", { text: g.request_id }));
	if (g.root_count > 0) h.append(el("span", { class: "badge root", text: plural(g.root_count, "as root", "as root") }));
	if (g.user_count > 0) h.append(el("span", { class: "badge you", text: plural(g.user_count, "as you", "as you") }));
	if (!pending) {
		const outcome = outcomeOf(g);
		const tone = outcome === "completed" ? " good" :
			["denied", "expired", "withdrawn"].includes(outcome) ? "" : " bad";
		h.append(el("span", { class: "badge outcome" + tone, text: outcome }));
	}
	if (g.busy) h.append(el("span", { class: "badge", text: "running" }));
	for (const b of g.risk_badges || []) h.append(el("span", { class: "badge risk", text: b }));
	card.append(h);
	card.append(el("p", { class: "reason", text: g.reason }));
	const who = "from " + g.requester + (g.agent ? " (" + g.agent + ")" : "") +
		(g.project ? ", project " + g.project : "") + " on " + g.host +
		(g.machine ? ", machine " + g.machine + " (" + (g.machine_destination || "") + ")" : "");
	card.append(el("div", { class: "meta muted", text: who }));
	if (g.machine_account) card.append(el("div", { class: "meta warn", text: g.machine_account }));
	if (pending) card.append(expiryView(g));
	const list = el("ol", { class: "cmds" });
	(g.commands || []).forEach((c, i) => list.append(commandItem(g, c, i)));
	const files = el("div", { class: "files" });
	for (const [name, f] of Object.entries(g.files || {})) files.append(fileView(g, name, f));
	if (pending) card.append(list, files);
	else {
		const d = el("details", {}, el("summary", { text: plural((g.commands || []).length, "command", "commands") }), list);
		card.append(d);
		if (g.feedback) card.append(el("div", { class: "result", text: "feedback: " + g.feedback }));
		if (g.ledger) card.append(ledgerView(g.ledger));
	}
	if (pending && g.terminal_command) {
		const t = el("div", { class: "terminal" },
			el("div", { text: "Commands run as root: approve them on the computer's terminal" +
				(passkeyHere() && !g.machine ? ", or below with your passkey:" : ":") }),
			el("code", { class: "term", text: g.terminal_command }));
		t.append(copyButton(g.terminal_command));
		card.append(t);
	}
	if (pending && !g.busy && g.terminal_command && passkeyHere() && !g.machine) {
		const pk = el("button", { type: "button", class: "passkey", text: "Approve with passkey" });
		pk.addEventListener("click", steady(() => passkeyTap(g, card, pk)));
		card.append(el("div", { class: "actions" }, pk));
	}
	if (pending && g.busy) card.append(liveView(g, card));
	if (pending && !g.busy) {
		const acts = el("div", { class: "actions" });
		if (g.approvable) {
			const run = el("button", { type: "button", class: "approve", text: "Run the ticked commands as you" });
			run.addEventListener("click", steady(() => approveTap(g, card, run)));
			acts.append(run);
			const grant = grantChoice(g, card);
			if (grant) acts.append(grant);
			const ask = () => {
				run.classList.remove("confirm");
				run.textContent = "Run the ticked commands as you";
			};
			card.querySelectorAll("input[type=checkbox][data-id]").forEach(x => x.addEventListener("change", ask));
			acts.querySelectorAll("select.grant").forEach(x => x.addEventListener("change", ask));
		}
		const fb = el("textarea", { placeholder: "Feedback for the agent (optional)", maxlength: "4096",
			"aria-label": "feedback" });
		acts.append(fb);
		acts.append(el("button", { type: "button", class: "deny", text: "Deny",
			on: { click: steady(() => deny(g, card, fb.value)) } }));
		card.append(acts);
	}
	const last = results.get(g.request_id);
	if (last) card.append(el("div", { class: "result last" + (last.error ? " error" : ""), text: last.text }));
	return card;
}

// The layout under the reviewer's finger (docs/web.md, "What you tap is
// what you read"): pending cards stay in the order they came, a new one
// below the rest; each new list keeps the card being read where it was
// on the screen; and for a moment after the list changed, a tap on an
// action does nothing but say so.
const STEADY_MS = 1000;
let movedAt = 0, touched = null;

function steady(f) {
	return (ev) => {
		if (Date.now() - movedAt < STEADY_MS) {
			notice("The list just changed: look again, then tap.");
			if (ev) ev.preventDefault();
			return;
		}
		return f(ev);
	};
}

document.addEventListener("pointerdown", ev => {
	const card = ev.target.closest && ev.target.closest("article.gate");
	touched = card ? card.getAttribute("data-gate") : null;
}, true);

// The cards on the screen now, the one last touched first.
function anchorsNow() {
	const seen = [];
	for (const card of document.querySelectorAll("article.gate")) {
		const r = card.getBoundingClientRect();
		if (r.bottom > 0 && r.top < window.innerHeight)
			seen.push({ id: card.getAttribute("data-gate"), list: card.parentElement.id, top: r.top });
	}
	const t = seen.findIndex(a => a.id === touched);
	if (t > 0) seen.unshift(seen.splice(t, 1)[0]);
	return seen;
}

// Scroll so that the first of those cards still in its list is where it was.
function keepInPlace(anchors) {
	for (const a of anchors) {
		const card = [...document.querySelectorAll("#" + a.list + " > article.gate")]
			.find(c => c.getAttribute("data-gate") === a.id);
		if (card) {
			window.scrollBy(0, card.getBoundingClientRect().top - a.top);
			return;
		}
	}
}

// The list's children become cards, in order, without taking out a card
// that stays: a node taken out of the page, even for a moment, loses the
// focus inside it (a phone's keyboard closes). Kept cards are already in
// their order (oldest first), so only the others are inserted.
function placeCards(list, cards) {
	for (const c of [...list.children]) if (!cards.includes(c)) c.remove();
	let at = list.firstChild;
	for (const c of cards) {
		if (c === at) at = at.nextSibling;
		else list.insertBefore(c, at);
	}
}

let loading = false, again = false, liveTimer = null;
async function load() {
	if (loading) { again = true; return; }
	loading = true;
	try {
		const r = await api("GET", "/api/gates?all=1");
		if (unpairedAnswer(r)) return unpaired();
		if (r.status !== 200) { notice("Cannot read the requests: " + errText(r)); return; }
		notice("");
		const pend = document.getElementById("pending"), rec = document.getElementById("recent");
		// keep what is being typed or run: cards with work under way stay,
		// and one whose Stop or Run asks to be confirmed
		const keep = new Map();
		// (a focused field or button stays focused: a phone's keyboard
		// stays open while a request arrives)
		for (const card of pend.querySelectorAll("article.gate")) {
			const id = card.getAttribute("data-gate"), ta = card.querySelector("textarea");
			if (busy.has(id) || (ta && ta.value) || card.contains(document.activeElement) ||
				card.querySelector("button.confirm")) keep.set(id, card);
		}
		const before = [...pend.children].map(c => c.getAttribute("data-gate")).join(" ");
		const anchors = anchorsNow();
		// the daemon lists the newest first; pending ones are shown oldest
		// first, so one that arrives goes below the rest
		const pendingGates = r.body.gates.filter(g => g.state === "pending").reverse();
		placeCards(pend, pendingGates.map(g => keep.get(g.request_id) || gateCard(g)));
		rec.replaceChildren();
		let nr = 0;
		for (const g of r.body.gates) {
			if (g.state !== "pending" && nr < 20) {
				rec.append(gateCard(g));
				nr++;
			}
		}
		const np = pendingGates.length;
		if (before !== "" && [...pend.children].map(c => c.getAttribute("data-gate")).join(" ") !== before) {
			// data-steady says when taps count again (tests wait on it)
			const at = movedAt = Date.now();
			pend.dataset.steady = "0";
			setTimeout(() => { if (movedAt === at) pend.dataset.steady = "1"; }, STEADY_MS + 50);
		}
		keepInPlace(anchors);
		// a batch running: its output is read again every second
		if (r.body.gates.some(g => g.busy) && !liveTimer)
			liveTimer = setTimeout(() => { liveTimer = null; load(); }, 1000);
		document.getElementById("empty").hidden = np > 0;
		document.getElementById("recent-title").hidden = nr === 0;
		document.title = np > 0 ? "(" + np + ") warrant" : "warrant";
	} finally {
		loading = false;
		if (again) { again = false; load(); }
	}
}

function unpaired() {
	if (events) { events.close(); events = null; }
	document.getElementById("conn").textContent = "not paired";
	const n = document.getElementById("notice");
	notice((n.hidden ? "" : n.textContent + " ") + "This browser is not paired, or was revoked. " +
		"On the computer, run `warrant pair` and open its link here.");
}

// EventSource sends no headers of its own: the stream is opened with a
// single-use ticket fetched with the key, and a new one at each reconnect.
async function listen() {
	const t = await api("POST", "/api/events/ticket", {});
	if (unpairedAnswer(t)) return unpaired();
	if (t.status !== 200) { setTimeout(listen, 3000); return; }
	events = new EventSource("/api/events?ticket=" + encodeURIComponent(t.body.ticket));
	events.addEventListener("gates", () => load());
	events.addEventListener("gates", () => loadGrants());
	events.addEventListener("open", () => { document.getElementById("conn").textContent = "live"; });
	events.addEventListener("error", () => {
		document.getElementById("conn").textContent = "reconnecting…";
		if (events) events.close();
		events = null;
		setTimeout(() => { load(); listen(); }, 2000);
	});
}

// Trade the link's token for a session (the one call without a key).
async function pair(token) {
	let r = null, j = null;
	try {
		r = await fetch("/api/pair", { method: "POST", credentials: "omit",
			headers: { "Content-Type": "application/json" },
			body: JSON.stringify({ token, name: "browser" }) });
		j = await r.json();
	} catch (e) {
		return notice("Pairing failed: the connection to the computer was lost");
	}
	if (r.status === 200 && j && typeof j.session === "string" && typeof j.key === "string")
		await sessionKeep(j.session, j.key);
	else notice("Pairing failed: " + errText({ status: r.status, body: j }));
}

async function start() {
	const m = /^#token=([A-Za-z0-9_-]{1,128})$/.exec(location.hash);
	if (m) {
		// the token leaves the address bar (and the history) at once
		history.replaceState(null, "", location.pathname);
		await pair(m[1]);
	}
	session = await sessionStore("readonly", st => st.get("current")).catch(() => null) || null;
	const s = await api("GET", "/api/session");
	if (unpairedAnswer(s)) return unpaired();
	if (s.status !== 200) { notice(errText(s)); return; }
	document.getElementById("conn").textContent = "device " + s.body.device +
		(s.body.port_held ? "" : " · port not held for the daemon");
	document.getElementById("pk-add").addEventListener("click", passkeyEnrol);
	await load();
	loadGrants();
	loadPasskey();
	listen();
}

// the relative expiries age with the page, between two loads
setInterval(() => {
	for (const b of document.querySelectorAll("button.expiry[data-at]"))
		if (!b.classList.contains("absolute")) b.textContent = expiryText(Number(b.getAttribute("data-at")));
}, 15000);

start();
