// Writes this pack's index.json with the package's indexer (`runIndexer`, as `kindgi-index
// --pack-dir examples/pack` does). `node examples/pack/build-index.mjs` rewrites the committed
// file; the build is pinned (artifact version and time), so the same modules always give the
// same bytes. `exampleIndex()` assembles the same index by hand, which the tests hold equal.
import { fileURLToPath } from 'node:url';
import { runIndexer } from '../../lib/kindgi-index.js';

const TOOLS = ['tools/greet.mjs', 'tools/word-count.mjs', 'tools/countdown.mjs'];
const GUARDRAILS = ['guardrails/no-shouting.mjs'];
export const BUILD = { artifactVersion: '20261129.1', publishedAt: '2026-11-29T00:00:00.000Z' };

const load = async (path) => (await import(new URL(path, import.meta.url))).default;

/** The index as data: the definitions without their code, and the module each lives in. */
export async function exampleIndex() {
  const tools = [];
  for (const modulePath of TOOLS) {
    const { handler: _code, ...tool } = await load(modulePath);
    tools.push({ ...tool, modulePath });
  }
  const guardrails = [];
  for (const checkModulePath of GUARDRAILS) {
    const { check, ...guardrail } = await load(checkModulePath);
    guardrails.push({ ...guardrail, checkId: check.id, checkModulePath });
  }
  return {
    v: 1,
    packId: 'example',
    packVersion: '1.0.0',
    tools,
    guardrails,
    agents: [],
    flows: [],
    env: { required: [], optional: ['EXAMPLE_STOP_WORDS'] },
  };
}

/** Indexes the pack into `outputPath` with the pinned build. */
export function buildExampleIndex(outputPath) {
  return runIndexer({ packDir: fileURLToPath(new URL('.', import.meta.url)), outputPath, ...BUILD });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outcome = await buildExampleIndex(fileURLToPath(new URL('index.json', import.meta.url)));
  if (outcome.kind === 'err') throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  process.stdout.write(`${JSON.stringify(outcome.value, null, 2)}\n`);
}
