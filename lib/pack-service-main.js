// `@kindgi/handler-runtime-native/pack-service-main`: the pack service process (`bin` entry
// `kindgi-pack-service`). `main` reads the configuration, removes the token from the process
// environment before any pack code loads, boots the service and serves until SIGTERM, which
// drains calls in flight for up to PACK_SERVICE_DRAIN_MS.
import { PACK_SERVICE_DRAIN_MS, readPackServiceConfig, startPackService } from './pack-service.js';

export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig, startPackService } from './pack-service.js';

const SEVERITY = { error: 'ERROR', warn: 'WARNING', info: 'INFO', debug: 'DEBUG', trace: 'DEBUG' };

/** One `@kindgi/log` record line on stderr (subsystem `pack`). */
function writeRecord(level, message, fields) {
  const record = { time: new Date().toISOString(), level, severity: SEVERITY[level], subsystem: 'pack', message, ...fields };
  process.stderr.write(`${JSON.stringify(record)}\n`);
}

/** A lifecycle line: written whatever the levels, `kind` after the given fields. */
function lifecycle(kind, level, message, fields = {}) {
  writeRecord(level, message, { ...fields, event: kind, kind });
}

/** What the service reports while it boots and serves, as records. */
function serviceEvent(event) {
  switch (event.kind) {
    case 'listening':
      lifecycle('listening', 'info', `Listening on port ${event.port}`, {
        port: event.port,
        packId: event.packId,
        artifactVersion: event.artifactVersion,
      });
      break;
    case 'env-dropped': {
      const { names } = event;
      const what = names.length === 1 ? 'a variable' : `${names.length} variables`;
      writeRecord(
        'warn',
        `Dropped ${what} the pack doesn't declare: ${names.join(', ')} (declare them in the pack's env, or set KINDGI_PACK_ENV_FILTER=off)`,
        { event: 'env-dropped', kind: 'env-dropped', names },
      );
      break;
    }
    case 'missing-env':
      writeRecord(
        'warn',
        `The pack's env.required ${event.names.length === 1 ? 'name has' : 'names have'} no value: ${event.names.join(', ')}`,
        { event: 'missing-env', kind: 'missing-env', check: event.check, names: event.names },
      );
      break;
    default:
      break;
  }
}

export async function main(argv = process.argv.slice(2), env = process.env) {
  const config = readPackServiceConfig(argv, env);
  if (config.kind === 'err') {
    lifecycle('config-invalid', 'error', 'The pack service configuration is invalid', { problems: config.problems });
    return 1;
  }
  // Pack code never sees the token: gone from the real environment before any module loads.
  delete process.env.KINDGI_PACK_SERVICE_TOKEN;
  const started = await startPackService(config.value, serviceEvent);
  if (started.kind === 'err') {
    lifecycle('boot-failed', 'error', 'The pack service failed to boot', { problems: started.problems });
    return 1;
  }
  await new Promise((resolveSignal) => process.once('SIGTERM', resolveSignal));
  lifecycle('draining', 'info', 'Draining: finishing the calls in flight');
  await started.value.stop(PACK_SERVICE_DRAIN_MS);
  lifecycle('stopped', 'info', 'Stopped');
  return 0;
}
