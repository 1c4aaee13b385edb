// The supervisor with this package's kindgi-pack-service as its child, on packs each test
// writes: what pack code sees of its environment, pids across a swap, a module that fails to
// load, pack output through onLog, the front's probes and token, a caller that hangs up, and
// the front after stop() and close(). These are the scenarios of the TypeScript supervisor's
// own suite, checked against this one.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { ENV_NAMES_TOOL, PID_TOOL, localCall, packFolder, writeLocalPack } from './helpers/local-pack.mjs';
import { send } from './helpers/random-requests.mjs';
import { until } from './helpers/until.mjs';

const bin = fileURLToPath(new URL('../bin/kindgi-pack-service.mjs', import.meta.url));

/** A listening supervisor on `dir`, with `env()` = PATH and `env`, recording its events and output. */
async function supervise(t, dir, env = {}, options = {}) {
  const events = [];
  const output = [];
  const supervisor = createPackServiceSupervisor({
    command: [process.execPath, bin],
    moduleRoot: dir,
    env: async () => ({ PATH: process.env.PATH ?? '', ...env }),
    onEvent: (e) => events.push(e),
    onLog: (line, stream) => output.push(`${stream}: ${line}`),
    ...options,
  });
  t.after(() => supervisor.close());
  const { url } = await supervisor.listen();
  const invoke = (name, { token = supervisor.token, signal } = {}) =>
    fetch(`${url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': token, 'kindgi-run-id': 'run-1' },
      body: localCall(name),
      signal,
    });
  /** The output of a call that must succeed. */
  const result = async (name) => {
    const res = await invoke(name);
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.kind, 'result', JSON.stringify(body));
    return body.output;
  };
  return { supervisor, url, events, output, invoke, result };
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const logsOf = (events, kind) => events.filter((e) => e.kind === 'log' && e.event.kind === kind).map((e) => e.event);

test("pack code sees the environment env() gives, without the parent's variables or the token", async (t) => {
  const dir = packFolder('kindgi-sup-env-');
  const index = writeLocalPack(dir, { 'env.mjs': ENV_NAMES_TOOL });
  process.env.PARENT_SENTINEL = 'must-not-leak';
  t.after(() => delete process.env.PARENT_SENTINEL);

  // As kindgi dev runs it: the child's filter of undeclared variables off.
  const dev = await supervise(t, dir, { DATABASE_URL: 'postgres://pack-db', KINDGI_PACK_ENV_FILTER: 'off' });
  assert.equal((await dev.supervisor.start(index)).kind, 'ok');
  const { names } = await dev.result('env');
  // Exactly env() and what the supervisor adds (PORT=0, JSON records), none of the parent's.
  assert.deepEqual(names, ['DATABASE_URL', 'KINDGI_LOG_FORMAT', 'KINDGI_PACK_ENV_FILTER', 'PATH', 'PORT']);
  // The token is taken out before pack code loads; the supervisor asked for JSON records.
  assert.deepEqual(names.filter((n) => n.startsWith('KINDGI_')), ['KINDGI_LOG_FORMAT', 'KINDGI_PACK_ENV_FILTER']);

  // Values as Node's spawn takes them: undefined left out, anything else as a string.
  const values = writeLocalPack(dir, {
    'env.mjs': ENV_NAMES_TOOL,
    'values.mjs': "export default () => ({ NUM: process.env.NUM, NUL: process.env.NUL, UNDEF: 'UNDEF' in process.env });\n",
  });
  const typed = await supervise(t, dir, { NUM: 8080, NUL: null, UNDEF: undefined, KINDGI_PACK_ENV_FILTER: 'off' });
  assert.equal((await typed.supervisor.start(values)).kind, 'ok');
  assert.deepEqual(await typed.result('values'), { NUM: '8080', NUL: 'null', UNDEF: false });

  // With the filter at its default, a variable the pack does not declare is dropped, by name.
  const filtered = await supervise(t, dir, { DATABASE_URL: 'postgres://pack-db' });
  assert.equal((await filtered.supervisor.start(index)).kind, 'ok');
  const seen = (await filtered.result('env')).names;
  assert.ok(!seen.includes('DATABASE_URL'));
  assert.deepEqual(seen.filter((n) => n.startsWith('KINDGI_')), ['KINDGI_LOG_FORMAT']);
  assert.deepEqual(logsOf(filtered.events, 'env-dropped').map((e) => e.names), [['DATABASE_URL']]);
});

test('KINDGI_PACK_SERVICE_WORKERS in env() reaches the child: calls through the front run on every thread', async (t) => {
  const dir = packFolder('kindgi-sup-workers-');
  const slowThread = "import { threadId } from 'node:worker_threads';\nexport default async () => { await new Promise((r) => setTimeout(r, 100)); return { threadId }; };\n";
  const index = writeLocalPack(dir, { 'thread.mjs': slowThread });
  const { supervisor, result } = await supervise(t, dir, { KINDGI_PACK_SERVICE_WORKERS: '2' });
  assert.equal((await supervisor.start(index)).kind, 'ok');
  const outputs = await Promise.all(Array.from({ length: 6 }, () => result('thread')));
  assert.equal(new Set(outputs.map((o) => o.threadId)).size, 2, JSON.stringify(outputs));
});

test('a swap serves the new code at the same URL; the old child is gone when start() resolves', async (t) => {
  const dir = packFolder('kindgi-sup-swap-');
  const version = (v) => ({ 'version.mjs': `export default () => ({ v: ${v}, pid: process.pid });\n` });
  const index = writeLocalPack(dir, version(1));
  const run = await supervise(t, dir);
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  const first = await run.result('version');
  assert.equal(first.v, 1);

  writeLocalPack(dir, version(2));
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  assert.equal(alive(first.pid), false, 'the old child has exited');
  const second = await run.result('version');
  assert.equal(second.v, 2);
  assert.notEqual(second.pid, first.pid);
  assert.equal((await run.supervisor.listen()).url, run.url);
  assert.equal(run.events.filter((e) => e.kind === 'started').length, 2);
});

test('a module that cannot load fails the boot, named in its problems, and the running child keeps serving', async (t) => {
  const dir = packFolder('kindgi-sup-broken-');
  const good = writeLocalPack(dir, { 'pid.mjs': PID_TOOL });
  const run = await supervise(t, dir);
  assert.equal((await run.supervisor.start(good)).kind, 'ok');
  const before = await run.result('pid');

  const bad = writeLocalPack(dir, { 'pid.mjs': PID_TOOL, 'broken.mjs': 'export default function handler( {\n' }, 'bad-index.json');
  const failed = await run.supervisor.start(bad);
  assert.equal(failed.kind, 'err');
  assert.deepEqual(failed.error.problems, ['local.broken: Unexpected end of input']);
  assert.deepEqual(await run.result('pid'), before);
});

test("pack code's stdout and stderr reach onLog; the service's first record after boot is the call", async (t) => {
  const dir = packFolder('kindgi-sup-noisy-');
  const index = writeLocalPack(dir, {
    'noisy.mjs': "export default () => { console.log('hello from a tool'); console.error('and stderr'); return {}; };\n",
  });
  const run = await supervise(t, dir);
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  await run.result('noisy');
  await until(() => run.output.includes('stdout: hello from a tool') && run.output.includes('stderr: and stderr'), 'both lines');
  await until(() => run.events.some((e) => e.kind === 'log'), 'a log event');
  assert.equal(run.events.find((e) => e.kind === 'log').event.kind, 'call');
});

test("a ctx.log field cut mid-pair reaches onEvent as the child wrote it", async (t) => {
  const dir = packFolder('kindgi-sup-cut-');
  const index = writeLocalPack(dir, {
    'cut.mjs': "export default (_input, ctx) => { ctx.log.info('cut', { text: '\u{1F600}'.slice(0, 1) }); return {}; };\n",
  });
  const run = await supervise(t, dir);
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  await run.result('cut');
  await until(() => run.events.some((e) => e.kind === 'log' && e.event.message === 'cut'), 'the record');
  const record = run.events.find((e) => e.kind === 'log' && e.event.message === 'cut').event;
  assert.equal(record.kind, 'record');
  assert.equal(record.text, '\ud83d');
});

test('the front: 503 with Retry-After 1 and no child; probes without a token; 401 for a wrong token; /v1/info forwarded', async (t) => {
  const dir = packFolder('kindgi-sup-front-');
  const run = await supervise(t, dir);
  assert.match(run.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'loopback by default');
  const none = await run.invoke('pid');
  assert.equal(none.status, 503);
  assert.equal(none.headers.get('retry-after'), '1');
  assert.equal((await fetch(`${run.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${run.url}/readyz`)).status, 503);

  assert.equal((await run.supervisor.start(writeLocalPack(dir, { 'pid.mjs': PID_TOOL }))).kind, 'ok');
  assert.equal((await fetch(`${run.url}/readyz`)).status, 200);
  const wrong = await run.invoke('pid', { token: 'not-the-token' });
  assert.equal(wrong.status, 401);
  // A large upload refused before it is read: the caller reads the answer, not a reset.
  for (let i = 0; i < 3; i += 1) {
    const large = await fetch(`${run.url}/v1/invoke`, { method: 'POST', headers: { 'content-type': 'application/json', 'kindgi-pack-token': 'not-the-token' }, body: 'x'.repeat(2_000_000) });
    assert.deepEqual([large.status, await large.text()], [401, '{"error":"Bad pack token"}']);
  }
  assert.equal((await fetch(`${run.url}/v1/info`)).status, 401);
  const info = await fetch(`${run.url}/v1/info`, { headers: { 'kindgi-pack-token': run.supervisor.token } });
  assert.equal(info.status, 200);
  assert.equal((await info.json()).packId, 'local');

  // The TypeScript front's bodies for what it does not route; an absolute-form target is not routed.
  const { port } = await run.supervisor.listen();
  const raw = (head) => send(port, { bytes: Buffer.from(`${head}\r\nhost: x\r\ncontent-length: 0\r\n\r\n`), leaves: false });
  for (const [head, status, body] of [
    ['GET /nope?q=1 HTTP/1.1', 404, '{"error":"No route /nope?q=1"}'],
    ['GET http://127.0.0.1/healthz HTTP/1.1', 404, '{"error":"No route http://127.0.0.1/healthz"}'],
    ['GET /v1/invoke HTTP/1.1', 405, '{"error":"Use POST"}'],
    ['POST /readyz HTTP/1.1', 405, '{"error":"Use GET"}'],
  ]) {
    const answer = await raw(head);
    assert.deepEqual([answer.status, answer.body], [status, body], head);
  }
});

test('a caller that hangs up cancels the call in the child, which then drains at once on stop()', async (t) => {
  const dir = packFolder('kindgi-sup-hangup-');
  const index = writeLocalPack(dir, {
    'wait.mjs':
      'export default (_input, ctx) => new Promise((resolve) => { console.error("wait started"); const timer = setTimeout(resolve, 30000, {}); ctx.abortSignal.addEventListener("abort", () => { clearTimeout(timer); resolve({}); }); });\n',
  });
  // A long grace: a child still holding the call would be killed only after it, unstopped.
  const run = await supervise(t, dir, {}, { stopGraceMs: 20000 });
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  const caller = new AbortController();
  const call = run.invoke('wait', { signal: caller.signal });
  await until(() => run.output.some((line) => line.includes('wait started')), 'the call to start');
  caller.abort();
  await assert.rejects(call);
  await until(() => logsOf(run.events, 'call').some((e) => e.outcome === 'cancelled'), 'a cancelled call record');
  // The same with a byte after the request, which the front holds unread while the call runs.
  const body = localCall('wait');
  const { port } = new URL(run.url);
  const socket = connect(Number(port), '127.0.0.1', () =>
    socket.write(`POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: ${run.supervisor.token}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}G`),
  );
  socket.on('error', () => {});
  await until(() => run.output.filter((line) => line.includes('wait started')).length === 2, 'the second call to start');
  socket.destroy();
  await until(() => logsOf(run.events, 'call').filter((e) => e.outcome === 'cancelled').length === 2, 'a second cancelled call record');
  await run.supervisor.stop();
  // The child wrote `stopped` as it exited: it drained on SIGTERM, with no call held open.
  await until(() => logsOf(run.events, 'stopped').length === 1, 'the child stopped by itself');
});

test('after stop() the child is gone and the front answers 503; after close() the front is gone', async (t) => {
  const dir = packFolder('kindgi-sup-stop-');
  const run = await supervise(t, dir);
  assert.equal((await run.supervisor.start(writeLocalPack(dir, { 'pid.mjs': PID_TOOL }))).kind, 'ok');
  const { pid } = await run.result('pid');
  await run.supervisor.stop();
  assert.equal(alive(pid), false);
  assert.equal((await run.invoke('pid')).status, 503);
  await run.supervisor.close();
  await assert.rejects(run.invoke('pid'));
});

test('a restart whose boot fails is retried with backoff until maxRestarts (2.5 allows 3), then gave-up', async (t) => {
  const dir = packFolder('kindgi-sup-restart-');
  const marker = join(dir, 'broken-now');
  const index = writeLocalPack(dir, {
    'pid.mjs': `import { existsSync } from 'node:fs';\nif (existsSync(${JSON.stringify(marker)})) throw new Error('broken now');\n${PID_TOOL}`,
    'exit.mjs': 'export default () => process.exit(7);\n',
  });
  const run = await supervise(t, dir, {}, { maxRestarts: 2.5, restartDelayMs: 10 });
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  writeFileSync(marker, '');
  assert.equal((await run.invoke('exit')).status, 502);
  await until(() => run.events.some((e) => e.kind === 'gave-up'), 'gave-up');
  const lifecycle = run.events.filter((e) => e.kind !== 'log');
  assert.deepEqual(
    lifecycle.map((e) => e.kind),
    ['started', 'exited', 'restarting', 'boot-failed', 'restarting', 'boot-failed', 'restarting', 'boot-failed', 'gave-up'],
  );
  assert.deepEqual(lifecycle.find((e) => e.kind === 'exited'), { kind: 'exited', code: 7, signal: null });
  assert.deepEqual(lifecycle.filter((e) => e.kind === 'restarting').map((e) => e.attempt), [1, 2, 3]);
  assert.match(lifecycle.find((e) => e.kind === 'boot-failed').problems.join(' '), /local\.pid: broken now/);
  assert.deepEqual(lifecycle.at(-1), { kind: 'gave-up', attempts: 3 });
  const none = await run.invoke('pid');
  assert.equal(none.status, 503);
});

test('maxRestarts: Infinity is accepted (never gives up); the relay answers unavailable, not cancelled, with no child', async (t) => {
  const dir = packFolder('kindgi-sup-relay-');
  const run = await supervise(t, dir, {}, { maxRestarts: Infinity });
  const gone = new AbortController();
  gone.abort();
  assert.deepEqual(await run.supervisor.relay.forward({ route: 'info', signal: gone.signal }), { kind: 'unavailable', reason: 'no pack service' });
  assert.equal((await run.supervisor.start(writeLocalPack(dir, { 'pid.mjs': PID_TOOL }))).kind, 'ok');
  assert.deepEqual(await run.supervisor.relay.forward({ route: 'info', signal: gone.signal }), { kind: 'cancelled' });
});

test('the front passes the call headers on byte for byte, Number() of the deadline, and only the answer headers it should', async (t) => {
  const dir = packFolder('kindgi-sup-headers-');
  const child = fileURLToPath(new URL('./fixtures/header-echo-child.mjs', import.meta.url));
  const run = await supervise(t, dir, {}, { command: [process.execPath, child] });
  assert.equal((await run.supervisor.start(writeLocalPack(dir, { 'pid.mjs': PID_TOOL }))).kind, 'ok');
  const call = (headers, answer) =>
    fetch(`${run.url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': run.supervisor.token, ...headers },
      body: JSON.stringify({ answer }),
    });

  const sent = {
    'kindgi-timeout-ms': ' 1500.50 ',
    'kindgi-run-id': 'run-é',
    'kindgi-request-id': 'req-1',
    'kindgi-protocol': '2',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    'kindgi-tenant-id': 't-1',
    'x-not-forwarded': 'x',
  };
  const seen = await (await call(sent)).json();
  assert.equal(seen.method, 'POST');
  assert.equal(seen.url, '/v1/invoke');
  assert.equal(seen.headers['kindgi-pack-token'], run.supervisor.token);
  assert.equal(seen.headers['content-type'], 'application/json');
  assert.equal(seen.headers['kindgi-timeout-ms'], '1500.5');
  for (const name of ['kindgi-run-id', 'kindgi-request-id', 'kindgi-protocol', 'traceparent', 'kindgi-tenant-id']) {
    assert.equal(seen.headers[name], sent[name], name);
  }
  assert.equal(seen.headers['x-not-forwarded'], undefined);
  // A deadline that is not a positive number is not passed on.
  for (const timeout of ['0', '-5', 'soon', 'Infinity']) {
    assert.equal((await (await call({ 'kindgi-timeout-ms': timeout })).json()).headers['kindgi-timeout-ms'], undefined, timeout);
  }

  // The child's 503 keeps its retry-after; its other headers stay behind; the length is the body's.
  const answered = await call({}, { status: 503, headers: { 'retry-after': '7', 'x-child': 'kept back', 'kindgi-artifact-version': 'v-\u00e9' } });
  assert.equal(answered.status, 503);
  assert.equal(answered.headers.get('retry-after'), '7');
  assert.equal(answered.headers.get('x-child'), null);
  // As the TypeScript front writes it: the Latin-1 text fetch read, as UTF-8 with the body.
  assert.equal(answered.headers.get('kindgi-artifact-version'), Buffer.from('v-\u00e9').toString('latin1'));
  const text = await answered.text();
  assert.equal(Number(answered.headers.get('content-length')), Buffer.byteLength(text));
});

