// runHandler through the public root entry: running a tool, its validation and failures, and
// the input a handler receives. Reference: spec/ts-reference.md sections 3.5 and 3.7, checklist
// items 78-92 (HR).
//
// Ajv 8 (configured exactly as section 3.7 says, __test__/helpers/runner-fixtures.mjs) is the
// oracle for every expected issue list and every compile failure; Zod 4 is the oracle for Zod
// messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import { runHandler } from '../index.js';
import { ajvCompile, ajvOutcome, ajvIssues, ajvCompileError, assertSameIssues, ECHO_IN, ECHO_OUT, tool, ctx, wrap, echo, GREET_IN, GREET_OUT, greet, recordingImporter } from './helpers/runner-fixtures.mjs';

// ---------------------------------------------------------------------------------------------
// HR: running a tool
// ---------------------------------------------------------------------------------------------

test('HR 78 happy path: input validated, handler run, output validated, {kind:"ok", value}', async () => {
  const seen = [];
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'hello' },
    ctx: ctx(),
    importHandler: wrap((input) => {
      seen.push(input);
      return { echoed: input.message };
    }),
  });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { echoed: 'hello' } });
  assert.deepStrictEqual(Object.keys(outcome), ['kind', 'value']);
  assert.deepStrictEqual(seen, [{ message: 'hello' }]);
});

test('HR 78 the value is the raw handler output (same object)', async () => {
  const produced = { echoed: 'same' };
  const outcome = await runHandler({ tool: tool(), input: { message: 'x' }, ctx: ctx(), importHandler: wrap(() => produced) });
  assert.equal(outcome.kind, 'ok');
  assert.equal(outcome.value, produced);
});

test("HR 79 a union type ['string','number','boolean','null'] compiles and accepts 'a', 1, true, null; [1] fails", async () => {
  const scalar = {
    type: 'object',
    properties: { value: { type: ['string', 'number', 'boolean', 'null'] } },
    required: ['value'],
    additionalProperties: false,
  };
  const union = tool({ inputSchema: scalar, outputSchema: scalar });
  for (const value of ['a', 1, true, null]) {
    const outcome = await runHandler({ tool: union, input: { value }, ctx: ctx(), importHandler: wrap((input) => input) });
    assert.deepStrictEqual(outcome, { kind: 'ok', value: { value } }, String(value));
  }
  const bad = await runHandler({ tool: union, input: { value: [1] }, ctx: ctx(), importHandler: wrap((input) => input) });
  assert.deepStrictEqual(bad, {
    kind: 'err',
    error: {
      code: 'input-validation-failed',
      message: 'Tool "test.echo" input failed validation',
      toolId: 'test.echo',
      issues: ajvIssues(scalar, 'input', { value: [1] }),
    },
  });
});

test('HR 80 a promise returned by the handler is awaited', async () => {
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'async' },
    ctx: ctx(),
    importHandler: wrap(async (input) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { echoed: input.message };
    }),
  });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { echoed: 'async' } });
});

test('HR 81 module shapes: a default function, run, handler (and the module itself, and defineTool wrappers)', async () => {
  const tagged = (tag) => () => ({ echoed: tag });
  const cases = [
    ['default function', { default: tagged('default') }, 'default'],
    ['run export', { run: tagged('run') }, 'run'],
    ['handler export', { handler: tagged('handler') }, 'handler'],
    ['the module is a function', tagged('module'), 'module'],
    ['default wins over handler and run', { default: tagged('default'), handler: tagged('handler'), run: tagged('run') }, 'default'],
    ['handler wins over run', { handler: tagged('handler'), run: tagged('run') }, 'handler'],
    ['a non-function default is skipped', { default: 42, run: tagged('run') }, 'run'],
    ['defineTool wrapper: default.handler', { default: { handler: tagged('default.handler') } }, 'default.handler'],
    ['defineTool wrapper: default.run', { default: { run: tagged('default.run') } }, 'default.run'],
    ['defineTool wrapper: .handler before .run', { default: { handler: tagged('h'), run: tagged('r') } }, 'h'],
    ['wrapper under handler', { handler: { handler: tagged('handler.handler') } }, 'handler.handler'],
    ['wrapper under run', { run: { run: tagged('run.run') } }, 'run.run'],
  ];
  for (const [label, module, tag] of cases) {
    const outcome = await runHandler({ tool: tool(), input: { message: 'x' }, ctx: ctx(), importHandler: wrap(module) });
    assert.deepStrictEqual(outcome, { kind: 'ok', value: { echoed: tag } }, label);
  }
  // A synchronous importer works too.
  const sync = await runHandler({ tool: tool(), input: { message: 'x' }, ctx: ctx(), importHandler: () => ({ run: tagged('sync') }) });
  assert.deepStrictEqual(sync, { kind: 'ok', value: { echoed: 'sync' } });
});

