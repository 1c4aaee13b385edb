// `kindgi-pack-dev`: its arguments, and the process: a front, swaps when the pack's files
// change, a failed boot that keeps the old child, and Ctrl-C closing it with its child.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readDevArgs } from '../lib/pack-dev.js';
import { processesNaming, spareNaming } from './helpers/processes.mjs';
import { until } from './helpers/until.mjs';
import { launchDev } from './helpers/dev-cli.mjs';
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
    '--index or --pack-dir is required',
    '--port must be a port number, not "x"',
  ]);
  assert.deepEqual(readDevArgs(['--index', 'i.json', '--']).problems, ["'--' needs a command after it"]);
  // A flag where a value should be is not swallowed; names of Object's own members are unknown.
  assert.deepEqual(readDevArgs(['--index', 'i.json', '--token', '--json', 'toString']).problems, ['--token needs a value', 'Unknown argument "toString"']);
  // `--flag=value` for the flags that take a value; not for the others.
  const joined = readDevArgs(['--index=i.json', '--port=9', '--module-root=/m=x']).value;
  assert.deepEqual([joined.port, joined.moduleRoot], [9, '/m=x']);
  assert.deepEqual(readDevArgs(['--index=', '--json=1']).problems, ['--index needs a value', 'Unknown argument "--json=1"', '--index or --pack-dir is required']);
});

const launch = launchDev;

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

/** The CLI serving a copy of the fixture pack whose index sits in a folder of its own, outside the module root. */
async function servingIndexOutsideTheRoot() {
  const root = packFolder('kindgi-pack-dev-root-');
  cpSync(fixture, root, { recursive: true });
  const out = packFolder('kindgi-pack-dev-out-');
  const index = join(out, 'index.json');
  const original = JSON.parse(readFileSync(join(root, 'index.json'), 'utf8'));
  writeFileSync(index, JSON.stringify(original));
  const run = launch(['--index', index, '--module-root', root]);
  const front = await run.nth('front', 1);
  await run.nth('started', 1);
  return { out, index, original, run, front };
}

