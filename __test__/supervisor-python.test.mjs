// The supervisor with the Python SDK's pack service as its child (`python -m kindgi.pack
// serve`, kindgi 0.1.10, on the fixture pack in Python): the process contract is the only
// thing the two share, so this proves the front, swaps, restarts, stop and close work with a
// pack service that is not this package's. The peer comes from `node scripts/python-peer.mjs`
// (CI runs it); without it these tests are skipped and say so.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { findPythonPeer } from '../scripts/python-peer.mjs';
import { frontClient } from './helpers/front-client.mjs';
import { processesNaming } from './helpers/processes.mjs';
import { until } from './helpers/until.mjs';
import { packFolder } from './helpers/local-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const pyPack = join(here, 'fixtures', 'py-pack');
const pyIndex = JSON.parse(readFileSync(join(pyPack, 'index.json'), 'utf8'));
const peer = findPythonPeer();
const skip = peer.why ?? false;

/** Index files in a folder of their own (the children's command lines name it). */
function indexes(extra = {}) {
  const dir = packFolder('kindgi-sup-py-');
  const write = (name, index) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(index));
    return path;
  };
  const files = { v1: write('v1.json', pyIndex), v2: write('v2.json', { ...pyIndex, artifactVersion: '20260202.2' }) };
  for (const [name, index] of Object.entries(extra)) files[name] = write(`${name}.json`, index);
  return { dir, files };
}

function supervisor(events = []) {
  return createPackServiceSupervisor({
    command: [peer.python, '-m', 'kindgi.pack', 'serve'],
    moduleRoot: pyPack,
    // Bytecode would be written into the fixture's folders.
    env: async () => ({ PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1' }),
    onEvent: (event) => events.push(event),
    restartDelayMs: 50,
  });
}

test('a Python child behind the front: calls, info, deadlines, a swap with a call in flight, stop and close', { skip }, async () => {
  const { dir, files } = indexes();
  const sup = supervisor();
  const front = await sup.listen();
  const call = frontClient(front, sup.token);
  try {
    assert.equal((await sup.start(files.v1)).kind, 'ok');
    assert.equal((await call.get('/readyz')).status, 200);

    const echo = await call.invoke('fixture.echo', { text: 'hi' });
    assert.equal(echo.status, 200);
    assert.deepEqual(JSON.parse(echo.text), { v: 2, kind: 'result', output: { text: 'hi', n: 1 } });
    assert.equal(echo.headers.get('kindgi-artifact-version'), '20260101.1');
    assert.match(echo.headers.get('kindgi-duration-ms') ?? '', /^\d+$/);

    const info = JSON.parse((await call.get('/v1/info')).text);
    assert.equal(info.packId, 'fixture');
    assert.ok(info.tools.some((t) => t.id === 'fixture.echo'));

    // The deadline reaches the Python service, which answers by it.
    const late = await call.invoke('fixture.sleep', { ms: 5000 }, { 'kindgi-timeout-ms': '200' });
    assert.equal(late.status, 200);
    assert.equal(JSON.parse(late.text).code, 'deadline-exceeded');

    // A swap while a call runs: the old child finishes it, the next call meets new code.
    const inFlight = call.invoke('fixture.sleep', { ms: 1500 });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await sup.start(files.v2)).kind, 'ok');
    const finished = await inFlight;
    assert.equal(finished.status, 200);
    assert.deepEqual(JSON.parse(finished.text).output, { slept: 1500 });
    assert.equal(finished.headers.get('kindgi-artifact-version'), '20260101.1');
    const next = await call.invoke('fixture.echo', { text: 'again' });
    assert.equal(next.headers.get('kindgi-artifact-version'), '20260202.2');
    await until(() => processesNaming(dir).length === 1, 'the old child to be retired');

    await sup.stop();
    assert.equal((await call.get('/readyz')).status, 503);
    const none = await call.invoke('fixture.echo', { text: 'hi' });
    assert.equal(none.status, 503);
    assert.ok(none.headers.get('retry-after'));
    assert.deepEqual(processesNaming(dir), []);
  } finally {
    await sup.close();
  }
  assert.deepEqual(processesNaming(dir), [], 'no Python child outlives close()');
});

test('a Python child that fails to boot keeps the old one serving; one that dies is restarted', { skip }, async () => {
  const broken = { ...pyIndex, tools: [...pyIndex.tools, { ...pyIndex.tools[0], id: 'fixture.missing', modulePath: 'tools/missing.py' }] };
  const { dir, files } = indexes({ broken });
  const events = [];
  const sup = supervisor(events);
  const front = await sup.listen();
  const call = frontClient(front, sup.token);
  try {
    assert.equal((await sup.start(files.v1)).kind, 'ok');
    const [serving] = processesNaming(dir);

    const failed = await sup.start(files.broken);
    assert.equal(failed.kind, 'err');
    assert.ok(failed.error.problems.length > 0, 'the Python service said why it did not boot');
    assert.ok(events.some((e) => e.kind === 'boot-failed'));
    assert.equal((await call.invoke('fixture.echo', { text: 'still' })).status, 200);
    assert.deepEqual(processesNaming(dir), [serving]);

    process.kill(serving, 'SIGKILL');
    await until(() => events.some((e) => e.kind === 'exited' && e.signal === 'SIGKILL'), 'the exit');
    await until(() => events.filter((e) => e.kind === 'started').length === 2, 'the restart');
    assert.ok(events.some((e) => e.kind === 'restarting' && e.attempt === 1));
    const after = await call.invoke('fixture.echo', { text: 'back' });
    assert.equal(after.status, 200);
    assert.deepEqual(JSON.parse(after.text).output, { text: 'back', n: 1 });
  } finally {
    await sup.close();
  }
  assert.deepEqual(processesNaming(dir), []);
});