test('HR 82 ctx reaches the handler as the same object', async () => {
  let observed = null;
  const inputCtx = ctx({ env: { A: '1', B: '2' }, secrets: { S: 'shh' }, config: { c: true, d: 42 }, idempotencyKey: 'k' });
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'ctx' },
    ctx: inputCtx,
    importHandler: wrap((_input, receivedCtx) => {
      observed = receivedCtx;
      return { echoed: 'ok' };
    }),
  });
  assert.equal(outcome.kind, 'ok');
  assert.equal(observed, inputCtx);
});

test('the handler is called with `this` undefined', async () => {
  const seen = [];
  const modules = [
    { default: function () { seen.push(this); return { echoed: 'a' }; } },
    { handler: function () { seen.push(this); return { echoed: 'b' }; } },
    { run: function () { seen.push(this); return { echoed: 'c' }; } },
    { default: { handler() { seen.push(this); return { echoed: 'd' }; } } },
    { default: { run() { seen.push(this); return { echoed: 'e' }; } } },
  ];
  for (const module of modules) {
    const outcome = await runHandler({ tool: tool(), input: { message: 'x' }, ctx: ctx(), importHandler: wrap(module) });
    assert.equal(outcome.kind, 'ok');
  }
  assert.deepStrictEqual(seen, [undefined, undefined, undefined, undefined, undefined]);
});

// ---------------------------------------------------------------------------------------------
// HR: validation and failures
// ---------------------------------------------------------------------------------------------

test('HR 83 invalid input → input-validation-failed with toolId and Ajv issues; the handler is not called', async () => {
  let invoked = false;
  const { importer, calls } = recordingImporter({
    default: () => {
      invoked = true;
      return { echoed: 'unreached' };
    },
  });
  const input = { wrongField: 'nope' };
  const outcome = await runHandler({ tool: tool(), input, ctx: ctx(), importHandler: importer });
  assert.equal(invoked, false);
  assert.deepStrictEqual(calls, [], 'the module is not even imported');
  assert.equal(outcome.kind, 'err');
  const { error } = outcome;
  assert.deepStrictEqual(Object.keys(error), ['code', 'message', 'toolId', 'issues']);
  assert.equal(error.code, 'input-validation-failed');
  assert.equal(error.message, 'Tool "test.echo" input failed validation');
  assert.equal(error.toolId, 'test.echo');
  assert.ok(Array.isArray(error.issues) && error.issues.length > 0);
  // all of Ajv's errors (allErrors): the missing `message` and the extra `wrongField`
  assertSameIssues(error.issues, ajvIssues(ECHO_IN, 'input', input));
  assert.equal(error.issues.length, 2);
});

