// The dev loop's indexer process (`kindgi-pack-dev --pack-dir`): long-lived, so a reindex
// imports only the modules whose files changed (Node keeps the rest, and so does `cache`).
// Pack code runs here, not in the dev loop's own process. One request at a time over IPC:
// `{ id, options }` in, `{ id, outcome, stages, files, schemaErrors }` out.
import { readFile } from 'node:fs/promises';
import { compileSchema } from '../validate.js';
import { indexPack } from './run.js';

const cache = new Map();

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
        errors.push({ filePath: tool.modulePath, field: side, message: `${tool.modulePath}: tool ${tool.id}'s ${side} schema doesn't compile: ${error.message}` });
      }
    }
  }
  return errors;
}

process.on('message', async ({ id, options }) => {
  let reply;
  try {
    const { outcome, stages, files } = await indexPack(options, { cache });
    reply = { id, outcome, stages, files, schemaErrors: outcome.kind === 'ok' ? await schemaErrors(outcome.value.outputPath) : [] };
  } catch (error) {
    // A pattern JavaScript cannot compile, say: the loop reports it as it reports the others.
    reply = { id, thrown: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } };
  }
  process.send(reply, (sendError) => {
    // An outcome that cannot be cloned (a cause holding a function): its JSON form instead.
    if (sendError) process.send(JSON.parse(JSON.stringify(reply)));
  });
});
process.on('disconnect', () => process.exit(0));
