// `@kindgi/handler-runtime-native/pack-service-main`: the pack service process (`bin` entry
// `kindgi-pack-service`). `main` reads the log settings and the configuration, removes the
// token from the process environment before any pack code loads, boots the service and
// serves until SIGTERM, which drains calls in flight for up to PACK_SERVICE_DRAIN_MS. Its
// records (calls, `ctx.log`, the lifecycle) are written on stderr from Rust. Run as the
// process entry (`node …/pack-service-main.js`), it runs `main` and exits with its code.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { defaultPackServiceLogs, packServiceLogs } from './logs.js';
import { PACK_SERVICE_DRAIN_MS, readPackServiceConfig, startPackService } from './pack-service.js';

export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig, startPackService } from './pack-service.js';

export async function main(argv = process.argv.slice(2), env = process.env) {
  const built = packServiceLogs({ env, isTTY: process.stderr.isTTY === true });
  if (built.kind === 'err') {
    defaultPackServiceLogs().event('config-invalid', built.message, { problems: [built.message] });
    return 1;
  }
  const { logs } = built;
  const config = readPackServiceConfig(argv, env);
  if (config.kind === 'err') {
    logs.event('config-invalid', 'The pack service configuration is invalid', { problems: config.problems });
    return 1;
  }
  // Pack code never sees the token: gone from the real environment before any module loads.
  delete process.env.KINDGI_PACK_SERVICE_TOKEN;
  // SIGTERM is listened for from before the `listening` line can be read, so one that follows
  // the line at once (a supervisor's quick swap) drains rather than meeting the signal's default
  // action. Before the line it is that default action, as without a listener: the process ends
  // by the signal.
  let serving = false;
  let stopRequested;
  const stopping = new Promise((resolveStop) => {
    stopRequested = resolveStop;
  });
  const onSigterm = () => {
    if (serving) {
      stopRequested();
      return;
    }
    process.off('SIGTERM', onSigterm);
    process.kill(process.pid, 'SIGTERM');
  };
  process.on('SIGTERM', onSigterm);
  const started = await startPackService(config.value, {
    log: logs.log,
    event(kind, message, fields) {
      if (kind === 'listening') serving = true;
      logs.event(kind, message, fields);
    },
  });
  if (started.kind === 'err') {
    process.off('SIGTERM', onSigterm);
    logs.event('boot-failed', 'The pack service failed to boot', { problems: started.problems });
    return 1;
  }
  // The listener stays through the drain: a second SIGTERM would otherwise kill the process
  // at once (the signal's default action) and lose the calls in flight. The drain is bounded.
  await stopping;
  logs.event('draining', 'Draining: finishing the calls in flight');
  await started.value.stop(PACK_SERVICE_DRAIN_MS);
  process.off('SIGTERM', onSigterm);
  logs.event('stopped', 'Stopped');
  return 0;
}

/** Whether this module is the process entry: `process.argv[1]`, symlinks resolved, is this file. */
function isProcessEntry() {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === import.meta.url;
  } catch {
    return false;
  }
}

// No top-level await: it would make `require()` of this module, and of every entry that
// imports it (the root, ./pack-service), throw ERR_REQUIRE_ASYNC_MODULE. A rejection is left
// unhandled, as TypeScript's entry leaves it: Node prints it and exits 1.
if (isProcessEntry()) void main().then((code) => process.exit(code));
