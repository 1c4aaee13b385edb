// The package as a release publishes it and a user installs it. From a copy of the tracked
// files (a release checkout) and this host's built addon (a build job's artifact), the napi-rs
// release commands, limited to the host's target, make the main package and the host's
// platform package; `npm pack` packs both. The two tarballs are installed offline, with an
// empty npm cache and no Rust toolchain on PATH, into a new project, which then imports and
// requires every subpath, indexes a pack with the installed `kindgi-index`, serves one call
// with the installed `kindgi-pack-service`, and type-checks a user file under `--strict`.
//
// Slow (about 15 s): it runs under CI=true (as .ci/run runs `npm test`) or
// KINDGI_PACKED_TEST=1, and is skipped otherwise. docs/publishing.md says what it stands for.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, delimiter, join, relative, sep } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packFolder } from './helpers/local-pack.mjs';
import { onLines } from './helpers/lines.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const MANIFEST = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const NAME = MANIFEST.name;
const BINARY = MANIFEST.napi.binaryName;
const NAPI = join(REPO, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js');
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const RUN = process.env.CI === 'true' || process.env.KINDGI_PACKED_TEST === '1';

/** Every subpath in `exports` but `./package.json`, as `''`, `'/protocol'`, …. */
const SUBPATHS = Object.keys(MANIFEST.exports)
  .filter((key) => key !== './package.json')
  .map((key) => key.slice(1));
/** The subpath that runs the `kindgi-index` command as it loads (a top-level await). */
const RUNS_ON_IMPORT = '/kindgi-index-main';

/** This host's Rust target and napi-rs platform name, or undefined where none is built. */
function hostTarget() {
  const glibc = process.platform === 'linux' && process.report.getReport().header.glibcVersionRuntime !== undefined;
  const abi = process.platform === 'linux' ? (glibc ? 'gnu' : 'musl') : undefined;
  const table = {
    'linux-x64-gnu': 'x86_64-unknown-linux-gnu',
    'linux-arm64-gnu': 'aarch64-unknown-linux-gnu',
    'linux-x64-musl': 'x86_64-unknown-linux-musl',
    'linux-arm64-musl': 'aarch64-unknown-linux-musl',
    'darwin-x64': 'x86_64-apple-darwin',
    'darwin-arm64': 'aarch64-apple-darwin',
    'win32-x64': 'x86_64-pc-windows-msvc',
  };
  const platform = [process.platform, process.arch, abi].filter(Boolean).join('-');
  const triple = table[platform === 'win32-x64' ? 'win32-x64' : platform];
  return triple === undefined ? undefined : { triple, platform: platform === 'win32-x64' ? 'win32-x64-msvc' : platform };
}

/** PATH without any folder that holds cargo or rustc; node's own folder first. */
function pathWithoutRust() {
  const exe = process.platform === 'win32' ? '.exe' : '';
  const holdsRust = (dir) => existsSync(join(dir, `cargo${exe}`)) || existsSync(join(dir, `rustc${exe}`));
  const dirs = [dirname(process.execPath), ...(process.env.PATH ?? '').split(delimiter)].filter((dir) => dir !== '' && !holdsRust(dir));
  return [...new Set(dirs)].join(delimiter);
}

/** Runs `command args` to its end (2 minutes at most): `{ code, signal, stdout, stderr }`; throws on a non-zero exit unless `allowFail`. */
function run(command, args, { cwd, env, allowFail = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code, signal, stdout, stderr };
      if (!allowFail && code !== 0) {
        reject(new Error(`${command} ${args.join(' ')} exited ${signal ?? code}\n${stdout}\n${stderr}`));
      } else {
        resolve(result);
      }
    });
  });
}

/** The files under `dir` (relative, `/`-separated). */
function filesUnder(dir, root = dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, root));
    else out.push(relative(root, path).split(sep).join('/'));
  }
  return out;
}

