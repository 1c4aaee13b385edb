// Pack protocol v2 through the public JS API: `./protocol` and the root re-exports.
// Reference: spec/ts-reference.md sections 1.2 and 3.1, checklist items 74-77 (PR).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as protocol from '../lib/protocol.js';
import * as root from '../index.js';

const {
  PACK_PROTOCOL_VERSION,
  PACK_ERROR_CODES,
  PACK_HEADERS,
  IDEMPOTENCY_KEY_NAMESPACE,
  packError,
  parsePackRequest,
  parsePackResponse,
  idempotencyKey,
} = protocol;

const EXPECTED_CODES = [
  'input-validation-failed',
  'output-validation-failed',
  'handler-import-failed',
  'handler-shape-invalid',
  'handler-throw',
  'check-shape-invalid',
  'malformed-message',
  'unknown-protocol-version',
  'unexpected-message-kind',
  'tool-not-in-pack',
  'check-not-in-pack',
  'tool-version-mismatch',
  'deadline-exceeded',
  'cancelled',
];

/** The exact refusal `parsePackRequest` / `parsePackResponse` give. */
const refusal = (code, message) => ({ kind: 'err', error: { v: 2, kind: 'error', code, message } });
const malformed = (message) => refusal('malformed-message', message);

const TOOL_ID_REQUIRED = '`tool.id` is required';
const TOOL_VERSION = '`tool.version` must be a string';
const CTX_NEEDS = '`ctx` needs string `tenantId` and `runId`';
const CHECK_ID_REQUIRED = '`check.id` is required';
const CONFIG_OBJECT = '`config` must be an object';

const toolInvoke = (fields = {}) => ({
  v: 2,
  kind: 'invoke',
  tool: { id: 'acme.echo' },
  input: { text: 'hi' },
  ctx: { tenantId: 'tenant-1', runId: 'run-1' },
  ...fields,
});

const checkInvoke = (fields = {}) => ({
  v: 2,
  kind: 'check-invoke',
  check: { id: 'acme.no-pii' },
  config: { threshold: 0.5 },
  trace: { steps: [] },
  ...fields,
});

/** Assert that `parse(message)` accepts it and hands back the very object, untouched. */
function assertAccepted(parse, message) {
  const before = structuredClone(message);
  const outcome = parse(message);
  assert.deepEqual(Object.keys(outcome), ['kind', 'value']);
  assert.equal(outcome.kind, 'ok');
  assert.strictEqual(outcome.value, message);
  assert.deepStrictEqual(message, before, 'the message must not be changed');
}

function assertRefused(parse, message, code, text) {
  const outcome = parse(message);
  assert.deepStrictEqual(outcome, refusal(code, text));
  assert.deepEqual(Object.keys(outcome), ['kind', 'error']);
  assert.deepEqual(Object.keys(outcome.error), ['v', 'kind', 'code', 'message']);
}

const isInvalidArgument = (error) => {
  assert.ok(error instanceof Error, 'an Error');
  assert.equal(error.code, 'invalid-argument');
  return true;
};

const isInvalidJsonValue = (error) => {
  assert.ok(error instanceof Error, 'an Error');
  assert.equal(error.code, 'invalid-json-value');
  return true;
};

// ---------------------------------------------------------------------------------------------
// Constants

test('PACK_PROTOCOL_VERSION is 2', () => {
  assert.strictEqual(PACK_PROTOCOL_VERSION, 2);
});

test('PACK_ERROR_CODES holds the 14 codes in the protocol order', () => {
  assert.deepStrictEqual([...PACK_ERROR_CODES], EXPECTED_CODES);
  assert.ok(Array.isArray(PACK_ERROR_CODES));
  assert.equal(PACK_ERROR_CODES.length, 14);
});

