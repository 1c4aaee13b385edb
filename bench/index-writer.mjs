// The index writer: canonicalJson and writeIndex against the TypeScript package's rule, on a
// generated 10,000-tool index, a 400-tool one (a large real pack) and a 100 KB string-heavy
// value. Bytes are compared before anything is timed.
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rename, rm, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { canonicalJson, writeIndex } from '../index.js';
import { native } from '../lib/native.js';
import { compare, fmt, ratio, table } from './lib.mjs';

// The TypeScript indexer's rule (kindgi-index.ts), the baseline.
function canonicalize(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(canonicalize);
  const out = {};
  for (const key of Object.keys(value).sort()) out[key] = canonicalize(value[key]);
  return out;
}
const jsCanonicalJson = (value) => `${JSON.stringify(canonicalize(value), null, 2)}\n`;

const byId = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The TypeScript writer: sort the lists, canonical text, temp file, rename. */
async function jsWriteIndex(index, outputPath) {
  const sorted = {
    ...index,
    tools: [...index.tools].sort(byId),
    guardrails: [...index.guardrails].sort(byId),
    agents: [...index.agents].sort(byId),
    flows: [...index.flows].sort(byId),
  };
  const tmp = `${outputPath}.tmp-${process.pid}-${Date.now()}`;
  await mkdir(path.dirname(outputPath), { recursive: true });
  await writeFile(tmp, jsCanonicalJson(sorted), 'utf8');
  await rename(tmp, outputPath);
}

/** A tool as a pack build indexes it: schemas, effects, limits, a module path. */
function tool(i) {
  const n = String(i).padStart(5, '0');
  return {
    modulePath: `tools/t${n}/index.mjs`,
    id: `acme.support.tool${n}`,
    version: `1.${i % 7}.0`,
    description: `Looks up record ${n} and summarises it — für Kunden ✓`,
    input: {
      type: 'object',
      required: ['query'],
      additionalProperties: false,
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'What to look up' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        filters: {
          type: 'object',
          properties: { status: { enum: ['open', 'closed'] }, since: { type: 'string', format: 'date-time' } },
        },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
      },
    },
    output: {
      type: 'object',
      required: ['results'],
      properties: {
        results: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'string' }, score: { type: 'number' } } },
        },
        total: { type: 'integer' },
      },
    },
    effects: [{ kind: 'read', resource: 'crm' }],
    sandbox: 'strict',
    limits: { timeoutMs: 30000, memoryMb: 256 },
    network: { allow: ['api.example.com'] },
    mutating: i % 3 === 0,
  };
}

export function generatedIndex(tools = 10000) {
  return {
    v: 1,
    packId: 'acme.support',
    packVersion: '1.0.0',
    artifactVersion: '20261129.1',
    publishedAt: '2026-11-29T00:00:00.000Z',
    // Reverse order, so the writers have sorting to do.
    tools: Array.from({ length: tools }, (_, i) => tool(tools - 1 - i)),
    guardrails: Array.from({ length: 50 }, (_, i) => ({
      id: `acme.support.guard${49 - i}`,
      kind: 'zero-llm',
      action: { 'on-violation': 'halt' },
      checkModulePath: `guardrails/g${i}.mjs`,
      configSchema: { type: 'object', properties: { maxChars: { type: 'integer', minimum: 0 } } },
    })),
    agents: [],
    flows: [],
    env: { optional: ['LOG_LEVEL'], required: ['DATABASE_URL'] },
  };
}

/** About 100 KB of prose in 40 strings: quotes, newlines and non-ASCII to escape or keep. */
export function stringHeavyValue() {
  const sentence = 'The "quick" brown fox — naïve café ✓ — jumps over the lazy dog.\n';
  return {
    id: 'acme.support.notes',
    paragraphs: Array.from({ length: 40 }, (_, i) => `${i}: ${sentence.repeat(36)}`),
  };
}

