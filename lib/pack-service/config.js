// The pack service process's configuration (`readPackServiceConfig`). The rules and messages
// live in Rust (src/service/config.rs); paths resolve here, with Node's own `path` rules.
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { describe, invalidArgument } from '../errors.js';
import { native } from '../native.js';

/** How long SIGTERM lets in-flight calls finish, in ms. */
export const PACK_SERVICE_DRAIN_MS = 8000;

const text = (value) => (typeof value === 'string' ? value : undefined);

const TENANT_VAR = 'KINDGI_PACK_TENANT_ID';

/**
 * A pinned tenant as native reads it (src/service/config.rs): trimmed, blank is unset, and one
 * no header can carry is refused. `{ tenant }` (undefined when unset), or `{ problem }` naming
 * `name`.
 */
export function pinnedTenant(raw, name) {
  const { tenant, refusal } = native.pinnedTenant(raw);
  return refusal === undefined ? { tenant } : { problem: `${name} ${refusal}` };
}

/** A variable that must be a string when set (`undefined` and `null` are unset). */
function stringVariable(env, name) {
  const value = env[name];
  if (value === undefined || value === null || typeof value === 'string') return value ?? undefined;
  throw invalidArgument(`env.${name} must be a string, not ${describe(value)}`);
}

/**
 * A number variable as TypeScript reads it, `Number(value)`: a string goes to Rust as it is
 * (its `Number()` rules are Rust's), anything else as the text of its number.
 */
function numberVariable(value, name) {
  if (typeof value === 'string') return value;
  try {
    return String(Number(value));
  } catch {
    // A Symbol, or a valueOf that throws: TypeScript's Number() throws too.
    throw invalidArgument(`env.${name} cannot be read as a number, not ${describe(value)}`);
  }
}

/** How PORT's problem prints a value that is not a string, as TypeScript's JSON.stringify does. */
function portShown(value) {
  try {
    return String(JSON.stringify(value));
  } catch {
    return String(value); // A BigInt or a cycle, which TypeScript's JSON.stringify throws on.
  }
}

/**
 * How a setting's problem prints a value that is not a string, as TypeScript's template does;
 * Rust refuses any such value (TypeScript compares with `===`).
 */
function settingShown(value, name) {
  if (value === undefined || typeof value === 'string') return undefined;
  try {
    return `${value}`;
  } catch {
    throw invalidArgument(`env.${name} cannot be read as text, not ${describe(value)}`);
  }
}

export function readPackServiceConfig(argv, env) {
  if (!Array.isArray(argv) || argv.some((a) => typeof a !== 'string')) {
    throw invalidArgument(`argv must be a list of strings, not ${describe(argv)}`);
  }
  if (env === null || typeof env !== 'object') {
    throw invalidArgument(`env must be an object of variables, not ${describe(env)}`);
  }
  // Each variable as TypeScript's readPackServiceConfig reads it: `??` for PORT and the index
  // (null is unset), `=== undefined` for the concurrency (null is Number(null), 0). The index
  // comes first: `--index` as TypeScript's `arg` reads it (`argv.indexOf` and the element after
  // it), else the variable.
  const indexAt = argv.indexOf('--index');
  const indexPath = resolve((indexAt >= 0 ? argv[indexAt + 1] : undefined) ?? stringVariable(env, 'KINDGI_PACK_INDEX') ?? '/app/index.json');
  const port = env.PORT ?? undefined;
  const concurrency = env.KINDGI_PACK_SERVICE_MAX_CONCURRENCY;
  const stallMs = env.KINDGI_PACK_SERVICE_STALL_MS;
  const workers = env[native.PACK_SERVICE_WORKERS_VAR];
  const read = native.readPackServiceSettings(argv, {
    token: stringVariable(env, 'KINDGI_PACK_SERVICE_TOKEN'),
    port: port === undefined ? undefined : numberVariable(port, 'PORT'),
    portShown: port === undefined || typeof port === 'string' ? undefined : portShown(port),
    maxConcurrency: concurrency === undefined ? undefined : numberVariable(concurrency, 'KINDGI_PACK_SERVICE_MAX_CONCURRENCY'),
    stallMs: stallMs === undefined ? undefined : numberVariable(stallMs, 'KINDGI_PACK_SERVICE_STALL_MS'),
    envCheck: text(env.KINDGI_PACK_ENV_CHECK),
    envCheckShown: settingShown(env.KINDGI_PACK_ENV_CHECK, 'KINDGI_PACK_ENV_CHECK'),
    envFilter: text(env.KINDGI_PACK_ENV_FILTER),
    envFilterShown: settingShown(env.KINDGI_PACK_ENV_FILTER, 'KINDGI_PACK_ENV_FILTER'),
    workers: workers === undefined || workers === null ? undefined : numberVariable(workers, native.PACK_SERVICE_WORKERS_VAR),
    // The cores this process may use (its affinity and, on newer Node, its cgroup's quota).
    cores: availableParallelism(),
  });
  const moduleRoot = resolve(read.moduleRootArg ?? dirname(indexPath));
  const rawTenant = stringVariable(env, TENANT_VAR);
  const pinned = rawTenant === undefined ? {} : pinnedTenant(rawTenant, TENANT_VAR);
  const tenantId = pinned.tenant;
  let problems = read.problems ?? [];
  // After TypeScript's problems: it has no tenant pinning (protocol 2.7.0).
  if (pinned.problem !== undefined) problems = [...problems, pinned.problem];
  if (problems.length > 0) return { kind: 'err', problems };
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
      ...(read.stallMs !== undefined && { stallMs: read.stallMs }),
      envCheck: read.envCheck,
      envFilter: read.envFilter,
      ...(workers !== undefined && workers !== null && { workers: read.workers }),
      ...(tenantId !== undefined && { tenantId }),
    },
  };
}