test('an index outside the module root, saved by renaming over it, swaps too', async () => {
  const { out, index, original, run, front } = await servingIndexOutsideTheRoot();
  // As an editor or a build tool saves: a new file renamed over the old one.
  writeFileSync(join(out, 'index.json.tmp'), JSON.stringify({ ...original, artifactVersion: '20260303.3' }));
  renameSync(join(out, 'index.json.tmp'), index);
  await run.nth('started', 2);
  const res = await fetch(`${front.url}/v1/info`, { headers: { 'kindgi-pack-token': front.token } });
  assert.equal((await res.json()).artifactVersion, '20260303.3');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('an index folder outside the module root deleted and written again is watched again', async () => {
  const { out, index, original, run, front } = await servingIndexOutsideTheRoot();
  // `rm -rf build && build` for the index alone: the deletion is a failed boot, the new index a swap.
  rmSync(out, { recursive: true });
  await within(run.nth('boot-failed', 1), 'failed boot after the deletion');
  mkdirSync(out);
  writeFileSync(index, JSON.stringify({ ...original, artifactVersion: '20260404.4' }));
  await within(run.nth('started', 2), 'swap after the index came back');
  const info = async () => (await (await fetch(`${front.url}/v1/info`, { headers: { 'kindgi-pack-token': front.token } })).json()).artifactVersion;
  assert.equal(await info(), '20260404.4');
  writeFileSync(index, JSON.stringify({ ...original, artifactVersion: '20260505.5' }));
  await within(run.nth('started', 3), 'swap after an edit of the new index');
  assert.equal(await info(), '20260505.5');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

/** `promise`, or a failure naming `what` when it has not settled within `ms`. */
function within(promise, what, ms = 5000) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A copy of the fixture pack whose `fixture.versioned` answers `version` (after `delayMs` of loading). */
function versionedSource(version, delayMs = 0) {
  const source = readFileSync(join(fixture, 'tools', 'versioned.mjs'), 'utf8').replace("handler: () => ({ version: '1.2.0' })", `handler: () => ({ version: '${version}' })`);
  return delayMs > 0 ? `await new Promise((resolve) => setTimeout(resolve, ${delayMs}));\n${source}` : source;
}
async function versionServed(front) {
  const res = await fetch(`${front.url}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': front.token },
    body: '{"v":2,"kind":"invoke","tool":{"id":"fixture.versioned"},"input":{},"ctx":{"tenantId":"t","runId":"r"}}',
  });
  return (await res.json()).output?.version;
}

test('a module saved by renaming over it, then written in place, swaps both times', async () => {
  const root = packFolder('kindgi-pack-dev-rename-');
  cpSync(fixture, root, { recursive: true });
  const module = join(root, 'tools', 'versioned.mjs');
  const run = launch(['--index', join(root, 'index.json')]);
  const front = await run.nth('front', 1);
  await run.nth('started', 1);
  // An editor's save: a new file renamed over the old one (a new inode under the same name).
  writeFileSync(`${module}.new`, versionedSource('renamed'));
  renameSync(`${module}.new`, module);
  await within(run.nth('started', 2), 'swap after the rename');
  assert.equal(await versionServed(front), 'renamed');
  // A plain write to the file that replaced it is a change too.
  writeFileSync(module, versionedSource('written'));
  await within(run.nth('started', 3), 'swap after the write to the renamed file');
  assert.equal(await versionServed(front), 'written');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('changes under .git and node_modules, and editor temp files, do not swap', async () => {
  const root = packFolder('kindgi-pack-dev-ignored-');
  cpSync(fixture, root, { recursive: true });
  mkdirSync(join(root, '.git'));
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), 'export {};\n');
  const run = launch(['--index', join(root, 'index.json')]);
  const front = await run.nth('front', 1);
  await run.nth('started', 1);
  writeFileSync(join(root, '.git', 'index'), 'git');
  writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), 'export const changed = 1;\n');
  for (const name of ['.versioned.mjs.swp', '.versioned.mjs.swx', 'versioned.mjs~', '.#versioned.mjs', '4913']) {
    writeFileSync(join(root, 'tools', name), 'temp');
  }
  await sleep(600);
  assert.deepEqual(run.events.filter((e) => e.kind === 'started').length, 1, 'no swap for ignored changes');
  // The watching still works: a real change swaps.
  writeFileSync(join(root, 'tools', 'versioned.mjs'), versionedSource('real'));
  await within(run.nth('started', 2), 'swap after a real change');
  assert.equal(await versionServed(front), 'real');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('changes during a slow swap lead to exactly one more swap, with the last code', async () => {
  const root = packFolder('kindgi-pack-dev-slow-');
  cpSync(fixture, root, { recursive: true });
  const module = join(root, 'tools', 'versioned.mjs');
  const slowMs = 900;
  writeFileSync(module, versionedSource('v0', slowMs));
  const run = launch(['--index', join(root, 'index.json')]);
  const front = await run.nth('front', 1);
  await run.nth('started', 1);
  writeFileSync(module, versionedSource('v1', slowMs));
  // The swap has begun (after the 100 ms settling) and takes `slowMs` to boot: edits in it.
  await sleep(250);
  for (const version of ['v2', 'v3', 'v4']) {
    writeFileSync(module, versionedSource(version, slowMs));
    await sleep(150);
  }
  await within(run.nth('started', 3), 'follow-up swap', 6000);
  await sleep(slowMs + 500);
  assert.equal(run.events.filter((e) => e.kind === 'started').length, 3, 'one swap, then one follow-up');
  assert.equal(await versionServed(front), 'v4');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('a module root deleted and built again is watched again', async () => {
  const root = packFolder('kindgi-pack-dev-rebuilt-');
  cpSync(fixture, root, { recursive: true });
  const run = launch(['--index', join(root, 'index.json')]);
  const front = await run.nth('front', 1);
  await run.nth('started', 1);
  // `rm -rf dist && build`: the deletion is a failed boot (no index), the rebuild a swap.
  rmSync(root, { recursive: true });
  await within(run.nth('boot-failed', 1), 'failed boot after the deletion');
  cpSync(fixture, root, { recursive: true });
  writeFileSync(join(root, 'tools', 'versioned.mjs'), versionedSource('rebuilt'));
  await within(run.nth('started', 2), 'swap after the rebuild');
  assert.equal(await versionServed(front), 'rebuilt');
  writeFileSync(join(root, 'tools', 'versioned.mjs'), versionedSource('edited'));
  await within(run.nth('started', 3), 'swap after an edit in the rebuilt root');
  assert.equal(await versionServed(front), 'edited');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('--pack-dir serves an edit from the held spare, a change to a file the modules read from a fresh child, and SIGTERM leaves no process behind', async () => {
  const root = packFolder('kindgi-pack-dev-dir-');
  mkdirSync(join(root, 'tools'));
  writeFileSync(join(root, 'package.json'), '{"type":"module","private":true}\n');
  writeFileSync(join(root, 'kindgi.config.mjs'), "export default { pack: { id: 'spare', version: '1.0.0' } };\n");
  writeFileSync(join(root, 'tools', 'greeting.txt'), 'hello\n');
  const module = join(root, 'tools', 'who.mjs');
  // Each evaluation is noted (outside the watched tools folder) with the pid that made it.
  const noted = join(root, 'imports.log');
  const who = (version) => `import { appendFileSync, readFileSync } from 'node:fs';
const greeting = readFileSync(new URL('./greeting.txt', import.meta.url), 'utf8').trim();
appendFileSync(${JSON.stringify(noted)}, \`\${process.pid}\\n\`);
export default {
  id: 'spare.who',
  input: { type: 'object' },
  output: { type: 'object' },
  handler: () => ({ pid: process.pid, version: '${version}', greeting }),
};
`;
  writeFileSync(module, who('v1'));
  const run = launch(['--pack-dir', root]);
  const front = await run.nth('front', 1);
  await run.nth('started', 1);
  const served = async () => {
    const res = await fetch(`${front.url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': front.token },
      body: '{"v":2,"kind":"invoke","tool":{"id":"spare.who"},"input":{},"ctx":{"tenantId":"t","runId":"r"}}',
    });
    return (await res.json()).output;
  };
  const first = await served();
  assert.deepEqual([first.version, first.greeting], ['v1', 'hello']);
  const spare = await spareNaming(root, [first.pid]);
  writeFileSync(module, who('v2'));
  await within(run.nth('started', 2), 'swap after the edit');
  assert.deepEqual(await served(), { pid: spare, version: 'v2', greeting: 'hello' });
  // The spare held since read the file as its module loaded: a fresh child serves the change.
  const next = await spareNaming(root, [first.pid, spare]);
  await until(() => readFileSync(noted, 'utf8').split('\n').includes(String(next)), 'the spare importing the module');
  writeFileSync(join(root, 'tools', 'greeting.txt'), 'bonjour\n');
  await within(run.nth('started', 3), 'swap after the read file changed');
  const third = await served();
  assert.deepEqual([third.version, third.greeting], ['v2', 'bonjour']);
  assert.notEqual(third.pid, next);
  await spareNaming(root, [first.pid, spare, next, third.pid]);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  assert.deepEqual(processesNaming(root), [], 'no child, held or serving, outlives the CLI');
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

/** Runs the CLI to its end: its exit code, stdout and stderr. */
async function runToEnd(args) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  return { code, out, err };
}

test('bad arguments print the problems and the usage on stderr, and exit 2', async () => {
  const { code, out, err } = await runToEnd(['--port', '70000']);
  assert.equal(code, 2);
  assert.equal(out, '');
  assert.match(err, /^--index or --pack-dir is required\n--port must be a port number, not "70000"\nUsage: kindgi-pack-dev/);
});

test('without --json an error is a line on stderr', async () => {
  const missing = join(tmpdir(), 'no-such-index.json');
  assert.deepEqual(await runToEnd([`--index=${missing}`]), { code: 1, out: '', err: `No index at ${missing}\n` });
});
