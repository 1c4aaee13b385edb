// createPackServiceSupervisor with real children (this package's kindgi-pack-service): the
// front and its probes, forwarding, a swap with a call in flight, a failed boot that keeps the
// old child, a crash mid-call (502, then a restart), restarts given up on, raw requests
// answered through the front as the child answers them, the relay without HTTP, bad options,
// and a process that exits after close().
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { frontClient } from './helpers/front-client.mjs';
import { processesNaming } from './helpers/processes.mjs';
import { comparable, exchange, sameAnswers } from './helpers/raw-exchange.mjs';
import { randomCases, rng, sendRandomRequests } from './helpers/random-requests.mjs';
import { until } from './helpers/until.mjs';
import { packFolder } from './helpers/local-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-service.mjs');
const packRoot = join(here, 'fixtures', 'js-pack');
const jsIndex = JSON.parse(readFileSync(join(packRoot, 'index.json'), 'utf8'));
const command = [process.execPath, bin];
const env = async () => ({ PATH: process.env.PATH ?? '' });

/** The js-pack index under another artifact version (same modules), and a pack whose tool exits its process. */
function packs() {
  const dir = packFolder('kindgi-sup-');
  const v2 = join(dir, 'v2.json');
  writeFileSync(v2, JSON.stringify({ ...jsIndex, artifactVersion: '20260202.2' }));
  const crashRoot = packFolder('kindgi-crash-');
  writeFileSync(join(crashRoot, 'crash.mjs'), 'export default () => { process.exit(3); };\n');
  writeFileSync(join(crashRoot, 'ok.mjs'), 'export default (input) => input;\n');
  writeFileSync(join(crashRoot, 'pid.mjs'), 'export default () => ({ pid: process.pid });\n');
  writeFileSync(join(crashRoot, 'sigint.mjs'), "export default () => { process.kill(process.pid, 'SIGINT'); return new Promise(() => {}); };\n");
  writeFileSync(join(crashRoot, 'sigkill.mjs'), "export default () => { process.kill(process.pid, 'SIGKILL'); return new Promise(() => {}); };\n");
  const any = { type: 'object' };
  const crashIndex = join(crashRoot, 'index.json');
  writeFileSync(
    crashIndex,
    JSON.stringify({
      v: 1, packId: 'crash', packVersion: '1.0.0', artifactVersion: '1', agents: [], flows: [], guardrails: [],
      tools: [
        { id: 'crash.exit', modulePath: 'crash.mjs', input: any, output: any },
        { id: 'crash.ok', modulePath: 'ok.mjs', input: any, output: any },
        { id: 'crash.pid', modulePath: 'pid.mjs', input: any, output: any },
        { id: 'crash.sigint', modulePath: 'sigint.mjs', input: any, output: any },
        { id: 'crash.sigkill', modulePath: 'sigkill.mjs', input: any, output: any },
      ],
    }),
  );
  return { v2, crashRoot, crashIndex };
}

