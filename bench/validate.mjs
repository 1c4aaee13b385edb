// Validation: the native validator against Ajv configured as the TypeScript package configures
// it, in the same process. In process: compileSchema().validate, runHandler and runCheck
// against the TypeScript runner's steps done with Ajv; compiling the example and fixture
// packs' schemas; and the service path (body text to a validated input). Answers are
// compared before anything is timed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { compileSchema, runCheck, runHandler } from '../index.js';
import { native as binding } from '../lib/native.js';
import { passesFast } from '../lib/validate.js';
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

/** A realistic tool input: nested objects, enums, formats, defaults. */
const orderSchema = {
  type: 'object',
  required: ['customer', 'items', 'currency'],
  additionalProperties: false,
  properties: {
    orderId: { type: 'string', format: 'uuid' },
    customer: {
      type: 'object',
      required: ['name', 'email'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        email: { type: 'string', format: 'email' },
        phone: { type: 'string', pattern: '^\\+?[0-9 ()-]{6,20}$' },
        address: {
          type: 'object',
          required: ['line1', 'city', 'country'],
          properties: {
            line1: { type: 'string' },
            line2: { type: 'string' },
            city: { type: 'string' },
            postcode: { type: 'string', maxLength: 12 },
            country: { type: 'string', enum: ['NZ', 'AU', 'GB', 'US', 'CA', 'DE', 'FR'] },
          },
        },
      },
    },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['sku', 'quantity'],
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
          quantity: { type: 'integer', minimum: 1, maximum: 1000 },
          unitPrice: { type: 'number', minimum: 0 },
          giftWrap: { type: 'boolean', default: false },
        },
      },
    },
    currency: { type: 'string', enum: ['NZD', 'AUD', 'GBP', 'USD', 'CAD', 'EUR'] },
    priority: { type: 'string', enum: ['low', 'normal', 'high'], default: 'normal' },
    deliverBy: { type: 'string', format: 'date' },
    notes: { type: 'string', maxLength: 2000 },
  },
};
const orderInput = {
  orderId: '3f2b8c1e-9d4a-4f6b-8e2a-1c5d7e9f0a3b',
  customer: {
    name: 'Aroha Ngata',
    email: 'aroha.ngata@example.co.nz',
    phone: '+64 21 555 0199',
    address: { line1: '12 Kent Terrace', city: 'Wellington', postcode: '6011', country: 'NZ' },
  },
  items: [
    { sku: 'TEA-0042', quantity: 2, unitPrice: 12.5 },
    { sku: 'MUG-1001', quantity: 1, unitPrice: 24, giftWrap: true },
    { sku: 'HNY-0300', quantity: 3, unitPrice: 18.9 },
  ],
  currency: 'NZD',
  deliverBy: '2026-12-20',
  notes: 'Leave at the door.',
};

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
/** About 100 KB: records each with a `uuid` and an `email` string. */
function bigInput() {
  const records = [];
  for (let i = 0; records.length === 0 || JSON.stringify(records).length < 100_000; i++) {
    records.push({ id: uuid(i), name: `Person ${i}`, email: `person${i}@example.com`, score: (i * 7) % 100, tags: ['a', 'b'] });
  }
  return { records };
}

const big = bigInput();
const bigLabel = `${Math.round(JSON.stringify(big).length / 1000)} KB, ${big.records.length} uuid strings`;
const CASES = [
  ['small tool input (61 B)', smallSchema, smallInput, 20000],
  [`realistic tool input (${JSON.stringify(orderInput).length} B)`, orderSchema, orderInput, 5000],
  [bigLabel, bigSchema, big, 20],
];

/** The TypeScript runner's validators: Ajv's, found by the side and the schema's text. */
function typeScriptValidators() {
  const cache = new Map();
  return (schema, side) => {
    const key = `${side}:${JSON.stringify(schema)}`;
    let validate = cache.get(key);
    if (validate === undefined) cache.set(key, (validate = ajvFor(side).compile(schema)));
    return validate;
  };
}

/** The TypeScript runner's steps with Ajv. */
function typeScriptRunner() {
  const validatorFor = typeScriptValidators();
  const modules = new Map();
  const importPath = async (path) => modules.get(path);
  return {
    modules,
    async runHandler({ tool, input, ctx }) {
      const checkInput = validatorFor(tool.inputSchema, 'input');
      const candidate = structuredClone(input);
      if (!checkInput(candidate)) return { kind: 'err', issues: checkInput.errors };
      const module = await importPath(tool.modulePath);
      const output = await module.default(candidate, ctx);
      const checkOutput = validatorFor(tool.outputSchema, 'output');
      if (!checkOutput(output)) return { kind: 'err', issues: checkOutput.errors };
      return { kind: 'ok', value: output };
    },
    async runCheck({ check, config, trace }) {
      const checkConfig = validatorFor(check.configSchema, 'output');
      if (!checkConfig(config)) return { kind: 'err', issues: checkConfig.errors };
      const module = await importPath(check.modulePath);
      return { kind: 'ok', value: await module.default.evaluate(config, trace, {}) };
    },
  };
}