test("listen() on a taken port or an unknown host rejects with Node's own error", async (t) => {
  const nodeError = (port, host) =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', resolve).listen(port, host);
    });
  const fields = (e) => ({ message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, address: e.address, port: e.port, hostname: e.hostname });
  const taken = createServer();
  await new Promise((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const { port } = taken.address();
  const dir = packFolder('kindgi-sup-listen-');
  for (const [host, busyPort] of [['127.0.0.1', port], ['no-such-host.invalid', 0]]) {
    const supervisor = createPackServiceSupervisor({ command: [process.execPath, bin], moduleRoot: dir, env: async () => ({}), host, port: busyPort });
    const ours = await supervisor.listen().then(() => assert.fail('listen() resolved'), (e) => e);
    assert.deepEqual(fields(ours), fields(await nodeError(busyPort, host)), host);
    await supervisor.close();
  }
  // A port Node refuses: its RangeError, never a port wrapped or cut to fit.
  for (const bad of [18082.9, 2 ** 32 + 18081, 1e20, -1, 70000, Number.NaN, '']) {
    const supervisor = createPackServiceSupervisor({ command: [process.execPath, bin], moduleRoot: dir, env: async () => ({}), host: '127.0.0.1', port: bad });
    const ours = await supervisor.listen().then(() => assert.fail(`listen() resolved for ${bad}`), (e) => e);
    const nodes = (() => {
      try {
        createServer().listen(bad, '127.0.0.1');
      } catch (e) {
        return e;
      }
      return assert.fail(`Node took ${bad}`);
    })();
    assert.deepEqual([ours.name, ours.code, ours.message], [nodes.name, nodes.code, nodes.message], String(bad));
    await supervisor.close();
  }
});

