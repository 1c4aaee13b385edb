// A seeded generator of JSON Schema (draft 2020-12) / instance pairs for the validator's
// differential tests against Ajv.
//
// The schemas are written for Ajv's STRICT mode, so most of them compile:
// - every keyword that applies to one type has `type` in its own schema or in an enclosing schema
//   of the same data location (strictTypes); allOf/anyOf/oneOf/not/if branches inherit the type;
// - `required` only names properties declared by `properties` in the SAME schema object
//   (strictRequired: Ajv also accepts properties declared earlier in the same data location, but
//   allOf/anyOf/oneOf/if/then/else run BEFORE the sibling `properties` keyword, so a branch
//   cannot rely on its parent's `properties`);
// - `prefixItems` of length n always comes with `minItems: n` and `items: false` or
//   `maxItems: n` (strictTuples);
// - `default` is only put where Ajv applies it (not under anyOf/oneOf/not/if/contains/
//   propertyNames, where it is a strict-mode error on the input side).
// About a tenth of the schemas are refused ON PURPOSE (unknown keyword or format, strictTypes /
// strictRequired / strictTuples violations, defaults in composite keywords, invalid keyword values,
// unresolvable refs, lone if/then/else, invalid regular expressions...), often deep inside an
// otherwise valid schema so that the error paths are exercised.
//
// Instances, for each schema: some probably valid, some invalid in several ways at once (Ajv runs
// with allErrors), some of the wrong type. Validity is only a heuristic here: Ajv is the oracle.
//
// Determinism: everything comes from one mulberry32 stream; the same (seed, count) gives the
// same cases.

export const DEFAULT_SEED = 20260611;
export const DEFAULT_COUNT = 6000;

