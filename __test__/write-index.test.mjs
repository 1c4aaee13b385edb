// writeIndex: sorted lists, canonical bytes, artifactVersion / publishedAt defaults, atomic
// write through `<outputPath>.tmp-<pid>-<ms>`, and its failures.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson, indexHash, writeIndex } from '../index.js';
import { readBundleMap } from '../lib/kindgi-index.js';
import { mulberry32, reference } from './helpers/canonical-reference.mjs';

const LISTS = ['tools', 'guardrails', 'agents', 'flows'];
const PUBLISHED_AT_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const today = () => new Date().toISOString().slice(0, 10).replace(/-/g, '');

/** Runs `fn(dir)` in a fresh temp folder, removed afterwards. */
async function withTempDir(fn) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kindgi-write-index-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every entry under `dir` (recursively) whose name holds `.tmp-`. */
async function tmpLeftovers(dir) {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((name) => path.basename(name).includes('.tmp-'));
}

/** Calls writeIndex around a day boundary safely: returns the result and the UTC days before/after. */
async function writeAndDays(...args) {
  const before = today();
  const result = await writeIndex(...args);
  return { result, days: new Set([before, today()]) };
}

function assertVersionOfToday(version, days, n, label) {
  assert.ok([...days].some((day) => version === `${day}.${n}`), `${label}: expected <today>.${n} (today ∈ ${[...days]}), got ${version}`);
}