test('command() is asked before every start and cwd is the child\'s; an env() that rejects fails its start', async (t) => {
  const dir = packFolder('kindgi-sup-command-');
  const index = writeLocalPack(dir, { 'cwd.mjs': 'export default () => ({ cwd: process.cwd() });\n' });
  const workDir = packFolder('kindgi-sup-cwd-');
  let asked = 0;
  const command = async () => {
    asked += 1;
    return [process.execPath, bin];
  };
  const run = await supervise(t, dir, {}, { command, cwd: workDir });
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  assert.equal((await run.result('cwd')).cwd, workDir);
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  assert.equal(asked, 2);

  const events = [];
  const failing = createPackServiceSupervisor({
    command: [process.execPath, bin],
    moduleRoot: dir,
    env: async () => {
      throw new Error('no .env file');
    },
    onEvent: (e) => events.push(e),
  });
  t.after(() => failing.close());
  const failed = await failing.start(index);
  assert.deepEqual(failed, { kind: 'err', error: { problems: ['no .env file'] } });
  assert.deepEqual(events, [{ kind: 'boot-failed', problems: ['no .env file'] }]);
});

test('a child that refuses its configuration fails the start with the problems its config-invalid line lists', async (t) => {
  const dir = packFolder('kindgi-sup-config-');
  const index = writeLocalPack(dir, { 'pid.mjs': PID_TOOL });
  const run = await supervise(t, dir, { KINDGI_PACK_ENV_CHECK: 'sometimes' });
  const failed = await run.supervisor.start(index);
  assert.deepEqual(failed, {
    kind: 'err',
    error: { problems: ['KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "sometimes"'] },
  });
});

