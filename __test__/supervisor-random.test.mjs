// A seeded random life of a supervisor, as `kindgi dev` lives it: swaps (one at a time and two
// at once), boots that fail, stops, and children that crash mid-call (restarted, or given up
// on), with a call after every step checked against a model of what should serve. After every step the children still alive
// are exactly the serving one (retired ones are gone), and after close() none is.
// KINDGI_RANDOM_CASES sets the number of steps.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { packFolder } from './helpers/local-pack.mjs';
import { processesNaming } from './helpers/processes.mjs';
import { randomCases, rng } from './helpers/random-requests.mjs';
import { until } from './helpers/until.mjs';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'kindgi-pack-service.mjs');
const VERSIONS = ['1', '2', '3'];
const MAX_RESTARTS = 1;

/** A pack whose `ok` tool answers and whose `exit` tool ends its process, under each version. */
function pack() {
  const root = packFolder('kindgi-sup-random-');
  writeFileSync(join(root, 'ok.mjs'), 'export default (input) => input;\n');
  writeFileSync(join(root, 'exit.mjs'), 'export default () => { process.exit(3); };\n');
  const any = { type: 'object' };
  const indexes = {};
  for (const version of VERSIONS) {
    indexes[version] = join(root, `index-${version}.json`);
    writeFileSync(
      indexes[version],
      JSON.stringify({
        v: 1, packId: 'random', packVersion: '1.0.0', artifactVersion: version, agents: [], flows: [], guardrails: [],
        tools: [
          { id: 'ok', modulePath: 'ok.mjs', input: any, output: any },
          { id: 'exit', modulePath: 'exit.mjs', input: any, output: any },
        ],
      }),
    );
  }
  return { root, indexes };
}

test('a random life of swaps, failed boots, stops and crashes keeps the model and leaves no child', async () => {
  const { root, indexes } = pack();
  const events = [];
  const sup = createPackServiceSupervisor({
    command: [process.execPath, bin],
    moduleRoot: root,
    env: async () => ({ PATH: process.env.PATH ?? '' }),
    onEvent: (e) => events.push(e),
    maxRestarts: MAX_RESTARTS,
    restartDelayMs: 10,
  });
  const front = await sup.listen();
  const invoke = async (tool) => {
    const res = await fetch(`${front.url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': sup.token },
      body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: tool }, input: { x: 1 }, ctx: { tenantId: 't', runId: 'r' } }),
    });
    return { status: res.status, version: res.headers.get('kindgi-artifact-version'), text: await res.text() };
  };
  const r = rng(0x6b696e6467690004);
  const steps = randomCases(24);
  const done = [];
  // The model: the version that serves, and the crashes restarted since the owner's last
  // start() that booted (the whole run stays well inside the 60 s restart window).
  let serving = null;
  let restarts = 0;
  try {
    for (let step = 0; step < steps; step += 1) {
      const op = r.pick(['swap', 'swap', 'two-swaps', 'failed-boot', 'stop', 'crash']);
      done.push(op);
      const where = `step ${step} (${done.join(', ')})`;
      if (op === 'swap') {
        const version = r.pick(VERSIONS);
        assert.equal((await sup.start(indexes[version])).kind, 'ok', where);
        serving = version;
        restarts = 0;
      } else if (op === 'two-swaps') {
        const [a, b] = [r.pick(VERSIONS), r.pick(VERSIONS)];
        const both = await Promise.all([sup.start(indexes[a]), sup.start(indexes[b])]);
        assert.deepEqual(both.map((s) => s.kind), ['ok', 'ok'], where);
        // Either may have become the serving one; the call below says which.
        serving = (await invoke('ok')).version;
        assert.ok([a, b].includes(serving), `${where}: ${serving} serves after swaps to ${a} and ${b}`);
        restarts = 0;
      } else if (op === 'failed-boot') {
        const failed = await sup.start(join(root, 'missing.json'));
        assert.equal(failed.kind, 'err', where);
      } else if (op === 'stop') {
        await sup.stop();
        serving = null;
      } else if (serving !== null) {
        // A crash mid-call: 502, then the same index is booted again, or given up on once
        // MAX_RESTARTS crashes have been restarted.
        const count = (kind) => events.filter((e) => e.kind === kind).length;
        const [startedBefore, gaveUpBefore] = [count('started'), count('gave-up')];
        const crashed = await invoke('exit');
        assert.equal(crashed.status, 502, `${where}: ${crashed.text}`);
        if (restarts < MAX_RESTARTS) {
          restarts += 1;
          await until(() => count('started') > startedBefore, `${where}: the restart`);
        } else {
          await until(() => count('gave-up') > gaveUpBefore, `${where}: gave-up`);
          serving = null;
        }
      }
      const call = await invoke('ok');
      if (serving === null) {
        assert.deepEqual([call.status, call.text], [503, '{"error":"no pack service"}'], where);
      } else {
        assert.deepEqual([call.status, call.version, call.text], [200, serving, '{"v":2,"kind":"result","output":{"x":1}}'], where);
      }
      const expected = serving === null ? 0 : 1;
      await until(() => processesNaming(root).length === expected, `${where}: ${expected} child alive, not ${processesNaming(root).length}`);
    }
    assert.ok(new Set(done).size >= 5, `the steps met most operations: ${done.join(', ')}`);
    const given = events.filter((e) => e.kind === 'gave-up').length;
    console.log(`${steps} steps: ${done.join(', ')}; given up on ${given} times`);
  } finally {
    await sup.close();
  }
  await until(() => processesNaming(root).length === 0, 'no child after close()');
});
