// canonicalJson: byte-for-byte the TypeScript indexer's text, checked against golden files,
// against the JS reference on seeded random values, and on its error paths.
//
// Regenerate the golden files (only when the reference rule itself changes):
//   UPDATE_GOLDEN=1 node --test __test__/canonical.test.mjs
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { canonicalJson, MAX_JSON_DEPTH } from '../index.js';
import { defineOwn, reference, valueGenerator } from './helpers/canonical-reference.mjs';

const GOLDEN_DIR = new URL('./golden/canonical/', import.meta.url);
const UPDATE_GOLDEN = process.env.UPDATE_GOLDEN === '1';
const INDEX_URL = new URL('../index.js', import.meta.url).href;

/** Where two texts first differ, for readable failure messages. */
function firstDifference(actual, expected) {
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  const around = (s) => JSON.stringify(s.slice(Math.max(0, i - 40), i + 40));
  return `first difference at UTF-16 offset ${i} (lengths ${actual.length} vs ${expected.length}): actual ${around(actual)} vs expected ${around(expected)}`;
}

function assertSameText(actual, expected, label) {
  if (actual !== expected) assert.fail(`${label}: ${firstDifference(actual, expected)}`);
}

function assertNativeError(fn, code, label) {
  let thrown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown !== undefined, `${label}: expected a thrown ${code} error, nothing was thrown`);
  assert.ok(thrown instanceof Error, `${label}: expected an Error, got ${String(thrown)}`);
  assert.equal(thrown.code, code, `${label}: code (message: ${thrown.message})`);
  assert.equal(typeof thrown.message, 'string');
  assert.notEqual(thrown.message, '');
  return thrown;
}

/** `depth` nested containers: arrays, or objects `{k: …}`; the innermost is empty. */
function nested(depth, kind) {
  let value = kind === 'object' ? {} : [];
  for (let i = 1; i < depth; i++) value = kind === 'object' ? { k: value } : [value];
  return value;
}

/** The canonical text of `nested(depth, kind)`, built without JSON.stringify (which overflows first). */
function nestedText(depth, kind) {
  const [open, close, empty, prefix] = kind === 'object' ? ['{', '}', '{}', '"k": '] : ['[', ']', '[]', ''];
  const lines = [];
  for (let i = 0; i < depth - 1; i++) lines.push(' '.repeat(2 * i) + (i === 0 ? '' : prefix) + open);
  lines.push(' '.repeat(2 * (depth - 1)) + (depth === 1 ? '' : prefix) + empty);
  for (let i = depth - 2; i >= 0; i--) lines.push(' '.repeat(2 * i) + close);
  return lines.join('\n') + '\n';
}

function realisticIndex() {
  return {
    v: 1,
    publishedAt: '2026-09-20T10:11:12.345Z',
    packVersion: '1.4.0',
    packId: 'acme',
    artifactVersion: '20260920.3',
    tools: [
      {
        modulePath: 'tools/lookup.mjs',
        id: 'acme.lookup',
        version: '2.0.0',
        description: 'Look up a customer — by id or e-mail.',
        input: {
          type: 'object',
          required: ['query'],
          properties: { query: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
          additionalProperties: false,
        },
        output: { type: 'object', properties: { rows: { type: 'array', items: {} } } },
        effects: [],
        mutating: false,
        limits: { timeoutMs: 30000, memoryMb: 256 },
        network: { allow: ['api.example.com', 'db.internal:5432'] },
      },
      {
        id: 'acme.refund',
        modulePath: 'tools/refund.mjs',
        input: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { amount: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 } } },
        output: { type: 'object' },
        mutating: true,
        needs: ['STRIPE_KEY'],
      },
    ],
    guardrails: [
      {
        id: 'acme.no-pii',
        kind: 'output',
        action: { 'on-violation': 'block' },
        severity: 'high',
        checkModulePath: 'guardrails/no-pii.mjs',
        checkId: 'acme.no-pii',
        config: { patterns: ['\\d{3}-\\d{2}-\\d{4}', '[A-Z]{2}\\d{6}'], maxChars: 4000 },
      },
    ],
    agents: [
      {
        id: 'acme.support',
        version: '1.0.0',
        name: 'Support',
        instructions: { prompt: 'acme.support-prompt', version: '3' },
        capabilities: ['chat'],
        tools: [{ version: '2.0.0', id: 'acme.lookup' }, { id: 'acme.refund', version: '1.0.0' }],
        modelSettings: { temperature: 0.2, topP: 1, maxTokens: 1024 },
        tags: ['support', 'tier-1', 'überall'],
        modulePath: 'agents/support.mjs',
      },
    ],
    flows: [
      {
        id: 'acme.triage',
        version: '1',
        nodes: [{ id: 'start', kind: 'agent', agent: 'acme.support' }, { id: 'end', kind: 'output' }],
        edges: [{ from: 'start', to: 'end' }],
        maxParallelism: 4,
        metadata: { '10': 'ten', '2': 'two', owner: 'team-a' },
        kernelPayloadVersion: 1,
        modulePath: 'flows/triage.mjs',
      },
    ],
    env: { required: ['STRIPE_KEY'], optional: ['LOG_LEVEL'] },
  };
}

