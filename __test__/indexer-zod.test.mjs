// The indexer's Zod → JSON Schema step (lib/indexer/zod.js) against `@kindgi/schema`'s answers:
// detection, where zod is found, the options handed to `z.toJSONSchema`, the JSON Schema that
// comes back (untouched), and the failure messages, with and without zod.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { z } from 'zod';
import * as zm from 'zod/mini';
import * as zod3 from 'zod/v3';

import {
  isZodSchema,
  loadZodConverter,
  resetZodConverterCache,
  toJsonSchema,
} from '../lib/indexer/zod.js';

const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const MISSING =
  'Zod schema passed but the `zod` peer dependency is not installed. ' +
  'Install `zod` (>=4.0.0) or author with a JSON Schema object.';
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

// zod's own patterns for these formats (zod 4.6).
const UUID = String.raw`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$`;
const EMAIL = String.raw`^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`;
const DATE = String.raw`(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))`;
const DATETIME = String.raw`^${DATE}T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z))$`;

const converter = loadZodConverter();

/** A scratch directory, removed when the test ends. */
function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'indexer-zod-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A `zod` package in `dir/node_modules`, its CommonJS entry being `source`. */
function fakeZod(dir, source) {
  const pkg = join(dir, 'node_modules', 'zod');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'zod', version: '4.0.0', main: 'index.js' }));
  writeFileSync(join(pkg, 'index.js'), source);
}

/** No `zod` resolvable from `dir`: otherwise a no-zod test would prove nothing. */
function assertNoZodFrom(dir) {
  assert.throws(() => createRequire(join(dir, 'probe.js')).resolve('zod'), { code: 'MODULE_NOT_FOUND' });
}

/** The converted schema, failing the test on an error result. */
function converted(schema, side) {
  const result = toJsonSchema(schema, converter, side);
  assert.equal(result.kind, 'ok', result.kind === 'err' ? result.error.message : '');
  return result.value;
}

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

test('isZodSchema: Zod v4 schemas, classic and mini, are Zod schemas', () => {
  for (const schema of [
    z.string(),
    z.object({ a: z.number() }),
    z.string().optional(),
    z.string().transform((s) => s.length),
    z.function(),
    zm.object({ a: zm.string() }),
  ]) {
    assert.equal(isZodSchema(schema), true);
  }
});

