// `kindgi-pack-dev`: a development loop on the supervisor, as `kindgi dev` runs it. One front
// on a fixed address and token; the pack service as a child behind it, swapped whenever a file
// under the module root (or the index) changes; Ctrl-C or SIGTERM closes it, child included.
import { readdirSync, realpathSync, statSync, watch } from 'node:fs';
import { copyFile, rename, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createDevIndexer } from './indexer/dev-indexer.js';
import { findKindgiConfig, resolveDiscovery } from './indexer/config.js';
import { discoveryRoots } from './indexer/discovery.js';
import { PACK_ENV_FILTER_VAR } from './pack-env.js';
import { createPackServiceSupervisor } from './supervisor.js';

const SERVICE_BIN = fileURLToPath(new URL('../bin/kindgi-pack-service.mjs', import.meta.url));
/** Changes closer together than this are one change (an editor writes a file in steps). */
const SETTLE_MS = 100;
/**
 * The same for `--pack-dir`, where a change is reindexed first: an editor's save is a write or
 * a rename, each seen within a few milliseconds, and a reindex that meets a half-written file
 * is followed by another once its last event settles.
 */
const PACK_SETTLE_MS = 15;
/** Where `--pack-dir` writes its index unless `--index` says. */
export const DEV_INDEX_PATH = join('.kindgi', 'dev', 'index.json');

export const USAGE = `Usage: kindgi-pack-dev --pack-dir <dir> [--index <index.json>] [options]
       kindgi-pack-dev --index <index.json> [--module-root <dir>] [options] [-- <command...>]
Options: [--host <address>] [--port <n>] [--token <token>] [--no-watch] [--json]

Serves a pack through a supervisor front and swaps its pack service when the pack changes.

--pack-dir runs what \`kindgi dev\` runs: it finds the pack's config, indexes the pack with
runIndexer into <dir>/${DEV_INDEX_PATH.split(sep).join('/')} (or --index), serves it, and on every change under
the discovery roots, to the config or to a file the pack's modules import, reindexes, then
swaps. A long-lived indexer process imports again only the modules that changed, and a
held spare child serves the result. A change that breaks the pack (an import error, a
schema that does not compile, any indexer error) keeps the old child serving and says why.

--index serves a built index and swaps whenever a file under the module root (default: the
index's folder) or the index changes. The child is this package's kindgi-pack-service unless
a command follows '--' (any pack service with the process contract, e.g. python -m
kindgi.pack serve).

The child gets this command's environment, with KINDGI_PACK_ENV_FILTER=off unless it is set.
--json writes every event as one JSON line on stdout (with --pack-dir, also 'indexed' and
'index-failed').`;

/** Reads the arguments; `{ problems }` when they do not make a configuration. */
export function readDevArgs(argv) {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const command = split < 0 ? undefined : argv.slice(split + 1);
  const problems = [];
  const options = { watch: true, json: false };
  const valued = {
    '--index': 'index',
    '--pack-dir': 'packDir',
    '--module-root': 'moduleRoot',
    '--host': 'host',
    '--port': 'port',
    '--token': 'token',
  };
  for (let i = 0; i < own.length; i += 1) {
    const arg = own[i];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    if (eq > 0 && Object.hasOwn(valued, arg.slice(0, eq))) {
      // `--port=8787`, as most commands take it.
      const value = arg.slice(eq + 1);
      if (value === '') problems.push(`${arg.slice(0, eq)} needs a value`);
      else options[valued[arg.slice(0, eq)]] = value;
    } else if (arg === '--no-watch') options.watch = false;
    else if (arg === '--json') options.json = true;
    else if (Object.hasOwn(valued, arg)) {
      const value = own[i + 1];
      if (value === undefined || value.startsWith('--')) {
        problems.push(`${arg} needs a value`);
      } else {
        options[valued[arg]] = value;
        i += 1;
      }
    } else problems.push(`Unknown argument ${JSON.stringify(arg)}`);
  }
  if (options.index === undefined && options.packDir === undefined) problems.push('--index or --pack-dir is required');
  if (options.packDir !== undefined && command !== undefined) problems.push("--pack-dir serves with this package's pack service; a command after '--' goes with --index");
  if (options.packDir !== undefined && options.moduleRoot !== undefined) problems.push('--module-root goes with --index (--pack-dir serves the pack folder)');
  if (options.port !== undefined) {
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`--port must be a port number, not ${JSON.stringify(options.port)}`);
    options.port = port;
  }
  if (command !== undefined && command.length === 0) problems.push("'--' needs a command after it");
  if (problems.length > 0) return { problems };
  const packDir = options.packDir === undefined ? undefined : resolve(options.packDir);
  const index = resolve(options.index ?? join(packDir, DEV_INDEX_PATH));
  return {
    value: {
      ...options,
      ...(packDir !== undefined && { packDir }),
      index,
      moduleRoot: resolve(options.moduleRoot ?? packDir ?? dirname(index)),
      command: command ?? [process.execPath, SERVICE_BIN],
    },
  };
}