test('PACK_HEADERS names the v2 transport headers (tenantId is protocol 2.7.0) and is frozen', () => {
  assert.deepStrictEqual(PACK_HEADERS, {
    protocol: 'kindgi-protocol',
    token: 'kindgi-pack-token',
    timeoutMs: 'kindgi-timeout-ms',
    runId: 'kindgi-run-id',
    requestId: 'kindgi-request-id',
    artifactVersion: 'kindgi-artifact-version',
    durationMs: 'kindgi-duration-ms',
    traceparent: 'traceparent',
    tenantId: 'kindgi-tenant-id',
  });
  assert.deepEqual(Object.keys(PACK_HEADERS), [
    'protocol',
    'token',
    'timeoutMs',
    'runId',
    'requestId',
    'artifactVersion',
    'durationMs',
    'traceparent',
    'tenantId',
  ]);
  assert.ok(Object.isFrozen(PACK_HEADERS));
  assert.ok(!Object.values(PACK_HEADERS).some((h) => h.toLowerCase() === 'authorization'));
  // ES modules are strict code: writing to a frozen object throws.
  assert.throws(() => {
    PACK_HEADERS.token = 'authorization';
  }, TypeError);
  assert.equal(PACK_HEADERS.token, 'kindgi-pack-token');
});

test('the root entry re-exports the protocol module', () => {
  for (const name of [
    'PACK_PROTOCOL_VERSION',
    'PACK_ERROR_CODES',
    'PACK_HEADERS',
    'IDEMPOTENCY_KEY_NAMESPACE',
    'packError',
    'parsePackRequest',
    'parsePackResponse',
    'idempotencyKey',
  ]) {
    assert.ok(name in root, `root exports ${name}`);
    assert.strictEqual(root[name], protocol[name], `root ${name} is the protocol module's`);
  }
});

test('idempotencyKey and its namespace are exported from ./protocol', () => {
  assert.equal(typeof idempotencyKey, 'function');
  assert.equal(IDEMPOTENCY_KEY_NAMESPACE, 'a70d5bff-e713-4322-b2ea-9d5c4926a861');
  assert.equal(idempotencyKey('run-1', 'step-a', 'acme.echo'), '46b69b56-d2dc-51b1-b963-0d434bccb15c');
});

// ---------------------------------------------------------------------------------------------
// packError

test('packError: keys v, kind, code, message, then the extras in their order', () => {
  const error = packError('handler-throw', 'boom', {
    toolId: 'acme.echo',
    cause: { name: 'TypeError', message: 'x' },
    issues: [{ keyword: 'type' }],
  });
  assert.deepEqual(Object.keys(error), ['v', 'kind', 'code', 'message', 'toolId', 'cause', 'issues']);
  assert.equal(
    JSON.stringify(error),
    '{"v":2,"kind":"error","code":"handler-throw","message":"boom","toolId":"acme.echo",' +
      '"cause":{"name":"TypeError","message":"x"},"issues":[{"keyword":"type"}]}',
  );

  const reordered = packError('input-validation-failed', 'bad input', { issues: [], checkId: 'c', toolId: 't' });
  assert.deepEqual(Object.keys(reordered), ['v', 'kind', 'code', 'message', 'issues', 'checkId', 'toolId']);
  assert.equal(
    JSON.stringify(reordered),
    '{"v":2,"kind":"error","code":"input-validation-failed","message":"bad input","issues":[],"checkId":"c","toolId":"t"}',
  );
});

test('packError without extra (or with extra undefined) has exactly four keys', () => {
  for (const error of [packError('cancelled', 'gone'), packError('cancelled', 'gone', undefined), packError('cancelled', 'gone', {})]) {
    assert.deepStrictEqual(error, { v: 2, kind: 'error', code: 'cancelled', message: 'gone' });
    assert.deepEqual(Object.keys(error), ['v', 'kind', 'code', 'message']);
    assert.equal(JSON.stringify(error), '{"v":2,"kind":"error","code":"cancelled","message":"gone"}');
  }
});

test('packError accepts every one of the 14 codes', () => {
  for (const code of EXPECTED_CODES) {
    assert.deepStrictEqual(packError(code, `m-${code}`), { v: 2, kind: 'error', code, message: `m-${code}` });
  }
});

