// Validation: the native validator against Ajv configured as the TypeScript package configures
// it, in the same process, on a small tool input and a 100 KB one. Verdicts are compared
// before anything is timed.
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { compileSchema } from '../index.js';
import { native as binding } from '../lib/native.js';
import { compare, fmt, ratio, table } from './lib.mjs';

const addFormats = addFormatsModule.default ?? addFormatsModule;

function ajvFor(side) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, ...(side === 'input' && { useDefaults: true }) });
  addFormats(ajv);
  return ajv;
}

const smallSchema = {
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 500 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
  },
};
const smallInput = { query: 'backpay for March', tags: ['payroll', 'urgent'] };

const recordSchema = {
  type: 'object',
  required: ['id', 'name', 'email', 'score'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    score: { type: 'number', minimum: 0, maximum: 100 },
    tags: { type: 'array', items: { type: 'string' } },
    active: { type: 'boolean', default: true },
  },
};
const bigSchema = { type: 'object', required: ['records'], properties: { records: { type: 'array', items: recordSchema } } };

function uuid(i) {
  const hex = i.toString(16).padStart(12, '0');
  return `123e4567-e89b-42d3-a456-${hex}`;
}
function bigInput() {
  const records = [];
  for (let i = 0; records.length === 0 || JSON.stringify(records).length < 100_000; i++) {
    records.push({ id: uuid(i), name: `Person ${i}`, email: `person${i}@example.com`, score: (i * 7) % 100, tags: ['a', 'b'] });
  }
  return { records };
}

export async function run({ rounds }) {
  const big = bigInput();
  const cases = [
    ['small input (61 B), input side', smallSchema, smallInput, 'input', 2000],
    ['small input, output side', smallSchema, smallInput, 'output', 2000],
    [`${Math.round(JSON.stringify(big).length / 1000)} KB input, input side`, bigSchema, big, 'input', 20],
    [`${Math.round(JSON.stringify(big).length / 1000)} KB input, output side`, bigSchema, big, 'output', 20],
  ];
  const rows = [];
  for (const [label, schema, value, side, inner] of cases) {
    const ajvValidate = ajvFor(side).compile(schema);
    const native = compileSchema(schema, side);
    // The TypeScript runner validates a structuredClone on the input side.
    const ajvCall = side === 'input' ? () => ajvValidate(structuredClone(value)) : () => ajvValidate(value);
    const nativeCall = () => native.validate(value);
    const expected = structuredClone(value);
    assert.equal(ajvValidate(expected), true, `${label}: Ajv refuses the bench value`);
    const outcome = native.validate(value);
    assert.equal(outcome.valid, true, `${label}: the native validator refuses the bench value`);
    assert.deepEqual(outcome.value, side === 'input' ? expected : value, `${label}: different values`);
    const times = await compare({ ajv: ajvCall, native: nativeCall }, { rounds, inner });
    rows.push([label, `${fmt(times.ajv * 1000)} µs`, `${fmt(times.native * 1000)} µs`, ratio(times.ajv, times.native)]);
  }
  // The service path: the TypeScript service parses the body and validates a clone of the input
  // on the JS thread; the native service parses and validates the body bytes in Rust.
  const serviceRows = [];
  for (const [label, schema, value, inner] of [['small input', smallSchema, smallInput, 2000], ['100 KB input', bigSchema, big, 20]]) {
    const text = JSON.stringify(value);
    const ajvValidate = ajvFor('input').compile(schema);
    const nativeCompiled = binding.compileSchemaJson(JSON.stringify(schema), 'input');
    const times = await compare(
      {
        ajv: () => ajvValidate(structuredClone(JSON.parse(text))),
        native: () => nativeCompiled.validateJson(text),
      },
      { rounds, inner },
    );
    serviceRows.push([label, `${fmt(times.ajv * 1000)} µs`, `${fmt(times.native * 1000)} µs`, ratio(times.ajv, times.native), `${fmt(times.ajv * 1000)} µs`, '0 µs']);
  }
  return {
    title: `Validation: native compileSchema().validate against Ajv (as @kindgi/handler-runtime configures it), median of ${rounds} interleaved rounds`,
    text: `${table(['case', 'Ajv', 'native (JS API)', 'native speed-up'], rows)}

The JS API pays for handing the value to Rust (JSON text) and, on the input side, for the
structuredClone that receives the defaults: Ajv's generated JavaScript is faster for a caller
that already holds the value in JavaScript.

The service path, body text to a validated input (TypeScript: JSON.parse, structuredClone and
Ajv on the JS thread; native: parse and validate in Rust, timed here through the binding):

${table(['case', 'TypeScript path', 'native path', 'native speed-up', 'JS thread, TypeScript', 'JS thread, native service'], serviceRows)}`,
  };
}
