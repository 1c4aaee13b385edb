// `kindgi-pack-dev`: its arguments, and the process: a front, swaps when the pack's files
// change, a failed boot that keeps the old child, and Ctrl-C closing it with its child.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readDevArgs } from '../lib/pack-dev.js';
import { processesNaming } from './helpers/processes.mjs';
import { onLines } from './helpers/lines.mjs';
import { ENV_NAMES_TOOL, localCall, packFolder, writeLocalPack } from './helpers/local-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-dev.mjs');
const fixture = join(here, 'fixtures', 'js-pack');

test('arguments: defaults, a command after --, and every problem at once', () => {
  const { value } = readDevArgs(['--index', '/p/index.json']);
  assert.equal(value.moduleRoot, '/p');
  assert.equal(value.watch, true);
  assert.equal(value.command[0], process.execPath);
  assert.match(value.command[1], /kindgi-pack-service\.mjs$/);
  const custom = readDevArgs(['--index', 'i.json', '--module-root', '/m', '--port', '9', '--no-watch', '--', 'python', '-m', 'kindgi.pack', 'serve']).value;
  assert.deepEqual([custom.moduleRoot, custom.port, custom.watch, custom.command], ['/m', 9, false, ['python', '-m', 'kindgi.pack', 'serve']]);
  assert.deepEqual(readDevArgs(['--port', 'x', '--nope', '--token']).problems, [
    'Unknown argument "--nope"',
    '--token needs a value',
    '--index is required',
    '--port must be a port number, not "x"',
  ]);
  assert.deepEqual(readDevArgs(['--index', 'i.json', '--']).problems, ["'--' needs a command after it"]);
  // A flag where a value should be is not swallowed; names of Object's own members are unknown.
  assert.deepEqual(readDevArgs(['--index', 'i.json', '--token', '--json', 'toString']).problems, ['--token needs a value', 'Unknown argument "toString"']);
});