/** The writer's sort rule, independently: stable, by `id` in UTF-16 code-unit order, only when every id is a string. */
function sortedById(list) {
  if (!Array.isArray(list)) return list;
  if (!list.every((item) => item !== null && typeof item === 'object' && typeof item.id === 'string')) return list;
  return list.slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The exact text writeIndex should write. */
function expectedText(index, artifactVersion, publishedAt) {
  const expected = { ...index, artifactVersion, publishedAt };
  for (const list of LISTS) if (list in index) expected[list] = sortedById(index[list]);
  return canonicalJson(expected);
}

function sha256Hex(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

function sha256sumHex(file) {
  const out = execFileSync('sha256sum', [file], { encoding: 'utf8' });
  const hex = out.split(/\s+/)[0];
  assert.match(hex, /^[0-9a-f]{64}$/, `sha256sum output: ${out}`);
  return hex;
}

async function assertRejectsWithCode(promiseOrFn, code, label) {
  let error;
  try {
    await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
  } catch (caught) {
    error = caught;
  }
  assert.ok(error !== undefined, `${label}: expected a rejection with ${code}, but it resolved`);
  assert.ok(error instanceof Error, `${label}: expected an Error, got ${String(error)}`);
  assert.equal(error.code, code, `${label}: code (message: ${error.message})`);
  return error;
}

function sampleIndex() {
  return {
    v: 1,
    packId: 'acme',
    packVersion: '1.2.3',
    tools: [
      { id: 'acme.zeta', version: '1', modulePath: 'tools/zeta.mjs', input: { type: 'object' }, output: {} },
      { id: 'acme.alpha', version: '2', seq: 1, modulePath: 'tools/alpha-2.mjs', input: { b: 1, a: 2 }, output: {} },
      { id: 'B', seq: 0 },
      { id: 'acme.alpha', version: '1', seq: 2, modulePath: 'tools/alpha-1.mjs', input: {}, output: {} },
      { id: '\uffff' },
      { id: '\u{1F600}' },
      { id: '10' },
      { id: '2' },
      { id: 'a' },
      { id: '' },
    ],
    guardrails: [
      { id: 'acme.pii', kind: 'output', action: { 'on-violation': 'block' }, checkModulePath: 'guardrails/pii.mjs' },
      { id: 'acme.len', kind: 'input', action: { 'on-violation': 'warn' }, checkModulePath: 'guardrails/len.mjs', config: { max: 10 } },
    ],
    agents: [
      {
        id: 'acme.support',
        version: '1',
        name: 'Support',
        instructions: 'Help.',
        capabilities: [],
        tools: [{ id: 'acme.zeta', version: '1' }, { id: 'acme.alpha', version: '2' }],
        modulePath: 'agents/support.mjs',
      },
      { id: 'acme.billing', version: '1', name: 'Billing', instructions: 'Bill.', capabilities: [], tools: [], modulePath: 'agents/billing.mjs' },
    ],
    flows: [
      {
        id: 'acme.triage',
        version: '1',
        nodes: [{ id: 'z' }, { id: 'a' }],
        edges: [{ from: 'z', to: 'a' }],
        kernelPayloadVersion: 1,
        modulePath: 'flows/triage.mjs',
      },
    ],
    env: { required: ['B_KEY', 'A_KEY'], optional: [] },
  };
}

const PINNED = Object.freeze({ artifactVersion: '20260920.3', publishedAt: '2026-09-20T10:11:12.345Z' });

describe('writeIndex: content', () => {
  test('writes canonicalJson of the index with sorted lists; result fields match the file', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      const index = sampleIndex();
      const result = await writeIndex(index, outputPath, PINNED);

      assert.deepEqual(Object.keys(result).sort(), ['artifactVersion', 'bytes', 'indexHash', 'outputPath', 'publishedAt']);
      assert.equal(result.outputPath, outputPath);
      assert.equal(result.artifactVersion, PINNED.artifactVersion);
      assert.equal(result.publishedAt, PINNED.publishedAt);

      const bytes = await readFile(outputPath);
      const text = bytes.toString('utf8');
      assert.equal(text, expectedText(index, PINNED.artifactVersion, PINNED.publishedAt));
      // The same text the TypeScript indexer writes for the sorted envelope.
      const sorted = { ...index, ...PINNED };
      for (const list of LISTS) sorted[list] = sortedById(index[list]);
      assert.equal(text, reference(sorted));
      assert.ok(text.endsWith('}\n') && !text.endsWith('\n\n'), 'the file ends with exactly one newline');

      const written = JSON.parse(text);
      assert.deepEqual(written.tools.map((t) => t.id),
        ['', '10', '2', 'B', 'a', 'acme.alpha', 'acme.alpha', 'acme.zeta', '\u{1F600}', '\uffff']);
      assert.deepEqual(written.tools.filter((t) => t.id === 'acme.alpha').map((t) => t.version), ['2', '1'], 'equal ids keep input order');
      assert.deepEqual(written.guardrails.map((g) => g.id), ['acme.len', 'acme.pii']);
      assert.deepEqual(written.agents.map((a) => a.id), ['acme.billing', 'acme.support']);
      assert.deepEqual(written.agents[1].tools.map((t) => t.id), ['acme.zeta', 'acme.alpha'], 'nested lists keep their order');
      assert.deepEqual(written.flows[0].nodes.map((n) => n.id), ['z', 'a'], 'nested lists keep their order');
      assert.deepEqual(written.env, { required: ['B_KEY', 'A_KEY'], optional: [] }, 'env is written as given');
      assert.equal(written.artifactVersion, PINNED.artifactVersion);
      assert.equal(written.publishedAt, PINNED.publishedAt);

      assert.equal(result.bytes, bytes.length);
      assert.equal(result.bytes, Buffer.byteLength(text, 'utf8'));
      const hex = sha256Hex(bytes);
      assert.equal(result.indexHash, `sha256:${hex}`);
      assert.equal(sha256sumHex(outputPath), hex, 'sha256sum agrees with node:crypto');
      assert.equal(indexHash(outputPath), result.indexHash, 'indexHash(path)');
      assert.equal(indexHash(new Uint8Array(bytes)), result.indexHash, 'indexHash(bytes)');
      assert.deepEqual(await tmpLeftovers(dir), []);
    });
  });

  test('non-ASCII content: bytes count UTF-8 bytes, hash covers them', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      const index = { tools: [{ id: 'é', d: '日本語 🧑‍🚀 \u2028 \u0000' }, { id: 'a\ud800' }], guardrails: [], agents: [], flows: [] };
      const result = await writeIndex(index, outputPath, PINNED);
      const bytes = await readFile(outputPath);
      assert.equal(bytes.toString('utf8'), expectedText(index, PINNED.artifactVersion, PINNED.publishedAt));
      assert.ok(result.bytes > bytes.toString('utf8').length, 'more bytes than UTF-16 units');
      assert.equal(result.bytes, bytes.length);
      assert.equal(result.indexHash, `sha256:${sha256Hex(bytes)}`);
      assert.equal(sha256sumHex(outputPath), sha256Hex(bytes));
    });
  });

  test('the sort is stable: equal ids keep their input order (seeded)', async () => {
    const seed = 0x51ab1e;
    const random = mulberry32(seed);
    const ids = ['b', 'a', 'B', '', 'a\u0000', 'ab', '\u{1F600}', '\uffff', '\ue000', '10', '2', '01'];
    const makeList = (n) => Array.from({ length: n }, (_, seq) => ({ id: ids[Math.floor(random() * ids.length)], seq }));
    const index = { tools: makeList(300), guardrails: makeList(50), agents: makeList(50), flows: makeList(50) };
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await writeIndex(index, outputPath, PINNED);
      const text = await readFile(outputPath, 'utf8');
      assert.equal(text, expectedText(index, PINNED.artifactVersion, PINNED.publishedAt), `seed ${seed}`);
      const written = JSON.parse(text);
      for (const list of LISTS) {
        for (let i = 1; i < written[list].length; i++) {
          const [a, b] = [written[list][i - 1], written[list][i]];
          assert.ok(a.id < b.id || (a.id === b.id && a.seq < b.seq), `seed ${seed}: ${list}[${i}] out of order: ${JSON.stringify([a, b])}`);
        }
      }
    });
  });

  test('a list where some item has no string id is left unsorted (the others are still sorted)', async () => {
    const index = {
      tools: [{ id: 'b' }, { id: 5 }, { id: 'a' }],
      guardrails: [{ id: 'b' }, { name: 'no id' }, { id: 'a' }],
      agents: [{ id: 'b' }, null, { id: 'a' }],
      flows: [{ id: 'b' }, { id: 'a' }],
    };
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await writeIndex(index, outputPath, PINNED);
      const text = await readFile(outputPath, 'utf8');
      assert.equal(text, expectedText(index, PINNED.artifactVersion, PINNED.publishedAt));
      const written = JSON.parse(text);
      assert.deepEqual(written.tools, [{ id: 'b' }, { id: 5 }, { id: 'a' }]);
      assert.deepEqual(written.guardrails, [{ id: 'b' }, { name: 'no id' }, { id: 'a' }]);
      assert.deepEqual(written.agents, [{ id: 'b' }, null, { id: 'a' }]);
      assert.deepEqual(written.flows, [{ id: 'a' }, { id: 'b' }]);
    });
  });

  test('only the four top-level lists are sorted; missing lists are not added', async () => {
    const index = { packId: 'p', extras: [{ id: 'z' }, { id: 'a' }], tools: [{ id: 'z' }, { id: 'a' }] };
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await writeIndex(index, outputPath, PINNED);
      const text = await readFile(outputPath, 'utf8');
      assert.equal(text,
        '{\n  "artifactVersion": "20260920.3",\n  "extras": [\n    {\n      "id": "z"\n    },\n    {\n      "id": "a"\n    }\n  ],\n'
        + '  "packId": "p",\n  "publishedAt": "2026-09-20T10:11:12.345Z",\n  "tools": [\n    {\n      "id": "a"\n    },\n    {\n      "id": "z"\n    }\n  ]\n}\n');
      assert.equal(text, expectedText(index, PINNED.artifactVersion, PINNED.publishedAt));
    });
  });

  test('the index passed in is not modified', async () => {
    const index = sampleIndex();
    const before = JSON.stringify(index);
    await withTempDir(async (dir) => {
      await writeIndex(index, path.join(dir, 'index.json'));
    });
    assert.equal(JSON.stringify(index), before);
    assert.equal('artifactVersion' in index, false);
    assert.equal('publishedAt' in index, false);
  });

  test('two writes of the same index with pinned fields give identical bytes', async () => {
    await withTempDir(async (dir) => {
      const first = path.join(dir, 'one', 'index.json');
      const second = path.join(dir, 'two', 'index.json');
      const a = await writeIndex(sampleIndex(), first, PINNED);
      const b = await writeIndex(sampleIndex(), second, PINNED);
      const [bytesA, bytesB] = [await readFile(first), await readFile(second)];
      assert.ok(bytesA.equals(bytesB), 'identical bytes');
      assert.equal(a.indexHash, b.indexHash);
      assert.equal(a.bytes, b.bytes);
      // Rewriting the same path gives the same bytes again.
      const c = await writeIndex(sampleIndex(), first, PINNED);
      assert.ok((await readFile(first)).equals(bytesA));
      assert.equal(c.indexHash, a.indexHash);
    });
  });

  test('an existing file is replaced whole (a shorter index leaves no tail)', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await writeFile(outputPath, 'x'.repeat(100_000));
      const result = await writeIndex({ tools: [] }, outputPath, PINNED);
      const bytes = await readFile(outputPath);
      assert.equal(bytes.length, result.bytes);
      assert.equal(bytes.toString('utf8'), expectedText({ tools: [] }, PINNED.artifactVersion, PINNED.publishedAt));
      assert.deepEqual(await tmpLeftovers(dir), []);
    });
  });
});

