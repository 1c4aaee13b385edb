// The service's tool path against the handler runner: the service checks input and output in
// Rust around the JS handler, runHandler does it all in JS; for every case both must give the
// same answer (a `cause.stack` aside: the frames differ by construction).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHandler } from '../lib/handler-runner.js';
import { createPackService } from '../lib/pack-service.js';

const TOKEN = 'runner-token';
const OBJECT = { type: 'object' };

/** A Zod-shaped schema (the runner checks `_zod` and `~standard`): text must be short. */
const shortText = {
  _zod: {},
  '~standard': {
    validate: (value) =>
      typeof value?.text === 'string' && value.text.length <= 3
        ? { value: { ...value, checked: true } }
        : { issues: [{ path: ['text'], message: 'Too long' }] },
  },
};

// Each case: a tool (schemas, module), the input sent, and the modules it needs.
const modules = {
  'echo.mjs': { default: (input) => input },
  'undefined-member.mjs': { default: () => ({ ok: true, extra: undefined }) },
  'nan.mjs': { default: () => ({ n: Number.NaN, when: new Date(0) }) },
  'returns-nothing.mjs': { default: () => undefined },
  'function-member.mjs': { default: () => ({ f() {}, list: [1, undefined] }) },
  'bigint.mjs': { default: () => ({ n: 10n }) },
  'throws.mjs': { default: () => { throw new TypeError('no'); } },
  'rejects.mjs': { default: async () => { throw new Error('later'); } },
  'thenable.mjs': { default: () => ({ then: (resolve) => resolve({ via: 'thenable' }) }) },
  'no-handler.mjs': { something: 1 },
  'define-tool.mjs': { default: { handler: (input) => input, inputZod: shortText } },
};

const cases = [
  ['valid input', { input: OBJECT, output: OBJECT, module: 'echo.mjs' }, { text: 'hi' }],
  ['input that fails', { input: { type: 'object', required: ['text'] }, output: OBJECT, module: 'echo.mjs' }, { n: 1 }],
  ['defaults filled', { input: { type: 'object', properties: { n: { type: 'integer', default: 3 }, o: { type: 'object', default: { a: [] } } } }, output: OBJECT, module: 'echo.mjs' }, {}],
  [
    'defaults in nested objects and array items, integer-like keys among them',
    {
      input: {
        type: 'object',
        properties: {
          list: { type: 'array', items: { type: 'object', properties: { k: { default: 'x' } } } },
          pair: { type: 'array', prefixItems: [{ type: 'object', properties: { first: { default: true } } }] },
          o: { type: 'object', properties: { 2: { default: 2 }, b: { default: 'b' }, 1: { default: 1 } } },
        },
      },
      output: OBJECT,
      module: 'echo.mjs',
    },
    { list: [{}, { k: 'y' }, {}], pair: [{}], o: { z: 0 } },
  ],
  ['input that is not an object', { input: OBJECT, output: OBJECT, module: 'echo.mjs' }, [1]],
  ['no input at all', { input: { type: 'object' }, output: {}, module: 'echo.mjs' }, undefined],
  ['no input schema', { output: OBJECT, module: 'echo.mjs' }, {}],
  ['a null output schema', { input: OBJECT, output: null, module: 'echo.mjs' }, {}],
  ['an output schema Ajv refuses', { input: OBJECT, output: { properties: { a: { minLength: 1 } } }, module: 'echo.mjs' }, {}],
  ['a schema that recurses forever', { input: { $ref: '#' }, output: OBJECT, module: 'echo.mjs' }, {}],
  ['an output schema that recurses forever', { input: OBJECT, output: { $ref: '#' }, module: 'echo.mjs' }, {}],
  ['output that fails', { input: OBJECT, output: { type: 'object', required: ['missing'] }, module: 'echo.mjs' }, { text: 'x' }],
  ['an undefined member under additionalProperties', { input: OBJECT, output: { type: 'object', properties: { ok: { type: 'boolean' } }, additionalProperties: false }, module: 'undefined-member.mjs' }, {}],
  ['NaN and a Date', { input: OBJECT, output: { type: 'object', properties: { n: { type: 'number' } } }, module: 'nan.mjs' }, {}],
  ['no output', { input: OBJECT, output: {}, module: 'returns-nothing.mjs' }, {}],
  ['a function member and an undefined item', { input: OBJECT, output: {}, module: 'function-member.mjs' }, {}],
  ['a BigInt the schema accepts', { input: OBJECT, output: {}, module: 'bigint.mjs' }, {}],
  ['a BigInt the schema refuses', { input: OBJECT, output: { type: 'object', properties: { n: { type: 'integer' } } }, module: 'bigint.mjs' }, {}],
  ['a throw', { input: OBJECT, output: OBJECT, module: 'throws.mjs' }, {}],
  ['a rejection', { input: OBJECT, output: OBJECT, module: 'rejects.mjs' }, {}],
  ['a thenable', { input: OBJECT, output: OBJECT, module: 'thenable.mjs' }, {}],
  ['no handler', { input: OBJECT, output: OBJECT, module: 'no-handler.mjs' }, {}],
  ['a Zod input schema that passes', { input: OBJECT, output: OBJECT, module: 'define-tool.mjs' }, { text: 'abc' }],
  ['a Zod input schema that fails', { input: OBJECT, output: OBJECT, module: 'define-tool.mjs' }, { text: 'abcd' }],
];