test('packError: extras follow spread semantics and never move v/kind/code/message', () => {
  const overridden = packError('cancelled', 'm', { code: 'x' });
  assert.deepEqual(Object.keys(overridden), ['v', 'kind', 'code', 'message']);
  assert.equal(overridden.code, 'x');
  assert.equal(JSON.stringify(overridden), '{"v":2,"kind":"error","code":"x","message":"m"}');

  const all = packError('cancelled', 'm', { toolId: 't', kind: 'k', v: 9, message: 'n' });
  assert.deepEqual(Object.keys(all), ['v', 'kind', 'code', 'message', 'toolId']);
  assert.equal(JSON.stringify(all), '{"v":9,"kind":"k","code":"cancelled","message":"n","toolId":"t"}');
});

test('packError returns a fresh object each call and does not keep `extra`', () => {
  const extra = { toolId: 't' };
  const a = packError('cancelled', 'm', extra);
  const b = packError('cancelled', 'm', extra);
  assert.notStrictEqual(a, b);
  assert.notStrictEqual(a, extra);
  assert.deepStrictEqual(extra, { toolId: 't' });
});

test('packError refuses an unknown code with invalid-argument', () => {
  for (const code of ['nope', '', 'CANCELLED', 'pack-tenant-mismatch', undefined, null, 5, {}]) {
    assert.throws(() => packError(code, 'm'), isInvalidArgument, `code ${String(code)}`);
  }
});

test('packError refuses a non-string message with invalid-argument', () => {
  for (const message of [undefined, null, 5, {}, ['m'], Symbol('m')]) {
    assert.throws(() => packError('cancelled', message), isInvalidArgument);
  }
});

test('packError refuses a non-object extra with invalid-argument', () => {
  for (const extra of [null, [], ['x'], 'x', 5, true]) {
    assert.throws(() => packError('cancelled', 'm', extra), isInvalidArgument, `extra ${JSON.stringify(extra)}`);
  }
});

// ---------------------------------------------------------------------------------------------
// parsePackRequest, section 3.1 in order

test('rule 1: a non-object is malformed-message "Message must be a JSON object"', () => {
  for (const value of [null, [1], [], 'a string', '', 42, 0, true, undefined]) {
    assertRefused(parsePackRequest, value, 'malformed-message', 'Message must be a JSON object');
  }
  // An array that looks like a message is still not an object.
  assertRefused(parsePackRequest, Object.assign([], toolInvoke()), 'malformed-message', 'Message must be a JSON object');
});

test('rule 2: `v` not strictly 2 is unknown-protocol-version with JSON.stringify(v)', () => {
  const cases = [
    [1, 'Expected protocol v2, got 1'],
    ['2', 'Expected protocol v2, got "2"'],
    [undefined, 'Expected protocol v2, got undefined'],
    [null, 'Expected protocol v2, got null'],
    [{ b: 1, a: [1.5] }, 'Expected protocol v2, got {"b":1,"a":[1.5]}'],
    [() => 2, 'Expected protocol v2, got undefined'],
    [3, 'Expected protocol v2, got 3'],
    [2.5, 'Expected protocol v2, got 2.5'],
    [-0, 'Expected protocol v2, got 0'],
    [NaN, 'Expected protocol v2, got null'],
    [Infinity, 'Expected protocol v2, got null'],
    [1e21, 'Expected protocol v2, got 1e+21'],
    [true, 'Expected protocol v2, got true'],
    [[2], 'Expected protocol v2, got [2]'],
    ['a"b\\c\n\u0001', 'Expected protocol v2, got "a\\"b\\\\c\\n\\u0001"'],
    ['\ud800', 'Expected protocol v2, got "\\ud800"'],
    ['ü😀', 'Expected protocol v2, got "ü😀"'],
    [new Date(0), 'Expected protocol v2, got "1970-01-01T00:00:00.000Z"'],
    [{ toJSON: () => 'custom' }, 'Expected protocol v2, got "custom"'],
  ];
  for (const [v, message] of cases) {
    assertRefused(parsePackRequest, toolInvoke({ v }), 'unknown-protocol-version', message);
    // The message is exactly JSON.stringify's rendering.
    assert.equal(message, `Expected protocol v2, got ${JSON.stringify(v)}`);
  }
  // `v` missing entirely (not just undefined).
  const { v: _v, ...withoutV } = toolInvoke();
  assertRefused(parsePackRequest, withoutV, 'unknown-protocol-version', 'Expected protocol v2, got undefined');
});

