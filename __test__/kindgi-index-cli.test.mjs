// The `kindgi-index` command as a process: `node bin/kindgi-index.mjs ...` and the
// `kindgi-index-main` entry (a module that runs on import and sets the exit code). Streams, exit
// codes and the exact text on each.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { KINDGI_INDEX_HELP_TEXT } from '../index.js';
import { HELP_TEXT, readBundleMap } from '../lib/kindgi-index.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/kindgi-index.mjs', import.meta.url));
const MAIN = fileURLToPath(new URL('../lib/kindgi-index-main.js', import.meta.url));
const FIXED = '2026-09-20T14:32:07.104Z';

const EXPECTED_HELP = `kindgi-index \u2014 build-time pack manifest indexer

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

const VALUED = ['--pack-dir', '--config', '--output', '--artifact-version', '--published-at', '--bundle-map', '--module-root'];
const REPORT_KEYS = ['packId', 'packVersion', 'artifactVersion', 'publishedAt', 'counts', 'outputPath', 'fileErrors', 'warnings'];
/** How the CLI reads a failed run's last stderr line. */
const LAST_LINE = /^kindgi-index: ([a-z-]+): (.*)$/s;

/** Runs `node <args>` to its end: `{ code, signal, stdout, stderr }`. */
function node(args, { cwd = PACKAGE_DIR } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
const cli = (args, opts) => node([BIN, ...args], opts);

async function tempDir(t, prefix = 'kindgi-cli-') {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function pack(t, files) {
  const dir = await tempDir(t);
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return dir;
}

const CONFIG = "export default { pack: { id: 'acme.pack', version: '1.0.0' } };\n";
const tool = (id, prelude = '') =>
  `${prelude}export default {\n  id: ${JSON.stringify(id)},\n  description: 'echo',\n  input: { type: 'object', properties: {}, additionalProperties: false },\n  output: { type: 'object', properties: {}, additionalProperties: false },\n  effects: [],\n  handler: async () => ({}),\n};\n`;
const GUARDRAIL_UNPREFIXED =
  "export const check = { id: 'acme.checks.cites', evaluate: async () => ({ passed: true }) };\n" +
  "export default { id: 'acme.cites', kind: 'zero-llm', check, action: { 'on-violation': 'halt' } };\n";

function assertParseError(result, message) {
  assert.equal(result.stdout, '');
  assert.equal(result.stderr, `kindgi-index: ${message}\n`);
  assert.equal(result.code, 2);
}

// ---------------------------------------------------------------------------------------------
// Help and version
// ---------------------------------------------------------------------------------------------

describe('kindgi-index: --help and --version', { concurrency: true }, () => {
  test('HELP_TEXT is the exact text, on both entry points', () => {
    assert.equal(HELP_TEXT, EXPECTED_HELP);
    assert.equal(KINDGI_INDEX_HELP_TEXT, EXPECTED_HELP);
    assert.equal(HELP_TEXT.endsWith('\n'), false);
  });

  for (const flag of ['--help', '-h']) {
    test(`${flag} prints the help and a newline on stdout, exit 0`, async () => {
      const result = await cli([flag]);
      assert.deepEqual(result, { code: 0, signal: null, stdout: `${EXPECTED_HELP}\n`, stderr: '' });
    });
  }

  for (const flag of ['--version', '-v']) {
    test(`${flag} prints the version, exit 0`, async () => {
      assert.deepEqual(await cli([flag]), { code: 0, signal: null, stdout: 'kindgi-index v0.0.0\n', stderr: '' });
    });
  }

  test('a flag counts where it is reached as an argument, left to right', async () => {
    assert.equal((await cli(['--pack-dir', 'nowhere', '--strict', '--help', '--bogus'])).stdout, `${EXPECTED_HELP}\n`);
    assert.equal((await cli(['-v', '--help'])).stdout, 'kindgi-index v0.0.0\n');
    assertParseError(await cli(['--bogus', '--help']), 'Unknown argument: --bogus');
  });
});

// ---------------------------------------------------------------------------------------------
// Argument errors
// ---------------------------------------------------------------------------------------------

describe('kindgi-index: argument errors (exit 2, one stderr line)', { concurrency: true }, () => {
  test('--pack-dir is required', async () => {
    assertParseError(await cli([]), '--pack-dir is required');
    assertParseError(await cli(['--strict', '--output', 'x.json']), '--pack-dir is required');
  });

  for (const option of VALUED) {
    test(`${option} as the last argument requires a value`, async () => {
      assertParseError(await cli(['--pack-dir', 'somewhere', option].slice(option === '--pack-dir' ? 2 : 0)), `${option} requires a value`);
    });
  }

  test('unknown arguments, named at once', async () => {
    assertParseError(await cli(['--json']), 'Unknown argument: --json');
    assertParseError(await cli(['--pack-dir', 'x', 'extra']), 'Unknown argument: extra');
    assertParseError(await cli(['--pack-dir=x']), 'Unknown argument: --pack-dir=x');
    assertParseError(await cli(['--pack-dir', 'x', '-s']), 'Unknown argument: -s');
    // Before the missing --pack-dir is noticed.
    assertParseError(await cli(['--strict', '--nope']), 'Unknown argument: --nope');
  });

  test('--module-root goes with --bundle-map', async () => {
    assertParseError(await cli(['--pack-dir', 'x', '--module-root', 'dist']), '--module-root goes with --bundle-map');
    assertParseError(await cli(['--module-root', 'dist']), '--pack-dir is required');
  });

  test('a value is taken as it is, even one that looks like a flag', async (t) => {
    const cwd = await tempDir(t);
    const result = await cli(['--pack-dir', '--help'], { cwd });
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      `kindgi-index: config-not-found: No kindgi.config.{ts,mts,mjs,js,cjs}, pyproject.toml with a [tool.kindgi] table, or kindgi.config.json, found at pack root ${path.join(cwd, '--help')}\n`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Bundle maps
// ---------------------------------------------------------------------------------------------

describe('kindgi-index: bundle map errors (exit 2)', { concurrency: true }, () => {
  test('a missing file: the fs error', async (t) => {
    const dir = await tempDir(t);
    const file = path.join(dir, 'bundle-map.json');
    const expected = await readFile(file, 'utf8').catch((error) => error);
    assert.ok(expected instanceof Error);
    assertParseError(await cli(['--pack-dir', dir, '--bundle-map', file]), `Cannot read the bundle map ${file}: Error: ${expected.message}`);
  });

  test('not JSON: the JSON.parse error', async (t) => {
    const dir = await pack(t, { 'map.json': 'not json' });
    const file = path.join(dir, 'map.json');
    let expected;
    try {
      JSON.parse('not json');
    } catch (error) {
      expected = error;
    }
    assertParseError(await cli(['--pack-dir', dir, '--bundle-map', file]), `Cannot read the bundle map ${file}: SyntaxError: ${expected.message}`);
  });

  for (const text of ['[]', 'null', '"tools/a.mjs"', '{"tools/a.ts": 1}', '{"tools/a.ts": ""}', '{"tools/a.ts": "a.mjs", "tools/b.ts": null}']) {
    test(`not an object of non-empty strings: ${text}`, async (t) => {
      const dir = await pack(t, { 'map.json': text });
      const file = path.join(dir, 'map.json');
      assertParseError(
        await cli(['--pack-dir', dir, '--bundle-map', file, '--module-root', 'dist']),
        `The bundle map ${file} must be a JSON object of source path \u2192 bundle path.`,
      );
    });
  }

  test('the path is read from the working directory and shown as given', async (t) => {
    const dir = await pack(t, { 'dist/map.json': '[1]' });
    assertParseError(
      await cli(['--pack-dir', '.', '--bundle-map', 'dist/map.json'], { cwd: dir }),
      'The bundle map dist/map.json must be a JSON object of source path \u2192 bundle path.',
    );
  });

  test('readBundleMap, in process: ok with the map, err with the message', async (t) => {
    const dir = await pack(t, { 'good.json': '{"tools/a.ts":"tools/a.mjs"}', 'bad.json': '{"tools/a.ts": ""}' });
    assert.deepEqual(await readBundleMap(path.join(dir, 'good.json')), { kind: 'ok', value: { 'tools/a.ts': 'tools/a.mjs' } });
    const bad = path.join(dir, 'bad.json');
    assert.deepEqual(await readBundleMap(bad), {
      kind: 'err',
      message: `The bundle map ${bad} must be a JSON object of source path \u2192 bundle path.`,
    });
    const missing = await readBundleMap(path.join(dir, 'missing.json'));
    assert.equal(missing.kind, 'err');
    assert.ok(missing.message.startsWith(`Cannot read the bundle map ${path.join(dir, 'missing.json')}: Error: ENOENT`), missing.message);
  });
});

// ---------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------

describe('kindgi-index: a run', { concurrency: true }, () => {
  const brokenPack = (t) =>
    pack(t, {
      'kindgi.config.mjs': CONFIG,
      'tools/ok.mjs': tool('acme.ok'),
      'tools/broken.mjs': tool('acme.broken', "import 'acme-package-not-installed';\n"),
      'guardrails/cites.mjs': GUARDRAIL_UNPREFIXED,
    });

  test('the report is all of stdout, as JSON.stringify(report, null, 2); exit 0 without --strict', async (t) => {
    const dir = await brokenPack(t);
    const output = path.join(dir, 'out', 'index.json');
    const result = await cli(['--pack-dir', dir, '--output', output, '--published-at', FIXED, '--artifact-version', '20260920.3']);
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    const report = JSON.parse(result.stdout);
    assert.equal(result.stdout, `${JSON.stringify(report, null, 2)}\n`);
    assert.deepEqual(Object.keys(report), REPORT_KEYS);
    assert.deepEqual(Object.keys(report.counts), ['tools', 'guardrails', 'agents', 'flows']);
    assert.equal(report.packId, 'acme.pack');
    assert.equal(report.packVersion, '1.0.0');
    assert.equal(report.artifactVersion, '20260920.3');
    assert.equal(report.publishedAt, FIXED);
    assert.deepEqual(report.counts, { tools: 1, guardrails: 1, agents: 0, flows: 0 });
    assert.equal(report.outputPath, output);
    assert.equal(report.fileErrors.length, 1);
    const [error] = report.fileErrors;
    assert.deepEqual(Object.keys(error), ['code', 'message', 'filePath', 'cause']);
    assert.equal(error.code, 'file-import-failed');
    assert.equal(error.filePath, 'tools/broken.mjs');
    assert.ok(error.message.startsWith('Failed to import tools/broken.mjs: Error: '), error.message);
    assert.ok(error.message.includes('acme-package-not-installed'));
    assert.deepEqual(Object.keys(error.cause), ['name', 'message', 'stack']);
    assert.deepEqual(report.warnings, [
      {
        code: 'check-id-unprefixed',
        message:
          'guardrails/cites.mjs: check "acme.checks.cites" doesn\'t start with this pack\'s id ("acme.pack."). Name it "acme.pack.checks.<name>" so it can\'t collide with another pack\'s check on the same runtime. The pack builds as it is.',
        filePath: 'guardrails/cites.mjs',
        field: 'check',
      },
    ]);
    const index = JSON.parse(await readFile(output, 'utf8'));
    assert.equal(index.publishedAt, FIXED);
    assert.equal(index.artifactVersion, '20260920.3');
    assert.deepEqual(index.tools.map((x) => x.id), ['acme.ok']);
  });

  test('--strict: the same report, then one stderr line per file error, exit 1', async (t) => {
    const dir = await brokenPack(t);
    const args = ['--pack-dir', dir, '--output', path.join(dir, 'index.json'), '--published-at', FIXED, '--artifact-version', 'a1'];
    const plain = await cli(args);
    const strict = await cli([...args, '--strict']);
    assert.equal(strict.code, 1);
    assert.equal(strict.stdout, plain.stdout);
    const report = JSON.parse(strict.stdout);
    assert.equal(strict.stderr, report.fileErrors.map((e) => `kindgi-index: ${e.code}: ${e.message}\n`).join(''));
    assert.ok(strict.stderr.startsWith('kindgi-index: file-import-failed: Failed to import tools/broken.mjs'), strict.stderr);
    assert.ok(strict.stderr.includes('acme-package-not-installed'));
    assert.equal(strict.stderr.includes('check-id-unprefixed'), false, 'warnings never go to stderr');
    const [, code] = LAST_LINE.exec(strict.stderr.trimEnd().split('\n').at(-1));
    assert.equal(code, 'file-import-failed');
  });

  test('--strict with warnings and no file error exits 0, stderr empty', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': CONFIG, 'guardrails/cites.mjs': GUARDRAIL_UNPREFIXED });
    const result = await cli(['--pack-dir', dir, '--strict', '--artifact-version', 'w1']);
    assert.equal(result.code, 0);
    assert.equal(result.stderr, '');
    const report = JSON.parse(result.stdout);
    assert.equal(report.warnings.length, 1);
    assert.deepEqual(report.fileErrors, []);
    assert.equal(report.outputPath, path.join(dir, 'index.json'));
  });

  test('a runIndexer error: `kindgi-index: <code>: <message>` on stderr, nothing on stdout, exit 1', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': CONFIG });
    const result = await cli(['--pack-dir', dir]);
    assert.deepEqual(result, {
      code: 1,
      signal: null,
      stdout: '',
      stderr: `kindgi-index: discovery-empty: Indexer discovered zero files under ${dir}. Check kindgi.config.ts discovery patterns.\n`,
    });
    const [, code, message] = LAST_LINE.exec(result.stderr.trimEnd());
    assert.equal(code, 'discovery-empty');
    assert.ok(message.startsWith('Indexer discovered zero files'));
  });

  test('config errors: a relative --pack-dir resolved from the working directory; an env error', async (t) => {
    const cwd = await tempDir(t);
    const missing = await cli(['--pack-dir', 'no-pack-here'], { cwd });
    assert.equal(missing.code, 1);
    assert.equal(
      missing.stderr,
      `kindgi-index: config-not-found: No kindgi.config.{ts,mts,mjs,js,cjs}, pyproject.toml with a [tool.kindgi] table, or kindgi.config.json, found at pack root ${path.join(cwd, 'no-pack-here')}\n`,
    );
    const dir = await pack(t, {
      'kindgi.config.mjs': "export default { pack: { id: 'a', version: '1' }, env: { required: ['KINDGI_X'] } };\n",
      'tools/ok.mjs': tool('acme.ok'),
    });
    const env = await cli(['--pack-dir', dir]);
    assert.equal(env.code, 1);
    assert.equal(env.stderr, 'kindgi-index: config-invalid: kindgi.config: "KINDGI_X" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack\n');
  });

  test('the build\'s invocation: --config, --bundle-map, --module-root from dist, cwd the pack', async (t) => {
    const dir = await pack(t, {
      'dist/kindgi.config.mjs': CONFIG,
      'dist/tools/echo.mjs': tool('acme.echo'),
      'dist/bundle-map.json': JSON.stringify({ 'tools/echo.ts': 'tools/echo.mjs', 'tools/echo.test.ts': 'tools/echo.test.mjs', 'lib/x.ts': 'lib/x.mjs' }),
    });
    const result = await cli(
      [
        '--pack-dir', dir,
        '--config', 'dist/kindgi.config.mjs',
        '--bundle-map', 'dist/bundle-map.json',
        '--module-root', 'dist',
        '--artifact-version', '20260920.1',
        '--published-at', FIXED,
        '--output', 'out/index.json',
        '--strict',
      ],
      { cwd: dir },
    );
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(report.counts, { tools: 1, guardrails: 0, agents: 0, flows: 0 });
    assert.equal(report.outputPath, path.join(dir, 'out', 'index.json'));
    const index = JSON.parse(await readFile(path.join(dir, 'out', 'index.json'), 'utf8'));
    assert.deepEqual(index.tools.map((x) => x.modulePath), ['tools/echo.ts']);
  });

  test('a repeated option keeps its last value', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': CONFIG, 'tools/ok.mjs': tool('acme.ok') });
    const result = await cli(['--pack-dir', path.join(dir, 'nope'), '--artifact-version', 'first', '--pack-dir', dir, '--artifact-version', 'second']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).artifactVersion, 'second');
  });

  test('two runs with pinned fields write the same bytes', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': CONFIG, 'tools/b.mjs': tool('acme.b'), 'tools/a.mjs': tool('acme.a') });
    const args = ['--pack-dir', dir, '--artifact-version', '20260920.7', '--published-at', FIXED];
    await cli([...args, '--output', path.join(dir, 'one.json')]);
    await cli([...args, '--output', path.join(dir, 'two.json')]);
    const one = await readFile(path.join(dir, 'one.json'));
    assert.ok(one.length > 0);
    assert.ok(one.equals(await readFile(path.join(dir, 'two.json'))));
  });
});

// ---------------------------------------------------------------------------------------------
// kindgi-index-main
// ---------------------------------------------------------------------------------------------

describe('kindgi-index-main: runs on import, sets the exit code', { concurrency: true }, () => {
  test('node lib/kindgi-index-main.js: help 0, a parse error 2, a run error 1, a run 0', async (t) => {
    assert.deepEqual(await node([MAIN, '--help']), { code: 0, signal: null, stdout: `${EXPECTED_HELP}\n`, stderr: '' });
    assertParseError(await node([MAIN, '--nope']), 'Unknown argument: --nope');
    const empty = await pack(t, { 'kindgi.config.mjs': CONFIG });
    const failed = await node([MAIN, '--pack-dir', empty]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^kindgi-index: discovery-empty: /);
    const full = await pack(t, { 'kindgi.config.mjs': CONFIG, 'tools/ok.mjs': tool('acme.ok') });
    const ran = await node([MAIN, '--pack-dir', full, '--artifact-version', 'm1']);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(JSON.parse(ran.stdout).counts.tools, 1);
  });

  test('imported by its package name, it sets process.exitCode and returns (no process.exit)', async () => {
    const script =
      "await import('@kindgi/handler-runtime-native/kindgi-index-main');\n" +
      "process.stdout.write('after import: exitCode=' + process.exitCode + '\\n');\n";
    // With -e, argv[1] is the first argument after `--`: a stand-in for the script path.
    const parseError = await node(['--input-type=module', '-e', script, '--', 'script', '--json']);
    assert.equal(parseError.code, 2);
    assert.equal(parseError.stdout, 'after import: exitCode=2\n');
    assert.equal(parseError.stderr, 'kindgi-index: Unknown argument: --json\n');
    const version = await node(['--input-type=module', '-e', script, '--', 'script', '--version']);
    assert.equal(version.code, 0);
    assert.equal(version.stdout, 'kindgi-index v0.0.0\nafter import: exitCode=0\n');
  });
});