test('HR 84 invalid output → output-validation-failed with Ajv issues', async () => {
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'hi' },
    ctx: ctx(),
    importHandler: wrap(() => ({ wrongShape: 42 })),
  });
  assert.equal(outcome.kind, 'err');
  assert.deepStrictEqual(Object.keys(outcome.error), ['code', 'message', 'toolId', 'issues']);
  assert.equal(outcome.error.code, 'output-validation-failed');
  assert.equal(outcome.error.message, 'Tool "test.echo" handler produced output that failed validation');
  assert.equal(outcome.error.toolId, 'test.echo');
  assert.ok(Array.isArray(outcome.error.issues));
  assertSameIssues(outcome.error.issues, ajvIssues(ECHO_OUT, 'output', { wrongShape: 42 }));
});

test('HR 85 a handler returning undefined when the schema requires an object → output-validation-failed', async () => {
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'void' },
    ctx: ctx(),
    importHandler: wrap(() => undefined),
  });
  assert.deepStrictEqual(outcome, {
    kind: 'err',
    error: {
      code: 'output-validation-failed',
      message: 'Tool "test.echo" handler produced output that failed validation',
      toolId: 'test.echo',
      issues: ajvIssues(ECHO_OUT, 'output', undefined),
    },
  });
});

test('an undefined output that the output schema allows is {kind:"ok", value: undefined} (section 3.5 step 9)', async () => {
  const outcome = await runHandler({
    tool: tool({ outputSchema: {} }),
    input: { message: 'void' },
    ctx: ctx(),
    importHandler: wrap(() => undefined),
  });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: undefined });
});

test('HR 86 a thrown Error → handler-throw, message with kaboom, cause {name, message, stack}', async () => {
  const thrown = new Error('kaboom');
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'boom' },
    ctx: ctx(),
    importHandler: wrap(() => {
      throw thrown;
    }),
  });
  assert.equal(outcome.kind, 'err');
  assert.deepStrictEqual(Object.keys(outcome.error), ['code', 'message', 'toolId', 'cause']);
  assert.equal(outcome.error.code, 'handler-throw');
  assert.ok(outcome.error.message.includes('kaboom'));
  assert.equal(outcome.error.message, 'Handler for tool "test.echo" threw: Error: kaboom');
  assert.equal(outcome.error.toolId, 'test.echo');
  assert.equal(outcome.error.cause.message, 'kaboom');
  assert.deepStrictEqual(outcome.error.cause, { name: 'Error', message: 'kaboom', stack: thrown.stack });
  assert.deepStrictEqual(Object.keys(outcome.error.cause), ['name', 'message', 'stack']);
});

test('HR 86 a rejected promise and an Error subclass are handler-throw too, named by the subclass', async () => {
  class QuotaError extends Error {
    constructor(message) {
      super(message);
      this.name = 'QuotaError';
      this.extra = 'not serialized';
    }
  }
  const thrown = new QuotaError('over quota');
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'x' },
    ctx: ctx(),
    importHandler: wrap(async () => {
      throw thrown;
    }),
  });
  assert.deepStrictEqual(outcome, {
    kind: 'err',
    error: {
      code: 'handler-throw',
      message: 'Handler for tool "test.echo" threw: QuotaError: over quota',
      toolId: 'test.echo',
      cause: { name: 'QuotaError', message: 'over quota', stack: thrown.stack },
    },
  });
  const typeError = await runHandler({
    tool: tool(),
    input: { message: 'x' },
    ctx: ctx(),
    importHandler: wrap(() => null.x),
  });
  assert.equal(typeError.kind, 'err');
  assert.equal(typeError.error.code, 'handler-throw');
  assert.equal(typeError.error.cause.name, 'TypeError');
  assert.equal(typeError.error.message, `Handler for tool "test.echo" threw: TypeError: ${typeError.error.cause.message}`);
});

test('HR 87 a thrown string → handler-throw with cause equal to the string', async () => {
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'x' },
    ctx: ctx(),
    importHandler: wrap(() => {
      throw 'string-error';
    }),
  });
  assert.deepStrictEqual(outcome, {
    kind: 'err',
    error: {
      code: 'handler-throw',
      message: 'Handler for tool "test.echo" threw: string-error',
      toolId: 'test.echo',
      cause: 'string-error',
    },
  });
});

