// The dev loop's side of its indexer process: `index()` asks it for a run; `renew()` replaces
// it with a fresh one (a changed file that is not a primitive's own module may be imported by
// one, and only a fresh process imports it anew).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./dev-worker.js', import.meta.url));

export function createDevIndexer({ env = process.env } = {}) {
  let child;
  let nextId = 0;
  const pending = new Map();
  const spawnChild = () => {
    const worker = fork(WORKER, [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    worker.on('message', (reply) => {
      pending.get(reply.id)?.resolve(reply);
      pending.delete(reply.id);
    });
    worker.on('exit', (code, signal) => {
      if (child === worker) child = undefined;
      for (const [id, waiter] of pending) {
        if (waiter.worker !== worker) continue;
        pending.delete(id);
        waiter.resolve({ id, thrown: { name: 'Error', message: `The indexer process exited (${signal ?? code})` } });
      }
    });
    return worker;
  };
  return {
    /** One run of `runIndexer(options)` in the indexer process: `{ outcome, stages }` or `{ thrown }`. */
    index(options) {
      child ??= spawnChild();
      const id = nextId++;
      const worker = child;
      return new Promise((resolve) => {
        pending.set(id, { resolve, worker });
        worker.send({ id, options });
      });
    },
    renew() {
      const old = child;
      child = spawnChild();
      old?.disconnect();
    },
    close() {
      const old = child;
      child = undefined;
      if (old?.connected) old.disconnect();
    },
  };
}