/** What `npm pack --json` packed: the tarball's path and its files. */
async function npmPack(dir, destination, env) {
  const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], { cwd: dir, env });
  const [info] = JSON.parse(packed.stdout);
  return { tarball: join(destination, info.filename), files: info.files.map((f) => f.path).sort() };
}

describe('the packed and installed package', { skip: RUN ? false : 'set CI=true or KINDGI_PACKED_TEST=1 (slow)' }, () => {
  const host = hostTarget();
  // The environment without Rust on PATH, and without the npm_* variables `npm test` sets
  // (its config among them), so that npm behaves as in a user's shell.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  env.PATH = pathWithoutRust();
  let stage;
  let app;
  let mainPack;
  let platformPack;
  let installLog;

  before(async () => {
    assert.ok(host !== undefined, `no napi-rs target for ${process.platform}-${process.arch}`);
    assert.ok(MANIFEST.napi.targets.includes(host.triple), `${host.triple} is one of package.json's napi.targets`);
    const addon = join(REPO, `${BINARY}.${host.platform}.node`);
    assert.ok(existsSync(addon), `the host's addon is built (${relative(REPO, addon)}: npm install builds it)`);
    for (const loader of ['binding.cjs', 'binding.d.cts']) assert.ok(existsSync(join(REPO, loader)), `${loader} is generated`);
    const work = packFolder('kindgi-packed-');
    stage = join(work, 'release');
    app = join(work, 'app');
    const tarballs = join(work, 'tarballs');
    mkdirSync(tarballs);
    mkdirSync(app);

    // A release checkout: the tracked files, and the loader a build job generates.
    const tracked = (await run('git', ['ls-files', '-z'], { cwd: REPO })).stdout.split('\0').filter((f) => f !== '');
    assert.ok(tracked.includes('package.json') && tracked.includes('LICENSE'), 'git lists the tracked files');
    for (const file of [...tracked, 'binding.cjs', 'binding.d.cts']) {
      if (!existsSync(join(REPO, file))) continue; // Deleted in the work tree.
      mkdirSync(dirname(join(stage, file)), { recursive: true });
      cpSync(join(REPO, file), join(stage, file));
    }
    // A build job's artifact, where actions/download-artifact puts it.
    const artifacts = join(stage, 'artifacts', `bindings-${host.triple}`);
    mkdirSync(artifacts, { recursive: true });
    cpSync(addon, join(artifacts, `${BINARY}.${host.platform}.node`));
    // The napi config, limited to the host's target (a release lists all seven).
    const config = join(stage, 'napi.host.json');
    writeFileSync(config, JSON.stringify({ binaryName: BINARY, targets: [host.triple] }));

    const napi = (...args) => run(process.execPath, [NAPI, ...args, '--config-path', config], { cwd: stage, env });
    await napi('create-npm-dirs');
    const committed = readFileSync(join(REPO, 'npm', host.platform, 'package.json'), 'utf8');
    const created = readFileSync(join(stage, 'npm', host.platform, 'package.json'), 'utf8');
    assert.equal(created, committed, `npm/${host.platform}/package.json is what napi create-npm-dirs writes (run it after changing package.json)`);
    await napi('artifacts');
    // The release's own step: `prepare` builds from Rust for contributors; users must not
    // meet it (npm lists it among a dependency's install scripts).
    await run('npm', ['pkg', 'delete', 'scripts.prepare'], { cwd: stage, env });
    await napi('pre-publish', '--tag-style', 'npm', '--no-gh-release', '--skip-optional-publish');

    mainPack = await npmPack(stage, tarballs, env);
    platformPack = await npmPack(join(stage, 'npm', host.platform), tarballs, env);

    // A new project; the cache is empty and npm is offline, so nothing comes from a registry.
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'packed-install-app', version: '1.0.0', private: true }));
    installLog = await run(
      'npm',
      ['install', mainPack.tarball, platformPack.tarball, '--offline', '--cache', join(work, 'npm-cache'), '--no-audit', '--no-fund'],
      { cwd: app, env },
    );
  });

  test('no Rust toolchain is on the PATH the install and the app run with', async () => {
    for (const tool of ['cargo', 'rustc']) {
      const found = env.PATH.split(delimiter).some((dir) => existsSync(join(dir, tool)) || existsSync(join(dir, `${tool}.exe`)));
      assert.equal(found, false, tool);
    }
  });

  test('the main tarball holds LICENSE, README, the entries, the loader and every .d.ts, and nothing else', () => {
    const lib = filesUnder(join(REPO, 'lib')).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts')).map((f) => `lib/${f}`);
    const bin = readdirSync(join(REPO, 'bin')).filter((f) => f.endsWith('.mjs')).map((f) => `bin/${f}`);
    const expected = ['LICENSE', 'README.md', 'package.json', 'index.js', 'index.d.ts', 'binding.cjs', 'binding.d.cts', ...bin, ...lib].sort();
    assert.deepStrictEqual(mainPack.files, expected);
    for (const [entry, target] of Object.entries(MANIFEST.bin)) assert.ok(mainPack.files.includes(target), `bin ${entry}`);
    // Every relative module a packed file imports is packed (but the generated loader's, which
    // tries an addon or WASI file beside it before the platform package, each in a try).
    for (const file of mainPack.files.filter((f) => /\.(m?js|cjs)$/.test(f) && f !== 'binding.cjs')) {
      const source = readFileSync(join(stage, file), 'utf8');
      for (const m of source.matchAll(/(?:from\s+|import\(\s*|require\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = join(dirname(file), m[1]).split(sep).join('/');
        assert.ok(mainPack.files.includes(target), `${file} imports ${m[1]}, which is packed`);
      }
    }
  });

  test('the platform tarball holds the addon; the main package names it as its one optional dependency', () => {
    assert.deepStrictEqual(platformPack.files, ['README.md', `${BINARY}.${host.platform}.node`, 'package.json'].sort());
    const installed = (pkg) => JSON.parse(readFileSync(join(app, 'node_modules', ...pkg.split('/'), 'package.json'), 'utf8'));
    const main = installed(NAME);
    const platform = installed(`${NAME}-${host.platform}`);
    assert.deepStrictEqual(main.optionalDependencies, { [`${NAME}-${host.platform}`]: MANIFEST.version });
    assert.equal(platform.version, MANIFEST.version);
    for (const field of ['license', 'repository', 'homepage', 'bugs', 'keywords']) {
      assert.deepStrictEqual(main[field], MANIFEST[field], field);
      assert.deepStrictEqual(platform[field], MANIFEST[field], `${field} of the platform package`);
    }
    assert.equal(main.license, 'Apache-2.0');
    assert.match(readFileSync(join(app, 'node_modules', NAME, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0, January 2004/);
    // No script runs at a user's install (nor is listed for npm's install-script approval).
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(main.scripts?.[script], undefined, script);
    assert.doesNotMatch(installLog.stderr, /install script/i);
    // The addon comes from the platform package only.
    assert.deepStrictEqual(filesUnder(join(app, 'node_modules', NAME)).filter((f) => f.endsWith('.node')), []);
  });

  /** Runs a script file in the app with node and the app's PATH; its stdout parsed as JSON. */
  async function inApp(file, source, args = [], extraEnv = {}) {
    writeFileSync(join(app, file), source);
    const result = await run(process.execPath, [file, ...args], { cwd: app, env: { ...env, ...extraEnv } });
    return result;
  }

  /** A script that loads each of `subs` by `load` and reports the names, paths and the addon. */
  const probe = (load, resolveIt, subs) => `
    const out = { entries: {} };
    for (const sub of ${JSON.stringify(subs)}) {
      const specifier = ${JSON.stringify(NAME)} + sub;
      try {
        const module = ${load};
        out.entries[sub] = { path: ${resolveIt}, names: Object.keys(module).filter((n) => n !== '__esModule' && n !== 'module.exports').sort() };
      } catch (error) {
        out.entries[sub] = { code: error.code, message: String(error.message).split('\\n')[0] };
      }
    }
    out.canonical = root.canonicalJson({ b: 1, a: [true, null] });
    out.addon = Object.keys(cache).filter((p) => p.endsWith('.node'));
    out.token = process.env.KINDGI_PACK_SERVICE_TOKEN;
    process.stdout.write(JSON.stringify(out));`;

  async function expectedNames(sub) {
    const target = MANIFEST.exports[`.${sub}`].default;
    return Object.keys(await import(new URL(`.${target.slice(1)}`, `file://${REPO.split(sep).join('/')}/`).href)).sort();
  }

  function checkProbe(out, how) {
    const installedRoot = realpathSync(join(app, 'node_modules', NAME));
    for (const sub of SUBPATHS.filter((s) => s !== RUNS_ON_IMPORT)) {
      const entry = out.entries[sub];
      assert.ok(Array.isArray(entry.names), `${how} ${NAME}${sub}: ${JSON.stringify(entry)}`);
      assert.ok(realpathSync(entry.path).startsWith(installedRoot + sep), `${how} ${NAME}${sub} loads from the installed package: ${entry.path}`);
    }
    assert.equal(out.canonical, '{\n  "a": [\n    true,\n    null\n  ],\n  "b": 1\n}\n');
    assert.equal(out.addon.length, 1, JSON.stringify(out.addon));
    assert.ok(
      realpathSync(out.addon[0]).startsWith(realpathSync(join(app, 'node_modules', `${NAME}-${host.platform}`)) + sep),
      `the addon loads from the platform package: ${out.addon[0]}`,
    );
    // Loaded, ./pack-service-main runs nothing: the token is still in the environment.
    assert.equal(out.token, 'still-here');
  }

  test('ESM import of every subpath works, with the names the package exports', async () => {
    const result = await inApp(
      'probe.mjs',
      `import { createRequire } from 'node:module';
      const root = await import(${JSON.stringify(NAME)});
      const { cache } = createRequire(import.meta.url);
      ${probe('await import(specifier)', 'new URL(import.meta.resolve(specifier)).pathname', SUBPATHS.filter((sub) => sub !== RUNS_ON_IMPORT))}`,
      [],
      { KINDGI_PACK_SERVICE_TOKEN: 'still-here' },
    );
    const out = JSON.parse(result.stdout);
    checkProbe(out, 'import');
    for (const sub of SUBPATHS.filter((s) => s !== RUNS_ON_IMPORT)) {
      assert.deepStrictEqual(out.entries[sub].names, await expectedNames(sub), `import ${NAME}${sub}`);
    }
  });

  test('CommonJS require of every subpath works; ./kindgi-index-main, which runs on import, refuses require', async () => {
    const result = await inApp(
      'probe.cjs',
      `const root = require(${JSON.stringify(NAME)});
      const { cache } = require;
      ${probe('require(specifier)', 'require.resolve(specifier)', SUBPATHS)}`,
      [],
      { KINDGI_PACK_SERVICE_TOKEN: 'still-here' },
    );
    const out = JSON.parse(result.stdout);
    checkProbe(out, 'require');
    for (const sub of SUBPATHS.filter((s) => s !== RUNS_ON_IMPORT)) {
      assert.deepStrictEqual(out.entries[sub].names, await expectedNames(sub), `require ${NAME}${sub}`);
    }
    // A top-level await: require() cannot load it, and it ran nothing (no usage on stdout).
    assert.equal(out.entries[RUNS_ON_IMPORT].code, 'ERR_REQUIRE_ASYNC_MODULE');
  });

  test('./kindgi-index-main imported by a script runs kindgi-index with its arguments', async () => {
    const { HELP_TEXT } = await import('../lib/kindgi-index.js');
    writeFileSync(join(app, 'index-main.mjs'), `import ${JSON.stringify(`${NAME}${RUNS_ON_IMPORT}`)};\n`);
    const help = await run(process.execPath, ['index-main.mjs', '--help'], { cwd: app, env });
    assert.equal(help.stdout, `${HELP_TEXT}\n`);
    const wrong = await run(process.execPath, ['index-main.mjs', '--bogus'], { cwd: app, env, allowFail: true });
    assert.deepStrictEqual({ code: wrong.code, stderr: wrong.stderr }, { code: 2, stderr: 'kindgi-index: Unknown argument: --bogus\n' });
  });

  test('the installed kindgi-index indexes a pack and the installed kindgi-pack-service serves a call', async () => {
    const bin = (name) => join(app, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
    const pack = join(app, 'pack');
    mkdirSync(join(pack, 'tools'), { recursive: true });
    writeFileSync(join(pack, 'kindgi.config.mjs'), "export default { pack: { id: 'packed', version: '1.0.0' } };\n");
    writeFileSync(
      join(pack, 'tools', 'hello.mjs'),
      `export default {
  id: 'packed.hello',
  description: 'Says hello.',
  input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
  output: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'], additionalProperties: false },
  handler: ({ name }) => ({ greeting: 'Hello, ' + name + '!' }),
};
`,
    );
    const indexed = await run(bin('kindgi-index'), ['--pack-dir', pack, '--artifact-version', '20260101.1', '--published-at', '2026-01-01T00:00:00.000Z'], { cwd: app, env });
    const report = JSON.parse(indexed.stdout);
    assert.deepStrictEqual([report.packId, report.counts.tools, report.fileErrors], ['packed', 1, []]);
    const indexPath = join(pack, 'index.json');
    assert.ok(statSync(indexPath).size > 0);

    const help = await run(bin('kindgi-pack-service'), ['--help'], { cwd: app, env });
    assert.match(help.stdout, /^kindgi-pack-service: /);

    const token = 'packed-install-token';
    const child = spawn(bin('kindgi-pack-service'), ['--index', indexPath, '--host', '127.0.0.1'], {
      cwd: app,
      env: { ...env, KINDGI_PACK_SERVICE_TOKEN: token, PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    try {
      const port = await new Promise((resolve, reject) => {
        onLines(child.stderr, (text) => {
          const line = JSON.parse(text);
          if (line.kind === 'listening') resolve(line.port);
        });
        exited.then((how) => reject(new Error(`kindgi-pack-service exited ${JSON.stringify(how)} before listening`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'kindgi-pack-token': token },
        body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'packed.hello' }, input: { name: 'Ada' }, ctx: { tenantId: 't', runId: 'r' } }),
      });
      assert.equal(res.status, 200);
      assert.deepStrictEqual(await res.json(), { v: 2, kind: 'result', output: { greeting: 'Hello, Ada!' } });
      child.kill('SIGTERM');
      assert.deepStrictEqual(await exited, { code: 0, signal: null });
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('a user TypeScript file using the main APIs type-checks under --strict against the installed types', async () => {
    const user = `import {
  PACK_HEADERS,
  PACK_SERVICE_DRAIN_MS,
  canonicalJson,
  compileSchema,
  parsePackRequest,
  readPackServiceConfig,
  runHandler,
  runIndexer,
  type HandlerError,
  type Index,
  type ToolInvocationSpec,
} from '${NAME}';
import { PACK_PROTOCOL_VERSION, packError, type PackErrorMessage } from '${NAME}/protocol';
import { createPackService, createPackServiceSupervisor, startPackService } from '${NAME}/pack-service';
import { main } from '${NAME}/pack-service-main';
import { HELP_TEXT, writeIndex } from '${NAME}/kindgi-index';
import type {} from '${NAME}/kindgi-index-main';
import { defineBuildExtension, prisma } from '${NAME}/build-extensions';

const header: 'kindgi-pack-token' = PACK_HEADERS.token;
const drain: number = PACK_SERVICE_DRAIN_MS;
const text: string = canonicalJson({ b: 1, a: 2 });
const checked = compileSchema({ type: 'object', properties: { name: { type: 'string' } } }, 'input').validate({ name: 'x' });
if (!checked.valid) for (const issue of checked.issues) console.log(issue.instancePath, issue.message);
const parsed = parsePackRequest({ v: PACK_PROTOCOL_VERSION, kind: 'invoke', tool: { id: 'a.b' }, input: {}, ctx: { tenantId: 't', runId: 'r' } });
if (parsed.kind === 'err') console.log(parsed.error.code);
const problem: PackErrorMessage = packError('tool-not-in-pack', 'no such tool');

const tool: ToolInvocationSpec = { id: 'a.b', modulePath: '/abs/tools/b.mjs', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } };
const outcome = await runHandler({ tool, input: {}, ctx: { tenantId: 't', runId: 'r' } });
if (outcome.kind === 'err') {
  const error: HandlerError = outcome.error;
  console.log(error.code, error.message);
}

const indexed = await runIndexer({ packDir: 'pack' });
if (indexed.kind === 'ok') console.log(indexed.value.counts.tools);
else console.log(indexed.error.code);

const config = readPackServiceConfig(process.argv.slice(2), process.env);
if (config.kind === 'ok') {
  const started = await startPackService(config.value);
  if (started.kind === 'ok') await started.value.stop(drain);
  else console.log(started.problems.join('\\n'));
}
const index: Index = { v: 1, packId: 'p', packVersion: '1', artifactVersion: '1', publishedAt: 'now', tools: [], guardrails: [], agents: [], flows: [] };
const service = createPackService({ index, resolveModule: (p) => '/abs/' + p, token: 'secret' });
const port: number = await service.listen(0, '127.0.0.1');
await service.stop();
const supervisor = createPackServiceSupervisor({
  command: [process.execPath, 'node_modules/.bin/kindgi-pack-service'],
  moduleRoot: 'pack',
  env: async () => ({ PATH: process.env.PATH ?? '' }),
});
const front = await supervisor.listen();
console.log(front.url, supervisor.token);
await supervisor.close();
const exitCode: number = await main(['--help']);
await writeIndex(index, 'index.json');
const extension = defineBuildExtension({ name: 'mine', systemPackages: ['openssl'] });
const prismaExtension = prisma({ schema: 'prisma/schema.prisma' });
console.log(header, text, problem, port, exitCode, HELP_TEXT.length, extension.name, prismaExtension.name);

// What the types refuse (each line must be an error, or tsc fails).
// @ts-expect-error The token header's name is a literal type.
const wrongHeader: 'authorization' = PACK_HEADERS.token;
// @ts-expect-error A tool needs its schemas.
await runHandler({ tool: { id: 'a.b', modulePath: 'b.mjs' }, input: {}, ctx: { tenantId: 't', runId: 'r' } });
// @ts-expect-error The supervisor's env gives strings (or undefined, left out), not numbers.
createPackServiceSupervisor({ command: ['node'], moduleRoot: '.', env: async () => ({ PATH: 1 }) });
console.log(wrongHeader);
`;
    writeFileSync(join(app, 'user.mts'), user);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          skipLibCheck: false,
          types: ['node'],
          // @types/node as the user's own dev dependency would give it.
          typeRoots: [join(REPO, 'node_modules', '@types')],
        },
        files: ['user.mts'],
      }),
    );
    const result = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--listFiles'], { cwd: app, env, allowFail: true });
    const listed = result.stdout.split('\n').filter((f) => f.includes(`/node_modules/${NAME}/`));
    assert.ok(listed.some((f) => f.endsWith(`/node_modules/${NAME}/index.d.ts`)), 'tsc read the installed index.d.ts');
    const appDirs = [app, realpathSync(app)].map((dir) => dir.split(sep).join('/'));
    assert.ok(
      listed.every((f) => appDirs.some((dir) => f.startsWith(dir))),
      `every type of the package is the installed one:\n${listed.join('\n')}`,
    );
    assert.equal(result.code, 0, `tsc --strict:\n${result.stdout.split('\n').filter((l) => !l.startsWith('/')).join('\n')}${result.stderr}`);
  });
});