/** Spawns the CLI with --json; `next(kind)` resolves with the next event of that kind. */
function launch(args, env = process.env) {
  const child = spawn(process.execPath, [bin, '--json', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const events = [];
  const waiting = [];
  onLines(child.stdout, (line) => {
    const event = JSON.parse(line);
    events.push(event);
    for (const w of waiting.filter((w) => w.kind === event.kind && events.filter((e) => e.kind === w.kind).length >= w.count)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(event);
    }
  });
  // 'close', not 'exit': every line on stdout has been read by then.
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  /** The `count`-th event of `kind` (1 = the first). */
  const nth = (kind, count) => {
    const seen = events.filter((e) => e.kind === kind);
    if (seen.length >= count) return Promise.resolve(seen[count - 1]);
    return new Promise((resolve) => waiting.push({ kind, count, resolve }));
  };
  return { child, events, exited, nth };
}

test('serves through a front, swaps when the pack changes, keeps the old child when a boot fails, closes on SIGINT', async () => {
  const root = packFolder('kindgi-pack-dev-');
  cpSync(fixture, root, { recursive: true });
  const index = join(root, 'index.json');
  const run = launch(['--index', index]);
  const front = await run.nth('front', 1);
  await run.nth('started', 1);
  const invoke = async () => {
    const res = await fetch(`${front.url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': front.token },
      body: '{"v":2,"kind":"invoke","tool":{"id":"fixture.echo"},"input":{"text":"hi"},"ctx":{"tenantId":"t","runId":"r"}}',
    });
    return { version: res.headers.get('kindgi-artifact-version'), text: await res.text() };
  };
  assert.deepEqual(await invoke(), { version: '20260101.1', text: '{"v":2,"kind":"result","output":{"text":"hi","n":1}}' });

  // The code changes: a new child serves the same URL.
  const original = JSON.parse(readFileSync(index, 'utf8'));
  writeFileSync(index, JSON.stringify({ ...original, artifactVersion: '20260202.2' }));
  await run.nth('started', 2);
  assert.equal((await invoke()).version, '20260202.2');

  // A change that breaks the pack: the boot fails and the running child keeps serving.
  writeFileSync(index, '{ not json');
  const failed = await run.nth('boot-failed', 1);
  assert.match(failed.problems[0], /index/i);
  assert.equal((await invoke()).version, '20260202.2');

  run.child.kill('SIGINT');
  assert.equal(await run.exited, 0);
  assert.equal(run.events.at(-1).kind, 'closed');
  assert.deepEqual(processesNaming(root), [], 'no child outlives the CLI');
});

test('an index outside the module root, saved by renaming over it, swaps too', async () => {
  const root = packFolder('kindgi-pack-dev-root-');
  cpSync(fixture, root, { recursive: true });
  const out = packFolder('kindgi-pack-dev-out-');
  const index = join(out, 'index.json');
  const original = JSON.parse(readFileSync(join(root, 'index.json'), 'utf8'));
  writeFileSync(index, JSON.stringify(original));
  const run = launch(['--index', index, '--module-root', root]);
  const front = await run.nth('front', 1);
  await run.nth('started', 1);
  // As an editor or a build tool saves: a new file renamed over the old one.
  writeFileSync(join(out, 'index.json.tmp'), JSON.stringify({ ...original, artifactVersion: '20260303.3' }));
  renameSync(join(out, 'index.json.tmp'), index);
  await run.nth('started', 2);
  const res = await fetch(`${front.url}/v1/info`, { headers: { 'kindgi-pack-token': front.token } });
  assert.equal((await res.json()).artifactVersion, '20260303.3');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('pack code sees the variables the pack does not declare, as under kindgi dev, unless the filter is set', async () => {
  const indexPath = writeLocalPack(packFolder('kindgi-pack-dev-env-'), { 'env.mjs': ENV_NAMES_TOOL });
  const namesSeen = async (env) => {
    const run = launch(['--index', indexPath, '--no-watch'], { PATH: process.env.PATH, DATABASE_URL: 'postgres://dev', ...env });
    const front = await run.nth('front', 1);
    await run.nth('started', 1);
    const res = await fetch(`${front.url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': front.token },
      body: localCall('env'),
    });
    const { output } = await res.json();
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
    return { names: output.names, dropped: run.events.filter((e) => e.kind === 'log' && e.event?.kind === 'env-dropped') };
  };
  const dev = await namesSeen({});
  assert.ok(dev.names.includes('DATABASE_URL'));
  assert.ok(!dev.names.includes('KINDGI_PACK_SERVICE_TOKEN'));
  assert.deepEqual(dev.dropped, []);
  const filtered = await namesSeen({ KINDGI_PACK_ENV_FILTER: 'on' });
  assert.ok(!filtered.names.includes('DATABASE_URL'));
  assert.deepEqual(filtered.dropped.map((e) => e.event.names), [['DATABASE_URL']]);
});

test('a command after -- is the child; one that cannot run is a failed boot, and SIGTERM still closes', async () => {
  const run = launch(['--index', join(fixture, 'index.json'), '--no-watch', '--', '/no/such/program']);
  const failed = await run.nth('boot-failed', 1);
  assert.match(failed.problems[0], /ENOENT|No such file/);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('a missing index or a bad token is an error line and exit 1', async () => {
  for (const [args, expected] of [
    [['--index', join(tmpdir(), 'no-such-index.json')], { kind: 'error', message: `No index at ${join(tmpdir(), 'no-such-index.json')}` }],
    [['--index', join(fixture, 'index.json'), '--token', 'short'], { kind: 'error', code: 'invalid-argument', message: 'A pack service token is at least 32 URL-safe base64 characters.' }],
  ]) {
    const run = launch(args);
    assert.equal(await run.exited, 1);
    assert.deepEqual(run.events, [expected]);
  }
});

test('bad arguments print the problems and the usage, and exit 2', async () => {
  const child = spawn(process.execPath, [bin, '--port', '70000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 2);
  assert.match(out, /^--index is required\n--port must be a port number, not "70000"\nUsage: kindgi-pack-dev/);
});