test('stop() while a restart waits out its delay: no child comes back', async (t) => {
  const dir = packFolder('kindgi-sup-stop-restart-');
  const index = writeLocalPack(dir, { 'pid.mjs': PID_TOOL, 'exit.mjs': 'export default () => process.exit(3);\n' });
  const run = await supervise(t, dir, {}, { restartDelayMs: 400 });
  assert.equal((await run.supervisor.start(index)).kind, 'ok');
  assert.equal((await run.invoke('exit')).status, 502);
  await until(() => run.events.some((e) => e.kind === 'restarting'), 'the restart to be scheduled');
  await run.supervisor.stop();
  // Past the delay (and a boot's worth more): nothing started, nothing serving.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.deepEqual(run.events.filter((e) => e.kind !== 'log').map((e) => e.kind), ['started', 'exited', 'restarting']);
  assert.equal((await run.invoke('pid')).status, 503);
  assert.equal(run.supervisor.relay.serving(), false);
});

test('an IPv6 host gives a bracketed URL, or fails as Node fails where the machine has no IPv6', async (t) => {
  const dir = packFolder('kindgi-sup-ipv6-');
  const supervisor = createPackServiceSupervisor({ command: [process.execPath, bin], moduleRoot: dir, env: async () => ({}), host: '::1' });
  t.after(() => supervisor.close());
  const nodeResult = await new Promise((resolve) => {
    const server = createServer();
    server.once('error', (e) => resolve({ error: e.code })).listen(0, '::1', () => server.close(() => resolve({ ok: true })));
  });
  const ours = await supervisor.listen().then((front) => ({ front }), (e) => ({ error: e.code }));
  if (nodeResult.ok) {
    assert.match(ours.front.url, /^http:\/\/\[::1\]:\d+$/);
    assert.equal((await fetch(`${ours.front.url}/healthz`)).status, 200);
  } else {
    assert.deepEqual(ours, nodeResult);
  }
});