/** canonicalJson, and writeIndex when `index` is an index, on a smaller input: `inner` calls a round. */
async function smaller(label, value, { rounds, inner, dir, isIndex }) {
  const compact = Buffer.from(JSON.stringify(value));
  assert.equal(canonicalJson(value), jsCanonicalJson(value), `canonicalJson differs on ${label}`);
  const canonical = await compare(
    {
      js: () => jsCanonicalJson(value),
      native: () => canonicalJson(value),
      nativeFromText: () => native.canonicalJsonText(compact),
      jsFromText: () => jsCanonicalJson(JSON.parse(compact.toString())),
    },
    { rounds, inner },
  );
  const kb = `${Math.round(compact.length / 1e3)} KB`;
  const rows = [
    [`canonicalJson, ${label} (${kb} compact)`, fmt(canonical.js), fmt(canonical.native), ratio(canonical.js, canonical.native)],
    [`canonical JSON from JSON text, ${label}`, fmt(canonical.jsFromText), fmt(canonical.nativeFromText), ratio(canonical.jsFromText, canonical.nativeFromText)],
  ];
  if (isIndex) {
    const jsPath = path.join(dir, 'small-js', 'index.json');
    const nativePath = path.join(dir, 'small-native', 'index.json');
    await jsWriteIndex(value, jsPath);
    await writeIndex(value, nativePath);
    assert.equal(await readFile(nativePath, 'utf8'), await readFile(jsPath, 'utf8'), `writeIndex differs on ${label}`);
    const writes = await compare(
      { js: () => jsWriteIndex(value, jsPath), native: () => writeIndex(value, nativePath) },
      { rounds, inner },
    );
    rows.push([`writeIndex, ${label}: whole call`, fmt(writes.js), fmt(writes.native), ratio(writes.js, writes.native)]);
  }
  return rows;
}

export async function run({ rounds }) {
  const index = generatedIndex();
  const compact = Buffer.from(JSON.stringify(index));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kindgi-bench-'));
  try {
    // Same bytes first.
    const expected = jsCanonicalJson(index);
    assert.equal(canonicalJson(index), expected, 'canonicalJson differs from the TypeScript rule');
    const jsPath = path.join(dir, 'js', 'index.json');
    const nativePath = path.join(dir, 'native', 'index.json');
    await jsWriteIndex(index, jsPath);
    await writeIndex(index, nativePath);
    assert.equal(await readFile(nativePath, 'utf8'), await readFile(jsPath, 'utf8'), 'writeIndex differs');

    const canonical = await compare(
      {
        js: () => jsCanonicalJson(index),
        native: () => canonicalJson(index),
        nativeFromText: () => native.canonicalJsonText(compact),
        jsFromText: () => jsCanonicalJson(JSON.parse(compact.toString())),
        stringifyOnly: () => JSON.stringify(index),
      },
      { rounds },
    );
    let blockedMs = [];
    const writes = await compare(
      {
        js: () => jsWriteIndex(index, jsPath),
        native: async () => {
          const start = process.hrtime.bigint();
          const pending = writeIndex(index, nativePath);
          blockedMs.push(Number(process.hrtime.bigint() - start) / 1e6);
          await pending;
        },
      },
      { rounds },
    );
    blockedMs = blockedMs.slice(2);
    const blocked = [...blockedMs].sort((a, b) => a - b)[blockedMs.length >> 1];
    const mb = (expected.length / 1e6).toFixed(1);
    const small = [
      ...(await smaller('400 tools', generatedIndex(400), { rounds, inner: 5, dir, isIndex: true })),
      ...(await smaller('100 KB string-heavy value', stringHeavyValue(), { rounds, inner: 200, dir, isIndex: false })),
    ];
    const smallTable = table(['operation', 'TypeScript rule (ms)', 'native (ms)', 'native speed-up'], small);
    return {
      title: `Index writer: 10,000 tools (${mb} MB of canonical JSON), median ms of ${rounds} interleaved rounds`,
      text: `${table(
        ['operation', 'TypeScript rule (ms)', 'native (ms)', 'native speed-up'],
        [
          ['canonicalJson(index)', fmt(canonical.js), fmt(canonical.native), ratio(canonical.js, canonical.native)],
          ['writeIndex(index, path): whole call', fmt(writes.js), fmt(writes.native), ratio(writes.js, writes.native)],
          ['writeIndex: JS thread blocked', fmt(writes.js), fmt(blocked), ratio(writes.js, blocked)],
          ['canonical JSON from JSON text (parse + canonical)', fmt(canonical.jsFromText), fmt(canonical.nativeFromText), ratio(canonical.jsFromText, canonical.nativeFromText)],
          ['(floor) JSON.stringify(index) alone', '', fmt(canonical.stringifyOnly), ''],
        ],
      )}\n\nSmaller inputs, median ms a call:\n\n${smallTable}`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