test('rule 2: 2.0 is 2', () => {
  assertAccepted(parsePackRequest, toolInvoke({ v: 2.0 }));
  assertAccepted(parsePackRequest, JSON.parse('{"v":2.0,"kind":"check-invoke","check":{"id":"c"},"config":{}}'));
});

test('rule 2: a BigInt `v` throws invalid-json-value (JSON.stringify cannot render it)', () => {
  assert.throws(() => parsePackRequest(toolInvoke({ v: 2n })), isInvalidJsonValue);
  assert.throws(() => parsePackRequest({ v: 10n }), isInvalidJsonValue);
});

test('rule 3: any kind other than invoke / check-invoke is unexpected-message-kind', () => {
  const cases = [
    ['run', 'Unknown request kind "run"'],
    [undefined, 'Unknown request kind undefined'],
    [null, 'Unknown request kind null'],
    ['Invoke', 'Unknown request kind "Invoke"'],
    ['result', 'Unknown request kind "result"'],
    ['', 'Unknown request kind ""'],
    [1, 'Unknown request kind 1'],
    [{ a: 1 }, 'Unknown request kind {"a":1}'],
    [['invoke'], 'Unknown request kind ["invoke"]'],
  ];
  for (const [kind, message] of cases) {
    assertRefused(parsePackRequest, toolInvoke({ kind }), 'unexpected-message-kind', message);
  }
  assertRefused(parsePackRequest, { v: 2 }, 'unexpected-message-kind', 'Unknown request kind undefined');
});

test('rule 4: `tool` must be an object with a non-empty string id', () => {
  const { tool: _tool, ...withoutTool } = toolInvoke();
  assertRefused(parsePackRequest, withoutTool, 'malformed-message', TOOL_ID_REQUIRED);
  for (const tool of [
    undefined,
    null,
    [],
    ['acme.echo'],
    Object.assign([], { id: 'acme.echo' }),
    'acme.echo',
    5,
    {},
    { version: '1.0.0' },
    { id: '' },
    { id: 5 },
    { id: null },
    { id: ['acme.echo'] },
    { id: { id: 'acme.echo' } },
  ]) {
    assertRefused(parsePackRequest, toolInvoke({ tool }), 'malformed-message', TOOL_ID_REQUIRED);
  }
  assert.equal(TOOL_ID_REQUIRED, '`tool.id` is required');
});

test('rule 4: `tool.version`, when present, must be a string (null included)', () => {
  for (const version of [null, 1, 1.5, true, {}, ['1.0.0']]) {
    assertRefused(parsePackRequest, toolInvoke({ tool: { id: 'acme.echo', version } }), 'malformed-message', TOOL_VERSION);
  }
  assertAccepted(parsePackRequest, toolInvoke({ tool: { id: 'acme.echo', version: '1.2.3' } }));
  assertAccepted(parsePackRequest, toolInvoke({ tool: { id: 'acme.echo', version: '' } }));
  assertAccepted(parsePackRequest, toolInvoke({ tool: { id: 'acme.echo', version: undefined } }));
});

test('rule 4: `ctx` must be an object with string tenantId and runId', () => {
  const { ctx: _ctx, ...withoutCtx } = toolInvoke();
  assertRefused(parsePackRequest, withoutCtx, 'malformed-message', CTX_NEEDS);
  for (const ctx of [
    undefined,
    null,
    [],
    Object.assign([], { tenantId: 't', runId: 'r' }),
    'ctx',
    1,
    {},
    { tenantId: 't' },
    { runId: 'r' },
    { tenantId: 1, runId: 'r' },
    { tenantId: 't', runId: null },
    { tenantId: 't', runId: 7 },
    { tenantId: ['t'], runId: 'r' },
  ]) {
    assertRefused(parsePackRequest, toolInvoke({ ctx }), 'malformed-message', CTX_NEEDS);
  }
});

test('rule 4: empty tenantId and runId are accepted', () => {
  assertAccepted(parsePackRequest, toolInvoke({ ctx: { tenantId: '', runId: '' } }));
});