describe('writeIndex: an index handed to the native writer in pieces', () => {
  /** `count` tools of varied sizes and characters, in shuffled id order (seeded). */
  function manyTools(count, seed) {
    const random = mulberry32(seed);
    const words = ['a', 'é', '✓', '\u{1F600}', '"q"', '\\', '\n', 'x'.repeat(40)];
    return Array.from({ length: count }, (_, i) => ({
      id: `t${String(Math.floor(random() * count)).padStart(5, '0')}`,
      n: i,
      text: Array.from({ length: Math.floor(random() * 30) }, () => words[Math.floor(random() * words.length)]).join(' '),
      input: { type: 'object', properties: { [`p${i % 7}`]: { type: 'string' }, 10: 1, 2: [null, true, -0, 1e21] } },
    }));
  }

  /** The text writeIndex should write, from the index as one JSON.stringify sees it. */
  const asStringified = (index) => expectedText(JSON.parse(JSON.stringify(index)), PINNED.artifactVersion, PINNED.publishedAt);

  test('a large index in many pieces writes what the whole index would', async () => {
    const index = { v: 1, tools: manyTools(3000, 7), guardrails: [], agents: manyTools(40, 8), env: { b: 1, a: [] } };
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      const result = await writeIndex(index, outputPath, PINNED);
      const bytes = await readFile(outputPath);
      assert.equal(bytes.toString('utf8'), expectedText(index, PINNED.artifactVersion, PINNED.publishedAt));
      assert.equal(result.bytes, bytes.length);
      assert.equal(result.indexHash, `sha256:${sha256Hex(bytes)}`);
      assert.deepEqual(await tmpLeftovers(dir), []);
    });
  });

  test('lists whose items JSON.stringify might write otherwise in a piece are written as in the whole index', async () => {
    class Tools extends Array {}
    const keyed = { id: 'k', toJSON(key) { return { id: `k${key}` }; } };
    const cases = {
      'an item with toJSON (told its key)': { tools: [{ id: 'b' }, keyed, { id: 'a' }] },
      'a list with toJSON': { tools: Object.assign([{ id: 'b' }, { id: 'a' }], { toJSON: () => [{ id: 'z' }] }) },
      'an index with toJSON': { tools: [{ id: 'b' }], toJSON: () => ({ tools: [{ id: 'y' }, { id: 'x' }] }) },
      'a Proxy list': { tools: new Proxy([{ id: 'b' }, { id: 'a' }], {}) },
      'a Proxy item': { tools: [{ id: 'b' }, new Proxy({ id: 'a' }, {})] },
      'a Proxy index': new Proxy({ tools: [{ id: 'b' }, { id: 'a' }] }, {}),
      'an index with a Date': { tools: [{ id: 'b' }, { id: 'a', at: new Date(0) }] },
      'an Array subclass': { tools: Tools.from([{ id: 'b' }, { id: 'a' }]) },
      'holes, undefined and functions': { tools: [{ id: 'b' }, , undefined, () => 1, { id: 'a' }] },
      'a list that is not an array': { tools: { b: { id: 'b' } }, flows: 'none' },
      'an own __proto__ member': JSON.parse('{"__proto__":{"x":1},"tools":[{"id":"b"},{"id":"a"}]}'),
      'a getter': Object.defineProperty({ agents: [{ id: 'b' }] }, 'tools', { enumerable: true, get: () => [{ id: 'b' }, { id: 'a' }] }),
    };
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      for (const [label, index] of Object.entries(cases)) {
        await writeIndex(index, outputPath, PINNED);
        assert.equal(await readFile(outputPath, 'utf8'), asStringified(index), label);
      }
    });
  });

  test('a boxed primitive is written as JSON.stringify writes it: not an object', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      for (const index of [new String('ab'), Object.assign(new Number(1), { tools: [{ id: 'a' }] })]) {
        await assertRejectsWithCode(writeIndex(index, outputPath, PINNED), 'invalid-argument', typeof index.valueOf());
      }
      assert.deepEqual(await readdir(dir), []);
    });
  });

  test('what JSON.stringify throws for the whole index is what writeIndex rejects with', async () => {
    const boom = new Error('boom');
    const cyclic = { tools: manyTools(50, 9) };
    cyclic.tools[30].back = cyclic;
    const cases = {
      'a getter that throws': Object.defineProperty({ tools: [] }, 'env', { enumerable: true, get() { throw boom; } }),
      'an item getter that throws': { tools: [{ id: 'a' }, Object.defineProperty({}, 'id', { enumerable: true, get() { throw boom; } })] },
      'a cycle through an item': cyclic,
      'a BigInt in a later piece': { tools: [...manyTools(200, 10), { id: 'n', n: 1n }] },
    };
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      for (const [label, index] of Object.entries(cases)) {
        let expected;
        try {
          JSON.stringify(index);
        } catch (error) {
          expected = error;
        }
        const error = await assertRejectsWithCode(writeIndex(index, outputPath, PINNED), 'invalid-json-value', label);
        assert.equal(error.cause?.message, expected.message, label);
        assert.equal(error.message, `The index cannot be written as JSON: ${expected.message}`, label);
      }
      assert.deepEqual(await readdir(dir), []);
    });
  });
});

