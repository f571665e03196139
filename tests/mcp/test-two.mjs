// SPDX-License-Identifier: ISC
// Several MCP sessions at once on one state directory: two SDK clients,
// each with its own pending call, answered in reverse order; a third
// session is killed while its call waits, and the others do not notice.
import { check, connect, finish, gateState, newHome, pendingGate, text, warrant } from './lib.mjs';

const ECHO = '/usr/bin/echo';

function call(client, reason, marker) {
	const started = { done: false, at: 0 };
	const p = client.callTool({
		name: 'request_commands',
		arguments: { reason, commands: [{ id: 'say', why: 'w', as: 'user', argv: [ECHO, marker] }] },
	}).then((r) => {
		started.done = true;
		started.at = process.hrtime.bigint();
		return r;
	});
	return { p, started };
}

async function two() {
	const home = newHome('two');
	const a = await connect(home, 'client-a');
	const b = await connect(home, 'client-b');
	const c = await connect(home, 'client-c');
	const ca = call(a.client, 'session A', 'marker-from-a');
	const cb = call(b.client, 'session B', 'marker-from-b');
	const cc = call(c.client, 'session C', 'marker-from-c');
	const ga = await pendingGate(home, 'session A');
	const gb = await pendingGate(home, 'session B');
	const gc = await pendingGate(home, 'session C');
	check(ga && gb && gc && new Set([ga.request_id, gb.request_id, gc.request_id]).size === 3,
	    'three sessions have three pending gates');
	check(ga?.agent === 'client-a' && gb?.agent === 'client-b', 'each gate names its own client');
	if (!ga || !gb || !gc)
		return;

	// session C crashes while its call waits
	cc.p.catch(() => {});
	process.kill(c.transport.pid, 'SIGKILL');

	const rb = await warrant(home, ['answer', gb.request_id, '--run']);
	check(rb.code === 0, 'B is approved first', rb.stderr);
	const resB = await cb.p;
	check(!ca.started.done, 'A is still waiting when B has its answer');
	const ra = await warrant(home, ['answer', ga.request_id, '--run']);
	check(ra.code === 0, 'then A is approved', ra.stderr);
	const resA = await ca.p;
	check(text(resB).includes('marker-from-b') && !text(resB).includes('marker-from-a') &&
	    resB.structuredContent?.request_id === gb.request_id,
	    'B gets its own ledger', resB);
	check(text(resA).includes('marker-from-a') && !text(resA).includes('marker-from-b') &&
	    resA.structuredContent?.request_id === ga.request_id,
	    'A gets its own ledger', resA);
	check(cb.started.at < ca.started.at, 'the answers arrive in the order the gates settled');

	const g = await gateState(home, gc.request_id);
	check(g.state === 'pending', 'the killed session\'s gate stays pending (until it expires)', g);
	const { tools } = await a.client.listTools();
	check(tools.length === 3, 'the surviving sessions keep serving after one crashed');
	await warrant(home, ['answer', gc.request_id, '--deny', '-f', 'cleanup']);
	await a.client.close();
	await b.client.close();
	await c.client.close().catch(() => {});
}

try {
	await two();
} catch (e) {
	check(false, 'the concurrent-session tests ran to the end', e.stack ?? String(e));
}
finish();
