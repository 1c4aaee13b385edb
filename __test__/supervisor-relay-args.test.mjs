// relay.forward(call) on the values a caller may pass, against the TypeScript relay, whose
// fetch sends `String(call.timeoutMs)` and the other fields as fetch's text of them, and whose
// forward fails a call fetch throws on with the thrown error's message.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { PID_TOOL, packFolder, writeLocalPack } from './helpers/local-pack.mjs';

const echoChild = fileURLToPath(new URL('./fixtures/header-echo-child.mjs', import.meta.url));
const packService = fileURLToPath(new URL('../bin/kindgi-pack-service.mjs', import.meta.url));

/** A started supervisor whose child is `command` (the header-echo child unless given). */
async function serving(t, { command = [process.execPath, echoChild], moduleRoot, index } = {}) {
  const dir = moduleRoot ?? packFolder('kindgi-sup-relay-args-');
  const supervisor = createPackServiceSupervisor({ command, moduleRoot: dir, env: async () => ({ PATH: process.env.PATH ?? '' }) });
  t.after(() => supervisor.close());
  const started = await supervisor.start(index ?? writeLocalPack(dir, { 'pid.mjs': PID_TOOL }));
  assert.equal(started.kind, 'ok', JSON.stringify(started));
  return supervisor;
}

/** The headers of a relay call as the header-echo child read them. */
async function seenHeaders(supervisor, call) {
  const out = await supervisor.relay.forward({ route: 'invoke', body: '{}', ...call });
  assert.equal(out.kind, 'answer', JSON.stringify(out));
  return JSON.parse(out.body).headers;
}

/** What the TypeScript relay's forward answers when its fetch throws on `headers`. */
async function fetchFailure(headers) {
  try {
    // Port 1: what is refused here is refused before any connection.
    await fetch('http://127.0.0.1:1/v1/invoke', { method: 'POST', headers, body: '{}' });
  } catch (error) {
    return { kind: 'failed', reason: `the pack service did not answer: ${error.message}` };
  }
  assert.fail('fetch took the headers');
}

test('the deadline goes as String() of whatever the caller gave, as the TypeScript relay sends it', async (t) => {
  const supervisor = await serving(t);
  const cases = [
    [null, 'null'],
    [Number.NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-5, '-5'],
    [0, '0'],
    [1.5, '1.5'],
    [2 ** 31, '2147483648'],
    [{}, '[object Object]'],
    [{ valueOf: () => 5, toString: () => 'five' }, 'five'],
    ['abc', 'abc'],
    ['0x10', '0x10'],
    ['1e3', '1e3'],
    [' 100 ', '100'],
    ['', ''],
    [true, 'true'],
    [[], ''],
    [[1, 2], '1,2'],
    [10n, '10'],
    [Symbol('s'), 'Symbol(s)'],
  ];
  for (const [timeoutMs, sent] of cases) {
    const shown = typeof timeoutMs === 'symbol' || typeof timeoutMs === 'bigint' ? String(timeoutMs) : JSON.stringify(timeoutMs);
    assert.equal((await seenHeaders(supervisor, { timeoutMs }))['kindgi-timeout-ms'], sent, shown);
  }
  assert.equal((await seenHeaders(supervisor, {}))['kindgi-timeout-ms'], undefined);
});

test('a deadline of true is no deadline to the pack service (TypeScript sends "true", not 1 ms)', async (t) => {
  const packRoot = fileURLToPath(new URL('./fixtures/js-pack', import.meta.url));
  const supervisor = await serving(t, { command: [process.execPath, packService], moduleRoot: packRoot, index: join(packRoot, 'index.json') });
  const body = JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.sleep' }, input: { ms: 50 }, ctx: { tenantId: 't', runId: 'r' } });
  for (const timeoutMs of [true, { valueOf: () => 1 }, null]) {
    const out = await supervisor.relay.forward({ route: 'invoke', body, timeoutMs });
    assert.equal(out.kind, 'answer');
    assert.equal(JSON.parse(out.body).kind, 'result', `${String(timeoutMs)}: ${out.body}`);
  }
});

