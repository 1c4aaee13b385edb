// The supervisor's `nextTurn` seam, with this package's kindgi-pack-service as the child: a
// child killed by SIGINT or SIGHUP (a terminal's Ctrl+C or hangup, which reaches the owner
// too) is judged only after two of the owner's turns, stepped here by hand, so the test
// decides whether the owner's beginClose(), stop() or start() comes first. Any other exit is
// judged at once, without a turn. Without the seam the wait is the default one
// (`__test__/supervisor.test.mjs`, SUP 112-115).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { PID_TOOL, localCall, packFolder, writeLocalPack } from './helpers/local-pack.mjs';
import { until } from './helpers/until.mjs';

const bin = fileURLToPath(new URL('../bin/kindgi-pack-service.mjs', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Turns of an event loop that only the test moves: what `nextTurn` is given waits for `step()`. */
function turns() {
  const queue = [];
  const calls = [];
  return {
    nextTurn: (...args) => {
      calls.push(args);
      queue.push(args[0]);
    },
    /** Every call the supervisor made, with its arguments. */
    calls,
    queued: () => queue.length,
    /** One turn: runs what was queued before it (what that queues waits for the next). */
    step() {
      for (const fn of queue.splice(0)) fn();
    },
  };
}

/** A pack with the pid tool and one that exits with code 3. */
function pack() {
  const dir = packFolder('kindgi-sup-turns-');
  const index = writeLocalPack(dir, { 'pid.mjs': PID_TOOL, 'exit.mjs': 'export default () => { process.exit(3); };\n' });
  return { dir, index };
}

/** A listening supervisor on a started child, recording its events. */
async function supervise(t, options = {}) {
  const { dir, index } = pack();
  const events = [];
  const supervisor = createPackServiceSupervisor({
    command: [process.execPath, bin],
    moduleRoot: dir,
    env: async () => ({ PATH: process.env.PATH ?? '' }),
    onEvent: (e) => events.push(e),
    restartDelayMs: 20,
    ...options,
  });
  t.after(() => supervisor.close());
  const { url } = await supervisor.listen();
  assert.equal((await supervisor.start(index)).kind, 'ok');
  const invoke = (name) =>
    fetch(`${url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': supervisor.token },
      body: localCall(name),
    });
  const pid = async () => {
    const res = await invoke('pid');
    assert.equal(res.status, 200);
    return (await res.json()).output.pid;
  };
  /** The events but the child's records. */
  const lifecycle = () => events.filter((e) => e.kind !== 'log');
  return { supervisor, index, events, invoke, pid, lifecycle };
}

const kinds = (events) => events.map((e) => e.kind);

for (const signal of ['SIGINT', 'SIGHUP']) {
  test(`a ${signal} exit waits for two of the owner's turns; the second raises exited and restarting, then the child restarts`, async (t) => {
    const loop = turns();
    const run = await supervise(t, { nextTurn: loop.nextTurn });
    const before = await run.pid();

    process.kill(before, signal);
    await until(() => loop.queued() === 1, 'the first turn asked for');
    assert.equal(loop.calls[0].length, 1, 'nextTurn is given one argument');
    assert.equal(typeof loop.calls[0][0], 'function');
    // However long the owner takes to turn (past the default wait and several restart
    // delays), nothing is judged meanwhile, and the dead child is still the serving one.
    await sleep(400);
    assert.deepEqual(kinds(run.lifecycle()), ['started']);
    assert.equal(run.supervisor.relay.serving(), true);

    loop.step();
    assert.equal(loop.queued(), 1, 'the first turn asks for a second');
    assert.deepEqual(kinds(run.lifecycle()), ['started']);

    loop.step();
    // Raised within the turn that judged it, in TypeScript's order.
    assert.deepEqual(run.lifecycle().slice(1), [
      { kind: 'exited', code: null, signal },
      { kind: 'restarting', attempt: 1 },
    ]);
    assert.equal(run.supervisor.relay.serving(), false, 'no longer serving once judged');
    assert.equal(loop.queued(), 0);

    await until(() => run.lifecycle().length === 4, 'the restart');
    assert.equal(run.lifecycle()[3].kind, 'started');
    assert.notEqual(await run.pid(), before);
    assert.equal(loop.calls.length, 2, 'no turn but the exit\'s two');
    assert.deepEqual(kinds(run.lifecycle()), ['started', 'exited', 'restarting', 'started']);
  });
}

test("the owner's beginClose, stop or start between the exit and its turns: no crash, no restart", async (t) => {
  for (const then of ['beginClose', 'stop', 'start']) {
    const loop = turns();
    const run = await supervise(t, { nextTurn: loop.nextTurn });
    process.kill(await run.pid(), 'SIGINT');
    await until(() => loop.queued() === 1, 'the first turn asked for');
    if (then === 'beginClose') run.supervisor.beginClose();
    else if (then === 'stop') await run.supervisor.stop();
    else assert.equal((await run.supervisor.start(run.index)).kind, 'ok');
    loop.step();
    loop.step();
    await sleep(200);
    const expected = then === 'start' ? ['started', 'started'] : ['started'];
    assert.deepEqual(kinds(run.lifecycle()), expected, `${then} first`);
    assert.equal(loop.queued(), 0);
    if (then === 'beginClose') {
      assert.deepEqual(await run.supervisor.start(run.index), { kind: 'err', error: { problems: ['The pack service is closing'] } });
    } else {
      // Stopped, the front has no child; with new code, the new child serves.
      assert.equal(run.supervisor.relay.serving(), then === 'start');
    }
  }
});

test('any other exit is judged at once, without a turn: a SIGKILL, an exit code', async (t) => {
  const loop = turns();
  const run = await supervise(t, { nextTurn: loop.nextTurn });
  process.kill(await run.pid(), 'SIGKILL');
  await until(() => run.lifecycle().length === 4, 'the restart after the SIGKILL');
  assert.deepEqual(run.lifecycle().slice(1, 3), [
    { kind: 'exited', code: null, signal: 'SIGKILL' },
    { kind: 'restarting', attempt: 1 },
  ]);

  assert.equal((await run.invoke('exit')).status, 502);
  await until(() => run.lifecycle().length === 7, 'the restart after the exit');
  assert.deepEqual(run.lifecycle()[4], { kind: 'exited', code: 3, signal: null });
  assert.deepEqual(kinds(run.lifecycle()), ['started', 'exited', 'restarting', 'started', 'exited', 'restarting', 'started']);
  assert.equal(loop.calls.length, 0, 'nextTurn never called');
});

test('a nextTurn that runs its function at once judges the exit as soon as it is seen', async (t) => {
  const calls = [];
  const run = await supervise(t, { nextTurn: (fn) => { calls.push(fn); fn(); } });
  process.kill(await run.pid(), 'SIGINT');
  await until(() => run.lifecycle().length === 4, 'the restart');
  assert.deepEqual(kinds(run.lifecycle()), ['started', 'exited', 'restarting', 'started']);
  assert.equal(calls.length, 2);
});

test('the exit is stepped whether or not onEvent is given', async (t) => {
  const loop = turns();
  const run = await supervise(t, { nextTurn: loop.nextTurn, onEvent: undefined });
  const before = await run.pid();
  process.kill(before, 'SIGINT');
  await until(() => loop.queued() === 1, 'the first turn asked for');
  loop.step();
  loop.step();
  assert.equal(run.supervisor.relay.serving(), false);
  await until(() => run.supervisor.relay.serving(), 'the restart');
  assert.notEqual(await run.pid(), before);
});

test('turns never stepped leave the exit unjudged; after close() stepping them raises nothing', async (t) => {
  const loop = turns();
  const run = await supervise(t, { nextTurn: loop.nextTurn });
  process.kill(await run.pid(), 'SIGINT');
  await until(() => loop.queued() === 1, 'the first turn asked for');
  loop.step();
  await sleep(200);
  assert.equal(run.supervisor.relay.serving(), true);
  // The dead child's port refuses the call: not delivered, so the caller may retry.
  const refused = await run.invoke('pid');
  assert.equal(refused.status, 503);
  assert.deepEqual(await refused.json(), { error: 'the pack service refused the connection' });
  await run.supervisor.close();
  loop.step();
  assert.deepEqual(kinds(run.lifecycle()), ['started']);
  assert.equal(loop.queued(), 0);
});

test('nextTurn: null is the default wait; anything else that is not a function is refused', async (t) => {
  const { dir } = pack();
  const base = { command: [process.execPath, bin], moduleRoot: dir, env: async () => ({}) };
  for (const nextTurn of [5, 'setImmediate', {}]) {
    assert.throws(() => createPackServiceSupervisor({ ...base, nextTurn }), (e) => e.code === 'invalid-argument' && /options\.nextTurn must be a function/.test(e.message));
  }
  const run = await supervise(t, { nextTurn: null });
  process.kill(await run.pid(), 'SIGINT');
  await until(() => run.lifecycle().length === 4, 'the restart after the default wait');
  assert.deepEqual(kinds(run.lifecycle()), ['started', 'exited', 'restarting', 'started']);
});
