// Request bodies nested as deep as the TypeScript service serves them, through the body's
// parse, the input's check against a schema that recurses on it, the value the handler gets
// and the output's check: served by hyper (`listen`), behind Node's own server (`handle`) and
// by the TypeScript stand-in (`bench/ts-service-steps.mjs`), over loopback HTTP. Past
// MAX_JSON_DEPTH a body is `malformed-message`, where TypeScript's `structuredClone` of the
// input overflows (docs/known-differences.md).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MAX_JSON_DEPTH } from '../index.js';
import { listeningPort } from './helpers/lines.mjs';
import { startService } from './helpers/service.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const TOKEN = 'depth-token';

// A value of arrays and objects, every level checked by the schema's recursion.
const tree = { type: ['array', 'object'], items: { $ref: '#' }, additionalProperties: { $ref: '#' } };

const tools = {
  // The input's depth, counted without recursion (the handler must not be what overflows).
  'deep.depth': {
    input: tree,
    output: { type: 'object', properties: { depth: { type: 'integer' } }, required: ['depth'], additionalProperties: false },
    source: `export default { handler(input) {
      let depth = 0;
      for (let level = [input]; level.length > 0; depth += 1) {
        level = level.flatMap((v) => (v !== null && typeof v === 'object' ? Object.values(v) : []));
      }
      return { depth };
    } };`,
  },
  // The input back: its output schema has no in-process fast path (unevaluatedProperties), so
  // Rust reads and checks the output too.
  'deep.echo': {
    input: tree,
    output: { type: ['array', 'object'], items: { $ref: '#' }, unevaluatedProperties: { $ref: '#' } },
    source: 'export default { handler: (input) => input };',
  },
};

let packDir;
let indexPath;
const running = {};

before(async () => {
  packDir = mkdtempSync(join(tmpdir(), 'kindgi-depth-'));
  const entries = Object.entries(tools).map(([id, { input, output, source }]) => {
    writeFileSync(join(packDir, `${id}.mjs`), source);
    return { id, description: id, input, output, modulePath: `${id}.mjs` };
  });
  indexPath = join(packDir, 'index.json');
  writeFileSync(indexPath, JSON.stringify({
    v: 1, packId: 'deep', packVersion: '1.0.0', artifactVersion: '1', publishedAt: '2026-01-01T00:00:00.000Z',
    tools: entries, guardrails: [], agents: [], flows: [],
  }));
  running.native = await startService({ packRoot: packDir, token: TOKEN, transport: 'both' });
  const standIn = spawn(process.execPath, [join(here, '..', 'bench', 'ts-service-steps.mjs'), '--index', indexPath, '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.standIn = { child: standIn, port: await listeningPort(standIn) };
});

after(async () => {
  running.standIn?.child.kill('SIGKILL');
  await running.native?.stop();
  rmSync(packDir, { recursive: true, force: true });
});

/** `depth` nested arrays (`a`) or objects `{"k": …}` (`o`), as text. */
const nested = (depth, kind) => (kind === 'a' ? '['.repeat(depth) + ']'.repeat(depth) : '{"k":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1));

/** A call of `tool` whose input is `input` (text), the body one level deeper than the input. */
const call = (tool, input) => `{"v":2,"kind":"invoke","tool":{"id":"${tool}"},"input":${input},"ctx":{"tenantId":"t","runId":"r"}}`;

async function answer(port, body) {
  const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** The same answer from hyper and from Node's server with `handle`. */
async function nativeAnswer(body) {
  const [ours, behindNode] = await Promise.all([answer(running.native.hyperPort, body), answer(running.native.nodePort, body)]);
  assert.deepEqual(ours, behindNode, 'hyper and handle answer alike');
  return ours;
}

const malformed = '{"v":2,"kind":"error","code":"malformed-message","message":"Request body is not valid JSON"}';

test('inputs nested 1,000 levels are checked, handled and answered as the TypeScript service answers them', async () => {
  for (const kind of ['a', 'o']) {
    for (const tool of ['deep.depth', 'deep.echo']) {
      const body = call(tool, nested(1000, kind));
      const [ours, standIn] = await Promise.all([nativeAnswer(body), answer(running.standIn.port, body)]);
      assert.equal(ours.status, 200, `${tool} ${kind}: ${ours.text.slice(0, 200)}`);
      assert.deepEqual(ours, standIn, `${tool} ${kind}`);
    }
  }
  const depth = await nativeAnswer(call('deep.depth', nested(1000, 'o')));
  assert.equal(depth.text, '{"v":2,"kind":"result","output":{"depth":1000}}');
  // A value the recursion refuses far down is refused with Ajv's issue, its path as deep.
  const wrong = call('deep.depth', `${'['.repeat(999)}1${']'.repeat(999)}`);
  const [ours, standIn] = await Promise.all([nativeAnswer(wrong), answer(running.standIn.port, wrong)]);
  assert.deepEqual(ours, standIn);
  assert.match(ours.text, /"code":"input-validation-failed"/);
  assert.ok(ours.text.includes(`"instancePath":"${'/0'.repeat(999)}"`));
});

test('a body MAX_JSON_DEPTH levels deep is served; one level deeper is malformed-message', async () => {
  assert.equal(MAX_JSON_DEPTH, 5000);
  for (const kind of ['a', 'o']) {
    const deepest = await nativeAnswer(call('deep.depth', nested(MAX_JSON_DEPTH - 1, kind)));
    assert.deepEqual(deepest, { status: 200, text: `{"v":2,"kind":"result","output":{"depth":${MAX_JSON_DEPTH - 1}}}` }, kind);
    const past = await nativeAnswer(call('deep.depth', nested(MAX_JSON_DEPTH, kind)));
    assert.deepEqual(past, { status: 200, text: malformed }, kind);
  }
  // An output that deep is read and checked by Rust too.
  const echoed = await nativeAnswer(call('deep.echo', nested(4000, 'a')));
  assert.deepEqual(echoed, { status: 200, text: `{"v":2,"kind":"result","output":${nested(4000, 'a')}}` });
  // The service answers on.
  assert.equal((await nativeAnswer(call('deep.depth', '[]'))).status, 200);
});

test('100,000 levels: malformed-message here, where the TypeScript service answers 500', async () => {
  const body = call('deep.depth', nested(100_000, 'a'));
  const [ours, standIn] = await Promise.all([nativeAnswer(body), answer(running.standIn.port, body)]);
  assert.deepEqual(ours, { status: 200, text: malformed });
  assert.deepEqual(standIn, { status: 500, text: '{"error":"Maximum call stack size exceeded"}' });
});