test('once closing, start() answers that it is closing, whatever it is given', async (t) => {
  const run = await supervise(t, packFolder('kindgi-sup-closing-'));
  await assert.rejects(run.supervisor.start(''), { code: 'invalid-argument' });
  run.supervisor.beginClose();
  for (const indexPath of ['', 42, 'index.json']) {
    assert.deepEqual(await run.supervisor.start(indexPath), { kind: 'err', error: { problems: ['The pack service is closing'] } });
  }
});

/** A child that runs `setup`, serves `handler` (the body of a node:http request listener), announces its port, then runs `listening`. */
function fakeChild(dir, name, { setup = '', handler = "res.end('{}');", listening = '' } = {}) {
  const script = join(dir, `${name}.mjs`);
  writeFileSync(
    script,
    `import { createServer } from 'node:http';
${setup}
const server = createServer((req, res) => { ${handler} }).listen(0, '127.0.0.1', () => {
  process.stderr.write(JSON.stringify({ kind: 'listening', port: server.address().port }) + '\\n');
  ${listening}
});
`,
  );
  return [process.execPath, script];
}

/** A child that listens, then writes `lines` to stdout as fast as it can and, once the last is in the pipe, creates `marker`; then waits. */
function floodingChild(dir, lines, marker) {
  return fakeChild(dir, 'flood', {
    setup: "import { writeFileSync } from 'node:fs';",
    listening: `for (let i = 0; i < ${lines} - 1; i += 1) process.stdout.write('line ' + i + '\\n');
  process.stdout.write('last\\n', () => writeFileSync(${JSON.stringify(marker)}, 'written'));`,
  });
}

test('a child writing faster than onLog takes its lines waits for it, as with readline', async (t) => {
  const dir = packFolder('kindgi-sup-flood-');
  const marker = join(dir, 'written');
  const lines = 50_000;
  let seen = 0;
  let seenWhenWritten;
  const run = await supervise(t, dir, {}, {
    command: floodingChild(dir, lines, marker),
    onLog: () => {
      seen += 1;
      if (seenWhenWritten === undefined && seen % 100 === 0 && existsSync(marker)) seenWhenWritten = seen;
      const until = performance.now() + 0.02;
      while (performance.now() < until);
    },
  });
  assert.equal((await run.supervisor.start(join(dir, 'index.json'))).kind, 'ok');
  await until(() => seen === lines, 'every line');
  // The child's last line reached the pipe only once onLog had taken all but what the pipe, the
  // reader and the bounded backlog hold (a few thousand lines); unbounded, it is there at once.
  assert.ok(seenWhenWritten !== undefined && seenWhenWritten > lines - 15_000, `onLog had ${seenWhenWritten} of ${lines} lines when the last was written`);
});