class Point {
  constructor() {
    this.y = 2;
    this.x = 1;
  }

  get norm() {
    return Math.hypot(this.x, this.y);
  }
}

/** name → a function building the value (fresh each time). */
const GOLDEN_CASES = {
  'astral-vs-high-bmp-keys': () => ({
    '\uffff': 'U+FFFF',
    '\u{1F600}': 'U+1F600 (D83D DE00)',
    '\ufffe': 'U+FFFE',
    '\u{10FFFF}': 'U+10FFFF (DBFF DFFF)',
    '\u{10000}': 'U+10000 (D800 DC00)',
    '\ue000': 'U+E000',
    '\ud7ff': 'U+D7FF',
    '\u00e9': 'U+00E9',
    z: 'z',
    Z: 'Z',
    values: ['\uffff', '\u{1F600}', '\u{10FFFF}', 'naïve café 日本語 🧑‍🚀'],
  }),
  'integer-like-keys': () => ({
    a: 'a',
    '10': 'ten',
    '2': 'two',
    '01': 'zero-one',
    '-1': 'minus-one',
    '0': 'zero',
    '4294967294': 'largest array index',
    '4294967295': 'not an array index',
    '4294967296': 'not an array index either',
    '1.5': 'decimal',
    '1e3': 'exponent',
    ' 1': 'space-one',
    '00': 'zero-zero',
    '-0': 'minus-zero',
    '': 'empty',
    nested: { '3': [{ '20': 1, '3': 2, x: 3 }], '1': true, B: 'upper', b: 'lower' },
  }),
  numbers: () => ({
    list: [1.0, 1e21, 1e-7, 1.5e-7, -0, 0.1, 2 ** 60, 5e-324, NaN, Infinity, -Infinity, 1e20, 9.999999999999999e20,
      123456789012345680000, 1e-6, 0.000001, 1.7976931348623157e308, -1.5, 0.1 + 0.2, 2 ** 53, 2 ** 53 + 2,
      100, -1e-7, 2.2250738585072014e-308, 1 / 3, 4.35, 0.5e-323, 1e300 * 10, -(2 ** 31), 2 ** 32,
      // Ties at the last digit: ECMAScript picks the even digit (….2), not round-half-up (….3).
      562949953421312.25, 1250000000000000.25, 991768790874630.25, 562949953421312.75],
    halfEvenTie: 562949953421312.25,
    one: 1.0,
    big: 1e21,
    tiny: 1e-7,
    tinyish: 1.5e-7,
    negZero: -0,
    tenth: 0.1,
    twoTo60: 2 ** 60,
    minSubnormal: 5e-324,
    nan: NaN,
    inf: Infinity,
  }),
  'nested-empty': () => ({ a: {}, b: [], c: [{}, [], [[]], { d: {} }, [{}]], e: { f: { g: [] } } }),
  'control-characters': () => {
    const all = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('');
    return {
      all,
      named: '\b\f\n\r\t',
      mixed: 'a\u0000b\u0001c\u001fd"e\\f/g',
      [all]: 'every control character as a key',
      '\n': 'newline key',
      '\t': 'tab key',
      '\u0000': 'nul key',
      list: Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
    };
  },
  'del-and-separators': () => ({
    del: '\u007f',
    c1: '\u0080\u009f',
    lineSeparator: '\u2028',
    paragraphSeparator: '\u2029',
    bom: '\ufeff',
    '\u007f': 'del key',
    '\u2028': 'line separator key',
  }),
  'lone-surrogates': () => ({
    high: '\ud800',
    inside: 'a\udc00b',
    highMax: '\udbff',
    lowMax: '\udfff',
    reversed: '\udc00\ud800',
    pairThenLone: '\u{1F600}\ud83d',
    list: ['\ud800', 'a\udc00b', '\ud83d\ude00', '\ude00\ud83d'],
    '\ud800': 'lone high key',
    'a\udc00b': 'lone low key inside',
    '\udfff': 'lone low key',
    '\u{1F600}': 'pair key',
    '\uffff': 'high BMP key',
  }),
  'proto-key': () => ({
    top: JSON.parse('{"__proto__":1,"a":2}'),
    objectValue: JSON.parse('{"b":0,"__proto__":{"x":1},"c":3}'),
    inArray: [JSON.parse('{"__proto__":[1,2],"z":true}')],
    computed: { ['__proto__']: 'computed', y: 1 },
  }),
  'undefined-and-functions': () => ({
    a: undefined,
    b: () => 1,
    c: [undefined, () => 1, Symbol('s'), 'kept'],
    d: 1,
    e: Symbol('e'),
    [Symbol('key')]: 'symbol keys are skipped',
    nested: { only: undefined },
  }),
  'class-instance-map-set-sparse': () => {
    const array = [1, 2];
    array.extra = 'ignored';
    return {
      point: new Point(),
      map: new Map([['k', 'v']]),
      set: new Set([1, 2]),
      sparse: [1, , 3], // eslint-disable-line no-sparse-arrays
      array,
      nullProto: Object.assign(Object.create(null), { b: 1, a: 2 }),
    };
  },
  'deep-100': () => {
    let value = { leaf: ['end', 1, null] };
    for (let i = 99; i >= 1; i--) value = i % 2 === 0 ? [i, value] : { z: i, a: value };
    return value;
  },
  'realistic-index': realisticIndex,
  'top-string': () => 'a "quoted" \\ string\n\u2028\ud800',
  'top-number': () => 1e21,
  'top-nan': () => NaN,
  'top-null': () => null,
  'top-false': () => false,
  'top-empty-object': () => ({}),
  'top-empty-array': () => [],
};

