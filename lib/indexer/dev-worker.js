// The dev loop's indexer process (`kindgi-pack-dev --pack-dir`): long-lived, so a reindex
// imports only the modules whose files changed (Node keeps the rest, and so does `cache`).
// Pack code runs here, not in the dev loop's own process. One request at a time over IPC:
// `{ id, options }` in, `{ id, outcome, stages }` out.
import { indexPack } from './run.js';

const cache = new Map();

process.on('message', async ({ id, options }) => {
  let reply;
  try {
    const { outcome, stages, files } = await indexPack(options, { cache });
    reply = { id, outcome, stages, files };
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
