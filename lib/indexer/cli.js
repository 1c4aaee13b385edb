// The `kindgi-index` command: arguments, output and exit codes as the TypeScript CLI's.
import { readBundleMap } from './bundle-map.js';
import { runIndexer } from './run.js';

export const HELP_TEXT = `kindgi-index — build-time pack manifest indexer

Usage:
  kindgi-index --pack-dir <path> [--config <path>] [--output <path>]
               [--bundle-map <path> [--module-root <path>]]
               [--artifact-version <str>] [--published-at <iso>] [--strict]

Options:
  --pack-dir <path>          Root of the pack (required).
  --config <path>            Explicit kindgi.config.* path.
  --output <path>            Output path for index.json (default: <packDir>/index.json).
  --bundle-map <path>        Index a build: JSON mapping each source path to its bundle.
  --module-root <path>       Where the bundle map's paths resolve (default: --pack-dir).
  --artifact-version <str>   Pin artifact version (default: YYYYMMDD.N auto).
  --published-at <iso>       Pin publishedAt for reproducible builds.
  --strict                   Exit 1 when a module fails to load.
  --help                     Show this help.
  --version                  Print version and exit.`;

const VALUED = {
  '--pack-dir': 'packDir',
  '--config': 'configPath',
  '--output': 'outputPath',
  '--artifact-version': 'artifactVersion',
  '--published-at': 'publishedAt',
  '--bundle-map': 'bundleMapPath',
  '--module-root': 'moduleRoot',
};

/** `{kind: 'ok'|'help'|'version'|'err'}`, read left to right; a value is never read as a flag. */
export function parseArgs(argv) {
  const given = {};
  let strict = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (arg === '--version' || arg === '-v') return { kind: 'version' };
    if (arg === '--strict') {
      strict = true;
    } else if (Object.hasOwn(VALUED, arg)) {
      if (i + 1 >= argv.length) return { kind: 'err', error: `${arg} requires a value` };
      given[VALUED[arg]] = argv[i + 1];
      i += 1;
    } else {
      return { kind: 'err', error: `Unknown argument: ${arg}` };
    }
  }
  if (given.packDir === undefined) return { kind: 'err', error: '--pack-dir is required' };
  if (given.moduleRoot !== undefined && given.bundleMapPath === undefined) {
    return { kind: 'err', error: '--module-root goes with --bundle-map' };
  }
  const { bundleMapPath, ...options } = given;
  return { kind: 'ok', value: { options, strict, ...(bundleMapPath !== undefined && { bundleMapPath }) } };
}

/** Runs `kindgi-index` with `argv`; resolves with the exit code. */
export async function main(argv, { stdout = process.stdout, stderr = process.stderr } = {}) {
  const parsed = parseArgs(argv);
  if (parsed.kind === 'help') {
    stdout.write(`${HELP_TEXT}\n`);
    return 0;
  }
  if (parsed.kind === 'version') {
    stdout.write('kindgi-index v0.0.0\n');
    return 0;
  }
  if (parsed.kind === 'err') {
    stderr.write(`kindgi-index: ${parsed.error}\n`);
    return 2;
  }
  let options = parsed.value.options;
  if (parsed.value.bundleMapPath !== undefined) {
    const bundleMap = await readBundleMap(parsed.value.bundleMapPath);
    if (bundleMap.kind === 'err') {
      stderr.write(`kindgi-index: ${bundleMap.message}\n`);
      return 2;
    }
    options = { ...options, bundleMap: bundleMap.value };
  }
  const outcome = await runIndexer(options);
  if (outcome.kind === 'err') {
    stderr.write(`kindgi-index: ${outcome.error.code}: ${outcome.error.message}\n`);
    return 1;
  }
  stdout.write(`${JSON.stringify(outcome.value, null, 2)}\n`);
  if (parsed.value.strict && outcome.value.fileErrors.length > 0) {
    for (const error of outcome.value.fileErrors) stderr.write(`kindgi-index: ${error.code}: ${error.message}\n`);
    return 1;
  }
  return 0;
}
