// SPDX-License-Identifier: ISC
// `warrant mcp` through the official MCP TypeScript SDK client: tools/list,
// an approved YOU-only call, output_to_agent, denial with feedback, expiry,
// a refusal, the old tool name, cancellation withdrawing the gate, and a
// call answering "pending" that wait_for_review picks up again (also from
// another session).
import Ajv2020 from 'ajv/dist/2020.js';
import { isDeepStrictEqual } from 'node:util';
import {
	check, connect, diag, finish, gateState, newHome, pendingGate, text, waitFor,
	warrant, warrantJson,
} from './lib.mjs';

const ECHO = '/usr/bin/echo';

async function listTools() {
	const home = newHome('list');
	const { client } = await connect(home);
	const { tools } = await client.listTools();
	const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
	const now = byName.request_commands, old = byName.request_root_commands;
	check(now && old, 'tools/list shows request_commands and request_root_commands',
	    tools.map((t) => t.name));
	if (!now || !old)
		return client.close();
	check(isDeepStrictEqual(now.inputSchema, old.inputSchema),
	    'both names take the same input schema');
	const schema = now.inputSchema;
	check(schema.type === 'object' && schema.required?.includes('reason') &&
	    schema.required?.includes('commands') && schema.properties?.commands?.items,
	    'the input schema is an object requiring reason and commands', schema);
	let validate = null;
	try {
		validate = new Ajv2020({ strict: false }).compile(schema);
	} catch (e) {
		diag(e.message);
	}
	check(validate !== null, 'the input schema compiles as JSON Schema 2020-12');
	if (validate) {
		const good = {
			reason: 'install nginx', output_to_agent: 'tail', next: { prompt: 'p' },
			commands: [
				{ id: 'apt', why: 'w', argv: ['/usr/bin/apt-get', 'install', '-y', 'nginx'] },
				{ id: 'fetch', why: 'w', as: 'user', command: 'curl -O https://example.org/x' },
			],
		};
		check(validate(good), 'a well-formed ROOT+YOU request matches the schema', validate.errors);
		check(!validate({ commands: good.commands }), 'a request without reason does not');
		check(!validate({ reason: 'r', commands: [{ id: 'a', why: 'w', as: 'admin', argv: ['x'] }] }),
		    'a command with as: admin does not');
	}
	check(/batch/i.test(now.description) && /absolute/i.test(now.description) &&
	    /why/.test(now.description) && /as.*user/i.test(now.description),
	    'the description teaches batching, absolute paths, a why per command and YOU commands');
	check(/wait_for_review/.test(now.description) && /pending/.test(now.description),
	    'the description teaches wait_for_review for a request still pending');
	const wait = byName.wait_for_review;
	check(wait?.inputSchema?.required?.length === 1 && wait.inputSchema.required[0] === 'request_id' &&
	    wait.inputSchema.properties?.wait_seconds?.maximum === 45 && /pending/.test(wait.description),
	    'tools/list shows wait_for_review: a request_id and wait_seconds up to 45', wait);
	const info = client.getServerVersion();
	check(info?.name === 'warrant', 'serverInfo names warrant', info);
	await client.close();
}

async function approved() {
	const home = newHome('approved');
	const { client } = await connect(home, 'approving-agent');
	const progress = [];
	const reason = 'mcp approved test';
	const call = client.callTool({
		name: 'request_commands',
		arguments: {
			reason,
			commands: [
				{ id: 'hello', why: 'print a greeting', as: 'user', argv: [ECHO, 'hello-from-you'] },
				{ id: 'lines', why: 'print lines', as: 'user',
				  command: "printf 'line-one\\nline-two\\n'; echo on-stderr >&2" },
			],
			next: { prompt: 'now run the test suite' },
		},
	}, undefined, { onprogress: (p) => progress.push(p) });
	const gate = await pendingGate(home, reason);
	check(gate, 'the call creates a pending gate');
	if (!gate)
		return client.close();
	check(gate.agent === 'approving-agent', 'the gate names the client as its agent', gate.agent);
	await waitFor(() => progress.length > 0, 5000);
	check(progress.length > 0 && progress[0].message?.includes(gate.request_id) &&
	    progress[0].progress === 0 && progress[0].total === 300,
	    'a progress notification names the gate while it is pending', progress);
	const ans = await warrant(home, ['answer', gate.request_id, '--run', '-j']);
	check(ans.code === 0, 'warrant answer --run approves the YOU-only request without a terminal',
	    ans.stdout + ans.stderr);
	const res = await call;
	const t = text(res);
	check(!res.isError, 'an approved call is not an error', res);
	check(t.includes(`${gate.request_id} was approved: 2 of 2 commands ran successfully`),
	    'the text summarises the ledger', t);
	check(t.includes('== hello (you): ran, exit 0') && t.includes('hello-from-you') &&
	    t.includes('line-two') && t.includes('on-stderr'),
	    'the text shows each command with its output', t);
	check(t.includes('next:') && t.includes('now run the test suite'),
	    'the text hands back next.prompt', t);
	const sc = res.structuredContent;
	check(sc?.request_id === gate.request_id && sc?.state === 'approved' &&
	    sc?.ledger?.entries?.length === 2 && sc.ledger.entries[0].output_tail === 'hello-from-you\n' &&
	    sc.ledger.entries[1].exit_code === 0 && sc.ledger.manifest_sha256 === gate.manifest_sha256,
	    'structuredContent carries the ledger', sc);
	check(sc?.next_prompt === 'now run the test suite', 'structuredContent carries next_prompt', sc);
	const wait = await warrantJson(home, ['wait', gate.request_id, '-j']);
	check(isDeepStrictEqual(wait.ledger, sc?.ledger), 'the ledger is the one warrant wait prints');
	await client.close();
}

