// The handler runner (`runHandler`, `runCheck`) and the schema compiler (`compileSchema`) through
// the public root entry. Reference: spec/ts-reference.md sections 3.5, 3.6, 3.7 and checklist
// items 78-100 (HR) and 71-73 (CC, adapted: the check module applies its own default and throws
// the `defineCheck` message itself, since `defineCheck` lives in a package not available here).
//
// Ajv 8 (configured exactly as section 3.7 says) is the oracle for every expected issue list and
// every compile failure; Zod 4 is the oracle for Zod messages.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import * as z from 'zod';

import { runHandler, runCheck, compileSchema } from '../index.js';
import { FIT_TEXT, MIN_LENGTH_ID, minLengthModule } from './helpers/min-length-check.mjs';

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

// ajv-formats is CommonJS: the default import is the plugin or a module object carrying it.
const addFormats = typeof addFormatsModule === 'function' ? addFormatsModule : addFormatsModule.default;

/** A fresh Ajv configured like the TypeScript package for `side` (section 3.7). */
function makeAjv(side) {
  const input = side === 'input';
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, ...(input && { useDefaults: true }) });
  addFormats(ajv);
  return ajv;
}

/** Ajv's compile: `{validate}` or `{error}`. */
function ajvCompile(schema, side) {
  try {
    return { validate: makeAjv(side).compile(schema) };
  } catch (error) {
    return { error };
  }
}

/** What Ajv says about `value` (the input side validates a structuredClone, as the TS runner does). */
function ajvOutcome(schema, side, value) {
  const { validate, error } = ajvCompile(schema, side);
  if (error) throw new Error(`oracle: Ajv refuses the test schema ${JSON.stringify(schema)}: ${error.message}`);
  const data = side === 'input' ? structuredClone(value) : value;
  return validate(data) ? { valid: true, value: data } : { valid: false, issues: validate.errors };
}

function ajvIssues(schema, side, value) {
  const outcome = ajvOutcome(schema, side, value);
  assert.equal(outcome.valid, false, `oracle: Ajv accepts ${JSON.stringify(value)}`);
  return outcome.issues;
}

/** The error Ajv throws compiling `schema`. */
function ajvCompileError(schema, side) {
  const { error } = ajvCompile(schema, side);
  assert.ok(error, `oracle: Ajv compiles ${JSON.stringify(schema)} on the ${side} side`);
  return error;
}

/** Same issues, same values and the same key order (Ajv's `instancePath, schemaPath, keyword, params, message`). */
function assertSameIssues(actual, expected, label = '') {
  assert.deepStrictEqual(actual, expected, label);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${label} (key order)`);
}

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const ECHO_IN = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
  additionalProperties: false,
};
const ECHO_OUT = {
  type: 'object',
  properties: { echoed: { type: 'string' } },
  required: ['echoed'],
  additionalProperties: false,
};

const tool = (overrides = {}) => ({
  id: 'test.echo',
  modulePath: '/fake/echo.js',
  inputSchema: ECHO_IN,
  outputSchema: ECHO_OUT,
  ...overrides,
});

const ctx = (overrides = {}) => ({
  tenantId: 'tenant-1',
  runId: 'run-1',
  requestId: 'req-1',
  env: { KEY: 'value' },
  secrets: { API_KEY: 'redacted' },
  config: { model: 'fast' },
  ...overrides,
});

const wrap = (module) => async () => module;
const echo = (input) => ({ echoed: input.message });

const CHECK = { id: 'test.cites', modulePath: '/fake/cites.js' };
const CITES_SCHEMA = {
  type: 'object',
  properties: { minChars: { type: 'integer', minimum: 0, default: 1 } },
};

const GREET_IN = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    greeting: { type: 'string', default: 'Kia ora' },
  },
  required: ['name'],
  additionalProperties: false,
};
const GREET_OUT = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
  additionalProperties: false,
};
const greet = (input) => ({ message: `${input.greeting}, ${input.name}!` });

/** An importer that records the paths it was asked for. */
function recordingImporter(module) {
  const calls = [];
  const importer = (path) => {
    calls.push(path);
    return module;
  };
  return { importer, calls };
}

// Real module files for the default importers: a directory whose path has a space and a `#`.
let tempBase;
let tempModules;
async function moduleDir() {
  if (tempModules === undefined) {
    tempBase = await mkdtemp(join(tmpdir(), 'kindgi hr #'));
    tempModules = join(tempBase, 'pack #1 dir');
    await mkdir(tempModules, { recursive: true });
  }
  return tempModules;
}
after(async () => {
  if (tempBase !== undefined) await rm(tempBase, { recursive: true, force: true });
});

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

// ---------------------------------------------------------------------------------------------
// HR: runCheck
// ---------------------------------------------------------------------------------------------

test('HR 93 evaluate receives config and trace, and its result is returned', async () => {
  const seen = [];
  const config = { strict: true };
  const trace = { output: 'hi' };
  const outcome = await runCheck({
    check: CHECK,
    config,
    trace,
    importCheck: () => ({
      evaluate: (c, t) => {
        seen.push(c, t);
        return { passed: true };
      },
    }),
  });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { passed: true } });
  assert.deepStrictEqual(seen, [{ strict: true }, { output: 'hi' }]);
  assert.equal(seen[0], config, 'the config as sent');
  assert.equal(seen[1], trace);
  // The result is returned unvalidated, awaited when a promise.
  const odd = { whatever: [1, 2] };
  const unvalidated = await runCheck({ check: CHECK, config: {}, trace: {}, importCheck: () => ({ evaluate: async () => odd }) });
  assert.deepStrictEqual(unvalidated, { kind: 'ok', value: odd });
  assert.equal(unvalidated.value, odd);
  const nothing = await runCheck({ check: CHECK, config: {}, trace: {}, importCheck: () => ({ evaluate: () => undefined }) });
  assert.deepStrictEqual(nothing, { kind: 'ok', value: undefined });
});

