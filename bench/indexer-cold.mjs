// One cold indexer run in a fresh process (nothing imported yet): `node indexer-cold.mjs
// <packDir> <outputPath> <concurrency>` prints `{ ms, stages }` as JSON.
import { performance } from 'node:perf_hooks';
import { indexPack } from '../lib/indexer/run.js';

const [packDir, outputPath, concurrency] = process.argv.slice(2);
const started = performance.now();
const { outcome, stages } = await indexPack(
  { packDir, outputPath, artifactVersion: 'bench', publishedAt: '2026-01-01T00:00:00.000Z' },
  { concurrency: Number(concurrency) },
);
const ms = performance.now() - started;
if (outcome.kind === 'err' || outcome.value.fileErrors.length > 0) {
  console.error(JSON.stringify(outcome));
  process.exit(1);
}
console.log(JSON.stringify({ ms, stages, counts: outcome.value.counts }));
