// Records (ts-reference section 7, REC 56-70): the `@kindgi/log` lines the pack service writes
// from Rust (calls, ctx.log, the lifecycle), the handler context's hidden `secrets` and `log`,
// the levels and formats, and a JS `log` that gets the same records with the call's bindings.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackService, packServiceLogs, startPackService } from '../lib/pack-service.js';
import { onLines } from './helpers/lines.mjs';
import { localCall, packFolder, writeLocalPack } from './helpers/local-pack.mjs';
import { until } from './helpers/until.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-service.mjs');
const packRoot = join(here, 'fixtures', 'records-pack');
const indexPath = join(packRoot, 'index.json');
const index = JSON.parse(readFileSync(indexPath, 'utf8'));
const TOKEN = 'records-token';
const SECRET = 'sk-live-0123456789abcdef';
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';
const ctx = { tenantId: 't1', runId: 'r1', requestId: 'q1', secrets: { API_KEY: SECRET } };

/** Spawns the process with a clean environment; collects its stderr lines. */
function launch(env = {}) {
  const child = spawn(process.execPath, [bin, '--index', indexPath], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = [];
  const exited = new Promise((done) => child.on('exit', (code) => done(code)));
  onLines(child.stderr, (line) => lines.push(line));
  return { child, lines, exited };
}

const records = (lines) => lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));

async function portOf(proc) {
  await until(() => records(proc.lines).some((r) => r.kind === 'listening'), 'listening');
  return records(proc.lines).find((r) => r.kind === 'listening').port;
}

function callLogs(port, body = {}, headers = {}) {
  return fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'kindgi-pack-token': TOKEN,
      traceparent: `00-${TRACE}-${PARENT}-01`,
      ...headers,
    },
    body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'acme.logs' }, input: body, ctx }),
  });
}

