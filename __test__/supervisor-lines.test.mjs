// serviceEvent (ts-reference section 5.4, SUP 126-127): how a supervisor reads its child's
// stderr, on the rules' edge cases, on the lines a real kindgi-pack-service writes, and as a
// supervisor's onEvent and onLog hear them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor, serviceEvent } from '../lib/pack-service.js';
import { onLines } from './helpers/lines.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-service.mjs');
const recordsIndex = join(here, 'fixtures', 'records-pack', 'index.json');

const record = (fields) => JSON.stringify({ time: 't', level: 'info', severity: 'INFO', subsystem: 'pack', message: 'm', ...fields });

test('SUP 126-127: pack records take their event as kind, other records are records, legacy lines stay', () => {
  // 126
  assert.deepEqual(serviceEvent(record({ port: 5, event: 'listening', kind: 'listening' })), {
    time: 't', level: 'info', severity: 'INFO', subsystem: 'pack', message: 'm', port: 5, event: 'listening', kind: 'listening',
  });
  assert.equal(serviceEvent(record({ event: 'call' })).kind, 'call');
  assert.deepEqual(Object.keys(serviceEvent(record({ event: 'call' }))).slice(-2), ['event', 'kind']);
  // 127: an author's record is never acted on, whatever it says.
  assert.equal(serviceEvent(record({ subsystem: 'pack.tool', event: 'listening', port: 1 })).kind, 'record');
  assert.equal(serviceEvent(record({})).kind, 'record');
  // Bare lines from a service from before records.
  assert.deepEqual(serviceEvent('{"kind":"listening","port":7}'), { kind: 'listening', port: 7 });
  assert.equal(serviceEvent('{"kind":"handler-finished-late","id":"x"}').kind, 'handler-finished-late');
  // SUP 128: a legacy call line counts; other JSON objects are the pack's own output.
  assert.deepEqual(serviceEvent('{"kind":"call","id":"x","outcome":"ok"}'), { kind: 'call', id: 'x', outcome: 'ok' });
  assert.equal(serviceEvent('{"kind":"refund"}'), undefined);
  assert.equal(serviceEvent('{"orderId":7}'), undefined);
  assert.equal(serviceEvent('[1,2]'), undefined);
  // The pack's own output.
  for (const line of ['{"kind":"mine"}', ' {"kind":"listening"}', '[1]', '{broken', 'hello', '', '{"time":1,"level":"info","subsystem":"pack","message":"m"}']) {
    assert.equal(serviceEvent(line), undefined, line);
  }
  // Not a line at all: TypeScript throws (line.startsWith is not a function); so do we.
  for (const bad of [undefined, 5, null]) assert.throws(() => serviceEvent(bad), { code: 'invalid-argument' });
  // Read as JSON.parse reads it: a lone surrogate (a ctx.log field cut mid-pair) stays one.
  const cut = serviceEvent(record({ subsystem: 'pack.tool', text: 'a\ud800', '\udc00': 1 }));
  assert.deepEqual([cut.kind, cut.text, cut['\udc00']], ['record', 'a\ud800', 1]);
});

test("a real child's lines: listening with its port, the call as kind call, ctx.log as a record", async () => {
  const child = spawn(process.execPath, [bin, '--index', recordsIndex, '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: 'lines-token', PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const events = [];
  onLines(child.stderr, (line) => events.push(serviceEvent(line)));
  const exited = new Promise((done) => child.on('exit', done));
  const until = async (what) => {
    for (let i = 0; i < 500 && !what(); i += 1) await new Promise((r) => setTimeout(r, 10));
  };
  await until(() => events.some((e) => e?.kind === 'listening'));
  const { port } = events.find((e) => e?.kind === 'listening');
  assert.equal(typeof port, 'number');
  const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': 'lines-token' },
    body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'acme.logs' }, input: {}, ctx: { tenantId: 't', runId: 'r' } }),
  });
  assert.equal(res.status, 200);
  await until(() => events.some((e) => e?.kind === 'call'));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  const kinds = events.map((e) => e?.kind);
  assert.ok(kinds.includes('call'));
  assert.equal(events.find((e) => e?.message === 'hello from the tool')?.kind, 'record');
  assert.deepEqual(kinds.slice(-2), ['draining', 'stopped']);
});

test("onEvent's log events carry serviceEvent of their line, and onLog the rest, in the child's order", async () => {
  // Every kind of line (the events are read in Rust, and their `log` events made in JS from
  // the line), many of them, so that they cross to JavaScript in batches.
  const kinds = [
    record({ event: 'call', id: 'x', outcome: 'ok' }),
    record({ kind: 'first', event: 'draining' }),
    record({ subsystem: 'pack.tool', event: 'listening', port: 1 }),
    record({ event: 5 }),
    record({ subsystem: 'pack.tool', text: 'a\ud800', '\udc00': 1 }),
    '{"time":"t","level":"info","subsystem":"pack","message":"m","__proto__":{"x":1},"event":"call"}',
    '{"kind":"handler-finished-late","id":"x"}',
    '{"kind":"mine"}',
    'plain output',
    '',
    '{"time":1,"level":"info","subsystem":"pack","message":"m"}',
  ];
  const lines = Array.from({ length: 300 }, (_, i) => kinds[i % kinds.length]);
  const folder = mkdtempSync(join(tmpdir(), 'kindgi-lines-'));
  writeFileSync(join(folder, 'lines'), lines.map((line) => `${line}\n`).join(''));
  const heard = [];
  const sup = createPackServiceSupervisor({
    command: ['/bin/sh', '-c', `cat "${join(folder, 'lines')}" >&2; echo '{"kind":"listening","port":1}' >&2; exec sleep 30`],
    moduleRoot: folder,
    env: async () => ({ PATH: process.env.PATH ?? '' }),
    onEvent: (event) => event.kind === 'log' && heard.push(['event', event]),
    onLog: (line, stream) => heard.push(['log', line, stream]),
  });
  try {
    assert.equal((await sup.start(join(folder, 'index.json'))).kind, 'ok');
    const expected = lines.map((line) => {
      const event = serviceEvent(line);
      return event === undefined ? ['log', line, 'stderr'] : ['event', { kind: 'log', event, line }];
    });
    for (let i = 0; i < 500 && heard.length < expected.length; i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(heard, expected);
    assert.deepEqual(Object.keys(heard[1][1].event).slice(-2), ['kind', 'event'], 'a kind already there keeps its place');
  } finally {
    await sup.close();
  }
});
