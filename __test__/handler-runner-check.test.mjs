// runCheck through the public root entry. Reference: spec/ts-reference.md section 3.6, checklist
// items 93-98 (HR) and 71-73 (CC, adapted: the check module applies its own default and throws
// the `defineCheck` message itself, since `defineCheck` lives in a package not available here).
//
// Ajv 8 (configured exactly as section 3.7 says, __test__/helpers/runner-fixtures.mjs) is the
// oracle for every expected issue list and every compile failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCheck } from '../index.js';
import { FIT_TEXT, MIN_LENGTH_ID, minLengthModule } from './helpers/min-length-check.mjs';
import { ajvCompile, ajvIssues, ajvCompileError, assertSameIssues, CHECK, CITES_SCHEMA, recordingImporter, moduleDir } from './helpers/runner-fixtures.mjs';

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