/** mulberry32: a tiny deterministic 32-bit PRNG giving floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sets an own enumerable data property, even for `__proto__`. */
function defineOwn(object, key, value) {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

const clone = (v) => (v === undefined ? undefined : structuredClone(v));
const jsonKey = (v) => JSON.stringify(v);
const ucs2length = (s) => [...s].length;

function jsonType(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Does `v` have JSON Schema type `t`? (Ajv: integer = finite number with no fractional part.) */
function hasType(v, t) {
  switch (t) {
    case 'null': return v === null;
    case 'boolean': return typeof v === 'boolean';
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'integer': return typeof v === 'number' && Number.isFinite(v) && v % 1 === 0;
    case 'array': return Array.isArray(v);
    case 'object': return v !== null && typeof v === 'object' && !Array.isArray(v);
    default: return false;
  }
}

/** Deep equality where object key order does not matter (what enum/const/uniqueItems use). */
function jsonEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

// ---------------------------------------------------------------------------------------------
// Pools
// ---------------------------------------------------------------------------------------------

const STRING_POOL = [
  '', 'a', 'b', 'ab', 'abc', 'abcd', 'abcde', 'abcdefgh', 'hello world', 'A', 'ABC', 'Abc', 'Hello',
  'a1', 'x9', '123', '42', '-1', '1.5', 'x-y', 'x_y', 'foo', 'foobar', 'barfoo', 'bar', 'baz',
  ' ', '  padded ', '\n', 'tab\there', 'null', 'true', 'é', 'naïve', 'Ünïcödé', '😀', '😀😀',
  'a😀', '😀😀😀😀', '日本語', 'Ω', 'e\u0301', '\u0000', 'a\u2028b', '555-1234', '12345678',
  'deadbeef', 'DEADBEEF', 'word', 'a word here', 'user@example.com', 'CamelCase', 'snake_case',
];

/** Patterns (compiled by Ajv with the `u` flag; `pattern` is a search, not a full match). */
const PATTERNS = [
  { p: '^[a-z]+$', more: ['abc', 'zz', 'Abc', 'a1'] },
  { p: '^[A-Z][a-z]*$', more: ['Hello', 'H', 'hello', 'HeLLo'] },
  { p: '^\\d{3}-\\d{4}$', more: ['555-1234', '55-1234', '555-12345'] },
  { p: 'foo', more: ['foobar', 'barfoo', 'fo', 'FOO'] },
  { p: '^.{2,4}$', more: ['😀😀', 'ab', 'abcde', '😀'] },
  { p: '^\\p{L}+$', more: ['Ünïcödé', '日本語', 'a1', 'é'] },
  { p: '^[^\\s]+$', more: ['nospace', 'has space', 'tab\there'] },
  { p: 'a|b', more: ['cat', 'dog', 'bee'] },
  { p: '^(ab)+$', more: ['abab', 'aba', 'ab'] },
  { p: '^[0-9a-f]{8}$', more: ['deadbeef', 'DEADBEEF', '0123456'] },
  { p: '^\\S+@\\S+$', more: ['a@b', 'user@example.com', '@b', 'a b@c'] },
  { p: '[😀]', more: ['a😀', 'x', '😀😀'] },
  { p: '^\\w+$', more: ['snake_case', 'kebab-case', 'é'] },
  { p: '^x-', more: ['x-y', 'x_y', 'y-x'] },
  { p: '\\.', more: ['1.5', '15', 'a.b'] },
];

/** Formats with examples Ajv (ajv-formats, full mode) should accept (`good`) or reject (`bad`). */
const STRING_FORMATS = {
  date: { good: ['2024-02-29', '1970-01-01', '2000-12-31'], bad: ['2023-02-29', '2024-13-01', '2024-1-01', '20240101', '2024-04-31'] },
  time: { good: ['12:34:56Z', '23:59:59+02:00', '00:00:00.5-05:30', '23:59:60Z'], bad: ['24:00:00Z', '12:34', '12:34:56', '1:2:3Z', '12:60:00Z'] },
  'date-time': { good: ['2024-01-01T00:00:00Z', '2024-02-29t12:30:00.123+01:00', '2024-01-01 10:00:00Z'], bad: ['2024-01-01', '2024-01-01T25:00:00Z', '2024-01-01T00:00:00', 'now'] },
  'iso-time': { good: ['12:34:56', '12:34:56Z', '12:34:56.789+01:00'], bad: ['25:00:00', '12:3:00', 'noon'] },
  'iso-date-time': { good: ['2024-01-01T00:00:00', '2024-01-01T00:00:00Z'], bad: ['2024-01-01T00:00', '2024-01-01', 'x'] },
  duration: { good: ['P1D', 'PT1H30M', 'P1W', 'P1Y2M3DT4H5M6S'], bad: ['P', 'PT', '1D', 'P1H', 'P1DT'] },
  uri: { good: ['https://example.com/a?b=c#d', 'urn:isbn:0451450523', 'mailto:a@b.co', 'http://[::1]:80/'], bad: ['//example.com', 'relative/path', 'http://exa mple.com', ''] },
  'uri-reference': { good: ['../a/b', '#frag', 'http://x.y/z', ''], bad: ['a b', '\\\\x', 'http://[bad'] },
  'uri-template': { good: ['http://example.com/{id}', '/users/{user}/repos{?page}', 'plain'], bad: ['http://example.com/{id', '{{x}}'] },
  url: { good: ['https://example.com', 'http://localhost:8080/path?q=1'], bad: ['example.com', 'http://', 'ftp//x'] },
  email: { good: ['a@b.co', 'first.last+tag@example.com', 'x@sub.example.org'], bad: ['no-at', 'a@', '@b.co', 'a b@c.d', 'a@b@c.d'] },
  hostname: { good: ['example.com', 'a-b.c', 'localhost', 'xn--bcher-kva.example'], bad: ['-bad.com', 'a..b', 'bad_host.com', `${'a'.repeat(64)}.com`] },
  ipv4: { good: ['192.168.0.1', '0.0.0.0', '255.255.255.255'], bad: ['256.1.1.1', '1.2.3', '01.2.3.4', '1.2.3.4.5'] },
  ipv6: { good: ['::1', '2001:db8::8a2e:370:7334', '::ffff:192.168.1.1', 'fe80::'], bad: ['::12345', '1::2::3', 'g::1', '1.2.3.4'] },
  regex: { good: ['^a+$', '[a-z]{2,}', '(a|b)*'], bad: ['(', '[a-', '*a'] },
  uuid: { good: ['123e4567-e89b-12d3-a456-426614174000', 'urn:uuid:123e4567-e89b-12d3-a456-426614174000', '00000000-0000-0000-0000-000000000000'], bad: ['123e4567e89b12d3a456426614174000', '123e4567-e89b-12d3-a456-42661417400', 'zzze4567-e89b-12d3-a456-426614174000'] },
  'json-pointer': { good: ['', '/a/b', '/a~1b/~0c', '/'], bad: ['a', '/a~2', '#/a'] },
  'json-pointer-uri-fragment': { good: ['#', '#/a/b', '#/a%20b'], bad: ['/a', '#a', '#/%zz'] },
  'relative-json-pointer': { good: ['0', '1/a', '2#', '0/'], bad: ['-1', '/a', '01'] },
  byte: { good: ['aGVsbG8=', '', 'YQ=='], bad: ['aGVsbG8', '%%%', 'abc'] },
  password: { good: ['anything', ''], bad: [] },
  binary: { good: ['x', ''], bad: [] },
};
const STRING_FORMAT_NAMES = Object.keys(STRING_FORMATS);

const NUMBER_POOL = [
  -1e21, -1000, -100, -17, -10, -2.5, -1, -0.5, -0, 0, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.1, 1.5, 2, 3, 4, 5,
  6, 7, 9.99, 10, 12, 15, 16, 20, 25, 33, 42, 99, 100, 101, 255, 256, 1000, 1024, 65535,
  2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 1e21, 1.5e300, 5e-324, 1e-7, 0.0001,
];

/** Number formats (ajv-formats): they only apply to numbers. */
const NUMBER_FORMATS = {
  int32: (v) => Number.isInteger(v) && v <= 2 ** 31 - 1 && v >= -(2 ** 31),
  int64: (v) => Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER,
  float: () => true,
  double: () => true,
};
const NUMBER_FORMAT_NAMES = Object.keys(NUMBER_FORMATS);

/** Property names: plain, with JSON-pointer specials, array-index-like, unicode. */
const KEY_POOL = [
  'a', 'b', 'c', 'id', 'name', 'count', 'tags', 'items', 'meta', 'x', 'y', 'z', 'kind', 'value',
  'enabled', 'title', 'size', 'a b', 'a/b', 'a~b', 'é', '10', '2', '0', 'x-trace', '$ref', 'aB',
];
const EXTRA_KEYS = ['extra', 'zz', 'q', 'x-extra', '7', 'Other', 'w w'];

const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean', 'null'];
const ALL_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'];

/** One sample of every type, for wrong-type instances. */
const TYPE_SAMPLES = [
  null, true, false, 0, 7, -3, 1.5, -0.25, '', 'str', '42', [], [1, 'a'], [null], {}, { a: 1 }, { '0': [] },
];

/** Values whose keys are JavaScript object property names (built by JSON.parse: own `__proto__`). */
const JS_NAME_VALUES = [
  '{}', '{"toString":"x"}', '{"__proto__":1}', '{"constructor":5,"toString":"y"}',
  '{"hasOwnProperty":true,"__proto__":{"a":1}}', '{"valueOf":"v"}',
];

const DEF_NAMES = ['node', 'str', 'num', 'pos-int', 'a b', 'a/b', 'x~y', 'é', 'Thing', 'percent%25'];

/** A `#/$defs/<name>` reference (JSON-pointer escaped; spaces, `%` and non-ASCII percent-encoded). */
function defRef(name, rnd) {
  const escaped = name.replace(/~/g, '~0').replace(/\//g, '~1');
  const encoded = rnd() < 0.5 ? encodeURIComponent(escaped) : escaped.replace(/%/g, '%25').replace(/ /g, '%20');
  return `#/$defs/${encoded}`;
}

// ---------------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------------

class Generator {
  constructor(seed) {
    this.rnd = mulberry32(seed);
  }

  int(lo, hi) {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }

  chance(p) {
    return this.rnd() < p;
  }

  pick(list) {
    return list[Math.floor(this.rnd() * list.length)];
  }

  /** `n` distinct elements of `list`, in random order. */
  sample(list, n) {
    const copy = [...list];
    const out = [];
    while (out.length < n && copy.length > 0) out.push(copy.splice(Math.floor(this.rnd() * copy.length), 1)[0]);
    return out;
  }

  /** Weighted choice: `[[weight, value], ...]`. */
  weighted(entries) {
    const total = entries.reduce((sum, [w]) => sum + w, 0);
    let r = this.rnd() * total;
    for (const [w, v] of entries) {
      r -= w;
      if (r < 0) return v;
    }
    return entries[entries.length - 1][1];
  }

  /** A copy of `v` with the keys of every object in a random order (equal for enum/const). */
  shuffleKeys(v) {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => this.shuffleKeys(x));
    const out = {};
    for (const k of this.sample(Object.keys(v), Object.keys(v).length)) defineOwn(out, k, this.shuffleKeys(v[k]));
    return out;
  }

  /** A value of a type outside `types` (a string or an array of types; empty: anything). */
  wrongType(types) {
    const ts = [].concat(types ?? []);
    const candidates = TYPE_SAMPLES.filter((v) => !ts.some((t) => hasType(v, t) || (t === 'number' && hasType(v, 'integer'))));
    return clone(this.pick(candidates.length > 0 ? candidates : TYPE_SAMPLES));
  }

  /** A small random JSON value. */
  anyValue(depth = 2) {
    const r = this.rnd();
    if (depth <= 0 || r < 0.5) return clone(this.pick([...TYPE_SAMPLES, ...NUMBER_POOL.slice(0, 12), ...STRING_POOL.slice(0, 12)]));
    if (r < 0.75) return Array.from({ length: this.int(0, 3) }, () => this.anyValue(depth - 1));
    const out = {};
    for (const k of this.sample([...KEY_POOL, ...EXTRA_KEYS], this.int(0, 3))) out[k] = this.anyValue(depth - 1);
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Nodes: { schema, types, good(), bad(), accepts?(v) }. `accepts` (scalars only) approximates
  // the schema; good()/bad() aim at valid/invalid instances (Ajv has the last word).
  // -------------------------------------------------------------------------------------------

  /** A node whose instances are picked from `pool` with the `accepts` predicate. */
  predicateNode(schema, types, accepts, pool) {
    const goods = pool.filter((v) => accepts(v));
    const bads = pool.filter((v) => !accepts(v));
    return {
      schema,
      types,
      accepts,
      good: () => clone(goods.length > 0 ? this.pick(goods) : this.pick(pool)),
      bad: () => clone(bads.length > 0 && this.chance(0.85) ? this.pick(bads) : this.wrongType(types)),
    };
  }

  /** Keywords for strings (no `type`), with their predicate and extra pool values. */
  stringKeywords({ allowEnum = true } = {}) {
    const kw = {};
    const checks = [];
    const pool = [...STRING_POOL];
    const r = this.rnd();
    if (r < 0.3) {
      const name = this.pick(STRING_FORMAT_NAMES);
      const { good, bad } = STRING_FORMATS[name];
      kw.format = name;
      pool.push(...good, ...bad, ...good);
      const goodSet = new Set(good);
      checks.push((s) => goodSet.has(s));
      if (this.chance(0.2)) {
        kw.maxLength = this.pick([8, 20, 40]);
        checks.push((s) => ucs2length(s) <= kw.maxLength);
      }
    } else if (allowEnum && r < 0.4) {
      kw.enum = this.sample(STRING_POOL, this.int(1, 4));
      checks.push((s) => kw.enum.includes(s));
    } else if (allowEnum && r < 0.45) {
      kw.const = this.pick(STRING_POOL);
      checks.push((s) => s === kw.const);
    } else {
      if (this.chance(0.5)) {
        kw.minLength = this.pick([0, 1, 2, 3, 5]);
        checks.push((s) => ucs2length(s) >= kw.minLength);
      }
      if (this.chance(0.5)) {
        kw.maxLength = (kw.minLength ?? 0) + this.pick([0, 1, 2, 4, 8]);
        checks.push((s) => ucs2length(s) <= kw.maxLength);
      }
      if (this.chance(0.45)) {
        const { p, more } = this.pick(PATTERNS);
        kw.pattern = p;
        pool.push(...more, ...more);
        const re = new RegExp(p, 'u');
        checks.push((s) => re.test(s));
      }
    }
    return { kw, pool, accepts: (v) => typeof v !== 'string' || checks.every((c) => c(v)) };
  }

  /** Keywords for numbers (no `type`). */
  numberKeywords({ integer = false, allowEnum = true } = {}) {
    const kw = {};
    const checks = [];
    const pool = [...NUMBER_POOL];
    const r = this.rnd();
    if (allowEnum && r < 0.08) {
      kw.enum = this.sample(NUMBER_POOL, this.int(1, 4));
      checks.push((n) => kw.enum.includes(n));
    } else if (allowEnum && r < 0.12) {
      kw.const = this.pick(NUMBER_POOL.filter((n) => !Object.is(n, -0)));
      checks.push((n) => n === kw.const);
    } else {
      const lo = this.pick([-100, -10, -1, 0, 0, 1, 5, 10]);
      const hi = lo + this.pick([0, 1, 10, 50, 100, 1000]);
      if (this.chance(0.45)) {
        if (this.chance(0.3)) {
          kw.exclusiveMinimum = lo;
          checks.push((n) => n > lo);
        } else {
          kw.minimum = lo;
          checks.push((n) => n >= lo);
        }
      }
      if (this.chance(0.45)) {
        if (this.chance(0.3)) {
          kw.exclusiveMaximum = hi;
          checks.push((n) => n < hi);
        } else {
          kw.maximum = hi;
          checks.push((n) => n <= hi);
        }
      }
      if (this.chance(0.3)) {
        const m = this.pick(integer ? [1, 2, 3, 5, 10, 0.5] : [1, 2, 3, 5, 10, 0.5, 0.25, 0.1, 0.01, 1e-7]);
        kw.multipleOf = m;
        // Ajv: `res = data / multipleOf; res !== parseInt(res)` (parseInt goes through the string form).
        checks.push((n) => n / m === parseInt(n / m, 10));
        pool.push(m * 3, m * 7, m * 2.5, 0.3, 0.7, 1.1);
      }
      if (this.chance(0.12)) {
        const name = this.pick(NUMBER_FORMAT_NAMES);
        kw.format = name;
        checks.push(NUMBER_FORMATS[name]);
      }
      for (let i = 0; i < 4; i++) pool.push(this.int(lo - 5, hi + 5));
    }
    return { kw, pool, accepts: (v) => typeof v !== 'number' || checks.every((c) => c(v)) };
  }

  stringNode(opts) {
    const { kw, pool, accepts } = this.stringKeywords(opts);
    return this.predicateNode({ type: 'string', ...kw }, ['string'], (v) => hasType(v, 'string') && accepts(v), pool);
  }

  numberNode(integer, opts) {
    const t = integer ? 'integer' : 'number';
    const { kw, pool, accepts } = this.numberKeywords({ integer, ...opts });
    return this.predicateNode({ type: t, ...kw }, [t], (v) => hasType(v, t) && accepts(v), pool);
  }

  booleanNode() {
    const schema = { type: 'boolean' };
    if (this.chance(0.2)) schema.const = this.chance(0.5);
    return this.predicateNode(schema, ['boolean'], (v) => typeof v === 'boolean' && (schema.const === undefined || v === schema.const), [true, false, 0, 'true', null]);
  }

  nullNode() {
    return this.predicateNode({ type: 'null' }, ['null'], (v) => v === null, [null, 0, '', false, 'null', {}]);
  }

  /** A type-less `enum` or `const` over mixed JSON values (deep equality, key order irrelevant). */
  enumNode() {
    const values = [
      'a', 'b', '', 1, 1.5, 0, -0, 42, null, true, false, [], [1, 2], [2, 1], {}, { a: 1 }, { a: 1, b: [true, null] },
      { b: { c: 'd' }, a: [] }, '1', [null], [[1], { x: 1 }],
    ];
    const members = this.sample(values, this.int(1, 5));
    const isConst = this.chance(0.3);
    const schema = isConst ? { const: clone(members[0]) } : { enum: clone(members) };
    const set = isConst ? [members[0]] : members;
    const accepts = (v) => set.some((m) => jsonEqual(m, v));
    const node = this.predicateNode(schema, [], accepts, [...values, 'A', 2, { a: 2 }, [1, 2, 3]]);
    node.good = () => this.shuffleKeys(clone(this.pick(set)));
    return node;
  }

  /** `type: [t1, t2(, t3)]` with keywords for each of the types (allowUnionTypes). */
  unionNode() {
    const types = this.sample(SCALAR_TYPES, this.int(2, 3));
    if (types.includes('number') && types.includes('integer') && this.chance(0.7)) types.splice(types.indexOf('integer'), 1);
    const schema = { type: types };
    const preds = [];
    const pool = [];
    for (const t of types) {
      if (t === 'string') {
        const { kw, pool: p, accepts } = this.stringKeywords({ allowEnum: false });
        if (!('format' in schema)) Object.assign(schema, kw);
        else Object.assign(schema, { ...kw, format: schema.format });
        preds.push((v) => hasType(v, 'string') && accepts(v));
        pool.push(...p);
      } else if (t === 'number' || t === 'integer') {
        const { kw, pool: p, accepts } = this.numberKeywords({ integer: t === 'integer', allowEnum: false });
        if ('format' in schema) delete kw.format;
        for (const k of Object.keys(kw)) if (!(k in schema)) schema[k] = kw[k];
        preds.push((v) => hasType(v, t) && accepts(v));
        pool.push(...p);
      } else {
        preds.push((v) => hasType(v, t));
        pool.push(t === 'null' ? null : true, false);
      }
    }
    pool.push({}, [], { a: 1 });
    // The merged keywords apply by type; the predicate is a heuristic.
    return this.predicateNode(schema, types, (v) => preds.some((p) => p(v)), pool);
  }

  leaf() {
    return this.weighted([
      [30, () => this.stringNode()],
      [14, () => this.numberNode(false)],
      [10, () => this.numberNode(true)],
      [5, () => this.booleanNode()],
      [3, () => this.nullNode()],
      [10, () => this.enumNode()],
      [13, () => this.unionNode()],
      [2, () => this.boolSchemaNode()],
    ])();
  }

  /** The boolean schemas `true` and `false`. */
  boolSchemaNode() {
    const b = this.chance(0.7);
    // `false` has no valid instance: good() gives undefined, and containers leave it out.
    return { schema: b, types: [], good: () => (b ? this.anyValue() : undefined), bad: () => this.anyValue() };
  }

  /**
   * Any node. ctx: { defaults (may put `default`s here), defs (Map of $defs for the case), refs }.
   */
  node(depth, ctx) {
    if (depth <= 0) return this.leaf();
    return this.weighted([
      [40, () => this.leaf()],
      [24, () => this.objectNode(depth, ctx)],
      [14, () => this.arrayNode(depth, ctx)],
      [14, () => this.compositeNode(depth, ctx)],
      [8, () => this.refNode(depth, ctx)],
    ])();
  }

  /** Adds a `default` to `child` (usually a valid one; sometimes of the wrong type). */
  withDefault(child) {
    if (child.schema === true || child.schema === false) return false;
    child.schema.default = this.chance(0.85) ? child.good() : child.bad();
    return true;
  }

  objectNode(depth, ctx, forced = {}) {
    const keys = forced.keys ?? this.sample(KEY_POOL, this.int(0, 5));
    const children = {};
    const defaulted = new Set();
    const properties = {};
    for (const k of keys) {
      const child = this.node(depth - 1, ctx);
      if (ctx.defaults && this.chance(forced.defaultRate ?? 0.2) && this.withDefault(child)) defaulted.add(k);
      children[k] = child;
      defineOwn(properties, k, child.schema);
    }
    const schema = { type: 'object' };
    if (keys.length > 0 || this.chance(0.5)) schema.properties = properties;
    const required = keys.filter(() => this.chance(0.4));
    if (required.length > 0) schema.required = required;

    // What is allowed besides the declared properties.
    const extraMode = forced.extraMode ?? this.weighted([[40, 'none'], [22, 'closed'], [18, 'schema'], [14, 'pattern'], [6, 'pattern-closed']]);
    let addl = null;
    let patterns = [];
    if (extraMode === 'closed') schema.additionalProperties = false;
    if (extraMode === 'schema') {
      addl = this.leaf();
      schema.additionalProperties = addl.schema;
    }
    if (extraMode === 'pattern' || extraMode === 'pattern-closed') {
      patterns = this.sample(
        [
          { re: '^x-', key: 'x-extra', badKey: 'y-extra' },
          { re: '^[0-9]+$', key: '7', badKey: '7a' },
          { re: 'b', key: 'abc', badKey: 'zz' },
          { re: '^\\p{Lu}', key: 'Other', badKey: 'other' },
        ],
        this.int(1, 2),
      )
        // strict mode refuses a declared property that matches a pattern (allowMatchingProperties)
        .filter((p) => this.chance(0.05) || !keys.some((k) => new RegExp(p.re, 'u').test(k)))
        .map((p) => ({ ...p, node: this.leaf() }));
      schema.patternProperties = {};
      for (const p of patterns) schema.patternProperties[p.re] = p.node.schema;
      if (extraMode === 'pattern-closed') schema.additionalProperties = false;
    }

    let propertyNames = null;
    if (this.chance(0.1) && extraMode !== 'pattern-closed') {
      const longest = Math.max(5, ...keys.map(ucs2length));
      propertyNames = this.pick([
        { schema: { maxLength: longest }, bad: 'k'.repeat(longest + 1) },
        { schema: { minLength: 1 }, bad: '' },
        { schema: { not: { const: 'forbidden' } }, bad: 'forbidden' },
        { schema: { pattern: '^[^A-Z]*$' }, bad: 'UPPER' },
      ]);
      if (propertyNames.schema.pattern !== undefined && keys.some((k) => /[A-Z]/.test(k))) propertyNames = null;
      if (propertyNames) schema.propertyNames = propertyNames.schema;
    }

    let minProps = null;
    let maxProps = null;
    if (keys.length > 0 && this.chance(0.08)) schema.minProperties = minProps = this.int(1, Math.min(3, keys.length));
    if (this.chance(0.08)) schema.maxProperties = maxProps = this.int(Math.max(minProps ?? 0, 1), 4);

    let depRequired = null;
    if (keys.length >= 2 && this.chance(0.12)) {
      const [a, ...rest] = this.sample(keys, this.int(2, 3));
      depRequired = { [a]: rest };
      schema.dependentRequired = depRequired;
    }

    let depSchema = null;
    if (keys.length >= 1 && extraMode !== 'closed' && extraMode !== 'pattern-closed' && this.chance(0.1)) {
      const trigger = this.pick(keys);
      const key = this.pick(EXTRA_KEYS.filter((k) => !keys.includes(k)));
      const node = this.leaf();
      depSchema = { trigger, key, node };
      schema.dependentSchemas = { [trigger]: { properties: { [key]: node.schema }, required: [key] } };
    }

    let unevaluated = null;
    if (extraMode === 'none' && this.chance(forced.unevaluatedRate ?? 0.08)) {
      const key = this.pick(EXTRA_KEYS.filter((k) => !keys.includes(k)));
      const node = this.leaf();
      schema.allOf = [{ properties: { [key]: node.schema } }];
      unevaluated = { key, node, rest: this.chance(0.5) ? false : this.leaf() };
      schema.unevaluatedProperties = unevaluated.rest === false ? false : unevaluated.rest.schema;
    }

    const closed = extraMode === 'closed' || extraMode === 'pattern-closed' || (unevaluated && unevaluated.rest === false);

    const good = () => {
      const out = {};
      for (const k of keys) {
        const include = required.includes(k) || this.chance(defaulted.has(k) ? 0.3 : 0.65);
        const v = include ? children[k].good() : undefined;
        if (v !== undefined) defineOwn(out, k, v);
      }
      if (depRequired) {
        const [a, rest] = Object.entries(depRequired)[0];
        if (a in out) for (const k of rest) if (!(k in out)) defineOwn(out, k, children[k].good());
      }
      if (depSchema && depSchema.trigger in out) defineOwn(out, depSchema.key, depSchema.node.good());
      if (addl && this.chance(0.5)) defineOwn(out, this.pick(EXTRA_KEYS.filter((k) => !keys.includes(k))), addl.good());
      for (const p of patterns) if (this.chance(0.6)) defineOwn(out, p.key, p.node.good());
      if (unevaluated && this.chance(0.6)) defineOwn(out, unevaluated.key, unevaluated.node.good());
      if (unevaluated && unevaluated.rest !== false && this.chance(0.4)) defineOwn(out, 'w w', unevaluated.rest.good());
      if (minProps !== null) {
        for (const k of keys) {
          const v = Object.keys(out).length < minProps && !(k in out) ? children[k].good() : undefined;
          if (v !== undefined) defineOwn(out, k, v);
        }
      }
      if (maxProps !== null) {
        for (const k of Object.keys(out)) if (Object.keys(out).length > maxProps && !required.includes(k)) delete out[k];
      }
      for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
      return out;
    };

    const mutations = [];
    if (required.length > 0) mutations.push((o) => delete o[this.pick(required)]);
    if (keys.length > 0) {
      mutations.push((o) => {
        const k = this.pick(keys);
        defineOwn(o, k, children[k].bad());
      });
      mutations.push((o) => {
        const k = this.pick(keys);
        defineOwn(o, k, this.wrongType(children[k].types));
      });
    }
    if (closed) mutations.push((o) => defineOwn(o, this.pick(EXTRA_KEYS.filter((k) => !keys.includes(k))), this.anyValue(1)));
    if (addl) mutations.push((o) => defineOwn(o, this.pick(EXTRA_KEYS.filter((k) => !keys.includes(k))), addl.bad()));
    for (const p of patterns) {
      mutations.push((o) => defineOwn(o, p.key, p.node.bad()));
      if (extraMode === 'pattern-closed') mutations.push((o) => defineOwn(o, p.badKey, 1));
    }
    if (propertyNames) mutations.push((o) => defineOwn(o, propertyNames.bad, 0));
    if (maxProps !== null) mutations.push((o) => EXTRA_KEYS.slice(0, maxProps + 1).forEach((k) => defineOwn(o, k, 1)));
    if (minProps !== null) mutations.push((o) => Object.keys(o).forEach((k) => delete o[k]));
    if (depRequired) {
      mutations.push((o) => {
        const [a, rest] = Object.entries(depRequired)[0];
        defineOwn(o, a, children[a].good());
        for (const k of rest) delete o[k];
      });
    }
    if (depSchema) {
      mutations.push((o) => {
        defineOwn(o, depSchema.trigger, children[depSchema.trigger].good());
        if (this.chance(0.5)) delete o[depSchema.key];
        else defineOwn(o, depSchema.key, depSchema.node.bad());
      });
    }
    if (unevaluated) {
      mutations.push((o) => defineOwn(o, unevaluated.key, unevaluated.node.bad()));
      mutations.push((o) => defineOwn(o, 'w w', unevaluated.rest === false ? 1 : unevaluated.rest.bad()));
    }
    const bad = () => {
      const out = good();
      if (mutations.length === 0) return this.wrongType(['object']);
      const n = this.int(1, 3);
      for (let i = 0; i < n; i++) this.pick(mutations)(out);
      return out;
    };
    return { schema, types: ['object'], good, bad };
  }

  arrayNode(depth, ctx) {
    const kind = this.weighted([[45, 'list'], [22, 'tuple'], [15, 'contains'], [10, 'unique'], [8, 'tuple-rest']]);
    const schema = { type: 'array' };
    if (kind === 'tuple' || kind === 'tuple-rest') {
      const n = this.int(1, 3);
      const parts = Array.from({ length: n }, () => this.node(depth - 1, ctx));
      // Ajv2020 ignores `default` inside prefixItems (useDefaults only looks at an `items` array).
      if (ctx.defaults && this.chance(0.2)) this.withDefault(this.pick(parts));
      schema.prefixItems = parts.map((p) => p.schema);
      schema.minItems = n;
      let rest = null;
      if (kind === 'tuple') {
        if (this.chance(0.5)) schema.items = false;
        else schema.maxItems = n;
      } else {
        rest = this.leaf();
        schema.items = rest.schema;
        schema.maxItems = n; // strictTuples: with an `items` schema the tuple must be full
      }
      const good = () => parts.map((p) => p.good() ?? null);
      const bad = () => {
        const out = good();
        const n2 = this.int(1, 2);
        for (let i = 0; i < n2; i++) {
          const r = this.rnd();
          if (r < 0.5) {
            const idx = this.int(0, parts.length - 1);
            out[idx] = parts[idx].bad();
          } else if (r < 0.75) out.push(rest ? rest.good() : this.anyValue(0));
          else out.pop();
        }
        return out;
      };
      return { schema, types: ['array'], good, bad };
    }
    if (kind === 'contains') {
      const c = this.leaf();
      schema.contains = c.schema;
      let minC = 1;
      let maxC = Infinity;
      if (this.chance(0.4)) schema.minContains = minC = this.int(0, 2);
      if (this.chance(0.4) || (minC === 0 && this.chance(0.9))) schema.maxContains = maxC = Math.max(minC, 1) + this.int(0, 1);
      const filler = () => this.wrongType(c.types.length > 0 ? c.types : ['object']);
      const build = (k, extra) => {
        const out = Array.from({ length: k }, () => c.good() ?? null);
        for (let i = 0; i < extra; i++) out.splice(this.int(0, out.length), 0, filler());
        return out;
      };
      const good = () => build(Math.min(maxC, minC + this.int(0, 1)), this.int(0, 2));
      const bad = () => (this.chance(0.5) || maxC === Infinity ? build(Math.max(0, minC - 1), this.int(0, 3)) : build(maxC + 1, 1));
      return { schema, types: ['array'], good, bad };
    }
    // 'list' and 'unique'
    const item = kind === 'unique' && this.chance(0.5) ? this.leaf() : this.node(depth - 1, ctx);
    if (item.schema !== true && item.schema !== false) schema.items = item.schema;
    let minI = 0;
    let maxI = 5;
    if (this.chance(0.3)) schema.minItems = minI = this.int(0, 2);
    if (this.chance(0.3)) schema.maxItems = maxI = minI + this.int(0, 3);
    const unique = kind === 'unique' || this.chance(0.1);
    if (unique) schema.uniqueItems = true;
    const good = () => {
      const len = this.int(minI, Math.min(maxI, minI + 3));
      const out = [];
      for (let i = 0; i < len * 3 && out.length < len; i++) {
        const v = item.good();
        if (v !== undefined && (!unique || !out.some((x) => jsonEqual(x, v)))) out.push(v);
      }
      return out;
    };
    const bad = () => {
      const out = good();
      if (unique && this.chance(0.6)) {
        // duplicates (sometimes with their keys in another order), at various distances
        const v = out.length > 0 ? this.pick(out) : item.good() ?? 1;
        out.splice(this.int(0, out.length), 0, this.shuffleKeys(clone(v)));
        if (out.length < 2) out.push(clone(v));
      }
      const n = this.int(unique ? 0 : 1, 3);
      for (let i = 0; i < n; i++) {
        const r = this.rnd();
        if (r < 0.4) out.splice(this.int(0, out.length), 0, item.bad());
        else if (r < 0.6 && unique) {
          const v = out.length > 0 ? this.shuffleKeys(this.pick(out)) : item.good();
          out.push(v, clone(v));
        } else if (r < 0.8 && schema.maxItems !== undefined) {
          while (out.length <= maxI) out.push(item.good());
        } else if (schema.minItems) out.length = 0;
        else out.push(this.wrongType(item.types));
      }
      return out;
    };
    return { schema, types: ['array'], good, bad };
  }

  /** allOf/anyOf/oneOf/not/if-then-else over typed branches or over keyword fragments. */
  compositeNode(depth, ctx) {
    const noDefaults = { ...ctx, defaults: false };
    const kind = this.weighted([
      [16, 'anyOf-typed'], [12, 'oneOf-typed'], [10, 'not'], [22, 'fragments'], [12, 'if-object'],
      [10, 'allOf-object'], [8, 'anyOf-object'],
    ]);
    if (kind === 'anyOf-typed' || kind === 'oneOf-typed') {
      const key = kind === 'anyOf-typed' ? 'anyOf' : 'oneOf';
      const branches = Array.from({ length: this.int(2, 3) }, () => (this.chance(0.75) ? this.leaf() : this.node(depth - 1, noDefaults)));
      const schema = { [key]: branches.map((b) => b.schema) };
      const types = [...new Set(branches.flatMap((b) => b.types))];
      return {
        schema,
        types: branches.some((b) => b.types.length === 0) ? [] : types,
        good: () => this.pick(branches).good(),
        bad: () => (this.chance(0.5) ? this.pick(branches).bad() : this.wrongType(types)),
      };
    }
    if (kind === 'not') {
      const inner = this.leaf();
      return {
        schema: { not: inner.schema },
        types: [],
        good: () => (this.chance(0.5) ? inner.bad() : this.wrongType(inner.types)),
        bad: () => inner.good(),
      };
    }
    if (kind === 'fragments') {
      // {type: T, allOf|anyOf|oneOf|not|if: fragments that inherit T}
      const t = this.pick(['string', 'string', 'number', 'integer']);
      const frag = () => (t === 'string' ? this.stringKeywords() : this.numberKeywords({ integer: t === 'integer' }));
      const op = this.pick(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'if', 'then-only-if']);
      const schema = { type: t };
      const pool = [];
      let accepts;
      if (op === 'not') {
        const f = frag();
        schema.not = f.kw;
        pool.push(...f.pool);
        accepts = (v) => hasType(v, t) && !f.accepts(v);
      } else if (op === 'if' || op === 'then-only-if') {
        const [fi, ft, fe] = [frag(), frag(), frag()];
        schema.if = fi.kw;
        schema.then = ft.kw;
        if (op === 'if') schema.else = fe.kw;
        pool.push(...fi.pool, ...ft.pool, ...fe.pool);
        accepts = (v) => hasType(v, t) && (fi.accepts(v) ? ft.accepts(v) : op === 'if' ? fe.accepts(v) : true);
      } else {
        const frags = Array.from({ length: this.int(2, 3) }, frag);
        schema[op] = frags.map((f) => f.kw);
        for (const f of frags) pool.push(...f.pool);
        accepts = (v) => {
          if (!hasType(v, t)) return false;
          const n = frags.filter((f) => f.accepts(v)).length;
          return op === 'allOf' ? n === frags.length : op === 'anyOf' ? n > 0 : n === 1;
        };
      }
      return this.predicateNode(schema, [t], accepts, pool);
    }
    if (kind === 'if-object') {
      // A discriminated object: if kind == a then requires x else requires y. `then`/`else` declare
      // the properties they require (strictRequired); `default`s there are applied by Ajv.
      const tags = this.sample(['a', 'b', 'c', 'd'], 3);
      const x = this.leaf();
      const y = this.leaf();
      const thenProps = { x: x.schema };
      const elseProps = { y: y.schema };
      const schema = {
        type: 'object',
        properties: { kind: { enum: tags } },
        required: ['kind'],
        if: { properties: { kind: { const: tags[0] } }, required: ['kind'] },
        then: { properties: thenProps, required: ['x'] },
        else: { properties: elseProps, required: ['y'] },
      };
      if (ctx.defaults && this.chance(0.3)) thenProps.z = { type: 'string', default: 'from-then' };
      const good = () => {
        const tag = this.pick(tags);
        return tag === tags[0] ? { kind: tag, x: x.good() } : { kind: tag, y: y.good() };
      };
      const bad = () => this.pick([
        () => ({ kind: tags[0], y: y.good() }),
        () => ({ kind: tags[1], x: x.good() }),
        () => ({ kind: tags[0], x: x.bad() }),
        () => ({ kind: 'zzz', y: y.bad() }),
        () => ({ x: x.good(), y: y.good() }),
      ])();
      return { schema, types: ['object'], good, bad };
    }
    // allOf/anyOf over object fragments that declare what they require.
    const n = this.int(2, 3);
    const keySets = Array.from({ length: n }, () => this.sample(KEY_POOL, this.int(1, 2)));
    const op = kind === 'allOf-object' ? 'allOf' : this.pick(['anyOf', 'oneOf']);
    const ctxBranch = op === 'allOf' ? ctx : noDefaults;
    const branches = keySets.map((ks) => {
      const children = {};
      const properties = {};
      for (const k of ks) {
        children[k] = this.node(depth - 1, ctxBranch);
        if (ctxBranch.defaults && this.chance(0.2)) this.withDefault(children[k]);
        defineOwn(properties, k, children[k].schema);
      }
      const required = ks.filter(() => this.chance(0.6));
      return { schema: { properties, ...(required.length > 0 && { required }) }, ks, children, required };
    });
    const schema = { type: 'object', [op]: branches.map((b) => b.schema) };
    if (this.chance(0.3)) schema.unevaluatedProperties = false;
    const fill = (out, b) => {
      for (const k of b.ks) if (b.required.includes(k) || this.chance(0.5)) defineOwn(out, k, b.children[k].good());
    };
    const good = () => {
      const out = {};
      if (op === 'allOf') for (const b of branches) fill(out, b);
      else fill(out, this.pick(branches));
      return out;
    };
    const bad = () => {
      const out = good();
      const b = this.pick(branches);
      const k = this.pick(b.ks);
      const r = this.rnd();
      if (r < 0.4) defineOwn(out, k, b.children[k].bad());
      else if (r < 0.7) for (const req of b.required) delete out[req];
      else defineOwn(out, 'zz', 1);
      if (this.chance(0.4)) defineOwn(out, this.pick(b.ks), this.wrongType(b.children[k].types));
      return out;
    };
    return { schema, types: ['object'], good, bad };
  }

  /** A `$ref` to a (possibly shared, possibly escaped) definition, sometimes with siblings. */
  refNode(depth, ctx) {
    let def;
    const ready = [...ctx.defs.values()].filter((d) => d.node !== null);
    if (ready.length > 0 && this.chance(0.4)) def = this.pick(ready);
    else {
      const name = this.pick(DEF_NAMES.filter((n) => !ctx.defs.has(n))) ?? `d${ctx.defs.size}`;
      // Reserve the name first: a nested $ref must not reuse it (a pure $ref cycle makes Ajv's
      // compile overflow the stack; that case is generated on purpose by refusal()).
      def = { name, node: null };
      ctx.defs.set(name, def);
      def.node = this.node(depth - 1, { ...ctx, defaults: false });
    }
    const schema = { $ref: defRef(def.name, this.rnd) };
    let sibling = null;
    if (def.node.types.length === 1 && def.node.types[0] === 'string' && this.chance(0.3)) {
      schema.type = 'string';
      schema.maxLength = sibling = this.int(2, 8);
    }
    return {
      schema,
      types: def.node.types,
      good: () => def.node.good(),
      bad: () => (sibling !== null && this.chance(0.3) ? 'x'.repeat(sibling + 1) : def.node.bad()),
    };
  }

  // -------------------------------------------------------------------------------------------
  // Case families
  // -------------------------------------------------------------------------------------------

  /** Values for a node: probably valid, invalid in several ways, wrong type, random. */
  valuesFor(node, { good = 2, bad = 2, wrong = 1, random = 1 } = {}) {
    const out = [];
    for (let i = 0; i < good; i++) out.push(node.good());
    for (let i = 0; i < bad; i++) out.push(node.bad());
    for (let i = 0; i < wrong; i++) out.push(this.wrongType(node.types));
    for (let i = 0; i < random; i++) out.push(this.chance(0.5) ? this.anyValue() : node.bad());
    return out.filter((v) => v !== undefined);
  }

  /** Wraps a node with the case's `$defs`, if any. */
  finish(node, ctx) {
    if (ctx.defs.size === 0) return node.schema;
    const defs = {};
    for (const [name, def] of ctx.defs) defineOwn(defs, name, def.node.schema);
    if (node.schema === true || node.schema === false) return { allOf: [node.schema], $defs: defs };
    return { ...node.schema, $defs: { ...defs, ...node.schema.$defs } };
  }

  randomTree() {
    const ctx = { defaults: true, defs: new Map() };
    const root = this.chance(0.6) ? this.objectNode(3, ctx) : this.node(3, ctx);
    return { tag: 'tree', schema: this.finish(root, ctx), values: this.valuesFor(root) };
  }

  /** Objects full of defaults: nested default objects, defaults in allOf/then/else, wrong-typed. */
  defaultsFamily() {
    const ctx = { defaults: true, defs: new Map() };
    const root = this.objectNode(3, ctx, { defaultRate: 0.6 });
    const schema = root.schema;
    if (this.chance(0.4)) {
      // a nested object that defaults to {} and has defaulted properties of its own
      const inner = this.objectNode(2, ctx, { defaultRate: 0.8, keys: this.sample(KEY_POOL, this.int(1, 3)) });
      inner.schema.default = {};
      schema.properties = schema.properties ?? {};
      defineOwn(schema.properties, 'nested', inner.schema);
    }
    if (this.chance(0.3)) {
      // an array of objects whose items get defaults
      const item = this.objectNode(1, ctx, { defaultRate: 0.8, keys: this.sample(KEY_POOL, 2) });
      schema.properties = schema.properties ?? {};
      defineOwn(schema.properties, 'list', { type: 'array', items: item.schema });
    }
    const values = [{}, {}, ...this.valuesFor(root, { good: 2, bad: 2, wrong: 1, random: 0 })];
    if (schema.properties?.nested) values.push({ nested: {} }, { nested: null });
    if (schema.properties?.list) values.push({ list: [{}, { a: 1 }, 3] });
    return { tag: 'defaults', schema: this.finish(root, ctx), values };
  }

  /** Recursive schemas: a tree through $defs, a linked list through '#', mutual recursion. */
  recursiveFamily() {
    const kind = this.pick(['tree', 'list', 'mutual']);
    const leaf = this.leaf();
    const wrap = (v) => v;
    if (kind === 'tree') {
      const name = this.pick(['node', 'tree node', 'n/1']);
      const ref = defRef(name, this.rnd);
      const node = {
        type: 'object',
        properties: { value: leaf.schema, children: { type: 'array', items: { $ref: ref } } },
        required: ['value'],
      };
      if (this.chance(0.5)) node.additionalProperties = false;
      const schema = { $defs: { [name]: node }, $ref: ref };
      const build = (d, bad) => {
        const out = { value: bad && this.chance(0.3) ? leaf.bad() : leaf.good() };
        if (d > 0) out.children = Array.from({ length: this.int(0, 2) }, () => build(d - 1, bad));
        if (bad && this.chance(0.2)) delete out.value;
        if (bad && this.chance(0.15)) out.extra = 1;
        return out;
      };
      const values = [build(0, false), build(3, false), build(3, true), build(4, true), this.wrongType(['object']), { value: leaf.good(), children: [1] }];
      return { tag: 'recursive', schema, values: values.map(wrap) };
    }
    if (kind === 'list') {
      const schema = {
        type: 'object',
        properties: { v: leaf.schema, next: this.chance(0.5) ? { anyOf: [{ type: 'null' }, { $ref: '#' }] } : { $ref: '#' } },
        required: ['v'],
      };
      const build = (d, bad) => ({ v: bad && this.chance(0.3) ? leaf.bad() : leaf.good(), ...(d > 0 ? { next: build(d - 1, bad) } : this.chance(0.5) ? { next: null } : {}) });
      return { tag: 'recursive', schema, values: [build(0, false), build(3, false), build(3, true), build(5, true), { v: leaf.good(), next: 'x' }, []] };
    }
    const schema = {
      $defs: {
        a: { type: 'object', properties: { b: { $ref: '#/$defs/b' }, tag: { const: 'a' } }, required: ['tag'] },
        b: { type: 'array', items: { anyOf: [{ $ref: '#/$defs/a' }, leaf.schema] }, maxItems: 3 },
      },
      $ref: '#/$defs/a',
    };
    const build = (d, bad) => {
      const out = { tag: bad && this.chance(0.3) ? 'b' : 'a' };
      if (d > 0) out.b = Array.from({ length: this.int(1, bad ? 4 : 3) }, () => (this.chance(0.5) ? build(d - 1, bad) : bad ? leaf.bad() : leaf.good()));
      return out;
    };
    return { tag: 'recursive', schema, values: [build(0, false), build(2, false), build(3, true), build(3, true), {}, 5] };
  }

  /** Properties named like JavaScript object properties (toString, constructor, __proto__). */
  jsNamesFamily() {
    const names = this.sample(['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf', 'length'], this.int(1, 3));
    const properties = {};
    for (const k of names) defineOwn(properties, k, this.leaf().schema);
    const schema = { type: 'object', properties };
    const required = names.filter(() => this.chance(0.5));
    if (required.length > 0) schema.required = required;
    if (this.chance(0.3)) schema.additionalProperties = false;
    return { tag: 'js-names', schema, values: this.sample(JS_NAME_VALUES, 4).map((t) => JSON.parse(t)) };
  }

  /** unevaluatedProperties seeing through allOf, if/then, dependentSchemas and $ref. */
  unevaluatedFamily() {
    const ctx = { defaults: false, defs: new Map() };
    const base = this.objectNode(2, ctx, { extraMode: 'none', unevaluatedRate: 1 });
    const schema = base.schema;
    if (!schema.allOf) return { tag: 'unevaluated', schema: this.finish(base, ctx), values: this.valuesFor(base) };
    const extra = this.pick(['if', 'ref', 'dependent', 'none']);
    const values = this.valuesFor(base);
    if (extra === 'if') {
      schema.if = { properties: { mode: { const: 'on' } }, required: ['mode'] };
      schema.then = { properties: { onValue: { type: 'number' } } };
      schema.properties = schema.properties ?? {};
      defineOwn(schema.properties, 'mode', { type: 'string' });
      values.push({ mode: 'on', onValue: 1 }, { mode: 'off', onValue: 1 });
    } else if (extra === 'ref') {
      schema.$defs = { more: { type: 'object', properties: { viaRef: { type: 'boolean' } } } };
      schema.allOf.push({ $ref: '#/$defs/more' });
      values.push({ viaRef: true }, { viaRef: 'no', other: 1 });
    } else if (extra === 'dependent') {
      schema.dependentSchemas = { trigger: { properties: { dep: { type: 'string' } } } };
      values.push({ trigger: 1, dep: 'x' }, { dep: 'x' });
    }
    return { tag: 'unevaluated', schema: this.finish(base, ctx), values };
  }

  /** unevaluatedItems after prefixItems/contains, and items after prefixItems in allOf. */
  unevaluatedItemsFamily() {
    const a = this.leaf();
    const b = this.leaf();
    const variant = this.pick(['contains', 'allOf-prefix', 'plain']);
    let schema;
    if (variant === 'contains') schema = { type: 'array', contains: a.schema, unevaluatedItems: b.schema };
    else if (variant === 'allOf-prefix') schema = { type: 'array', allOf: [{ prefixItems: [a.schema], minItems: 1, maxItems: 1 }], unevaluatedItems: false };
    else schema = { type: 'array', unevaluatedItems: b.schema };
    const values = [[a.good()], [a.good(), b.good()], [b.good(), a.good(), b.bad()], [a.bad(), b.bad()], [], this.wrongType(['array'])];
    return { tag: 'unevaluatedItems', schema, values };
  }

  // -------------------------------------------------------------------------------------------
  // Schemas Ajv refuses (on purpose), often deep inside a valid schema
  // -------------------------------------------------------------------------------------------

  /** Every schema object below `schema` (root included), with its JSON path. */
  schemaObjects(schema) {
    const out = [];
    const visit = (s) => {
      if (s === null || typeof s !== 'object' || Array.isArray(s)) return;
      out.push(s);
      for (const k of ['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames']) visit(s[k]);
      for (const k of ['prefixItems', 'allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[k])) s[k].forEach(visit);
      for (const k of ['properties', 'patternProperties', '$defs', 'dependentSchemas']) {
        if (s[k] && typeof s[k] === 'object') Object.values(s[k]).forEach(visit);
      }
    };
    visit(schema);
    return out;
  }

  refusal() {
    const ctx = { defaults: false, defs: new Map() };
    const base = this.objectNode(2, ctx);
    const schema = this.finish(base, ctx);
    const targets = this.schemaObjects(schema);
    const typed = (t) => targets.filter((s) => s.type === t || (Array.isArray(s.type) && s.type.includes(t)));
    const target = this.pick(targets);
    const objects = typed('object');
    const kind = this.pick([
      'unknown-keyword', 'unknown-format', 'missing-type', 'type-context', 'default-in-composite',
      'default-in-composite', 'invalid-value', 'invalid-value', 'strict-required', 'strict-tuple',
      'missing-ref', 'lone-if', 'bad-regex', 'bad-schema-version', 'ref-cycle',
    ]);
    switch (kind) {
      case 'unknown-keyword':
        target[this.pick(['foo', 'example', 'x-internal', 'nullable', '$anchor', 'additionalItems', 'dependencies', 'definitions'])] =
          this.pick([true, 'x', { type: 'string' }, 1]);
        break;
      case 'unknown-format': {
        const format = this.pick(['color', 'iri', 'idn-email', 'phone', 'zip', 'Date', 'date_time']);
        const strings = typed('string');
        if (strings.length > 0 && this.chance(0.7)) this.pick(strings).format = format;
        else {
          const o = this.pick(objects);
          o.properties = { ...o.properties, fmt: { type: this.pick(['string', 'number', ['string', 'null']]), format } };
        }
        break;
      }
      case 'missing-type': {
        // a keyword whose type is not declared in its data location
        const declared = [].concat(target.type ?? []);
        if (target.properties && this.chance(0.5)) delete target.type;
        else {
          const options = [['string', { minLength: 2 }], ['number', { maximum: 3 }], ['array', { minItems: 1 }], ['object', { required: [] }]]
            .filter(([t]) => !declared.includes(t));
          Object.assign(target, this.pick(options)[1]);
        }
        break;
      }
      case 'type-context':
        Object.assign(this.pick(objects), { allOf: [{ type: this.pick(['string', 'array', 'number']) }] });
        break;
      case 'default-in-composite': {
        // refused on the input side only (`default is ignored for: ...`)
        const where = this.pick(['anyOf', 'oneOf', 'not', 'if']);
        const sub = { properties: { dflt: { type: 'number', default: 1 } } };
        const o = this.pick(objects);
        if (where === 'not') o.not = { properties: { dflt: { type: 'number', default: 1 } }, required: ['dflt'] };
        else if (where === 'if') Object.assign(o, { if: sub, then: { minProperties: 0 } });
        else o[where] = [sub, { properties: { other: { type: 'string' } } }];
        break;
      }
      case 'invalid-value':
        Object.assign(target, this.pick([
          { type: 'no-such-type' }, { type: [] }, { type: ['string', 'string'] }, { minLength: -1, type: 'string' },
          { minLength: 1.5, type: 'string' }, { maxItems: '3', type: 'array' }, { enum: [] }, { required: 'a' },
          { multipleOf: 0, type: 'number' }, { multipleOf: -2, type: 'number' }, { properties: { a: 5 } },
          { additionalProperties: 'no' }, { type: 'array', items: [{}] }, { required: ['a', 'a'], properties: { a: {} } },
          { $id: 5 }, { dependentRequired: { a: 'b' } }, { pattern: 5, type: 'string' },
        ]));
        break;
      case 'strict-required': {
        const o = this.pick(objects);
        o.required = [...(o.required ?? []), this.pick(['undeclared', 'zz', 'a b'])].filter((k, i, a) => a.indexOf(k) === i);
        if (o.properties && o.required.every((k) => Object.hasOwn(o.properties, k))) o.required.push('never-declared');
        break;
      }
      case 'strict-tuple':
        for (const k of Object.keys(target)) delete target[k];
        Object.assign(target, this.pick([
          { type: 'array', prefixItems: [{ type: 'string' }] },
          { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 1, items: false },
          { type: 'array', prefixItems: [{ type: 'string' }], minItems: 1, items: { type: 'number' } },
        ]));
        break;
      case 'missing-ref':
        target.$ref = this.pick(['#/$defs/missing', 'other.json', 'https://example.com/schema', '#nope']);
        break;
      case 'lone-if':
        target[this.pick(['if', 'then', 'else'])] = {};
        break;
      case 'bad-regex':
        Object.assign(this.pick(objects), this.chance(0.5)
          ? { patternProperties: { [this.pick(['(', '[z-a]', 'a{2,1}', '\\p{Nope}'])]: {} } }
          : { propertyNames: { pattern: this.pick(['(', '[', '*a', '(?<n>a)(?<n>b)']) } });
        break;
      case 'ref-cycle':
        // `$ref`s that only lead to each other: Ajv's compile overflows the stack (RangeError:
        // Maximum call stack size exceeded). (With an applicator between them, e.g. loopB:
        // {allOf: [{$ref: loopA}]}, Ajv compiles and then overflows the stack at validation instead:
        // no answer to compare, so that variant is not generated.)
        schema.$defs = { ...schema.$defs, loopA: { $ref: '#/$defs/loopB' }, loopB: { $ref: '#/$defs/loopA' } };
        target.$ref = '#/$defs/loopA';
        break;
      case 'bad-schema-version':
        schema.$schema = this.pick(['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2019-09/schema', 'https://example.com/meta']);
        break;
      default:
        throw new Error(`unknown refusal ${kind}`);
    }
    return { tag: `refuse:${kind}`, schema, values: [base.good(), this.wrongType(['object'])] };
  }

  /** The next case. */
  nextCase() {
    return this.weighted([
      [52, () => this.randomTree()],
      [9, () => this.defaultsFamily()],
      [6, () => this.recursiveFamily()],
      [5, () => this.unevaluatedFamily()],
      [3, () => this.unevaluatedItemsFamily()],
      [3, () => this.jsNamesFamily()],
      [11, () => this.refusal()],
    ])();
  }
}

/**
 * Generates cases until there are at least `count` schema/instance pairs.
 * Returns `{ seed, count, pairs, cases: [{ id, tag, schema, values }] }`.
 * Schemas are sometimes given with their keywords in a random order (Ajv's answers must not
 * depend on it, but error order can depend on the order of `properties`).
 */
export function generateCases({ seed = DEFAULT_SEED, count = DEFAULT_COUNT } = {}) {
  const g = new Generator(seed);
  const cases = [];
  let pairs = 0;
  while (pairs < count) {
    const c = g.nextCase();
    const schema = g.chance(0.3) ? g.shuffleKeys(c.schema) : c.schema;
    const values = c.values.filter((v) => v !== undefined);
    cases.push({ id: `gen-${seed}-${cases.length}`, tag: c.tag, schema, values });
    pairs += values.length;
  }
  return { seed, count, pairs, cases };
}
