// The `url` format of the native validator against the `url` regex of ajv-formats itself, run by
// V8. The native side does not run that regex: it checks the same language by hand
// (src/validate/formats/url.rs, `url`), because the regex backtracks quadratically. So this compares
// the two on hand-picked boundaries, on every code point in the places where one character
// decides, on seeded random strings, and on inputs that make the regex backtrack. Nothing here
// is timed: speed belongs to the benchmarks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { compileSchema } from '../lib/validate.js';
import { mulberry32 } from './helpers/canonical-reference.mjs';

const require = createRequire(import.meta.url);
const { fullFormats } = require('ajv-formats/dist/formats.js');
const URL_REGEX = fullFormats.url;

const SEED = 0x75726c;
const RANDOM_CASES = 30000;
const SHOW = 10;

/** The native answers for `strings`, validated as the items of arrays (one call per batch). */
function nativeUrl(strings) {
  const validator = compileSchema({ type: 'array', items: { type: 'string', format: 'url' } }, 'output');
  const answers = [];
  for (let start = 0; start < strings.length; start += 2000) {
    const batch = strings.slice(start, start + 2000);
    const result = validator.validate(batch);
    const failed = new Set(result.valid ? [] : result.issues.map((issue) => issue.instancePath));
    for (let i = 0; i < batch.length; i++) answers.push(!failed.has(`/${i}`));
  }
  return answers;
}

/** Fails listing the first strings whose native answer differs from V8's. */
function assertAgree(t, strings, label) {
  const native = nativeUrl(strings);
  const disagree = [];
  let valid = 0;
  strings.forEach((s, i) => {
    const expected = URL_REGEX.test(s);
    if (expected) valid++;
    if (native[i] !== expected) disagree.push(`${JSON.stringify(s)}: ajv-formats ${expected}, native ${native[i]}`);
  });
  t.diagnostic(`${label}: ${strings.length} strings compared, ${valid} valid`);
  assert.equal(disagree.length, 0, `${label}: ${disagree.length} disagreement(s), the first:\n${disagree.slice(0, SHOW).join('\n')}`);
  return valid;
}

test('url: hand-picked boundaries agree with ajv-formats', (t) => {
  const cases = [
    // scheme; `ſ` folds to `s`
    'http://a.com', 'https://a.com', 'ftp://a.com', 'HtTpS://a.com', 'http\u017f://a.com', 'ftp\u017f://a.com', 'ftps://a.com',
    'http:/a.com', 'http://', ' http://a.com',
    // userinfo: it may hold `:`, `@` and `/`, not whitespace, and ends at any `@`
    'http://u:p@a.com', 'http://:@a.com', 'http://@a.com', 'http://@@a.com', 'http://a@b.com@c.com', 'http://a@b.com@',
    'http://u/x@a.com', 'http://u p@a.com', 'http://u\ufeff@a.com', 'http://u@10.0.0.1', 'http://10.0.0.1@a.com',
    // port and path
    'http://a.com:8', 'http://a.com:80', 'http://a.com:65535', 'http://a.com:123456', 'http://a.com:', 'http://a.com:8/',
    'http://a.com/x@b', 'http://a.com/a b', 'http://a.com/\u2028', 'http://a.com/\u{1F600}', 'http://a.com?q', 'http://a.com:\u0661\u0662',
    // host names: `[a-z0-9\u{a1}-\u{ffff}]` with `iu` holds some whitespace, `ſ` and the Kelvin sign, no astral character
    'http://www.ex.c', 'http://www.ex.co', 'http://ex', 'http://ex.com.', 'http://-a.com', 'http://a-.com', 'http://a--b.com',
    'http://a.c0m', 'http://1.com', 'http://\u017f.\u212a\u212a', 'http://\u00a1.\u00a1\u00a1', 'http://\u00a0.com',
    'http://a.\uffff\uffff', 'http://a.\u{1F600}\u{1F600}', 'http://a\u3000b.com', 'http://a.\ufeff\u2028', 'http://xn--d1acj3b.xn--p1ai',
    // addresses, and the three lookaheads at the host's start
    'http://1.2.3.4', 'http://10.0.0.1', 'http://10.0.0.1.com', 'http://100.0.0.1', 'http://127.0.0.1', 'http://169.254.1.1',
    'http://169.2540.1.1', 'http://192.168.0.1', 'http://172.15.0.1', 'http://172.16.0.1', 'http://172.31.0.1', 'http://172.32.0.1',
    'http://172.016.0.1', 'http://1.2.3.0', 'http://1.2.3.254', 'http://1.2.3.255', 'http://01.1.1.1', 'http://223.1.1.1',
    'http://224.1.1.1', 'http://1.00.01.1', 'http://1.012.1.1', 'http://1.256.1.1', 'http://1.2.3.4.5', 'http://1.2.3.4:80',
    'http://10.0.0.1000', 'http://1.2.3',
  ];
  const valid = assertAgree(t, cases, 'hand-picked');
  assert.ok(valid > 10 && valid < cases.length - 10, `${valid} of ${cases.length} valid`);
});