test('HR 93 check module shapes: evaluate, then default, then check; a function or an object with evaluate', async () => {
  const tagged = (tag) => () => ({ passed: true, tag });
  const cases = [
    ['bare evaluate', { evaluate: tagged('evaluate') }, 'evaluate'],
    ['default function', { default: tagged('default') }, 'default'],
    ['default object', { default: { evaluate: tagged('default.evaluate') } }, 'default.evaluate'],
    ['check object', { check: { evaluate: tagged('check.evaluate') } }, 'check.evaluate'],
    ['check function', { check: tagged('check') }, 'check'],
    ['evaluate wins', { evaluate: tagged('evaluate'), default: tagged('default'), check: tagged('check') }, 'evaluate'],
    ['default wins over check', { default: { evaluate: tagged('default') }, check: { evaluate: tagged('check') } }, 'default'],
    ['a default without evaluate falls through to check', { default: { id: 'x' }, check: { evaluate: tagged('check') } }, 'check'],
  ];
  for (const [label, module, tag] of cases) {
    const outcome = await runCheck({ check: CHECK, config: {}, trace: {}, importCheck: async () => module });
    assert.deepStrictEqual(outcome, { kind: 'ok', value: { passed: true, tag } }, label);
  }
});

test('HR 94 bindings equal {abortSignal} when a signal is given, and {} when not', async () => {
  const call = new AbortController();
  const seen = [];
  const importCheck = () => ({
    check: {
      evaluate: (_config, _trace, bindings) => {
        seen.push(bindings);
        return { passed: true };
      },
    },
  });
  await runCheck({ check: CHECK, config: {}, trace: {}, abortSignal: call.signal, importCheck });
  await runCheck({ check: CHECK, config: {}, trace: {}, importCheck });
  assert.equal(seen.length, 2);
  assert.deepStrictEqual(seen[0], { abortSignal: call.signal });
  assert.equal(seen[0].abortSignal, call.signal);
  assert.deepStrictEqual(Object.keys(seen[0]), ['abortSignal']);
  assert.deepStrictEqual(seen[1], {});
  assert.deepStrictEqual(Object.keys(seen[1]), []);
});

test('evaluate is called with `this` undefined (a class-based check using this → handler-throw)', async () => {
  let seenThis = 'unset';
  await runCheck({
    check: CHECK,
    config: {},
    trace: {},
    importCheck: () => ({
      check: {
        evaluate() {
          seenThis = this;
          return { passed: true };
        },
      },
    }),
  });
  assert.equal(seenThis, undefined);

  class MinChars {
    constructor() {
      this.min = 1;
    }
    evaluate() {
      return { passed: this.min > 0 };
    }
  }
  const outcome = await runCheck({ check: CHECK, config: {}, trace: {}, importCheck: () => ({ check: new MinChars() }) });
  assert.equal(outcome.kind, 'err');
  assert.equal(outcome.error.code, 'handler-throw');
  assert.equal(outcome.error.cause.name, 'TypeError');
  assert.equal(outcome.error.message, `Check "test.cites" evaluate() threw: TypeError: ${outcome.error.cause.message}`);
});

test('HR 95 {default:{}} → check-shape-invalid with the exact message', async () => {
  for (const [label, module] of [
    ['default {}', { default: {} }],
    ['empty module', {}],
    ['null', null],
    ['non-function evaluate', { evaluate: 'no', default: { evaluate: 1 }, check: {} }],
  ]) {
    const outcome = await runCheck({ check: CHECK, config: {}, trace: {}, importCheck: () => module });
    assert.deepStrictEqual(
      outcome,
      {
        kind: 'err',
        error: {
          code: 'check-shape-invalid',
          message:
            "Check module '/fake/cites.js' does not export a check with .evaluate() (looked for default / check / bare export with evaluate)",
          toolId: 'test.cites',
        },
      },
      label,
    );
    assert.deepStrictEqual(Object.keys(outcome.error), ['code', 'message', 'toolId'], label);
  }
});

test('runCheck: a throwing evaluate → handler-throw; a throwing importer → handler-import-failed', async () => {
  const thrown = new RangeError('too long');
  const threw = await runCheck({
    check: CHECK,
    config: {},
    trace: {},
    importCheck: () => ({
      evaluate: async () => {
        throw thrown;
      },
    }),
  });
  assert.deepStrictEqual(threw, {
    kind: 'err',
    error: {
      code: 'handler-throw',
      message: 'Check "test.cites" evaluate() threw: RangeError: too long',
      toolId: 'test.cites',
      cause: { name: 'RangeError', message: 'too long', stack: thrown.stack },
    },
  });
  assert.deepStrictEqual(Object.keys(threw.error), ['code', 'message', 'toolId', 'cause']);

  const importError = new Error('no such check');
  const failed = await runCheck({
    check: CHECK,
    config: {},
    trace: {},
    importCheck: () => {
      throw importError;
    },
  });
  assert.deepStrictEqual(failed, {
    kind: 'err',
    error: {
      code: 'handler-import-failed',
      message: "Failed to import check module '/fake/cites.js': Error: no such check",
      toolId: 'test.cites',
      cause: { name: 'Error', message: 'no such check', stack: importError.stack },
    },
  });
  assert.deepStrictEqual(Object.keys(failed.error), ['code', 'message', 'toolId', 'cause']);
});

test('runCheck never rejects: importers and evaluate throwing non-Errors', async () => {
  const circular = {};
  circular.self = circular;
  const importCases = [
    ['undefined', () => { throw undefined; }, null, 'undefined'],
    ['42', async () => { throw 42; }, 42, '42'],
    ['a string', () => Promise.reject('gone'), 'gone', 'gone'],
    ['a circular object', () => { throw circular; }, '[object Object]', '[object Object]'],
  ];
  for (const [label, importCheck, cause, text] of importCases) {
    const outcome = await runCheck({ check: CHECK, config: {}, trace: {}, importCheck });
    assert.deepStrictEqual(
      outcome,
      {
        kind: 'err',
        error: {
          code: 'handler-import-failed',
          message: `Failed to import check module '/fake/cites.js': ${text}`,
          toolId: 'test.cites',
          cause,
        },
      },
      label,
    );
  }
  const evaluateUndefined = await runCheck({
    check: CHECK,
    config: {},
    trace: {},
    importCheck: () => ({
      evaluate: () => {
        throw undefined;
      },
    }),
  });
  assert.deepStrictEqual(evaluateUndefined, {
    kind: 'err',
    error: { code: 'handler-throw', message: 'Check "test.cites" evaluate() threw: undefined', toolId: 'test.cites', cause: null },
  });
});