test('cause serialization: Error → {name,message,stack}; undefined → null; primitives kept; JSON-safe objects kept; circular → String(value)', async () => {
  const circular = { a: 1 };
  circular.self = circular;
  const plain = { reason: 'bad', codes: [1, 2] };
  const cases = [
    ['undefined', undefined, null, 'undefined'],
    ['null', null, null, 'null'],
    ['a string', 'oops', 'oops', 'oops'],
    ['a number', 42, 42, '42'],
    ['a boolean', false, false, 'false'],
    ['a JSON-safe object', plain, { reason: 'bad', codes: [1, 2] }, '[object Object]'],
    ['an array', [1, 'two'], [1, 'two'], '1,two'],
    ['a circular object', circular, '[object Object]', '[object Object]'],
    ['a BigInt', 10n, '10', '10'],
  ];
  for (const [label, thrown, cause, text] of cases) {
    const outcome = await runHandler({
      tool: tool(),
      input: { message: 'x' },
      ctx: ctx(),
      importHandler: wrap(() => {
        throw thrown;
      }),
    });
    assert.equal(outcome.kind, 'err', label);
    assert.deepStrictEqual(Object.keys(outcome.error), ['code', 'message', 'toolId', 'cause'], label);
    assert.deepStrictEqual(
      outcome.error,
      { code: 'handler-throw', message: `Handler for tool "test.echo" threw: ${text}`, toolId: 'test.echo', cause },
      label,
    );
  }
});

test('HR 88 a throwing importer → handler-import-failed, the message containing the cause', async () => {
  const thrown = new Error('module not found');
  const outcome = await runHandler({
    tool: tool(),
    input: { message: 'x' },
    ctx: ctx(),
    importHandler: () => {
      throw thrown;
    },
  });
  assert.equal(outcome.kind, 'err');
  assert.ok(outcome.error.message.includes('module not found'));
  assert.deepStrictEqual(outcome, {
    kind: 'err',
    error: {
      code: 'handler-import-failed',
      message: "Failed to import handler module '/fake/echo.js': Error: module not found",
      toolId: 'test.echo',
      cause: { name: 'Error', message: 'module not found', stack: thrown.stack },
    },
  });
  assert.deepStrictEqual(Object.keys(outcome.error), ['code', 'message', 'toolId', 'cause']);
  // A rejecting importer is the same failure.
  const rejected = await runHandler({
    tool: tool(),
    input: { message: 'x' },
    ctx: ctx(),
    importHandler: async () => {
      throw thrown;
    },
  });
  assert.deepStrictEqual(rejected, outcome);
});

test('HR 89 no callable export → handler-shape-invalid with the exact message', async () => {
  const shapes = [
    ['an unrelated export', { notAHandler: 42 }],
    ['an empty module', {}],
    ['null', null],
    ['a number', 7],
    ['a default object without handler/run', { default: { name: 'x' } }],
    ['non-function handler and run', { handler: 'h', run: 1 }],
  ];
  for (const [label, module] of shapes) {
    let importedPath;
    const outcome = await runHandler({
      tool: tool(),
      input: { message: 'x' },
      ctx: ctx(),
      importHandler: async (path) => {
        importedPath = path;
        return module;
      },
    });
    assert.equal(importedPath, '/fake/echo.js', label);
    assert.deepStrictEqual(
      outcome,
      {
        kind: 'err',
        error: {
          code: 'handler-shape-invalid',
          message: "Handler module '/fake/echo.js' does not export a handler function (looked for default / handler / run)",
          toolId: 'test.echo',
        },
      },
      label,
    );
    assert.deepStrictEqual(Object.keys(outcome.error), ['code', 'message', 'toolId'], label);
  }
});

