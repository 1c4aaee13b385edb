// The `kindgi-pack-service` process: lifecycle lines, boot failures, the token removed before
// pack code loads, the env filter, tenant pinning, missing env and SIGTERM drain.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { onLines } from './helpers/lines.mjs';
import { until } from './helpers/until.mjs';
import { localCall, packFolder, writeLocalPack } from './helpers/local-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-service.mjs');
const packRoot = join(here, 'fixtures', 'js-pack');
const indexPath = join(packRoot, 'index.json');
const TOKEN = 'process-token';

/** Spawns the process (`entry` is the script node runs); resolves once it wrote `listening` (or exited). */
function launch(args, env = {}, entry = bin) {
  const child = spawn(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = [];
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
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

function invoke(port, body, headers = {}) {
  return fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, ...headers },
    body: JSON.stringify(body),
  });
}

const call = (id, input = {}, ctx = { tenantId: 't1', runId: 'r1' }) => ({ v: 2, kind: 'invoke', tool: { id }, input, ctx });

test('listens, hides the token and undeclared variables from pack code, drains on SIGTERM', async () => {
  const run = launch(['--index', indexPath, '--host', '127.0.0.1'], { UNDECLARED_SECRET: 'x', KINDGI_KEEP: 'y', LANG: 'C' });
  const port = await run.listening;
  assert.ok(port > 0, 'the listening line carries the bound port');
  const listening = run.lines.find((l) => l.kind === 'listening');
  assert.deepEqual(Object.keys(listening), ['time', 'level', 'severity', 'subsystem', 'message', 'port', 'packId', 'artifactVersion', 'event', 'kind']);
  assert.equal(listening.message, `Listening on port ${port}`);
  const dropped = run.lines.find((l) => l.kind === 'env-dropped');
  assert.deepEqual(dropped.names, ['UNDECLARED_SECRET']);

  const env = await (await invoke(port, call('fixture.env'))).json();
  assert.deepEqual(env.output, { tokenVisible: false });

  // A call that is in flight (well past its admission, well before its end) when SIGTERM comes.
  const slow = invoke(port, call('fixture.sleep', { ms: 2000 }));
  await new Promise((r) => setTimeout(r, 500));
  run.child.kill('SIGTERM');
  // A second SIGTERM while it drains does not cut the call short (TypeScript's would: its
  // listener is gone after the first, and the signal's default action kills the process).
  await until(() => run.lines.some((l) => l.kind === 'draining'), 'the draining line');
  run.child.kill('SIGTERM');
  const answered = await slow;
  assert.equal(answered.status, 200);
  assert.deepEqual(await answered.json(), { v: 2, kind: 'result', output: { slept: 2000 } });
  assert.equal(await run.exited, 0);
  assert.deepEqual(
    run.lines.map((l) => l.kind).filter((k) => k === 'draining' || k === 'stopped'),
    ['draining', 'stopped'],
  );
});

test('./pack-service-main is the process when node runs it, and runs nothing when imported', async () => {
  // The path a supervisor's command names (docs/api.md): the package's own export, resolved.
  const entry = fileURLToPath(import.meta.resolve('@kindgi/handler-runtime-native/pack-service-main'));
  const run = launch(['--index', indexPath, '--host', '127.0.0.1'], { UNDECLARED_A: 'x', UNDECLARED_B: 'y' }, entry);
  const port = await run.listening;
  assert.ok(port > 0);
  const dropped = run.lines.find((l) => l.kind === 'env-dropped');
  assert.equal(dropped.level, 'warn');
  assert.equal(
    dropped.message,
    "Dropped 2 variables the pack doesn't declare: UNDECLARED_A, UNDECLARED_B (declare them in the pack's env, or set KINDGI_PACK_ENV_FILTER=off)",
  );
  assert.equal((await invoke(port, call('fixture.echo', { text: 'hi' }))).status, 200);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);

  // Imported, it only exports: this process keeps its token.
  process.env.KINDGI_PACK_SERVICE_TOKEN = 'stays';
  try {
    const imported = await import('@kindgi/handler-runtime-native/pack-service-main');
    assert.equal(typeof imported.main, 'function');
    assert.equal(process.env.KINDGI_PACK_SERVICE_TOKEN, 'stays');
  } finally {
    delete process.env.KINDGI_PACK_SERVICE_TOKEN;
  }
});