test('HR 96 a config that breaks configSchema → exact message, toolId, Ajv issues; the module never imported', async () => {
  const { importer, calls } = recordingImporter({ evaluate: () => ({ passed: true }) });
  const config = { minChars: -1 };
  const outcome = await runCheck({ check: { ...CHECK, configSchema: CITES_SCHEMA }, config, trace: {}, importCheck: importer });
  assert.deepStrictEqual(calls, []);
  assert.equal(outcome.kind, 'err');
  const { error } = outcome;
  assert.deepStrictEqual(Object.keys(error), ['code', 'message', 'toolId', 'issues']);
  assert.equal(error.code, 'input-validation-failed');
  assert.equal(error.message, 'Check "test.cites" config failed validation at /minChars: must be >= 0');
  assert.equal(error.toolId, 'test.cites');
  assert.ok(error.issues.some((issue) => issue.instancePath === '/minChars' && issue.keyword === 'minimum'));
  assertSameIssues(error.issues, ajvIssues(CITES_SCHEMA, 'output', config));
  assert.deepStrictEqual(config, { minChars: -1 });
});

test('runCheck config message: no " at" for a root issue; every issue carried', async () => {
  const schema = {
    type: 'object',
    properties: { minChars: { type: 'integer', minimum: 0 }, mode: { enum: ['a', 'b'] } },
    required: ['minChars'],
    additionalProperties: false,
  };
  const config = { mode: 'c', extra: true };
  const expectedIssues = ajvIssues(schema, 'output', config);
  const first = expectedIssues[0];
  const outcome = await runCheck({ check: { ...CHECK, configSchema: schema }, config, trace: {}, importCheck: () => ({}) });
  assert.deepStrictEqual(outcome, {
    kind: 'err',
    error: {
      code: 'input-validation-failed',
      message: `Check "test.cites" config failed validation${first.instancePath === '' ? '' : ` at ${first.instancePath}`}: ${first.message}`,
      toolId: 'test.cites',
      issues: expectedIssues,
    },
  });
  assert.equal(first.instancePath, '', 'oracle: the first issue is at the root');
  assert.ok(outcome.error.message.startsWith('Check "test.cites" config failed validation: '));
});

test('HR 97 config {} is passed as sent: default values are not filled', async () => {
  const seen = [];
  const config = {};
  const outcome = await runCheck({
    check: { ...CHECK, configSchema: CITES_SCHEMA },
    config,
    trace: {},
    importCheck: () => ({
      evaluate: (c) => {
        seen.push(c);
        return { passed: true };
      },
    }),
  });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { passed: true } });
  assert.deepStrictEqual(seen, [{}]);
  assert.deepStrictEqual(config, {});
  // Checked on the output side: a default inside anyOf (an input-side refusal) compiles here.
  const composite = { type: 'object', anyOf: [{ properties: { minChars: { type: 'integer', default: 1 } } }] };
  assert.ok(ajvCompile(composite, 'output').validate, 'oracle: the output side compiles it');
  const compositeOutcome = await runCheck({
    check: { ...CHECK, configSchema: composite },
    config: {},
    trace: {},
    importCheck: () => ({ evaluate: (c) => ({ passed: true, config: c }) }),
  });
  assert.deepStrictEqual(compositeOutcome, { kind: 'ok', value: { passed: true, config: {} } });
});

test("HR 98 a configSchema {type:'no-such-type'} → input-validation-failed, compile message, the check not run", async () => {
  const schema = { type: 'no-such-type' };
  const ajvError = ajvCompileError(schema, 'output');
  let ran = false;
  const { importer, calls } = recordingImporter({
    evaluate: () => {
      ran = true;
      return { passed: true };
    },
  });
  const outcome = await runCheck({ check: { ...CHECK, configSchema: schema }, config: {}, trace: {}, importCheck: importer });
  assert.equal(ran, false);
  assert.deepStrictEqual(calls, []);
  assert.equal(outcome.kind, 'err');
  const { error } = outcome;
  assert.deepStrictEqual(Object.keys(error), ['code', 'message', 'toolId', 'cause']);
  assert.equal(error.code, 'input-validation-failed');
  assert.ok(error.message.startsWith('Check "test.cites" config schema failed to compile: '), error.message);
  assert.equal(error.message, `Check "test.cites" config schema failed to compile: Error: ${ajvError.message}`);
  assert.equal(error.toolId, 'test.cites');
  assert.equal(error.cause.name, 'Error');
  assert.equal(error.cause.message, ajvError.message);
});

// ---------------------------------------------------------------------------------------------
// HR: default importers (0.1.6)
// ---------------------------------------------------------------------------------------------

const TOOL_MODULE = `export default function echo(input, ctx) {
  return { echoed: input.message + ' for ' + ctx.tenantId };
}
`;
const CHECK_MODULE = `export const check = {
  evaluate: (config, trace, bindings) => ({ passed: trace.output === 'ok', config, bindings: Object.keys(bindings) }),
};
`;

test('HR 99 an absolute path with "#" and a space loads, for both a handler and a check', async () => {
  const dir = await moduleDir();
  assert.ok(dir.includes(' ') && dir.includes('#'));
  const toolPath = join(dir, 'echo #tool.mjs');
  const checkPath = join(dir, 'cites check.mjs');
  await writeFile(toolPath, TOOL_MODULE, 'utf8');
  await writeFile(checkPath, CHECK_MODULE, 'utf8');

  const outcome = await runHandler({ tool: tool({ modulePath: toolPath }), input: { message: 'hi' }, ctx: ctx() });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { echoed: 'hi for tenant-1' } });

  const checked = await runCheck({ check: { id: 'test.cites', modulePath: checkPath }, config: { n: 1 }, trace: { output: 'ok' } });
  assert.deepStrictEqual(checked, { kind: 'ok', value: { passed: true, config: { n: 1 }, bindings: [] } });
});