describe('writeIndex: folders and temporary files', () => {
  test('missing folders are created; no temporary file remains', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'a', 'b', 'c', 'index.json');
      const result = await writeIndex(sampleIndex(), outputPath, PINNED);
      assert.equal((await stat(outputPath)).isFile(), true);
      assert.equal(result.outputPath, outputPath);
      assert.deepEqual(await readdir(path.join(dir, 'a', 'b', 'c')), ['index.json']);
      assert.deepEqual(await tmpLeftovers(dir), []);
    });
  });

  test('the path is resolved first, as runIndexer resolves it: `..` after a link, a trailing slash, a relative path', async () => {
    await withTempDir(async (dir) => {
      await mkdir(path.join(dir, 'real', 'deep'), { recursive: true });
      const { symlink } = await import('node:fs/promises');
      await symlink(path.join(dir, 'real', 'deep'), path.join(dir, 'link'));
      // `link/..` is `dir`, not the link target's parent.
      const through = await writeIndex(sampleIndex(), path.join(dir, 'link') + '/../index.json', PINNED);
      assert.equal(through.outputPath, path.join(dir, 'index.json'));
      assert.equal((await stat(path.join(dir, 'index.json'))).isFile(), true);
      assert.deepEqual(await readdir(path.join(dir, 'real')), ['deep']);
      // `out/` names the file `out`.
      const slash = await writeIndex(sampleIndex(), path.join(dir, 'out') + '/', PINNED);
      assert.equal(slash.outputPath, path.join(dir, 'out'));
      assert.equal((await stat(path.join(dir, 'out'))).isFile(), true);
      // A relative path comes back absolute, from the working folder.
      const relative = path.relative(process.cwd(), path.join(dir, 'rel.json'));
      const result = await writeIndex(sampleIndex(), relative, PINNED);
      assert.equal(result.outputPath, path.join(dir, 'rel.json'));
    });
  });
});

