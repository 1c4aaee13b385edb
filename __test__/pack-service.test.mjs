// createPackService over real HTTP on loopback: the Rust server, JS handlers through the
// dispatcher, against the fixture pack (a copy of the shared js-pack).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackService } from '../lib/pack-service.js';
import { startService } from './helpers/service.mjs';
import { until } from './helpers/until.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const packRoot = join(here, 'fixtures', 'js-pack');
const fixtureIndex = JSON.parse(readFileSync(join(packRoot, 'index.json'), 'utf8'));
const TOKEN = 'test-token';
const ctx = { tenantId: 't1', runId: 'r1' };

async function started(options = {}) {
  const events = [];
  const { service, port } = await startService({ packRoot, index: fixtureIndex, token: TOKEN, events, ...options });
  const url = (path) => `http://127.0.0.1:${port}${path}`;
  const invoke = async (body, headers = {}, signal) => {
    const res = await fetch(url('/v1/invoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal,
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  return { service, events, url, invoke };
}

const tool = (id, input = {}, extra = {}) => ({ v: 2, kind: 'invoke', tool: { id }, input, ctx, ...extra });

test('answers calls with the TypeScript bytes and headers', async () => {
  const { service, invoke, url } = await started({ indexHash: 'sha256:ab' });
  try {
    const echoed = await invoke(tool('fixture.echo', { text: 'hi' }));
    assert.equal(echoed.status, 200);
    assert.equal(echoed.text, '{"v":2,"kind":"result","output":{"text":"hi","n":1}}');
    assert.equal(echoed.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(echoed.headers.get('kindgi-artifact-version'), fixtureIndex.artifactVersion);
    assert.match(echoed.headers.get('kindgi-duration-ms'), /^\d+$/);

    // Every protocol answer, error or not, is a 200.
    const answered = async (body) => {
      const answer = await invoke(body);
      assert.equal(answer.status, 200, answer.text);
      return answer;
    };
    const message = async (body) => JSON.parse((await answered(body)).text);
    const thrown = await message(tool('fixture.throw'));
    assert.equal(thrown.code, 'handler-throw');
    assert.equal(thrown.message, 'Handler for tool "fixture.throw" threw: Error: boom');
    assert.deepEqual(Object.keys(thrown), ['v', 'kind', 'code', 'message', 'toolId', 'cause']);

    const bad = await message(tool('fixture.bad-output'));
    assert.equal(bad.code, 'output-validation-failed');
    assert.deepEqual(
      bad.issues.map((i) => i.keyword),
      ['required', 'additionalProperties'],
    );

    const invalid = await message(tool('fixture.sleep', { ms: -1 }));
    assert.equal(invalid.code, 'input-validation-failed');
    assert.equal(invalid.issues[0].message, 'must be >= 0');

    assert.equal(
      (await answered(tool('fixture.nope'))).text,
      '{"v":2,"kind":"error","code":"tool-not-in-pack","message":"This pack has no tool \\"fixture.nope\\"","toolId":"fixture.nope"}',
    );
    const versioned = await message({ ...tool('fixture.versioned'), tool: { id: 'fixture.versioned', version: '9' } });
    assert.equal(versioned.code, 'tool-version-mismatch');
    assert.equal(versioned.message, 'Tool "fixture.versioned" is 1.2.0 in this pack; the caller asked for 9');

    const check = { v: 2, kind: 'check-invoke', check: { id: 'fixture.checks.max-len' }, config: { max: 3 }, trace: {} };
    assert.equal((await message(check)).kind, 'check-result');
    const badConfig = await message({ ...check, config: { max: -1 } });
    assert.equal(badConfig.message, 'Check "fixture.checks.max-len" config failed validation at /max: must be >= 0');
    assert.equal(badConfig.checkId, 'fixture.checks.max-len');
    assert.equal(badConfig.toolId, undefined);

    assert.equal(
      (await answered('{nope')).text,
      '{"v":2,"kind":"error","code":"malformed-message","message":"Request body is not valid JSON"}',
    );

    const info = await fetch(url('/v1/info'), { headers: { 'kindgi-pack-token': TOKEN } });
    const body = await info.json();
    assert.deepEqual(Object.keys(body), ['protocol', 'packId', 'packVersion', 'artifactVersion', 'indexHash', 'tools', 'checks', 'missingEnv']);
    assert.equal(body.indexHash, 'sha256:ab');
    assert.deepEqual(body.checks, ['fixture.checks.max-len']);
    assert.deepEqual(body.tools.find((t) => t.id === 'fixture.versioned'), { id: 'fixture.versioned', version: '1.2.0' });
  } finally {
    await service.stop(100);
  }
});

test('the handler context hides secrets and log, and carries the abort signal', async () => {
  const seen = [];
  const index = { ...fixtureIndex, tools: [{ id: 'probe', modulePath: 'probe.mjs', input: { type: 'object' }, output: { type: 'object' } }], guardrails: [] };
  const { service, invoke } = await started({
    index,
    importModule: async () => ({
      default: (input, c) => {
        seen.push(c);
        return { keys: Object.keys(c), secret: c.secrets?.key, hasLog: typeof c.log?.info === 'function' };
      },
    }),
  });
  try {
    const answered = await invoke({ ...tool('probe'), ctx: { ...ctx, secrets: { key: 's3' }, idempotencyKey: 'k' } });
    assert.deepEqual(JSON.parse(answered.text).output, {
      keys: ['tenantId', 'runId', 'idempotencyKey', 'abortSignal'],
      secret: 's3',
      hasLog: true,
    });
    assert.ok(seen[0].abortSignal instanceof AbortSignal);
    assert.equal(JSON.stringify(seen[0]).includes('s3'), false);
  } finally {
    await service.stop(100);
  }
});

test('deadlines, cancellation and handlers that ignore their abort', async () => {
  const index = {
    ...fixtureIndex,
    tools: [...fixtureIndex.tools, { id: 'stubborn', modulePath: 'stubborn.mjs', input: { type: 'object' }, output: { type: 'object' } }],
  };
  const { service, invoke, events } = await started({
    index,
    importModule: async (p) =>
      p.endsWith('stubborn.mjs')
        ? { default: () => new Promise((r) => setTimeout(() => r({}), 150)) }
        : import(new URL(`file://${p}`).href),
  });
  try {
    const late = await invoke(tool('fixture.sleep', { ms: 5000 }), { 'kindgi-timeout-ms': '50' });
    assert.equal(
      late.text,
      '{"v":2,"kind":"error","code":"deadline-exceeded","message":"fixture.sleep passed its deadline","toolId":"fixture.sleep"}',
    );
    const stubborn = await invoke(tool('stubborn'), { 'kindgi-timeout-ms': '20' });
    assert.equal(JSON.parse(stubborn.text).code, 'deadline-exceeded');
    await until(() => events.some((e) => e.kind === 'handler-finished-late'), 'the late event');

    const hangUp = new AbortController();
    const pending = invoke(tool('fixture.sleep', { ms: 5000 }), {}, hangUp.signal).catch((e) => e);
    await until(() => service.inFlight() === 1, 'the call to start');
    hangUp.abort();
    assert.equal((await pending).name, 'AbortError');
    await until(() => events.some((e) => e.kind === 'call' && e.outcome === 'cancelled'), 'the cancelled call');
    await until(() => service.inFlight() === 0, 'the call to end');
    await new Promise((r) => setTimeout(r, 50));
    // Only the handler that ignored its abort is reported late; fixture.sleep honours it.
    assert.deepEqual(
      events.filter((e) => e.kind === 'handler-finished-late').map((e) => e.id),
      ['stubborn'],
    );
  } finally {
    await service.stop(100);
  }
});

test('the concurrency cap, missing env and tenant pinning answer before any handler runs', async () => {
  // Calls that hold their slot until the test hangs up (which cancels them), so that however
  // slow the machine, every later call arrives while they run.
  const holding = (run, signal) => run.invoke(tool('fixture.sleep', { ms: 600_000 }), {}, signal).catch(() => 'cancelled');
  const capped = await started({ maxConcurrency: 1 });
  const hangUp = new AbortController();
  try {
    const first = holding(capped, hangUp.signal);
    await until(() => capped.service.inFlight() === 1, 'the first call');
    const refused = await capped.invoke(tool('fixture.echo', { text: 'x' }));
    assert.equal(refused.status, 503);
    assert.equal(refused.text, '{"error":"overloaded"}');
    assert.equal(refused.headers.get('retry-after'), '1');
    hangUp.abort();
    assert.equal(await first, 'cancelled');
    await until(() => capped.service.inFlight() === 0, 'the cancelled call');
    assert.equal((await capped.invoke(tool('fixture.echo', { text: 'x' }))).status, 200, 'the slot is free again');
  } finally {
    await capped.service.stop(100);
  }

  // Any number from 0 up, compared as TypeScript compares `inFlight >= maxConcurrency`: 0
  // refuses every call, 1.5 admits two, 2 ** 32 and Infinity are no cap (never wrapped).
  for (const [maxConcurrency, admitted] of [[0, 0], [1.5, 2], [2 ** 32, 3], [Infinity, 3]]) {
    const run = await started({ maxConcurrency });
    const hangUpAll = new AbortController();
    try {
      const answered = [];
      const calls = [1, 2, 3].map(() => holding(run, hangUpAll.signal).then((a) => a !== 'cancelled' && answered.push(a)));
      const what = `maxConcurrency ${maxConcurrency}`;
      await until(() => answered.length === 3 - admitted && run.service.inFlight() === admitted, what);
      assert.ok(answered.every((a) => a.status === 503 && a.text === '{"error":"overloaded"}'), what);
      hangUpAll.abort();
      await Promise.all(calls);
      assert.equal(answered.length, 3 - admitted, what);
    } finally {
      await run.service.stop(100);
    }
  }
  for (const bad of [-1, Number.NaN, '4', null]) {
    assert.throws(() => createPackService({ index: fixtureIndex, resolveModule: (p) => p, token: TOKEN, maxConcurrency: bad }), { code: 'invalid-argument' });
  }
  // Other options of the wrong type: invalid-argument naming the option, not napi's words.
  for (const [name, bad, message] of [
    ['envCheck', 'loose', `options.envCheck must be 'strict' or 'warn', not "loose"`],
    ['envCheck', 5, `options.envCheck must be 'strict' or 'warn', not a number`],
    ['tenantId', 5, 'options.tenantId must be a string, not a number'],
    ['indexHash', {}, 'options.indexHash must be a string, not an object'],
  ]) {
    assert.throws(() => createPackService({ index: fixtureIndex, resolveModule: (p) => p, token: TOKEN, [name]: bad }), { code: 'invalid-argument', message });
  }

  const index = { ...fixtureIndex, env: { required: ['NEEDED'] } };
  const missing = await started({ index });
  try {
    assert.equal(missing.service.ready(), false);
    const ready = await fetch(missing.url('/readyz'));
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { error: 'missing env', missingEnv: ['NEEDED'] });
    assert.deepEqual(missing.events[0], { kind: 'missing-env', check: 'strict', names: ['NEEDED'] });
  } finally {
    await missing.service.stop(100);
  }

  const pinned = await started({ tenantId: 't1' });
  try {
    const none = await pinned.invoke(tool('fixture.echo', { text: 'x' }));
    assert.equal(none.status, 421);
    assert.equal(none.text, '{"code":"pack-tenant-mismatch"}');
    const other = await pinned.invoke({ ...tool('fixture.echo', { text: 'x' }), ctx: { ...ctx, tenantId: 't2' } }, { 'kindgi-tenant-id': 't1' });
    assert.equal(other.status, 421);
    const ok = await pinned.invoke(tool('fixture.echo', { text: 'x' }), { 'kindgi-tenant-id': 't1' });
    assert.equal(ok.status, 200);
  } finally {
    await pinned.service.stop(100);
  }
});

test('the cap counts calls waiting on their body or their handler, not on their turn: bursts of instant calls are served', async () => {
  // TypeScript runs a handler that answers at once in the turn that read its request, so such
  // calls never count against each other however many callers send them. Here they are read
  // in parallel and wait their turn for the JS thread: that wait must not count.
  const { createServer, request, Agent } = await import('node:http');
  const CALLERS = 48;
  const body = JSON.stringify(tool('fixture.echo', { text: 'hi' }));
  const burst = async (port) => {
    const agent = new Agent({ keepAlive: true, maxSockets: CALLERS });
    const once = () =>
      new Promise((done, fail) => {
        const req = request(
          { agent, port, host: '127.0.0.1', method: 'POST', path: '/v1/invoke', headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (text += c)).on('end', () => done(`${res.statusCode} ${text}`));
          },
        );
        req.on('error', fail);
        req.end(body);
      });
    try {
      const statuses = new Map();
      const caller = async () => {
        for (let i = 0; i < 5; i += 1) {
          const answer = await once();
          statuses.set(answer, (statuses.get(answer) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: CALLERS }, caller));
      return Object.fromEntries(statuses);
    } finally {
      agent.destroy();
    }
  };
  const served = { '200 {"v":2,"kind":"result","output":{"text":"hi","n":1}}': CALLERS * 5 };

  const listening = await started({ maxConcurrency: 8 });
  try {
    assert.deepEqual(await burst(new URL(listening.url('/')).port), served, 'served from Rust');
  } finally {
    await listening.service.stop(100);
  }
  const handled = createPackService({ index: fixtureIndex, resolveModule: (p) => resolve(packRoot, p), token: TOKEN, env: {}, maxConcurrency: 8 });
  assert.deepEqual(await handled.prewarm(), []);
  const server = createServer(handled.handle);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    assert.deepEqual(await burst(server.address().port), served, 'through handle');
  } finally {
    await handled.stop(100);
    await new Promise((r) => server.close(r));
  }
});

test('handle: a call whose body arrives after stop() is refused 503 draining, to retry: its handler never ran', { timeout: 30_000 }, async () => {
  const { createServer } = await import('node:http');
  const { connect } = await import('node:net');
  const service = createPackService({ index: fixtureIndex, resolveModule: (p) => resolve(packRoot, p), token: TOKEN, env: {} });
  await service.prewarm();
  const server = createServer(service.handle);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const body = JSON.stringify(tool('fixture.echo', { text: 'late' }));
    const socket = connect(server.address().port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (c) => (answer += c));
    const closed = new Promise((r) => socket.on('close', r));
    socket.write(`POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body.slice(0, 10)}`);
    await until(() => service.inFlight() === 1, 'the call to be admitted');
    await service.stop(0);
    socket.write(body.slice(10));
    await closed;
    assert.match(answer, /^HTTP\/1\.1 503 /);
    assert.match(answer, /\r\nretry-after: 1\r\n/i);
    assert.ok(answer.endsWith('\r\n\r\n{"error":"draining"}'), answer);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('PS 3, 4: /v1/info lists tools and checks in index order, not sorted', async () => {
  const any = { type: 'object' };
  const run = await started({
    index: {
      ...fixtureIndex,
      tools: [{ id: 'zeta', modulePath: 'z.mjs', input: any, output: any }, { id: 'alpha', version: '1', modulePath: 'a.mjs', input: any, output: any }],
      guardrails: [
        { id: 'g-last', checkId: 'z.check', checkModulePath: 'z.mjs', kind: 'zero-llm' },
        { id: 'a.check', checkModulePath: 'a.mjs', kind: 'zero-llm' },
      ],
    },
    importModule: async () => ({ default: () => ({}) }),
    resolveModule: (p) => p,
  });
  try {
    const info = await (await fetch(run.url('/v1/info'), { headers: { 'kindgi-pack-token': TOKEN } })).json();
    assert.deepEqual(info.tools, [{ id: 'zeta' }, { id: 'alpha', version: '1' }]);
    assert.deepEqual(info.checks, ['z.check', 'a.check']);
  } finally {
    await run.service.stop(100);
  }
});

test('a call naming no version runs its id\'s only entry, even one whose id@version key a later entry took', async () => {
  const any = { type: 'object' };
  const run = await started({
    index: { ...fixtureIndex, tools: [{ id: 'a@1', modulePath: 'at.mjs', input: any, output: any }, { id: 'a', version: '1', modulePath: 'a1.mjs', input: any, output: any }] },
    importModule: async (path) => ({ default: () => ({ from: path }) }),
    resolveModule: (p) => p,
  });
  try {
    const output = async (ref) => JSON.parse((await run.invoke(JSON.stringify({ v: 2, kind: 'invoke', tool: ref, input: {}, ctx: { tenantId: 't', runId: 'r' } }))).text).output;
    assert.deepEqual(await output({ id: 'a@1' }), { from: 'at.mjs' });
    assert.deepEqual(await output({ id: 'a' }), { from: 'a1.mjs' });
    assert.deepEqual(await output({ id: 'a', version: '1' }), { from: 'a1.mjs' });
  } finally {
    await run.service.stop(100);
  }
});

/**
 * Runs an ES module script in its own process: its exit code, its stdout, and when it exited.
 * A process still there after 20 s (one that never exits by itself) is killed, and the code
 * says so.
 */
async function runScript(script) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const stuck = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise((r) => child.on('exit', (exitCode, signal) => r(signal === 'SIGKILL' ? 'still running after 20 s' : exitCode)));
  clearTimeout(stuck);
  return { code, out, exitedAt: Date.now() };
}

test('a process exits within a second of stop(), even with a handler that never settles', async () => {
  const script = `
    import { createPackService } from ${JSON.stringify(new URL('../lib/pack-service.js', import.meta.url).href)};
    const service = createPackService({
      index: { v: 1, packId: 'p', packVersion: '1', artifactVersion: 'a', tools: [{ id: 'hang', modulePath: 'hang.mjs', input: { type: 'object' } }], guardrails: [], agents: [], flows: [] },
      resolveModule: (p) => p, token: 't', env: {},
      importModule: async () => ({ default: () => new Promise(() => {}) }),
    });
    await service.prewarm();
    const port = await service.listen(0, '127.0.0.1');
    fetch('http://127.0.0.1:' + port + '/v1/invoke', { method: 'POST', headers: { 'content-type': 'application/json', 'kindgi-pack-token': 't' },
      body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'hang' }, input: {}, ctx: { tenantId: 't', runId: 'r' } }) }).catch(() => {});
    while (service.inFlight() === 0) await new Promise((r) => setTimeout(r, 5));
    await service.stop(100);
    process.stdout.write(String(Date.now()));
  `;
  const { code, out, exitedAt } = await runScript(script);
  assert.equal(code, 0);
  assert.ok(exitedAt - Number(out) < 1000, `exited ${exitedAt - Number(out)} ms after stop()`);
});

test('a service its owner drops without stop() is collected; one that listens serves on', async () => {
  // Collected, as TypeScript's would be: made, prewarmed, served through handle, dropped.
  const script = `
    import { createServer } from 'node:http';
    import { setFlagsFromString } from 'node:v8';
    import { runInNewContext } from 'node:vm';
    import { createPackService } from ${JSON.stringify(new URL('../lib/pack-service.js', import.meta.url).href)};
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    const options = {
      index: { v: 1, packId: 'p', packVersion: '1', artifactVersion: 'a', tools: [{ id: 'echo', modulePath: 'echo.mjs', input: { type: 'object' }, output: { type: 'object' } }], guardrails: [], agents: [], flows: [] },
      resolveModule: (p) => p, token: 't', env: {},
      importModule: async () => ({ default: (input) => input }),
    };
    const invoke = (port) => fetch('http://127.0.0.1:' + port + '/v1/invoke', { method: 'POST', headers: { 'content-type': 'application/json', 'kindgi-pack-token': 't', connection: 'close' },
      body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'echo' }, input: { a: 1 }, ctx: { tenantId: 't', runId: 'r' } }) }).then((res) => res.text());
    let collected = 0;
    const registry = new FinalizationRegistry(() => (collected += 1));
    // In a function of its own, so that no frame of this one keeps a service.
    async function serveOnce(i) {
      // Its own importModule, which the service keeps as long as it lives.
      const importModule = async () => ({ default: (input) => input });
      const service = createPackService({ ...options, importModule });
      await service.prewarm();
      const server = createServer(service.handle);
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      if ((await invoke(server.address().port)) !== '{"v":2,"kind":"result","output":{"a":1}}') process.exit(2);
      await new Promise((r) => server.close(r));
      registry.register(importModule, i);
    }
    for (let i = 0; i < 10; i++) await serveOnce(i);
    // One listening, its owner keeping only the port: it serves on until stopped.
    async function listenOnly() {
      const service = createPackService(options);
      await service.prewarm();
      return service.listen(0, '127.0.0.1');
    }
    const port = await listenOnly();
    for (let i = 0; i < 50 && collected < 10; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 10));
    }
    const answer = await invoke(port);
    process.stdout.write(JSON.stringify({ collected, answer }));
    process.exit(0);
  `;
  const { code, out } = await runScript(script);
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(out), { collected: 10, answer: '{"v":2,"kind":"result","output":{"a":1}}' });
});

test('a service that never listens holds no process: served through handle, or never used', async () => {
  const script = `
    import { createServer } from 'node:http';
    import { createPackService } from ${JSON.stringify(new URL('../lib/pack-service.js', import.meta.url).href)};
    const options = {
      index: { v: 1, packId: 'p', packVersion: '1', artifactVersion: 'a', tools: [{ id: 'echo', modulePath: 'echo.mjs', input: { type: 'object' }, output: { type: 'object' } }], guardrails: [], agents: [], flows: [] },
      resolveModule: (p) => p, token: 't', env: {},
      importModule: async () => ({ default: (input) => input }),
    };
    createPackService(options);
    const service = createPackService(options);
    await service.prewarm();
    const server = createServer(service.handle);
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const res = await fetch('http://127.0.0.1:' + server.address().port + '/v1/invoke', { method: 'POST', headers: { 'content-type': 'application/json', 'kindgi-pack-token': 't', connection: 'close' },
      body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'echo' }, input: { a: 1 }, ctx: { tenantId: 't', runId: 'r' } }) });
    const text = await res.text();
    await new Promise((r) => server.close(r));
    // As in TypeScript, a grace that is not a number ends the wait at once.
    await service.drain();
    await service.stop(null);
    process.stdout.write(JSON.stringify({ text, at: Date.now() }));
  `;
  const { code, out, exitedAt } = await runScript(script);
  assert.equal(code, 0);
  const { text, at } = JSON.parse(out);
  assert.equal(text, '{"v":2,"kind":"result","output":{"a":1}}');
  assert.ok(exitedAt - at < 1000, `exited ${exitedAt - at} ms after its server closed`);
});

test('handle(req, res) serves the same answers from a caller-owned node:http server', async () => {
  const { createServer } = await import('node:http');
  const events = [];
  const service = createPackService({
    index: fixtureIndex,
    resolveModule: (p) => resolve(packRoot, p),
    token: TOKEN,
    env: {},
    logger: (e) => events.push(e),
    maxBodyBytes: 1024,
  });
  await service.prewarm();
  const server = createServer(service.handle);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const post = (body, headers = {}, signal) =>
    fetch(`${base}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal,
    });
  try {
    const echoed = await post(tool('fixture.echo', { text: 'hi' }));
    assert.equal(echoed.status, 200);
    assert.equal(await echoed.text(), '{"v":2,"kind":"result","output":{"text":"hi","n":1}}');
    assert.equal(echoed.headers.get('kindgi-artifact-version'), fixtureIndex.artifactVersion);
    assert.match(echoed.headers.get('kindgi-duration-ms'), /^\d+$/);

    const missing = await fetch(`${base}/nope?x=1`);
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), '{"error":"No route /nope?x=1"}');
    const wrongType = await post('{}', { 'content-type': 'text/plain' });
    assert.equal(wrongType.status, 415);
    const big = await post(JSON.stringify({ pad: 'x'.repeat(2000) }));
    assert.equal(big.status, 413);
    assert.equal(await big.text(), '{"error":"Request body too large"}');

    const late = await post(tool('fixture.sleep', { ms: 5000 }), { 'kindgi-timeout-ms': '30' });
    assert.equal(JSON.parse(await late.text()).code, 'deadline-exceeded');

    const hangUp = new AbortController();
    const pending = post(tool('fixture.sleep', { ms: 5000 }), {}, hangUp.signal).catch((e) => e);
    await until(() => service.inFlight() === 1, 'the call to start');
    hangUp.abort();
    await pending;
    await until(() => events.some((e) => e.kind === 'call' && e.outcome === 'cancelled'), 'the cancelled call');
    await until(() => service.inFlight() === 0, 'the call to end');
  } finally {
    await service.stop(100);
    await new Promise((r) => server.close(r));
  }
});

test('validators are compiled when the service is made, so no call compiles one', async () => {
  let reads = 0;
  let handled = 0;
  const input = { properties: { text: { type: 'string' } } };
  Object.defineProperty(input, 'type', {
    enumerable: true,
    get() {
      reads += 1;
      return 'object';
    },
  });
  const index = {
    ...fixtureIndex,
    tools: [{ id: 'counted', modulePath: 'counted.mjs', input, output: { type: 'object' } }],
    guardrails: [],
  };
  const service = createPackService({
    index,
    resolveModule: (p) => p,
    token: TOKEN,
    env: {},
    importModule: async () => ({
      default: (i) => {
        handled += 1;
        return i;
      },
    }),
  });
  assert.equal(reads, 1, 'the index was read once, to hand it to Rust');
  await service.prewarm();
  // Prewarm's warm-up call goes through the dispatcher without running pack code.
  assert.equal(handled, 0);
  const port = await service.listen(0, '127.0.0.1');
  try {
    const answered = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
      body: JSON.stringify(tool('counted', { text: 'x' })),
    });
    assert.equal(await answered.text(), '{"v":2,"kind":"result","output":{"text":"x"}}');
    assert.equal(reads, 1, 'the call reused the compiled validator');
    assert.equal(handled, 1);
  } finally {
    await service.stop(100);
  }
});

test('listen(port, host): every interface without a host; a taken port, a bad argument and a second listen are refused', async (t) => {
  const make = () => createPackService({ index: fixtureIndex, resolveModule: (p) => resolve(packRoot, p), token: TOKEN, env: {} });
  const service = make();
  t.after(() => service.stop(0));
  // '' is Node's "no host": every interface, IPv4 callers included.
  const port = await service.listen(0, '');
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  await assert.rejects(service.listen(0, '127.0.0.1'), { code: 'listen-failed', message: 'The pack service is already listening' });

  const other = make();
  t.after(() => other.stop(0));
  await assert.rejects(other.listen(port, '127.0.0.1'), {
    code: 'listen-failed',
    message: `listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
  });
  for (const [badPort, host] of [[-1, undefined], [65536, undefined], [1.5, undefined], ['80', undefined], [0, 42]]) {
    await assert.rejects(other.listen(badPort, host), { code: 'invalid-argument' }, `${badPort} ${host}`);
  }
});