/**
 * Runs the loop until `signal` aborts (the bin aborts it on SIGINT or SIGTERM). `print(text)`
 * gets each line for the terminal's stdout, `printError(text)` the problems, the usage and
 * (without --json) the errors. Resolves with the exit code.
 */
export async function devMain(
  argv,
  { env = process.env, print = (text) => process.stdout.write(`${text}\n`), printError = (text) => process.stderr.write(`${text}\n`), signal } = {},
) {
  const read = readDevArgs(argv);
  if (read.problems !== undefined) {
    for (const problem of read.problems) printError(problem);
    printError(USAGE);
    return 2;
  }
  const config = read.value;
  const say = (event, text) => print(config.json ? JSON.stringify(event) : text);
  // Errors go to stderr, but with --json they are events like the others, on stdout.
  const sayError = (error) => {
    const message = String(error?.message ?? error);
    if (!config.json) return printError(message);
    say({ kind: 'error', ...(error?.code !== undefined && { code: error.code }), message }, message);
  };
  const indexStat = config.packDir === undefined ? await stat(config.index).catch(() => undefined) : undefined;
  if (config.packDir === undefined && (indexStat === undefined || !indexStat.isFile())) {
    sayError(`No index at ${config.index}`);
    return 1;
  }
  // In development every variable reaches pack code, as `kindgi dev` has it: the child's filter
  // of undeclared variables is off unless the environment sets KINDGI_PACK_ENV_FILTER itself.
  const childEnv = {
    [PACK_ENV_FILTER_VAR]: 'off',
    ...Object.fromEntries(Object.entries(env).filter(([, value]) => typeof value === 'string')),
  };
  let supervisor;
  try {
    supervisor = createPackServiceSupervisor({
      command: config.command,
      moduleRoot: config.moduleRoot,
      env: async () => childEnv,
      ...(config.host !== undefined && { host: config.host }),
      ...(config.port !== undefined && { port: config.port }),
      ...(config.token !== undefined && { token: config.token }),
      onLog: (line, stream) => say({ kind: 'output', stream, line }, line),
      onEvent: (event) => say(event, describe(event)),
      // The next child waits spawned and loaded; --index's command may be any pack service.
      ...(config.packDir !== undefined && { spare: true }),
    });
  } catch (error) {
    sayError(error);
    return 1;
  }
  const closed = new Promise((resolveClosed) => {
    if (signal?.aborted) resolveClosed();
    signal?.addEventListener('abort', resolveClosed, { once: true });
  }).then(() => supervisor.beginClose());
  let watcher;
  let loop;
  try {
    if (config.packDir !== undefined) {
      loop = await packLoop(config, supervisor, { say, sayError, env: childEnv });
      if (loop === undefined) return 1;
    }
    const front = await supervisor.listen();
    say({ kind: 'front', url: front.url, port: front.port, token: supervisor.token }, `Front: ${front.url}  token: ${supervisor.token}`);
    const start = loop?.refresh ?? (() => supervisor.start(config.index).catch(sayError));
    // Watching begins with the first boot: a change while it boots swaps once it is done.
    const first = start(new Set());
    if (config.watch) {
      const watched = loop?.watched ?? { roots: [config.moduleRoot], files: [config.index], settleMs: SETTLE_MS };
      watcher = watchPack(watched, first, start, sayError);
      loop?.watching(watcher);
    }
    // A first run that never ends (a module whose import hangs) still gives way to Ctrl-C.
    await Promise.race([first, closed]);
    await closed;
  } catch (error) {
    sayError(error);
    return 1;
  } finally {
    watcher?.close();
    loop?.close();
    await supervisor.close();
  }
  say({ kind: 'closed' }, 'Closed.');
  return 0;
}