test('HR 99 a missing absolute path → handler-import-failed naming the path as given', async () => {
  const dir = await moduleDir();
  const missing = join(dir, 'no such #module.mjs');
  const outcome = await runHandler({ tool: tool({ modulePath: missing }), input: { message: 'hi' }, ctx: ctx() });
  assert.equal(outcome.kind, 'err');
  assert.equal(outcome.error.code, 'handler-import-failed');
  assert.equal(outcome.error.toolId, 'test.echo');
  assert.ok(outcome.error.message.startsWith(`Failed to import handler module '${missing}': Error: `), outcome.error.message);
  assert.equal(outcome.error.cause.name, 'Error');
  assert.equal(outcome.error.message, `Failed to import handler module '${missing}': Error: ${outcome.error.cause.message}`);

  const checked = await runCheck({ check: { id: 'test.cites', modulePath: missing }, config: {}, trace: {} });
  assert.equal(checked.kind, 'err');
  assert.equal(checked.error.code, 'handler-import-failed');
  assert.ok(checked.error.message.startsWith(`Failed to import check module '${missing}': Error: `), checked.error.message);
});

test('HR 100 a file: URL is imported as given, for a handler and a check', async () => {
  const dir = await moduleDir();
  const toolPath = join(dir, 'url tool #2.mjs');
  const checkPath = join(dir, 'url check #2.mjs');
  await writeFile(toolPath, TOOL_MODULE, 'utf8');
  await writeFile(checkPath, CHECK_MODULE, 'utf8');
  const toolUrl = pathToFileURL(toolPath).href;
  const checkUrl = pathToFileURL(checkPath).href;
  assert.ok(toolUrl.startsWith('file:') && toolUrl.includes('%23') && toolUrl.includes('%20'));

  const outcome = await runHandler({ tool: tool({ modulePath: toolUrl }), input: { message: 'yo' }, ctx: ctx({ tenantId: 't2' }) });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { echoed: 'yo for t2' } });

  const signal = new AbortController().signal;
  const checked = await runCheck({ check: { id: 'test.cites', modulePath: checkUrl }, config: {}, trace: { output: 'no' }, abortSignal: signal });
  assert.deepStrictEqual(checked, { kind: 'ok', value: { passed: false, config: {}, bindings: ['abortSignal'] } });

  // A file: URL that names nothing fails with the URL, as given, in the message.
  const missingUrl = pathToFileURL(join(dir, 'gone #3.mjs')).href;
  const missing = await runHandler({ tool: tool({ modulePath: missingUrl }), input: { message: 'yo' }, ctx: ctx() });
  assert.equal(missing.kind, 'err');
  assert.equal(missing.error.code, 'handler-import-failed');
  assert.ok(missing.error.message.startsWith(`Failed to import handler module '${missingUrl}': Error: `), missing.error.message);
});

// ---------------------------------------------------------------------------------------------
// CC: a check that resolves its own config (adapted from the defineCheck sample guardrail)
// ---------------------------------------------------------------------------------------------

let minLengthPath;
async function minLengthCheck(config, output) {
  if (minLengthPath === undefined) {
    const dir = await moduleDir();
    const path = join(dir, 'guardrails', 'min-length.mjs');
    await mkdir(join(dir, 'guardrails'), { recursive: true });
    await writeFile(path, minLengthModule(new URL('../index.js', import.meta.url).href), 'utf8');
    minLengthPath = path;
  }
  return runCheck({ check: { id: MIN_LENGTH_ID, modulePath: minLengthPath }, config, trace: { output } });
}

test("CC 71 config {} gets the check's own default (minLength 5): 'hi' fails, a long text passes", async () => {
  const config = {};
  assert.deepStrictEqual(await minLengthCheck(config, 'hi'), { kind: 'ok', value: { passed: false, reason: 'shorter than 5' } });
  assert.deepStrictEqual(config, {}, 'the runner passes the config as sent, untouched');
  assert.deepStrictEqual(await minLengthCheck({}, 'hello there'), { kind: 'ok', value: { passed: true } });
});

test('CC 72 a declared config {minLength:1} beats the default', async () => {
  assert.deepStrictEqual(await minLengthCheck({ minLength: 1 }, 'hi'), { kind: 'ok', value: { passed: true } });
});

test('CC 73 config {minLength:-1} → not a result; handler-throw carrying the check\'s own message', async () => {
  const outcome = await minLengthCheck({ minLength: -1 }, 'hi');
  assert.notEqual(outcome.kind, 'ok');
  assert.ok(JSON.stringify(outcome).includes(FIT_TEXT), JSON.stringify(outcome));
  assert.equal(outcome.error.code, 'handler-throw');
  assert.equal(outcome.error.toolId, MIN_LENGTH_ID);
  const inner = `Check "${MIN_LENGTH_ID}": ${FIT_TEXT}: must be >= 0`;
  assert.equal(outcome.error.message, `Check "${MIN_LENGTH_ID}" evaluate() threw: Error: ${inner}`);
  assert.equal(outcome.error.cause.name, 'Error');
  assert.equal(outcome.error.cause.message, inner);
});

// ---------------------------------------------------------------------------------------------
// compileSchema: Ajv's answers
// ---------------------------------------------------------------------------------------------

