// A worker thread of a pack service with workers (KINDGI_PACK_SERVICE_WORKERS > 1): it imports
// the pack's modules as the main thread did and runs the calls Rust hands it (see
// docs/design.md, *Worker threads*). Started by `startWorkerThreads` (./workers.js).
import { parentPort, workerData } from 'node:worker_threads';
import { describeMessage } from '../handler-runner.js';
import { workerThreadPackLog } from '../log-records.js';
import { native } from '../native.js';
import { attachPackServiceThread } from './service.js';

const { shared, index, modules, logBindings } = workerData;

/** Each module path of the index where the main thread resolved it (its bundle map applied). */
function resolveModule(modulePath) {
  return modules[modulePath];
}

/**
 * This thread's part of the service, held for the thread's life: it holds the callbacks Rust
 * reaches only weakly (see weak-callbacks.js), and a part collected would drop every call.
 */
let attached;

async function boot() {
  const logs = native.sharedPackServiceLogs(shared);
  const log = logs === null || logs === undefined ? undefined : workerThreadPackLog(logs).child(logBindings);
  attached = attachPackServiceThread({ index, resolveModule, token: '', envCheck: 'warn', ...(log !== undefined && { log }) }, shared);
  const failures = await attached.prewarm();
  return failures.map((f) => f.message);
}

boot().then(
  (problems) => parentPort.postMessage({ kind: 'booted', problems }),
  (cause) => parentPort.postMessage({ kind: 'booted', problems: [describeMessage(cause)] }),
);
// The port's listener keeps this thread alive: it serves until the main thread ends it.
parentPort.on('message', () => undefined);
