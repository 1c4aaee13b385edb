// createPackServiceSupervisor's `spare` option with real children (this package's
// kindgi-pack-service): the next child spawned after a start and held, released by the next
// start launched alike; a start launched otherwise, or fresh, spawning anew; a spare that dies
// replaced quietly; stop, beginClose and close leaving nothing; an edited module served by the
// released spare while an unchanged one is the module it imported held; and what pack code
// in a spare sees.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { native } from '../lib/native.js';
import { frontClient } from './helpers/front-client.mjs';
import { ENV_NAMES_TOOL, PID_TOOL, packFolder, writeLocalPack } from './helpers/local-pack.mjs';
import { listensOnTcp, processesNaming, spareNaming, startedHeld } from './helpers/processes.mjs';
import { until } from './helpers/until.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const command = [process.execPath, join(here, '..', 'bin', 'kindgi-pack-service.mjs')];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A supervisor with `spare` over `root`, its front listening, and the events it raises (`log`
 * left out). Pack code loads ahead only with the env filter off, as `kindgi dev` runs it.
 */
async function spareSupervisor(root, env = async () => ({ PATH: process.env.PATH ?? '', KINDGI_PACK_ENV_FILTER: 'off' })) {
  const events = [];
  const sup = createPackServiceSupervisor({ command, moduleRoot: root, env, spare: true, onEvent: (e) => e.kind !== 'log' && events.push(e) });
  const front = await sup.listen();
  const call = frontClient(front, sup.token);
  const output = async (tool) => JSON.parse((await call.invoke(tool)).text).output;
  return { sup, events, output, kinds: () => events.map((e) => e.kind) };
}

const alive = (pid) => processesNaming('').includes(pid);

test('a spare is spawned after a start and held, not listening; the next start serves from it', async () => {
  const root = packFolder('kindgi-spare-held-');
  const index = writeLocalPack(root, { 'pid.mjs': PID_TOOL });
  const { sup, output, kinds } = await spareSupervisor(root);
  try {
    assert.equal((await sup.start(index)).kind, 'ok');
    const first = (await output('local.pid')).pid;
    assert.equal(startedHeld(first), false, 'the first child is spawned as before');
    const spare = await spareNaming(root, [first]);
    await sleep(300);
    assert.equal(listensOnTcp(first), true);
    assert.equal(listensOnTcp(spare), false, 'held, it does not listen');
    assert.deepEqual(processesNaming(root).sort(), [first, spare].sort());

    const started = await sup.start(index);
    assert.equal(started.kind, 'ok');
    assert.equal((await output('local.pid')).pid, spare, 'the spare serves');
    assert.equal(listensOnTcp(spare), true);
    await until(() => !alive(first), 'the first child retired');
    // The next spare, held in its turn.
    const next = await spareNaming(root, [first, spare]);
    assert.equal(listensOnTcp(next), false);
    assert.deepEqual(kinds(), ['started', 'started']);
  } finally {
    await sup.close();
  }
  assert.deepEqual(processesNaming(root), [], 'close leaves no process behind, held or serving');
});

test('a start launched otherwise (a new env()) or fresh spawns anew and kills the spare', async () => {
  const root = packFolder('kindgi-spare-otherwise-');
  const index = writeLocalPack(root, { 'pid.mjs': PID_TOOL });
  let generation = 1;
  const env = async () => ({ PATH: process.env.PATH ?? '', KINDGI_PACK_ENV_FILTER: 'off', GENERATION: String(generation) });
  const { sup, output, kinds } = await spareSupervisor(root, env);
  try {
    assert.equal((await sup.start(index)).kind, 'ok');
    const first = (await output('local.pid')).pid;
    const spare = await spareNaming(root, [first]);
    generation = 2;
    assert.equal((await sup.start(index)).kind, 'ok');
    const second = (await output('local.pid')).pid;
    assert.ok(![first, spare].includes(second), 'a new child serves');
    assert.equal(alive(spare), false, 'the spare was killed');
    // Launched alike again, but fresh: the spare held since is not used either.
    const alike = await spareNaming(root, [first, spare, second]);
    assert.equal((await sup.start(index, { fresh: true })).kind, 'ok');
    const third = (await output('local.pid')).pid;
    assert.ok(![second, alike].includes(third), 'a new child serves');
    assert.equal(alive(alike), false, 'the spare was killed');
    assert.deepEqual(kinds(), ['started', 'started', 'started']);
  } finally {
    await sup.close();
  }
  assert.deepEqual(processesNaming(root), []);
});

test('a spare that dies is dropped without an event, and replaced after the next start', async () => {
  const root = packFolder('kindgi-spare-dies-');
  const index = writeLocalPack(root, { 'pid.mjs': PID_TOOL });
  const { sup, output, kinds } = await spareSupervisor(root);
  try {
    assert.equal((await sup.start(index)).kind, 'ok');
    const first = (await output('local.pid')).pid;
    const spare = await spareNaming(root, [first]);
    process.kill(spare, 'SIGKILL');
    await until(() => !alive(spare), 'the spare gone');
    // Past an exit's report and a restart's delay: neither comes.
    await sleep(1000);
    assert.deepEqual(kinds(), ['started']);
    assert.deepEqual(processesNaming(root), [first], 'none made before the next start');
    assert.equal((await sup.start(index)).kind, 'ok');
    const second = (await output('local.pid')).pid;
    assert.ok(![first, spare].includes(second));
    await spareNaming(root, [first, second]);
    assert.deepEqual(kinds(), ['started', 'started']);
  } finally {
    await sup.close();
  }
  assert.deepEqual(processesNaming(root), []);
});

