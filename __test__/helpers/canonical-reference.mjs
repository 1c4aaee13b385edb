// The oracle for the canonical JSON tests: the TypeScript indexer's rule, written in JS, plus a
// small seeded generator of JSON-ish values that stresses the corners of that rule.

/** The TypeScript indexer's `canonicalize`, verbatim. */
export function canonicalize(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(canonicalize);
  const out = {};
  for (const key of Object.keys(value).sort()) out[key] = canonicalize(value[key]);
  return out;
}

/** The exact text the TypeScript indexer writes for `value`. */
export const reference = (v) => JSON.stringify(canonicalize(v), null, 2) + '\n';

/** mulberry32: a tiny deterministic 32-bit PRNG. Returns a function giving floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const random = () => next() / 4294967296;
  random.uint32 = next;
  return random;
}

/** Characters that matter to the writer: escapes, controls, separators, BMP edges, astral, lone surrogates. */
export const CHAR_POOL = Object.freeze([
  'a', 'b', 'z', 'A', 'Z', '0', '1', '9', ' ', '-', '.', '_', '/', '"', '\\', '\'',
  '\u0000', '\u0001', '\u0007', '\b', '\t', '\n', '\u000b', '\f', '\r', '\u000e', '\u001b', '\u001f',
  '\u007f', '\u0080', '\u00a0', '\u00e9', '\u00ff', '\u0100', '\u2028', '\u2029', '\u20ac',
  '\ud7ff', '\ue000', '\ufeff', '\ufffd', '\ufffe', '\uffff',
  '\u{10000}', '\u{1F600}', '\u{1F9D1}', '\u{10FFFF}',
  '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00',
]);

/** Keys that matter: array-index-like keys, near misses, `__proto__` and friends, edge characters. */
export const KEY_POOL = Object.freeze([
  '', '0', '1', '2', '9', '10', '11', '100', '01', '00', '-1', '-0', '1.5', '1e3', ' 1', '+1',
  '4294967294', '4294967295', '4294967296', '9007199254740993',
  '__proto__', 'constructor', 'toString', 'toJSON', 'hasOwnProperty', 'length',
  'a', 'b', 'B', 'Z', 'aa', 'ab', 'a\u0000', 'id', 'tools',
  '\u0000', '\u001f', '\n', '"', '\\', '\u007f', '\u00e9', '\u2028',
  '\uffff', '\ufffe', '\ue000', '\u{1F600}', '\u{10000}', '\u{10FFFF}',
  '\ud800', '\udc00', 'a\udc00b', '\udfff\ud800',
]);

/** Sets an own enumerable data property, even for `__proto__` (plain assignment would set the prototype). */
export function defineOwn(object, key, value) {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A seeded generator of values for differential tests. `value()` returns the next value:
 * nested objects and arrays (up to `maxDepth`), strings, numbers (random bit patterns, integers,
 * short decimals, extreme exponents, -0, NaN/Infinity), booleans, null, and `undefined`.
 */
export function valueGenerator(seed, { maxDepth = 6 } = {}) {
  const random = mulberry32(seed);
  const int = (n) => Math.floor(random() * n);
  const pick = (list) => list[int(list.length)];
  const bits = new DataView(new ArrayBuffer(8));

  const string = () => {
    const length = pick([0, 1, 1, 2, 3, 5, 8, 13]);
    let s = '';
    for (let i = 0; i < length; i++) s += random() < 0.6 ? pick(CHAR_POOL) : String.fromCharCode(int(0x10000));
    return s;
  };

  const key = () => {
    const r = random();
    if (r < 0.55) return pick(KEY_POOL);
    if (r < 0.7) return String(int(r < 0.65 ? 1000 : 2 ** 32 + 2));
    return string();
  };

  const number = () => {
    switch (int(12)) {
      case 0: // any double, from random bits (NaN and Infinity included: they become null)
        bits.setUint32(0, random.uint32());
        bits.setUint32(4, random.uint32());
        return bits.getFloat64(0);
      case 1:
        return int(2001) - 1000;
      case 2:
        return (int(2 ** 31) - 2 ** 30) * 2 ** int(40);
      case 3:
        return (int(20001) - 10000) / pick([10, 100, 1000, 1e6, 3, 7]);
      case 4:
        return pick([0, -0, 1, -1, 0.1, 0.2, 0.3, 0.1 + 0.2, 1e21, 1e-7, 1.5e-7, 1e-6, 9.999999999999999e20,
          2 ** 53, 2 ** 53 + 2, -(2 ** 53), 2 ** 60, 5e-324, -5e-324, 2.2250738585072014e-308,
          1.7976931348623157e308, NaN, Infinity, -Infinity, 123456789012345680000, 1e100, 1e-100]);
      case 5:
        return (random() * 2 - 1) * 10 ** (int(60) - 30);
      case 6:
        return Number((random() * 10 ** int(25)).toPrecision(1 + int(17)));
      case 7:
        return random();
      case 8:
        return -random() * 1e21;
      case 9:
        return Number(`${int(100)}e${int(700) - 350}`);
      case 10:
        return int(2 ** 32);
      default:
        return Number(`${int(10)}.${int(1000)}e${pick([-8, -7, -6, -5, 0, 5, 20, 21, 22])}`);
    }
  };

  const scalar = () => {
    const r = random();
    if (r < 0.35) return string();
    if (r < 0.7) return number();
    if (r < 0.8) return random() < 0.5;
    if (r < 0.9) return null;
    return undefined;
  };

  const node = (depth) => {
    const r = random();
    if (depth >= maxDepth || r < 0.4) return scalar();
    const size = int(6);
    if (r < 0.7) {
      const object = {};
      for (let i = 0; i < size; i++) defineOwn(object, key(), node(depth + 1));
      return object;
    }
    const array = [];
    for (let i = 0; i < size; i++) array.push(node(depth + 1));
    return array;
  };

  /** The top level is a container most of the time. */
  const value = () => {
    const r = random();
    if (r < 0.05) return number();
    if (r < 0.08) return string();
    const top = r < 0.6 ? {} : [];
    const size = int(8);
    for (let i = 0; i < size; i++) {
      if (Array.isArray(top)) top.push(node(1));
      else defineOwn(top, key(), node(1));
    }
    return top;
  };

  return { value, random };
}