test('long lines wait for a slow onLog by their bytes: the child blocks with a few lines on their way, not 1,024', async (t) => {
  const dir = packFolder('kindgi-sup-long-lines-');
  const counter = join(dir, 'written');
  const lines = 32;
  const size = 4 * 1024 * 1024;
  // Each line once the last is in the pipe; the file says how many are.
  const command = fakeChild(dir, 'long-lines', {
    setup: "import { writeFileSync } from 'node:fs';",
    listening: `const line = 'x'.repeat(${size}) + '\\n';
  let written = 0;
  const next = () => {
    if (written === ${lines}) return;
    process.stdout.write(line, () => {
      written += 1;
      writeFileSync(${JSON.stringify(counter)}, String(written));
      next();
    });
  };
  next();`,
  });
  let seen = 0;
  let mostAhead = 0;
  const run = await supervise(t, dir, {}, {
    command,
    onLog: (line) => {
      if (line.length !== size) return;
      // Written but not yet taken by onLog (this one included): what the backlog (16 MiB:
      // four of these), the reader's line in progress and the pipe can hold.
      const written = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
      mostAhead = Math.max(mostAhead, written - seen);
      seen += 1;
      const until = performance.now() + 50;
      while (performance.now() < until);
    },
  });
  assert.equal((await run.supervisor.start(join(dir, 'index.json'))).kind, 'ok');
  await until(() => seen === lines, 'every line');
  // Bounded by count alone, the child writes all 32 (128 MiB waiting) while onLog has taken two.
  t.diagnostic(`the child was at most ${mostAhead} lines ahead of onLog`);
  assert.ok(mostAhead <= 7, `the child was ${mostAhead} lines ahead of onLog`);
});

test('a line longer than 64 MiB reaches onLog cut to 64 MiB, and the process goes on', async (t) => {
  const dir = packFolder('kindgi-sup-longline-');
  const command = fakeChild(dir, 'long', {
    listening: "process.stdout.write(Buffer.alloc(70 * 1024 * 1024, 1));\n  process.stdout.write('\\nafter\\n');",
  });
  const got = [];
  const run = await supervise(t, dir, {}, { command, onLog: (line) => got.push(line === 'after' ? line : line.length) });
  assert.equal((await run.supervisor.start(join(dir, 'index.json'))).kind, 'ok');
  await until(() => got.length === 2, 'both lines');
  assert.deepEqual(got, [64 * 1024 * 1024, 'after']);
});

test("stop() while the owner's start() boots: that child never serves", async (t) => {
  const dir = packFolder('kindgi-sup-stop-boot-');
  // A module that takes a while to load holds the child's boot (prewarm imports it).
  const index = writeLocalPack(dir, { 'slow.mjs': 'await new Promise((r) => setTimeout(r, 400));\nexport default () => ({});\n' });
  const run = await supervise(t, dir);
  const starting = run.supervisor.start(index);
  // Early or late in the boot, the stop comes after the start began.
  await new Promise((resolve) => setTimeout(resolve, 100));
  await run.supervisor.stop();
  assert.deepEqual(await starting, { kind: 'err', error: { problems: ['The pack service was stopped while it booted'] } });
  assert.equal(run.supervisor.relay.serving(), false);
  assert.equal((await fetch(`${run.url}/readyz`)).status, 503);
  assert.equal(run.events.some((e) => e.kind === 'started'), false);
});

test('close() during a stop() waits for the child that ignores SIGTERM to be gone', async (t) => {
  const dir = packFolder('kindgi-sup-close-stop-');
  const pidFile = join(dir, 'pid');
  const setup = `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nprocess.on('SIGTERM', () => {});`;
  const run = await supervise(t, dir, {}, { command: fakeChild(dir, 'stubborn', { setup }), stopGraceMs: 300 });
  assert.equal((await run.supervisor.start(join(dir, 'index.json'))).kind, 'ok');
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const stopping = run.supervisor.stop();
  await run.supervisor.close();
  assert.equal(alive(pid), false, 'no child outlives close()');
  await stopping;
});

test('close() does not wait for an env() that never settles', async (t) => {
  const dir = packFolder('kindgi-sup-env-pending-');
  const run = await supervise(t, dir, {}, { env: () => new Promise(() => {}) });
  const starting = run.supervisor.start(writeLocalPack(dir, { 'pid.mjs': PID_TOOL }));
  const closed = await Promise.race([run.supervisor.close().then(() => 'closed'), new Promise((r) => setTimeout(r, 5000, 'still waiting'))]);
  assert.equal(closed, 'closed');
  assert.deepEqual(await starting, { kind: 'err', error: { problems: ['The pack service is closing'] } });
});

