// `kindgi-pack-service --help` / `-h` as a process: usage on stdout, exit 0, whatever the
// environment; every variable the package reads is named in it (read from a run that records
// each `process.env` lookup the package's own code makes, and from the Rust side's variable
// constants).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { onLines } from './helpers/lines.mjs';
import { packFolder } from './helpers/local-pack.mjs';
import { native } from '../lib/native.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(root, 'bin', 'kindgi-pack-service.mjs');
const MAIN = join(root, 'lib', 'pack-service-main.js');
const fixtureIndex = join(root, '__test__', 'fixtures', 'js-pack', 'index.json');

/** Runs `node <args>` to its end (10 s at most): `{ code, signal, stdout, stderr }`. */
function node(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

let usage;
/** The help as the bin prints it with no environment at all. */
async function help() {
  usage ??= (await node([BIN, '--help'], {})).stdout;
  return usage;
}

test('--help and -h print the usage on stdout and exit 0, with no token and bad log settings', async () => {
  const text = await help();
  assert.match(text, /^kindgi-pack-service: /);
  assert.ok(text.endsWith('in a shell).\n'), 'one newline after the text');
  for (const section of ['Usage:', 'Arguments', 'Environment:', 'Exit codes:']) {
    assert.ok(text.includes(`\n${section}`), `the help has its ${section} section`);
  }
  for (const flag of ['--index', '--module-root', '--bundle-map', '--host', '--help, -h']) assert.ok(text.includes(`  ${flag} `), flag);
  assert.match(text, /\n {2}0 {2}SIGTERM: .*8 s/);
  assert.match(text, /\n {2}1 {2}The configuration is invalid/);
  for (const line of text.split('\n')) assert.ok(line.length <= 88, `a line fits a terminal: ${line}`);
  // The workers' limit and this machine's `auto` are the ones the service reads with.
  const { maxWorkers } = native.serviceDefaults();
  const auto = native.packServiceWorkers('auto', availableParallelism()).workers;
  assert.match(native.packServiceWorkers(String(maxWorkers + 1), 1).refusal, new RegExp(`to ${maxWorkers}$`));
  assert.match(text, new RegExp(`whole number up to ${maxWorkers} \\(`));
  assert.match(text, new RegExp(`HTTP: ${auto} here\\)`));
  const hostile = { KINDGI_LOG_FORMAT: 'loud', PORT: 'x', KINDGI_PACK_ENV_CHECK: 'maybe' };
  for (const args of [['--help'], ['-h'], ['--index', 'i.json', '--host', '127.0.0.1', '-h'], ['--unknown', '--help']]) {
    const run = await node([BIN, ...args], hostile);
    assert.deepStrictEqual({ code: run.code, signal: run.signal, stderr: run.stderr }, { code: 0, signal: null, stderr: '' }, args.join(' '));
    assert.equal(run.stdout, text, args.join(' '));
  }
  // The process entry `node …/pack-service-main.js` is the same process.
  const entry = await node([MAIN, '-h'], {});
  assert.deepStrictEqual({ code: entry.code, stdout: entry.stdout }, { code: 0, stdout: text });
});

test("a --help that is a flag's value is that value, not the help", async () => {
  // `--index --help` names the index `--help`, as TypeScript's `argv.indexOf` reads it.
  for (const flag of ['--index', '--module-root', '--bundle-map', '--host']) {
    const run = await node([BIN, flag, '--help'], {});
    assert.equal(run.code, 1, flag);
    assert.equal(run.stdout, '', flag);
    assert.equal(JSON.parse(run.stderr.trim()).kind, 'config-invalid', flag);
  }
  // With a token, `--index --help` is a boot that fails on the index it names.
  const run = await node([BIN, '--index', '--help'], { KINDGI_PACK_SERVICE_TOKEN: 't', PORT: '0' });
  assert.equal(run.code, 1);
  const line = JSON.parse(run.stderr.trim());
  assert.equal(line.kind, 'boot-failed');
  assert.match(line.problems[0], /--help/);
});

test('every variable the process reads while it boots, serves a call and stops is in the help', async () => {
  const dir = packFolder('kindgi-help-env-');
  const out = join(dir, 'read.json');
  // Records each name the package's own code (lib/, bin/, index.js) looks up in process.env,
  // from before the package loads to the exit. Node's own lookups (FORCE_COLOR, read by some
  // lines as they write to a stream, say) are no setting of this process: the function that
  // reads is not the package's.
  const recorder = join(dir, 'record-env.mjs');
  const own = ['lib/', 'bin/', 'index.js'].map((path) => join(root, path));
  writeFileSync(
    recorder,
    `import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const out = ${JSON.stringify(out)};
const own = ${JSON.stringify(own)};
const read = new Set();
/** The file of the function that made the lookup: past this, note and the trap. */
function reader() {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_error, sites) => sites;
  const holder = {};
  Error.captureStackTrace(holder, reader);
  const sites = holder.stack;
  Error.prepareStackTrace = prepare;
  const file = sites[2]?.getFileName() ?? '';
  return file.startsWith('file:') ? fileURLToPath(file) : file;
}
const note = (k) => {
  if (typeof k !== 'string') return;
  const file = reader();
  if (own.some((path) => file.startsWith(path))) read.add(k);
};
process.env = new Proxy(process.env, {
  get: (t, k) => (note(k), Reflect.get(t, k)),
  has: (t, k) => (note(k), Reflect.has(t, k)),
});
process.on('exit', () => writeFileSync(out, JSON.stringify([...read].sort())));
`,
  );
  // No --index: the index is read from KINDGI_PACK_INDEX.
  const child = spawn(process.execPath, ['--import', recorder, BIN, '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: 'help-token', PORT: '0', KINDGI_PACK_INDEX: fixtureIndex },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise((resolve, reject) => {
    onLines(child.stderr, (text) => {
      const line = JSON.parse(text);
      if (line.kind === 'listening') resolve(line.port);
    });
    exited.then((code) => reject(new Error(`exited ${code} before listening`)));
  });
  const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': 'help-token' },
    body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: { text: 'hi' }, ctx: { tenantId: 't', runId: 'r' } }),
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  const ours = JSON.parse(readFileSync(out, 'utf8'));
  for (const name of ['KINDGI_PACK_SERVICE_TOKEN', 'PORT', 'KINDGI_PACK_INDEX', 'KINDGI_LOG_LEVEL']) {
    assert.ok(ours.includes(name), `the recorder saw ${name} read (${ours.join(', ')})`);
  }
  const text = await help();
  for (const name of ours) assert.match(text, new RegExp(`\\b${name}\\b`), `the help names ${name}, which the process reads`);
});

test("the Rust side's variables are in the help", async () => {
  const text = await help();
  const names = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.rs')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/const [A-Z_]*(?:VAR|VARIABLE): &str = "([A-Z0-9_]+)"/g)) names.push(m[1]);
      }
    }
  };
  walk(join(root, 'src'));
  assert.ok(names.includes('TOKIO_WORKER_THREADS') && names.includes('KINDGI_PACK_SERVICE_TOKEN'), names.join(', '));
  for (const name of names) assert.match(text, new RegExp(`\\b${name}\\b`), name);
});