async function inProcessRows(rounds) {
  const rows = [];
  for (const [label, schema, value, inner] of CASES) {
    for (const side of ['input', 'output']) {
      const ajvValidate = ajvFor(side).compile(schema);
      const native = compileSchema(schema, side);
      // The TypeScript runner validates a structuredClone on the input side.
      const ajvCall = side === 'input' ? () => ajvValidate(structuredClone(value)) : () => ajvValidate(value);
      const expected = structuredClone(value);
      assert.equal(ajvValidate(expected), true, `${label}: Ajv refuses the bench value`);
      const outcome = native.validate(value);
      assert.equal(outcome.valid, true, `${label}: the native validator refuses the bench value`);
      assert.deepEqual(outcome.value, side === 'input' ? expected : value, `${label}: different values`);
      const times = await compare({ ajv: ajvCall, native: () => native.validate(value) }, { rounds, inner });
      rows.push([`${label}, ${side} side`, `${fmt(times.ajv * 1000)} µs`, `${fmt(times.native * 1000)} µs`, ratio(times.ajv, times.native)]);
    }
  }
  return rows;
}

async function runnerRows(rounds) {
  const rows = [];
  const typeScript = typeScriptRunner();
  const echo = { default: (input) => input };
  const check = { default: { evaluate: (config) => ({ ok: config !== null }) } };
  typeScript.modules.set('echo.mjs', echo);
  typeScript.modules.set('check.mjs', check);
  const importHandler = async () => echo;
  const importCheck = async () => check;
  for (const [label, schema, value, inner] of CASES) {
    const tool = { id: 'bench.echo', modulePath: 'echo.mjs', inputSchema: schema, outputSchema: schema };
    const options = { tool, input: value, ctx: {}, importHandler };
    const ours = await runHandler(options);
    const theirs = await typeScript.runHandler(options);
    assert.equal(ours.kind, 'ok', `${label}: runHandler fails`);
    assert.deepEqual(ours, theirs, `${label}: runHandler answers differently`);
    const times = await compare({ ts: () => typeScript.runHandler(options), native: () => runHandler(options) }, { rounds, inner });
    rows.push([`runHandler, echo, ${label}`, `${fmt(times.ts * 1000)} µs`, `${fmt(times.native * 1000)} µs`, ratio(times.ts, times.native)]);
  }
  for (const [label, schema, value, inner] of CASES) {
    const options = { check: { id: 'bench.check', modulePath: 'check.mjs', configSchema: schema }, config: value, trace: {}, importCheck };
    assert.deepEqual(await runCheck(options), await typeScript.runCheck(options), `${label}: runCheck answers differently`);
    const times = await compare({ ts: () => typeScript.runCheck(options), native: () => runCheck(options) }, { rounds, inner });
    rows.push([`runCheck, config ${label}`, `${fmt(times.ts * 1000)} µs`, `${fmt(times.native * 1000)} µs`, ratio(times.ts, times.native)]);
  }
  return rows;
}

/** Every schema of a pack's index.json: tools' input and output, guardrails' config. */
function packSchemas(indexPath) {
  const index = JSON.parse(readFileSync(new URL(indexPath, import.meta.url), 'utf8'));
  return [
    ...index.tools.flatMap((t) => [[t.input, 'input'], [t.output, 'output']]),
    ...(index.guardrails ?? []).filter((g) => g.configSchema !== undefined).map((g) => [g.configSchema, 'output']),
  ];
}

async function compileRows(rounds) {
  const rows = [];
  for (const [label, path] of [['example pack', '../examples/pack/index.json'], ['fixture pack', '../__test__/fixtures/js-pack/index.json']]) {
    const schemas = packSchemas(path);
    let round = 0;
    // Each round compiles schemas neither side has seen (a fresh $comment), so no cache answers.
    const fresh = () => schemas.map(([schema, side]) => [{ ...schema, $comment: `round ${round}` }, side]);
    const ajvs = { input: ajvFor('input'), output: ajvFor('output') };
    const times = await compare(
      {
        ajv: () => {
          for (const [schema, side] of fresh()) ajvs[side].compile(schema);
          round++;
        },
        native: () => {
          for (const [schema, side] of fresh()) compileSchema(schema, side);
          round++;
        },
      },
      { rounds, inner: 5 },
    );
    rows.push([`${label}: ${schemas.length} schemas`, `${fmt(times.ajv * 1000)} µs`, `${fmt(times.native * 1000)} µs`, `${(times.native / times.ajv).toFixed(2)}x`]);
  }
  return rows;
}

