// The pack service with KINDGI_PACK_SERVICE_WORKERS above 1, through the bin over loopback:
// pack code runs on the main thread and worker threads, each with its own modules; the boot,
// the drain, deadlines, hang-ups, stalls and a dying thread behave as with one thread.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { onLines } from './helpers/lines.mjs';
import { packFolder, writeLocalPack } from './helpers/local-pack.mjs';
import { until } from './helpers/until.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-service.mjs');
const TOKEN = 'workers-token';

// `local.where` answers after `ms` (default 50) with its thread and its module's own count;
// `local.wait` runs until its abort and says so in ctx.log; `local.spin` holds its thread.
const WHERE = `import { threadId } from 'node:worker_threads';
let count = 0;
export default async (input, ctx) => {
  count += 1;
  const seen = count;
  await new Promise((r) => setTimeout(r, input.ms ?? 50));
  ctx.log.info('where', { threadId });
  return { threadId, count: seen };
};
`;
const WAIT = `import { threadId } from 'node:worker_threads';
export default (input, ctx) => new Promise((resolve) => {
  ctx.log.info('waiting', { threadId });
  ctx.abortSignal.addEventListener('abort', () => {
    ctx.log.info('aborted', { threadId, reason: String(ctx.abortSignal.reason?.name ?? ctx.abortSignal.reason) });
    resolve({ threadId });
  });
});
`;
const SPIN = `import { threadId } from 'node:worker_threads';
export default (input) => { const until = Date.now() + (input.ms ?? 1e9); while (Date.now() < until); return { threadId }; };
`;

const children = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function launch(index, env = {}, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, bin, '--index', index, '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', KINDGI_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const lines = [];
  const text = [];
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const listening = new Promise((resolve) => {
    onLines(child.stderr, (line) => {
      text.push(line);
      try {
        const record = JSON.parse(line);
        lines.push(record);
        if (record.kind === 'listening') resolve(record.port);
      } catch {
        // Not a record: Node's own print of an uncaught exception.
      }
    });
    exited.then(() => resolve(undefined));
  });
  return { child, lines, text, exited, listening };
}

const body = (tool, input = {}) => JSON.stringify({ v: 2, kind: 'invoke', tool: { id: `local.${tool}` }, input, ctx: { tenantId: 't', runId: 'r' } });

async function post(port, payload, headers = {}, signal = undefined) {
  const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, ...headers },
    body: payload,
    signal,
  });
  return { status: res.status, text: await res.text() };
}

const get = async (port, path) => (await fetch(`http://127.0.0.1:${port}${path}`)).status;

const output = (answer) => JSON.parse(answer.text).output;

/** Calls `local.where` `n` times at once; the outputs. */
async function spread(port, n, ms = 100) {
  const answers = await Promise.all(Array.from({ length: n }, () => post(port, body('where', { ms }))));
  for (const answer of answers) assert.equal(answer.status, 200, answer.text);
  return answers.map(output);
}

test('calls are answered from every thread, each with its own module state; ctx.log works on every thread', async () => {
  const run = launch(writeLocalPack(packFolder(), { 'where.mjs': WHERE }), { KINDGI_PACK_SERVICE_WORKERS: '3' });
  const port = await run.listening;
  assert.ok(port, run.text.join('\n'));
  const outputs = await spread(port, 12);
  const threads = new Map();
  for (const { threadId, count } of outputs) threads.set(threadId, [...(threads.get(threadId) ?? []), count]);
  assert.equal(threads.size, 3, JSON.stringify(outputs));
  assert.ok(threads.has(0), 'the main thread serves too');
  // Each thread's module counts its own calls: 1..k on every thread, 12 in all.
  for (const counts of threads.values()) assert.deepEqual(counts.sort((a, b) => a - b), counts.map((_, i) => i + 1));
  // ctx.log records from each thread, with the call's bindings.
  await until(() => new Set(run.lines.filter((l) => l.message === 'where').map((l) => l.threadId)).size === 3, 'ctx.log from 3 threads');
  const logged = run.lines.find((l) => l.message === 'where' && l.threadId !== 0);
  assert.equal(logged.subsystem, 'pack.tool');
  assert.equal(logged.packId, 'local');
  run.child.kill('SIGTERM');
  assert.deepEqual(await run.exited, { code: 0, signal: null });
});