test('input schema compile failure → input-validation-failed with the Ajv message and cause; nothing imported', async () => {
  const schema = { type: 'object', example: { message: 'hi' } };
  const ajvError = ajvCompileError(schema, 'input');
  const { importer, calls } = recordingImporter({ default: echo });
  const outcome = await runHandler({ tool: tool({ inputSchema: schema }), input: { message: 'x' }, ctx: ctx(), importHandler: importer });
  assert.deepStrictEqual(calls, []);
  assert.equal(outcome.kind, 'err');
  const { error } = outcome;
  assert.deepStrictEqual(Object.keys(error), ['code', 'message', 'toolId', 'cause']);
  assert.equal(error.code, 'input-validation-failed');
  assert.ok(
    error.message.startsWith('Tool "test.echo" input schema failed to compile: Error: strict mode: unknown keyword: "example"'),
    error.message,
  );
  assert.equal(error.message, `Tool "test.echo" input schema failed to compile: ${ajvError.name}: ${ajvError.message}`);
  assert.equal(error.toolId, 'test.echo');
  assert.deepStrictEqual(Object.keys(error.cause), ['name', 'message', 'stack']);
  assert.equal(error.cause.name, 'Error');
  assert.equal(error.cause.message, ajvError.message);
  assert.equal(typeof error.cause.stack, 'string');
});

test('input-side-only compile failure: a default inside anyOf is refused as input, accepted as output', async () => {
  const schema = {
    type: 'object',
    anyOf: [{ properties: { echoed: { type: 'string', default: 'x' } } }],
  };
  const ajvError = ajvCompileError(schema, 'input');
  assert.ok(ajvCompile(schema, 'output').validate, 'oracle: the output side compiles it');
  const asInput = await runHandler({ tool: tool({ inputSchema: schema }), input: {}, ctx: ctx(), importHandler: wrap(echo) });
  assert.equal(asInput.kind, 'err');
  assert.equal(asInput.error.code, 'input-validation-failed');
  assert.equal(asInput.error.message, `Tool "test.echo" input schema failed to compile: Error: ${ajvError.message}`);
  const asOutput = await runHandler({
    tool: tool({ outputSchema: schema }),
    input: { message: 'fine' },
    ctx: ctx(),
    importHandler: wrap(echo),
  });
  assert.deepStrictEqual(asOutput, { kind: 'ok', value: { echoed: 'fine' } });
});

test('output schema compile failure after the handler ran → output-validation-failed with cause', async () => {
  const schema = { type: 'object', example: { echoed: 'hi' } };
  const ajvError = ajvCompileError(schema, 'output');
  let ran = 0;
  const outcome = await runHandler({
    tool: tool({ outputSchema: schema }),
    input: { message: 'x' },
    ctx: ctx(),
    importHandler: wrap((input) => {
      ran += 1;
      return { echoed: input.message };
    }),
  });
  assert.equal(ran, 1, 'the handler has already run');
  assert.equal(outcome.kind, 'err');
  const { error } = outcome;
  assert.deepStrictEqual(Object.keys(error), ['code', 'message', 'toolId', 'cause']);
  assert.equal(error.code, 'output-validation-failed');
  assert.equal(error.message, `Tool "test.echo" output schema failed to compile: Error: ${ajvError.message}`);
  assert.equal(error.message, 'Tool "test.echo" output schema failed to compile: Error: strict mode: unknown keyword: "example"');
  assert.equal(error.toolId, 'test.echo');
  assert.equal(error.cause.name, 'Error');
  assert.equal(error.cause.message, ajvError.message);
});

test('runHandler never rejects: importers throwing non-Errors', async () => {
  const circular = {};
  circular.self = circular;
  const cases = [
    ['42', () => { throw 42; }, 42, '42'],
    ['undefined', () => { throw undefined; }, null, 'undefined'],
    ['null', async () => { throw null; }, null, 'null'],
    ['a string', () => Promise.reject('gone'), 'gone', 'gone'],
    ['a circular object', () => { throw circular; }, '[object Object]', '[object Object]'],
    ['a plain object', () => { throw { code: 'ENOENT' }; }, { code: 'ENOENT' }, '[object Object]'],
  ];
  for (const [label, importHandler, cause, text] of cases) {
    const outcome = await runHandler({ tool: tool(), input: { message: 'x' }, ctx: ctx(), importHandler });
    assert.deepStrictEqual(
      outcome,
      {
        kind: 'err',
        error: {
          code: 'handler-import-failed',
          message: `Failed to import handler module '/fake/echo.js': ${text}`,
          toolId: 'test.echo',
          cause,
        },
      },
      label,
    );
  }
});