describe('writeIndex: artifactVersion and publishedAt', () => {
  test('same day: the first write is <today>.1, then .2, then .3', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      for (const n of [1, 2, 3]) {
        const { result, days } = await writeAndDays(sampleIndex(), outputPath);
        assertVersionOfToday(result.artifactVersion, days, n, `write #${n}`);
        const written = JSON.parse(await readFile(outputPath, 'utf8'));
        assert.equal(written.artifactVersion, result.artifactVersion);
        assert.equal(written.publishedAt, result.publishedAt);
      }
    });
  });

  test('a previous file of another day restarts at <today>.1', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await writeFile(outputPath, JSON.stringify({ artifactVersion: '20000101.7' }));
      const { result, days } = await writeAndDays(sampleIndex(), outputPath);
      assertVersionOfToday(result.artifactVersion, days, 1, 'after 20000101.7');
    });
  });

  test('a previous file of today counts on from its N', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      for (const [previous, n] of [['41', 42], ['09', 10], ['0', 1], ['999', 1000]]) {
        const before = today();
        await writeFile(outputPath, JSON.stringify({ packId: 'other', artifactVersion: `${before}.${previous}` }, null, 2));
        const { result, days } = await writeAndDays(sampleIndex(), outputPath);
        if (today() === before) assertVersionOfToday(result.artifactVersion, days, n, `after <today>.${previous}`);
      }
    });
  });

  test('an unreadable or unfit previous file means .1', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      const day = today();
      const previousContents = [
        ['garbage bytes', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b, 0x80])],
        ['null', 'null'],
        ['[]', '[]'],
        ['a string', JSON.stringify(`${day}.5`)],
        ['truncated JSON', `{"artifactVersion":"${day}.5"`],
        ['no artifactVersion', '{"packId":"x"}'],
        ['a number', '{"artifactVersion": 5}'],
        ['no .N', `{"artifactVersion":"${day}"}`],
        ['empty N', `{"artifactVersion":"${day}."}`],
        ['non-digit N', `{"artifactVersion":"${day}.x"}`],
        ['two dots', `{"artifactVersion":"${day}.1.2"}`],
        ['a prefix', `{"artifactVersion":"v${day}.3"}`],
        ['a leading space', `{"artifactVersion":" ${day}.3"}`],
        ['a trailing newline', `{"artifactVersion":"${day}.3\\n"}`],
        ['a negative N', `{"artifactVersion":"${day}.-3"}`],
        ['a non-ASCII digit N (\\d is ASCII-only in JS)', `{"artifactVersion":"${day}.\u0663"}`],
        ['a 7-digit date', `{"artifactVersion":"${day.slice(1)}.3"}`],
        ['nested', `{"index":{"artifactVersion":"${day}.3"}}`],
        ['empty file', ''],
      ];
      for (const [label, content] of previousContents) {
        await writeFile(outputPath, content);
        const { result, days } = await writeAndDays(sampleIndex(), outputPath);
        assertVersionOfToday(result.artifactVersion, days, 1, `previous file: ${label}`);
      }
    });
  });

  test('options.artifactVersion is used verbatim', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await writeFile(outputPath, JSON.stringify({ artifactVersion: `${today()}.4` }));
      const index = { ...sampleIndex(), artifactVersion: 'own-version' };
      const result = await writeIndex(index, outputPath, { artifactVersion: 'pinned-v42' });
      assert.equal(result.artifactVersion, 'pinned-v42');
      const written = JSON.parse(await readFile(outputPath, 'utf8'));
      assert.equal(written.artifactVersion, 'pinned-v42');
      assert.match(result.publishedAt, PUBLISHED_AT_RE);
    });
  });

  test("the index's own artifactVersion and publishedAt are used when options leave them out", async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await writeFile(outputPath, JSON.stringify({ artifactVersion: `${today()}.4` }));
      const index = { ...sampleIndex(), artifactVersion: 'own-version', publishedAt: 'own-time' };
      const result = await writeIndex(index, outputPath);
      assert.equal(result.artifactVersion, 'own-version');
      assert.equal(result.publishedAt, 'own-time');
      assert.equal(await readFile(outputPath, 'utf8'), expectedText(index, 'own-version', 'own-time'));

      const overridden = await writeIndex(index, outputPath, { artifactVersion: 'opt-version', publishedAt: 'opt-time' });
      assert.equal(overridden.artifactVersion, 'opt-version');
      assert.equal(overridden.publishedAt, 'opt-time');
      assert.equal(await readFile(outputPath, 'utf8'), expectedText(index, 'opt-version', 'opt-time'));

      // Explicit undefined options are "absent".
      const absent = await writeIndex(index, outputPath, { artifactVersion: undefined, publishedAt: undefined });
      assert.equal(absent.artifactVersion, 'own-version');
      assert.equal(absent.publishedAt, 'own-time');
    });
  });

  test("an index's own non-string artifactVersion / publishedAt is replaced by the defaults", async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      const index = { ...sampleIndex(), artifactVersion: 5, publishedAt: null };
      const { result, days } = await writeAndDays(index, outputPath);
      assertVersionOfToday(result.artifactVersion, days, 1, 'non-string own artifactVersion');
      assert.match(result.publishedAt, PUBLISHED_AT_RE);
      assert.equal(await readFile(outputPath, 'utf8'), expectedText(index, result.artifactVersion, result.publishedAt));
    });
  });

  test('the default publishedAt is now, as new Date().toISOString() writes it', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      const before = Date.now();
      const result = await writeIndex(sampleIndex(), outputPath, { artifactVersion: 'x' });
      const after = Date.now();
      assert.match(result.publishedAt, PUBLISHED_AT_RE);
      const at = Date.parse(result.publishedAt);
      assert.ok(at >= before - 1 && at <= after + 1, `publishedAt ${result.publishedAt} within [${new Date(before).toISOString()}, ${new Date(after).toISOString()}]`);
      assert.equal(new Date(at).toISOString(), result.publishedAt);
      assert.equal(JSON.parse(await readFile(outputPath, 'utf8')).publishedAt, result.publishedAt);
    });
  });
});

