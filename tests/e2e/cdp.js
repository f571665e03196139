// SPDX-License-Identifier: ISC
// A small driver of headless Chromium over the DevTools protocol (on a
// pipe: --remote-debugging-pipe, fds 3 and 4), for tests/e2e/test-web.sh.
//   node cdp.js CHROMIUM PROFILE_DIR STEPS.json
// STEPS is an array of {"open": URL}, {"wait": JS expression, "ms": N},
// {"eval": JS expression}, {"click": CSS selector[, "when": JS expression]}
// (with "when", once that is true, in the same turn of the page's event
// loop, waiting as "wait" does), {"type": [selector, text]},
// {"tap": JS expression giving [X, Y]} (a press and release of the pointer
// at that point of the viewport, as a finger's: the page's own listeners
// see it as input),
// {"shot": PNG path}, {"viewport": [WIDTH, HEIGHT]} (a phone's, from then
// on; 390x844 at the start), {"cdp": METHOD, "params": {...}} (a DevTools
// command to the page, e.g. the WebAuthn domain's; its value: the result;
// the string "@authenticatorId" in params stands for the id the last
// WebAuthn.addVirtualAuthenticator gave). Prints one JSON line per step:
// {"step", "ok", "value"}.
// Exits 1 at the first step that fails.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");

const [chromium, profile, stepsFile] = process.argv.slice(2);
const steps = JSON.parse(fs.readFileSync(stepsFile, "utf8"));
const proc = spawn(chromium, ["--headless", "--no-sandbox", "--disable-gpu",
	"--no-first-run", "--no-default-browser-check", "--disable-extensions",
	"--remote-debugging-pipe", "--user-data-dir=" + profile, "--window-size=390,844",
	"about:blank"], { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
const out = proc.stdio[3], inp = proc.stdio[4];
let next = 1, buf = Buffer.alloc(0);
const waiting = new Map();
let session = null;
let authenticatorId = null;

inp.on("data", d => {
	buf = Buffer.concat([buf, d]);
	let i;
	while ((i = buf.indexOf(0)) >= 0) {
		const msg = JSON.parse(buf.subarray(0, i).toString("utf8"));
		buf = buf.subarray(i + 1);
		if (msg.id && waiting.has(msg.id)) {
			const [ok, fail] = waiting.get(msg.id);
			waiting.delete(msg.id);
			msg.error ? fail(new Error(JSON.stringify(msg.error))) : ok(msg.result);
		}
	}
});

function send(method, params, sessionId) {
	const id = next++;
	const m = { id, method, params: params || {} };
	if (sessionId) m.sessionId = sessionId;
	out.write(JSON.stringify(m) + "\0");
	return new Promise((ok, fail) => waiting.set(id, [ok, fail]));
}
const page = (method, params) => send(method, params, session);

async function evaluate(expr) {
	const r = await page("Runtime.evaluate", { expression: expr, awaitPromise: true,
		returnByValue: true });
	if (r.exceptionDetails) throw new Error(r.exceptionDetails.text + " " +
		JSON.stringify(r.exceptionDetails.exception && r.exceptionDetails.exception.description));
	return r.result.value;
}
const sleep = ms => new Promise(r => setTimeout(r, ms));

async function main() {
	const { targetInfos } = await send("Target.getTargets");
	const t = targetInfos.find(x => x.type === "page");
	session = (await send("Target.attachToTarget", { targetId: t.targetId, flatten: true })).sessionId;
	await page("Page.enable");
	await page("Runtime.enable");
	await page("Emulation.setDeviceMetricsOverride", { width: 390, height: 844,
		deviceScaleFactor: 1, mobile: true });
	for (const s of steps) {
		let value = null;
		if (s.open) {
			await page("Page.navigate", { url: s.open });
			await sleep(300);
		} else if (s.wait) {
			const until = Date.now() + (s.ms || 8000);
			for (;;) {
				try { value = await evaluate(s.wait); } catch (e) { value = null; }
				if (value) break;
				if (Date.now() > until) throw Object.assign(new Error("timed out"), { step: s });
				await sleep(100);
			}
		} else if (s.eval) {
			value = await evaluate(s.eval);
		} else if (s.click) {
			const until = Date.now() + (s.ms || 8000);
			for (;;) {
				value = await evaluate("(() => { if (!(" + (s.when || "true") + ")) return null; " +
					"const e = document.querySelector(" + JSON.stringify(s.click) + "); " +
					"if (!e) return false; e.click(); return true; })()");
				if (value !== null) break;
				if (Date.now() > until) throw Object.assign(new Error("timed out"), { step: s });
				await sleep(100);
			}
			if (!value) throw Object.assign(new Error("nothing to click"), { step: s });
		} else if (s.type) {
			value = await evaluate("(() => { const e = document.querySelector(" +
				JSON.stringify(s.type[0]) + "); if (!e) return false; e.value = " +
				JSON.stringify(s.type[1]) + "; return true; })()");
			if (!value) throw Object.assign(new Error("nothing to type in"), { step: s });
		} else if (s.tap) {
			const xy = await evaluate(s.tap);
			if (!Array.isArray(xy)) throw Object.assign(new Error("no point to tap"), { step: s });
			const at = { x: xy[0], y: xy[1], button: "left", clickCount: 1 };
			await page("Input.dispatchMouseEvent", { type: "mousePressed", ...at });
			await page("Input.dispatchMouseEvent", { type: "mouseReleased", ...at });
			value = xy;
		} else if (s.viewport) {
			await page("Emulation.setDeviceMetricsOverride", { width: s.viewport[0],
				height: s.viewport[1], deviceScaleFactor: 1, mobile: true });
			value = await evaluate("document.documentElement.clientWidth");
		} else if (s.cdp) {
			value = await page(s.cdp, JSON.parse(JSON.stringify(s.params || {})
				.replace(/"@authenticatorId"/g, JSON.stringify(authenticatorId))));
			if (value && value.authenticatorId) authenticatorId = value.authenticatorId;
		} else if (s.shot) {
			const r = await page("Page.captureScreenshot", { format: "png",
				captureBeyondViewport: false });
			fs.writeFileSync(s.shot, Buffer.from(r.data, "base64"));
			value = s.shot;
		}
		console.log(JSON.stringify({ step: s, ok: true, value }));
	}
}

const guard = setTimeout(() => { console.log(JSON.stringify({ ok: false, error: "took too long" }));
	proc.kill("SIGKILL"); process.exit(1); }, Number(process.env.CDP_LIMIT_MS || 90000));
main().then(() => { clearTimeout(guard); proc.kill("SIGTERM"); process.exit(0); },
	e => { console.log(JSON.stringify({ ok: false, step: e.step, error: String(e.message) }));
		clearTimeout(guard); proc.kill("SIGKILL"); process.exit(1); });
