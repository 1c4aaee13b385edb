// The indexer: a cold `runIndexer` on a generated pack of 400 JS tool modules (with guardrails
// and a config declaring env), modules imported concurrently against one after another as
// the TypeScript indexer imports them (a stat, then an import by mtime; indexer-cold.mjs),
// each run in a fresh process, rounds interleaved, each stage timed; and save-to-serving with `kindgi-pack-dev --pack-dir`: from the write of a changed
// tool module to the first call that returns the new behaviour, for an edit to a handler's
// code and an edit to a tool's schema, on the example pack and on the 400-tool pack.
//
// Knobs: BENCH_INDEXER_ROUNDS (5), BENCH_INDEXER_EDITS (10).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { IMPORT_CONCURRENCY } from '../lib/indexer/run.js';
import { toolPath, toolSource, writePack } from './indexer-pack.mjs';
import { fmt, median, table } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const ROUNDS = Number(process.env.BENCH_INDEXER_ROUNDS ?? 5);
const EDITS = Number(process.env.BENCH_INDEXER_EDITS ?? 10);
const TARGETS = { coldRatio: 2, examplePackMs: 60, bigPackMs: 150 };
const STAGES = ['discover', 'import', 'convert', 'validate', 'write'];
const TOKEN = 'benchbenchbenchbenchbenchbenchbench0123';

const log = (line) => process.stderr.write(`[bench indexer] ${line}\n`);

function coldRun(packDir, concurrency) {
  const out = spawnSync(process.execPath, [join(here, 'indexer-cold.mjs'), packDir, join(packDir, '.out', 'index.json'), String(concurrency)], {
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`indexer-cold failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

async function cold(packDir) {
  const runs = { sequential: [], concurrent: [] };
  coldRun(packDir, 1); // the file system's caches, for both alike
  for (let round = 0; round < ROUNDS; round += 1) {
    runs.sequential.push(coldRun(packDir, 1));
    runs.concurrent.push(coldRun(packDir, IMPORT_CONCURRENCY));
  }
  const row = (name, list) => [
    name,
    fmt(median(list.map((r) => r.ms))),
    ...STAGES.map((stage) => fmt(median(list.map((r) => r.stages[stage] ?? 0)))),
  ];
  const seq = median(runs.sequential.map((r) => r.ms));
  const con = median(runs.concurrent.map((r) => r.ms));
  return {
    ratio: seq / con,
    text: table(
      ['imports', 'whole run (ms)', ...STAGES.map((s) => `${s} (ms)`)],
      [row("one after another, TypeScript's import", runs.sequential), row(`native (require, or ${IMPORT_CONCURRENCY} imports at once)`, runs.concurrent)],
    ),
  };
}

/** `kindgi-pack-dev --pack-dir` with --json: its events, and a call through its front. */
async function devLoop(packDir) {
  const child = spawn(process.execPath, [join(root, 'bin', 'kindgi-pack-dev.mjs'), '--pack-dir', packDir, '--json', '--port', '0', '--token', TOKEN], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_DB_URL: 'postgres://bench' },
  });
  const waiting = [];
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const event = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      for (const w of waiting.filter((w) => w.kind === event.kind)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(event);
      }
    }
  });
  const next = (kind) => new Promise((resolveEvent) => waiting.push({ kind, resolve: resolveEvent }));
  const front = next('front');
  await next('started');
  const { url } = await front;
  const call = async (tool, input) => {
    const res = await fetch(`${url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
      body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: tool }, input, ctx: { tenantId: 't', runId: 'r' } }),
    });
    return res.json();
  };
  const stop = () =>
    new Promise((resolveStop) => {
      child.on('close', resolveStop);
      child.kill('SIGTERM');
    });
  return { call, stop };
}