test('the front forwards to the serving child; a swap keeps the URL and finishes the call in flight; a failed boot keeps the old child', async () => {
  const { v2 } = packs();
  const events = [];
  const logs = [];
  const sup = createPackServiceSupervisor({ command, moduleRoot: packRoot, env, onEvent: (e) => events.push(e), onLog: (line, stream) => logs.push([stream, line]) });
  try {
    const front = await sup.listen();
    assert.deepEqual(await sup.listen(), front, 'listen is idempotent');
    assert.notEqual(await sup.listen(), front, 'each listen() gives its own object, as in TypeScript');
    const call = frontClient(front, sup.token);
    assert.equal((await call.get('/healthz')).status, 200);
    const none = await call.get('/readyz');
    assert.deepEqual([none.status, none.text, none.headers.get('retry-after')], [503, '{"error":"no pack service"}', '1']);
    assert.equal((await call.invoke('fixture.echo', { text: 'hi' })).status, 503);

    const started = await sup.start(join(packRoot, 'index.json'));
    assert.equal(started.kind, 'ok');
    assert.deepEqual(events.find((e) => e.kind === 'started'), { kind: 'started', port: started.value.port, indexPath: join(packRoot, 'index.json') });
    assert.equal((await call.get('/readyz')).status, 200);
    const echoed = await call.invoke('fixture.echo', { text: 'hi' });
    assert.equal(echoed.status, 200);
    assert.equal(echoed.text, '{"v":2,"kind":"result","output":{"text":"hi","n":1}}');
    assert.equal(echoed.headers.get('kindgi-artifact-version'), '20260101.1');
    const info = await call.get('/v1/info');
    assert.equal(JSON.parse(info.text).packId, 'fixture');

    // A swap with a call in flight: the old child finishes it, the next call runs the new one.
    const inFlight = call.invoke('fixture.sleep', { ms: 400 });
    await new Promise((r) => setTimeout(r, 100));
    const swapped = await sup.start(v2);
    assert.equal(swapped.kind, 'ok');
    const finished = await inFlight;
    assert.equal(finished.status, 200);
    assert.equal(finished.headers.get('kindgi-artifact-version'), '20260101.1');
    assert.equal((await call.invoke('fixture.echo', { text: 'x' })).headers.get('kindgi-artifact-version'), '20260202.2');

    // A boot that fails leaves the serving child in place.
    const failed = await sup.start(join(tmpdir(), 'no-such-index.json'));
    assert.equal(failed.kind, 'err');
    assert.match(failed.error.problems[0], /Cannot read the pack index/);
    assert.deepEqual(events.filter((e) => e.kind === 'boot-failed').map((e) => e.problems), [failed.error.problems]);
    assert.equal((await call.invoke('fixture.echo', { text: 'still' })).headers.get('kindgi-artifact-version'), '20260202.2');
    // The children's records arrive as log events, and the service's own call among them.
    await until(() => events.some((e) => e.kind === 'log' && e.event.kind === 'call'), 'a call record');
  } finally {
    await sup.close();
  }
});

test('a crash mid-call answers 502 and the child is restarted; a crash loop is given up on', async () => {
  const { crashRoot, crashIndex } = packs();
  const events = [];
  const sup = createPackServiceSupervisor({ command, moduleRoot: crashRoot, env, onEvent: (e) => events.push(e), maxRestarts: 1, restartDelayMs: 10 });
  try {
    const front = await sup.listen();
    const call = frontClient(front, sup.token);
    assert.equal((await sup.start(crashIndex)).kind, 'ok');
    const died = await call.invoke('crash.exit');
    assert.equal(died.status, 502);
    assert.match(JSON.parse(died.text).error, /^the pack service did not answer/);
    await until(() => events.filter((e) => e.kind === 'started').length === 2, 'the restart');
    assert.deepEqual(events.find((e) => e.kind === 'exited'), { kind: 'exited', code: 3, signal: null });
    assert.deepEqual(events.find((e) => e.kind === 'restarting'), { kind: 'restarting', attempt: 1 });
    assert.equal((await call.invoke('crash.ok', { a: 1 })).text, '{"v":2,"kind":"result","output":{"a":1}}');
    // Crashing again within the window: one restart was allowed, so it gives up.
    assert.equal((await call.invoke('crash.exit')).status, 502);
    await until(() => events.some((e) => e.kind === 'gave-up'), 'gave-up');
    assert.deepEqual(events.find((e) => e.kind === 'gave-up'), { kind: 'gave-up', attempts: 1 });
    const none = await call.invoke('crash.ok');
    assert.equal(none.status, 503);
    assert.equal(none.text, '{"error":"no pack service"}');
  } finally {
    await sup.close();
  }
});

test('random requests through the front get the answers the child gives, and the child lives', async () => {
  const events = [];
  const sup = createPackServiceSupervisor({ command, moduleRoot: packRoot, env, onEvent: (e) => events.push(e) });
  try {
    const front = await sup.listen();
    assert.equal((await sup.start(join(packRoot, 'index.json'))).kind, 'ok');
    const port = Number(new URL(front.url).port);
    const cases = randomCases(300);
    const statuses = await sendRandomRequests(port, sup.token, cases, 0x6b696e64676902);
    assert.ok((statuses.get(200) ?? 0) > cases / 3, JSON.stringify([...statuses]));
    assert.deepEqual(events.filter((e) => e.kind === 'exited' || e.kind === 'restarting'), [], 'the child never went');
    const after = await frontClient(front, sup.token).invoke('fixture.echo', { text: 'hi' });
    assert.equal(after.text, '{"v":2,"kind":"result","output":{"text":"hi","n":1}}');
  } finally {
    await sup.close();
  }
});