/**
 * `--pack-dir`: the pack's config found and checked, and `refresh(changed)`, which reindexes in
 * the long-lived indexer process and swaps to the new index when it is whole. `undefined` when
 * the pack has no usable config (said already). Pack code runs in the indexer process only.
 */
async function packLoop(config, supervisor, { say, sayError, env }) {
  const indexer = createDevIndexer({ env, onOutput: (line, stream) => say({ kind: 'output', stream, line }, line) });
  const checked = await indexer.config(config.packDir);
  if (checked.error !== undefined || checked.thrown !== undefined) {
    indexer.close();
    sayError(checked.error ?? checked.thrown);
    return undefined;
  }
  const configFile = (await findKindgiConfig(config.packDir))?.path;
  // Each run writes here first; the served index is replaced only by a run that is whole, so a
  // restart after a crash boots what was last accepted.
  const staged = `${config.index}.next`;
  // Files pack modules import (helpers, other primitives): a change to one needs a fresh
  // indexer process, as Node imports a module once per process.
  let importedByPack = new Set();
  let serving = false;
  let started = 0;
  let watcher;
  // The discovered primitives' own modules, which the spare child imports again by version.
  let modules = new Set();
  // Set by a change the spare child cannot see, until a start has replaced the spare.
  let spareStale = false;
  // A helper outside the discovery roots is watched once a module imports it.
  const watchImported = () => {
    for (const path of importedByPack) if (!path.split(sep).includes('node_modules')) watcher?.addFile(path);
  };
  const failedIndex = (event, text) => {
    say({ kind: 'index-failed', ...event }, `Index failed${serving ? ', the previous child keeps serving' : ''}:\n  ${text}`);
  };
  const refresh = async (changed) => {
    const needsFresh = [...changed].some((path) => importedByPack.has(path) || path === configFile);
    if (needsFresh) indexer.renew();
    // The spare child imported the pack already: only a primitive's own module, imported again
    // by its version, can change under it; any other file (a helper, data read at load) needs
    // a child started fresh.
    if (needsFresh || [...changed].some((path) => !modules.has(path))) spareStale = true;
    started = performance.now();
    const reply = await indexer.index({ packDir: config.packDir, outputPath: staged });
    const ms = Math.round((performance.now() - started) * 10) / 10;
    started = 0;
    if (reply.thrown !== undefined) return failedIndex({ error: reply.thrown, ms }, `${reply.thrown.name}: ${reply.thrown.message}`);
    const { outcome, schemaErrors } = reply;
    importedByPack = new Set(reply.importedByPack);
    watchImported();
    modules = new Set(reply.files.map((relPath) => join(config.packDir, relPath)));
    if (outcome.kind === 'err') return failedIndex({ error: outcome.error, ms }, `${outcome.error.code}: ${outcome.error.message}`);
    const { counts, fileErrors, warnings } = outcome.value;
    // A broken module keeps what serves; with nothing serving yet, what indexed is served.
    if ((fileErrors.length > 0 || schemaErrors.length > 0) && serving) {
      const problems = [...fileErrors.map((e) => `${e.code}: ${e.message}`), ...schemaErrors.map((e) => e.message)];
      return failedIndex({ fileErrors, schemaErrors, ms }, problems.join('\n  '));
    }
    say({ kind: 'indexed', counts, ms, fileErrors, warnings }, `Indexed ${describeCounts(counts)} in ${ms} ms`);
    for (const e of [...fileErrors, ...schemaErrors]) sayError({ ...(e.code !== undefined && { code: e.code }), message: e.message });
    try {
      await copyFile(staged, `${config.index}.swap`);
      await rename(`${config.index}.swap`, config.index);
      const fresh = spareStale;
      spareStale = false;
      if ((await supervisor.start(config.index, { fresh })).kind === 'ok') serving = true;
    } catch (error) {
      sayError(error);
    }
  };
  const ownFiles = new Set([config.index, staged, `${config.index}.swap`]);
  return {
    refresh,
    watching: (w) => {
      watcher = w;
      watchImported();
    },
    watched: {
      // The discovery roots, the config, and (as modules import them) the files pack modules
      // import: not the whole folder, where pack code may write as it runs.
      roots: discoveryRoots(Object.values(resolveDiscovery(checked.discovery ?? undefined))).map((root) => join(config.packDir, root)),
      files: configFile === undefined ? [] : [configFile],
      settleMs: PACK_SETTLE_MS,
      // Discovery never reads dot entries (the dev index lives in one); the loop's own files
      // (an index given outside one, its temporary files) are no change.
      ignore: (name, path) => name.startsWith('.') || ownFiles.has(path) || [...ownFiles].some((own) => path.startsWith(`${own}.tmp-`)),
      // A run still waiting after a while when the pack changes again is given up (a module
      // whose import never settles), so the change is indexed by a fresh process.
      interrupt: () => {
        if (started === 0) return;
        // Given up once it has waited STUCK_RUN_MS, now or when it reaches that.
        const run = started;
        const giveUp = () => started === run && indexer.renew();
        const wait = STUCK_RUN_MS - (performance.now() - started);
        if (wait <= 0) giveUp();
        else setTimeout(giveUp, wait).unref();
      },
    },
    close: () => indexer.close(),
  };
}