// Ajv validates the handler's raw value, not its JSON text: one test per non-JSON output.
const NON_JSON_OUTPUTS = [
  ['a BigInt vs a string schema', { type: 'string' }, () => 10n],
  ['NaN vs number|null', { type: ['number', 'null'] }, () => NaN],
  ['a Date vs a string schema', { type: 'object', properties: { at: { type: 'string' } } }, () => ({ at: new Date(0) })],
  ['an undefined member vs additionalProperties:false', ECHO_OUT, () => ({ echoed: 'x', note: undefined })],
  // A boxed primitive is an object to Ajv (JSON.stringify would write its primitive).
  ['a boxed Number vs a number schema', { type: 'number' }, () => new Number(5)],
  ['a boxed String member vs a string schema', { type: 'object', properties: { s: { type: 'string' } } }, () => ({ s: new String('ab') })],
  ['a boxed Boolean in an array vs boolean items', { type: 'array', items: { type: 'boolean' } }, () => [true, new Boolean(false)]],
  // Ajv never calls toJSON: one that throws leaves a function-valued member to validate.
  [
    'an object whose toJSON throws vs additionalProperties:false',
    ECHO_OUT,
    () => ({
      echoed: 'x',
      toJSON() {
        throw new Error('no JSON');
      },
    }),
  ],
];

// DOCUMENTED KNOWN DIFFERENCE (docs/known-differences.md): a cyclic output cannot cross to the native validator as
// JSON. Ajv validates it (and the TypeScript service then fails writing it: a 500); runHandler
// answers output-validation-failed, naming the cause, and still never rejects.
test('runHandler refuses a cyclic output it cannot validate, without rejecting', async () => {
  const cyclic = { n: 1.5 };
  cyclic.self = cyclic;
  const outcome = await runHandler({
    tool: tool({ outputSchema: { type: 'object', properties: { n: { type: 'integer' } } } }),
    input: { message: 'x' },
    ctx: ctx(),
    importHandler: wrap(() => cyclic),
  });
  assert.equal(outcome.kind, 'err');
  assert.equal(outcome.error.code, 'output-validation-failed');
  assert.match(outcome.error.message, /^Tool "test\.echo" handler produced output that cannot be validated: Error: The value cannot be written as JSON: Converting circular structure/);
  assert.equal(outcome.error.toolId, 'test.echo');
  assert.equal(outcome.error.cause.name, 'Error');
});
for (const [label, outputSchema, make] of NON_JSON_OUTPUTS) {
  test(`runHandler never rejects and answers as Ajv on a non-JSON output: ${label}`, async () => {
    const produced = make();
    const outcome = await runHandler({
      tool: tool({ outputSchema }),
      input: { message: 'x' },
      ctx: ctx(),
      importHandler: wrap(() => produced),
    }).catch((rejection) => ({ rejected: `${rejection?.code ?? ''} ${rejection?.message ?? rejection}` }));
    const expected = ajvOutcome(outputSchema, 'output', produced);
    assert.equal(expected.valid, false, 'oracle: Ajv refuses the raw value');
    assert.deepStrictEqual(outcome, {
      kind: 'err',
      error: {
        code: 'output-validation-failed',
        message: 'Tool "test.echo" handler produced output that failed validation',
        toolId: 'test.echo',
        issues: expected.issues,
      },
    });
  });
}