test('url: every code point where one character decides agrees with ajv-formats', (t) => {
  const places = [
    (c) => `http${c}://a.com`,
    (c) => `http://${c}.com`,
    (c) => `http://a.${c}${c}`,
    (c) => `http://u${c}@a.com`,
    (c) => `http://a.com/${c}`,
    (c) => `http://a.com:8${c}`,
  ];
  // Every BMP code point but the surrogates, and astral ones around the ranges that fold.
  const codePoints = [];
  for (let c = 0; c <= 0xffff; c++) if (c < 0xd800 || c > 0xdfff) codePoints.push(c);
  for (let c = 0x10000; c <= 0x10ffff; c += c < 0x1e960 ? 7 : 0x1001) codePoints.push(c);
  const strings = [];
  for (const place of places) for (const c of codePoints) strings.push(place(String.fromCodePoint(c)));
  assertAgree(t, strings, 'code points');
});

test(`url: seeded random strings (seed ${SEED}) agree with ajv-formats`, (t) => {
  const random = mulberry32(SEED);
  const below = (n) => Math.floor(random() * n);
  const pick = (items) => items[below(items.length)];
  // An entry of `items`, one of the first `good` (valid in that place) three times in four.
  const mostly = (items, good) => (random() < 0.25 ? pick(items) : pick(items.slice(0, good)));
  const schemes = ['http://', 'HTTPS://', 'ftp://', 'http\u017f://', 'ftp:/', 'https:', 'gopher://', 'ftp\u017f://', ''];
  const userinfo = ['u', ':', '@', '/', '1', '.', '\u{1F600}', '\u3000', ' '];
  const octets = ['1', '9', '10', '127', '169', '254', '192', '168', '172', '15', '16', '31', '32', '223', '99', '100',
    '0', '00', '012', '224', '255', '256', '1000'];
  const labels = ['a', 'Ex', 'www', 'x-y', '1', '\u017f', '\u212a', '\u00e9', '\u00a1', '\ufeff', '\u2028', '\u3000', '\uffff',
    'x--y', '-a', 'a-', '\u00a0', '\u{1F600}', '_', ''];
  const tlds = ['com', 'CO', '\u212a\u017f', '\u00e9\u00e9', '\u3000\ufeff', 'c', 'c0', 'a-b', '\u{1F600}x', '\u00a0x', ''];
  const pieces = [
    'a', 'B', 'com', 'co', 'www', '\u017f', '\u212a', '\u00e9', '\u00a1', '\u00a0', '\ufeff', '\u2028', '\u3000', '\uffff',
    '\u{1F600}', ' ', '\t', '0', '1', '9', '10', '127', '169', '254', '192', '168', '172', '16', '31', '223', '224', '255', '256',
    '.', '.', '.', '-', '@', ':', ':', '/', '//', '?', '#', '%',
  ];
  const strings = [];
  for (let i = 0; i < RANDOM_CASES; i++) {
    let s = '';
    if (random() < 1 / 3) {
      // Any sequence of pieces.
      s = pick(schemes);
      for (let n = below(14); n > 0; n--) s += pick(pieces);
    } else {
      // Scheme, userinfo, host, port and path, mostly from valid parts.
      s = mostly(schemes, 4);
      if (random() < 1 / 3) {
        for (let n = 1 + below(3); n > 0; n--) s += mostly(userinfo, 6);
        s += '@';
      }
      if (random() < 0.5) {
        s += Array.from({ length: pick([4, 4, 4, 4, 3, 5]) }, () => mostly(octets, 16)).join('.');
      } else {
        for (let n = 1 + below(3); n > 0; n--) s += `${mostly(labels, 13)}.`;
        s += mostly(tlds, 5);
      }
      if (random() < 1 / 3) s += `:${'7'.repeat(below(7))}`;
      if (random() < 1 / 3) {
        s += '/';
        for (let n = below(4); n > 0; n--) s += pick(pieces);
      }
    }
    if (random() < 0.2) {
      const chars = [...s];
      chars.splice(below(chars.length + 1), 0, pick(pieces));
      s = chars.join('');
    }
    strings.push(s);
  }
  const valid = assertAgree(t, strings, 'random');
  assert.ok(valid > RANDOM_CASES / 10 && valid < RANDOM_CASES / 2, `${valid} of ${RANDOM_CASES} valid`);
});

test('url: inputs that make the regex backtrack agree with ajv-formats', (t) => {
  // The userinfo tries every `:` against every later `@` (V8 needs a third of a second here).
  const strings = [
    `http://${':@'.repeat(8000)}`,
    `http://${':@'.repeat(8000)}a.com`,
    `http://${':'.repeat(16000)}`,
    `http://${'a.'.repeat(8000)} `,
    `http://${'a-'.repeat(8000)}.com`,
  ];
  assertAgree(t, strings, 'backtracking');
});
