// startPackService: the process's boot sequence, every problem collected.
import { accessSync } from 'node:fs';
import { describe, invalidArgument } from '../errors.js';
import { describeMessage as describeCause } from '../handler-runner.js';
import { indexHash } from '../kindgi-index.js';
import { defaultPackServiceLogs } from '../log-records.js';
import { undeclaredPackEnv } from '../pack-env.js';
import { loadPackIndex, packModulePaths } from '../pack-modules.js';
import { PACK_SERVICE_DRAIN_MS } from './config.js';
import { createPackService, workerCount } from './service.js';

/**
 * `config.port` as Node's `server.listen(port)` takes it, which TypeScript's startPackService
 * hands it to: absent or null is any free port; a number, or a numeric string, from 0 to 65535
 * is that port. Node refuses anything else (`ERR_SOCKET_BAD_PORT`), but for a string that is
 * not a number from 0 up, which it takes as a pipe's path: the Rust server listens on TCP only.
 */
function listenPort(port) {
  if (port === undefined || port === null) return 0;
  if (typeof port !== 'number' && typeof port !== 'string') {
    throw invalidArgument(`config.port must be a port number from 0 to 65535 (a number or a numeric string), not ${describe(port)}`);
  }
  const shown = typeof port === 'string' ? JSON.stringify(port) : String(port);
  const number = Number(port);
  if (typeof port === 'string' && !(number >= 0)) {
    throw invalidArgument(`config.port ${shown} is a pipe's path to Node's server.listen; the pack service listens on TCP ports only`);
  }
  if ((typeof port === 'string' && port.trim() === '') || !Number.isInteger(number) || number < 0 || number > 65535) {
    throw invalidArgument(`config.port must be a port number from 0 to 65535 (a number or a numeric string), not ${shown}`);
  }
  return number | 0;
}

export async function startPackService(config, logs = defaultPackServiceLogs(), options = {}) {
  if (config === null || typeof config !== 'object') {
    throw invalidArgument(`config must be a PackServiceConfig, not ${describe(config)}`);
  }
  // Refused before anything boots (TypeScript's server.listen throws once the modules are
  // loaded and the env filter has run).
  const port = listenPort(config.port);
  workerCount(config.workers, 'config.workers');
  // A function gets the service's events, as before records; `{log, event}` gets records.
  const legacy = typeof logs === 'function' ? logs : undefined;
  const records = legacy === undefined && logs !== null && typeof logs === 'object' ? logs : undefined;
  const failed = (problems) => ({ kind: 'err', problems });

  const loaded = await loadPackIndex(config);
  if (loaded.kind === 'err') return loaded;
  const { bytes, index, resolveModule } = loaded.value;

  // Synchronously: nothing else runs yet, and awaiting each file in turn was a large pack's
  // longest wait but its imports.
  const missing = [];
  for (const modulePath of packModulePaths(index)) {
    // An entry without a string path is the catalog's to report, in clearer words
    // ("The pack index's tools[0] has no string `modulePath`") than "Missing module: undefined".
    if (typeof modulePath !== 'string') continue;
    try {
      accessSync(resolveModule(modulePath));
    } catch {
      missing.push(`Missing module: ${modulePath}`);
    }
  }
  if (missing.length > 0) return failed(missing);

  // Before any pack module loads: pack code never sees what it did not declare.
  if (config.envFilter === 'on') {
    const names = [...undeclaredPackEnv(index.env, process.env)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) delete process.env[name];
    if (names.length > 0) {
      legacy?.({ kind: 'env-dropped', names });
      const what = names.length === 1 ? 'a variable' : `${names.length} variables`;
      records?.log.warn(
        `Dropped ${what} the pack doesn't declare: ${names.join(', ')} (declare them in the pack's env, or set KINDGI_PACK_ENV_FILTER=off)`,
        { event: 'env-dropped', kind: 'env-dropped', names },
      );
    }
  }

  let service;
  try {
    service = createPackService({
      index,
      resolveModule,
      token: config.token,
      ...(config.maxConcurrency !== undefined && { maxConcurrency: config.maxConcurrency }),
      ...(config.stallMs !== undefined && { stallMs: config.stallMs }),
      ...(config.envCheck !== undefined && { envCheck: config.envCheck }),
      ...(config.tenantId !== undefined && { tenantId: config.tenantId }),
      indexHash: indexHash(bytes),
      ...(options?.importModule !== undefined && { importModule: options.importModule }),
      ...(legacy !== undefined && { logger: legacy }),
      ...(records !== undefined && {
        log: records.log.child({ packId: index.packId, artifactVersion: index.artifactVersion }),
      }),
    });
  } catch (cause) {
    return failed(describeCause(cause).split('\n'));
  }
  const failures = await service.prewarm();
  if (failures.length > 0) {
    await service.stop(0);
    return failed(failures.map((f) => f.message));
  }
  let bound;
  try {
    bound = await service.listen(port, config.host, { workers: config.workers });
  } catch (cause) {
    await service.stop(0);
    // A module that failed on a worker thread: that thread's problems.
    return failed(Array.isArray(cause?.problems) ? cause.problems : [describeCause(cause)]);
  }
  // The process's SIGTERM drains the service from here, before the line a supervisor waits for.
  options?.serving?.(service);
  const listening = { port: bound, packId: index.packId, artifactVersion: index.artifactVersion };
  legacy?.({ kind: 'listening', ...listening });
  records?.event('listening', `Listening on port ${bound}`, listening);
  return {
    kind: 'ok',
    value: { service, port: bound, stop: (graceMs = PACK_SERVICE_DRAIN_MS) => service.stop(graceMs) },
  };
}
