// Identifiers and hashes through the public JS API: `idempotencyKey` (protocol 2.6.0, section 3.9)
// against two independent UUID v5 derivations (node:crypto and Python's uuid module), and
// `indexHash` against node:crypto and the `sha256sum` command.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { idempotencyKey, IDEMPOTENCY_KEY_NAMESPACE, indexHash } from '../index.js';
import * as protocol from '../lib/protocol.js';
import * as kindgiIndex from '../lib/kindgi-index.js';

const NAMESPACE = 'a70d5bff-e713-4322-b2ea-9d5c4926a861';
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const isCode = (code) => (error) => {
  assert.ok(error instanceof Error, 'an Error');
  assert.equal(error.code, code);
  return true;
};

// ---------------------------------------------------------------------------------------------
// Derivation (a): RFC 9562 UUID v5 with node:crypto.

function uuidV5(namespace, name) {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(Buffer.from(name, 'utf8'))
    .digest();
  const bytes = Buffer.from(hash.subarray(0, 16));
  bytes[6] = (bytes[6] & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC variant (10xx)
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const nodeKey = (parts) => uuidV5(NAMESPACE, JSON.stringify(parts));

/** `idempotencyKey` over a 3- or 4-element part list. */
const nativeKey = (parts) => idempotencyKey(...parts);

// ---------------------------------------------------------------------------------------------
// Seeded random inputs.

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ASCII = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:[]{}() ,;=+*&%$#@!?~`^|<>\'';
const PIECES_WELL_FORMED = [
  '"', '\\', '\\"', '"\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', '\u0085',
  'é', 'ü', 'ß', 'Ω', 'ж', '中文', 'ｚ', '\u00a0', '\u2028', '\u2029', '\ufeff', '\ufffd', '\uffff',
  '😀', '𝄞', '\u{10ffff}', '\u{1f468}\u200d\u{1f469}', 'e\u0301', '</script>', '\\u0041', '/',
];
const PIECES_LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff', 'a\ud83d', '\ude00b'];

function randomString(random, { loneSurrogates }) {
  const length = Math.floor(random() * 12);
  let out = '';
  for (let i = 0; i < length; i += 1) {
    const r = random();
    if (loneSurrogates && r < 0.12) {
      out += PIECES_LONE_SURROGATES[Math.floor(random() * PIECES_LONE_SURROGATES.length)];
    } else if (r < 0.55) {
      out += ASCII[Math.floor(random() * ASCII.length)];
    } else {
      out += PIECES_WELL_FORMED[Math.floor(random() * PIECES_WELL_FORMED.length)];
    }
  }
  return out;
}

function randomPartLists(seed, count, options) {
  const random = mulberry32(seed);
  const lists = [];
  for (let i = 0; i < count; i += 1) {
    const parts = [randomString(random, options), randomString(random, options), randomString(random, options)];
    if (random() < 0.5) parts.push(randomString(random, options));
    lists.push(parts);
  }
  return lists;
}

const isWellFormed = (s) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

const KNOWN_VECTORS = [
  [['run-1', 'step-a', 'acme.echo'], '46b69b56-d2dc-51b1-b963-0d434bccb15c'],
  [['rün', 'step/loop[2]', 'acme.tool', 'call_1'], 'c55c4aed-f61a-5d2d-9665-c5fbe748f2a4'],
];

// Inputs Python can encode to UTF-8: no lone surrogates.
const PYTHON_INPUTS = [
  ...KNOWN_VECTORS.map(([parts]) => parts),
  ['', '', ''],
  ['', '', '', ''],
  ['"quoted"', 'back\\slash', 'new\nline', 'tab\tcr\r'],
  ['\u0000\u0001\u001f\u007f', '\b\f', '\u2028\u2029', '\ufeff'],
  ['😀', '𝄞\u{10ffff}', 'ｚ中文', 'e\u0301'],
  ...randomPartLists(0x5eed2, 250, { loneSurrogates: false }),
];

// Inputs for the node:crypto derivation: lone surrogates included.
const NODE_INPUTS = [
  ...PYTHON_INPUTS,
  ['\ud800', '\udfff', '\udc00\ud800', 'x\ud83d'],
  ...randomPartLists(0x5eed1, 300, { loneSurrogates: true }),
];

const PYTHON_SCRIPT = `
import json, sys, uuid
NS = uuid.UUID('${NAMESPACE}')
for parts in json.loads(sys.stdin.buffer.read().decode('utf-8')):
    print(uuid.uuid5(NS, json.dumps(parts, separators=(',', ':'), ensure_ascii=False)))
`;

// ---------------------------------------------------------------------------------------------
// idempotencyKey

test('IDEMPOTENCY_KEY_NAMESPACE is the protocol 2.6.0 namespace', () => {
  assert.equal(IDEMPOTENCY_KEY_NAMESPACE, NAMESPACE);
  assert.strictEqual(protocol.idempotencyKey, idempotencyKey);
});

test('idempotencyKey: the known vectors', () => {
  for (const [parts, expected] of KNOWN_VECTORS) {
    assert.equal(nativeKey(parts), expected, JSON.stringify(parts));
    assert.equal(nodeKey(parts), expected, 'the node:crypto derivation agrees with the vector');
  }
});

test('the random inputs cover what they should', () => {
  const all = NODE_INPUTS.flat();
  assert.ok(NODE_INPUTS.length >= 200);
  assert.ok(PYTHON_INPUTS.length >= 200);
  assert.ok(all.some((s) => /[^\x00-\x7f]/.test(s)), 'non-ASCII');
  assert.ok(all.some((s) => /[\ud800-\udbff][\udc00-\udfff]/.test(s)), 'astral characters');
  assert.ok(all.some((s) => s.includes('"')), 'quotes');
  assert.ok(all.some((s) => s.includes('\\')), 'backslashes');
  assert.ok(all.some((s) => /[\x00-\x1f]/.test(s)), 'control characters');
  assert.ok(all.some((s) => !isWellFormed(s)), 'lone surrogates');
  assert.ok(PYTHON_INPUTS.flat().every(isWellFormed), 'no lone surrogates for Python');
  assert.ok(NODE_INPUTS.some((p) => p.length === 3) && NODE_INPUTS.some((p) => p.length === 4));
});

test('idempotencyKey matches a node:crypto UUID v5 derivation over the seeded random inputs', () => {
  for (const parts of NODE_INPUTS) {
    const key = nativeKey(parts);
    assert.match(key, UUID_V5);
    assert.equal(key, nodeKey(parts), JSON.stringify(parts));
  }
});

test('idempotencyKey matches Python uuid.uuid5 over the seeded random inputs (no lone surrogates)', () => {
  const output = execFileSync('python3', ['-c', PYTHON_SCRIPT], {
    input: JSON.stringify(PYTHON_INPUTS),
    encoding: 'utf8',
    env: { ...process.env, PYTHONIOENCODING: 'utf-8' },
  });
  const pythonKeys = output.trim().split('\n');
  assert.equal(pythonKeys.length, PYTHON_INPUTS.length);
  PYTHON_INPUTS.forEach((parts, i) => {
    assert.equal(nativeKey(parts), pythonKeys[i], JSON.stringify(parts));
  });
  assert.equal(pythonKeys[0], KNOWN_VECTORS[0][1]);
  assert.equal(pythonKeys[1], KNOWN_VECTORS[1][1]);
});

test('idempotencyKey: modelCallId undefined or null is the 3-part key; "" is a fourth part', () => {
  const three = idempotencyKey('run-1', 'step-a', 'acme.echo');
  assert.equal(idempotencyKey('run-1', 'step-a', 'acme.echo', undefined), three);
  assert.equal(idempotencyKey('run-1', 'step-a', 'acme.echo', null), three);
  const withEmpty = idempotencyKey('run-1', 'step-a', 'acme.echo', '');
  assert.notEqual(withEmpty, three);
  assert.equal(withEmpty, nodeKey(['run-1', 'step-a', 'acme.echo', '']));
  assert.equal(idempotencyKey('run-1', 'step-a', 'acme.echo', 'call_1'), nodeKey(['run-1', 'step-a', 'acme.echo', 'call_1']));
});

test('idempotencyKey is deterministic and separates its parts', () => {
  assert.equal(idempotencyKey('a', 'b', 'c'), idempotencyKey('a', 'b', 'c'));
  // The JSON array keeps the boundaries: moving characters between parts changes the key.
  assert.notEqual(idempotencyKey('ab', 'c', 'd'), idempotencyKey('a', 'bc', 'd'));
  assert.notEqual(idempotencyKey('a', 'b', 'c', 'd'), idempotencyKey('a', 'b', 'c,d'));
  assert.notEqual(idempotencyKey('a","b', 'c', 'd'), idempotencyKey('a', 'b', 'c', 'd'));
});

test('idempotencyKey refuses non-string arguments with invalid-argument', () => {
  const invalid = isCode('invalid-argument');
  for (const bad of [1, null, undefined, {}, ['a'], new String('a'), Symbol('a'), 1n]) {
    assert.throws(() => idempotencyKey(bad, 'b', 'c'), invalid, 'runId');
    assert.throws(() => idempotencyKey('a', bad, 'c'), invalid, 'stepScope');
    assert.throws(() => idempotencyKey('a', 'b', bad), invalid, 'toolId');
  }
  for (const bad of [1, {}, ['a'], new String('a'), false, 1n]) {
    assert.throws(() => idempotencyKey('a', 'b', 'c', bad), invalid, 'modelCallId');
  }
  assert.throws(() => idempotencyKey(), invalid);
});

// ---------------------------------------------------------------------------------------------
// indexHash

let dir;
const files = {};

const sha256 = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const sha256sum = (file) => `sha256:${execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(/\s/)[0]}`;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kindgi-ids-test-'));
  files.empty = join(dir, 'empty.json');
  writeFileSync(files.empty, '');
  files.small = join(dir, 'index.json');
  writeFileSync(files.small, '{\n  "v": 1,\n  "packId": "acme",\n  "name": "rün 😀"\n}\n');
  files.random = join(dir, 'random.bin');
  writeFileSync(files.random, randomBytes(1024 * 1024));
  files.spaced = join(dir, 'a dir with spaces ü', 'index ü.json');
  mkdirSync(join(dir, 'a dir with spaces ü'));
  writeFileSync(files.spaced, 'x'.repeat(4097));
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('indexHash is exported from the root and ./kindgi-index', () => {
  assert.strictEqual(kindgiIndex.indexHash, indexHash);
});

test('indexHash of bytes: a Buffer and a plain Uint8Array', () => {
  assert.equal(indexHash(Buffer.alloc(0)), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(indexHash(new Uint8Array(0)), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(indexHash(Buffer.from('abc')), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(indexHash(new Uint8Array([0x61, 0x62, 0x63])), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  const random = randomBytes(100_000);
  assert.equal(indexHash(random), sha256(random));
  assert.equal(indexHash(new Uint8Array(random)), sha256(random));
  assert.match(indexHash(random), /^sha256:[0-9a-f]{64}$/);
});

test('indexHash of bytes honours a view\'s offset and length', () => {
  const backing = new Uint8Array(64).map((_, i) => i);
  const view = new Uint8Array(backing.buffer, 10, 20);
  assert.equal(indexHash(view), sha256(Buffer.from(backing.subarray(10, 30))));
  // Small Buffers share Node's pool, so their byteOffset is rarely 0.
  const pooled = Buffer.from('{"v":1}\n');
  assert.equal(indexHash(pooled), sha256(Buffer.from('{"v":1}\n')));
  const sliced = Buffer.from('xx{"v":1}\nyy').subarray(2, 10);
  assert.equal(indexHash(sliced), sha256(Buffer.from('{"v":1}\n')));
});

test('indexHash of a path equals node:crypto and sha256sum', () => {
  for (const [name, file] of Object.entries(files)) {
    const expected = sha256(readFileSync(file));
    assert.equal(indexHash(file), expected, name);
    assert.equal(sha256sum(file), expected, `${name}: sha256sum agrees`);
    assert.equal(indexHash(readFileSync(file)), expected, `${name}: the bytes hash the same`);
  }
  assert.equal(indexHash(files.empty), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});

test('indexHash of a missing path throws index-read-failed naming the path and ENOENT', () => {
  const missing = join(dir, 'missing', 'index.json');
  assert.throws(
    () => indexHash(missing),
    (error) => {
      isCode('index-read-failed')(error);
      assert.ok(error.message.includes(missing), `the message names the path: ${error.message}`);
      assert.ok(error.message.includes('ENOENT'), `the message names ENOENT: ${error.message}`);
      return true;
    },
  );
});

test('indexHash of a directory throws index-read-failed', () => {
  assert.throws(() => indexHash(dir), isCode('index-read-failed'));
});

test('indexHash refuses anything but bytes or a path with invalid-argument', () => {
  for (const bad of [5, null, undefined, {}, [1, 2, 3], true]) {
    assert.throws(() => indexHash(bad), isCode('invalid-argument'), String(bad));
  }
});