test('isZodSchema: JSON Schema objects, plain values and other libraries are not', () => {
  const standardOnly = { '~standard': { version: 1, vendor: 'valibot', validate: () => ({ value: 1 }) }, type: 'string' };
  for (const value of [
    { type: 'string' },
    { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    {},
    [],
    null,
    undefined,
    'string',
    42,
    true,
    standardOnly, // Standard Schema without Zod internals (valibot, arktype, ...)
    zod3.z.string(), // zod 3: `_def` and `~standard`, no `_zod`
    { _zod: {} }, // no `~standard`
    { _zod: 'internals', '~standard': {} }, // `_zod` not an object
    Object.assign(() => {}, { _zod: {}, '~standard': {} }), // a function, not an object
  ]) {
    assert.equal(isZodSchema(value), false, JSON.stringify(value));
  }
});

test('isZodSchema: shape alone decides, inherited properties and a null `_zod` included', () => {
  // Zod keeps `~standard` on the prototype; `typeof null` is 'object'.
  assert.equal(Object.hasOwn(z.string(), '~standard'), false);
  assert.equal(isZodSchema(Object.create({ _zod: {}, '~standard': {} })), true);
  assert.equal(isZodSchema({ _zod: null, '~standard': undefined }), true);
});

// ---------------------------------------------------------------------------------------------
// Locating zod
// ---------------------------------------------------------------------------------------------

test('loadZodConverter: by default, toJSONSchema of the zod `require` finds beside this package', () => {
  const cjsZod = createRequire(import.meta.url)('zod');
  assert.equal(typeof converter, 'function');
  assert.equal(converter, cjsZod.toJSONSchema);
  assert.equal(loadZodConverter(), converter);
});

test('loadZodConverter: a directory without zod gives undefined', (t) => {
  const dir = scratch(t);
  assertNoZodFrom(dir);
  assert.equal(loadZodConverter(dir), undefined);
});

test("loadZodConverter: a pack's own zod is found from its directory, a file in it or a file: URL", (t) => {
  const dir = scratch(t);
  fakeZod(dir, "exports.toJSONSchema = (schema, params) => ({ fake: true, io: params.io });\n");
  const nested = join(dir, 'tools', 'deep');
  mkdirSync(nested, { recursive: true });

  for (const from of [dir, `${dir}/`, nested, join(nested, 'tool.mjs'), pathToFileURL(join(nested, 'tool.mjs'))]) {
    const found = loadZodConverter(from);
    assert.equal(typeof found, 'function', String(from));
    assert.notEqual(found, converter);
    assert.deepEqual(found(z.string(), { io: 'input' }), { fake: true, io: 'input' });
  }
});

test('loadZodConverter: a zod without toJSONSchema (zod 3), or one that fails to load, gives undefined', (t) => {
  const old = scratch(t);
  fakeZod(old, 'exports.z = {}; exports.ZodString = class {};\n');
  assert.equal(loadZodConverter(old), undefined);

  const broken = scratch(t);
  fakeZod(broken, "throw new Error('zod failed to load');\n");
  assert.equal(loadZodConverter(broken), undefined);
});

test('loadZodConverter: the answer for a place is kept, "none" included, until the cache is reset', (t) => {
  const dir = scratch(t);
  assertNoZodFrom(dir);
  assert.equal(loadZodConverter(dir), undefined);

  fakeZod(dir, 'exports.toJSONSchema = () => ({ late: true });\n');
  assert.equal(loadZodConverter(dir), undefined);

  resetZodConverterCache();
  const found = loadZodConverter(dir);
  assert.equal(typeof found, 'function');
  assert.deepEqual(found(), { late: true });
  assert.equal(loadZodConverter(), converter);
});

// ---------------------------------------------------------------------------------------------
// No zod
// ---------------------------------------------------------------------------------------------

test('no zod: a Zod schema fails with the peer-dependency message and its cause', (t) => {
  const dir = scratch(t);
  assertNoZodFrom(dir);
  const none = loadZodConverter(dir);
  for (const side of ['input', 'output']) {
    const result = toJsonSchema(z.object({ a: z.string() }), none, side);
    assert.equal(result.kind, 'err');
    assert.equal(result.error.code, 'invalid-zod-conversion');
    assert.equal(result.error.message, MISSING);
    assert.ok(result.error.cause instanceof Error);
    assert.equal(result.error.cause.message, 'zod peer dep not installed');
    assert.deepEqual(Object.keys(result.error), ['code', 'message', 'cause']);
  }
});

test('no zod: a JSON Schema is returned as it is, the same object', () => {
  const schema = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };
  for (const side of ['input', 'output']) {
    const result = toJsonSchema(schema, undefined, side);
    assert.deepEqual(Object.keys(result), ['kind', 'value']);
    assert.equal(result.kind, 'ok');
    assert.equal(result.value, schema);
  }
});

// ---------------------------------------------------------------------------------------------
// What the converter is given, and what comes back
// ---------------------------------------------------------------------------------------------

test('the converter gets the schema itself and exactly { io: side }; its answer is returned untouched', () => {
  const calls = [];
  const answer = { $schema: DRAFT, type: 'string', extra: 1 };
  const recording = (...args) => {
    calls.push(args);
    return answer;
  };
  const schema = z.string();
  const input = toJsonSchema(schema, recording, 'input');
  const output = toJsonSchema(schema, recording, 'output');
  assert.equal(calls.length, 2);
  assert.equal(calls[0][0], schema);
  assert.deepEqual(calls.map((args) => args.slice(1)), [[{ io: 'input' }], [{ io: 'output' }]]);
  assert.deepEqual(input, { kind: 'ok', value: answer });
  assert.equal(input.value, answer);
  assert.equal(output.value, answer);
});

test('a JSON Schema never reaches the converter', () => {
  let called = false;
  const schema = { type: 'number' };
  const result = toJsonSchema(schema, () => (called = true), 'output');
  assert.equal(called, false);
  assert.equal(result.value, schema);
});

// ---------------------------------------------------------------------------------------------
// Sides
// ---------------------------------------------------------------------------------------------