test('the input is validated as given, not as its JSON text: an undefined member is an additional property', async () => {
  const input = { message: 'hi', extra: undefined };
  let called = false;
  const outcome = await runHandler({
    tool: tool(),
    input,
    ctx: ctx(),
    importHandler: wrap(() => {
      called = true;
      return { echoed: 'hi' };
    }),
  }).catch((rejection) => ({ rejected: `${rejection?.code ?? ''} ${rejection?.message ?? rejection}` }));
  assert.deepStrictEqual(outcome, {
    kind: 'err',
    error: {
      code: 'input-validation-failed',
      message: 'Tool "test.echo" input failed validation',
      toolId: 'test.echo',
      issues: ajvIssues(ECHO_IN, 'input', input),
    },
  });
  assert.equal(called, false);
});

// ---------------------------------------------------------------------------------------------
// HR: the input a handler receives
// ---------------------------------------------------------------------------------------------

test("HR 90 JSON Schema defaults are filled ('Kia ora, Ada!'), and the caller's input is unchanged", async () => {
  const input = { name: 'Ada' };
  let received;
  const outcome = await runHandler({
    tool: tool({ inputSchema: GREET_IN, outputSchema: GREET_OUT }),
    input,
    ctx: ctx(),
    importHandler: wrap((value) => {
      received = value;
      return greet(value);
    }),
  });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { message: 'Kia ora, Ada!' } });
  assert.deepStrictEqual(input, { name: 'Ada' });
  assert.deepStrictEqual(received, { name: 'Ada', greeting: 'Kia ora' });
  assert.notEqual(received, input, 'the handler gets the validated copy');
});

test("the caller's input is not mutated by nested defaults either", async () => {
  const schema = {
    type: 'object',
    properties: {
      opts: {
        type: 'object',
        properties: { depth: { type: 'integer', default: 3 }, tags: { type: 'array', default: ['a'] } },
        default: {},
      },
      list: { type: 'array', items: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
    },
  };
  const input = { list: [{}, { on: false }] };
  const snapshot = structuredClone(input);
  let received;
  const outcome = await runHandler({
    tool: tool({ inputSchema: schema, outputSchema: {} }),
    input,
    ctx: ctx(),
    importHandler: wrap((value) => {
      received = value;
      return value;
    }),
  });
  assert.equal(outcome.kind, 'ok');
  assert.deepStrictEqual(input, snapshot);
  assert.deepStrictEqual(received, ajvOutcome(schema, 'input', snapshot).value);
  assert.deepStrictEqual(received, { list: [{ on: true }, { on: false }], opts: { depth: 3, tags: ['a'] } });
});

const TIMES_IN = {
  ...GREET_IN,
  properties: { ...GREET_IN.properties, times: { type: 'number', default: 1 } },
};

function greetZod() {
  return z.object({
    name: z.string().transform((s) => s.trim()),
    greeting: z.string().default('Kia ora'),
    times: z
      .number()
      .refine((n) => n > 0, 'must be positive')
      .default(1),
  });
}

test('HR 91 a {default:{handler, inputZod}} module gets the Zod-parsed input (trim transform, defaults)', async () => {
  const inputZod = greetZod();
  const received = [];
  const handler = (value) => {
    received.push(value);
    return greet(value);
  };
  const module = { default: { handler, inputZod } };
  const input = { name: ' Ada ' };
  const outcome = await runHandler({
    tool: tool({ id: 'test.greet', inputSchema: TIMES_IN, outputSchema: GREET_OUT }),
    input,
    ctx: ctx(),
    importHandler: wrap(module),
  });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { message: 'Kia ora, Ada!' } });
  assert.deepStrictEqual(received, [{ name: 'Ada', greeting: 'Kia ora', times: 1 }]);
  assert.deepStrictEqual(input, { name: ' Ada ' });

  // Zod parses the validated copy: a JSON Schema default reaches a Zod schema that has none.
  const strictZod = z.object({ name: z.string().transform((s) => s.toUpperCase()), greeting: z.string() });
  const second = await runHandler({
    tool: tool({ id: 'test.greet', inputSchema: GREET_IN, outputSchema: GREET_OUT }),
    input: { name: 'ada' },
    ctx: ctx(),
    importHandler: wrap({ default: { handler: greet, inputZod: strictZod } }),
  });
  assert.deepStrictEqual(second, { kind: 'ok', value: { message: 'Kia ora, ADA!' } });
});

