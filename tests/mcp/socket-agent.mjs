// SPDX-License-Identifier: ISC
// `warrant mcp` of an agent that runs as its own user, through the
// reviewer's daemon (WARRANT_SOCKET), with the official SDK client. Run by
// tests/e2e/test-serve.sh as the box user, which answers the gate as the
// reviewer meanwhile: the reason carries $WT_TAG so it can find it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { check, diag, finish } from './lib.mjs';

const tag = process.env.WT_TAG;
const transport = new StdioClientTransport({
	command: process.env.WARRANT_BIN,
	args: ['mcp'],
	env: { WARRANT_SOCKET: process.env.WARRANT_SOCKET, HOME: process.env.HOME,
	    PATH: '/usr/bin:/bin' },
	stderr: 'pipe',
});
let log = '';
transport.stderr?.on('data', (d) => { log += d; });
const client = new Client({ name: 'socket-agent', version: '1.0.0' });
await client.connect(transport);

const refused = await client.callTool({ name: 'request_commands', arguments: {
	reason: `refused ${tag}`,
	commands: [{ id: 'x', why: 'w', argv: ['/nonexistent/wt-tool'] }],
} });
check(refused.isError === true &&
    refused.structuredContent?.error?.code === 'bad_executable',
    'a refused request through the daemon is an error with its code', refused);

const res = await client.callTool({ name: 'request_commands', arguments: {
	reason: `mcp-socket ${tag}`,
	commands: [{ id: 'hi', why: 'say hello', as: 'user',
	    argv: ['/usr/bin/echo', `hello-${tag}`] }],
} }, undefined, { timeout: 120000 });
const text = res.content?.[0]?.text ?? '';
check(res.isError !== true && text.includes(`hello-${tag}`),
    'the call returns once the reviewer approved, with the command output', res);
check(res.structuredContent?.state === 'approved' &&
    res.structuredContent?.ledger?.entries?.[0]?.status === 'ran',
    'structuredContent carries the approved ledger', res.structuredContent);
// a call left waiting when the session ends: its gate is withdrawn
client.callTool({ name: 'request_commands', arguments: {
	reason: `abandon ${tag}`,
	commands: [{ id: 'late', why: 'w', as: 'user', argv: ['/usr/bin/true'] }],
} }, undefined, { timeout: 120000 }).catch(() => {});
await new Promise((r) => setTimeout(r, 1500));
await client.close();
if (!/mcp:/.test(log))
	diag(log);
finish();