describe('canonicalJson: golden files', () => {
  if (UPDATE_GOLDEN) mkdirSync(GOLDEN_DIR, { recursive: true });

  for (const [name, build] of Object.entries(GOLDEN_CASES)) {
    test(`golden ${name}`, () => {
      const file = new URL(`${name}.txt`, GOLDEN_DIR);
      if (UPDATE_GOLDEN) writeFileSync(file, reference(build()), 'utf8');
      let golden;
      try {
        golden = readFileSync(file, 'utf8');
      } catch (error) {
        assert.fail(`missing golden file ${name}.txt (run with UPDATE_GOLDEN=1 once): ${error.message}`);
      }
      assertSameText(reference(build()), golden, `reference(${name}) vs golden`);
      assertSameText(canonicalJson(build()), golden, `canonicalJson(${name}) vs golden`);
    });
  }

  test('every golden file belongs to a case', () => {
    const files = readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.txt')).sort();
    assert.deepEqual(files, Object.keys(GOLDEN_CASES).map((n) => `${n}.txt`).sort());
  });

  test('golden spot checks (the rule, spelled out)', () => {
    const read = (name) => readFileSync(new URL(`${name}.txt`, GOLDEN_DIR), 'utf8');
    // Astral keys (D83D…) sort before U+E000..U+FFFF: code units, not code points.
    const astral = read('astral-vs-high-bmp-keys');
    const keyAt = (k) => astral.indexOf(`\n  "${k}": `);
    assert.ok(keyAt('\u{1F600}') > 0 && keyAt('\u{1F600}') < keyAt('\ue000'));
    assert.ok(keyAt('\u{10FFFF}') > 0 && keyAt('\u{10FFFF}') < keyAt('\uffff'));
    assert.ok(keyAt('\u00e9') < keyAt('\u{10000}'));
    // Array-index keys first, in numeric order; then the other keys as strings.
    const order = [...read('integer-like-keys').matchAll(/^ {2}"((?:[^"\\]|\\.)*)":/gm)].map((m) => m[1]);
    assert.deepEqual(order, ['0', '2', '10', '4294967294', '', ' 1', '-0', '-1', '00', '01', '1.5', '1e3',
      '4294967295', '4294967296', 'a', 'nested']);
    const numbers = read('numbers');
    const numberLines = new Set(numbers.split('\n').map((line) => line.replace(/,$/, '')));
    for (const text of ['  "one": 1', '  "big": 1e+21', '  "tiny": 1e-7', '  "tinyish": 1.5e-7', '  "negZero": 0',
      '  "tenth": 0.1', '  "twoTo60": 1152921504606847000', '  "halfEvenTie": 562949953421312.2',
      '  "minSubnormal": 5e-324', '  "nan": null', '  "inf": null']) {
      assert.ok(numberLines.has(text), `numbers golden holds the line ${text}`);
    }
    const controls = read('control-characters');
    assert.ok(controls.includes('"named": "\\b\\f\\n\\r\\t"'));
    assert.ok(controls.includes('"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e'));
    assert.ok(controls.includes('\\u001f'));
    const del = read('del-and-separators');
    assert.ok(del.includes('"del": "\u007f"') && del.includes('"lineSeparator": "\u2028"'), 'U+007F and U+2028 are written raw');
    const lone = read('lone-surrogates');
    assert.ok(lone.includes('"inside": "a\\udc00b"') && lone.includes('"\\ud800": "lone high key"'));
    assert.ok(!read('proto-key').includes('__proto__'), 'the reference drops own __proto__ keys');
    assert.equal(read('top-nan'), 'null\n');
  });
});