test('a worker thread keeps serving after garbage collections on every thread', async () => {
  const collects = `import { threadId } from 'node:worker_threads';
// A full collection on this thread once the call has settled and nothing of it runs.
export default async () => { await new Promise((r) => setTimeout(r, 20)); setTimeout(() => globalThis.gc(), 50); return { threadId }; };
`;
  const run = launch(writeLocalPack(packFolder(), { 'where.mjs': WHERE, 'collect.mjs': collects }), { KINDGI_PACK_SERVICE_WORKERS: '2' }, ['--expose-gc']);
  const port = await run.listening;
  const collected = await Promise.all(Array.from({ length: 6 }, () => post(port, body('collect'))));
  assert.equal(new Set(collected.map((a) => output(a).threadId)).size, 2);
  await new Promise((r) => setTimeout(r, 300));
  // Answered by their handlers on both threads, not by a deadline: no call is dropped.
  const answers = await Promise.all(Array.from({ length: 6 }, () => post(port, body('where', { ms: 100 }), { 'kindgi-timeout-ms': '5000' })));
  for (const answer of answers) assert.equal(JSON.parse(answer.text).kind, 'result', answer.text);
  assert.equal(new Set(answers.map((a) => output(a).threadId)).size, 2);
  run.child.kill('SIGTERM');
  assert.deepEqual(await run.exited, { code: 0, signal: null });
});

test('KINDGI_PACK_SERVICE_WORKERS=1 and unset serve on the main thread only', async () => {
  for (const env of [{}, { KINDGI_PACK_SERVICE_WORKERS: '1' }]) {
    const run = launch(writeLocalPack(packFolder(), { 'where.mjs': WHERE }), env);
    const port = await run.listening;
    const outputs = await spread(port, 6);
    assert.deepEqual(new Set(outputs.map((o) => o.threadId)), new Set([0]));
    run.child.kill('SIGTERM');
    assert.equal((await run.exited).code, 0);
  }
});

test('a module that fails to load on one thread only is a boot-failed, and nothing listens', async () => {
  const failsOnWorkers = `import { isMainThread } from 'node:worker_threads';
if (!isMainThread) throw new Error('cannot load on a worker thread');
export default () => ({});
`;
  const run = launch(writeLocalPack(packFolder(), { 'picky.mjs': failsOnWorkers }), { KINDGI_PACK_SERVICE_WORKERS: '2' });
  assert.equal(await run.listening, undefined);
  assert.deepEqual(await run.exited, { code: 1, signal: null });
  const failed = run.lines.find((l) => l.kind === 'boot-failed');
  assert.ok(failed, run.text.join('\n'));
  assert.equal(failed.problems.length, 1);
  assert.match(failed.problems[0], /local\.picky: .*cannot load on a worker thread/);
  assert.ok(!run.lines.some((l) => l.kind === 'listening'));
});

test('bad values are a config-invalid record naming the variable', async () => {
  const index = writeLocalPack(packFolder(), { 'where.mjs': WHERE });
  for (const value of ['0', 'two', '1.5', '-1', '257', 'AUTO', '']) {
    const run = launch(index, { KINDGI_PACK_SERVICE_WORKERS: value });
    assert.deepEqual(await run.exited, { code: 1, signal: null }, value);
    const invalid = run.lines.find((l) => l.kind === 'config-invalid');
    assert.deepEqual(invalid?.problems, ['KINDGI_PACK_SERVICE_WORKERS must be auto or a whole number of JS threads from 1 to 256'], value);
  }
  // auto is at least one thread.
  const run = launch(index, { KINDGI_PACK_SERVICE_WORKERS: 'auto' });
  assert.ok(await run.listening);
  run.child.kill('SIGTERM');
  assert.equal((await run.exited).code, 0);
});