test('with no --host it listens on every interface, IPv4 callers included, as Node does', async () => {
  const run = launch(['--index', indexPath]);
  const port = await run.listening;
  assert.equal((await invoke(port, call('fixture.echo', { text: 'v4' }))).status, 200);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('main(argv, env) in-process: the token leaves the real process.env even when env is its own', async () => {
  const { main } = await import('../lib/pack-service-main.js');
  process.env.KINDGI_PACK_SERVICE_TOKEN = 'the-real-one';
  try {
    const env = { KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', KINDGI_LOG_LEVEL: 'error' };
    // A valid configuration whose index is missing: past the token's removal, then exit 1.
    assert.equal(await main(['--index', join(tmpdir(), 'no-such-index.json')], env), 1);
    assert.equal('KINDGI_PACK_SERVICE_TOKEN' in process.env, false);
    assert.equal(env.KINDGI_PACK_SERVICE_TOKEN, TOKEN, 'the given env is left as it was');
  } finally {
    delete process.env.KINDGI_PACK_SERVICE_TOKEN;
  }
});

test('SIGTERM with a call that outlives the 8 s budget: 503 while draining, exit 0 once the budget is spent', async () => {
  const run = launch(['--index', indexPath, '--host', '127.0.0.1']);
  const port = await run.listening;
  // fixture.sleep honours its abort, but a drain aborts nothing: this call outlives the budget.
  const stuck = invoke(port, call('fixture.sleep', { ms: 60_000 })).then(
    (res) => res.status,
    () => 'connection closed',
  );
  // Give the call a moment to reach its handler.
  await new Promise((r) => setTimeout(r, 1000));
  const signalled = Date.now();
  run.child.kill('SIGTERM');
  await until(() => run.lines.some((l) => l.kind === 'draining'), 'the draining line');
  const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
  assert.equal(ready.status, 503);
  assert.equal(await ready.text(), '{"error":"draining"}');
  const refused = await invoke(port, call('fixture.echo', { text: 'late' }));
  assert.equal(refused.status, 503);
  assert.equal(await run.exited, 0);
  const took = Date.now() - signalled;
  // It waited out the whole budget for the call in flight, and not much longer: the bound is a
  // correctness one (the platform kills at 10 s), far from this machine's speed.
  assert.ok(took >= 7_900, `exited after ${took} ms, before the 8 s budget was spent`);
  assert.ok(took < 9_500, `exited ${took} ms after SIGTERM, past the 8 s budget and its margin`);
  assert.notEqual(await stuck, 200);
  assert.deepEqual(
    run.lines.map((l) => l.kind).filter((k) => k === 'draining' || k === 'stopped'),
    ['draining', 'stopped'],
  );
});

test('SIGTERM the moment the listening line is read drains and exits 0; during the boot it ends the process as the signal does', async () => {
  // The listener is there before the line: a SIGTERM right behind it (a quick swap) is a
  // drain, never the signal's default action. Several boots, as the window was narrow.
  for (let i = 0; i < 4; i += 1) {
    const run = launch(['--index', indexPath]);
    assert.ok((await run.listening) > 0);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0, JSON.stringify(run.lines));
    assert.deepEqual(run.lines.slice(-2).map((l) => l.kind), ['draining', 'stopped']);
  }
  // Still booting (a module that takes seconds to load): as without a listener, TypeScript's.
  const dir = packFolder('kindgi-term-booting-');
  const slow = writeLocalPack(dir, { 'slow.mjs': 'await new Promise((r) => setTimeout(r, 5000));\nexport default () => ({});\n' });
  const child = spawn(process.execPath, [bin, '--index', slow], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0' },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const ended = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await new Promise((resolve) => setTimeout(resolve, 500));
  child.kill('SIGTERM');
  assert.deepEqual(await ended, { code: null, signal: 'SIGTERM' });
});

test('boot failures and bad configuration exit 1 with every problem', async () => {
  const missing = launch(['--index', join(tmpdir(), 'no-such-index.json')]);
  assert.equal(await missing.exited, 1);
  const failed = missing.lines.find((l) => l.kind === 'boot-failed');
  assert.equal(failed.message, 'The pack service failed to boot');
  assert.match(failed.problems[0], /^Cannot read the pack index: ENOENT/);

  const dir = packFolder('kindgi-pack-');
  const index = JSON.parse(readFileSync(indexPath, 'utf8'));
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
  const noModules = launch(['--index', join(dir, 'index.json')]);
  assert.equal(await noModules.exited, 1);
  const problems = noModules.lines.find((l) => l.kind === 'boot-failed').problems;
  assert.equal(problems.length, index.tools.length + index.guardrails.length);
  assert.equal(problems[0], `Missing module: ${index.tools[0].modulePath}`);

  const busy = launch(['--index', indexPath, '--host', '127.0.0.1']);
  const port = await busy.listening;
  const second = launch(['--index', indexPath, '--host', '127.0.0.1'], { PORT: String(port) });
  assert.equal(await second.exited, 1);
  // Node's words: what the TypeScript process prints as its uncaught error.
  assert.deepEqual(second.lines.find((l) => l.kind === 'boot-failed').problems, [`listen EADDRINUSE: address already in use 127.0.0.1:${port}`]);
  busy.child.kill('SIGTERM');
  assert.equal(await busy.exited, 0);

  const invalid = launch(['--index', indexPath], { KINDGI_PACK_SERVICE_TOKEN: '', PORT: 'x' });
  assert.equal(await invalid.exited, 1);
  assert.deepEqual(invalid.lines.find((l) => l.kind === 'config-invalid').problems, [
    'KINDGI_PACK_SERVICE_TOKEN is required',
    'PORT must be a port number, got "x"',
  ]);
});

test('a pinned process refuses other tenants; missing env keeps it unready', async () => {
  const pinned = launch(['--index', indexPath, '--host', '127.0.0.1'], { KINDGI_PACK_TENANT_ID: 't1' });
  const port = await pinned.listening;
  try {
    const none = await invoke(port, call('fixture.echo', { text: 'x' }));
    assert.equal(none.status, 421);
    assert.deepEqual(await none.json(), { code: 'pack-tenant-mismatch' });
    const ok = await invoke(port, call('fixture.echo', { text: 'x' }), { 'kindgi-tenant-id': 't1' });
    assert.equal(ok.status, 200);
  } finally {
    pinned.child.kill('SIGTERM');
    await pinned.exited;
  }

  const dir = packFolder('kindgi-pack-');
  const index = { ...JSON.parse(readFileSync(indexPath, 'utf8')), env: { required: ['NEEDED_KEY'] } };
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
  const unready = launch(['--index', join(dir, 'index.json'), '--module-root', packRoot, '--host', '127.0.0.1']);
  const readyPort = await unready.listening;
  try {
    const ready = await fetch(`http://127.0.0.1:${readyPort}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { error: 'missing env', missingEnv: ['NEEDED_KEY'] });
    const warned = unready.lines.find((l) => l.kind === 'missing-env');
    assert.equal(warned.message, "The pack's env.required name has no value: NEEDED_KEY");
  } finally {
    unready.child.kill('SIGTERM');
    await unready.exited;
  }
});

/** A tool that holds the JS thread from the moment it writes `started` until the file `release` exists (or 60 s pass). */
const busyTool = (started, release) => `import { existsSync, writeFileSync } from 'node:fs';
export default () => {
  writeFileSync(${JSON.stringify(started)}, '');
  const until = Date.now() + 60_000;
  while (!existsSync(${JSON.stringify(release)}) && Date.now() < until);
  return {};
};
`;

test('calls that end while the JS thread is busy never start, and hold their place until it is free', async () => {
  const dir = packFolder();
  const [started, release, ran] = ['started', 'release', 'ran'].map((name) => join(dir, name));
  const indexFile = writeLocalPack(dir, {
    'busy.mjs': busyTool(started, release),
    'count.mjs': `import { appendFileSync } from 'node:fs';
export default () => { appendFileSync(${JSON.stringify(ran)}, 'x'); return {}; };
`,
  });
  const run = launch(['--index', indexFile, '--host', '127.0.0.1'], {
    KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '3',
    // A build under test elsewhere (the other tests here check the exact environment).
    ...(process.env.NAPI_RS_NATIVE_LIBRARY_PATH && { NAPI_RS_NATIVE_LIBRARY_PATH: process.env.NAPI_RS_NATIVE_LIBRARY_PATH }),
  });
  const port = await run.listening;
  const post = (name, headers = {}) =>
    fetch(`http://127.0.0.1:${port}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, ...headers },
      body: localCall(name),
    });
  try {
    const busy = post('busy');
    await until(() => existsSync(started), 'the busy handler');
    // Answered by their deadline while queued behind the busy handler.
    for (const _ of [1, 2, 3]) {
      const late = await post('count', { 'kindgi-timeout-ms': '50' });
      assert.equal(late.status, 200);
      assert.equal((await late.json()).code, 'deadline-exceeded');
    }
    // Those three still hold their places, and the cap of 3 is reached. (A call that is still
    // waiting its turn holds none: the busy handler's does not count against requests.)
    const refused = await post('count');
    assert.equal(refused.status, 503);
    assert.deepEqual(await refused.json(), { error: 'overloaded' });
    writeFileSync(release, '');
    assert.equal((await busy).status, 200);
    // The JS thread gives the three places back as it reaches their calls, just after the
    // busy one's answer went out: a call may come before that, on a busy host, and be refused.
    let after;
    for (let tries = 0; tries < 100; tries += 1) {
      after = await post('count');
      if (after.status !== 503) break;
      await after.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(after.status, 200);
    assert.deepEqual(await after.json(), { v: 2, kind: 'result', output: {} });
    // Only the last call's handler ran.
    assert.equal(readFileSync(ran, 'utf8'), 'x');
  } finally {
    run.child.kill('SIGTERM');
    await run.exited;
  }
});

test('bodies queued behind a busy JS thread are bounded: past 32 MiB, requests wait at their heads, unread, until the thread counts as stalled', async () => {
  const dir = packFolder();
  const [started, release] = ['started', 'release'].map((name) => join(dir, name));
  const indexFile = writeLocalPack(dir, {
    'busy.mjs': busyTool(started, release),
    'echo.mjs': 'export default (input) => ({ n: input.pad.length });\n',
  });
  // A cap no burst here reaches: only the queue's budget holds requests back.
  const run = launch(['--index', indexFile, '--host', '127.0.0.1'], {
    KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '1000',
    ...(process.env.NAPI_RS_NATIVE_LIBRARY_PATH && { NAPI_RS_NATIVE_LIBRARY_PATH: process.env.NAPI_RS_NATIVE_LIBRARY_PATH }),
  });
  const port = await run.listening;
  const post = (body) =>
    fetch(`http://127.0.0.1:${port}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
      body,
    }).then(async (res) => ({ status: res.status, text: await res.text() }));
  try {
    const busy = post(localCall('busy'));
    await until(() => existsSync(started), 'the busy handler');
    // 150 calls of 900 KB (135 MB), one every 5 ms: Rust reads them while the JS thread is
    // busy, until 32 MiB of them wait for it.
    const pad = 'x'.repeat(900_000);
    const body = JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'local.echo' }, input: { pad }, ctx: { tenantId: 't-1', runId: 'run-1' } });
    const CALLS = 150;
    const calls = [];
    for (let i = 0; i < CALLS; i += 1) {
      calls.push(post(body));
      await new Promise((r) => setTimeout(r, 5));
    }
    const answered = [];
    // A call that fails is reported by `Promise.all` below.
    calls.forEach((call) => call.then((answer) => answered.push(answer), () => {}));
    // Once the thread has been held past the readiness limit, the requests waiting at their
    // heads leave the wait as stalled, as new ones are refused: none is refused `overloaded`.
    // 32 MiB of 900 KB bodies is 37 of them, plus the uploads still in flight when the budget
    // was reached (each under 1 MiB, so not counted as it arrives; a slow host has more under
    // way): every call but those is answered before the thread lets go.
    const queuedAtMost = 60;
    await until(() => answered.length >= CALLS - queuedAtMost, 'the waiting calls to be answered as stalled');
    for (const answer of answered) assert.deepEqual(answer, { status: 503, text: '{"error":"pack code stalled"}' });
    writeFileSync(release, '');
    assert.equal((await busy).status, 200);
    const answers = await Promise.all(calls);
    const served = answers.filter((a) => a.status === 200);
    // Every one queued is served, and no waiting one outlasted the stall.
    assert.ok(served.length >= 1 && served.length <= queuedAtMost, `${served.length} served`);
    assert.ok(served.every((a) => a.text === '{"v":2,"kind":"result","output":{"n":900000}}'));
    const stalled = answers.filter((a) => a.status === 503 && a.text === '{"error":"pack code stalled"}');
    assert.equal(served.length + stalled.length, CALLS);
  } catch (error) {
    // What the service said last, should it have ended or refused.
    const said = run.lines.filter((l) => l.kind !== 'call').slice(-5);
    throw new Error(`${error.message}; the service: exit ${run.child.exitCode ?? run.child.signalCode}, ${JSON.stringify(said)}`, { cause: error });
  } finally {
    run.child.kill('SIGTERM');
    await run.exited;
  }
});

// A build under test elsewhere reaches the children the tests below start.
const addon = process.env.NAPI_RS_NATIVE_LIBRARY_PATH ? { NAPI_RS_NATIVE_LIBRARY_PATH: process.env.NAPI_RS_NATIVE_LIBRARY_PATH } : {};

test('with no --host, a port taken on IPv6 or on IPv4 fails the boot as Node fails it, for :::PORT', async () => {
  const { createServer } = await import('node:net');
  for (const options of [{ host: '::', ipv6Only: true }, { host: '0.0.0.0' }]) {
    const holder = createServer();
    await new Promise((ready) => holder.listen({ port: 0, ...options }, ready));
    const taken = holder.address().port;
    try {
      const run = launch(['--index', indexPath], { PORT: String(taken), ...addon });
      const port = await run.listening;
      if (port !== undefined) {
        run.child.kill('SIGTERM');
        await run.exited;
        assert.fail(`with ${options.host}:${taken} taken, it listened on ${port} (the other family alone)`);
      }
      assert.equal(await run.exited, 1);
      assert.deepEqual(run.lines.find((l) => l.kind === 'boot-failed').problems, [`listen EADDRINUSE: address already in use :::${taken}`]);
    } finally {
      await new Promise((closed) => holder.close(closed));
    }
  }
});

test('KINDGI_PACK_TENANT_ID is trimmed (a secret stored with its newline), blank pins nothing, and a control character is config-invalid', async () => {
  const statuses = async (tenant) => {
    const run = launch(['--index', indexPath, '--host', '127.0.0.1'], { KINDGI_PACK_TENANT_ID: tenant, ...addon });
    const port = await run.listening;
    try {
      assert.ok(port !== undefined, JSON.stringify(run.lines));
      const bare = await invoke(port, call('fixture.echo', { text: 'x' }));
      const named = await invoke(port, call('fixture.echo', { text: 'x' }), { 'kindgi-tenant-id': 't1' });
      return [bare.status, named.status];
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  };
  assert.deepEqual(await statuses('t1\n'), [421, 200]);
  assert.deepEqual(await statuses(' '), [200, 200]);
  const invalid = launch(['--index', indexPath], { KINDGI_PACK_TENANT_ID: 't\u0001', ...addon });
  assert.equal(await invalid.exited, 1);
  assert.deepEqual(invalid.lines.find((l) => l.kind === 'config-invalid').problems, [
    'KINDGI_PACK_TENANT_ID may hold only what an HTTP header can carry: printable ASCII, spaces, tabs and U+0080 to U+00FF (it is matched against kindgi-tenant-id)',
  ]);
});

test('tokio runs a worker per core but one, and TOKIO_WORKER_THREADS still sets the count', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const { availableParallelism } = await import('node:os');
  // tokio names its workers (and its blocking pool, which nothing has used by the listening line).
  const workers = (pid) => {
    const tasks = `/proc/${pid}/task`;
    return readdirSync(tasks).filter((task) => readFileSync(join(tasks, task, 'comm'), 'utf8').trim() === 'tokio-rt-worker').length;
  };
  for (const [env, expected] of [[{}, Math.max(1, availableParallelism() - 1)], [{ TOKIO_WORKER_THREADS: '3' }, 3]]) {
    const run = launch(['--index', indexPath, '--host', '127.0.0.1'], { ...env, ...addon });
    try {
      const port = await run.listening;
      assert.ok(port > 0, 'it listens');
      assert.equal((await invoke(port, call('fixture.echo', { text: 'hi' }))).status, 200);
      assert.equal(workers(run.child.pid), expected, JSON.stringify(env));
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }
});