test('rule 4: `input` is not checked and may be missing', () => {
  const { input: _input, ...withoutInput } = toolInvoke();
  assertAccepted(parsePackRequest, withoutInput);
  for (const input of [undefined, null, 0, '', [], 'text', { deep: [{ x: [1, { y: null }] }] }]) {
    assertAccepted(parsePackRequest, toolInvoke({ input }));
  }
});

test('rule 4: extra top-level and ctx fields are kept', () => {
  const message = toolInvoke({
    extra: { anything: true },
    trace: 'not for tools',
    ctx: {
      tenantId: 't',
      runId: 'r',
      projectId: 'p',
      orgId: 'o',
      requestId: 'call_1',
      idempotencyKey: '46b69b56-d2dc-51b1-b963-0d434bccb15c',
      env: { A: '1' },
      settings: { block: { k: 1 } },
      custom: [1, 2, 3],
    },
  });
  const copy = structuredClone(message);
  const outcome = parsePackRequest(message);
  assert.equal(outcome.kind, 'ok');
  assert.strictEqual(outcome.value, message);
  assert.strictEqual(outcome.value.ctx, message.ctx);
  assert.deepStrictEqual(outcome.value, copy);
});

test('rule 5: `check` must be an object with a non-empty string id', () => {
  const { check: _check, ...withoutCheck } = checkInvoke();
  assertRefused(parsePackRequest, withoutCheck, 'malformed-message', CHECK_ID_REQUIRED);
  for (const check of [undefined, null, [], 'acme.no-pii', 1, {}, { id: '' }, { id: 1 }, { id: null }, { id: ['c'] }]) {
    assertRefused(parsePackRequest, checkInvoke({ check }), 'malformed-message', CHECK_ID_REQUIRED);
  }
});

test('rule 5: `config` must be a non-array object', () => {
  const { config: _config, ...withoutConfig } = checkInvoke();
  assertRefused(parsePackRequest, withoutConfig, 'malformed-message', CONFIG_OBJECT);
  for (const config of [1, [], [{ a: 1 }], null, undefined, 'x', true]) {
    assertRefused(parsePackRequest, checkInvoke({ config }), 'malformed-message', CONFIG_OBJECT);
  }
  assertAccepted(parsePackRequest, checkInvoke({ config: {} }));
});

test('rule 5: `trace` is not checked', () => {
  const { trace: _trace, ...withoutTrace } = checkInvoke();
  assertAccepted(parsePackRequest, withoutTrace);
  for (const trace of [undefined, null, 1, 'x', [], { steps: [{ role: 'user' }] }]) {
    assertAccepted(parsePackRequest, checkInvoke({ trace }));
  }
});

test('rule 6: success is {kind:"ok", value} with the very object given', () => {
  const tool = toolInvoke();
  const check = checkInvoke();
  assert.strictEqual(parsePackRequest(tool).value, tool);
  assert.strictEqual(parsePackRequest(check).value, check);
  assertAccepted(parsePackRequest, tool);
  assertAccepted(parsePackRequest, check);
});

test('values the rules do not inspect may hold anything, even a BigInt', () => {
  assertAccepted(parsePackRequest, toolInvoke({ input: 10n }));
  assertAccepted(parsePackRequest, checkInvoke({ trace: 10n }));
  assertAccepted(parsePackRequest, toolInvoke({ ctx: { tenantId: 't', runId: 'r', big: 1n } }));
});