test('stop() and beginClose() kill the spare, and close() leaves no process behind', async () => {
  const root = packFolder('kindgi-spare-stop-');
  const index = writeLocalPack(root, { 'pid.mjs': PID_TOOL });
  const { sup, output } = await spareSupervisor(root);
  try {
    assert.equal((await sup.start(index)).kind, 'ok');
    const first = (await output('local.pid')).pid;
    await spareNaming(root, [first]);
    await sup.stop();
    assert.deepEqual(processesNaming(root), [], 'stop leaves no child, held or serving');
    await sleep(300);
    assert.deepEqual(processesNaming(root), [], 'and none is made after it');
    assert.equal((await sup.start(index)).kind, 'ok');
    const second = (await output('local.pid')).pid;
    const spare = await spareNaming(root, [second]);
    sup.beginClose();
    await until(() => !alive(spare), 'the spare killed at beginClose');
  } finally {
    await sup.close();
  }
  assert.deepEqual(processesNaming(root), []);
});

/** A tool module `name` answering `version`, which notes each evaluation (`<pid> <name> <version>`) in `imports.log`. */
function noting(root, name, version) {
  const log = JSON.stringify(join(root, 'imports.log'));
  return `import { appendFileSync } from 'node:fs';
appendFileSync(${log}, \`\${process.pid} ${name} ${version}\\n\`);
export default () => ({ pid: process.pid, version: '${version}' });
`;
}

/** The evaluations `imports.log` notes for `pid`, as `name version`. */
function evaluations(root, pid) {
  let text = '';
  try {
    text = readFileSync(join(root, 'imports.log'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${pid} `))
    .map((line) => line.slice(String(pid).length + 1));
}

test('an edited module is served by the released spare; an unchanged one is the module it imported held', async () => {
  const root = packFolder('kindgi-spare-edit-');
  const index = writeLocalPack(root, { 'edited.mjs': noting(root, 'edited', 'v1'), 'same.mjs': noting(root, 'same', 'u1') });
  const { sup, output } = await spareSupervisor(root);
  try {
    assert.equal((await sup.start(index)).kind, 'ok');
    const first = (await output('local.edited')).pid;
    const spare = await spareNaming(root, [first]);
    // Held, it imported both as they were.
    await until(() => evaluations(root, spare).length === 2, 'the spare importing the modules');
    assert.deepEqual(evaluations(root, spare).sort(), ['edited v1', 'same u1']);
    const file = join(root, 'edited.mjs');
    const before = statSync(file).mtimeMs;
    await sleep(20);
    writeFileSync(file, noting(root, 'edited', 'v2'));
    assert.notEqual(statSync(file).mtimeMs, before, 'the edit has a new mtime');

    assert.equal((await sup.start(index)).kind, 'ok');
    assert.deepEqual(await output('local.edited'), { pid: spare, version: 'v2' });
    assert.deepEqual(await output('local.same'), { pid: spare, version: 'u1' });
    assert.deepEqual(evaluations(root, spare).sort(), ['edited v1', 'edited v2', 'same u1'], 'the unchanged module was not evaluated again');
  } finally {
    await sup.close();
  }
});

test('pack code in a spare sees neither the token nor the hold; with the env filter on none runs before the release', async () => {
  const root = packFolder('kindgi-spare-env-');
  const atImport = `const names = Object.keys(process.env).sort();\nexport default () => ({ names });\n`;
  const index = writeLocalPack(root, { 'env.mjs': ENV_NAMES_TOOL, 'early.mjs': atImport, 'noted.mjs': noting(root, 'noted', 'n1') });
  for (const filter of ['off', 'on']) {
    const { sup, output } = await spareSupervisor(root, async () => ({ PATH: process.env.PATH ?? '', KINDGI_PACK_ENV_FILTER: filter }));
    try {
      assert.equal((await sup.start(index)).kind, 'ok');
      const first = (await output('local.noted')).pid;
      const spare = await spareNaming(root, [first]);
      if (filter === 'on') {
        await sleep(500);
        assert.deepEqual(evaluations(root, spare), [], 'no pack code before the release');
      } else {
        await until(() => evaluations(root, spare).length === 1, 'the spare importing ahead');
      }
      assert.equal((await sup.start(index)).kind, 'ok');
      assert.equal((await output('local.noted')).pid, spare);
      for (const tool of ['local.env', 'local.early']) {
        const { names } = await output(tool);
        assert.ok(names.includes('PATH'), `${tool}: ${names}`);
        for (const name of ['KINDGI_PACK_SERVICE_TOKEN', native.PACK_SERVICE_HOLD_VAR]) {
          assert.ok(!names.includes(name), `${tool} with the filter ${filter} sees ${name}`);
        }
      }
    } finally {
      await sup.close();
    }
  }
});

test('spare and fresh must be booleans', async () => {
  const root = packFolder('kindgi-spare-options-');
  const env = async () => ({});
  assert.throws(() => createPackServiceSupervisor({ command, moduleRoot: root, env, spare: 'yes' }), {
    code: 'invalid-argument',
    message: 'options.spare must be a boolean, not a string',
  });
  const sup = createPackServiceSupervisor({ command, moduleRoot: root, env });
  try {
    await assert.rejects(sup.start(join(root, 'index.json'), { fresh: 1 }), { code: 'invalid-argument', message: 'options.fresh must be a boolean, not a number' });
  } finally {
    await sup.close();
  }
});