test("header values fetch refuses fail the call in fetch's words, in every header field", async (t) => {
  const supervisor = await serving(t);
  const fields = {
    timeoutMs: 'kindgi-timeout-ms',
    runId: 'kindgi-run-id',
    requestId: 'kindgi-request-id',
    protocol: 'kindgi-protocol',
    traceparent: 'traceparent',
    tenantId: 'kindgi-tenant-id',
  };
  for (const [field, name] of Object.entries(fields)) {
    for (const value of ['é\u0100', 'x\u{1F600}', 'a\u2028', 'a\r\nb', 'a\nb', 'a\rb', 'a\0b']) {
      const out = await supervisor.relay.forward({ route: 'invoke', body: '{}', [field]: value });
      assert.deepEqual(out, await fetchFailure({ [name]: value }), `${field} ${JSON.stringify(value)}`);
    }
    // Another control character passes the Headers check and fails in undici: `fetch failed`.
    for (const value of ['a\x01b', 'a\x7fb', '\x0bx']) {
      const out = await supervisor.relay.forward({ route: 'invoke', body: '{}', [field]: value });
      assert.deepEqual(out, { kind: 'failed', reason: 'the pack service did not answer: fetch failed' }, `${field} ${JSON.stringify(value)}`);
    }
  }
  // The words, for Node 20's fetch.
  assert.deepEqual(await supervisor.relay.forward({ route: 'info', runId: 'x\u{1F600}' }), {
    kind: 'failed',
    reason: 'the pack service did not answer: Cannot convert argument to a ByteString because the character at index 1 has a value of 55357 which is greater than 255.',
  });
  assert.deepEqual(await supervisor.relay.forward({ route: 'info', requestId: 'a\r\nb' }), {
    kind: 'failed',
    reason: 'the pack service did not answer: Headers.append: "a\r\nb" is an invalid header value.',
  });
  // Every value is converted before any is checked: a later field's U+0100 is the error.
  assert.deepEqual(
    await supervisor.relay.forward({ route: 'invoke', body: '{}', runId: 'a\nb', requestId: '\u0100' }),
    await fetchFailure({ 'kindgi-run-id': 'a\nb', 'kindgi-request-id': '\u0100' }),
  );
  // A Symbol is no header value (the deadline goes through String() first, so it is one).
  assert.deepEqual(await supervisor.relay.forward({ route: 'invoke', body: '{}', runId: Symbol('r') }), await fetchFailure({ 'kindgi-run-id': Symbol('r') }));
});

test('header values go as fetch sends them: white space at either end trimmed, other values as fetch writes them', async (t) => {
  const supervisor = await serving(t);
  const seen = await seenHeaders(supervisor, {
    runId: '\r\nrun-1\r\n',
    requestId: ' \treq-1 ',
    protocol: 2,
    traceparent: null,
    tenantId: { toString: () => 't-é' },
  });
  assert.deepEqual(
    [seen['kindgi-run-id'], seen['kindgi-request-id'], seen['kindgi-protocol'], seen.traceparent, seen['kindgi-tenant-id']],
    // One byte per character (é is 0xE9), which the child reads back as Latin-1.
    ['run-1', 'req-1', '2', 'null', 't-é'],
  );
});

test('forward() with no call: unavailable without a child, and rejects as TypeScript reading its signal with one', async (t) => {
  const dir = packFolder('kindgi-sup-relay-none-');
  const idle = createPackServiceSupervisor({ command: [process.execPath, echoChild], moduleRoot: dir, env: async () => ({}) });
  t.after(() => idle.close());
  assert.deepEqual(await idle.relay.forward(), { kind: 'unavailable', reason: 'no pack service' });
  const supervisor = await serving(t);
  await assert.rejects(supervisor.relay.forward(), { name: 'TypeError', message: "Cannot read properties of undefined (reading 'signal')" });
  await assert.rejects(supervisor.relay.forward(null), { name: 'TypeError', message: "Cannot read properties of null (reading 'signal')" });
});