/** How long a reindex may wait before a new change gives it up. */
const STUCK_RUN_MS = 1000;

const describeCounts = ({ tools, guardrails, agents, flows }) =>
  `${tools} tools, ${guardrails} guardrails, ${agents} agents, ${flows} flows`;

/** Folders never watched, and editor temp files (vim's swap files and `4913` probe, emacs' lock and backup files). */
const IGNORED_DIRS = new Set(['.git', 'node_modules']);
const isTempFile = (name) => name === '4913' || name.endsWith('~') || name.startsWith('.#') || /\.sw[pxo]$/.test(name);
/** How often a deleted module root, or the index's folder, is looked for again. */
const ROOT_POLL_MS = 500;

/**
 * Calls `restart(changed)` (which never rejects; `changed` is the set of paths seen changing)
 * once changes under `roots`, or to one of `files`, have settled: after `first`, and never two
 * at once; changes during a run make one more run. `failed` hears of a watcher's error (the
 * watching goes on where it can). `ignore(name)` leaves out more entries than the defaults.
 */
function watchPack({ roots, files, settleMs, ignore = () => false, interrupt = () => {} }, first, restart, failed) {
  let timer;
  let running = true;
  let dirty = false;
  let closed = false;
  let changes = new Set();
  const run = () => {
    if (closed) return;
    if (running) {
      dirty = true;
      return;
    }
    running = true;
    const changed = changes;
    changes = new Set();
    restart(changed).then(settled);
  };
  const settled = () => {
    running = false;
    if (dirty) {
      dirty = false;
      run();
    }
  };
  first.then(settled);
  const changed = (path) => {
    changes.add(path);
    if (running) interrupt();
    clearTimeout(timer);
    timer = setTimeout(run, settleMs);
  };
  const skipped = (name, path) => isTempFile(name) || IGNORED_DIRS.has(name) || ignore(name, path);

  // One non-recursive watch per folder, not Node's recursive one: on Linux that follows each
  // file's inode and misses edits after an editor's rename-over save or a delete and recreate.
  const dirs = new Map();
  // Each watched folder's real path: a symlinked folder is followed once, and a link back up
  // the tree is no loop.
  const reals = new Map();
  // Folders that went and are looked for again, each with what to do when it is back.
  const polls = new Map();
  const awaitReturn = (dir, back) => {
    if (polls.has(dir) || closed) return;
    polls.set(
      dir,
      setInterval(() => {
        if (!exists(dir)) return;
        clearInterval(polls.get(dir));
        polls.delete(dir);
        back();
        changed(dir);
      }, ROOT_POLL_MS),
    );
  };
  const exists = (path) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  };
  const drop = (path) => {
    for (const [dir, w] of dirs) {
      if (dir === path || dir.startsWith(path + sep)) {
        w.close();
        dirs.delete(dir);
        reals.delete(dir);
      }
    }
  };
  /** Watches the tree at `root`; a root that goes (`rm -rf dist`) is looked for again. */
  const watchTree = (root) => {
    const rootGone = () => {
      drop(root);
      awaitReturn(root, () => add(root));
    };
    const seen = (dir, name) => {
      if (name !== null && skipped(name, join(dir, name))) return;
      changed(name === null ? dir : join(dir, name));
      if (dir === root && !exists(root)) return rootGone();
      if (name === null) return add(dir);
      const path = join(dir, name);
      // A folder, or a link to one, is watched; an entry that went is dropped.
      if (exists(path)) add(path);
      else drop(path);
    };
    /** Watches `dir` and the folders under it not yet watched. */
    const add = (dir) => {
      if (closed || (dir !== root && skipped(basename(dir), dir))) return;
      if (!dirs.has(dir)) {
        let real;
        try {
          real = realpathSync(dir);
        } catch {
          if (dir === root) rootGone();
          return;
        }
        if ([...reals.values()].includes(real)) return;
        let w;
        try {
          w = watch(dir, (_, name) => seen(dir, name === null ? null : String(name)));
        } catch (error) {
          if (error?.code !== 'ENOENT' && error?.code !== 'ENOTDIR') failed(error);
          else if (dir === root) rootGone();
          return;
        }
        w.on('error', (error) => {
          if (dir === root ? exists(root) : exists(dir)) failed(error);
          else if (dir === root) rootGone();
          else drop(dir);
        });
        dirs.set(dir, w);
        reals.set(dir, real);
      }
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        if (entry.isDirectory() || (entry.isSymbolicLink() && exists(join(dir, entry.name)))) add(join(dir, entry.name));
      }
    };
    add(root);
  };
  for (const root of roots) watchTree(root);

  // A file outside the roots (the index, the config): its folder is watched, not the file (an
  // editor that saves by renaming replaces the file), and looked for again when it goes.
  const fileWatches = new Set();
  const watchFile = (dir, name) => {
    let fileWatch;
    const gone = () => {
      fileWatch?.close();
      fileWatches.delete(fileWatch);
      awaitReturn(dir, () => watchFile(dir, name));
    };
    try {
      fileWatch = watch(dir, (_, file) => {
        if (file === null || String(file) === name || !exists(dir)) changed(join(dir, name));
        if (!exists(dir)) gone();
      });
    } catch (error) {
      if (error?.code === 'ENOENT' || error?.code === 'ENOTDIR') gone();
      else failed(error);
      return;
    }
    fileWatches.add(fileWatch);
    fileWatch.on('error', (error) => (exists(dir) ? failed(error) : gone()));
  };
  const watchedFiles = new Set();
  const addFile = (file) => {
    if (watchedFiles.has(file) || closed) return;
    watchedFiles.add(file);
    if (roots.every((root) => relative(root, file).startsWith('..'))) watchFile(dirname(file), basename(file));
  };
  for (const file of files) addFile(file);
  return {
    /** Watches one more file (its folder, for its name), unless a root holds it already. */
    addFile,
    close() {
      closed = true;
      clearTimeout(timer);
      for (const poll of polls.values()) clearInterval(poll);
      polls.clear();
      for (const w of fileWatches) w.close();
      fileWatches.clear();
      for (const w of dirs.values()) w.close();
      dirs.clear();
      reals.clear();
    },
  };
}

function describe(event) {
  switch (event.kind) {
    case 'started': return `Serving ${event.indexPath} (child port ${event.port})`;
    case 'boot-failed': return `Boot failed, the previous child keeps serving:\n  ${event.problems.join('\n  ')}`;
    case 'exited': return `The pack service exited (${event.signal ?? event.code})`;
    case 'restarting': return `Restarting (attempt ${event.attempt})`;
    case 'gave-up': return `Gave up after ${event.attempts} restarts; the next change starts it again`;
    // The service's records: their level and message (the JSON line with --json).
    default: return typeof event.event?.message === 'string' ? `${event.event.level ?? ''} ${event.event.message}`.trim() : event.line;
  }
}