describe('writeIndex: failures', () => {
  test('an output path under a regular file rejects with output-write-failed', async () => {
    await withTempDir(async (dir) => {
      const file = path.join(dir, 'file');
      await writeFile(file, 'not a folder');
      const outputPath = path.join(file, 'sub', 'index.json');
      const error = await assertRejectsWithCode(writeIndex(sampleIndex(), outputPath, PINNED), 'output-write-failed', 'under a file');
      assert.equal(error.filePath, outputPath);
      assert.ok(error.message.startsWith(`Failed to write ${outputPath}: `), error.message);
      assert.equal(error.message, `Failed to write ${outputPath}: Error: ENOTDIR: not a directory, mkdir '${path.dirname(outputPath)}'`);
      // …which is exactly what Node's own mkdir -p says.
      let nodeError;
      try {
        mkdirSync(path.dirname(outputPath), { recursive: true });
      } catch (caught) {
        nodeError = caught;
      }
      assert.ok(nodeError, 'Node refuses too');
      assert.equal(error.message, `Failed to write ${outputPath}: ${nodeError.name}: ${nodeError.message}`);
      assert.equal(await readFile(file, 'utf8'), 'not a folder');
      assert.deepEqual(await tmpLeftovers(dir), []);
    });
  });

  test('a failed rename (the output path is a non-empty folder) rejects, leaving no temporary file', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await mkdir(path.join(outputPath, 'inner'), { recursive: true });
      await writeFile(path.join(outputPath, 'keep.txt'), 'keep');
      const before = Date.now();
      const error = await assertRejectsWithCode(writeIndex(sampleIndex(), outputPath, PINNED), 'output-write-failed', 'onto a folder');
      const after = Date.now();
      assert.equal(error.filePath, outputPath);
      assert.ok(error.message.startsWith(`Failed to write ${outputPath}: `), error.message);
      assert.ok(error.message.includes("rename '"), error.message);
      assert.ok(error.message.includes('.tmp-'), error.message);
      const escaped = outputPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const match = new RegExp(`^Failed to write ${escaped}: Error: (E[A-Z]+): [^,]+, rename '${escaped}\\.tmp-(\\d+)-(\\d+)' -> '${escaped}'$`).exec(error.message);
      assert.ok(match, `Node-style rename message: ${error.message}`);
      assert.equal(Number(match[2]), process.pid, 'the temporary name holds the pid');
      const ms = Number(match[3]);
      assert.ok(ms >= before && ms <= after, `the temporary name holds Date.now() (${ms} within [${before}, ${after}])`);
      assert.deepEqual(await tmpLeftovers(dir), []);
      assert.deepEqual((await readdir(outputPath)).sort(), ['inner', 'keep.txt']);
      assert.equal(await readFile(path.join(outputPath, 'keep.txt'), 'utf8'), 'keep');
    });
  });
});

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A script that writes a large index to `outputPath` with writeIndex (`times` times), for a child process. */
const writerScript = (outputPath, times) => `
import { writeIndex } from ${JSON.stringify(path.join(root, 'index.js'))};
const tools = Array.from({ length: 20000 }, (_, i) => ({ id: 't' + i, description: 'x'.repeat(200), input: { type: 'object' } }));
const index = { v: 1, packId: 'big', packVersion: '1', tools, guardrails: [], agents: [], flows: [] };
for (let i = 0; i < ${times}; i += 1) {
  try {
    await writeIndex(index, ${JSON.stringify(outputPath)}, ${JSON.stringify(PINNED)});
  } catch (error) {
    process.stdout.write(error.message);
    process.exit(1);
  }
}
`;

