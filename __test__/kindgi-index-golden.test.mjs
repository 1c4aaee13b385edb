// Golden index.json files: runIndexer and the kindgi-index command write exactly these bytes
// for the fixture packs and pins, and each golden is what the TypeScript indexer writes: the
// index its builders make from the packs' modules (spelled out by hand here, Zod converted by
// zod itself), sorted, in its canonical JSON (helpers/canonical-reference.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { runIndexer } from '../index.js';
import { reference } from './helpers/canonical-reference.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const packs = join(here, 'fixtures', 'indexer');
const goldens = join(here, 'golden', 'indexer');
const PINS = { artifactVersion: '20261201.1', publishedAt: '2026-12-01T00:00:00.000Z' };
const scratch = () => mkdtempSync(join(tmpdir(), 'kindgi-golden-'));
const golden = (name) => readFileSync(join(goldens, `${name}.json`), 'utf8');
const envelope = (packId, packVersion, lists, env) => ({
  v: 1,
  packId,
  packVersion,
  ...PINS,
  tools: [],
  guardrails: [],
  agents: [],
  flows: [],
  ...lists,
  ...(env !== undefined && { env }),
});

// The modules' own declarations, as each TypeScript builder carries them.
const searchInput = z.object({ query: z.string().min(1), topK: z.number().int().min(1).max(20).default(5) });
const searchOutput = z.object({ hits: z.array(z.object({ id: z.string().uuid(), score: z.number() })) });
const EXPECTED = {
  full: envelope(
    'acme.pack',
    '1.2.0',
    {
      // Sorted by id, stably: one id's versions in discovery (path) order, `echo-v2` first.
      tools: [
        {
          id: 'acme.echo',
          version: '2.0.0',
          input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
          output: { type: 'object' },
          modulePath: 'tools/echo-v2.mjs',
        },
        {
          id: 'acme.echo',
          version: '1.0.0',
          description: 'Echoes a message — with ünïcode',
          input: {
            type: 'object',
            properties: { message: { type: 'string', maxLength: 1000 }, times: { type: 'integer', default: 1 } },
            required: ['message'],
            additionalProperties: false,
          },
          output: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
          effects: [{ kind: 'reads', resource: 'kb' }],
          limits: { timeoutMs: 5000 },
          mutating: false,
          modulePath: 'tools/echo.mjs',
        },
        {
          id: 'acme.search',
          description: 'Searches the knowledge base',
          input: z.toJSONSchema(searchInput, { io: 'input' }),
          output: z.toJSONSchema(searchOutput, { io: 'output' }),
          spec: { kind: 'http', method: 'GET', urlTemplate: 'https://api.example.com/search' },
          modulePath: 'tools/search.mjs',
        },
      ],
      guardrails: [
        {
          id: 'acme.grounded',
          name: 'Response is grounded',
          kind: 'zero-llm',
          action: { 'on-violation': 'halt' },
          severity: 'blocking',
          checkModulePath: 'guardrails/grounded.mjs',
          checkId: 'must-cite',
          checkBuiltIn: true,
          config: { minCitations: 1 },
        },
        {
          id: 'acme.threshold',
          kind: 'zero-llm',
          action: { 'on-violation': 'log-only' },
          scope: { tools: ['acme.search'] },
          checkModulePath: 'guardrails/threshold.mjs',
          checkId: 'acme.pack.checks.threshold',
          configSchema: z.toJSONSchema(z.object({ threshold: z.number().min(0).max(1) }), { io: 'input' }),
          config: { threshold: 0.5 },
        },
      ],
      agents: [
        {
          id: 'acme.support',
          version: '1.0.0',
          name: 'Support agent',
          instructions: { prompt: 'acme.support-prompt', version: '^1.0.0' },
          capabilities: [{ needs: [{ feature: 'tool-use' }] }],
          tools: [{ id: 'acme.echo', version: '^1.0.0' }],
          guardrails: ['acme.grounded'],
          tags: ['support'],
          toolErrors: { maxRetries: 2, retryOn: ['invalid-arguments'] },
          memory: { instructionTypes: ['acme.policy'] },
          modulePath: 'agents/support.mjs',
        },
      ],
      flows: [
        {
          id: 'acme.triage',
          version: '1.0.0',
          name: 'Triage',
          nodes: [{ id: 'step-1', kind: 'tool', ref: 'acme.echo', inputMapping: { message: { path: 'runInput.message' } } }],
          edges: [{ id: 'e-start', from: '$start', to: 'step-1' }],
          maxParallelism: 2,
          metadata: { owner: 'acme' },
          output: { mapping: { result: { path: 'nodeOutputs.step-1' } } },
          kernelPayloadVersion: 1,
          modulePath: 'flows/triage.mjs',
        },
      ],
    },
    { optional: ['ACME_LOG_LEVEL'], required: ['ACME_DB_URL'] },
  ),
  pyproject: envelope(
    'acme.py-config',
    '0.3.0',
    {
      tools: [
        {
          id: 'acme.ping',
          input: { type: 'object' },
          output: { type: 'object', properties: { pong: { const: true } } },
          modulePath: 'tools/ping.mjs',
        },
      ],
    },
    { optional: [], required: ['ACME_TOKEN'] },
  ),
  // Indexed from its bundles; the index names the sources.
  bundle: envelope('acme.built', '1.0.0', {
    tools: [
      {
        id: 'acme.echo',
        input: { type: 'object', properties: { message: { type: 'string' } } },
        output: { type: 'object' },
        modulePath: 'tools/echo.ts',
      },
    ],
    agents: [
      { id: 'acme.support', version: '1.0.0', name: 'Support', instructions: 'Be kind.', capabilities: [], tools: [], modulePath: 'agents/support.ts' },
    ],
  }),
};