const ISSUE_CASES = [
  ['type', { type: 'string' }, 42],
  [
    'required',
    { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name', 'age'] },
    { age: 1.5 },
  ],
  [
    'additionalProperties',
    { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    { a: 'x', b: 1, c: 2 },
  ],
  ['enum and const', { type: 'object', properties: { color: { enum: ['red', 'green'] }, v: { const: 2 } } }, { color: 'blue', v: 3 }],
  [
    'minimum, maximum, exclusiveMinimum, multipleOf',
    {
      type: 'object',
      properties: {
        a: { type: 'number', minimum: 0 },
        b: { type: 'integer', maximum: 10, multipleOf: 3 },
        c: { type: 'number', exclusiveMinimum: 1 },
      },
    },
    { a: -1, b: 11, c: 1 },
  ],
  ['pattern, minLength', { type: 'string', pattern: '^[a-z]+$', minLength: 3 }, 'A1'],
  [
    'format',
    {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date-time' },
        id: { type: 'string', format: 'uuid' },
        site: { type: 'string', format: 'uri' },
        day: { type: 'string', format: 'date' },
        ip: { type: 'string', format: 'ipv4' },
      },
    },
    { email: 'not-an-email', when: '2024-13-01T00:00:00Z', id: 'xyz', site: 'no scheme', day: '2024-02-30', ip: '1.2.3' },
  ],
  [
    'nested properties and items',
    {
      type: 'object',
      properties: {
        user: {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string' }, minItems: 4 } },
          required: ['tags'],
        },
      },
    },
    { user: { tags: ['a', 1, null] } },
  ],
  ['anyOf', { anyOf: [{ type: 'string' }, { type: 'number', minimum: 5 }] }, 2],
  ['oneOf', { oneOf: [{ type: 'number' }, { type: 'integer' }] }, 3],
  [
    'if/then/else (then branch)',
    {
      type: 'object',
      properties: { kind: { type: 'string' }, n: { type: 'number' } },
      if: { properties: { kind: { const: 'a' } } },
      then: { properties: { n: { type: 'number' } }, required: ['n'] },
      else: { properties: { n: { type: 'number', maximum: 0 } } },
    },
    { kind: 'a' },
  ],
  [
    'if/then/else (else branch)',
    {
      type: 'object',
      properties: { kind: { type: 'string' }, n: { type: 'number' } },
      if: { properties: { kind: { const: 'a' } } },
      then: { properties: { n: { type: 'number' } }, required: ['n'] },
      else: { properties: { n: { type: 'number', maximum: 0 } } },
    },
    { kind: 'b', n: 5 },
  ],
  ['propertyNames', { type: 'object', propertyNames: { type: 'string', pattern: '^[a-z]+$', maxLength: 3 } }, { abcd: 1, B: 2, ok: 3 }],
  ['uniqueItems', { type: 'array', uniqueItems: true, items: { type: 'number' } }, [1, 2, 1, 3, 3]],
  [
    '$ref/$defs',
    {
      $defs: { pos: { type: 'integer', minimum: 1 } },
      type: 'object',
      properties: { a: { $ref: '#/$defs/pos' }, b: { type: 'array', items: { $ref: '#/$defs/pos' } } },
    },
    { a: 0, b: [1, -2, 'x'] },
  ],
  ['false schema', false, { any: 'thing' }],
  [
    'dependentRequired, contains, maxProperties',
    {
      type: 'object',
      properties: {
        card: { type: 'string' },
        billing: { type: 'string' },
        list: { type: 'array', contains: { type: 'string' } },
      },
      dependentRequired: { card: ['billing'] },
      maxProperties: 1,
    },
    { card: 'x', list: [1, 2] },
  ],
];

// One test per case, so every disagreement shows.
for (const [label, schema, value] of ISSUE_CASES) {
  test(`compileSchema issues are exactly Ajv's, both sides: ${label}`, () => {
    for (const side of ['input', 'output']) {
      const expected = ajvIssues(schema, side, value);
      const snapshot = structuredClone(value);
      const outcome = compileSchema(schema, side).validate(value);
      assert.deepStrictEqual(outcome, { valid: false, issues: expected }, `${label} (${side})`);
      assert.deepStrictEqual(Object.keys(outcome), ['valid', 'issues'], `${label} (${side})`);
      assertSameIssues(outcome.issues, expected, `${label} (${side})`);
      assert.deepStrictEqual(value, snapshot, `${label} (${side}): the value is untouched`);
    }
  });
}

test('compileSchema: propertyNames issues carry propertyName', () => {
  const schema = { type: 'object', propertyNames: { type: 'string', maxLength: 2 } };
  const { issues } = compileSchema(schema, 'output').validate({ long: 1 });
  const expected = ajvIssues(schema, 'output', { long: 1 });
  assertSameIssues(issues, expected);
  assert.ok(issues.some((issue) => issue.propertyName === 'long'));
});

test('compileSchema: valid values — the input side returns a default-filled copy, the output side the value as given', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      greeting: { type: 'string', default: 'Kia ora' },
      opts: { type: 'object', properties: { n: { type: 'integer', default: 2 } }, default: {} },
    },
    required: ['name'],
  };
  const value = { name: 'Ada' };
  const input = compileSchema(schema, 'input').validate(value);
  assert.deepStrictEqual(Object.keys(input), ['valid', 'value']);
  assert.equal(input.valid, true);
  assert.deepStrictEqual(input.value, ajvOutcome(schema, 'input', value).value);
  assert.deepStrictEqual(input.value, { name: 'Ada', greeting: 'Kia ora', opts: { n: 2 } });
  assert.notEqual(input.value, value, 'a copy');
  assert.deepStrictEqual(value, { name: 'Ada' }, 'the caller value is untouched');

  const output = compileSchema(schema, 'output').validate(value);
  assert.deepStrictEqual(output, { valid: true, value: { name: 'Ada' } });
  assert.equal(output.value, value, 'the same object');

  // A value with nothing to fill is still a copy on the input side, equal to the original.
  const plain = { name: 'Bo', greeting: 'Hi', opts: { n: 1 } };
  const again = compileSchema(schema, 'input').validate(plain);
  assert.deepStrictEqual(again, { valid: true, value: plain });
  assert.notEqual(again.value, plain);

  // Valid values of the issue cases agree with Ajv too.
  const valids = [
    [{ type: ['string', 'number', 'boolean', 'null'] }, null],
    [{ anyOf: [{ type: 'string' }, { type: 'number', minimum: 5 }] }, 7],
    [{ type: 'array', uniqueItems: true, items: { type: 'number' } }, [1, 2, 3]],
    [{ type: 'string', format: 'date-time' }, '2024-01-02T03:04:05Z'],
    [true, { anything: [1] }],
  ];
  for (const [s, v] of valids) {
    for (const side of ['input', 'output']) {
      assert.deepStrictEqual(compileSchema(s, side).validate(v), ajvOutcome(s, side, v), `${JSON.stringify(s)} (${side})`);
    }
  }
});