describe('writeIndex: what failed writers leave', () => {
  test('a writer killed mid-write leaves its temporary file; the next write removes those of writers gone and untouched for a minute, and only those', { skip: process.platform !== 'linux' && 'pids as Linux has them' }, async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      const leftovers = () => readdirSync(dir).filter((name) => name.startsWith('index.json.tmp-'));
      // Killed whenever its temporary file is there; once in a while the rename wins the
      // race, and the writer is started again.
      const killed = [];
      for (let attempt = 0; attempt < 20 && killed.length < 2; attempt += 1) {
        const child = spawn(process.execPath, ['--input-type=module', '-e', writerScript(outputPath, 200)], { stdio: 'ignore' });
        const exited = new Promise((resolve) => child.once('exit', resolve));
        const until = Date.now() + 20_000;
        while (Date.now() < until && !leftovers().some((name) => name.startsWith(`index.json.tmp-${child.pid}-`))) {
          await new Promise((resolve) => setImmediate(resolve));
        }
        child.kill('SIGKILL');
        await exited;
        if (leftovers().some((name) => name.startsWith(`index.json.tmp-${child.pid}-`))) killed.push(child.pid);
      }
      assert.equal(killed.length, 2, 'two writers killed between their write and their rename');
      // Left a minute ago or more: a file written since may be a writer's that this process
      // cannot see (another pid namespace), and stays.
      const minuteAgo = new Date(Date.now() - 61_000);
      for (const name of leftovers()) utimesSync(path.join(dir, name), minuteAgo, minuteAgo);
      const unseenWriters = `index.json.tmp-${killed[0]}-1790000000001`;
      writeFileSync(path.join(dir, unseenWriters), '{}');
      // A writer still running (a sleeping process stands in for it) keeps its file.
      const alive = spawn('sleep', ['60'], { stdio: 'ignore' });
      const alivesFile = `index.json.tmp-${alive.pid}-1790000000000`;
      try {
        writeFileSync(path.join(dir, alivesFile), '{}');
        // Files of other outputs in the folder are not this writer's.
        writeFileSync(path.join(dir, 'other.json.tmp-1-1'), '{}');
        const written = await writeIndex(sampleIndex(), outputPath, PINNED);
        assert.equal(written.outputPath, outputPath);
        assert.deepEqual(leftovers().sort(), [unseenWriters, alivesFile].sort());
        assert.ok(readdirSync(dir).includes('other.json.tmp-1-1'));
      } finally {
        alive.kill('SIGKILL');
      }
    });
  });

  test('a write that fails past the file size limit names the write, and leaves no temporary file', { skip: process.platform !== 'linux' && 'ulimit -f as Linux has it' }, async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      // Node ignores SIGXFSZ, so a write past the limit fails with EFBIG.
      const run = spawnSync('sh', ['-c', 'ulimit -f 64 && exec "$@"', 'sh', process.execPath, '--input-type=module', '-e', writerScript(outputPath, 1)], { encoding: 'utf8' });
      assert.equal(run.status, 1, run.stderr);
      const escaped = outputPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      assert.match(run.stdout, new RegExp(`^Failed to write ${escaped}: Error: EFBIG: file too large, write '${escaped}\\.tmp-\\d+-\\d+'$`));
      assert.deepEqual(await tmpLeftovers(dir), []);
    });
  });
});