test("a child's 101 or endless answer fails the call (502), as the TypeScript relay's fetch fails it", async (t) => {
  const dir = packFolder('kindgi-sup-odd-answers-');
  const handler = `
    if (req.url === '/v1/info') { res.writeHead(101, { connection: 'upgrade', upgrade: 'x' }); res.end(); return; }
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 97);
    const more = () => { while (res.write(chunk)); };
    res.on('drain', more);
    more();`;
  const run = await supervise(t, dir, {}, { command: fakeChild(dir, 'odd', { handler }) });
  assert.equal((await run.supervisor.start(join(dir, 'index.json'))).kind, 'ok');
  assert.deepEqual(await run.supervisor.relay.forward({ route: 'info' }), { kind: 'failed', reason: 'the pack service did not answer: fetch failed' });
  assert.deepEqual(await run.supervisor.relay.forward({ route: 'invoke', body: '{}' }), { kind: 'failed', reason: "the pack service's answer is larger than 128 MiB" });
  const front = await fetch(`${run.url}/v1/invoke`, { method: 'POST', headers: { 'content-type': 'application/json', 'kindgi-pack-token': run.supervisor.token }, body: '{}' });
  assert.deepEqual([front.status, await front.text()], [502, `{"error":"the pack service's answer is larger than 128 MiB"}`]);
});

test("a child that announces the front's own port fails its boot instead of looping the front into itself", async (t) => {
  const dir = packFolder('kindgi-sup-self-port-');
  const script = join(dir, 'liar.mjs');
  writeFileSync(script, "process.stderr.write(JSON.stringify({ kind: 'listening', port: Number(process.env.FRONT_PORT) }) + '\\n');\nsetInterval(() => {}, 1000);\n");
  let frontPort;
  const run = await supervise(t, dir, {}, { command: [process.execPath, script], env: async () => ({ FRONT_PORT: String(frontPort) }) });
  frontPort = Number(new URL(run.url).port);
  const started = await run.supervisor.start(join(dir, 'index.json'));
  assert.deepEqual(started, { kind: 'err', error: { problems: [`The pack service announced the supervisor's own port ${frontPort}`] } });
  assert.equal((await fetch(`${run.url}/healthz`)).status, 200);
  assert.equal(run.supervisor.relay.serving(), false);
});

test('a child announcing port 0 before the front listens boots, as in TypeScript (no front to loop into)', async (t) => {
  const dir = packFolder('kindgi-sup-port-zero-');
  const script = join(dir, 'zero.mjs');
  writeFileSync(script, "process.stderr.write(JSON.stringify({ kind: 'listening', port: 0 }) + '\\n');\nsetInterval(() => {}, 1000);\n");
  const supervisor = createPackServiceSupervisor({ command: [process.execPath, script], moduleRoot: dir, env: async () => ({}) });
  t.after(() => supervisor.close());
  assert.deepEqual(await supervisor.start(join(dir, 'index.json')), { kind: 'ok', value: { port: 0 } });
});

test('the front refuses a declared length over maxBodyBytes before reading the body, as the service does', async (t) => {
  const dir = packFolder('kindgi-sup-too-large-');
  const run = await supervise(t, dir, {}, { maxBodyBytes: 1000 });
  const { port } = new URL(run.url);
  // 10 bytes of a declared 1,000,000: answered at once, not after the whole body (or 300 s).
  const answer = await new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let got = '';
    socket.on('data', (d) => {
      got += d;
      if (got.includes('}')) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('no answer within 10 s'));
    });
    socket.write(`POST /v1/invoke HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nkindgi-pack-token: ${run.supervisor.token}\r\ncontent-length: 1000000\r\n\r\n{"v":2,...`);
  });
  assert.match(answer, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
  assert.ok(answer.endsWith('{"error":"Request body too large"}'), answer);
});

/** What the TypeScript relay's fetch throws for `init` (its `fetch failed` when it takes the request). */
async function fetchRefusal(route, init) {
  try {
    await fetch(`http://127.0.0.1:1/v1/${route}`, init);
    return 'taken';
  } catch (error) {
    return `the pack service did not answer: ${error.message}`;
  }
}

/** A supervisor serving the header-echo child, and `seen(call)`: what of a relay call reached it. */
async function echoing(t, prefix) {
  const dir = packFolder(prefix);
  const child = fileURLToPath(new URL('./fixtures/header-echo-child.mjs', import.meta.url));
  const run = await supervise(t, dir, {}, { command: [process.execPath, child] });
  const start = async () => assert.equal((await run.supervisor.start(writeLocalPack(dir, { 'pid.mjs': PID_TOOL }))).kind, 'ok');
  const forward = (call) => run.supervisor.relay.forward(call);
  const seen = async (call) => {
    const out = await forward(call);
    assert.equal(out.kind, 'answer', JSON.stringify(out));
    const { method, url, headers } = JSON.parse(out.body);
    return { method, url, contentType: headers['content-type'], length: headers['content-length'], headers };
  };
  return { start, forward, seen };
}

