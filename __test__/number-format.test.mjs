// Numbers as JavaScript writes them: canonicalJson's number text is V8's String(n) for every
// double tried (random bit patterns, short decimals, powers of ten and the exponent
// thresholds, subnormals, integers around 2^53). KINDGI_RANDOM_CASES raises the count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../index.js';
import { mulberry32 } from './helpers/canonical-reference.mjs';

const CASES = Number(process.env.KINDGI_RANDOM_CASES ?? 20_000);

function* doubles(seed) {
  const random = mulberry32(seed);
  const bits = new DataView(new ArrayBuffer(8));
  for (let i = 0; i < CASES; i += 1) {
    bits.setUint32(0, random.uint32());
    bits.setUint32(4, random.uint32());
    yield bits.getFloat64(0);
    yield Number((random() * 10 ** Math.floor(random() * 30 - 10)).toPrecision(1 + Math.floor(random() * 17)));
    yield Math.round(random() * 2 ** 54) * (random() < 0.5 ? -1 : 1);
  }
  for (let e = -330; e <= 310; e += 1) {
    for (const m of [1, 1.5, 2.5, 5, 9.999999999999999]) yield Number(`${m}e${e}`);
  }
  yield* [0, -0, 1e21, 1e21 - 65536, 999999999999999900000, 1e-6, 1e-7, 0.000001, 0.0000001, 5e-324, -5e-324];
  yield* [2 ** 53, 2 ** 53 + 2, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, 0.1 + 0.2, 1 / 3];
}

test("canonicalJson writes every double tried as V8's String(n)", () => {
  const wrong = [];
  // Many numbers in one array: one native call, each element compared.
  const values = [...doubles(20261201)].filter(Number.isFinite);
  const lines = canonicalJson(values).split('\n').slice(1, -2).map((line) => line.trim().replace(/,$/, ''));
  assert.equal(lines.length, values.length);
  values.forEach((value, at) => {
    if (lines[at] !== String(value)) wrong.push(`${String(value)} written as ${lines[at]}`);
  });
  assert.deepEqual(wrong.slice(0, 20), []);
});

test('non-finite numbers are null and -0 is 0, as JSON.stringify writes them', () => {
  assert.equal(canonicalJson([NaN, Infinity, -Infinity, -0]), '[\n  null,\n  null,\n  null,\n  0\n]\n');
});
