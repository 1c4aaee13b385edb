// The dev loop's indexer process (`kindgi-pack-dev --pack-dir`): long-lived, so a reindex
// imports only the modules whose files changed (Node keeps the rest, and so does `cache`).
// Pack code runs here, not in the dev loop's own process. One request at a time over IPC:
// `{ id, kind: 'config' | 'index', options }` in, `{ id, … }` out.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { compileSchema } from '../validate.js';
import { loadKindgiConfig } from './config.js';
import { watchPackImports } from './dev-imports.js';
import { indexPack } from './run.js';

const cache = new Map();
// Every file a pack module has imported, by path: what a change to needs a fresh process.
const importedByPack = new Set();
const imports = watchPackImports((url) => importedByPack.add(fileURLToPath(url.replace(/[?#].*$/, ''))));

/**
 * The written index's tool schemas that do not compile. The indexer carries them as declared
 * and a pack service refuses them only when a call comes; the dev loop refuses them before
 * swapping, as it refuses a module that does not import.
 */
async function schemaErrors(outputPath) {
  const index = JSON.parse(await readFile(outputPath, 'utf8'));
  const errors = [];
  for (const tool of index.tools) {
    for (const side of ['input', 'output']) {
      try {
        compileSchema(tool[side], side);
      } catch (error) {
        errors.push({
          filePath: tool.modulePath,
          field: side,
          message: `${tool.modulePath}: tool ${tool.id}'s ${side} schema doesn't compile: ${error.message}`,
        });
      }
    }
  }
  return errors;
}

async function answer({ kind, options }) {
  if (kind === 'config') {
    const loaded = await loadKindgiConfig(options.packDir);
    return loaded.kind === 'err' ? { error: loaded.error } : { discovery: loaded.value.discovery ?? null };
  }
  const { outcome, stages, files } = await indexPack(options, { cache });
  await imports.reported();
  return {
    outcome,
    stages,
    files,
    importedByPack: [...importedByPack],
    schemaErrors: outcome.kind === 'ok' ? await schemaErrors(outcome.value.outputPath) : [],
  };
}

/** A reply that structured cloning refuses (a BigInt or a cycle in a cause), made sendable. */
function sendable(reply) {
  const seen = new WeakSet();
  return JSON.parse(
    JSON.stringify(reply, (_key, value) => {
      if (typeof value === 'bigint') return `${value}n`;
      if (value !== null && typeof value === 'object') {
        if (seen.has(value)) return '[Circular]';
        seen.add(value);
      }
      return value;
    }),
  );
}

process.on('message', async (request) => {
  let reply;
  try {
    reply = { id: request.id, ...(await answer(request)) };
  } catch (error) {
    // A pattern JavaScript cannot compile, say: the loop reports it as it reports the others.
    reply = { id: request.id, thrown: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } };
  }
  try {
    process.send(reply);
  } catch {
    process.send(sendable(reply));
  }
});
process.on('disconnect', () => process.exit(0));
