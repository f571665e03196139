// SPDX-License-Identifier: ISC
// An agent whose MCP client gives up on a call after 60 s (the official
// SDK client at its default request timeout, as the MCP Inspector CLI
// uses it) and a reviewer who answers after 70 s: request_commands
// answers pending before the client gives up, and wait_for_review gets
// the outcome. Once approved, once denied, both at once.
import { isDeepStrictEqual } from 'node:util';
import {
	check, connect, diag, finish, gateState, newHome, pendingGate, sleep, text, warrant,
	warrantJson,
} from './lib.mjs';

const REVIEW_AFTER_MS = 70000;
const MAX_WAITS = 6;

async function slowReview(kind) {
	const home = newHome(`slow-${kind}`);
	const { client } = await connect(home, `slow-${kind}`);
	const reason = `slow review ${kind}`;
	const started = Date.now();
	const progress = [];
	// no timeout given: the SDK's default, 60 s, not reset by progress
	const first = client.callTool({
		name: 'request_commands',
		arguments: { reason, commands: [{ id: 'slow', why: 'w', as: 'user', argv: ['/usr/bin/echo', `slow-${kind}`] }] },
	}, undefined, { onprogress: (p) => progress.push(p) });
	const gate = await pendingGate(home, reason);
	let res;
	try {
		res = await first;
	} catch (e) {
		check(false, `${kind}: request_commands answers before the client gives up`, e.message);
		return client.close();
	}
	const id = gate?.request_id;
	check(!res.isError && res.structuredContent?.state === 'pending' &&
	    res.structuredContent?.request_id === id && text(res).includes('wait_for_review'),
	    `${kind}: request_commands answers pending, with the id and wait_for_review`, res);
	check(progress.length >= 2 && progress.every((p) => p.message?.includes(id)),
	    `${kind}: progress notifications were sent while it waited`, progress);
	check((await gateState(home, id)).state === 'pending',
	    `${kind}: the request stays pending: the answer withdrew nothing`);
	// the reviewer: after the first call returned, and 70 s after it started
	const reviewer = (async () => {
		await sleep(Math.max(0, started + REVIEW_AFTER_MS - Date.now()));
		return kind === 'approve' ? warrant(home, ['answer', id, '--run', '-j']) :
		    warrant(home, ['answer', id, '--deny', '-f', 'not today']);
	})();
	let out = null, calls = 0;
	while (out === null && calls < MAX_WAITS) {
		calls++;
		let r;
		try {
			r = await client.callTool({ name: 'wait_for_review', arguments: { request_id: id } });
		} catch (e) {
			check(false, `${kind}: wait_for_review answers before the client gives up`, e.message);
			break;
		}
		if (r.structuredContent?.state !== 'pending')
			out = r;
	}
	const ans = await reviewer;
	check(ans.code === 0, `${kind}: the reviewer answers after 70 s`, ans.stdout + ans.stderr);
	diag(`${kind}: outcome after ${Math.round((Date.now() - started) / 1000)} s and ${calls} wait_for_review call(s)`);
	if (kind === 'approve') {
		check(out && !out.isError && out.structuredContent?.state === 'approved' &&
		    text(out).includes(`${id} was approved: 1 of 1 command ran successfully`) &&
		    text(out).includes('slow-approve'),
		    'approve: wait_for_review returns the ledger', out);
		const wait = await warrantJson(home, ['wait', id, '-j']);
		check(isDeepStrictEqual(out?.structuredContent?.ledger, wait.ledger),
		    'approve: ... the ledger warrant wait prints', out?.structuredContent);
	} else {
		check(out?.isError === true && out.structuredContent?.state === 'denied' &&
		    out.structuredContent?.feedback === 'not today' && text(out).includes('was denied'),
		    'deny: wait_for_review returns the denial with its feedback', out);
	}
	await client.close();
}

try {
	await Promise.all([slowReview('approve'), slowReview('deny')]);
} catch (e) {
	check(false, 'the long-wait tests ran to the end', e.stack ?? String(e));
}
finish();
