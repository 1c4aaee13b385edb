// The `kindgi-pack-service` process when whoever reads its stderr falls behind: Node leaves the
// pipe non-blocking, so the service's record writer meets EAGAIN and must wait and go on, never
// losing or cutting a record (src/log/sink.rs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { onLines } from './helpers/lines.mjs';
import { localCall, packFolder, writeLocalPack } from './helpers/local-pack.mjs';
import { until } from './helpers/until.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-service.mjs');
const indexPath = join(here, 'fixtures', 'js-pack', 'index.json');
const TOKEN = 'stderr-token';
const { NAPI_RS_NATIVE_LIBRARY_PATH } = process.env;
const addon = NAPI_RS_NATIVE_LIBRARY_PATH === undefined ? {} : { NAPI_RS_NATIVE_LIBRARY_PATH };

test('a stderr reader that pauses still gets every call record, each a whole JSON line', async () => {
  const child = spawn(process.execPath, [bin, '--index', indexPath, '--host', '127.0.0.1'], {
    // The addon this test process loads, when one is named (a build under test).
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', ...addon },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = [];
  onLines(child.stderr, (line) => lines.push(line));
  const parsed = () => lines.map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      return { unparsed: line };
    }
  });
  await until(() => parsed().some((l) => l.kind === 'listening'), 'the listening line');
  const { port } = parsed().find((l) => l.kind === 'listening');

  // Nothing reads the pipe now: its 64 KiB fill within the first hundred or so records, and
  // every later one meets a full, non-blocking pipe.
  child.stderr.pause();
  const calls = 3000;
  let next = 0;
  const caller = async () => {
    while (next < calls) {
      const i = next;
      next += 1;
      const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
        body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: { text: `call ${i}` }, ctx: { tenantId: 't', runId: `run-${i}` } }),
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, caller));
  // Every call is answered (its record queued or blocked) while the reader is still away.
  await new Promise((resolve) => setTimeout(resolve, 200));
  child.stderr.resume();
  // `stopped` is written after every record queued before it.
  child.kill('SIGTERM');
  assert.equal(await exited, 0);

  const records = parsed();
  assert.deepEqual(records.filter((l) => 'unparsed' in l).map((l) => l.unparsed), [], 'lines cut or joined');
  assert.deepEqual(records.filter((l) => l.dropped !== undefined), [], 'nothing dropped under the budget');
  const runs = records.filter((l) => l.kind === 'call').map((l) => l.runId);
  assert.equal(runs.length, calls, `${runs.length} of ${calls} call records arrived`);
  assert.deepEqual(new Set(runs), new Set(Array.from({ length: calls }, (_, i) => `run-${i}`)));
  assert.deepEqual(records.map((l) => l.kind).slice(-2), ['draining', 'stopped']);
});

test('a stderr reader that stalls holds up neither ctx.log nor a SIGTERM', async () => {
  const dir = packFolder();
  const indexFile = writeLocalPack(dir, {
    'chatty.mjs': "export default (_input, ctx) => { ctx.log.info('a line from pack code', { pad: 'x'.repeat(500) }); return {}; };\n",
  });
  const child = spawn(process.execPath, [bin, '--index', indexFile, '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', ...addon },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let port;
  let code;
  child.on('exit', (c) => { code = c; });
  onLines(child.stderr, (line) => {
    port ??= line.includes('"kind":"listening"') ? JSON.parse(line).port : undefined;
  });
  try {
    await until(() => port !== undefined, 'the listening line');
    await chattyCalls(child, port);
    // The lifecycle lines wait a moment for the reader, then the process exits all the same.
    child.kill('SIGTERM');
    await until(() => code !== undefined, 'the exit, with stderr still unread');
    assert.equal(code, 0);
  } finally {
    child.kill('SIGKILL');
    child.stderr.resume();
  }
});

/** Calls a tool whose every call writes a ctx.log line, while nothing reads stderr. */
async function chattyCalls(child, port) {
  child.stderr.pause();
  // Far more than the pipe holds: each ctx.log line waits in memory, as Node's own writes would.
  for (let i = 0; i < 400; i += 1) {
    const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, 'kindgi-timeout-ms': '5000' },
      body: localCall('chatty'),
    });
    assert.deepEqual(await res.json(), { v: 2, kind: 'result', output: {} }, `call ${i}`);
  }
}