test('raw requests get the same answers through the front as from the child itself', async () => {
  // The seeded raw requests of pack-service-transport (odd methods, targets, versions,
  // headers, framing, Expect, pieces, a second request behind), each to the front and straight
  // to the child, which takes the same token: the front refuses what the child would refuse,
  // in the same words, and passes on the rest, whose answers come back as the child gave them.
  const sup = createPackServiceSupervisor({ command, moduleRoot: packRoot, env });
  try {
    const front = await sup.listen();
    const started = await sup.start(join(packRoot, 'index.json'));
    assert.equal(started.kind, 'ok');
    const r = rng(0x66726f6e74);
    const cases = randomCases(300);
    let forwarded = 0;
    await sameAnswers(r, cases, sup.token, front.port, started.value.port, (through) => {
      forwarded += through.out.filter((answer) => answer.headers.some(([name]) => name === 'kindgi-duration-ms')).length;
    });
    assert.ok(forwarded > cases / 10, `only ${forwarded} answers came from the child`);
    // An answer passed on has the headers the TypeScript front copies, in its order, then
    // the length; then Node's own, in hyper's case and with `date` last (docs/known-differences.md).
    const body = JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: { text: 'hi' }, ctx: { tenantId: 't', runId: 'r' } });
    const echo = `POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: ${sup.token}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    const [answer] = comparable(await exchange(front.port, [echo], 1), { inOrder: true }).answers;
    assert.deepEqual(answer.headers, [
      'content-type: application/json; charset=utf-8',
      'kindgi-artifact-version: 20260101.1',
      'kindgi-duration-ms:',
      'content-length: 52',
      'connection: keep-alive',
      'keep-alive: timeout=5',
      'date:',
    ]);
    // Node's header limits hold on the front as on the child: 100 extra headers and a 12 KiB
    // one are served, a head over Node's 16 KiB is refused 431.
    const extra = Array.from({ length: 100 }, (_, i) => `x-extra-${i}: v\r\n`).join('');
    for (const [lines, status] of [[extra, 200], [`x-big: ${'v'.repeat(12 * 1024)}\r\n`, 200], [`x-big: ${'v'.repeat(16 * 1024)}\r\n`, 431]]) {
      const bytes = echo.replace('host: x\r\n', `host: x\r\n${lines}`);
      const [through, direct] = await Promise.all([exchange(front.port, [bytes], 1), exchange(started.value.port, [bytes], 1)]);
      assert.deepEqual(comparable(through), comparable(direct), `${status}`);
      assert.equal(through.out[0]?.status, status);
    }
  } finally {
    await sup.close();
  }
});

test('the relay without HTTP: answer, unavailable and cancelled', async () => {
  const sup = createPackServiceSupervisor({ command, moduleRoot: packRoot, env });
  try {
    assert.equal(sup.relay.serving(), false);
    assert.deepEqual(await sup.relay.forward({ route: 'info' }), { kind: 'unavailable', reason: 'no pack service' });
    await sup.start(join(packRoot, 'index.json'));
    assert.equal(sup.relay.serving(), true);
    const body = JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: { text: 'r' }, ctx: { tenantId: 't', runId: 'r' } });
    const answer = await sup.relay.forward({ route: 'invoke', body, timeoutMs: 5000, runId: 'r' });
    assert.equal(answer.kind, 'answer');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['kindgi-artifact-version'], '20260101.1');
    // Values of other types are taken as the TypeScript relay's fetch takes them.
    const loose = await sup.relay.forward({ route: 'invoke', body: Buffer.from(body), timeoutMs: '5000', runId: 7 });
    assert.deepEqual([loose.kind, loose.status, loose.body], ['answer', 200, answer.body]);
    const controller = new AbortController();
    const slow = JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.sleep' }, input: { ms: 5000 }, ctx: { tenantId: 't', runId: 'r' } });
    const pending = sup.relay.forward({ route: 'invoke', body: slow, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    assert.deepEqual(await pending, { kind: 'cancelled' });
    assert.deepEqual(await sup.relay.forward({ route: 'info', signal: AbortSignal.abort() }), { kind: 'cancelled' });
    // A cancel right after the call starts, before its native side runs, is not lost.
    const atOnce = new AbortController();
    const cancelledAtOnce = sup.relay.forward({ route: 'invoke', body: slow, signal: atOnce.signal });
    atOnce.abort();
    assert.deepEqual(await cancelledAtOnce, { kind: 'cancelled' });
  } finally {
    await sup.close();
  }
});

test('calls made without pause through swaps are all answered, by the old child or the new', async () => {
  const { v2 } = packs();
  const sup = createPackServiceSupervisor({ command, moduleRoot: packRoot, env });
  try {
    const front = await sup.listen();
    const v1 = join(packRoot, 'index.json');
    assert.equal((await sup.start(v1)).kind, 'ok');
    const { invoke } = frontClient(front, sup.token);
    let swapping = true;
    const answers = [];
    // A call that chose the old child as a swap began must not meet it draining (503) or gone
    // (502): the old child is retired once the calls that chose it are done.
    const caller = async () => {
      while (swapping) {
        const answer = await invoke('fixture.echo', { text: 'hi' });
        answers.push(answer.status === 200 ? answer.headers.get('kindgi-artifact-version') : `${answer.status} ${answer.text}`);
      }
    };
    const callers = Array.from({ length: 16 }, caller);
    for (let swap = 1; swap <= 12; swap += 1) assert.equal((await sup.start(swap % 2 ? v2 : v1)).kind, 'ok');
    swapping = false;
    await Promise.all(callers);
    assert.deepEqual(answers.filter((a) => !['20260101.1', '20260202.2'].includes(a)), []);
    assert.ok(answers.length > 100, `${answers.length} calls`);
  } finally {
    await sup.close();
  }
});

test('a child pinned to a tenant gets the caller\'s kindgi-tenant-id through the front and the relay (protocol 2.7.0)', async () => {
  const sup = createPackServiceSupervisor({ command, moduleRoot: packRoot, env: async () => ({ PATH: process.env.PATH ?? '', KINDGI_PACK_TENANT_ID: 't' }) });
  try {
    const front = await sup.listen();
    assert.equal((await sup.start(join(packRoot, 'index.json'))).kind, 'ok');
    const { get, invoke } = frontClient(front, sup.token);
    const pinned = await invoke('fixture.echo', { text: 'hi' }, { 'kindgi-tenant-id': 't' });
    assert.equal(pinned.status, 200);
    assert.deepEqual(JSON.parse(pinned.text).output, { text: 'hi', n: 1 });
    const other = await invoke('fixture.echo', { text: 'hi' }, { 'kindgi-tenant-id': 'u' });
    assert.deepEqual([other.status, other.text], [421, '{"code":"pack-tenant-mismatch"}']);
    assert.equal((await invoke('fixture.echo', { text: 'hi' })).status, 421);
    assert.equal((await get('/v1/info')).status, 421);

    const body = JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: { text: 'r' }, ctx: { tenantId: 't', runId: 'r' } });
    const relayed = await sup.relay.forward({ route: 'invoke', body, tenantId: 't' });
    assert.equal(relayed.kind === 'answer' && relayed.status, 200);
    const info = await sup.relay.forward({ route: 'info', tenantId: 't' });
    assert.equal(info.kind === 'answer' && info.status, 200);
    const unpinned = await sup.relay.forward({ route: 'invoke', body });
    assert.equal(unpinned.kind === 'answer' && unpinned.status, 421);
  } finally {
    await sup.close();
  }
});

test('onLog and onEvent that throw change nothing: the start resolves, calls are answered, close() ends it', async () => {
  const uncaught = [];
  const onUncaught = (error) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  const calls = { log: 0, event: 0 };
  const sup = createPackServiceSupervisor({
    command,
    moduleRoot: packRoot,
    env,
    onLog: () => {
      calls.log += 1;
      throw new Error('onLog threw');
    },
    onEvent: () => {
      calls.event += 1;
      throw new Error('onEvent threw');
    },
  });
  try {
    const front = await sup.listen();
    assert.equal((await sup.start(join(packRoot, 'index.json'))).kind, 'ok');
    // fixture.echo's handler writes nothing; its call record arrives as a `log` event.
    const answer = await frontClient(front, sup.token).invoke('fixture.echo', { text: 'hi' });
    assert.equal(answer.status, 200);
    await until(() => calls.event >= 2, 'the started event and the call record');
  } finally {
    await sup.close();
    process.off('uncaughtException', onUncaught);
  }
  assert.deepEqual(uncaught, []);
});

test('a command that cannot be started fails its start in the words of Node\'s spawn', async () => {
  const dir = packFolder('kindgi-unstartable-');
  const notExecutable = join(dir, 'not-executable');
  writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
  for (const program of [join(dir, 'missing'), notExecutable]) {
    const nodeSays = await new Promise((resolve) => spawn(program, [], { env: {} }).on('error', (e) => resolve(e.message)));
    const events = [];
    const sup = createPackServiceSupervisor({ command: [program], moduleRoot: packRoot, env, onEvent: (e) => events.push(e) });
    try {
      assert.deepEqual(await sup.start(join(packRoot, 'index.json')), { kind: 'err', error: { problems: [nodeSays] } });
      assert.deepEqual(events, [{ kind: 'boot-failed', problems: [nodeSays] }]);
    } finally {
      await sup.close();
    }
  }
});

test('bad options throw invalid-argument with a clear message', () => {
  const base = { command, moduleRoot: packRoot, env };
  const refused = (options, message) =>
    assert.throws(() => createPackServiceSupervisor({ ...base, ...options }), (e) => e.code === 'invalid-argument' && message.test(e.message));
  refused({ token: 'short' }, /^A pack service token is at least 32 URL-safe base64 characters\.$/);
  refused({ token: 'x'.repeat(31) + '!' }, /URL-safe/);
  refused({ token: 'a'.repeat(31) }, /^A pack service token is at least 32 URL-safe base64 characters\.$/);
  refused({ token: `${'a'.repeat(40)}+/` }, /^A pack service token is at least 32 URL-safe base64 characters\.$/);
  refused({ command: [] }, /options\.command/);
  refused({ command: [''] }, /options\.command/);
  refused({ moduleRoot: join(tmpdir(), 'no-such-folder-kindgi') }, /is not a folder/);
  refused({ env: undefined }, /options\.env/);
  refused({ host: 5 }, /^options\.host must be a string, not a number$/);
  refused({ cwd: {} }, /^options\.cwd must be a string, not an object$/);
  assert.equal(createPackServiceSupervisor({ ...base, token: 'A'.repeat(32) }).token, 'A'.repeat(32));
  assert.match(createPackServiceSupervisor(base).token, /^[A-Za-z0-9_-]{32}$/);
});

/**
 * Runs an ES module script in a process of its own: its exit code (or the signal that ended
 * it) and its stdout. One that does not exit by itself within 30 s is killed (`SIGKILL`), so a
 * process kept alive fails its test rather than hanging the suite.
 */
async function runScript(script) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const stuck = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise((done) => child.on('exit', (exitCode, signal) => done(signal ?? exitCode)));
  clearTimeout(stuck);
  return { code, out };
}

test('a supervisor its owner drops is collected; one whose front listens serves on', async () => {
  const script = `
    import { setFlagsFromString } from 'node:v8';
    import { runInNewContext } from 'node:vm';
    import { createPackServiceSupervisor } from ${JSON.stringify(join(here, '..', 'lib', 'pack-service.js'))};
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    let collected = 0;
    const registry = new FinalizationRegistry(() => (collected += 1));
    // In functions of their own, so that no frame here keeps a supervisor.
    function makeOne(i) {
      // Its own env function, which the supervisor keeps as long as it lives.
      const env = async () => ({ PATH: process.env.PATH ?? '' });
      const sup = createPackServiceSupervisor({ command: ${JSON.stringify(command)}, moduleRoot: ${JSON.stringify(packRoot)}, env });
      void sup.relay.serving();
      registry.register(env, i);
    }
    async function listenOnly() {
      const sup = createPackServiceSupervisor({ command: ${JSON.stringify(command)}, moduleRoot: ${JSON.stringify(packRoot)}, env: async () => ({}) });
      return (await sup.listen()).url;
    }
    for (let i = 0; i < 10; i++) makeOne(i);
    const url = await listenOnly();
    for (let i = 0; i < 50 && collected < 10; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 10));
    }
    const healthz = (await fetch(url + '/healthz')).status;
    process.stdout.write(JSON.stringify({ collected, healthz }));
    process.exit(0);
  `;
  const { code, out } = await runScript(script);
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(out), { collected: 10, healthz: 200 });
});

test('a process exits by itself after close(), with its child gone', async () => {
  const script = `
    import { createPackServiceSupervisor } from ${JSON.stringify(join(here, '..', 'lib', 'pack-service.js'))};
    const sup = createPackServiceSupervisor({ command: ${JSON.stringify(command)}, moduleRoot: ${JSON.stringify(packRoot)}, env: async () => ({ PATH: process.env.PATH ?? '' }) });
    await sup.listen();
    const started = await sup.start(${JSON.stringify(join(packRoot, 'index.json'))});
    console.log(JSON.stringify({ port: started.value.port }));
    await sup.close();
    console.log('closed');
  `;
  const { code, out } = await runScript(script);
  assert.equal(code, 0);
  const [first, second] = out.trim().split('\n');
  assert.equal(second, 'closed');
  // The retired child is gone: its port refuses connections.
  const { port } = JSON.parse(first);
  await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
});

for (const [how, ending] of [
  ['is SIGKILLed', "process.kill(process.pid, 'SIGKILL');"],
  ['calls process.exit() without close()', 'process.exit(0);'],
]) {
  test(`a process that ${how} leaves no child behind (Linux)`, { skip: process.platform !== 'linux' }, async () => {
    // A copy of the index in a folder of its own, so this child can be told apart.
    const dir = packFolder('kindgi-sup-dies-');
    const index = join(dir, 'index.json');
    writeFileSync(index, JSON.stringify(jsIndex));
    const script = `
      import { createPackServiceSupervisor } from ${JSON.stringify(join(here, '..', 'lib', 'pack-service.js'))};
      const sup = createPackServiceSupervisor({ command: ${JSON.stringify(command)}, moduleRoot: ${JSON.stringify(packRoot)}, env: async () => ({ PATH: process.env.PATH ?? '' }) });
      await sup.listen();
      const started = await sup.start(${JSON.stringify(index)});
      if (started.kind !== 'ok') process.exit(2);
      ${ending}
    `;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit'] });
    const [code, signal] = await new Promise((done) => parent.on('exit', (c, s) => done([c, s])));
    assert.notEqual(code, 2, 'the child booted');
    assert.ok(code === 0 || signal === 'SIGKILL', `${code} ${signal}`);
    await until(() => processesNaming(dir).length === 0, 'the orphaned child to end');
  });
}

test('close() while a start() is still booting its child kills that child before it resolves', async () => {
  // A pack in a folder of its own, so the booting child can be told apart, whose module takes
  // seconds to load: the child is still booting when close() comes, however fast the machine.
  const dir = packFolder('kindgi-close-booting-');
  const index = join(dir, 'index.json');
  writeFileSync(join(dir, 'slow.mjs'), 'await new Promise((r) => setTimeout(r, 5000));\nexport default () => ({});\n');
  const any = { type: 'object' };
  writeFileSync(index, JSON.stringify({ v: 1, packId: 'slow', packVersion: '1', artifactVersion: '1', agents: [], flows: [], guardrails: [], tools: [{ id: 'slow', modulePath: 'slow.mjs', input: any, output: any }] }));
  const sup = createPackServiceSupervisor({ command, moduleRoot: dir, env });
  await sup.listen();
  const started = sup.start(index);
  await until(() => processesNaming(dir).length > 0, 'the child to run');
  await sup.close();
  assert.deepEqual(processesNaming(dir), [], 'no child outlives close()');
  assert.deepEqual(await started, { kind: 'err', error: { problems: ['The pack service is closing'] } });
});

test('a wrapper command that does not pass SIGTERM on leaves no service behind a swap, a boot timeout or close() (Linux)', { skip: process.platform !== 'linux' }, async () => {
  // The shell runs the service as its child and waits for it (the `; true` keeps it from
  // exec'ing), so a SIGTERM ends the shell alone. Each copy of the index sits in a folder of its
  // own, which both processes name on their command lines.
  const wrapped = (...argv) => ['/bin/sh', '-c', '"$@"; true', 'sh', ...argv];
  const copy = (prefix) => {
    const dir = packFolder(prefix);
    writeFileSync(join(dir, 'index.json'), JSON.stringify(jsIndex));
    return dir;
  };
  const sup = createPackServiceSupervisor({ command: wrapped(...command), moduleRoot: packRoot, env });
  const first = copy('kindgi-wrap-a-');
  const second = copy('kindgi-wrap-b-');
  try {
    const front = await sup.listen();
    assert.equal((await sup.start(join(first, 'index.json'))).kind, 'ok');
    assert.equal(processesNaming(first).length, 2, 'the shell and its service');
    assert.equal((await sup.start(join(second, 'index.json'))).kind, 'ok');
    assert.deepEqual(processesNaming(first), [], 'the swap retired the service with its shell');
    const answer = await frontClient(front, sup.token).invoke('fixture.echo', { text: 'hi' });
    assert.deepEqual(JSON.parse(answer.text).output, { text: 'hi', n: 1 });
  } finally {
    await sup.close();
  }
  assert.deepEqual(processesNaming(second), [], 'close() retired the service with its shell');

  // A service that never listens, behind a shell, killed at the boot timeout.
  const hanging = packFolder('kindgi-wrap-hang-');
  writeFileSync(join(hanging, 'hang.mjs'), 'setInterval(() => {}, 1000);\n');
  const slow = createPackServiceSupervisor({ command: wrapped(process.execPath, join(hanging, 'hang.mjs')), moduleRoot: packRoot, env, bootTimeoutMs: 1500 });
  try {
    const started = slow.start(join(first, 'index.json'));
    await until(() => processesNaming(hanging).length === 2, 'the shell and the hanging process to run');
    assert.equal((await started).kind, 'err');
    assert.deepEqual(processesNaming(hanging), [], 'the boot timeout killed both');
  } finally {
    await slow.close();
  }
});

test('a pack that writes bytes that are not UTF-8 while it loads still boots, its lines read as readline reads them', async () => {
  const root = packFolder('kindgi-noisy-');
  writeFileSync(join(root, 'noisy.mjs'), "process.stderr.write(Buffer.from('caf\\xe9\\nx\\ry\\n', 'latin1'));\nexport default (input) => input;\n");
  const index = join(root, 'index.json');
  writeFileSync(index, JSON.stringify({
    v: 1, packId: 'noisy', packVersion: '1.0.0', artifactVersion: '1', agents: [], flows: [], guardrails: [],
    tools: [{ id: 'noisy', modulePath: 'noisy.mjs', input: { type: 'object' }, output: { type: 'object' } }],
  }));
  const logs = [];
  const sup = createPackServiceSupervisor({ command, moduleRoot: root, env, onLog: (line, stream) => logs.push([stream, line]) });
  try {
    await sup.listen();
    assert.equal((await sup.start(index)).kind, 'ok');
    assert.deepEqual(logs.filter(([stream]) => stream === 'stderr'), [['stderr', 'caf\uFFFD'], ['stderr', 'x'], ['stderr', 'y']]);
  } finally {
    await sup.close();
  }
});

test('SUP 108, 119: traceparent reaches the child; a new supervisor on the old token and port keeps the URL', async () => {
  const events = [];
  const first = createPackServiceSupervisor({ command, moduleRoot: packRoot, env, onEvent: (e) => events.push(e) });
  const front = await first.listen();
  await first.start(join(packRoot, 'index.json'));
  const trace = '0af7651916cd43dd8448eb211c80319c';
  const res = await frontClient(front, first.token).invoke('fixture.echo', { text: 't' }, { traceparent: `00-${trace}-b7ad6b7169203331-01` });
  assert.equal(res.status, 200);
  await until(() => events.some((e) => e.kind === 'log' && e.event.kind === 'call'), 'the call record');
  assert.equal(events.find((e) => e.kind === 'log' && e.event.kind === 'call').event.traceId, trace);
  await first.close();
  const second = createPackServiceSupervisor({ command, moduleRoot: packRoot, env, token: first.token, port: front.port });
  try {
    assert.deepEqual(await second.listen(), front);
    await second.start(join(packRoot, 'index.json'));
    assert.equal((await frontClient(front, first.token).invoke('fixture.echo', { text: 'again' })).status, 200);
  } finally {
    await second.close();
  }
});

test('SUP 112-115: SIGINT waits for beginClose before it is a crash; SIGKILL is a crash at once', async () => {
  const { crashRoot, crashIndex } = packs();
  const run = async (tool, afterDeath) => {
    const events = [];
    const sup = createPackServiceSupervisor({ command, moduleRoot: crashRoot, env, onEvent: (e) => events.push(e), restartDelayMs: 10 });
    const front = await sup.listen();
    await sup.start(crashIndex);
    const died = await frontClient(front, sup.token).invoke(tool);
    assert.equal(died.status, 502);
    await afterDeath(sup, events);
    await sup.close();
    return events.map((e) => e.kind).filter((k) => k !== 'log');
  };
  // 112-113: beginClose in the same turn as a SIGINT death (a terminal's Ctrl+C reaches both),
  // before or after it: no crash, no restart, and no new start.
  for (const closeFirst of [false, true]) {
    const events = [];
    const sup = createPackServiceSupervisor({ command, moduleRoot: crashRoot, env, onEvent: (e) => events.push(e), restartDelayMs: 10 });
    try {
      const front = await sup.listen();
      await sup.start(crashIndex);
      const { output } = JSON.parse((await frontClient(front, sup.token).invoke('crash.pid')).text);
      if (closeFirst) sup.beginClose();
      process.kill(output.pid, 'SIGINT');
      if (!closeFirst) sup.beginClose();
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await sup.start(crashIndex), { kind: 'err', error: { problems: ['The pack service is closing'] } });
    } finally {
      await sup.close();
    }
    assert.deepEqual(events.map((e) => e.kind).filter((k) => k !== 'log'), ['started'], `beginClose ${closeFirst ? 'before' : 'after'} the SIGINT`);
  }
  // 114: a SIGINT death with nobody stopping is a crash, then a restart.
  let sigint;
  await run('crash.sigint', async (_sup, events) => {
    await until(() => events.filter((e) => e.kind === 'started').length === 2, 'the restart');
    sigint = events.find((e) => e.kind === 'exited');
  });
  assert.deepEqual(sigint, { kind: 'exited', code: null, signal: 'SIGINT' });
  // 115: SIGKILL is a crash as soon as it is seen.
  let sigkill;
  await run('crash.sigkill', async (_sup, events) => {
    await until(() => events.some((e) => e.kind === 'exited'), 'the exit');
    sigkill = events.find((e) => e.kind === 'exited');
  });
  assert.deepEqual(sigkill, { kind: 'exited', code: null, signal: 'SIGKILL' });
});

test('SUP 123: a 6 s call during a swap is not cut off: the old child drains it before it is killed', async () => {
  const { v2 } = packs();
  const sup = createPackServiceSupervisor({ command, moduleRoot: packRoot, env });
  try {
    const front = await sup.listen();
    await sup.start(join(packRoot, 'index.json'));
    const call = frontClient(front, sup.token);
    const long = call.invoke('fixture.sleep', { ms: 6000 });
    await new Promise((r) => setTimeout(r, 200));
    const swapped = await sup.start(v2);
    assert.equal(swapped.kind, 'ok');
    const answered = await long;
    assert.equal(answered.status, 200);
    assert.equal(answered.text, '{"v":2,"kind":"result","output":{"slept":6000}}');
  } finally {
    await sup.close();
  }
});