const REFUSED_SCHEMAS = [
  ['no schema at all', undefined],
  ['a function', () => ({})],
  ['null', null],
  ['unknown keyword', { type: 'object', example: { a: 1 } }],
  ['vendor keyword', { type: 'string', 'x-ui': 'wide' }],
  ['invalid type', { type: 'no-such-type' }],
  ['properties without type', { properties: { a: { type: 'string' } } }],
  ['required not in properties', { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }],
  ['minimum without a number type', { type: 'object', properties: { n: { minimum: 0 } } }],
  ['unknown format', { type: 'string', format: 'no-such-format' }],
  ['another $schema', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }],
  ['prefixItems without items (strictTuples)', { type: 'array', prefixItems: [{ type: 'string' }] }],
  ['a missing $ref', { $ref: '#/$defs/missing' }],
  [
    'required in then, declared only in the parent (strictRequired)',
    {
      type: 'object',
      properties: { kind: { type: 'string' }, n: { type: 'number' } },
      if: { properties: { kind: { const: 'a' } } },
      then: { required: ['n'] },
    },
  ],
];

test("compileSchema: a schema Ajv refuses throws code 'schema-compile-failed' with Ajv's name and message", () => {
  for (const [label, schema] of REFUSED_SCHEMAS) {
    for (const side of ['input', 'output']) {
      const ajvError = ajvCompileError(schema, side);
      assert.throws(
        () => compileSchema(schema, side),
        (error) => {
          assert.ok(error instanceof Error, `${label} (${side})`);
          assert.equal(error.code, 'schema-compile-failed', `${label} (${side})`);
          assert.equal(error.name, ajvError.name, `${label} (${side})`);
          assert.equal(error.message, ajvError.message, `${label} (${side})`);
          return true;
        },
        `${label} (${side})`,
      );
    }
  }
  // Input side only: a default inside a composite keyword.
  const composite = { type: 'object', oneOf: [{ properties: { a: { type: 'string', default: 'x' } } }] };
  const ajvError = ajvCompileError(composite, 'input');
  assert.throws(() => compileSchema(composite, 'input'), (error) => {
    assert.equal(error.code, 'schema-compile-failed');
    assert.equal(error.name, ajvError.name);
    assert.equal(error.message, ajvError.message);
    return true;
  });
  assert.doesNotThrow(() => compileSchema(composite, 'output'));
});

test('compileSchema: a schema object compiled twice gives the same answers', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer', default: 1 } } };
  const first = compileSchema(schema, 'input');
  const second = compileSchema(schema, 'input');
  assert.deepStrictEqual(first.validate({}), { valid: true, value: { n: 1 } });
  assert.deepStrictEqual(second.validate({}), { valid: true, value: { n: 1 } });
  assert.deepStrictEqual(compileSchema(schema, 'output').validate({}), { valid: true, value: {} });
  // An equal but distinct schema object behaves the same.
  assert.deepStrictEqual(compileSchema(structuredClone(schema), 'input').validate({ n: 'x' }), {
    valid: false,
    issues: ajvIssues(schema, 'input', { n: 'x' }),
  });
});

test('a schema edited in place is compiled again, as TypeScript keys validators by schema text', async () => {
  const schema = { type: 'string' };
  assert.equal(compileSchema(schema, 'input').validate('x').valid, true);
  schema.type = 'number';
  assert.equal(compileSchema(schema, 'input').validate('x').valid, false);
  const options = { tool: { id: 't', modulePath: 'm', inputSchema: schema, outputSchema: {} }, input: 'x', ctx: {}, importHandler: async () => () => 1 };
  assert.equal((await runHandler(options)).error?.code, 'input-validation-failed');
  schema.type = 'string';
  assert.deepStrictEqual(await runHandler(options), { kind: 'ok', value: 1 });
});

// ---------------------------------------------------------------------------------------------
// Outputs whose getters throw: Ajv throws only where its code reads the member
// ---------------------------------------------------------------------------------------------

/** An output whose `g` getter throws; `a` and `n.d` likewise, `n.d` nested. */
const withThrowingGetters = () => ({
  a: 1,
  get g() {
    throw new Error('getter boom');
  },
  n: {
    x: 2,
    get d() {
      throw new Error('nested boom');
    },
  },
});
/** An array whose item 1 is a getter that throws. */
const withThrowingItem = () => {
  const list = [{ a: 1 }, 2, { a: 1 }];
  Object.defineProperty(list, 1, {
    enumerable: true,
    get() {
      throw new Error('item boom');
    },
  });
  return list;
};

// Each schema with what Ajv does on the output: valid, issues, or a throw (checked against Ajv).
const GETTER_SCHEMAS = [
  ['an empty schema', {}, withThrowingGetters],
  ['type object', { type: 'object' }, withThrowingGetters],
  ['required reads it', { type: 'object', properties: { g: {} }, required: ['g'] }, withThrowingGetters],
  ['properties read it', { type: 'object', properties: { g: { type: 'string' } } }, withThrowingGetters],
  ['an always-valid property schema does not', { type: 'object', properties: { g: {} } }, withThrowingGetters],
  ['required fails elsewhere without reading it', { type: 'object', properties: { a: {}, zz: {} }, required: ['a', 'zz'] }, withThrowingGetters],
  ['additionalProperties:false lists keys only', { type: 'object', properties: { a: {} }, additionalProperties: false }, withThrowingGetters],
  ['additionalProperties with a schema reads it', { type: 'object', additionalProperties: { type: 'number' } }, withThrowingGetters],
  ['propertyNames and minProperties do not', { type: 'object', propertyNames: { maxLength: 1 }, minProperties: 9 }, withThrowingGetters],
  ['dependentRequired reads it', { type: 'object', properties: { a: {}, g: {} }, dependentRequired: { a: ['g'] } }, withThrowingGetters],
  ['a nested property read', { type: 'object', properties: { n: { type: 'object', properties: { d: { type: 'number' } } } } }, withThrowingGetters],
  ['a nested property not read', { type: 'object', properties: { n: { type: 'object', properties: { x: { type: 'string' } } } } }, withThrowingGetters],
  ['const compares from the last key', { const: { a: 1, g: 1, n: 1 } }, withThrowingGetters],
  ['const stops at a difference first', { const: { a: 2, g: 1, n: { d: 1, x: 3 } } }, withThrowingGetters],
  ['enum of primitives compares with ===', { enum: [1, 'x'] }, withThrowingGetters],
  ['unevaluatedProperties:false lists keys only', { type: 'object', properties: { a: {} }, unevaluatedProperties: false }, withThrowingGetters],
  ['items read every item', { type: 'array', items: { type: 'object' } }, withThrowingItem],
  ['maxItems reads none', { type: 'array', maxItems: 1 }, withThrowingItem],
  ['uniqueItems compares items', { type: 'array', uniqueItems: true }, withThrowingItem],
];

