// The service bench's TypeScript stand-in (`bench/ts-service-steps.mjs`) answers as the native
// service does: both processes started on the JS fixture pack, the same requests sent over
// loopback HTTP, the answers' bytes compared. The bench compares its two echo bodies too before
// it times anything; this keeps the stand-in honest between bench runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listeningPort } from './helpers/lines.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const indexPath = join(here, 'fixtures', 'js-pack', 'index.json');
const TOKEN = 'stand-in-token';

const servers = {
  native: join(here, '..', 'bin', 'kindgi-pack-service.mjs'),
  standIn: join(here, '..', 'bench', 'ts-service-steps.mjs'),
};

/** Starts one server; resolves with its child and port once it wrote `listening`. */
async function start(entry) {
  const child = spawn(process.execPath, [entry, '--index', indexPath, '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return { child, port: await listeningPort(child) };
}

const running = {};
before(async () => {
  const [native, standIn] = await Promise.all([start(servers.native), start(servers.standIn)]);
  Object.assign(running, { native, standIn });
});
after(() => {
  for (const { child } of Object.values(running)) child.kill('SIGKILL');
});

async function answer(port, body) {
  const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
    body,
  });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), artifact: res.headers.get('kindgi-artifact-version') };
}

const invoke = (id, input) => JSON.stringify({ v: 2, kind: 'invoke', tool: { id }, input, ctx: { tenantId: 't1', runId: 'r1' } });

/** The bench's two bodies, then a few refusals whose messages the two also share. */
const cases = {
  'echo {"text":"hi"}': invoke('fixture.echo', { text: 'hi' }),
  'echo, 100 KB input': invoke('fixture.echo', { text: 'x'.repeat(100 * 1024 - '{"text":""}'.length) }),
  'echo, an input its schema refuses': invoke('fixture.echo', { text: 1, extra: true }),
  'a tool the pack lacks': invoke('fixture.nope', {}),
  'a body that is not JSON': '{"v":2,',
  'ctx missing': JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: { text: 'hi' } }),
};

test('the TypeScript stand-in answers with the native service\'s bytes', async () => {
  for (const [label, body] of Object.entries(cases)) {
    const native = await answer(running.native.port, body);
    const standIn = await answer(running.standIn.port, body);
    assert.equal(native.status, 200, `${label}: native status`);
    assert.equal(standIn.status, 200, `${label}: stand-in status`);
    assert.equal(standIn.body.toString(), native.body.toString(), `${label}: the answers differ`);
    assert.ok(standIn.body.equals(native.body), `${label}: the answers' bytes differ`);
    assert.equal(standIn.artifact, native.artifact, `${label}: kindgi-artifact-version`);
  }
});