/** What the service answers for a runHandler result: status and body. */
function expected(id, result) {
  if (result.kind === 'ok') {
    try {
      return { status: 200, body: JSON.parse(JSON.stringify({ v: 2, kind: 'result', output: result.value })) };
    } catch (cause) {
      return { status: 500, body: { error: cause.message } };
    }
  }
  const { code, message, cause, issues } = result.error;
  return {
    status: 200,
    body: { v: 2, kind: 'error', code, message, toolId: id, ...(cause !== undefined && { cause }), ...(issues !== undefined && { issues }) },
  };
}

/** Both answers with `cause.stack` checked for shape only. */
function withoutStack(answer) {
  const cause = answer.body?.cause;
  if (cause === null || typeof cause !== 'object' || !('stack' in cause)) return answer;
  assert.equal(typeof cause.stack, 'string');
  const { stack: _stack, ...rest } = cause;
  return { ...answer, body: { ...answer.body, cause: rest } };
}

test('every tool case answers as the handler runner does', async () => {
  const tools = cases.map(([, tool], i) => ({
    id: `case.${i}`,
    modulePath: tool.module,
    ...(tool.input !== undefined && { input: tool.input }),
    ...(tool.output !== undefined && { output: tool.output }),
  }));
  const index = { v: 1, packId: 'runner', packVersion: '1.0.0', artifactVersion: '1', tools, guardrails: [], agents: [], flows: [] };
  const importModule = async (path) => modules[path];
  const service = createPackService({ index, resolveModule: (p) => p, token: TOKEN, env: {}, importModule });
  assert.deepEqual(await service.prewarm(), []);
  const port = await service.listen(0, '127.0.0.1');
  try {
    for (const [i, [name, tool, input]] of cases.entries()) {
      const id = `case.${i}`;
      const ctx = { tenantId: 't1', runId: 'r1' };
      const message = { v: 2, kind: 'invoke', tool: { id }, ...(input !== undefined && { input }), ctx };
      const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
        body: JSON.stringify(message),
      });
      const text = await res.text();
      const got = { status: res.status, body: JSON.parse(text) };
      // What the runner throws escapes the TypeScript service's call: a 500 with its message.
      const ran = await runHandler({
        tool: { id, modulePath: tool.module, inputSchema: tool.input, outputSchema: tool.output },
        input: structuredClone(input),
        ctx,
        importHandler: importModule,
      }).catch((thrown) => ({ kind: 'threw', thrown }));
      const want = ran.kind === 'threw' ? { status: 500, body: { error: ran.thrown.message } } : expected(id, ran);
      assert.deepEqual(withoutStack(got), withoutStack(want), name);
      // A result is the bytes JSON.stringify writes for the runner's output, key order included.
      if (ran.kind === 'ok' && got.status === 200) {
        assert.equal(text, JSON.stringify({ v: 2, kind: 'result', output: ran.value }), name);
      }
    }
  } finally {
    await service.stop(100);
  }
});