test('SIGTERM drains the calls in flight on every thread', async () => {
  const slow = `import { threadId } from 'node:worker_threads';
export default async (input, ctx) => {
  ctx.log.info('running', { threadId });
  await new Promise((r) => setTimeout(r, 800));
  return { threadId };
};
`;
  const run = launch(writeLocalPack(packFolder(), { 'slow.mjs': slow }), { KINDGI_PACK_SERVICE_WORKERS: '2' });
  const port = await run.listening;
  const calls = Array.from({ length: 4 }, () => post(port, body('slow')));
  // All four are in the handlers (two a thread) before the signal.
  await until(() => run.lines.filter((l) => l.message === 'running').length === 4, '4 calls running');
  run.child.kill('SIGTERM');
  const answers = await Promise.all(calls);
  const threads = new Set(answers.map((a) => (assert.equal(a.status, 200, a.text), output(a).threadId)));
  assert.equal(threads.size, 2);
  assert.deepEqual(await run.exited, { code: 0, signal: null });
  const kinds = run.lines.map((l) => l.kind).filter((k) => k === 'draining' || k === 'stopped');
  assert.deepEqual(kinds, ['draining', 'stopped']);
});

test("a call on a worker thread hears its deadline and its caller's hang-up", async () => {
  const run = launch(writeLocalPack(packFolder(), { 'wait.mjs': WAIT }), { KINDGI_PACK_SERVICE_WORKERS: '2' });
  const port = await run.listening;
  // The first call holds the main thread's place (the fewest in flight, the first of
  // equals): the next one goes to the worker thread.
  const holder = new AbortController();
  const held = post(port, body('wait'), {}, holder.signal).catch(() => undefined);
  const waiting = (n) => until(() => run.lines.filter((l) => l.message === 'waiting').length === n, `${n} calls running`);
  await waiting(1);
  assert.equal(run.lines.find((l) => l.message === 'waiting').threadId, 0);
  const late = await post(port, body('wait'), { 'kindgi-timeout-ms': '300' });
  assert.equal(JSON.parse(late.text).code, 'deadline-exceeded', late.text);
  await until(() => run.lines.some((l) => l.message === 'aborted' && l.threadId !== 0), 'the deadline heard on the worker thread');
  assert.equal(run.lines.find((l) => l.message === 'aborted').reason, 'deadline-exceeded');
  // A caller that leaves: its call's abort fires with `cancelled` on the worker thread.
  const leaving = new AbortController();
  const left = post(port, body('wait'), {}, leaving.signal).catch((e) => e.name);
  await waiting(3);
  assert.notEqual(run.lines.filter((l) => l.message === 'waiting')[2].threadId, 0);
  leaving.abort();
  assert.equal(await left, 'AbortError');
  await until(() => run.lines.filter((l) => l.message === 'aborted' && l.threadId !== 0).length === 2, 'the hang-up heard on the worker thread');
  assert.equal(run.lines.filter((l) => l.message === 'aborted')[1].reason, 'cancelled');
  holder.abort();
  await held;
  await until(() => run.lines.some((l) => l.message === 'aborted' && l.threadId === 0), 'the main thread heard its hang-up');
  run.child.kill('SIGTERM');
  assert.equal((await run.exited).code, 0);
});

