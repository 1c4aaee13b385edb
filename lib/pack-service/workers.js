// The worker threads of a pack service with workers (KINDGI_PACK_SERVICE_WORKERS > 1): each
// imports the pack's modules and attaches to the one native service, which hands it calls.
import { Worker } from 'node:worker_threads';
import { packModulePaths } from '../pack-modules.js';

const WORKER_URL = new URL('./worker-thread.js', import.meta.url);

/**
 * Starts `count` worker threads for the native service shared as `shared`. `booted` resolves
 * with the problems of the first thread that failed to load the pack's modules (none: every
 * thread loaded every module). After the boot, a thread that dies (an uncaught exception in
 * pack code, or `process.exit` on that thread) ends the process as an uncaught exception on
 * the main thread does; one that died after its boot and before `serve()` ends it at `serve()`.
 * `stop()` ends them.
 */
export function startWorkerThreads({ count, shared, index, resolveModule, logBindings }) {
  const modules = {};
  for (const modulePath of packModulePaths(index)) {
    if (typeof modulePath === 'string') modules[modulePath] = resolveModule(modulePath);
  }
  const workerData = { shared, index, modules, logBindings };
  let stopping = false;
  let serving = false;
  // A thread that died after booting, before the service listened: the first such death.
  let diedBeforeServing;
  const ended = (cause) => {
    if (stopping) return;
    // As on the main thread: the process dies of it, its stack on stderr, exit 1.
    if (serving) {
      process.nextTick(() => {
        throw cause;
      });
    } else {
      diedBeforeServing ??= cause;
    }
  };
  const workers = [];
  const boots = [];
  for (let i = 0; i < count; i += 1) {
    const worker = new Worker(WORKER_URL, { workerData });
    workers.push(worker);
    boots.push(
      new Promise((resolveBoot) => {
        // Only the thread's own word: pack code may post to the port while its module loads.
        const onBooted = (message) => {
          if (message?.kind !== 'booted' || !Array.isArray(message.problems)) return;
          worker.off('message', onBooted);
          resolveBoot(message.problems);
        };
        worker.on('message', onBooted);
        worker.once('error', (cause) => {
          if (!serving) resolveBoot([`A worker thread failed to boot: ${cause?.stack ?? cause}`]);
        });
        worker.once('exit', (code) => resolveBoot([`A worker thread exited with code ${code} while booting`]));
      }),
    );
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`A pack service worker thread exited with code ${code}: pack code ended it`)));
  }
  const booted = Promise.all(boots).then((all) => all.find((problems) => problems.length > 0) ?? []);
  return {
    booted,
    /** From the `listening` line on, a thread that dies ends the process. */
    serve() {
      serving = true;
      if (diedBeforeServing !== undefined) ended(diedBeforeServing);
      // Like the listener, the threads do not hold the process by themselves.
      for (const worker of workers) worker.unref();
    },
    async stop() {
      stopping = true;
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