describe('canonicalJson: differential against the reference', () => {
  test('10,000 seeded random values match byte for byte', () => {
    const seed = process.env.CANONICAL_SEED !== undefined ? Number(process.env.CANONICAL_SEED) >>> 0 : 0x1d2c3b4a;
    const count = 10_000;
    const { value } = valueGenerator(seed, { maxDepth: 6 });
    let checked = 0;
    let bytes = 0;
    let mismatches = 0;
    let first;
    for (let i = 0; i < count; i++) {
      const v = value();
      const expected = reference(v);
      let problem;
      try {
        const actual = canonicalJson(v);
        if (actual !== expected) problem = firstDifference(actual, expected);
      } catch (error) {
        problem = `canonicalJson threw ${error.code}: ${error.message}; reference gave ${JSON.stringify(expected.slice(0, 200))}`;
      }
      if (problem !== undefined) {
        mismatches++;
        first ??= `value #${i}: ${problem}`;
      }
      checked++;
      bytes += expected.length;
    }
    if (mismatches > 0) {
      assert.fail(`seed ${seed} (0x${seed.toString(16)}, rerun with CANONICAL_SEED=${seed}): ${mismatches} of ${count} values differ; first: ${first}`);
    }
    assert.equal(checked, count, `seed ${seed}`);
    assert.ok(bytes > count * 20, `seed ${seed}: the generator should make non-trivial values (${bytes} chars in all)`);
  });

  test('the generator reaches the corners (so the differential test means something)', () => {
    const { value } = valueGenerator(0x1d2c3b4a, { maxDepth: 6 });
    const seen = { proto: 0, integerKey: 0, loneSurrogate: 0, astral: 0, control: 0, undefinedMember: 0, negZero: 0, nonFinite: 0, exponent: 0, depth6: 0 };
    const walk = (v, depth) => {
      if (v === undefined) seen.undefinedMember++;
      else if (typeof v === 'number') {
        if (Object.is(v, -0)) seen.negZero++;
        if (!Number.isFinite(v)) seen.nonFinite++;
        if (/e/.test(String(v))) seen.exponent++;
      } else if (typeof v === 'string') {
        if (/\p{Surrogate}/u.test(v.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) seen.loneSurrogate++;
        if (/[\ud800-\udbff][\udc00-\udfff]/.test(v)) seen.astral++;
        if (/[\u0000-\u001f]/.test(v)) seen.control++;
      } else if (v !== null && typeof v === 'object') {
        if (depth >= 6) seen.depth6++;
        for (const k of Object.keys(v)) {
          if (k === '__proto__') seen.proto++;
          if (/^(0|[1-9]\d*)$/.test(k)) seen.integerKey++;
          walk(k, depth);
          walk(v[k], depth + 1);
        }
      }
    };
    for (let i = 0; i < 2000; i++) walk(value(), 1);
    for (const [corner, n] of Object.entries(seen)) assert.ok(n > 0, `seed 0x1d2c3b4a: the generator never produced ${corner}`);
  });
});

describe('canonicalJson: long lists handed to the native side in pieces', () => {
  /** `count` seeded random values: objects, arrays, strings (lone surrogates among them), numbers. */
  function randomList(seed, count) {
    const { value } = valueGenerator(seed, { maxDepth: 4 });
    return Array.from({ length: count }, () => value());
  }

  test('objects with long lists match the reference byte for byte', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const value = { a: randomList(seed, 70 + seed * 13), z: randomList(seed + 100, 5), '10': randomList(seed + 200, 64) };
      value['b"c\n'] = randomList(seed + 300, 80);
      value['\u{1F600}é'] = randomList(seed + 400, 100);
      value['x\ud800'] = randomList(seed + 500, 90);
      if (seed % 2) defineOwn(value, '__proto__', randomList(seed + 600, 65));
      value.short = [1, [2]];
      assertSameText(canonicalJson(value), reference(value), `seed ${seed}`);
    }
  });

  test('lists whose items JSON.stringify might write otherwise in a piece are written as in the whole value', () => {
    const many = (make) => Array.from({ length: 100 }, (_, i) => make(i));
    const keyed = many((i) => (i === 50 ? { toJSON: (key) => `item ${key}` } : { i }));
    const cases = {
      'an item with toJSON (told its key)': { list: keyed },
      'a Date item': { list: many((i) => new Date(i * 1e9)) },
      'a list with toJSON': { list: Object.assign(many((i) => i), { toJSON: () => 'list' }) },
      'a Proxy list': { list: new Proxy(many((i) => ({ i })), {}) },
      'a Proxy item': { list: many((i) => (i === 3 ? new Proxy({ i }, {}) : { i })) },
      'holes, undefined and functions': { list: many((i) => [undefined, () => 1, Symbol('s'), i][i % 4]).concat([, 1]) },
      'an object with toJSON': { list: many((i) => i), toJSON: () => ({ other: many((i) => -i) }) },
    };
    for (const [label, value] of Object.entries(cases)) {
      assertSameText(canonicalJson(value), canonicalJson(JSON.parse(JSON.stringify(value))), label);
    }
  });

  test('a getter runs once, a list behind one included', () => {
    let runs = 0;
    const value = Object.defineProperty({ list: Array.from({ length: 100 }, (_, i) => ({ i })) }, 'later', {
      enumerable: true,
      get() {
        runs++;
        return Array.from({ length: 100 }, (_, i) => i);
      },
    });
    const text = canonicalJson(value);
    assert.equal(runs, 1);
    assertSameText(text, reference(JSON.parse(JSON.stringify(value))), 'with a getter');
  });

  test('what JSON.stringify throws for the whole value is what canonicalJson throws', () => {
    const cyclic = { list: Array.from({ length: 100 }, (_, i) => ({ i })) };
    cyclic.list[70].back = cyclic;
    const cases = {
      'a BigInt in a later piece': { list: [...Array.from({ length: 300 }, (_, i) => ({ i })), { n: 1n }] },
      'a cycle through an item': cyclic,
      'a throwing getter': Object.defineProperty({ list: Array.from({ length: 100 }, (_, i) => i) }, 'g', {
        enumerable: true,
        get() {
          throw new Error('boom');
        },
      }),
    };
    for (const [label, value] of Object.entries(cases)) {
      let expected;
      try {
        JSON.stringify(value);
      } catch (error) {
        expected = error;
      }
      const error = assertNativeError(() => canonicalJson(value), 'invalid-json-value', label);
      assert.equal(error.message, `The value cannot be written as JSON: ${expected.message}`, label);
    }
  });

  test('an item of a long list counts the levels above it against MAX_JSON_DEPTH', () => {
    const script = `
      import { canonicalJson, MAX_JSON_DEPTH } from ${JSON.stringify(INDEX_URL)};
      const nested = (depth) => {
        let v = [];
        for (let i = 1; i < depth; i++) v = [v];
        return v;
      };
      const results = [];
      for (const depth of [MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1]) {
        const value = { list: [...Array.from({ length: 100 }, (_, i) => i), nested(depth)] };
        try { results.push(canonicalJson(value).split('\\n').length); }
        catch (error) { results.push(error.code, error.message.includes(String(MAX_JSON_DEPTH))); }
      }
      process.stdout.write(results.join(','));
    `;
    const out = execFileSync(process.execPath, ['--stack-size=4000', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    // The accepted one: braces, the 100 items and the list's brackets, then two lines a level.
    assert.match(out, /^\d+,value-too-deep,true$/);
  });
});

describe('canonicalJson: errors', () => {
  test('a BigInt anywhere is invalid-json-value', () => {
    assertNativeError(() => canonicalJson(1n), 'invalid-json-value', 'top-level BigInt');
    assertNativeError(() => canonicalJson({ a: { b: [1, 2n] } }), 'invalid-json-value', 'nested BigInt');
    assertNativeError(() => canonicalJson([0n]), 'invalid-json-value', 'BigInt in an array');
  });

  test('a cycle is invalid-json-value', () => {
    const object = { a: 1 };
    object.self = object;
    assertNativeError(() => canonicalJson(object), 'invalid-json-value', 'object cycle');
    const array = [1];
    array.push(array);
    assertNativeError(() => canonicalJson(array), 'invalid-json-value', 'array cycle');
    const deep = { x: { y: [{}] } };
    deep.x.y[0].back = deep.x;
    assertNativeError(() => canonicalJson(deep), 'invalid-json-value', 'deep cycle');
  });

  test('undefined, a function and a symbol at the top are invalid-json-value', () => {
    assertNativeError(() => canonicalJson(undefined), 'invalid-json-value', 'undefined');
    assertNativeError(() => canonicalJson(() => 1), 'invalid-json-value', 'function');
    assertNativeError(() => canonicalJson(Symbol()), 'invalid-json-value', 'symbol');
    assertNativeError(() => canonicalJson(), 'invalid-json-value', 'no argument');
  });

  test('nesting deeper than MAX_JSON_DEPTH is value-too-deep, and names the limit', () => {
    assert.ok(Number.isInteger(MAX_JSON_DEPTH) && MAX_JSON_DEPTH >= 4000, `MAX_JSON_DEPTH = ${MAX_JSON_DEPTH}`);
    for (const [depth, kind] of [[6000, 'array'], [6000, 'object'], [MAX_JSON_DEPTH + 1, 'array'], [100_000, 'array']]) {
      const error = assertNativeError(() => canonicalJson(nested(depth, kind)), 'value-too-deep', `${depth} nested ${kind}s`);
      assert.ok(error.message.includes(String(MAX_JSON_DEPTH)), `${depth} nested ${kind}s: the message names the limit: ${error.message}`);
    }
    // Still alive and still working.
    assert.equal(canonicalJson({ b: 1, a: [2] }), '{\n  "a": [\n    2\n  ],\n  "b": 1\n}\n');
  });

  test('a too-deep value does not crash a fresh process', () => {
    const script = `
      import { canonicalJson } from ${JSON.stringify(INDEX_URL)};
      const codes = [];
      for (const depth of [6000, 100000]) {
        let v = [];
        for (let i = 1; i < depth; i++) v = [v];
        try { canonicalJson(v); codes.push('no error'); } catch (error) { codes.push(error.code); }
      }
      process.stdout.write(codes.join(',') + '|' + canonicalJson({ z: 1, a: 2 }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(out, 'value-too-deep,value-too-deep|{\n  "a": 2,\n  "z": 1\n}\n');
  });

  test('4000 levels of objects work and equal the reference', () => {
    const value = nested(4000, 'object');
    const actual = canonicalJson(value);
    const expected = reference(value);
    assertSameText(actual, expected, '4000 nested objects');
    assertSameText(actual, nestedText(4000, 'object'), '4000 nested objects vs the hand-built text');
  });

  test('with stack to spare, exactly MAX_JSON_DEPTH levels are accepted and one more is not', () => {
    // On Node's default stack JSON.stringify gives up near 4,100 levels, before the native limit
    // (lib/errors.d.ts). With a larger V8 stack, the native limit is what refuses.
    const script = `
      import assert from 'node:assert/strict';
      import { canonicalJson, MAX_JSON_DEPTH } from ${JSON.stringify(INDEX_URL)};
      const nested = (depth, kind) => {
        let v = kind === 'array' ? [] : {};
        for (let i = 1; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
        return v;
      };
      const results = [];
      for (const kind of ['array', 'object']) {
        const text = canonicalJson(nested(MAX_JSON_DEPTH, kind));
        assert.equal(text.split('\\n').length, 2 * MAX_JSON_DEPTH);
        try { canonicalJson(nested(MAX_JSON_DEPTH + 1, kind)); results.push('accepted'); }
        catch (error) { results.push(error.code); }
      }
      process.stdout.write(results.join(','));
    `;
    const out = execFileSync(process.execPath, ['--stack-size=4000', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(out, 'value-too-deep,value-too-deep');
  });
});

describe('canonicalJson: pinned known differences from the TypeScript rule', () => {
  // DOCUMENTED KNOWN DIFFERENCE: the TypeScript rule copies own enumerable keys of every object, so a
  // Date (no own keys) becomes {} and a boxed String becomes {"0":…,"1":…}. The native side receives
  // JSON.stringify's text, so it writes what JSON.stringify writes: toJSON() / the primitive.
  test('a Date is written as JSON.stringify writes it (the reference writes {})', () => {
    const value = { when: new Date(0), list: [new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))] };
    assert.equal(canonicalJson(value),
      '{\n  "list": [\n    "2026-01-02T03:04:05.006Z"\n  ],\n  "when": "1970-01-01T00:00:00.000Z"\n}\n');
    assert.equal(reference(value), '{\n  "list": [\n    {}\n  ],\n  "when": {}\n}\n');
    assert.notEqual(canonicalJson(value), reference(value));
    assert.equal(canonicalJson(new Date(0)), '"1970-01-01T00:00:00.000Z"\n');
    assert.equal(reference(new Date(0)), '{}\n');
  });

  test('a boxed String is written as its primitive (the reference writes its index keys)', () => {
    const boxed = new String('ab');
    assert.equal(canonicalJson(boxed), '"ab"\n');
    assert.equal(reference(boxed), '{\n  "0": "a",\n  "1": "b"\n}\n');
    assert.equal(canonicalJson({ s: new String('ab') }), '{\n  "s": "ab"\n}\n');
    assert.equal(reference({ s: new String('ab') }), '{\n  "s": {\n    "0": "a",\n    "1": "b"\n  }\n}\n');
  });
});

describe('canonicalJson: plain checks', () => {
  test('keys sorted at every level, 2-space indent, trailing newline', () => {
    const value = { b: { d: 1, c: [true, null, 'x'] }, a: [] };
    const text = canonicalJson(value);
    assert.equal(text, '{\n  "a": [],\n  "b": {\n    "c": [\n      true,\n      null,\n      "x"\n    ],\n    "d": 1\n  }\n}\n');
    assert.equal(text, reference(value));
  });

  test('the input is not changed', () => {
    const value = { b: [3, 1, 2], a: { z: 1, y: 2 } };
    const before = JSON.stringify(value);
    canonicalJson(value);
    assert.equal(JSON.stringify(value), before);
    assert.deepEqual(Object.keys(value), ['b', 'a']);
  });

  test('a toJSON-free own __proto__ key built with defineProperty is dropped, like the reference', () => {
    const value = {};
    defineOwn(value, 'b', 1);
    defineOwn(value, '__proto__', { x: 1 });
    defineOwn(value, 'a', [2]);
    assert.deepEqual(Object.keys(value), ['b', '__proto__', 'a']);
    assert.equal(canonicalJson(value), reference(value));
    assert.equal(canonicalJson(value), '{\n  "a": [\n    2\n  ],\n  "b": 1\n}\n');
  });
});