test('a stalled thread takes no new calls; readyz stays 200 while another thread serves, 503 once both are held; healthz 503 past the limit', async () => {
  const index = writeLocalPack(packFolder(), { 'where.mjs': WHERE, 'spin.mjs': SPIN });
  const run = launch(index, { KINDGI_PACK_SERVICE_WORKERS: '2', KINDGI_PACK_SERVICE_STALL_MS: '2500' });
  const port = await run.listening;
  // Answered by its deadline while it holds its thread for good.
  const spun = await post(port, body('spin'), { 'kindgi-timeout-ms': '300' });
  assert.equal(JSON.parse(spun.text).code, 'deadline-exceeded');
  await until(() => run.lines.some((l) => l.kind === 'js-stalled'), 'the js-stalled record');
  const stalled = run.lines.find((l) => l.kind === 'js-stalled');
  assert.equal(typeof stalled.thread, 'number');
  assert.match(stalled.message, /it takes no new calls until it lets go/);
  assert.equal(await get(port, '/readyz'), 200);
  // Every new call goes to the thread that is free.
  const outputs = await spread(port, 4, 10);
  assert.equal(new Set(outputs.map((o) => o.threadId)).size, 1);
  await until(async () => (await get(port, '/healthz')) === 503, 'healthz 503 past the stall limit');
  assert.equal(await get(port, '/readyz'), 200);
  // The other thread held too: its record says readiness is gone, and it is.
  const second = await post(port, body('spin'), { 'kindgi-timeout-ms': '300' });
  assert.equal(JSON.parse(second.text).code, 'deadline-exceeded');
  await until(() => run.lines.filter((l) => l.kind === 'js-stalled').length === 2, 'the second js-stalled record');
  const last = run.lines.filter((l) => l.kind === 'js-stalled')[1];
  assert.notEqual(last.thread, stalled.thread);
  assert.match(last.message, /every JS thread is held: \/readyz and new calls answer 503 until one lets go/);
  assert.equal(await get(port, '/readyz'), 503);
  // SIGTERM still ends the process while both threads spin.
  run.child.kill('SIGTERM');
  assert.deepEqual(await run.exited, { code: 0, signal: null });
});

test('a worker thread that dies of an uncaught exception ends the process, as on the main thread', async () => {
  const dies = `import { isMainThread } from 'node:worker_threads';
export default async () => {
  if (!isMainThread) setTimeout(() => { throw new Error('pack code threw on its own'); }, 0);
  await new Promise((r) => setTimeout(r, 300));
  return {};
};
`;
  const run = launch(writeLocalPack(packFolder(), { 'dies.mjs': dies }), { KINDGI_PACK_SERVICE_WORKERS: '2' });
  const port = await run.listening;
  // Two at once, one a thread, until one reached the worker thread (the first pair does unless
  // the host is slow enough for the first call to end before the second arrives).
  let ended = false;
  run.exited.then(() => (ended = true));
  for (let i = 0; i < 20 && !ended; i += 1) {
    await Promise.allSettled([post(port, body('dies')), post(port, body('dies'))]);
  }
  const { code } = await run.exited;
  assert.equal(code, 1);
  const printed = run.text.join('\n');
  assert.match(printed, /Error: pack code threw on its own/);
  assert.ok(!run.lines.some((l) => l.kind === 'stopped'));
});

test('a worker thread that dies after its boot, while another still boots, ends the process once it listens', async () => {
  // The first worker thread dies 200 ms after loading its module; the second takes 1.5 s to load.
  const uneven = `import { threadId } from 'node:worker_threads';
if (threadId === 1) setTimeout(() => { throw new Error('a worker thread died after its boot'); }, 200);
if (threadId === 2) await new Promise((r) => setTimeout(r, 1500));
export default () => ({ threadId });
`;
  const run = launch(writeLocalPack(packFolder(), { 'uneven.mjs': uneven }), { KINDGI_PACK_SERVICE_WORKERS: '3' });
  const { code } = await run.exited;
  assert.equal(code, 1);
  assert.match(run.text.join('\n'), /a worker thread died after its boot/);
});

test('pack code that calls process.exit() on a worker thread ends the process, not the thread alone', async () => {
  const exits = `import { isMainThread } from 'node:worker_threads';
export default async () => {
  if (!isMainThread) process.exit(3);
  await new Promise((r) => setTimeout(r, 300));
  return {};
};
`;
  const run = launch(writeLocalPack(packFolder(), { 'exits.mjs': exits }), { KINDGI_PACK_SERVICE_WORKERS: '2' });
  const port = await run.listening;
  let ended = false;
  run.exited.then(() => (ended = true));
  for (let i = 0; i < 20 && !ended; i += 1) {
    await Promise.allSettled([post(port, body('exits')), post(port, body('exits'))]);
  }
  assert.equal((await run.exited).code, 1);
  assert.match(run.text.join('\n'), /A pack service worker thread exited with code 3/);
});

