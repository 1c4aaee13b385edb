// The in-process fast path (lib/validate-fast.js, src/validate/fast_js.rs) against the native
// validator it stands in front of: on every schema of the JSON Schema Test Suite and the seeded
// generated schemas, both sides, a value the fast path calls valid is valid to the native
// validator with the same default-filled value, and every value the native validator calls
// valid is judged by the fast path too (it leaves no plain JSON value to the slower path). Also:
// its copy is what structuredClone makes, and what it cannot judge still gets the native answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCorpus } from './helpers/schema-corpus.mjs';
import { DEFAULT_SEED, generateCases, mulberry32 } from './helpers/schema-generator.mjs';
import { answersApart, compileSchema } from '../lib/validate.js';
import { plainClone } from '../lib/validate-fast.js';
import { runHandler } from '../index.js';

function compiled(schema, side) {
  try {
    return compileSchema(schema, side);
  } catch {
    return undefined;
  }
}

/** Runs every value of every schema through both paths; returns the counts and the mismatches. */
function compare(cases) {
  const counts = { schemas: 0, withFast: 0, values: 0, fastValid: 0, leftValid: 0 };
  const mismatches = [];
  for (const { id, schema, values } of cases) {
    for (const side of ['input', 'output']) {
      const validator = compiled(schema, side);
      if (validator === undefined) continue;
      counts.schemas++;
      for (const value of values) {
        const { hasFast, fast, native } = answersApart(validator, structuredClone(value));
        if (!hasFast) continue;
        if (native.threw) {
          if (fast !== undefined) mismatches.push({ id, side, value, why: 'fast valid where native throws' });
          continue;
        }
        counts.values++;
        if (fast !== undefined) {
          counts.fastValid++;
          if (!native.valid) mismatches.push({ id, side, value, why: 'fast valid, native invalid' });
          else if (!isSame(fast.value, native.value)) mismatches.push({ id, side, value, why: 'different values', fast: fast.value, native: native.value });
        } else if (native.valid) {
          counts.leftValid++;
          mismatches.push({ id, side, value, why: 'valid, but the fast path left it to native' });
        }
      }
      if (answersApart(validator, null).hasFast) counts.withFast++;
    }
  }
  return { counts, mismatches };
}