/** Milliseconds from `edit()` to the first call `served(answer)` accepts (calls 2 ms apart). */
async function saveToServing(edit, probe, served) {
  const started = performance.now();
  edit();
  for (;;) {
    if (served(await probe())) return performance.now() - started;
    if (performance.now() - started > 10_000) throw new Error('the edit was not served within 10 s');
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function editsOn(name, packDir, { file, code, schema, probeCode, probeSchema, servedCode }) {
  const dev = await devLoop(packDir);
  const rows = [];
  try {
    for (const [kind, write, probe, servedFor] of [
      ['handler code', code, probeCode, servedCode],
      ['schema', schema, probeSchema, () => (answer) => answer.kind === 'result'],
    ]) {
      const times = [];
      for (let k = 1; k <= EDITS; k += 1) {
        // Let the last swap's old child retire before the next edit.
        await new Promise((r) => setTimeout(r, 300));
        times.push(await saveToServing(() => writeFileSync(file, write(k)), () => dev.call(...probe(k)), servedFor(k)));
      }
      rows.push({ name, kind, p50: median(times), max: Math.max(...times) });
      log(`${name}, ${kind}: ${times.map((t) => t.toFixed(0)).join(' ')} ms`);
    }
  } finally {
    await dev.stop();
  }
  return rows;
}

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'kindgi-bench-indexer-'));
  try {
    const big = join(work, 'big');
    writePack(big);
    log('cold runIndexer, 400 tools');
    const coldResult = await cold(big);

    const example = join(work, 'example');
    cpSync(join(root, 'examples', 'pack'), example, { recursive: true });
    const greet = join(example, 'tools', 'greet.mjs');
    const greetSource = readFileSync(greet, 'utf8');
    // The example's greet tool, edited: another English greeting, then a longer name allowed.
    const greetCode = (k) => greetSource.replace("en: 'Hello'", `en: 'Hello${k}'`);
    if (greetCode(1) === greetSource) throw new Error('examples/pack/tools/greet.mjs changed: update the bench edit');
    const greetSchema = (k) => greetSource.replace('maxLength: 100', `maxLength: ${100 + k}`);
    log('save-to-serving, example pack');
    const exampleRows = await editsOn('example pack', example, {
      file: greet,
      code: greetCode,
      schema: greetSchema,
      probeCode: () => ['example.greet', { name: 'Ada' }],
      probeSchema: (k) => ['example.greet', { name: 'x'.repeat(100 + k) }],
      servedCode: (k) => (answer) => answer.output?.greeting === `Hello${k}, Ada!`,
    });
    log('save-to-serving, 400-tool pack');
    const bigRows = await editsOn('400-tool pack', big, {
      file: toolPath(big, 7),
      code: (k) => toolSource(7, { variant: k }),
      schema: (k) => toolSource(7, { variant: 0, schemaVariant: k }),
      probeCode: () => ['bench.tool0007', { query: 'x' }],
      probeSchema: (k) => ['bench.tool0007', { query: 'x', [`note${k}`]: 'y' }],
      servedCode: (k) => (answer) => answer.output?.variant === k,
    });
    const target = (row) => (row.name === 'example pack' ? TARGETS.examplePackMs : TARGETS.bigPackMs);
    const editRows = [...exampleRows, ...bigRows].map((row) => [
      row.name,
      row.kind,
      fmt(row.p50),
      fmt(row.max),
      `≤ ${target(row)} ms: ${row.p50 <= target(row) ? 'met' : 'not met'}`,
    ]);
    const text = [
      `Cold \`runIndexer\`, 400 tool modules and 10 guardrails, each run a fresh process, ${ROUNDS} rounds interleaved, medians:`,
      '',
      coldResult.text,
      '',
      `The native indexer: **${coldResult.ratio.toFixed(2)}x** the one-after-another run (target ≥ ${TARGETS.coldRatio}x: ${coldResult.ratio >= TARGETS.coldRatio ? 'met' : 'not met'}).`,
      '',
      `Save-to-serving with \`kindgi-pack-dev --pack-dir\`, ${EDITS} edits of each kind (calls 2 ms apart until the new behaviour answers):`,
      '',
      table(['pack', 'edit', 'p50 (ms)', 'max (ms)', 'target'], editRows),
    ].join('\n');
    return { title: 'Indexer', text };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
