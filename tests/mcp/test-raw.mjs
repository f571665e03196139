// SPDX-License-Identifier: ISC
// `warrant mcp` driven with raw lines, not through the SDK: malformed JSON,
// invalid requests, unknown methods and tools, over-long lines, version
// negotiation, serving while a call waits, and withdrawal when the session
// ends. Every line the server writes must be a JSON-RPC message.
import { spawn } from 'node:child_process';
import { check, diag, finish, gateState, newHome, WARRANT, waitFor } from './lib.mjs';

class Raw {
	constructor(home) {
		this.proc = spawn(WARRANT, ['mcp'], {
			env: { ...process.env, WARRANT_HOME: home },
			stdio: ['pipe', 'pipe', 'pipe'],
		});
		this.lines = [];
		this.bad = [];
		this.stderr = '';
		this.waiters = [];
		let buf = '';
		this.proc.stdout.setEncoding('utf8');
		this.proc.stdout.on('data', (d) => {
			buf += d;
			let nl;
			while ((nl = buf.indexOf('\n')) >= 0) {
				const line = buf.slice(0, nl);
				buf = buf.slice(nl + 1);
				let msg;
				try {
					msg = JSON.parse(line);
				} catch {
					this.bad.push(line);
					continue;
				}
				if (msg?.jsonrpc !== '2.0')
					this.bad.push(line);
				this.lines.push(msg);
				this.wake();
			}
		});
		this.proc.stderr.on('data', (d) => { this.stderr += d; });
		this.exited = new Promise((r) => this.proc.on('exit', (code, sig) => r({ code, sig })));
	}

	wake() {
		const w = this.waiters;
		this.waiters = [];
		for (const f of w)
			f();
	}

	send(line) {
		this.proc.stdin.write(line.endsWith('\n') ? line : `${line}\n`);
	}

	// The next message matching pred, or null after ms.
	async next(pred = () => true, ms = 5000) {
		const end = Date.now() + ms;
		for (;;) {
			const i = this.lines.findIndex(pred);
			if (i >= 0)
				return this.lines.splice(i, 1)[0];
			const left = end - Date.now();
			if (left <= 0)
				return null;
			await new Promise((r) => {
				this.waiters.push(r);
				setTimeout(r, left);
			});
		}
	}

	async request(id, method, params) {
		this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
		return this.next((m) => m.id === id && !m.method);
	}

	// Send a raw line; the answer is the next response with this id.
	async raw(line, id) {
		this.send(line);
		return this.next((m) => !m.method && m.id === id);
	}
}

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };

function isError(m, code) {
	return m && m.error && m.error.code === code && typeof m.error.message === 'string' &&
	    m.result === undefined;
}

