// The pack service (`@kindgi/handler-runtime-native/pack-service`). So far: its process
// configuration. The rules and messages live in Rust (src/service/config.rs); paths resolve
// here, with Node's own `path` rules.
import { dirname, resolve } from 'node:path';
import { describe, invalidArgument } from './errors.js';
import { native } from './native.js';

/** How long SIGTERM lets in-flight calls finish, in ms. */
export const PACK_SERVICE_DRAIN_MS = 8000;

const text = (value) => (typeof value === 'string' ? value : undefined);

export function readPackServiceConfig(argv, env) {
  if (!Array.isArray(argv) || argv.some((a) => typeof a !== 'string')) {
    throw invalidArgument(`argv must be a list of strings, not ${describe(argv)}`);
  }
  if (env === null || typeof env !== 'object') {
    throw invalidArgument(`env must be an object of variables, not ${describe(env)}`);
  }
  const read = native.readPackServiceSettings(argv, {
    token: text(env.KINDGI_PACK_SERVICE_TOKEN),
    port: text(env.PORT),
    maxConcurrency: text(env.KINDGI_PACK_SERVICE_MAX_CONCURRENCY),
    envCheck: text(env.KINDGI_PACK_ENV_CHECK),
    envFilter: text(env.KINDGI_PACK_ENV_FILTER),
  });
  const indexPath = resolve(read.indexArg ?? text(env.KINDGI_PACK_INDEX) ?? '/app/index.json');
  const moduleRoot = resolve(read.moduleRootArg ?? dirname(indexPath));
  if (read.problems !== undefined) return { kind: 'err', problems: read.problems };
  return {
    kind: 'ok',
    value: {
      indexPath,
      moduleRoot,
      ...(read.bundleMap !== undefined && { bundleMapPath: resolve(read.bundleMap) }),
      token: read.token,
      port: read.port,
      ...(read.host !== undefined && { host: read.host }),
      ...(read.maxConcurrency !== undefined && { maxConcurrency: read.maxConcurrency }),
      envCheck: read.envCheck,
      envFilter: read.envFilter,
    },
  };
}
