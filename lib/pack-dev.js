// `kindgi-pack-dev`: a development loop on the supervisor, as `kindgi dev` runs it. One front
// on a fixed address and token; the pack service as a child behind it, swapped whenever a file
// under the module root (or the index) changes; Ctrl-C or SIGTERM closes it, child included.
import { readdirSync, realpathSync, statSync, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACK_ENV_FILTER_VAR } from './pack-env.js';
import { createPackServiceSupervisor } from './supervisor.js';

const SERVICE_BIN = fileURLToPath(new URL('../bin/kindgi-pack-service.mjs', import.meta.url));
/** Changes closer together than this are one change (an editor writes a file in steps). */
const SETTLE_MS = 100;

export const USAGE = `Usage: kindgi-pack-dev --index <index.json> [--module-root <dir>] [--host <address>]
                       [--port <n>] [--token <token>] [--no-watch] [--json] [-- <command...>]

Serves a pack through a supervisor front and swaps its pack service whenever a file under
the module root changes. The child is this package's kindgi-pack-service unless a command
follows '--' (any pack service with the process contract, e.g. python -m kindgi.pack serve).
The child gets this command's environment, with KINDGI_PACK_ENV_FILTER=off unless it is set.
--json writes every event as one JSON line on stdout.`;

/** Reads the arguments; `{ problems }` when they do not make a configuration. */
export function readDevArgs(argv) {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const command = split < 0 ? undefined : argv.slice(split + 1);
  const problems = [];
  const options = { watch: true, json: false };
  const valued = { '--index': 'index', '--module-root': 'moduleRoot', '--host': 'host', '--port': 'port', '--token': 'token' };
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
  if (options.index === undefined) problems.push('--index is required');
  if (options.port !== undefined) {
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`--port must be a port number, not ${JSON.stringify(options.port)}`);
    options.port = port;
  }
  if (command !== undefined && command.length === 0) problems.push("'--' needs a command after it");
  if (problems.length > 0) return { problems };
  const index = resolve(options.index);
  return {
    value: {
      ...options,
      index,
      moduleRoot: resolve(options.moduleRoot ?? dirname(index)),
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
  const indexStat = await stat(config.index).catch(() => undefined);
  if (indexStat === undefined || !indexStat.isFile()) {
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
  try {
    const front = await supervisor.listen();
    say({ kind: 'front', url: front.url, port: front.port, token: supervisor.token }, `Front: ${front.url}  token: ${supervisor.token}`);
    const start = () => supervisor.start(config.index).catch(sayError);
    // Watching begins with the first boot: a change while it boots swaps once it is done.
    const first = start();
    if (config.watch) watcher = watchPack(config, first, start, sayError);
    await first;
    await closed;
  } catch (error) {
    sayError(error);
    return 1;
  } finally {
    watcher?.close();
    await supervisor.close();
  }
  say({ kind: 'closed' }, 'Closed.');
  return 0;
}

/** Folders never watched, and editor temp files (vim's swap files and `4913` probe, emacs' lock and backup files). */
const IGNORED_DIRS = new Set(['.git', 'node_modules']);
const isTempFile = (name) => name === '4913' || name.endsWith('~') || name.startsWith('.#') || /\.sw[pxo]$/.test(name);
/** How often a deleted module root, or the index's folder, is looked for again. */
const ROOT_POLL_MS = 500;

/**
 * Calls `restart` (which never rejects) once changes under the module root, or to the index,
 * have settled: after `first`, and never two at once; changes during a run make one more run.
 * `failed` hears of a watcher's error (the watching goes on where it can).
 */
function watchPack(config, first, restart, failed) {
  let timer;
  let running = true;
  let dirty = false;
  let closed = false;
  const run = () => {
    if (closed) return;
    if (running) {
      dirty = true;
      return;
    }
    running = true;
    restart().then(settled);
  };
  const settled = () => {
    running = false;
    if (dirty) {
      dirty = false;
      run();
    }
  };
  first.then(settled);
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(run, SETTLE_MS);
  };

  // One non-recursive watch per folder, not Node's recursive one: on Linux that follows each
  // file's inode and misses edits after an editor's rename-over save or a delete and recreate.
  const root = config.moduleRoot;
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
        changed();
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
  // The root itself went (`rm -rf dist`): look for it again, and its return is a change.
  const rootGone = () => {
    drop(root);
    awaitReturn(root, () => add(root));
  };
  const seen = (dir, name) => {
    if (name !== null && (isTempFile(name) || IGNORED_DIRS.has(name))) return;
    changed();
    if (dir === root && !exists(root)) return rootGone();
    if (name === null) return add(dir);
    const path = join(dir, name);
    // A folder, or a link to one, is watched; an entry that went is dropped.
    if (exists(path)) add(path);
    else drop(path);
  };
  /** Watches `dir` and the folders under it not yet watched. */
  const add = (dir) => {
    if (closed || (dir !== root && IGNORED_DIRS.has(basename(dir)))) return;
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

  // An index outside the root: its folder is watched, not the file (an editor that saves by
  // renaming replaces the file), and looked for again when it goes, as the root is.
  let indexWatch;
  const watchIndex = (dir, name) => {
    const gone = () => {
      indexWatch?.close();
      indexWatch = undefined;
      awaitReturn(dir, () => watchIndex(dir, name));
    };
    try {
      indexWatch = watch(dir, (_, file) => {
        if (file === null || String(file) === name || !exists(dir)) changed();
        if (!exists(dir)) gone();
      });
    } catch (error) {
      if (error?.code === 'ENOENT' || error?.code === 'ENOTDIR') gone();
      else failed(error);
      return;
    }
    indexWatch.on('error', (error) => (exists(dir) ? failed(error) : gone()));
  };
  if (relative(root, config.index).startsWith('..')) watchIndex(dirname(config.index), basename(config.index));
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const poll of polls.values()) clearInterval(poll);
      polls.clear();
      indexWatch?.close();
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