test("relay.forward sends any route as the TypeScript relay's fetch sends it: a GET of /v1/<route>", async (t) => {
  const { start, forward, seen } = await echoing(t, 'kindgi-sup-odd-routes-');
  await start();
  const shown = async (call) => {
    const { method, url, contentType } = await seen(call);
    return { method, url, contentType };
  };
  assert.deepEqual(await shown({ route: 'Info' }), { method: 'GET', url: '/v1/Info', contentType: undefined });
  assert.deepEqual(await shown({ route: 'healthz', runId: 'r' }), { method: 'GET', url: '/v1/healthz', contentType: undefined });
  assert.deepEqual(await shown({}), { method: 'GET', url: '/v1/undefined', contentType: undefined });
  assert.deepEqual(await shown({ route: 'info', body: null }), { method: 'GET', url: '/v1/info', contentType: 'application/json' });
  // The URL as fetch (WHATWG) writes it: dot segments resolved, the fragment dropped.
  assert.equal((await seen({ route: 'a b/../ü/"x"?q=<1>#frag' })).url, '/v1/%C3%BC/%22x%22?q=%3C1%3E');
  // No way into the request line or the headers: fetch's URL drops newlines.
  const injected = await seen({ route: 'x HTTP/1.1\r\nx-evil: 1\r\n\r\nGET /v1/info' });
  assert.equal(injected.url, '/v1/x%20HTTP/1.1x-evil:%201GET%20/v1/info');
  assert.equal(injected.headers['x-evil'], undefined);
});

test("relay.forward sends a body as the TypeScript relay's fetch sends it, and fails a call as fetch fails it", async (t) => {
  const { start, forward, seen } = await echoing(t, 'kindgi-sup-odd-calls-');
  // Without a child, a call fetch would refuse is `unavailable`, as TypeScript checks the child first.
  assert.deepEqual(await forward({ route: 'info', body: '{}' }), { kind: 'unavailable', reason: 'no pack service' });
  await start();
  // A null body is no body, still sent as JSON, with fetch's length of 0.
  const empty = await seen({ route: 'invoke', body: null });
  assert.deepEqual([empty.method, empty.url, empty.contentType, empty.length], ['POST', '/v1/invoke', 'application/json', '0']);
  // Another body goes as fetch's text of it.
  const text = { toString: () => '{"answer":{"status":201}}' };
  assert.equal((await forward({ route: 'invoke', body: text })).status, 201);
  // What fetch refuses fails the call with fetch's words.
  const failed = async (call, route, init) => {
    assert.deepEqual(await forward(call), { kind: 'failed', reason: await fetchRefusal(route, init) });
  };
  await failed({ body: '{}' }, 'undefined', { method: 'GET', body: '{}' });
  await failed({ route: 'info', body: '{}' }, 'info', { method: 'GET', body: '{}' });
  await failed({ route: 'invoke', body: Symbol('x') }, 'invoke', { method: 'POST', body: Symbol('x') });
  await failed({ route: 'invoke', body: Object.create(null) }, 'invoke', { method: 'POST', body: Object.create(null) });
  await failed({ route: 'invoke', body: '{}', signal: {} }, 'invoke', { method: 'POST', body: '{}', signal: {} });
  assert.deepEqual(await forward({ route: Symbol('r') }), { kind: 'failed', reason: 'the pack service did not answer: Cannot convert a Symbol value to a string' });
});

test('a call whose fields fetch cannot convert fails before it takes a cancel ticket, so none is left behind', async (t) => {
  const dir = packFolder('kindgi-sup-ticket-');
  const run = await supervise(t, dir);
  const bad = { route: 'invoke', body: Object.create(null) };
  // As fetch fails it (TypeScript never rejects): `unavailable` with no child.
  assert.deepEqual(await run.supervisor.relay.forward(bad), { kind: 'unavailable', reason: 'no pack service' });
  // Memory: a ticket left in Rust per call grows the process by about 137 bytes a call, some
  // 20 MB for each 150,000 calls, round after round. A busy host makes RSS jump by up to
  // 13 MB once in a while: the smaller growth of two rounds is what a leak shows in both.
  const script = `
    import { createPackServiceSupervisor } from ${JSON.stringify(new URL('../lib/pack-service.js', import.meta.url).href)};
    const sup = createPackServiceSupervisor({ command: ['x'], moduleRoot: ${JSON.stringify(dir)}, env: async () => ({}) });
    const bad = { route: 'invoke', body: Object.create(null) };
    const calls = async (n) => { for (let i = 0; i < n; i += 1) await sup.relay.forward(bad).catch(() => {}); };
    const rss = () => { globalThis.gc(); return process.memoryUsage().rss; };
    await calls(50_000);
    const grown = [];
    for (let round = 0; round < 2; round += 1) {
      const before = rss();
      await calls(150_000);
      grown.push(rss() - before);
    }
    process.stdout.write(JSON.stringify(grown));
    await sup.close();`;
  const { execFileSync } = await import('node:child_process');
  const rounds = JSON.parse(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' }));
  const shown = rounds.map((b) => `${(b / 1e6).toFixed(1)} MB`).join(' and ');
  t.diagnostic(`two rounds of 150,000 refused calls grew the process by ${shown}`);
  assert.ok(Math.min(...rounds) < 8e6, `two rounds of 150,000 refused calls grew the process by ${shown}`);
});