/** What Ajv does: `{ valid }`, `{ issues }` or `{ threw: message }`. */
function ajvOnGetters(schema, value) {
  try {
    const outcome = ajvOutcome(schema, 'output', value);
    return outcome.valid ? { valid: true } : { issues: outcome.issues };
  } catch (cause) {
    return { threw: cause.message };
  }
}

test('compileSchema: a getter that throws throws from validate exactly where Ajv reads it', () => {
  const seen = new Set();
  for (const [label, schema, make] of GETTER_SCHEMAS) {
    const expected = ajvOnGetters(schema, make());
    seen.add(Object.keys(expected)[0]);
    let got;
    try {
      const result = compileSchema(schema, 'output').validate(make());
      got = result.valid ? { valid: true } : { issues: result.issues };
    } catch (cause) {
      got = { threw: cause.message };
    }
    assert.deepStrictEqual(got, expected, label);
  }
  assert.deepStrictEqual([...seen].sort(), ['issues', 'threw', 'valid'], 'the cases cover each outcome');
});

test("runHandler: a throwing getter Ajv never reads is the output; one it reads rejects, as TypeScript's runner does", async () => {
  for (const [label, schema, make] of GETTER_SCHEMAS) {
    const expected = ajvOnGetters(schema, make());
    const produced = make();
    const outcome = await runHandler({
      tool: tool({ outputSchema: schema }),
      input: { message: 'x' },
      ctx: ctx(),
      importHandler: wrap(() => produced),
    }).catch((rejection) => ({ rejected: rejection.message }));
    if (expected.threw !== undefined) {
      assert.deepStrictEqual(outcome, { rejected: expected.threw }, label);
    } else if (expected.valid) {
      assert.equal(outcome.kind, 'ok', label);
      assert.equal(outcome.value, produced, label);
    } else {
      assert.deepStrictEqual(
        outcome,
        {
          kind: 'err',
          error: {
            code: 'output-validation-failed',
            message: 'Tool "test.echo" handler produced output that failed validation',
            toolId: 'test.echo',
            issues: expected.issues,
          },
        },
        label,
      );
    }
  }
});

test("runCheck: a config getter the config schema reads rejects, as TypeScript's runCheck does", async () => {
  const schema = { type: 'object', properties: { g: { type: 'string' } } };
  const options = (config) => ({ check: { ...CHECK, configSchema: schema }, config, trace: [], importCheck: wrap({ evaluate: () => 'ran' }) });
  await assert.rejects(runCheck(options(withThrowingGetters())), { message: 'getter boom' });
  const unread = { s: 'x', get other() { throw new Error('never read'); } };
  assert.deepStrictEqual(await runCheck(options(unread)), { kind: 'ok', value: 'ran' });
});

// ---------------------------------------------------------------------------------------------
// Validation that throws: TypeScript's runner calls Ajv's validate outside any try (and clones
// the input with structuredClone before it), so whatever those throw rejects the call's promise
// (its service answers 500 with the message). handler-runner.ts, runHandler and runCheck.
// ---------------------------------------------------------------------------------------------

/** Schemas Ajv's generated code recurses on forever, whatever the (acyclic) value. */
const FOREVER_SCHEMAS = [
  ['a root $ref to itself', { $ref: '#' }, {}],
  ['a $ref to itself beside a type', { type: 'object', $ref: '#' }, { message: 'x' }],
  ['allOf through the root', { allOf: [{ $ref: '#' }] }, 1],
  ['not through the root', { not: { $ref: '#' } }, 'x'],
  ['a $dynamicRef to its own anchor', { $dynamicAnchor: 'n', $dynamicRef: '#n' }, [1]],
];

/** What Ajv's validate throws on `side`, as `{ name, message }` (the oracle must throw). */
function ajvThrow(schema, side, value) {
  const { validate, error } = ajvCompile(schema, side);
  if (error) throw new Error(`oracle: Ajv refuses the test schema ${JSON.stringify(schema)}: ${error.message}`);
  try {
    validate(side === 'input' ? structuredClone(value) : value);
  } catch (cause) {
    return { name: cause.name, message: cause.message };
  }
  assert.fail(`oracle: Ajv's validate does not throw on ${JSON.stringify(schema)}`);
}

/** A settled promise as `{ resolved }` or `{ rejected: { name, message } }`. */
const settled = (promise) =>
  promise.then(
    (resolved) => ({ resolved }),
    (cause) => ({ rejected: { name: cause?.name, message: cause?.message } }),
  );

test('compileSchema: a schema that recurses forever throws from validate as Ajv does, on both sides', () => {
  for (const side of ['input', 'output']) {
    for (const [label, schema, value] of FOREVER_SCHEMAS) {
      const expected = ajvThrow(schema, side, value);
      let got;
      try {
        got = { returned: compileSchema(schema, side).validate(value) };
      } catch (cause) {
        got = { name: cause.name, message: cause.message };
      }
      assert.deepStrictEqual(got, expected, `${side}: ${label}`);
    }
  }
});

test('runHandler rejects as TypeScript does when the input schema recurses forever, before importing the module', async () => {
  for (const [label, inputSchema, input] of FOREVER_SCHEMAS) {
    const { importer, calls } = recordingImporter(echo);
    const outcome = await settled(runHandler({ tool: tool({ inputSchema, outputSchema: {} }), input, ctx: ctx(), importHandler: importer }));
    assert.deepStrictEqual(outcome, { rejected: ajvThrow(inputSchema, 'input', input) }, label);
    assert.deepStrictEqual(calls, [], `${label}: the module is not imported`);
  }
});