test('sides: a default is optional on input and required on output; output objects are closed', () => {
  const schema = z.object({ name: z.string(), greeting: z.string().default('Kia ora') });
  assert.deepEqual(converted(schema, 'input'), {
    $schema: DRAFT,
    type: 'object',
    properties: { name: { type: 'string' }, greeting: { default: 'Kia ora', type: 'string' } },
    required: ['name'],
  });
  assert.deepEqual(converted(schema, 'output'), {
    $schema: DRAFT,
    type: 'object',
    properties: { name: { type: 'string' }, greeting: { default: 'Kia ora', type: 'string' } },
    required: ['name', 'greeting'],
    additionalProperties: false,
  });
});

test('sides: optional fields are left out of required on both sides', () => {
  const schema = z.object({ q: z.string(), limit: z.number().int().optional() });
  for (const side of ['input', 'output']) {
    const json = converted(schema, side);
    assert.deepEqual(json.required, ['q']);
    assert.deepEqual(json.properties.limit, { type: 'integer', minimum: -MAX_SAFE, maximum: MAX_SAFE });
  }
});

test('sides: a pipe is its input schema on input and its output schema on output', () => {
  const schema = z.string().pipe(z.coerce.number());
  assert.deepEqual(converted(schema, 'input'), { $schema: DRAFT, type: 'string' });
  assert.deepEqual(converted(schema, 'output'), { $schema: DRAFT, type: 'number' });
});

test('sides: a transform converts on input and fails on output', () => {
  const schema = z.object({ s: z.string().transform((s) => s.length) });
  assert.deepEqual(converted(schema, 'input'), {
    $schema: DRAFT,
    type: 'object',
    properties: { s: { type: 'string' } },
    required: ['s'],
  });
  const output = toJsonSchema(schema, converter, 'output');
  assert.equal(output.kind, 'err');
  assert.equal(output.error.message, 'z.toJSONSchema() failed: Transforms cannot be represented in JSON Schema');
});

// ---------------------------------------------------------------------------------------------
// Exact JSON Schema
// ---------------------------------------------------------------------------------------------

test('exact: the tool input from the TypeScript indexer suite', () => {
  const schema = z.object({ query: z.string().min(1), topK: z.number().int().min(1).max(20) });
  assert.deepEqual(converted(schema, 'input'), {
    $schema: DRAFT,
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1 },
      topK: { type: 'integer', minimum: 1, maximum: 20 },
    },
    required: ['query', 'topK'],
  });
});

test('exact: enums, literals and formats (uuid, email, date-time, uri, date)', () => {
  const schema = z.object({
    id: z.uuid(),
    email: z.email(),
    at: z.iso.datetime(),
    site: z.url(),
    day: z.iso.date(),
    mode: z.enum(['fast', 'slow']),
    kind: z.literal('search'),
  });
  assert.deepEqual(converted(schema, 'output'), {
    $schema: DRAFT,
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid', pattern: UUID },
      email: { type: 'string', format: 'email', pattern: EMAIL },
      at: { type: 'string', format: 'date-time', pattern: DATETIME },
      site: { type: 'string', format: 'uri' },
      day: { type: 'string', format: 'date', pattern: `^${DATE}$` },
      mode: { type: 'string', enum: ['fast', 'slow'] },
      kind: { type: 'string', const: 'search' },
    },
    required: ['id', 'email', 'at', 'site', 'day', 'mode', 'kind'],
    additionalProperties: false,
  });
});

test('exact: unions, nullable, arrays with defaults, records', () => {
  const schema = z.object({
    value: z.union([z.string(), z.number()]),
    note: z.string().nullable(),
    tags: z.array(z.string().min(1)).max(5).default([]),
    counts: z.record(z.string(), z.number().int()),
    shape: z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b'), n: z.number() })]),
  });
  const int = { type: 'integer', minimum: -MAX_SAFE, maximum: MAX_SAFE };
  const properties = {
    value: { type: ['string', 'number'] },
    note: { type: ['string', 'null'] },
    tags: { default: [], maxItems: 5, type: 'array', items: { type: 'string', minLength: 1 } },
    counts: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: int },
  };
  const branch = (side, k, extra = {}, required = ['k']) => ({
    type: 'object',
    properties: { k: { type: 'string', const: k }, ...extra },
    required,
    ...(side === 'output' && { additionalProperties: false }),
  });
  for (const side of ['input', 'output']) {
    assert.deepEqual(converted(schema, side), {
      $schema: DRAFT,
      type: 'object',
      properties: {
        ...properties,
        shape: { oneOf: [branch(side, 'a'), branch(side, 'b', { n: { type: 'number' } }, ['k', 'n'])] },
      },
      required: side === 'input' ? ['value', 'note', 'counts', 'shape'] : ['value', 'note', 'tags', 'counts', 'shape'],
      ...(side === 'output' && { additionalProperties: false }),
    });
  }
});

