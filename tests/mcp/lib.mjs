// SPDX-License-Identifier: ISC
// Helpers shared by the MCP test clients: TAP-style results, private
// state directories, SDK clients that spawn `warrant mcp`, and the
// warrant CLI that plays the reviewer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const WARRANT = process.env.WARRANT_BIN ??
    join(process.env.WARRANT_BUILD ?? '/work/main/build', 'warrant');

let failed = 0;
const homes = [];

// One result line: "ok - DESC" or "not ok - DESC" with "# " diagnostics.
export function check(cond, desc, diag) {
	console.log(`${cond ? 'ok' : 'not ok'} - ${desc}`);
	if (!cond) {
		failed++;
		if (diag !== undefined)
			for (const line of String(typeof diag === 'string' ? diag :
			    JSON.stringify(diag)).split('\n').slice(0, 30))
				console.log(`# ${line}`);
	}
	return cond;
}

export function diag(text) {
	for (const line of String(text).split('\n'))
		console.log(`# ${line}`);
}

// A fresh state directory (0700) with its store created, removed by
// finish(). The store is created first, by one process, because the tests
// read it from the CLI while the server writes its first gate.
export function newHome(tag) {
	const d = mkdtempSync(join(tmpdir(), `warrant-mcp-${tag}-`));
	chmodSync(d, 0o700);
	homes.push(d);
	execFileSync(WARRANT, ['list', '-j'], { env: { ...process.env, WARRANT_HOME: d },
	    stdio: ['ignore', 'ignore', 'inherit'] });
	return d;
}

// Remove the state directories and exit; servers still running see end
// of input and stop.
export function finish() {
	for (const d of homes)
		rmSync(d, { recursive: true, force: true });
	process.exit(failed > 0 ? 1 : 0);
}

// An SDK client connected to its own `warrant mcp` process.
export async function connect(home, name = 'sdk-test', env = {}) {
	const transport = new StdioClientTransport({
		command: WARRANT,
		args: ['mcp'],
		env: { WARRANT_HOME: home, ...env },
		stderr: 'pipe',
	});
	let log = '';
	transport.stderr?.on('data', (d) => { log += d; });
	const client = new Client({ name, version: '1.0.0' });
	await client.connect(transport);
	return { client, transport, log: () => log };
}

// Run the warrant CLI on a state directory: {code, stdout, stderr}.
export function warrant(home, args) {
	return new Promise((resolve) => {
		const child = execFile(WARRANT, args, {
			env: { ...process.env, WARRANT_HOME: home },
			timeout: 60000,
		}, (err, stdout, stderr) => {
			resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr });
		});
		child.stdin.end();
	});
}

export async function warrantJson(home, args) {
	const r = await warrant(home, args);
	try {
		return JSON.parse(r.stdout);
	} catch {
		throw new Error(`warrant ${args.join(' ')}: exit ${r.code}: ${r.stdout} ${r.stderr}`);
	}
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Poll fn until it returns a truthy value or ms pass.
export async function waitFor(fn, ms = 10000, step = 100) {
	const end = Date.now() + ms;
	for (;;) {
		const v = await fn();
		if (v)
			return v;
		if (Date.now() > end)
			return v;
		await sleep(step);
	}
}

// The pending gate whose reason is reason, once it exists.
export async function pendingGate(home, reason, ms = 10000) {
	return waitFor(async () => {
		const list = await warrantJson(home, ['list', '-j']);
		return list.find((g) => g.reason === reason && g.state === 'pending');
	}, ms);
}

export async function gateState(home, id) {
	return warrantJson(home, ['show', id, '-j']);
}

export function text(result) {
	return (result?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

// A request with YOU commands only: approvable without a terminal.
export function youRequest(reason, commands, extra = {}) {
	return { reason, commands, ...extra };
}
