// Pack code that holds the JS thread, as an operator meets it: the probes tell the truth
// (`/readyz` 503 past a second, `/healthz` 503 past KINDGI_PACK_SERVICE_STALL_MS), the stall
// is in the records, new calls are refused as provably not run, SIGTERM still ends the
// process within its budget, and a supervisor's front and stop() see the same.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { frontClient } from './helpers/front-client.mjs';
import { onLines } from './helpers/lines.mjs';
import { localCall, packFolder, writeLocalPack } from './helpers/local-pack.mjs';
import { until } from './helpers/until.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-service.mjs');
const TOKEN = 'stall-token';

// `local.spin` holds the thread for `ms` (for good without it); `local.echo` answers at once.
const stuckPack = () =>
  writeLocalPack(packFolder(), {
    'spin.mjs': 'export default (input) => { const until = Date.now() + (input.ms ?? Infinity); while (Date.now() < until); return { spun: true }; };\n',
    'echo.mjs': 'export default (input) => input;\n',
  });

const spinCall = (ms) =>
  JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'local.spin' }, input: ms === undefined ? {} : { ms }, ctx: { tenantId: 't', runId: 'r' } });

// A failed test leaves its spinning child for this to end: otherwise its pipes hold the run open.
const children = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function launch(index, env = {}) {
  const child = spawn(process.execPath, [bin, '--index', index, '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const lines = [];
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const listening = new Promise((resolve) => {
    onLines(child.stderr, (text) => {
      const line = JSON.parse(text);
      lines.push(line);
      if (line.kind === 'listening') resolve(line.port);
    });
    exited.then(() => resolve(undefined));
  });
  return { child, lines, exited, listening };
}

const get = async (port, path) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') };
};

const post = (port, body, headers = {}) =>
  fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, ...headers },
    body,
  }).then(async (res) => ({ status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') }));

const STALLED = '{"error":"pack code stalled"}';

test('a handler that never yields: readyz, then healthz past the stall limit, answer 503; new calls are refused; SIGTERM exits 0', async () => {
  const run = launch(stuckPack(), { KINDGI_PACK_SERVICE_STALL_MS: '2500' });
  const port = await run.listening;
  assert.equal((await get(port, '/readyz')).status, 200);
  // Its deadline passes and is answered while pack code still holds the thread.
  const spun = await post(port, spinCall(), { 'kindgi-timeout-ms': '300' });
  assert.equal(spun.status, 200);
  assert.equal(JSON.parse(spun.text).code, 'deadline-exceeded');
  await until(async () => (await get(port, '/readyz')).status === 503, 'readyz 503');
  assert.deepEqual(await get(port, '/readyz'), { status: 503, text: STALLED, retryAfter: '1' });
  // Written by the watch on its next look (every 100 ms).
  await until(() => run.lines.some((l) => l.kind === 'js-stalled'), 'the js-stalled record');
  const stalled = run.lines.find((l) => l.kind === 'js-stalled');
  assert.ok(stalled.level === 'warn' && stalled.stalledMs >= 1000, JSON.stringify(stalled));
  // Not yet past the stall limit: alive, not ready.
  assert.deepEqual(await get(port, '/healthz'), { status: 200, text: '{"status":"ok"}', retryAfter: null });
  assert.deepEqual(await post(port, localCall('echo')), { status: 503, text: STALLED, retryAfter: '1' });
  await until(async () => (await get(port, '/healthz')).status === 503, 'healthz 503 past the stall limit');
  assert.deepEqual(await get(port, '/healthz'), { status: 503, text: STALLED, retryAfter: '1' });

  run.child.kill('SIGTERM');
  assert.deepEqual(await run.exited, { code: 0, signal: null });
  const kinds = run.lines.map((l) => l.kind);
  assert.deepEqual(kinds.slice(-2), ['draining', 'stopped']);
  assert.ok(!kinds.includes('js-resumed'), 'it never resumed');
});

test('a handler that busy-loops for seconds: readyz 503 while it runs, 200 and calls served after, js-resumed with its length; STALL_MS=0 keeps healthz 200', async () => {
  const run = launch(stuckPack(), { KINDGI_PACK_SERVICE_STALL_MS: '0' });
  const port = await run.listening;
  const spun = post(port, spinCall(3000));
  await until(async () => (await get(port, '/readyz')).status === 503, 'readyz 503');
  assert.equal((await get(port, '/healthz')).status, 200);
  // Well past what a 1 s readiness limit and any stall limit but none would allow.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await get(port, '/healthz')).status, 200, 'the stall check is off');
  assert.equal((await spun).status, 200);
  await until(async () => (await get(port, '/readyz')).status === 200, 'ready again');
  assert.equal((await post(port, localCall('echo'))).text, '{"v":2,"kind":"result","output":{}}');
  await until(() => run.lines.some((l) => l.kind === 'js-resumed'), 'the js-resumed record');
  const stalled = run.lines.find((l) => l.kind === 'js-stalled');
  const resumed = run.lines.find((l) => l.kind === 'js-resumed');
  assert.equal(resumed.level, 'info');
  assert.ok(resumed.stalledMs >= stalled.stalledMs && resumed.stalledMs < 10_000, JSON.stringify(resumed));
  run.child.kill('SIGTERM');
  assert.deepEqual(await run.exited, { code: 0, signal: null });
});

test('SIGTERM with a call in flight whose pack code never yields: readyz 503 at once, exit 0 with the drain records once the 8 s budget is spent', async () => {
  const run = launch(stuckPack());
  const port = await run.listening;
  const stuck = post(port, spinCall()).then(
    (res) => res.status,
    () => 'connection closed',
  );
  await until(async () => (await get(port, '/readyz')).status === 503, 'the stall');
  const signalled = Date.now();
  run.child.kill('SIGTERM');
  await until(() => run.lines.some((l) => l.kind === 'draining'), 'the draining record');
  assert.deepEqual(await get(port, '/readyz'), { status: 503, text: '{"error":"draining"}', retryAfter: '1' });
  assert.deepEqual(await run.exited, { code: 0, signal: null });
  const took = Date.now() - signalled;
  // A correctness bound (Cloud Run kills at 10 s), far from this machine's speed.
  assert.ok(took >= 7_500 && took < 9_800, `exited ${took} ms after SIGTERM`);
  assert.notEqual(await stuck, 200);
  // The stall's record may come before or after `draining`: it is written on the watch's look.
  const drained = run.lines.filter((l) => l.kind !== 'js-stalled');
  assert.deepEqual(drained.slice(-3).map((l) => l.kind), ['draining', 'call', 'stopped']);
  assert.equal(drained.at(-2).outcome, 'cancelled');
  assert.ok(run.lines.some((l) => l.kind === 'js-stalled'));
});

test('KINDGI_PACK_SERVICE_STALL_MS that is not a whole number from 0 up is a config-invalid naming it', async () => {
  for (const bad of ['-1', '2.5', 'soon']) {
    const run = launch(stuckPack(), { KINDGI_PACK_SERVICE_STALL_MS: bad });
    assert.deepEqual(await run.exited, { code: 1, signal: null });
    const invalid = run.lines.find((l) => l.kind === 'config-invalid');
    assert.deepEqual(invalid.problems, [
      'KINDGI_PACK_SERVICE_STALL_MS must be a whole number of milliseconds from 0 up (0 turns the check off)',
    ]);
  }
});

test("a supervisor's front answers readyz 503 while its child is stalled, and stop() ends a child whose pack code never yields", async () => {
  const index = stuckPack();
  const events = [];
  const sup = createPackServiceSupervisor({
    command: [process.execPath, bin],
    moduleRoot: dirname(index),
    env: async () => ({ PATH: process.env.PATH ?? '' }),
    onEvent: (e) => events.push(e),
  });
  try {
    const front = await sup.listen();
    const call = frontClient(front, sup.token);
    assert.equal((await sup.start(index)).kind, 'ok');
    assert.equal((await call.get('/readyz')).status, 200);
    const spun = call.invoke('local.spin', {}, { 'kindgi-timeout-ms': '300' });
    assert.equal(JSON.parse((await spun).text).code, 'deadline-exceeded');
    await until(async () => (await call.get('/readyz')).status === 503, "the front's readyz 503");
    const ready = await call.get('/readyz');
    assert.deepEqual([ready.text, ready.headers.get('retry-after')], [STALLED, '1']);
    assert.ok(events.some((e) => e.kind === 'log' && e.event?.kind === 'js-stalled'), 'the record reached onEvent');
    await sup.stop();
    // The child drained and stopped by itself, rather than waiting for the supervisor's SIGKILL.
    const kinds = events.filter((e) => e.kind === 'log').map((e) => e.event.kind);
    assert.deepEqual(kinds.slice(-2), ['draining', 'stopped']);
  } finally {
    await sup.close();
  }
});