async function outputNone() {
	const home = newHome('none');
	const { client } = await connect(home);
	const reason = 'mcp output none';
	const call = client.callTool({
		name: 'request_commands',
		arguments: {
			reason, output_to_agent: 'none',
			commands: [{ id: 'quiet', why: 'w', as: 'user', argv: [ECHO, 'not-for-the-agent'] },
			    { id: 'fails', why: 'w', as: 'user', command: 'exit 3' },
			    { id: 'after', why: 'w', as: 'user', argv: [ECHO, 'never'] }],
		},
	});
	const gate = await pendingGate(home, reason);
	await warrant(home, ['answer', gate.request_id, '--run', '-j']);
	const res = await call;
	const t = text(res);
	check(!t.includes('not-for-the-agent') &&
	    res.structuredContent?.ledger?.entries?.[0]?.output_tail === '' &&
	    t.includes('withheld: output_to_agent is none'),
	    'output_to_agent none keeps the output from the agent', res);
	check(t.includes('1 of 3 commands ran successfully; fails failed (exit 3); 1 skipped') &&
	    t.includes('== after (you): skipped'), 'a failed command and the skipped rest are reported', t);
	await client.close();
}

// Output reaches the agent as it is (cowsay's backslashes once, apt's \r
// progress as its last state), with terminal escapes still neutralised.
async function outputAsIs() {
	const home = newHome('asis');
	const { client } = await connect(home);
	const reason = 'mcp output as it is';
	const fmt = ' \\\\   ^__^\\n  (oo)\\\\_______\\n0%%\\r50%%\\r100%% done\\r\\nesc \\033[2J\\tend\\n';
	const call = client.callTool({
		name: 'request_commands',
		arguments: { reason, output_to_agent: 'full', next: { prompt: 'then C:\\dir\\x' },
			commands: [{ id: 'cow', why: 'w', as: 'user', argv: ['/usr/bin/printf', fmt] }] },
	});
	const gate = await pendingGate(home, reason);
	await warrant(home, ['answer', gate.request_id, '--run']);
	const res = await call;
	const t = text(res);
	const lines = t.split('\n');
	check(lines.includes('   |  \\   ^__^') && lines.includes('   |   (oo)\\_______'),
	    'a backslash in the output reaches the agent as one backslash', t);
	check(lines.includes('   | 100% done') && !t.includes('50%') && !t.includes('\\r'),
	    'a \\r progress line reaches the agent as its last state, CR LF as a line end', t);
	check(lines.includes('   | esc \\x1b[2J\tend') && !t.includes('\x1b'),
	    'an escape in the output is still shown as \\x1b, a tab stays a tab', t);
	check(lines.includes('   then C:\\dir\\x'), 'next.prompt keeps its backslashes too', t);
	check(res.structuredContent?.ledger?.entries?.[0]?.output_tail ===
	    ' \\   ^__^\n  (oo)\\_______\n0%\r50%\r100% done\r\nesc \x1b[2J\tend\n',
	    'structuredContent keeps the output exact', res.structuredContent);
	await client.close();
}

