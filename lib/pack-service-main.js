// `@kindgi/handler-runtime-native/pack-service-main`: the pack service process (`bin` entry
// `kindgi-pack-service`). `main` reads the log settings and the configuration, removes the
// token from the process environment before any pack code loads, boots the service and
// serves until SIGTERM, which drains calls in flight for up to PACK_SERVICE_DRAIN_MS. Its
// records (calls, `ctx.log`, the lifecycle) are written on stderr from Rust. Run as the
// process entry (`node …/pack-service-main.js`), it runs `main` and exits with its code.
// A supervisor's spare (its `spare` option) holds first: see `holdUntilReleased`.
import { realpathSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { defaultPackServiceLogs, nativeLoggerParts, packServiceLogs } from './log-records.js';
import { native } from './native.js';
import { loadPackIndex, versionedImport } from './pack-modules.js';
import { startPackService } from './pack-service/boot.js';
import { PACK_SERVICE_DRAIN_MS, readPackServiceConfig } from './pack-service/config.js';
import { createPackService, nativeServiceOf } from './pack-service/service.js';

export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig } from './pack-service/config.js';
export { startPackService } from './pack-service/boot.js';

/** What `auto` workers are on this machine, as the service reads it. */
const autoWorkers = () => native.packServiceWorkers('auto', availableParallelism()).workers;

/** What `--help` prints: the arguments, every variable the process reads, the exit codes. */
const usage = (defaults = native.serviceDefaults()) => `kindgi-pack-service: serves a pack's tools and checks over HTTP (pack protocol v2)

Usage:
  kindgi-pack-service [--index <path>] [--module-root <dir>] [--bundle-map <path>]
                      [--host <address>]
  kindgi-pack-service --help | -h

Arguments (the first occurrence of each counts; other arguments are ignored):
  --index <path>        The pack's index.json (default: KINDGI_PACK_INDEX, else
                        /app/index.json).
  --module-root <dir>   Where the index's module paths resolve (default: the index's
                        folder).
  --bundle-map <path>   A build's JSON map of each module path to its bundle (relative
                        to the module root): modules load from the bundles.
  --host <address>      The address to listen on (default: every interface;
                        127.0.0.1 keeps it to this machine).
  --help, -h            Print this help on stdout and exit 0.

Environment:
  KINDGI_PACK_SERVICE_TOKEN  Required. The token callers send in the kindgi-pack-token
                        header: printable ASCII without spaces (trimmed). Removed from
                        the environment before any pack code loads.
  PORT                  The port to listen on (default 8080; 0 takes a free one, which
                        the listening line reports).
  KINDGI_PACK_INDEX     The index when --index is not given.
  KINDGI_PACK_SERVICE_MAX_CONCURRENCY  How many calls may run at once (a positive
                        integer; default 32); past it a call is answered 503 overloaded.
  KINDGI_PACK_SERVICE_STALL_MS  How long pack code may hold the JS thread before
                        /healthz answers 503, so that a liveness probe restarts the
                        process (milliseconds; default ${defaults.stallMs};
                        0: never). /readyz and new calls answer 503 once it has been
                        held for a second, and 200 again when it lets go.
  KINDGI_PACK_SERVICE_WORKERS  How many JS threads run pack code: 1 (default), a
                        whole number up to ${defaults.maxWorkers} (the main thread and N-1 worker
                        threads, each loading every module: module state is per
                        thread), or auto (one per usable core, less a quarter for
                        HTTP: ${autoWorkers()} here). A thread that dies of an uncaught
                        exception ends the process.
  KINDGI_PACK_ENV_CHECK  strict (default): /readyz answers 503 while a variable the
                        pack requires is unset; warn: a warning record only.
  KINDGI_PACK_ENV_FILTER  on (default): the variables the pack does not declare are
                        removed before its code loads (KINDGI_* and the platform's
                        names stay); off: the pack sees the whole environment.
  KINDGI_PACK_TENANT_ID  Serve one tenant only: a call whose kindgi-tenant-id differs
                        is answered 421 (unset or blank: any tenant).
  KINDGI_LOG_LEVEL      error, warn, info (default), debug or trace: the least level
                        of the call and ctx.log records written.
  KINDGI_LOG_LEVELS     Levels by subsystem, e.g. pack=warn,pack.tool=debug.
  KINDGI_LOG_FORMAT     auto (default: pretty on a terminal, JSON lines otherwise),
                        json or pretty.
  NO_COLOR              Set: pretty records without colour.
  KINDGI_PACK_SERVICE_HOLD  Set by a supervisor with spare: true (kindgi-pack-dev
                        --pack-dir): boot what can be booted without listening, then
                        wait for a line on stdin to serve (stdin closed: exit 0).
  TOKIO_WORKER_THREADS  HTTP worker threads (default: one per core but one, at
                        least one).
  MIMALLOC_PURGE_DELAY  0: freed memory goes back to the system at once.
  MALLOC_ARENA_MAX, GLIBC_TUNABLES  glibc's malloc arenas (arena_max): as either says
                        when set; otherwise at most 2, for less address space.
  NAPI_RS_NATIVE_LIBRARY_PATH, NAPI_RS_ENFORCE_VERSION_CHECK, NAPI_RS_FORCE_WASI,
  NAPI_RS_WASI_FLAVOR   The napi-rs loader's: the first loads the native addon from
                        that file instead of the platform package; the WASI ones
                        find nothing, as no WASI build is published.
  The variables the pack declares (env.required, env.optional) are passed on to its
  code.

Output:
  Records on stderr, one per line: the lifecycle (listening, with the bound port;
  draining; stopped; config-invalid; boot-failed) and one record per call answered.

Exit codes:
  0  SIGTERM: the calls in flight drained (up to ${PACK_SERVICE_DRAIN_MS / 1000} s), then
     stopped, even when pack code never lets go of the JS thread; or --help.
  1  The configuration is invalid (a config-invalid line lists every problem) or
     the boot failed (a boot-failed line: the index, the bundle map, a missing
     module, a module that fails to load, the port).
  A SIGTERM before the listening line ends the process by the signal (status 143
  in a shell).`;