function isSame(a, b) {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

function report(t, label, { counts, mismatches }) {
  t.diagnostic(
    `${label}: ${counts.schemas} compiled schema/side pairs, ${counts.withFast} with a fast path; ${counts.values} values judged, `
      + `${counts.fastValid} valid on the fast path, ${counts.leftValid} valid ones left to native`,
  );
  assert.deepEqual(mismatches.slice(0, 5).map((m) => JSON.stringify(m).slice(0, 400)), []);
}

test('the JSON Schema Test Suite: the fast path agrees with the native validator', (t) => {
  const cases = loadCorpus().map((c, i) => ({ id: `${c.file} | ${c.group} #${i}`, schema: c.schema, values: c.tests.map((x) => x.data) }));
  const result = compare(cases);
  report(t, 'corpus', result);
  assert.ok(result.counts.withFast > 150, `only ${result.counts.withFast} schemas have a fast path`);
  assert.ok(result.counts.fastValid > 200, `only ${result.counts.fastValid} values judged valid on the fast path`);
});

test('generated schemas: the fast path agrees with the native validator', (t) => {
  const { cases } = generateCases({ seed: DEFAULT_SEED, count: 6000 });
  const result = compare(cases);
  report(t, 'generated', result);
  assert.ok(result.counts.withFast > 1000, `only ${result.counts.withFast} schemas have a fast path`);
  assert.ok(result.counts.fastValid > 1500, `only ${result.counts.fastValid} values judged valid on the fast path`);
});

test('schemas whose keywords the fast path does not write have none, and still validate', () => {
  for (const schema of [
    { type: 'object', unevaluatedProperties: false, properties: { a: true } },
    { $dynamicAnchor: 'n', type: 'object' },
    { type: 'string', format: 'date', formatMinimum: '2020-01-01' },
    // A subschema that applies itself to the same value: Ajv's code recurses forever.
    { anyOf: [{ type: 'string' }, { $ref: '#' }] },
  ]) {
    const validator = compileSchema(schema, 'output');
    assert.equal(answersApart(validator, 'x').hasFast, false, JSON.stringify(schema));
  }
  const recursing = compileSchema({ anyOf: [{ type: 'string' }, { $ref: '#' }] }, 'output');
  assert.throws(() => recursing.validate('x'), RangeError);
});

test('defaults: filled into a copy, the caller\'s value untouched, fresh objects each time', () => {
  const validator = compileSchema(
    { type: 'object', properties: { tags: { type: 'array', default: [] }, n: { type: 'integer', default: 3 }, o: { type: 'object', properties: { x: { default: { y: 1 } } } } } },
    'input',
  );
  const value = { o: {} };
  const first = validator.validate(value);
  assert.deepEqual(value, { o: {} });
  assert.deepEqual(first, { valid: true, value: { o: { x: { y: 1 } }, tags: [], n: 3 } });
  const second = validator.validate(value);
  assert.notEqual(first.value.tags, second.value.tags);
  assert.notEqual(first.value.o.x, second.value.o.x);
  // Nothing to fill: still a copy on the input side, as the native path answers.
  const full = { o: { x: 1 }, tags: [], n: 1 };
  assert.notEqual(validator.validate(full).value, full);
  assert.deepStrictEqual(validator.validate(full).value, full);
  // A default named __proto__ is a member, not a prototype.
  const proto = compileSchema({ type: 'object', properties: { p: { default: { ['__proto__']: { a: 1 } } } } }, 'input');
  const filled = proto.validate({}).value.p;
  assert.equal(Object.getPrototypeOf(filled), Object.prototype);
  assert.deepEqual(Object.keys(filled), ['__proto__']);
});

test('values the fast path cannot judge get the native answer', () => {
  const validator = compileSchema({ type: 'object', properties: { when: { type: 'object' }, n: { type: 'number' } } }, 'output');
  for (const value of [{ when: new Date(0) }, { n: Number.NaN }, { n: 1n }, { when: new Map() }, { n: undefined }]) {
    const { fast, native } = answersApart(validator, value);
    // An undefined member is absent to Ajv: the fast path need not look at it.
    if (!Object.hasOwn(value, 'n') || value.n !== undefined) assert.equal(fast, undefined, String(value.n ?? value.when));
    assert.deepEqual(validator.validate(value), native);
  }
  const getter = { get n() { throw new Error('no n'); } };
  assert.throws(() => validator.validate(getter), /no n/);
});

test('plainClone makes what structuredClone makes, or leaves the value to it', () => {
  const random = mulberry32(7);
  const scalar = () => [null, true, false, 0, -0, 1.5, -1e300, 'x', '', '\u2028', '\ud800', 1n, undefined, Number.NaN, Number.POSITIVE_INFINITY][Math.floor(random() * 15)];
  const make = (depth) => {
    const r = random();
    if (depth > 4 || r < 0.4) return scalar();
    if (r < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => make(depth + 1));
    const object = random() < 0.1 ? Object.create(null) : {};
    for (let i = Math.floor(random() * 4); i > 0; i--) object[['a', 'b', '10', '2', 'constructor', ''][Math.floor(random() * 6)]] = make(depth + 1);
    return object;
  };
  for (let i = 0; i < 2000; i++) {
    const value = make(0);
    const copy = plainClone(value);
    assert.ok(isSameClone(copy, structuredClone(value)), JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)));
  }
  const own = plainClone(JSON.parse('{"__proto__": {"a": 1}, "b": 2}'));
  assert.equal(Object.getPrototypeOf(own), Object.prototype);
  assert.deepEqual(Object.keys(own), ['__proto__', 'b']);
  const shared = { a: 1 };
  const cyclic = {};
  cyclic.self = cyclic;
  // eslint-disable-next-line no-sparse-arrays
  for (const value of [{ shared, again: shared }, cyclic, [1, , 3], { f() {} }, new Date(0), { d: new Date(0) }, { s: Symbol('s') }]) {
    assert.throws(() => plainClone(value), (error) => typeof error === 'symbol');
  }
});