const bundleOptions = () => ({
  bundleMap: JSON.parse(readFileSync(join(packs, 'bundle', 'dist', 'bundle-map.json'), 'utf8')),
  moduleRoot: join(packs, 'bundle', 'dist'),
});

for (const name of Object.keys(EXPECTED)) {
  test(`${name}: the golden is the TypeScript indexer's bytes, and runIndexer writes them`, async () => {
    assert.equal(reference(EXPECTED[name]), golden(name));
    const outputPath = join(scratch(), 'index.json');
    const outcome = await runIndexer({ packDir: join(packs, name), outputPath, ...PINS, ...(name === 'bundle' && bundleOptions()) });
    assert.equal(outcome.kind, 'ok');
    assert.deepEqual([outcome.value.fileErrors, outcome.value.warnings], [[], []]);
    assert.equal(readFileSync(outputPath, 'utf8'), golden(name));
  });
}

test('kindgi-index writes the same bytes from the command line, bundle map included', () => {
  const bin = join(here, '..', 'bin', 'kindgi-index.mjs');
  for (const name of ['full', 'bundle']) {
    const output = join(scratch(), 'index.json');
    const bundle = name === 'bundle' ? ['--bundle-map', join(packs, 'bundle', 'dist', 'bundle-map.json'), '--module-root', join(packs, 'bundle', 'dist')] : [];
    const run = spawnSync(
      process.execPath,
      [bin, '--pack-dir', join(packs, name), '--output', output, '--artifact-version', PINS.artifactVersion, '--published-at', PINS.publishedAt, ...bundle],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(output, 'utf8'), golden(name));
    assert.equal(JSON.parse(run.stdout).outputPath, output);
  }
});

test('a Java pack (kindgi.config.json) is refused, naming its own indexer, and nothing is written', async () => {
  const outputPath = join(scratch(), 'index.json');
  const packDir = join(packs, 'java');
  const outcome = await runIndexer({ packDir, outputPath, ...PINS });
  assert.deepEqual(outcome, {
    kind: 'err',
    error: {
      code: 'language-mismatch',
      message: `${packDir} is a java pack; index it with its own indexer (java -cp <classpath> com.kindgi.pack.Main index)`,
    },
  });
  assert.throws(() => readFileSync(outputPath), { code: 'ENOENT' });
});
