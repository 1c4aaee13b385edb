// Writes this pack's index.json from its modules, with the package's index writer: each
// tool's and guardrail's definition as data, and where its code lives. `node
// examples/pack/build-index.mjs` rewrites the committed file; the build is pinned (artifact
// version and time), so the same modules always give the same bytes.
import { fileURLToPath } from 'node:url';
import { writeIndex } from '../../lib/kindgi-index.js';

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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = await writeIndex(await exampleIndex(), fileURLToPath(new URL('index.json', import.meta.url)), BUILD);
  process.stdout.write(`${written.outputPath}: ${written.bytes} bytes, ${written.indexHash}\n`);
}