async function protocol() {
	const home = newHome('raw');
	const s = new Raw(home);

	let m = await s.request(1, 'initialize', INIT);
	check(m?.result?.protocolVersion === '2025-06-18' && m.result.capabilities?.tools &&
	    m.result.serverInfo?.name === 'warrant', 'initialize answers with the revision asked for', m);
	s.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');

	m = await s.raw('this is not json', null);
	check(isError(m, -32700) && m.id === null, 'a malformed line gets a parse error (-32700)', m);
	m = await s.raw('{"jsonrpc":"2.0","id":2,"method":"tools/li', null);
	check(isError(m, -32700), 'a truncated message gets a parse error', m);
	m = await s.raw('{"jsonrpc":"2.0","id":3,"method":"resources/list"}', 3);
	check(isError(m, -32601), 'an unknown method gets method not found (-32601)', m);
	m = await s.raw('{"jsonrpc":"2.0","id":4}', 4);
	check(isError(m, -32600), 'a message without a method is an invalid request (-32600)', m);
	m = await s.raw('{"jsonrpc":"1.0","id":5,"method":"ping"}', 5);
	check(isError(m, -32600), 'a wrong jsonrpc version is an invalid request', m);
	m = await s.raw('[{"jsonrpc":"2.0","id":6,"method":"ping"}]', null);
	check(isError(m, -32600) && m.id === null, 'a batch is an invalid request', m);
	m = await s.raw('"just a string"', null);
	check(isError(m, -32600), 'a message that is not an object is an invalid request', m);
	m = await s.raw('{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', null);
	check(isError(m, -32600) && m.id === null, 'an object as id is an invalid request', m);
	m = await s.raw('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}', 7);
	check(isError(m, -32602), 'an unknown tool gets invalid params (-32602)', m);
	m = await s.raw('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"request_commands","arguments":[1]}}', 8);
	check(isError(m, -32602), 'arguments that are not an object get invalid params', m);
	m = await s.raw('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":[]}', 9);
	check(isError(m, -32602), 'params that are not an object get invalid params', m);
	m = await s.raw('{"jsonrpc":"2.0","id":10,"method":"initialize","params":{}}', 10);
	check(isError(m, -32602), 'initialize without protocolVersion gets invalid params', m);

	const huge = `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"${'x'.repeat(1024 * 1024 + 16)}"}}`;
	m = await s.raw(huge, null);
	check(isError(m, -32600) && /longer than/.test(m.error.message), 'an over-long line gets an error and is skipped', m);

	m = await s.raw('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"request_commands",' +
	    '"arguments":{"reason":"a","reason":"b","commands":[]}}}', 12);
	check(m?.result?.isError === true && m.result.structuredContent?.error?.code === 'invalid_json',
	    'a repeated key in the arguments is refused as invalid_json', m);
	m = await s.raw('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"request_commands",' +
	    '"arguments":{"reason":"r","commands":[{"id":"a","why":"w","as":"user","argv":["/usr/bin/echo","a\\u0000b"]}]}}}', 13);
	check(m?.result?.isError === true && m.result.structuredContent?.error?.code,
	    'a NUL in an argument is refused, not a protocol error', m);

	s.send('{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}');
	s.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}');
	s.send('{"jsonrpc":"2.0","id":14,"result":{}}');
	s.send('');
	m = await s.request(15, 'ping');
	check(m && isObj(m.result) && Object.keys(m.result).length === 0,
	    'after all that the server still answers ping', m);
	check(s.lines.length === 0, 'notifications and stray responses got no answer', s.lines);

	for (const [want, got] of [['2025-11-25', '2025-11-25'], ['2025-03-26', '2025-03-26'],
	    ['2099-01-01', '2025-11-25']]) {
		m = await s.request(`v-${want}`, 'initialize', { ...INIT, protocolVersion: want });
		check(m?.result?.protocolVersion === got, `initialize with ${want} negotiates ${got}`, m);
	}

	// a call waits while the session goes on serving
	const reason = 'raw pending call';
	s.send(JSON.stringify({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: {
		name: 'request_commands', _meta: { progressToken: 77 },
		arguments: { reason, commands: [{ id: 'a', why: 'w', as: 'user', argv: ['/usr/bin/true'] }] },
	} }));
	const p = await s.next((x) => x.method === 'notifications/progress');
	check(p?.params?.progressToken === 77 && /w-[a-z2-7]{10}/.test(p.params.message ?? ''),
	    'progress notifications carry the client\'s token', p);
	const gate = (p?.params?.message ?? '').match(/w-[a-z2-7]{10}/)?.[0];
	m = await s.request(16, 'ping');
	check(m?.result !== undefined, 'ping is answered while a call waits for review', m);
	m = await s.raw(JSON.stringify({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: {
		name: 'request_commands', arguments: { reason: 'dup', commands: [] } } }), 'call-1');
	check(isError(m, -32600), 'a second call with a pending call\'s id is an invalid request', m);

	check(s.bad.length === 0, 'every line on stdout is a JSON-RPC message', s.bad.slice(0, 3));
	check(/warrant: mcp:/.test(s.stderr), 'diagnostics go to stderr');

	s.proc.stdin.end();
	const ex = await s.exited;
	check(ex.code === 0, 'end of input ends the session with exit 0', ex);
	if (gate) {
		const g = await gateState(home, gate);
		check(g.state === 'denied' && g.feedback === 'withdrawn by the requester: the agent\'s MCP session ended',
		    'a call still waiting when the session ends is withdrawn', g);
	} else
		check(false, 'a call still waiting when the session ends is withdrawn');
}

function isObj(v) {
	return v !== null && typeof v === 'object' && !Array.isArray(v);
}

async function terminated() {
	const home = newHome('term');
	const s = new Raw(home);
	await s.request(1, 'initialize', INIT);
	s.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: {
		name: 'request_commands', _meta: { progressToken: 'p' },
		arguments: { reason: 'term', commands: [{ id: 'a', why: 'w', as: 'user', argv: ['/usr/bin/true'] }] },
	} }));
	const p = await s.next((x) => x.method === 'notifications/progress');
	const gate = (p?.params?.message ?? '').match(/w-[a-z2-7]{10}/)?.[0];
	s.proc.kill('SIGTERM');
	const ex = await s.exited;
	const g = gate ? await gateState(home, gate) : null;
	check(ex.code === 0 && g?.state === 'denied' && /stopped/.test(g.feedback),
	    'SIGTERM withdraws the pending call and exits 0', { ex, g });
}

try {
	await protocol();
	await terminated();
} catch (e) {
	check(false, 'the raw protocol tests ran to the end', e.stack ?? String(e));
}
void diag;
void waitFor;
finish();