async function denied() {
	const home = newHome('denied');
	const { client } = await connect(home);
	const reason = 'mcp denied test';
	const call = client.callTool({
		name: 'request_commands',
		arguments: { reason, commands: [{ id: 'a', why: 'w', as: 'user', argv: [ECHO, 'x'] }] },
	});
	const gate = await pendingGate(home, reason);
	const ans = await warrant(home, ['answer', gate.request_id, '--deny', '-f', 'use the packaged version instead']);
	check(ans.code === 0, 'warrant answer --deny -f denies', ans.stderr);
	const res = await call;
	const t = text(res);
	check(res.isError === true && t.includes('was denied') &&
	    t.includes('use the packaged version instead'),
	    'a denied call is an error carrying the feedback', res);
	check(res.structuredContent?.state === 'denied' &&
	    res.structuredContent?.feedback === 'use the packaged version instead',
	    'structuredContent says denied, with the feedback', res.structuredContent);
	await client.close();
}

async function expired() {
	const home = newHome('expired');
	const { client } = await connect(home);
	const started = Date.now();
	const res = await client.callTool({
		name: 'request_commands',
		arguments: {
			reason: 'mcp expiry test', gate_timeout_seconds: 2,
			commands: [{ id: 'a', why: 'w', as: 'user', argv: [ECHO, 'x'] }],
		},
	});
	const took = Date.now() - started;
	check(res.isError === true && /expired/.test(text(res)) &&
	    res.structuredContent?.state === 'expired',
	    'an unanswered call returns an expiry error', res);
	check(took >= 900 && took < 10000, `it returns when the 2 s window closes (${took} ms)`);
	const list = await warrantJson(home, ['list', '-a', '-j']);
	check(list.length === 1 && list[0].state === 'expired', 'the gate is expired in the store', list);
	await client.close();
}

async function refused() {
	const home = newHome('refused');
	const { client } = await connect(home);
	const res = await client.callTool({
		name: 'request_commands',
		arguments: { reason: 'r', commands: [{ id: 'sh', why: 'w', argv: ['/bin/bash', '-i'] }] },
	});
	check(res.isError === true && text(res).startsWith('refused (interactive_program) at $.commands[0].argv[0]: '),
	    'a refused request is an error "refused (CODE) at PATH: MESSAGE"', res);
	const e = res.structuredContent?.error;
	check(e?.code === 'interactive_program' && e?.path === '$.commands[0].argv[0]' && e?.message,
	    'structuredContent.error has code, path and message', res.structuredContent);
	check(typeof e?.hint === 'string' && e.hint.includes('its own command') &&
	    text(res).includes('Hint: ' + e.hint),
	    'the refusal teaches the fix: a hint in structuredContent and in the text', res);
	const res2 = await client.callTool({
		name: 'request_commands',
		arguments: { reason: 'r', commands: [{ id: 'a', why: 'w', argv: ['/usr/bin/true'], cwd: '/tmp' }] },
	});
	check(res2.structuredContent?.error?.code === 'cwd_on_root_command',
	    'cwd on a ROOT command is refused as cwd_on_root_command', res2);
	const res3 = await client.callTool({ name: 'request_commands', arguments: {} });
	check(res3.isError === true && res3.structuredContent?.error?.path === '$.reason',
	    'empty arguments are refused at $.reason', res3);
	const list = await warrantJson(home, ['list', '-a', '-j']);
	check(list.length === 0, 'refusals create no gate', list);
	await client.close();
}

async function oldName() {
	const home = newHome('old');
	const { client } = await connect(home);
	const reason = 'mcp old tool name';
	const call = client.callTool({
		name: 'request_root_commands',
		arguments: { reason, commands: [{ id: 'a', why: 'w', as: 'user', argv: [ECHO, 'old-name-ok'] }] },
	});
	const gate = await pendingGate(home, reason);
	await warrant(home, ['answer', gate.request_id, '--run']);
	const res = await call;
	check(!res.isError && text(res).includes('old-name-ok'),
	    'request_root_commands is the same tool', res);
	await client.close();
}

async function cancelled() {
	const home = newHome('cancel');
	const { client } = await connect(home);
	const reason = 'mcp cancel test';
	const ac = new AbortController();
	const call = client.callTool({
		name: 'request_commands',
		arguments: { reason, commands: [{ id: 'r', why: 'w', argv: ['/usr/bin/true'] }] },
	}, undefined, { signal: ac.signal });
	const gate = await pendingGate(home, reason);
	check(gate?.root_count === 1, 'a ROOT call waits as a pending gate (MCP approves nothing)', gate);
	ac.abort('the user pressed Esc');
	let rejected = false;
	try {
		await call;
	} catch {
		rejected = true;
	}
	check(rejected, 'the aborted call rejects in the client');
	const g = await waitFor(async () => {
		const s = await gateState(home, gate.request_id);
		return s.state !== 'pending' ? s : null;
	}, 5000);
	check(g?.state === 'denied' &&
	    g?.feedback === 'withdrawn by the requester: the agent cancelled the call',
	    'cancelling the call while it waits withdraws its gate, said once', g);
	const { tools } = await client.listTools();
	check(tools.length === 3, 'the session keeps serving after a cancellation');
	await client.close();
}