test('hostile handlers and requests on two threads: protocol answers, and the service serves on', async () => {
  const hostile = {
    'bigint.mjs': 'export default () => ({ n: 10n });\n',
    'cycle.mjs': 'export default () => { const o = {}; o.self = o; return o; };\n',
    'sync-throw.mjs': "export default () => { throw new TypeError('sync'); };\n",
    'reject-string.mjs': "export default () => Promise.reject('plain');\n",
    'throwing-tojson.mjs': "export default () => ({ toJSON() { throw new Error('no JSON'); } });\n",
    'proxy.mjs': "export default () => new Proxy({}, { ownKeys() { throw new Error('trap'); } });\n",
    'where.mjs': WHERE,
  };
  const run = launch(writeLocalPack(packFolder(), hostile), { KINDGI_PACK_SERVICE_WORKERS: '2' });
  const port = await run.listening;
  const tools = Object.keys(hostile).filter((f) => f !== 'where.mjs').map((f) => f.replace('.mjs', ''));
  // Each tool twice at once, so that both threads run it.
  const answers = await Promise.all(tools.flatMap((tool) => [post(port, body(tool)), post(port, body(tool))]));
  for (const [i, answer] of answers.entries()) {
    const tool = tools[Math.floor(i / 2)];
    assert.ok(answer.status === 200 || answer.status === 500, `${tool}: ${answer.status}`);
    // A protocol answer (200) or the service's 500, as JSON either way.
    JSON.parse(answer.text);
  }
  // Malformed bodies, a flood of them, and requests cut halfway.
  const bad = ['{', '[]', '{"v":2}', 'x'.repeat(1000), JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'local.none' }, input: {}, ctx: {} })];
  for (const payload of bad) assert.ok([200, 400, 404, 422].includes((await post(port, payload)).status), payload);
  await Promise.all(Array.from({ length: 50 }, (_, i) => post(port, bad[i % bad.length])));
  for (let i = 0; i < 10; i += 1) {
    await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end(`POST /v1/invoke HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nkindgi-pack-token: ${TOKEN}\r\ncontent-length: 100\r\n\r\n{"v":2`);
        setTimeout(() => socket.destroy(), 20);
      });
      socket.on('error', resolve);
      socket.on('close', resolve);
    });
  }
  // Still serving on both threads.
  const outputs = await spread(port, 6);
  assert.equal(new Set(outputs.map((o) => o.threadId)).size, 2);
  run.child.kill('SIGTERM');
  assert.deepEqual(await run.exited, { code: 0, signal: null });
});

test('listen(port, host, { workers }) in process: every thread serves, a failing thread rejects, stop() ends them', async () => {
  const { createPackService } = await import('../lib/pack-service.js');
  const { readFileSync } = await import('node:fs');
  const { resolve } = await import('node:path');
  const serviceOver = (modules) => {
    const dir = packFolder();
    const index = JSON.parse(readFileSync(writeLocalPack(dir, modules), 'utf8'));
    return createPackService({ index, resolveModule: (p) => resolve(dir, p), token: TOKEN, env: {} });
  };
  const service = serviceOver({ 'where.mjs': WHERE });
  assert.deepEqual(await service.prewarm(), []);
  for (const bad of [0, 1.5, 'two', null, {}]) {
    await assert.rejects(service.listen(0, '127.0.0.1', { workers: bad }), { code: 'invalid-argument' });
  }
  const port = await service.listen(0, '127.0.0.1', { workers: 2 });
  const outputs = await spread(port, 6);
  assert.equal(new Set(outputs.map((o) => o.threadId)).size, 2);
  await service.stop(100);

  const picky = serviceOver({ 'picky.mjs': "import { isMainThread } from 'node:worker_threads';\nif (!isMainThread) throw new Error('main thread only');\nexport default () => ({});\n" });
  assert.deepEqual(await picky.prewarm(), []);
  await assert.rejects(picky.listen(0, '127.0.0.1', { workers: 3 }), (error) => {
    assert.equal(error.code, 'listen-failed');
    assert.match(error.problems[0], /local\.picky: .*main thread only/);
    return true;
  });
  await picky.stop(0);
});