async function serviceRows(rounds) {
  // The TypeScript service parses the body and validates a clone of the input on the JS
  // thread; the native service parses the body and checks the input in Rust, timed there.
  const rows = [];
  for (const [label, schema, value, inner] of CASES) {
    const body = JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: value, ctx: { tenantId: 't1', runId: 'r1' } });
    const schemaJson = JSON.stringify(schema);
    // The TypeScript runner finds its validator by the schema's text on every call.
    const validatorFor = typeScriptValidators();
    const times = await compare(
      {
        ajv: () => validatorFor(schema, 'input')(structuredClone(JSON.parse(body).input)),
        native: { timed: (calls) => binding.timeServiceInput(schemaJson, body, calls) / 1e6 },
      },
      { rounds, inner },
    );
    rows.push([label, `${fmt(times.ajv * 1000)} µs`, `${fmt(times.native * 1000)} µs`, `${(times.native / times.ajv).toFixed(2)}x`]);
  }
  return rows;
}

/**
 * The output check in the service. TypeScript: Ajv on the handler's output, on the JS thread.
 * Native: the output schema's fast path on the JS thread (lib/pack-service/service.js); an
 * output it leaves (one it cannot judge, or an invalid one) is checked in Rust from the text
 * the JS thread writes, timed there.
 */
async function serviceOutputRows(rounds) {
  const rows = [];
  for (const [label, schema, value, inner] of CASES) {
    const validatorFor = typeScriptValidators();
    const validator = compileSchema(schema, 'output');
    assert.equal(passesFast(validator, value), true, label);
    const schemaJson = JSON.stringify(schema);
    const text = JSON.stringify(value);
    const times = await compare(
      {
        ajv: () => validatorFor(schema, 'output')(value),
        fast: () => passesFast(validator, value),
        rust: { timed: (calls) => binding.timeServiceOutput(schemaJson, text, calls) / 1e6 },
      },
      { rounds, inner },
    );
    rows.push([
      label,
      `${fmt(times.ajv * 1000)} µs`,
      `${fmt(times.fast * 1000)} µs`,
      `${(times.fast / times.ajv).toFixed(2)}x`,
      `${fmt(times.rust * 1000)} µs`,
      `${(times.rust / times.ajv).toFixed(2)}x`,
    ]);
  }
  return rows;
}

/**
 * The JS thread's part of one echo call in the native service (lib/pack-service/service.js):
 * parse the request Rust hands over, check the output with its schema's fast path, write the
 * result message and hand that text to native. The floor is JSON.parse of the request and
 * JSON.stringify of the output alone.
 */
async function jsThreadRows(rounds) {
  const rows = [];
  for (const [label, schema, value, inner] of CASES) {
    const request = JSON.stringify({ v: 2, kind: 'tool', tool: { id: 'fixture.echo' }, input: value, ctx: {} });
    const validator = compileSchema(schema, 'output');
    const times = await compare(
      {
        floor: () => JSON.stringify(JSON.parse(request).input),
        native: () => {
          const output = JSON.parse(request).input;
          if (!passesFast(validator, output)) throw new Error('the fast path left the output');
          binding.checkFormat('uuid', JSON.stringify({ v: 2, kind: 'result', output }));
        },
      },
      { rounds, inner },
    );
    rows.push([label, `${fmt(times.floor * 1000)} µs`, `${fmt(times.native * 1000)} µs`, `${(times.native / times.floor).toFixed(2)}x`]);
  }
  return rows;
}

export async function run({ rounds }) {
  const inProcess = await inProcessRows(rounds);
  const runners = await runnerRows(rounds);
  const compiles = await compileRows(rounds);
  const service = await serviceRows(rounds);
  const serviceOutput = await serviceOutputRows(rounds);
  const jsThread = await jsThreadRows(rounds);
  return {
    title: `Validation against Ajv (as @kindgi/handler-runtime configures it), median of ${rounds} interleaved rounds`,
    text: `In process, compileSchema().validate against Ajv with the TypeScript runner's steps (on the
input side it validates a structuredClone):

${table(['case', 'Ajv', 'native', 'native speed-up'], inProcess)}

runHandler (an echo tool, the same schema for input and output) and runCheck (the schema as
the check's config schema) against the TypeScript runner's steps done with Ajv:

${table(['case', 'TypeScript steps', 'native', 'native speed-up'], runners)}

Compiling every schema of a pack, none cached (time per pack):

${table(['pack', 'Ajv', 'native', 'native / Ajv'], compiles)}

The service path, body text to a validated, default-filled input (TypeScript: JSON.parse,
structuredClone and Ajv on the JS thread; native: parse the body, read the request and check
the input in Rust, as the service does off the JS thread, timed by a loop in Rust):

${table(['case', 'TypeScript path', 'native path', 'native / TypeScript CPU'], service)}

The output check in the service (TypeScript: Ajv on the output; native: the output schema's
fast path on the JS thread, and Rust's check from the output's text for an output the fast
path leaves to it):

${table(['case', 'Ajv', 'native fast path', 'fast / Ajv CPU', 'Rust check', 'Rust / Ajv CPU'], serviceOutput)}

The JS thread's time per echo call in the native service (parse the request, check the output
with the fast path, write the result message and hand it over), next to the floor of
JSON.parse and JSON.stringify alone:

${table(['case', 'floor', 'native service, JS thread', 'native / floor'], jsThread)}`,
  };
}