test('REC 56-65: lifecycle, call and ctx.log records; the context hides secrets and log', async () => {
  const proc = launch();
  const port = await portOf(proc);
  const listening = records(proc.lines).find((r) => r.kind === 'listening');
  // 56
  assert.deepEqual(Object.keys(listening), [
    'time', 'level', 'severity', 'subsystem', 'message', 'port', 'packId', 'artifactVersion', 'event', 'kind',
  ]);
  assert.equal(listening.level, 'info');
  assert.equal(listening.severity, 'INFO');
  assert.equal(listening.subsystem, 'pack');
  assert.equal(listening.message, `Listening on port ${port}`);
  assert.equal(listening.packId, 'acme');
  assert.equal(listening.artifactVersion, '20260301.1');
  assert.match(listening.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const res = await callLogs(port);
  assert.equal(res.status, 200);
  const answer = await res.json();
  // 61-64
  assert.equal(answer.output.logIsLogger, true);
  assert.deepEqual(answer.output.spreadKeys, ['abortSignal', 'requestId', 'runId', 'tenantId']);
  assert.ok(!answer.output.json.includes('secrets') && !answer.output.json.includes(SECRET));
  assert.equal(answer.output.secretRead, SECRET);

  await until(() => records(proc.lines).some((r) => r.kind === 'call'), 'the call record');
  const call = records(proc.lines).find((r) => r.kind === 'call');
  // 57-59
  assert.deepEqual(Object.keys(call), [
    'time', 'level', 'severity', 'subsystem', 'message', 'traceId', 'spanId', 'requestId', 'tenantId', 'runId',
    'toolId', 'packId', 'artifactVersion', 'target', 'event', 'kind', 'id', 'outcome', 'durationMs', 'inMessage',
  ]);
  assert.equal(call.level, 'info');
  assert.equal(call.subsystem, 'pack');
  assert.equal(call.traceId, TRACE);
  assert.match(call.spanId, /^[0-9a-f]{16}$/);
  assert.notEqual(call.spanId, PARENT);
  assert.equal(call.target, 'tool');
  assert.equal(call.toolId, 'acme.logs');
  assert.equal(call.requestId, 'q1');
  assert.equal(call.tenantId, 't1');
  assert.equal(call.runId, 'r1');
  assert.equal(call.packId, 'acme');
  assert.equal(call.artifactVersion, '20260301.1');
  assert.equal(call.outcome, 'ok');
  assert.match(call.message, /^tool acme\.logs ok \d+ms$/);
  assert.deepEqual(call.inMessage, ['target', 'id', 'outcome', 'durationMs']);

  // 60: ctx.log, with the author's fields, the call's ids and trace, and no event.
  const own = records(proc.lines).find((r) => r.message === 'hello from the tool');
  assert.equal(own.subsystem, 'pack.tool');
  assert.equal(own.answer, 42);
  assert.equal(own.apiKey, '[redacted]');
  assert.equal(own.tenantId, 't1');
  assert.equal(own.runId, 'r1');
  assert.equal(own.traceId, TRACE);
  assert.equal(own.spanId, call.spanId);
  assert.equal(own.toolId, 'acme.logs');
  assert.equal(own.packId, 'acme');
  assert.equal(own.target, 'tool');
  assert.equal('event' in own, false);
  // An Error under `err` is serialised, without its stack below error level with debug off.
  assert.deepEqual(own.err, { name: 'Error', message: 'tool trouble' });
  // The call record (made into its line on the log's own thread) comes after the tool's own
  // line, and bears a time no earlier.
  const all = records(proc.lines);
  assert.ok(all.findIndex((r) => r.message === own.message) < all.findIndex((r) => r.kind === 'call'));
  assert.ok(Date.parse(own.time) <= Date.parse(call.time));
  // 65
  assert.ok(proc.lines.every((line) => !line.includes(SECRET)));

  proc.child.kill('SIGTERM');
  assert.equal(await proc.exited, 0);
  const tail = records(proc.lines).slice(-2).map((r) => [r.kind, r.message]);
  assert.deepEqual(tail, [
    ['draining', 'Draining: finishing the calls in flight'],
    ['stopped', 'Stopped'],
  ]);
});

test('REC 66-67, 69: levels filter calls, never the lifecycle; KINDGI_DEV keeps JSON; a bad level exits 1', async () => {
  const quiet = launch({ KINDGI_LOG_LEVEL: 'error', KINDGI_DEV: 'true' });
  const port = await portOf(quiet);
  assert.equal((await callLogs(port)).status, 200);
  quiet.child.kill('SIGTERM');
  assert.equal(await quiet.exited, 0);
  // 67: every line is JSON; 66: no call and no ctx.log record, the lifecycle all there.
  assert.ok(quiet.lines.every((line) => line.startsWith('{')));
  assert.deepEqual(
    records(quiet.lines).map((r) => r.kind ?? r.message),
    ['listening', 'draining', 'stopped'],
  );

  const debug = launch({ KINDGI_LOG_LEVELS: 'pack.tool=debug,pack=warn' });
  const debugPort = await portOf(debug);
  assert.equal((await callLogs(debugPort, { debug: true })).status, 200);
  await until(() => records(debug.lines).some((r) => r.message === 'a debug line'), 'the debug record');
  // pack=warn drops the ok call record; pack.tool=debug keeps the tool's debug line, and the
  // err field carries its stack now that debug is on.
  assert.equal(records(debug.lines).some((r) => r.kind === 'call'), false);
  const own = records(debug.lines).find((r) => r.message === 'hello from the tool');
  assert.match(own.err.stack, /^Error: tool trouble\n/);
  debug.child.kill('SIGTERM');
  assert.equal(await debug.exited, 0);

  // 69
  const loud = launch({ KINDGI_LOG_LEVEL: 'loud' });
  assert.equal(await loud.exited, 1);
  const [refusal] = records(loud.lines);
  assert.equal(refusal.kind, 'config-invalid');
  assert.equal(refusal.level, 'error');
  assert.match(refusal.message, /KINDGI_LOG_LEVEL/);
  assert.deepEqual(refusal.problems, [refusal.message]);
});

test('REC 68-70: pretty on a terminal, JSON otherwise; the settings and their refusals', async () => {
  const lines = [];
  const pretty = packServiceLogs({ env: {}, isTTY: true, write: (line) => lines.push(line) });
  assert.equal(pretty.kind, 'ok');
  pretty.logs.event('stopped', 'Stopped');
  pretty.logs.log.warn('two words', { kind: 'x y', n: 1 }, { inMessage: ['n'] });
  // Written before the calls return, as @kindgi/log writes.
  assert.equal(lines.length, 2);
  // 68: coloured, because a terminal without NO_COLOR
  assert.match(lines[0], /^\u001b\[2m\d\d:\d\d:\d\d\.\d{3}\u001b\[0m \u001b\[36mINFO \u001b\[0m \[pack\] Stopped event=stopped kind=stopped$/);
  assert.match(lines[1], /\u001b\[33mWARN \u001b\[0m \[pack\] two words kind="x y"$/);

  const plain = [];
  const noColor = packServiceLogs({ env: { NO_COLOR: '1', KINDGI_LOG_FORMAT: ' Pretty ' }, write: (l) => plain.push(l) });
  noColor.logs.event('boot-failed', 'The pack service failed to boot', { problems: ['a'] });
  assert.equal(plain.length, 1);
  assert.match(plain[0], /^\d\d:\d\d:\d\d\.\d{3} ERROR \[pack\] The pack service failed to boot problems=\["a"\] event=boot-failed kind=boot-failed$/);

  // 70, and the refusals with @kindgi/log's messages
  assert.deepEqual(packServiceLogs({ env: { KINDGI_LOG_LEVELS: 'billing=debug,pack=warn' } }).problems, []);
  assert.deepEqual(packServiceLogs({ env: { KINDGI_LOG_LEVEL: 'loud' } }), {
    kind: 'err',
    message: 'KINDGI_LOG_LEVEL must be one of error, warn, info, debug, trace, got "loud".',
  });
  assert.deepEqual(packServiceLogs({ env: { KINDGI_LOG_LEVELS: 'pack' } }), {
    kind: 'err',
    message: 'KINDGI_LOG_LEVELS: "pack" isn\'t subsystem=level (levels: error, warn, info, debug, trace).',
  });
  assert.deepEqual(packServiceLogs({ env: { KINDGI_LOG_FORMAT: 'xml' } }), {
    kind: 'err',
    message: 'KINDGI_LOG_FORMAT must be auto, json or pretty, got "xml".',
  });
});

test('a given write gets lifecycle and log lines before the call returns; levels filter all but the lifecycle', () => {
  const out = [];
  const built = packServiceLogs({ env: { KINDGI_LOG_LEVEL: 'error' }, write: (line) => out.push(line) });
  built.logs.log.info('below the level');
  built.logs.log.child({ subsystem: 'pack.tool' }).warn('below it too');
  built.logs.event('listening', 'Listening on port 1', { port: 1 });
  assert.deepEqual(out.map((line) => JSON.parse(line).kind), ['listening']);
  built.logs.log.child({ subsystem: 'pack.tool' }).error('at the level', { n: 1 });
  assert.deepEqual(out.map((line) => JSON.parse(line).message), ['Listening on port 1', 'at the level']);
  assert.equal(JSON.parse(out[1]).subsystem, 'pack.tool');

  // A field or binding holding a lone surrogate is written as JSON.stringify writes it.
  const cut = [];
  const cutLogs = packServiceLogs({ env: {}, write: (line) => cut.push(line) }).logs;
  cutLogs.log.child({ tag: 'x\udc00' }).info('cut', { s: 'a\ud800' });
  assert.ok(cut[0].includes('"s":"a\\ud800"') && cut[0].includes('"tag":"x\\udc00"'), cut[0]);
  assert.deepEqual([JSON.parse(cut[0]).s, JSON.parse(cut[0]).tag], ['a\ud800', 'x\udc00']);

  // A throwing write changes nothing for the caller, and later lines still reach it.
  let calls = 0;
  const failing = packServiceLogs({ env: {}, write: () => { calls += 1; throw new Error('sink down'); } });
  failing.logs.event('stopped', 'Stopped');
  failing.logs.log.info('still fine');
  assert.equal(calls, 2);
});

test('fields are merged, spread and redacted as @kindgi/log does it', () => {
  const out = [];
  const { log } = packServiceLogs({ env: {}, write: (line) => out.push(line) }).logs;
  const last = () => JSON.parse(out.at(-1));
  const rest = () => out.at(-1).slice(out.at(-1).indexOf(',"message"'));

  // An Error among the bindings is serialised at each record: with its stack at error level.
  const err = Object.assign(new Error('boom'), { code: 'E1' });
  const bound = log.child({ err });
  bound.warn('first');
  assert.deepEqual(last().err, { name: 'Error', message: 'boom', code: 'E1' });
  bound.error('second');
  assert.equal(last().err.stack, err.stack);
  bound.warn('third');
  assert.equal('stack' in last().err, false);

  // A field set to undefined hides the binding of that name, err included.
  const ids = log.child({ runId: 'r1', a: 1, err });
  ids.info('m', { runId: undefined, a: undefined, err: undefined, b: 2 });
  assert.equal(rest(), ',"message":"m","b":2}');
  ids.info('m', { a: 3 });
  assert.equal(last().a, 3);
  assert.equal(last().runId, 'r1');

  // A cycle is [circular]; other fields stay.
  const cyclic = { x: 1 };
  cyclic.self = cyclic;
  log.info('m', { c: cyclic, k: 1, twice: [cyclic, cyclic] });
  assert.equal(rest(), ',"message":"m","c":{"x":1,"self":"[circular]"},"k":1,"twice":[{"x":1,"self":"[circular]"},{"x":1,"self":"[circular]"}]}');

  // Fields that are a string or an array are spread by their indexes, which JSON lists first.
  log.info('m', 'ab');
  assert.ok(out.at(-1).startsWith('{"0":"a","1":"b","time":'), out.at(-1));
  log.info('m', ['x']);
  assert.ok(out.at(-1).startsWith('{"0":"x","time":'), out.at(-1));
  log.info('m', 5);
  assert.equal(rest(), ',"message":"m"}');

  // An own __proto__ member is never a key (an assignment in @kindgi/log), at any depth.
  log.info('m', JSON.parse('{"__proto__":1,"k":{"__proto__":{"x":1},"j":1}}'));
  assert.equal(rest(), ',"message":"m","k":{"j":1}}');

  // A message with a lone surrogate keeps it, as JSON.stringify writes it.
  log.info('m\ud800');
  assert.equal(rest(), ',"message":"m\\ud800"}');

  // Loggers are extensible, with @kindgi/log's keys in its order.
  assert.deepEqual(Object.keys(log), ['error', 'warn', 'info', 'debug', 'trace', 'child', 'isLevelEnabled']);
  assert.ok(Object.isExtensible(log.child({ a: 1 })));
});

test('ctx.log is extensible, with the keys of @kindgi/log in its order, with or without a log', async () => {
  const dir = packFolder();
  const indexFile = writeLocalPack(dir, {
    'shape.mjs': 'export default (_i, ctx) => { ctx.log.mine = 1; return { keys: Object.keys(ctx.log) }; };\n',
  });
  for (const log of [undefined, packServiceLogs({ env: {}, write: () => {} }).logs.log]) {
    const service = createPackService({
      index: JSON.parse(readFileSync(indexFile, 'utf8')),
      resolveModule: (p) => join(dir, p),
      token: TOKEN,
      env: {},
      log,
    });
    assert.deepEqual(await service.prewarm(), []);
    const port = await service.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
        body: localCall('shape'),
      });
      const { output } = JSON.parse(await res.text());
      assert.deepEqual(output.keys, ['error', 'warn', 'info', 'debug', 'trace', 'child', 'isLevelEnabled', 'mine'], `log ${log === undefined ? 'none' : 'native'}`);
    } finally {
      await service.stop(100);
    }
  }
});

test('startPackService writes records to given logs; a function logger gets events and no records', async (t) => {
  const lines = [];
  const built = packServiceLogs({ env: {}, write: (line) => lines.push(line) });
  const config = { indexPath, moduleRoot: packRoot, token: TOKEN, port: 0, host: '127.0.0.1' };
  const started = await startPackService(config, built.logs);
  assert.equal(started.kind, 'ok');
  t.after(() => started.value.stop(0));
  assert.equal((await callLogs(started.value.port, { fields: { note: 'Bearer abc.def' }, big: '1000' })).status, 200);
  // ctx.log wrote from the JS thread while the call ran: its line is there with the answer.
  const own = lines.map((l) => JSON.parse(l)).find((r) => r.message === 'hello from the tool');
  assert.notEqual(own, undefined);
  await until(() => lines.some((l) => l.includes('"kind":"call"')), 'the call record');
  assert.equal(own.note, 'Bearer [redacted]');
  assert.equal(own.big, '1000');
  await started.value.stop(1000);
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).kind).filter((k) => k !== undefined),
    ['listening', 'call'],
  );

  const events = [];
  const legacy = await startPackService({ ...config }, (e) => events.push(e));
  assert.equal(legacy.kind, 'ok');
  t.after(() => legacy.value.stop(0));
  assert.equal((await callLogs(legacy.value.port)).status, 200);
  await until(() => events.some((e) => e.kind === 'call'), 'the call event');
  await legacy.value.stop(1000);
  assert.deepEqual(events[0], { kind: 'listening', port: legacy.value.port, packId: 'acme', artifactVersion: '20260301.1' });
  assert.deepEqual(Object.keys(events[1]), ['kind', 'target', 'id', 'durationMs', 'outcome']);
});

test('a JavaScript log gets the call record and ctx.log through child loggers with the call bindings', async (t) => {
  const written = [];
  const fakeLog = (bindings) => {
    const write = (level) => (message, fields, how) => written.push({ level, message, bindings, fields, how });
    return {
      error: write('error'),
      warn: write('warn'),
      info: write('info'),
      debug: write('debug'),
      trace: write('trace'),
      child: (more) => fakeLog({ ...bindings, ...more }),
    };
  };
  const service = createPackService({
    index,
    resolveModule: (p) => resolve(packRoot, p),
    token: TOKEN,
    env: {},
    log: fakeLog({ packId: 'acme' }),
  });
  assert.deepEqual(await service.prewarm(), []);
  const port = await service.listen(0, '127.0.0.1');
  t.after(() => service.stop(0));
  assert.equal((await callLogs(port)).status, 200);
  await until(() => written.some((w) => w.fields?.kind === 'call'), 'the call record');
  await service.stop(1000);
  const own = written.find((w) => w.message === 'hello from the tool');
  assert.equal(own.bindings.subsystem, 'pack.tool');
  assert.equal(own.bindings.toolId, 'acme.logs');
  assert.equal(own.bindings.traceId, TRACE);
  const call = written.find((w) => w.fields?.kind === 'call');
  assert.equal(call.level, 'info');
  assert.match(call.message, /^tool acme\.logs ok \d+ms$/);
  assert.deepEqual(Object.keys(call.bindings), ['packId', 'tenantId', 'runId', 'requestId', 'traceId', 'spanId', 'target', 'toolId']);
  assert.equal(call.bindings.spanId, own.bindings.spanId);
  assert.deepEqual(call.how, { inMessage: ['target', 'id', 'outcome', 'durationMs'] });
});

test('missing env (several names) and a handler that finished late: their warn records, message and fields', async (t) => {
  const lines = [];
  const { logs } = packServiceLogs({ env: {}, write: (line) => lines.push(line) });
  const conformanceRoot = join(here, 'fixtures', 'js-pack-conformance');
  const conformanceIndex = JSON.parse(readFileSync(join(conformanceRoot, 'index.json'), 'utf8'));
  const service = createPackService({
    index: { ...conformanceIndex, env: { required: ['A_URL', 'B_URL'], optional: [] } },
    resolveModule: (p) => resolve(conformanceRoot, p),
    token: TOKEN,
    env: { A_URL: '' },
    envCheck: 'warn',
    log: logs.log,
  });
  t.after(() => service.stop(0));
  const missing = lines.map((l) => JSON.parse(l)).find((r) => r.kind === 'missing-env');
  assert.equal(missing.level, 'warn');
  assert.equal(missing.message, "The pack's env.required names have no value: A_URL, B_URL");
  assert.deepEqual(
    { event: missing.event, kind: missing.kind, check: missing.check, names: missing.names },
    { event: 'missing-env', kind: 'missing-env', check: 'warn', names: ['A_URL', 'B_URL'] },
  );

  assert.deepEqual(await service.prewarm(), []);
  const port = await service.listen(0, '127.0.0.1');
  const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN, 'kindgi-timeout-ms': '20' },
    body: JSON.stringify({ v: 2, kind: 'check-invoke', check: { id: 'conformance.stubborn' }, config: { ms: 150 }, trace: {} }),
  });
  assert.equal((await res.json()).code, 'deadline-exceeded');
  await until(() => lines.some((l) => l.includes('"handler-finished-late"')), 'the late record');
  const late = lines.map((l) => JSON.parse(l)).find((r) => r.kind === 'handler-finished-late');
  assert.equal(late.level, 'warn');
  assert.equal(late.message, `check conformance.stubborn finished ${late.afterMs} ms after its call ended`);
  assert.equal(late.event, 'handler-finished-late');
  assert.equal(typeof late.afterMs, 'number');
  assert.equal(late.checkId, 'conformance.stubborn');
});
