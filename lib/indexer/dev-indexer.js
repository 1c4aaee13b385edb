// The dev loop's side of its indexer process: `config()` and `index()` ask it for a run;
// `renew()` replaces it with a fresh one (after a change to a file pack modules import: Node
// imports a module once per process) and ends any run still waiting on the old one.
import { fork } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./dev-worker.js', import.meta.url));
/** How long a replaced or closed indexer process has to exit before it is killed. */
const EXIT_GRACE_MS = 1000;

/**
 * `env`: the indexer process's environment (pack code reads it at import). `onOutput(line,
 * stream)`: each line pack code writes.
 */
export function createDevIndexer({ env = process.env, onOutput = () => {} } = {}) {
  let child;
  let nextId = 0;
  const pending = new Map();
  const stopped = (worker, message) => {
    for (const [id, waiter] of pending) {
      if (waiter.worker !== worker) continue;
      pending.delete(id);
      waiter.resolve({ id, thrown: { name: 'Error', message } });
    }
  };
  const spawnChild = () => {
    const worker = fork(WORKER, [], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    for (const stream of ['stdout', 'stderr']) {
      createInterface({ input: worker[stream], crlfDelay: Infinity }).on('line', (line) => onOutput(line, stream));
    }
    worker.on('message', (reply) => {
      pending.get(reply.id)?.resolve(reply);
      pending.delete(reply.id);
    });
    worker.on('error', (error) => stopped(worker, `The indexer process failed: ${error.message}`));
    worker.on('exit', (code, signal) => {
      if (child === worker) child = undefined;
      stopped(worker, `The indexer process exited (${signal ?? code})`);
    });
    return worker;
  };
  const retire = (worker) => {
    if (worker === undefined) return;
    stopped(worker, 'The indexer process was replaced');
    if (worker.exitCode !== null || worker.signalCode !== null) return;
    // A busy process never reads the disconnect: SIGTERM, then SIGKILL.
    worker.kill('SIGTERM');
    setTimeout(() => worker.exitCode === null && worker.signalCode === null && worker.kill('SIGKILL'), EXIT_GRACE_MS).unref();
  };
  const ask = (kind, options) => {
    child ??= spawnChild();
    const id = nextId++;
    const worker = child;
    return new Promise((resolve) => {
      pending.set(id, { resolve, worker });
      worker.send({ id, kind, options }, (error) => {
        if (error) stopped(worker, `The indexer process cannot be asked: ${error.message}`);
      });
    });
  };
  return {
    /** The pack's config, loaded and checked: `{ error }` or `{ discovery }` (or `{ thrown }`). */
    config: (packDir) => ask('config', { packDir }),
    /** One run of `runIndexer(options)`: `{ outcome, stages, files, importedByPack, schemaErrors }` or `{ thrown }`. */
    index: (options) => ask('index', options),
    /** Whether a run is waiting on the indexer process. */
    busy: () => pending.size > 0,
    renew() {
      const old = child;
      child = spawnChild();
      retire(old);
    },
    close() {
      const old = child;
      child = undefined;
      retire(old);
    },
  };
}
