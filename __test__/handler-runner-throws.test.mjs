// Validation that throws (getters Ajv reads, schemas that recurse forever, what structuredClone
// refuses, cyclic values) and lone surrogates, through runHandler, runCheck and compileSchema
// as the TypeScript runner meets them.
//
// Ajv 8 (configured exactly as section 3.7 says, __test__/helpers/runner-fixtures.mjs) is the
// oracle for every expected issue list and every compile failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runHandler, runCheck, compileSchema } from '../index.js';
import { ajvCompile, ajvOutcome, ECHO_IN, tool, ctx, wrap, echo, CHECK, recordingImporter } from './helpers/runner-fixtures.mjs';

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