test('order: the first failing rule is reported', () => {
  // not an object beats everything
  assertRefused(parsePackRequest, [toolInvoke({ v: 1 })], 'malformed-message', 'Message must be a JSON object');
  // the version beats the kind
  assertRefused(parsePackRequest, { v: 1, kind: 'run' }, 'unknown-protocol-version', 'Expected protocol v2, got 1');
  assertRefused(parsePackRequest, { v: 1, kind: 'invoke' }, 'unknown-protocol-version', 'Expected protocol v2, got 1');
  // the version beats the tool rules
  assertRefused(parsePackRequest, toolInvoke({ v: '2', tool: null, ctx: null }), 'unknown-protocol-version', 'Expected protocol v2, got "2"');
  // bad tool and bad ctx: the tool
  assertRefused(parsePackRequest, toolInvoke({ tool: {}, ctx: {} }), 'malformed-message', TOOL_ID_REQUIRED);
  // bad tool.version and bad ctx: the version
  assertRefused(parsePackRequest, toolInvoke({ tool: { id: 'a', version: 1 }, ctx: null }), 'malformed-message', TOOL_VERSION);
  // bad check and bad config: the check
  assertRefused(parsePackRequest, checkInvoke({ check: {}, config: 1 }), 'malformed-message', CHECK_ID_REQUIRED);
  // the kind picks the rules: an invoke is not judged by check fields and vice versa
  assertRefused(parsePackRequest, checkInvoke({ kind: 'invoke' }), 'malformed-message', TOOL_ID_REQUIRED);
  assertRefused(parsePackRequest, toolInvoke({ kind: 'check-invoke' }), 'malformed-message', CHECK_ID_REQUIRED);
  // A BigInt `v` throws before anything else looks at the message.
  assert.throws(() => parsePackRequest({ v: 1n, kind: 'run' }), isInvalidJsonValue);
});

test('every refusal is a fresh object with v:2, kind:"error" and no ids', () => {
  const a = parsePackRequest(null);
  const b = parsePackRequest(null);
  assert.notStrictEqual(a, b);
  assert.notStrictEqual(a.error, b.error);
  for (const message of [toolInvoke({ tool: { id: '' } }), checkInvoke({ config: null })]) {
    const { error } = parsePackRequest(message);
    assert.equal(error.v, 2);
    assert.equal(error.kind, 'error');
    assert.ok(!('toolId' in error) && !('checkId' in error));
  }
});

// ---------------------------------------------------------------------------------------------
// parsePackResponse

test('parsePackResponse: result and check-result are accepted as is', () => {
  assertAccepted(parsePackResponse, { v: 2, kind: 'result', output: { text: 'hi' } });
  assertAccepted(parsePackResponse, { v: 2, kind: 'result' });
  assertAccepted(parsePackResponse, { v: 2, kind: 'result', output: null, extra: 1 });
  assertAccepted(parsePackResponse, { v: 2, kind: 'check-result', result: { passed: true } });
  assertAccepted(parsePackResponse, { v: 2, kind: 'check-result' });
});

test('parsePackResponse: an error needs a string code and a string message', () => {
  assertAccepted(parsePackResponse, packError('handler-throw', 'boom', { toolId: 't' }));
  assertAccepted(parsePackResponse, { v: 2, kind: 'error', code: 'some-future-code', message: '' });
  for (const bad of [
    { v: 2, kind: 'error', message: 'm' },
    { v: 2, kind: 'error', code: 'handler-throw' },
    { v: 2, kind: 'error', code: 1, message: 'm' },
    { v: 2, kind: 'error', code: 'handler-throw', message: null },
    { v: 2, kind: 'error', code: null, message: 'm' },
  ]) {
    assertRefused(parsePackResponse, bad, 'unexpected-message-kind', 'Unknown response kind "error"');
  }
});

test('parsePackResponse: other kinds are unexpected-message-kind', () => {
  assertRefused(parsePackResponse, { v: 2, kind: 'invoke' }, 'unexpected-message-kind', 'Unknown response kind "invoke"');
  assertRefused(parsePackResponse, { v: 2 }, 'unexpected-message-kind', 'Unknown response kind undefined');
  assertRefused(parsePackResponse, { v: 2, kind: null }, 'unexpected-message-kind', 'Unknown response kind null');
  assertRefused(parsePackResponse, { v: 2, kind: 'Result' }, 'unexpected-message-kind', 'Unknown response kind "Result"');
});

test('parsePackResponse: the envelope rules come first', () => {
  assertRefused(parsePackResponse, { v: 1, kind: 'result' }, 'unknown-protocol-version', 'Expected protocol v2, got 1');
  assertRefused(parsePackResponse, { kind: 'result' }, 'unknown-protocol-version', 'Expected protocol v2, got undefined');
  assertRefused(parsePackResponse, { v: '2', kind: 'bogus' }, 'unknown-protocol-version', 'Expected protocol v2, got "2"');
  for (const value of [null, [], [{ v: 2, kind: 'result' }], 'x', 2, undefined]) {
    assertRefused(parsePackResponse, value, 'malformed-message', 'Message must be a JSON object');
  }
  assert.throws(() => parsePackResponse({ v: 2n, kind: 'result' }), isInvalidJsonValue);
});