test('exact: descriptions and metadata survive, though the converter is the CommonJS build', () => {
  const schema = z.object({ city: z.string().describe('Where to look') }).meta({ title: 'Lookup', examples: [{ city: 'Nelson' }] });
  assert.deepEqual(converted(schema, 'input'), {
    $schema: DRAFT,
    type: 'object',
    properties: { city: { type: 'string', description: 'Where to look' } },
    required: ['city'],
    title: 'Lookup',
    examples: [{ city: 'Nelson' }],
  });
});

test("exact: each result equals the ESM z.toJSONSchema(schema, { io }) the TypeScript indexer's tests expect", () => {
  const schemas = [
    z.object({ query: z.string().min(1), topK: z.number().int().min(1).max(20) }),
    z.object({ ok: z.boolean(), at: z.iso.datetime().optional(), n: z.number().default(3) }),
    z.object({ threshold: z.number().min(0).max(1) }),
    z.string().pipe(z.coerce.number()),
    zm.object({ a: zm.string(), b: zm.optional(zm.number()) }),
  ];
  for (const schema of schemas) {
    assert.deepEqual(converted(schema, 'input'), z.toJSONSchema(schema, { io: 'input' }));
    assert.deepEqual(converted(schema, 'output'), z.toJSONSchema(schema, { io: 'output' }));
    assert.deepEqual(converted(schema, 'output'), z.toJSONSchema(schema));
  }
});

// ---------------------------------------------------------------------------------------------
// Conversion failures
// ---------------------------------------------------------------------------------------------

test("failures: zod's message, prefixed, with zod's error as the cause", () => {
  const cases = [
    [z.object({ n: z.bigint() }), ['input', 'output'], 'BigInt cannot be represented in JSON Schema'],
    [z.custom((v) => typeof v === 'string'), ['input', 'output'], 'Custom types cannot be represented in JSON Schema'],
    [z.function(), ['input', 'output'], 'Function types cannot be represented in JSON Schema'],
    [z.object({ when: z.date() }), ['input', 'output'], 'Date cannot be represented in JSON Schema'],
    [z.object({ n: z.string().transform(Number) }), ['output'], 'Transforms cannot be represented in JSON Schema'],
  ];
  for (const [schema, sides, reason] of cases) {
    for (const side of sides) {
      const result = toJsonSchema(schema, converter, side);
      assert.equal(result.kind, 'err', `${reason} (${side})`);
      assert.deepEqual(Object.keys(result.error), ['code', 'message', 'cause']);
      assert.equal(result.error.code, 'invalid-zod-conversion');
      assert.equal(result.error.message, `z.toJSONSchema() failed: ${reason}`);
      assert.ok(result.error.cause instanceof Error);
      assert.equal(result.error.cause.message, reason);
    }
  }
});

test('failures: something thrown that is not an Error is stringified, and kept as the cause', () => {
  const thrown = { message: 'not used' };
  const cases = [
    ['boom', 'z.toJSONSchema() failed: boom'],
    [42, 'z.toJSONSchema() failed: 42'],
    [undefined, 'z.toJSONSchema() failed: undefined'],
    [thrown, 'z.toJSONSchema() failed: [object Object]'],
  ];
  for (const [value, message] of cases) {
    const result = toJsonSchema(z.string(), () => {
      throw value;
    }, 'input');
    assert.equal(result.kind, 'err');
    assert.equal(result.error.message, message);
    assert.equal(result.error.cause, value);
  }
});

test('failures: a converter that is not a function fails the call, not the caller', () => {
  const result = toJsonSchema(z.string(), null, 'input');
  assert.equal(result.kind, 'err');
  assert.equal(result.error.message, 'z.toJSONSchema() failed: converter is not a function');
  assert.ok(result.error.cause instanceof TypeError);
});