/** Deep equality that tells -0 from 0, NaN from NaN, and key order, as a copy must keep them. */
function isSameClone(a, b) {
  if (typeof a !== 'object' || a === null) return Object.is(a, b);
  if (typeof b !== 'object' || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Reflect.ownKeys(a);
  const keysB = Reflect.ownKeys(b);
  return keysA.length === keysB.length && keysA.every((k, i) => k === keysB[i] && isSameClone(a[k], b[k])) && Object.getPrototypeOf(a) === Object.getPrototypeOf(b);
}

test('runHandler: the handler gets what structuredClone makes, shared members kept shared', async () => {
  const tool = { id: 't', modulePath: 'm', inputSchema: { type: 'object', properties: { n: { type: 'integer', default: 1 } } }, outputSchema: {} };
  const seen = [];
  const importHandler = async () => ({ default: (input) => (seen.push(input), 'ok') });
  const shared = { x: 1 };
  const input = { a: shared, b: shared };
  assert.deepEqual(await runHandler({ tool, input, ctx: {}, importHandler }), { kind: 'ok', value: 'ok' });
  assert.equal(seen[0].a, seen[0].b, 'structuredClone keeps one object reached twice as one');
  assert.notEqual(seen[0].a, shared);
  assert.equal(seen[0].n, 1);
  const plain = { list: [1, 2] };
  await runHandler({ tool, input: plain, ctx: {}, importHandler });
  assert.notEqual(seen[1], plain, 'a copy even when nothing is filled');
  assert.deepEqual(seen[1], { list: [1, 2], n: 1 });
  await assert.rejects(runHandler({ tool, input: { f() {} }, ctx: {}, importHandler }), { name: 'DataCloneError' });
});

test('formats on the fast path answer as ajv-formats does, on seeded mutations of each format\'s examples', async () => {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const addFormatsModule = await import('ajv-formats');
  const addFormats = addFormatsModule.default.default ?? addFormatsModule.default;
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  const examples = {
    date: ['2024-02-29', '2023-02-29', '1900-02-29', '2000-02-29', '2026-12-31', '2026-13-01', '2026-00-10'],
    time: ['23:59:60Z', '23:59:60+00:00', '00:59:60+01:00', '12:30:00.123z', '12:30:00+05:30', '12:30:00', '24:00:00Z', '12:30:00+0530'],
    'iso-time': ['12:30:00', '23:59:60', '12:30:00.5-08', '12:30:00+24:00'],
    'date-time': ['2026-12-01T22:38:19Z', '2026-12-01t22:38:19.5+13:00', '2026-12-01 22:38:19Z', '2026-12-01\u00a022:38:19Z', '2016-12-31T23:59:60Z'],
    'iso-date-time': ['2026-12-01T22:38:19', '2026-12-01T22:38:19+01', '2026-12-01TT22:38:19'],
    hostname: ['example.com', 'a.b-c.d.', `${'a'.repeat(63)}.com`, `${'a'.repeat(64)}.com`, '-a.com', 'xn--nxasmq6b.com'],
    regex: ['^a+$', '[', 'a\\Z', '\\\\Z', '(?<n>x)\\k<n>', 'a{2,1}', '\\u{1F600}'],
    uri: ['http://a/b?c#d', 'urn:x:y', '//a/b', 'a:b c'],
    url: ['https://example.com/a?b=c', 'ftp://x.y/z', 'http://a:@b'],
    uuid: ['123e4567-e89b-42d3-a456-426614174000', 'urn:uuid:123E4567-E89B-42D3-A456-426614174000', '123e4567e89b42d3a456426614174000'],
    email: ['a.b+c@example.co.nz', 'a..b@example.com', '@x.com', 'a@b'],
    ipv4: ['192.168.0.1', '256.1.1.1', '01.2.3.4'],
    ipv6: ['::1', '2001:db8::ff00:42:8329', '1::2::3', '::ffff:192.168.0.1'],
    duration: ['P1Y2M3DT4H5M6S', 'PT', 'P2W', 'P1W2D'],
    byte: ['aGVsbG8=', 'aGVsbG8', '!!!\n'],
    'json-pointer': ['/a/b~0~1', '/a~2', ''],
    'relative-json-pointer': ['0/a', '1#', '01/a'],
  };
  const random = mulberry32(2026);
  const alphabet = ['0', '1', '9', '2', '-', ':', '.', 'T', 't', 'Z', 'z', '+', '/', '@', ' ', '\u00a0', '~', 'a', 'F', 'é', '\ud83d\ude00', '\\', '[', '%', '#'];
  const mutate = (text) => {
    const at = Math.floor(random() * (text.length + 1));
    const pick = alphabet[Math.floor(random() * alphabet.length)];
    switch (Math.floor(random() * 3)) {
      case 0: return text.slice(0, at) + pick + text.slice(at + 1);
      case 1: return text.slice(0, at) + pick + text.slice(at);
      default: return text.slice(0, at) + text.slice(at + 1);
    }
  };
  let judged = 0;
  for (const [format, seeds] of Object.entries(examples)) {
    const oracle = ajv.compile({ type: 'string', format });
    const validator = compileSchema({ type: 'string', format }, 'output');
    for (const seed of seeds) {
      let text = seed;
      for (let i = 0; i < 300; i++) {
        const { fast, hasFast } = answersApart(validator, text);
        assert.ok(hasFast, format);
        assert.equal(fast !== undefined, oracle(text), `${format}: ${JSON.stringify(text)}`);
        judged++;
        text = random() < 0.2 ? seed : mutate(text);
      }
    }
  }
  for (const [format, values] of [['int32', [0, 2147483647, 2147483648, -2147483648, -2147483649, 1.5]], ['int64', [2 ** 53, 1e300, 0.5]], ['float', [1.5]], ['double', [-0]]]) {
    const oracle = ajv.compile({ type: 'number', format });
    const validator = compileSchema({ type: 'number', format }, 'output');
    for (const value of values) assert.equal(answersApart(validator, value).fast !== undefined, oracle(value), `${format}: ${value}`);
  }
  assert.ok(judged > 10_000);
});

test('what the native validator reads otherwise is left to it: no prototype, a Proxy, a lone surrogate a pattern names', () => {
  const named = compileSchema({ type: 'object', properties: { toString: { type: 'string' } } }, 'output');
  const bare = Object.create(null);
  assert.equal(answersApart(named, bare).fast, undefined);
  assert.deepEqual(named.validate(bare), answersApart(named, bare).native);
  // structuredClone refuses a Proxy; so does runHandler's copy.
  const input = compileSchema({ type: 'object', properties: { a: { type: 'string' } } }, 'input');
  assert.throws(() => input.validate(new Proxy({ a: 'x' }, {})), { name: 'DataCloneError' });
  const surrogates = compileSchema({ type: 'string', pattern: '^[\\ud800-\\udfff]$' }, 'output');
  assert.equal(answersApart(surrogates, '\ud800').fast, undefined);
  assert.deepEqual(surrogates.validate('\ud800'), answersApart(surrogates, '\ud800').native);
});

test('patterns whose counted classes the fast path writes out answer as Ajv does', async () => {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  const patterns = [
    '^[A-Z]{3}-[0-9]{4}$',
    '^\\+?[0-9 ()-]{6,20}$',
    '^(?:[a-f]{2}){1,3}$',
    '^.{2,}?x$',
    '^\\d{2}\\D{1,2}?\\w{0,2}\\s{1}$',
    '^[\\]a]{2}[^-]{3,}$',
    'a{2}[b]{2}',
    '^[😀é]{2}.{1}$',
    '^(?<n>[ab]{2})\\k<n>$',
    '[]{0}x[^]{1,2}',
  ];
  const random = mulberry32(7);
  const alphabet = ['A', 'Z', 'a', 'b', 'f', 'x', '0', '9', '-', '+', ' ', '(', ']', '\n', 'é', '😀', '_'];
  let judged = 0;
  for (const pattern of patterns) {
    const oracle = ajv.compile({ type: 'string', pattern });
    const validator = compileSchema({ type: 'string', pattern }, 'output');
    for (let i = 0; i < 400; i++) {
      let text = '';
      const length = Math.floor(random() * 12);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      const { fast, hasFast } = answersApart(validator, text);
      assert.ok(hasFast, pattern);
      assert.equal(fast !== undefined, oracle(text), `${pattern}: ${JSON.stringify(text)}`);
      judged++;
    }
    for (const text of ['ABC-1234', '+64 21 555 0199', 'abcdef', 'zzx', '12ab_ ', ']a---', 'aabb', '😀é😀', 'abab', 'xy']) {
      assert.equal(answersApart(validator, text).fast !== undefined, oracle(text), `${pattern}: ${JSON.stringify(text)}`);
    }
  }
  assert.ok(judged >= 4000);
});

test("formats on the fast path and in native answer as this Node's ajv-formats for every format vector", async (t) => {
  const { readFileSync } = await import('node:fs');
  const { createRequire } = await import('node:module');
  const { fullFormats } = createRequire(import.meta.url)('ajv-formats/dist/formats.js');
  const vectors = JSON.parse(readFileSync(new URL('../src/validate/formats/fixtures/validate.json', import.meta.url), 'utf8'));
  let judged = 0;
  let recordedOtherwise = 0;
  for (const [format, cases] of Object.entries(vectors)) {
    const validator = compileSchema({ type: 'string', format }, 'output');
    const definition = fullFormats[format];
    const check = definition === true ? () => true : definition instanceof RegExp || typeof definition === 'function' ? definition : definition.validate;
    for (const [recorded, text] of cases) {
      if (typeof text !== 'string') continue;
      // `regex` is `new RegExp(text)`, whose syntax differs between Node's lines: the answer
      // recorded on one line (scripts/format-vectors.mjs) need not be this one's.
      const valid = check instanceof RegExp ? check.test(text) : Boolean(check(text));
      if (valid !== recorded) {
        assert.equal(format, 'regex', `${format}: ${JSON.stringify(text)}: only regex answers differ by line`);
        recordedOtherwise++;
      }
      const { fast, hasFast, native } = answersApart(validator, text);
      assert.ok(hasFast, format);
      assert.equal(fast !== undefined, valid, `${format}: ${JSON.stringify(text)} on the fast path`);
      assert.equal(native.valid, valid, `${format}: ${JSON.stringify(text)} in native`);
      judged++;
    }
  }
  if (recordedOtherwise > 0) t.diagnostic(`${recordedOtherwise} regex vector(s) recorded on another line's syntax`);
  // Dates written every way a digit can be missing or out of range.
  const dates = compileSchema({ type: 'string', format: 'date' }, 'output');
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const addFormatsModule = await import('ajv-formats');
  const addFormats = addFormatsModule.default.default ?? addFormatsModule.default;
  const ajv = new Ajv2020({ strict: true });
  addFormats(ajv);
  const oracle = ajv.compile({ type: 'string', format: 'date' });
  for (const seed of ['2024-02-29', '1900-02-28', '0000-01-31', '9999-12-31']) {
    for (let at = 0; at <= seed.length; at++) {
      for (const piece of ['0', '9', '/', ':', '-', '٣', '', 'x', '\u0000']) {
        for (const text of [seed.slice(0, at) + piece + seed.slice(at + 1), seed.slice(0, at) + piece + seed.slice(at)]) {
          assert.equal(answersApart(dates, text).fast !== undefined, oracle(text), JSON.stringify(text));
          judged++;
        }
      }
    }
  }
  assert.ok(judged > 5000, `${judged}`);
});