describe('writeIndex: bad arguments and values', () => {
  test('an index that is not a plain object rejects with invalid-argument', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      for (const index of [[], null, undefined, 'index', 5, true]) {
        await assertRejectsWithCode(writeIndex(index, outputPath), 'invalid-argument', `index ${String(index)}`);
      }
      assert.deepEqual(await readdir(dir), []);
    });
  });

  test('an outputPath that is not a non-empty string rejects with invalid-argument', async () => {
    for (const outputPath of ['', undefined, null, 5, {}]) {
      await assertRejectsWithCode(writeIndex(sampleIndex(), outputPath), 'invalid-argument', `outputPath ${String(outputPath)}`);
    }
  });

  test('non-string options.artifactVersion / options.publishedAt reject with invalid-argument', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      for (const options of [{ artifactVersion: 42 }, { artifactVersion: null }, { artifactVersion: {} }, { publishedAt: 5 }, { publishedAt: new Date() }]) {
        await assertRejectsWithCode(writeIndex(sampleIndex(), outputPath, options), 'invalid-argument', `options ${JSON.stringify(options)}`);
      }
      assert.deepEqual(await readdir(dir), []);
    });
  });

  test('a value JSON cannot hold rejects with invalid-json-value; too deep with value-too-deep; nothing is written', async () => {
    await withTempDir(async (dir) => {
      const outputPath = path.join(dir, 'index.json');
      await assertRejectsWithCode(writeIndex({ tools: [{ id: 'a', n: 1n }] }, outputPath, PINNED), 'invalid-json-value', 'BigInt');
      const cyclic = { tools: [] };
      cyclic.tools.push({ id: 'a', back: cyclic });
      await assertRejectsWithCode(writeIndex(cyclic, outputPath, PINNED), 'invalid-json-value', 'cycle');
      let deep = [];
      for (let i = 0; i < 6000; i++) deep = [deep];
      await assertRejectsWithCode(writeIndex({ tools: [], deep }, outputPath, PINNED), 'value-too-deep', '6000 levels');
      assert.deepEqual(await readdir(dir), []);
    });
  });

  test('indexHash of a missing file throws index-read-failed', async () => {
    await withTempDir(async (dir) => {
      let error;
      try {
        indexHash(path.join(dir, 'missing.json'));
      } catch (caught) {
        error = caught;
      }
      assert.ok(error instanceof Error, 'throws');
      assert.equal(error.code, 'index-read-failed');
    });
  });
});

describe('readBundleMap (./kindgi-index)', () => {
  test('a map of source path → bundle path, or an error naming the file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kindgi-bundle-map-'));
    try {
      const file = path.join(dir, 'bundle-map.json');
      await writeFile(file, JSON.stringify({ 'tools/a.ts': 'dist/a.mjs', 'guardrails/b.ts': '/abs/b.mjs' }));
      assert.deepEqual(await readBundleMap(file), { kind: 'ok', value: { 'tools/a.ts': 'dist/a.mjs', 'guardrails/b.ts': '/abs/b.mjs' } });
      const shape = `The bundle map ${file} must be a JSON object of source path → bundle path.`;
      for (const text of ['["not","a","map"]', 'null', '"x"', '{"tools/a.ts":""}', '{"tools/a.ts":1}']) {
        await writeFile(file, text);
        assert.deepEqual(await readBundleMap(file), { kind: 'err', message: shape }, text);
      }
      await writeFile(file, '{ not json');
      const unparsable = await readBundleMap(file);
      assert.equal(unparsable.kind, 'err');
      assert.match(unparsable.message, new RegExp(`^Cannot read the bundle map ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: SyntaxError: `));
      const missing = path.join(dir, 'none.json');
      assert.deepEqual(await readBundleMap(missing), {
        kind: 'err',
        message: `Cannot read the bundle map ${missing}: Error: ENOENT: no such file or directory, open '${missing}'`,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