// A call whose client times out: the SDK sends notifications/cancelled.
async function timedOut() {
	const home = newHome('timeout');
	const { client } = await connect(home);
	const reason = 'mcp client timeout';
	let err = null;
	try {
		await client.callTool({
			name: 'request_commands',
			arguments: { reason, commands: [{ id: 'a', why: 'w', as: 'user', argv: [ECHO, 'x'] }] },
		}, undefined, { timeout: 1500 });
	} catch (e) {
		err = e;
	}
	check(err !== null, 'a client-side timeout rejects the call', err?.message);
	const list = await waitFor(async () => {
		const l = await warrantJson(home, ['list', '-a', '-j']);
		return l.length === 1 && l[0].state !== 'pending' ? l : null;
	}, 5000);
	check(list?.[0]?.state === 'denied', 'and withdraws the gate', list);
	await client.close();
}

// A server that answers "pending" after 1 s (WARRANT_MCP_WAIT): the
// request outlives the call and the session; wait_for_review in a new
// session looks, then waits for the reviewer's answer.
async function answeredPending() {
	const home = newHome('pending');
	const first = await connect(home, 'pending-agent', { WARRANT_MCP_WAIT: '1' });
	const reason = 'mcp answers pending';
	const res = await first.client.callTool({
		name: 'request_commands',
		arguments: { reason, commands: [{ id: 'p', why: 'w', as: 'user', argv: [ECHO, 'later'] }] },
	});
	const id = res.structuredContent?.request_id;
	check(!res.isError && res.structuredContent?.state === 'pending' && /^w-/.test(id ?? '') &&
	    text(res).includes(`wait_for_review with request_id "${id}"`) &&
	    text(res).includes('it has no outcome yet'),
	    'a call the reviewer has not answered in time answers pending with the id and what to do', res);
	if (!id)
		return first.client.close();
	check((await gateState(home, id)).state === 'pending',
	    'answering pending withdrew nothing');
	await first.client.close();
	check((await gateState(home, id)).state === 'pending',
	    'nor did the end of the session that made it');
	const { client } = await connect(home, 'pending-agent-2');
	const look = await client.callTool({ name: 'wait_for_review', arguments: { request_id: id, wait_seconds: 0 } });
	check(!look.isError && look.structuredContent?.state === 'pending' &&
	    look.structuredContent?.request_id === id,
	    'wait_for_review with wait_seconds 0 from another session says pending at once', look);
	const progress = [];
	const call = client.callTool({ name: 'wait_for_review', arguments: { request_id: id } },
	    undefined, { onprogress: (p) => progress.push(p) });
	await waitFor(() => progress.length > 0, 5000);
	check(progress[0]?.message?.includes(id), 'wait_for_review sends progress while it waits', progress);
	const ans = await warrant(home, ['answer', id, '--run', '-j']);
	check(ans.code === 0, 'the reviewer approves meanwhile', ans.stdout + ans.stderr);
	const out = await call;
	check(!out.isError && text(out).includes(`${id} was approved: 1 of 1 command ran successfully`) &&
	    text(out).includes('later'), 'wait_for_review returns the ledger once approved', out);
	const wait = await warrantJson(home, ['wait', id, '-j']);
	check(isDeepStrictEqual(out.structuredContent?.ledger, wait.ledger),
	    '... the ledger warrant wait prints', out.structuredContent);
	const again = await client.callTool({ name: 'wait_for_review', arguments: { request_id: id } });
	check(!again.isError && again.structuredContent?.state === 'approved',
	    'a settled request answers at once, again', again);
	const none = await client.callTool({ name: 'wait_for_review', arguments: { request_id: 'w-aaaaaaaaaa' } });
	check(none.isError === true && text(none).includes('no request of yours matches'),
	    'an unknown request_id is an error', none);
	const bad = await client.callTool({ name: 'wait_for_review', arguments: { request_id: id, wait_seconds: 'soon' } });
	check(bad.isError === true && text(bad).includes('wait_seconds'),
	    'wait_seconds that is not a number is an error', bad);
	await client.close();
}

try {
	await listTools();
	await approved();
	await outputNone();
	await outputAsIs();
	await denied();
	await expired();
	await refused();
	await oldName();
	await cancelled();
	await timedOut();
	await answeredPending();
} catch (e) {
	check(false, 'the SDK tests ran to the end', e.stack ?? String(e));
}
finish();