// ---------------------------------------------------------------------------------------------
// Conformance checklist, section 7 (PR)

test('PR 74: a valid tool invoke and a valid check invoke parse to {kind:"ok", value: <the same object>}', () => {
  const tool = { v: 2, kind: 'invoke', tool: { id: 'acme.echo' }, input: { text: 'hi' }, ctx: { tenantId: 't', runId: 'r' } };
  const check = { v: 2, kind: 'check-invoke', check: { id: 'no-pii' }, config: {}, trace: [] };
  const toolOutcome = parsePackRequest(tool);
  const checkOutcome = parsePackRequest(check);
  assert.equal(toolOutcome.kind, 'ok');
  assert.strictEqual(toolOutcome.value, tool);
  assert.equal(checkOutcome.kind, 'ok');
  assert.strictEqual(checkOutcome.value, check);
});

test('PR 75: [1] → malformed-message; {v:1,kind:"invoke"} → unknown-protocol-version; {v:2,kind:"run"} → unexpected-message-kind', () => {
  assert.equal(parsePackRequest([1]).error.code, 'malformed-message');
  assert.equal(parsePackRequest({ v: 1, kind: 'invoke' }).error.code, 'unknown-protocol-version');
  assert.equal(parsePackRequest({ v: 2, kind: 'run' }).error.code, 'unexpected-message-kind');
  assert.deepStrictEqual(parsePackRequest([1]), malformed('Message must be a JSON object'));
  assert.deepStrictEqual(parsePackRequest({ v: 1, kind: 'invoke' }), refusal('unknown-protocol-version', 'Expected protocol v2, got 1'));
  assert.deepStrictEqual(parsePackRequest({ v: 2, kind: 'run' }), refusal('unexpected-message-kind', 'Unknown request kind "run"'));
});

test('PR 76: no tool id, a ctx without runId, a check config of 1 are malformed-message; every error has v:2, kind:"error"', () => {
  const outcomes = [
    parsePackRequest({ v: 2, kind: 'invoke', tool: {}, input: {}, ctx: { tenantId: 't', runId: 'r' } }),
    parsePackRequest({ v: 2, kind: 'invoke', tool: { id: 'acme.echo' }, input: {}, ctx: { tenantId: 't' } }),
    parsePackRequest({ v: 2, kind: 'check-invoke', check: { id: 'c' }, config: 1, trace: null }),
  ];
  assert.deepStrictEqual(outcomes, [malformed(TOOL_ID_REQUIRED), malformed(CTX_NEEDS), malformed(CONFIG_OBJECT)]);
  for (const outcome of outcomes) {
    assert.equal(outcome.kind, 'err');
    assert.equal(outcome.error.v, 2);
    assert.equal(outcome.error.kind, 'error');
    assert.equal(outcome.error.code, 'malformed-message');
  }
});

test('PR 77: parsePackResponse accepts result, check-result and a full error; refuses an error without code and a v:1 message', () => {
  for (const ok of [
    { v: 2, kind: 'result', output: 1 },
    { v: 2, kind: 'check-result', result: { passed: true } },
    { v: 2, kind: 'error', code: 'handler-throw', message: 'boom' },
  ]) {
    const outcome = parsePackResponse(ok);
    assert.equal(outcome.kind, 'ok');
    assert.strictEqual(outcome.value, ok);
  }
  assert.deepStrictEqual(
    parsePackResponse({ v: 2, kind: 'error', message: 'boom' }),
    refusal('unexpected-message-kind', 'Unknown response kind "error"'),
  );
  assert.deepStrictEqual(
    parsePackResponse({ v: 1, kind: 'result', output: 1 }),
    refusal('unknown-protocol-version', 'Expected protocol v2, got 1'),
  );
});
