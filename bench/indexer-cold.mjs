// One cold indexer run in a fresh process (nothing imported yet): `node indexer-cold.mjs
// <packDir> <outputPath> <concurrency>` prints `{ ms, stages }` as JSON. With concurrency 1 the
// modules are imported as the TypeScript indexer imports them: one after another, each file
// stat'ed and then imported by its mtime.
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { indexPack } from '../lib/indexer/run.js';

const [packDir, outputPath, concurrency] = process.argv.slice(2);

async function typescriptImport(fileUrl) {
  try {
    const { mtimeMs } = await stat(fileURLToPath(fileUrl));
    return await import(`${fileUrl}?v=${mtimeMs}`);
  } catch {
    return await import(fileUrl);
  }
}

const sequential = Number(concurrency) === 1;
const started = performance.now();
const { outcome, stages } = await indexPack(
  {
    packDir,
    outputPath,
    artifactVersion: 'bench',
    publishedAt: '2026-01-01T00:00:00.000Z',
    ...(sequential && { importModule: typescriptImport }),
  },
  { concurrency: Number(concurrency) },
);
const ms = performance.now() - started;
if (outcome.kind === 'err' || outcome.value.fileErrors.length > 0) {
  console.error(JSON.stringify(outcome));
  process.exit(1);
}
console.log(JSON.stringify({ ms, stages, counts: outcome.value.counts }));
