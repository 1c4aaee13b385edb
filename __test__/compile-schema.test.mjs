// compileSchema through the public root entry: its issues, values and refusals against Ajv's.
// Reference: spec/ts-reference.md section 3.7.
//
// Ajv 8 (configured exactly as section 3.7 says, __test__/helpers/runner-fixtures.mjs) is the
// oracle for every expected issue list and every compile failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runHandler, compileSchema } from '../index.js';
import { ajvOutcome, ajvIssues, ajvCompileError, assertSameIssues } from './helpers/runner-fixtures.mjs';

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

test('a schema object reused unchanged gets its validator without being written again; any edit is seen', () => {
  const schema = { type: 'object', required: ['a'], properties: { a: { type: 'string', enum: ['x', 'y'] }, n: { enum: [[1, null], 2] } } };
  const first = compileSchema(schema, 'output');
  for (let i = 0; i < 3; i++) assert.equal(compileSchema(schema, 'output'), first);
  const accepts = (value) => compileSchema(schema, 'output').validate(value).valid;
  assert.equal(accepts({ a: 'x' }), true);
  const edits = [
    [() => { schema.properties.a.enum[1] = 'z'; }, { a: 'y' }, false],
    [() => { schema.properties.a.enum.push('y'); }, { a: 'y' }, true],
    [() => { schema.required = ['a', 'n']; }, { a: 'x' }, false],
    [() => { delete schema.required; }, {}, true],
    [() => { schema.properties.a = { type: 'number' }; }, { a: 'x' }, false],
    [() => { schema.properties.a.type = 'string'; }, { a: 'x' }, true],
    [() => { schema.properties.n.enum[0].pop(); }, { a: 'x', n: [1, null] }, false],
    [() => { schema.properties.n.enum[0].push(null); }, { a: 'x', n: [1, null] }, true],
    [() => { schema.maxProperties = 0; }, { a: 'x' }, false],
    [() => { schema.maxProperties = undefined; }, { a: 'x' }, true],
    [() => { schema.properties.a.toJSON = () => ({ type: 'number' }); }, { a: 'x' }, false],
    [() => { delete schema.properties.a.toJSON; }, { a: 'x' }, true],
    [() => { Object.defineProperty(schema, 'minProperties', { get: () => 2, enumerable: true, configurable: true }); }, { a: 'x' }, false],
    [() => { delete schema.minProperties; }, { a: 'x' }, true],
  ];
  for (const [edit, value, valid] of edits) {
    edit();
    // Each edit twice over: the call that takes the new text, and the ones that reuse it.
    for (let i = 0; i < 3; i++) assert.equal(accepts(value), valid, `${edit} (${i})`);
  }
  // An equal schema made again has the same text, and so the same validator.
  assert.equal(compileSchema(JSON.parse(JSON.stringify(schema)), 'output'), compileSchema(schema, 'output'));
});

test('a boxed primitive in a reused schema is its primitive, as JSON.stringify writes it', () => {
  const schema = { type: 'object', properties: { n: {} } };
  const accepts = () => compileSchema(schema, 'output').validate({ n: 3 }).valid;
  // Three calls: the text, then its shape, then the shape reused.
  for (let i = 0; i < 3; i++) assert.equal(accepts(), true);
  // An empty object's keys, but `false` as text: a schema no value passes.
  schema.properties.n = new Boolean(false);
  for (let i = 0; i < 3; i++) assert.equal(accepts(), false, `boxed, call ${i}`);
  schema.properties.n = new Number(5);
  assert.throws(() => compileSchema(schema, 'output'), { code: 'schema-compile-failed' });
});

test('a schema reused unchanged is read as JSON.stringify reads it: each getter once a call', () => {
  let reads = 0;
  const schema = {
    type: 'object',
    get properties() {
      reads++;
      return { a: { type: 'string' } };
    },
  };
  for (let i = 1; i <= 4; i++) {
    assert.equal(compileSchema(schema, 'input').validate({ a: 1 }).valid, false);
    assert.equal(reads, i);
  }
});

test('compileSchema: values nested past 127 levels are judged as Ajv judges them', () => {
  // unevaluatedProperties: no in-process fast path, so the native validator reads the value.
  const schema = { type: ['array', 'object'], items: { $ref: '#' }, unevaluatedProperties: { $ref: '#' } };
  const nested = (depth, leaf) => {
    let value = leaf;
    for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { k: value };
    return value;
  };
  for (const side of ['input', 'output']) {
    const validator = compileSchema(schema, side);
    for (const depth of [200, 1000, 2000]) {
      for (const leaf of [[], 1]) {
        const value = nested(depth, leaf);
        // Compared as text: assert's deep comparison recurses past the stack on such values.
        const [ours, ajvs] = [validator.validate(value), ajvOutcome(schema, side, value)];
        assert.equal(JSON.stringify(ours), JSON.stringify(ajvs), `${depth} levels, leaf ${JSON.stringify(leaf)} (${side})`);
      }
    }
  }
});