test('runHandler rejects as TypeScript does when the output schema recurses forever, after the handler ran', async () => {
  for (const [label, outputSchema, output] of FOREVER_SCHEMAS) {
    let ran = 0;
    const outcome = await settled(
      runHandler({
        tool: tool({ inputSchema: {}, outputSchema }),
        input: { message: 'x' },
        ctx: ctx(),
        importHandler: wrap(() => {
          ran += 1;
          return output;
        }),
      }),
    );
    assert.deepStrictEqual(outcome, { rejected: ajvThrow(outputSchema, 'output', output) }, label);
    assert.equal(ran, 1, label);
  }
});

test('runCheck rejects as TypeScript does when the config schema recurses forever, before importing the module', async () => {
  for (const [label, configSchema, config] of FOREVER_SCHEMAS) {
    const { importer, calls } = recordingImporter({ evaluate: () => 'ran' });
    const outcome = await settled(runCheck({ check: { ...CHECK, configSchema }, config, trace: [], importCheck: importer }));
    assert.deepStrictEqual(outcome, { rejected: ajvThrow(configSchema, 'output', config) }, label);
    assert.deepStrictEqual(calls, [], `${label}: the module is not imported`);
  }
});

test("runHandler clones the input before validating it, as TypeScript does: what structuredClone refuses rejects", async () => {
  const cloneThrow = (value) => {
    try {
      structuredClone(value);
    } catch (cause) {
      return { name: cause.name, message: cause.message };
    }
    assert.fail('oracle: structuredClone takes the value');
  };
  const inputs = [
    // The schema would refuse the extra member; the clone refuses the function first.
    ['a function member', ECHO_IN, () => ({ message: 'x', call() {} })],
    // A getter the schema never reads (an always-valid property): the clone reads it.
    ['a getter that throws', { type: 'object', properties: { g: {} } }, () => ({ get g() { throw new Error('input boom'); } })],
    ['a symbol', {}, () => Symbol('s')],
  ];
  for (const [label, inputSchema, make] of inputs) {
    const { importer, calls } = recordingImporter(echo);
    const outcome = await settled(runHandler({ tool: tool({ inputSchema, outputSchema: {} }), input: make(), ctx: ctx(), importHandler: importer }));
    assert.deepStrictEqual(outcome, { rejected: cloneThrow(make()) }, label);
    assert.deepStrictEqual(calls, [], `${label}: the module is not imported`);
  }
});

test('the handler gets the validated clone: getters read once into data, defaults filled, the caller untouched', async () => {
  let reads = 0;
  const input = {
    get message() {
      reads += 1;
      return 'hi';
    },
  };
  const schema = { type: 'object', properties: { message: { type: 'string' }, n: { type: 'integer', default: 2 } }, required: ['message'] };
  let received;
  const outcome = await runHandler({
    tool: tool({ inputSchema: schema, outputSchema: {} }),
    input,
    ctx: ctx(),
    importHandler: wrap((value) => {
      received = value;
      return 'ok';
    }),
  });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: 'ok' });
  assert.deepStrictEqual(received, { message: 'hi', n: 2 });
  assert.deepStrictEqual(Object.getOwnPropertyDescriptor(received, 'message'), { value: 'hi', writable: true, enumerable: true, configurable: true });
  assert.equal(reads, 1, 'the getter is read once, by the clone');
  assert.equal('n' in input, false);
});

// DOCUMENTED KNOWN DIFFERENCE (docs/known-differences.md): a cyclic input cannot cross to the native validator as
// JSON. TypeScript validates the clone (and rejects only where its schema recurses into the
// cycle); runHandler answers input-validation-failed, naming the cause, and never runs the handler.
test('runHandler refuses a cyclic input it cannot validate, without rejecting', async () => {
  const cyclic = { message: 'x' };
  cyclic.self = cyclic;
  const { importer, calls } = recordingImporter(echo);
  const outcome = await runHandler({ tool: tool({ inputSchema: { type: 'object' } }), input: cyclic, ctx: ctx(), importHandler: importer });
  assert.equal(outcome.kind, 'err');
  assert.equal(outcome.error.code, 'input-validation-failed');
  assert.match(outcome.error.message, /^Tool "test\.echo" input cannot be validated: Error: The value cannot be written as JSON: Converting circular structure/);
  assert.equal(outcome.error.cause.name, 'Error');
  assert.deepStrictEqual(calls, []);
});

// ---------------------------------------------------------------------------------------------
// Lone surrogates (a string cut between the halves of a pair) validate as Ajv validates them
// ---------------------------------------------------------------------------------------------

test('runHandler and runCheck take lone surrogates in the input, output and config', async () => {
  const got = await runHandler({
    tool: tool({ inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }),
    input: { s: '\udc00' },
    ctx: ctx(),
    importHandler: wrap((input) => ({ s: '\ud800', echoed: input.s })),
  });
  assert.deepStrictEqual(got, { kind: 'ok', value: { s: '\ud800', echoed: '\udc00' } });
  const checked = await runCheck({
    check: { ...CHECK, configSchema: { type: 'object', properties: { s: { type: 'string', maxLength: 1 } } } },
    config: { s: '\ud800' },
    trace: [],
    importCheck: wrap({ evaluate: (config) => config.s }),
  });
  assert.deepStrictEqual(checked, { kind: 'ok', value: '\ud800' });
});

test('compileSchema: lone surrogates in values, keys and schemas answer as Ajv, echoed back as they were', () => {
  const cases = [
    [{ type: 'object', properties: { s: { type: 'string', maxLength: 1 } } }, { s: '\udc00x' }],
    [{ type: 'object', additionalProperties: false }, { 'k\ud800': 1 }],
    [{ type: 'object', propertyNames: { maxLength: 1 } }, { '\udc00\ud800': 1 }],
    [{ type: 'object', patternProperties: { '.': { type: 'string' } } }, { '\ud800': 1 }],
    [{ const: '\ud800' }, '\udc00'],
    [{ enum: ['\ud800', 'a'] }, 'b'],
    [{ type: 'string', pattern: '^.$' }, '\ud800'],
    [{ type: 'object', properties: { '\ud800': { default: '\udc00' } } }, { o: '\udfff' }],
  ];
  for (const side of ['input', 'output']) {
    for (const [schema, value] of cases) {
      const expected = ajvOutcome(schema, side, value);
      const got = compileSchema(schema, side).validate(value);
      assert.deepStrictEqual(got, expected, `${side} ${JSON.stringify(schema)}`);
    }
  }
});