const noop = () => undefined;

/** The flags whose next argument is their value, never read as a flag of its own. */
const VALUED_FLAGS = new Set(['--index', '--module-root', '--bundle-map', '--host']);

/** Whether `argv`, read left to right, asks for the help (`--help` or `-h` outside a value). */
function asksForHelp(argv) {
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--help' || argv[i] === '-h') return true;
    if (VALUED_FLAGS.has(argv[i])) i += 1;
  }
  return false;
}

export async function main(argv = process.argv.slice(2), env = process.env) {
  // Before anything is read: the help needs neither a token nor valid log settings. The
  // TypeScript process has no help (docs/known-differences.md, Commands).
  if (Array.isArray(argv) && asksForHelp(argv)) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  let importModule;
  const hold = env[native.PACK_SERVICE_HOLD_VAR];
  if (hold !== undefined && hold !== '') {
    env = await holdUntilReleased(argv, env);
    // Never released: the supervisor let it go.
    if (env === undefined) return 0;
    // What the hold imported is used again unless its file changed since.
    importModule = versionedImport;
  }
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
  // SIGTERM is Rust's (src/service/termination.rs), heard on a thread of its own so that pack
  // code holding this thread cannot keep the process from ending: before the service listens
  // it ends the process as the signal does; from just before the `listening` line it drains
  // for up to PACK_SERVICE_DRAIN_MS, writes `draining` and `stopped`, and the process exits 0.
  // This listener comes first so that Rust's handler is chained after Node's, and Node's is
  // not put back over it when pack code listens too; it has nothing left to do.
  process.on('SIGTERM', noop);
  const termination = native.watchTermination(nativeLoggerParts(logs.log).logs, PACK_SERVICE_DRAIN_MS);
  const started = await startPackService(config.value, logs, {
    ...(importModule !== undefined && { importModule }),
    serving: (service) => termination.serve(nativeServiceOf(service)),
  });
  if (started.kind === 'err') {
    process.off('SIGTERM', noop);
    logs.event('boot-failed', 'The pack service failed to boot', { problems: started.problems });
    return 1;
  }
  await termination.stopped();
  // Drained and closed already: this lets go of the callbacks and timers that hold the process.
  await started.value.stop(0);
  process.off('SIGTERM', noop);
  return 0;
}

/**
 * A spare, held until its supervisor releases it with a line on stdin. The token and the hold
 * variable leave the process environment first (pack code sees neither, as in a child spawned
 * at the start); meanwhile the service is booted ahead as far as it gets. Resolves with the
 * environment as it was given, less the hold, to boot with; `undefined` when stdin closes
 * first.
 */
async function holdUntilReleased(argv, env) {
  const own = { ...env };
  delete own[native.PACK_SERVICE_HOLD_VAR];
  delete process.env[native.PACK_SERVICE_HOLD_VAR];
  delete process.env.KINDGI_PACK_SERVICE_TOKEN;
  const released = lineOnStdin();
  // Not waited for: a module whose import never settles must not hold the boot, and what is
  // still loading is shared with the boot, which imports the same URLs.
  loadAhead(argv, own).catch(() => {
    // Whatever fails here is met again, and reported, once released.
  });
  return (await released) ? own : undefined;
}

/**
 * Boots what it can of the service on the index as it is now, without listening: its modules
 * imported as the released service imports them, its schemas compiled (the released
 * service's catalog reuses those an edit left alone) and its dispatcher run once.
 */
async function loadAhead(argv, env) {
  const config = readPackServiceConfig(argv, env);
  // The env filter drops variables before pack code loads, by the index it boots with.
  if (config.kind === 'err' || config.value.envFilter === 'on') return;
  const loaded = await loadPackIndex(config.value);
  if (loaded.kind === 'err') return;
  const { index, resolveModule } = loaded.value;
  const service = createPackService({ index, resolveModule, token: config.value.token, envCheck: 'warn', importModule: versionedImport });
  try {
    await service.prewarm();
  } finally {
    await service.stop(0);
  }
}

/** Whether a line comes on stdin before it closes; stdin is let go either way. */
function lineOnStdin() {
  const stdin = process.stdin;
  return new Promise((resolveLine) => {
    const done = (line) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onEnd);
      stdin.destroy();
      resolveLine(line);
    };
    const onData = (chunk) => {
      if (chunk.includes('\n')) done(true);
    };
    const onEnd = () => done(false);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onEnd);
  });
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