test('HR 91 inputZod is found on default / handler / run objects; a non-Zod inputZod is ignored', async () => {
  const upper = z.object({ message: z.string().transform((s) => s.toUpperCase()) });
  const modules = [
    ['default', { default: { handler: echo, inputZod: upper } }, 'HI'],
    ['handler', { handler: { handler: echo, inputZod: upper } }, 'HI'],
    ['run', { run: { run: echo, inputZod: upper } }, 'HI'],
    ['not Zod', { default: { handler: echo, inputZod: { parse: () => ({ message: 'nope' }) } } }, 'hi'],
  ];
  for (const [label, module, expected] of modules) {
    const outcome = await runHandler({ tool: tool(), input: { message: 'hi' }, ctx: ctx(), importHandler: wrap(module) });
    assert.deepStrictEqual(outcome, { kind: 'ok', value: { echoed: expected } }, label);
  }
});

test('HR 92 a failed Zod refinement → issues exactly [{instancePath:"/times", message}]', async () => {
  const inputZod = greetZod();
  // Zod's own message for this failure (the validated copy has the JSON default filled in).
  const parsed = inputZod.safeParse({ name: 'Ada', greeting: 'Kia ora', times: 0 });
  assert.equal(parsed.success, false);
  assert.equal(parsed.error.issues.length, 1);
  const zodMessage = parsed.error.issues[0].message;
  let called = false;
  const outcome = await runHandler({
    tool: tool({ id: 'test.greet', inputSchema: TIMES_IN, outputSchema: GREET_OUT }),
    input: { name: 'Ada', times: 0 },
    ctx: ctx(),
    importHandler: wrap({
      default: {
        handler: (value) => {
          called = true;
          return greet(value);
        },
        inputZod,
      },
    }),
  });
  assert.equal(called, false);
  assert.deepStrictEqual(outcome, {
    kind: 'err',
    error: {
      code: 'input-validation-failed',
      message: 'Tool "test.greet" input failed validation',
      toolId: 'test.greet',
      issues: [{ instancePath: '/times', message: zodMessage }],
    },
  });
  assert.deepStrictEqual(Object.keys(outcome.error), ['code', 'message', 'toolId', 'issues']);
  assert.deepStrictEqual(Object.keys(outcome.error.issues[0]), ['instancePath', 'message']);
});

test('Zod issue paths: every segment prefixed with "/", unescaped, all issues kept', async () => {
  const inputZod = z.object({
    'a/b': z.object({ 'c~d': z.array(z.number()) }),
    n: z.number().positive(),
  });
  const value = { 'a/b': { 'c~d': [1, 'x'] }, n: -1 };
  const parsed = inputZod.safeParse(value);
  assert.equal(parsed.success, false);
  const expected = parsed.error.issues.map((issue) => ({
    instancePath: issue.path.map((segment) => `/${String(segment)}`).join(''),
    message: issue.message,
  }));
  assert.deepStrictEqual(
    expected.map((issue) => issue.instancePath),
    ['/a/b/c~d/1', '/n'],
    'oracle: the paths this test expects',
  );
  const outcome = await runHandler({
    tool: tool({ inputSchema: { type: 'object' }, outputSchema: {} }),
    input: value,
    ctx: ctx(),
    importHandler: wrap({ default: { handler: (v) => v, inputZod } }),
  });
  assert.deepStrictEqual(outcome, {
    kind: 'err',
    error: {
      code: 'input-validation-failed',
      message: 'Tool "test.echo" input failed validation',
      toolId: 'test.echo',
      issues: expected,
    },
  });
});
