// Indexes the TypeScript service boots, which only `JSON.parse`s the file and reads what it uses:
// lone surrogates and deep nesting where the service never looks, envelope fields that are
// absent or not strings, guardrails keyed by `checkId ?? id`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackService, packServiceLogs, startPackService } from '../lib/pack-service.js';
import { onLines } from './helpers/lines.mjs';
import { packFolder } from './helpers/local-pack.mjs';
import { until } from './helpers/until.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'kindgi-pack-service.mjs');
const packRoot = join(here, 'fixtures', 'js-pack');
const fixtureIndex = JSON.parse(readFileSync(join(packRoot, 'index.json'), 'utf8'));
const TOKEN = 'index-token';
const echo = fixtureIndex.tools.find((t) => t.id === 'fixture.echo');

/** The fixture index changed by `edit`, written to a file of its own; its path. */
function variant(edit) {
  const index = structuredClone(fixtureIndex);
  edit(index);
  const path = join(packFolder('kindgi-index-'), 'index.json');
  writeFileSync(path, JSON.stringify(index));
  return path;
}

/** startPackService on `indexPath` with records written to `lines`. */
async function start(t, indexPath) {
  const lines = [];
  const { logs } = packServiceLogs({ env: {}, write: (line) => lines.push(JSON.parse(line)) });
  const started = await startPackService({ indexPath, moduleRoot: packRoot, token: TOKEN, port: 0, host: '127.0.0.1' }, logs);
  if (started.kind === 'ok') t.after(() => started.value.stop(0));
  return { started, lines, port: started.value?.port };
}

const info = async (port) =>
  (await fetch(`http://127.0.0.1:${port}/v1/info`, { headers: { 'kindgi-pack-token': TOKEN } })).text();

/** POSTs `body` (JSON text, sent as it is) to /v1/invoke. */
const invoke = (port, body) =>
  fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
    body,
  });

const ctx = { tenantId: 't1', runId: 'r1' };
const toolCall = (id, input) => JSON.stringify({ v: 2, kind: 'invoke', tool: { id }, input, ctx });
const checkCall = (id) => JSON.stringify({ v: 2, kind: 'check-invoke', check: { id }, config: { max: 10 }, trace: { output: 'short' } });

test('lone surrogates and deep nesting where the service never reads boot, as JSON.parse takes them', async (t) => {
  let deep = {};
  for (let i = 0; i < 200; i += 1) deep = { a: deep };
  const path = variant((index) => {
    index.tools[0].description = 'cut \ud83d';
    index.agents = [{ name: 'x\udc00', value: deep }];
    index.meta = { deep };
    index.guardrails[0].configSchema = { ...index.guardrails[0].configSchema, description: '\udfff' };
  });
  const { started, port } = await start(t, path);
  assert.equal(started.kind, 'ok', JSON.stringify(started.problems));
  const body = JSON.parse(await info(port));
  assert.equal(body.packId, 'fixture');
  const res = await invoke(port, toolCall('fixture.echo', { text: 'hi' }));
  assert.deepEqual(await res.json(), { v: 2, kind: 'result', output: { text: 'hi', n: 1 } });
});

test('ids and schemas holding lone surrogates: found, validated and written back as JavaScript has them', async (t) => {
  const path = variant((index) => {
    index.packId = 'fixture\ud800';
    index.tools.push({
      ...echo,
      id: 'fixture.echo\udc00',
      input: {
        type: 'object',
        properties: { text: { enum: ['cut \ud83d', 'plain'] }, k: { const: '\ude00' } },
        required: ['text'],
      },
      output: { type: 'object', properties: { text: { type: 'string', pattern: '^cut \ud83d$' } } },
    });
    index.guardrails[0].checkId = 'fixture.checks.max-len\udbff';
  });
  const { started, port } = await start(t, path);
  assert.equal(started.kind, 'ok', JSON.stringify(started.problems));
  const text = await info(port);
  assert.ok(text.includes('"packId":"fixture\\ud800"'), text);
  const body = JSON.parse(text);
  assert.ok(body.tools.some((tool) => tool.id === 'fixture.echo\udc00'));
  assert.deepEqual(body.checks, ['fixture.checks.max-len\udbff']);

  const ok = await invoke(port, toolCall('fixture.echo\udc00', { text: 'cut \ud83d', k: '\ude00', '\ud801': 1 }));
  assert.deepEqual(await ok.json(), { v: 2, kind: 'result', output: { text: 'cut \ud83d', k: '\ude00', '\ud801': 1 } });
  // Ajv's answers (checked against Ajv 8): `plain` is in the enum, `\ud800` is not the const.
  const refused = await (await invoke(port, toolCall('fixture.echo\udc00', { text: 'plain', k: '\ud800' }))).json();
  assert.equal(refused.code, 'input-validation-failed');
  assert.deepEqual(refused.issues.map((i) => [i.instancePath, i.keyword, i.params]), [['/k', 'const', { allowedValue: '\ude00' }]]);
  // The output pattern holds the surrogate too: `plain` fails it.
  const output = await (await invoke(port, toolCall('fixture.echo\udc00', { text: 'plain' }))).json();
  assert.equal(output.code, 'output-validation-failed');
  assert.deepEqual(output.issues.map((i) => [i.instancePath, i.keyword, i.params]), [['/text', 'pattern', { pattern: '^cut \ud83d$' }]]);
  const check = await (await invoke(port, checkCall('fixture.checks.max-len\udbff'))).json();
  assert.equal(check.kind, 'check-result');
});

test('an issue quoting a lone surrogate from the index, in a call holding none, writes it back', async (t) => {
  const path = variant((index) => {
    index.tools.push({ ...echo, id: 'fixture.plain', input: { type: 'object', properties: { k: { const: '\ude00' } } } });
  });
  const { port } = await start(t, path);
  const refused = await (await invoke(port, toolCall('fixture.plain', { k: 'x' }))).json();
  assert.deepEqual(refused.issues[0].params, { allowedValue: '\ude00' });
});

test('a property name holding a lone surrogate fails to compile, as encodeURIComponent throws in Ajv', async (t) => {
  const path = variant((index) => {
    index.tools.push({ ...echo, id: 'fixture.key', input: { type: 'object', properties: { '\ud801': { type: 'string' } } } });
  });
  const { port } = await start(t, path);
  const refused = await (await invoke(port, toolCall('fixture.key', {}))).json();
  assert.equal(refused.code, 'input-validation-failed');
  assert.equal(refused.message, 'Tool "fixture.key" input schema failed to compile: URIError: URI malformed');
});

test('a schema nested past the limit is a boot-failed problem naming it, not a crash and not "not JSON"', async (t) => {
  let deep = { type: 'object' };
  for (let i = 0; i < 300; i += 1) deep = { type: 'object', properties: { a: deep } };
  const path = variant((index) => {
    index.tools[1].input = deep;
  });
  const { started } = await start(t, path);
  assert.deepEqual(started, {
    kind: 'err',
    problems: ["The pack index's `tools[1].input` is nested deeper than this service reads (128 levels from the index's top)"],
  });
});

test('no packId, packVersion or artifactVersion: left out of listening, /v1/info, headers and records', async (t) => {
  const path = variant((index) => {
    delete index.packId;
    delete index.packVersion;
    delete index.artifactVersion;
  });
  const { started, lines, port } = await start(t, path);
  assert.equal(started.kind, 'ok', JSON.stringify(started.problems));
  const listening = lines.find((l) => l.kind === 'listening');
  assert.deepEqual(Object.keys(listening), ['time', 'level', 'severity', 'subsystem', 'message', 'port', 'event', 'kind']);
  assert.ok((await info(port)).startsWith('{"protocol":2,"indexHash":"sha256:'));
  const res = await invoke(port, toolCall('fixture.echo', { text: 'hi' }));
  assert.equal(res.status, 200);
  // Node refuses to write `undefined` (TypeScript answers 500): the header is left out.
  assert.equal(res.headers.get('kindgi-artifact-version'), null);
  await res.arrayBuffer();
  await until(() => lines.some((l) => l.kind === 'call'), 'the call record');
  const call = lines.find((l) => l.kind === 'call');
  assert.equal('packId' in call || 'artifactVersion' in call, false);
});

test('a numeric artifactVersion: as the index holds it in listening, /v1/info and records; "5" as the header', async (t) => {
  const path = variant((index) => {
    index.artifactVersion = 5;
    delete index.packVersion;
  });
  const { started, lines, port } = await start(t, path);
  assert.equal(started.kind, 'ok', JSON.stringify(started.problems));
  assert.equal(lines.find((l) => l.kind === 'listening').artifactVersion, 5);
  const text = await info(port);
  assert.ok(text.startsWith('{"protocol":2,"packId":"fixture","artifactVersion":5,"indexHash":'), text);
  const res = await invoke(port, toolCall('fixture.echo', { text: 'hi' }));
  assert.equal(res.headers.get('kindgi-artifact-version'), '5');
  await res.arrayBuffer();
  await until(() => lines.some((l) => l.kind === 'call'), 'the call record');
  assert.equal(lines.find((l) => l.kind === 'call').artifactVersion, 5);

  // Behind `handle` too.
  const index = JSON.parse(readFileSync(path, 'utf8'));
  const service = createPackService({ index, resolveModule: (p) => resolve(packRoot, p), token: TOKEN, env: {} });
  assert.deepEqual(await service.prewarm(), []);
  const server = createServer(service.handle);
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  t.after(() => new Promise((done) => server.close(done)));
  const handled = await invoke(server.address().port, toolCall('fixture.echo', { text: 'hi' }));
  assert.equal(handled.headers.get('kindgi-artifact-version'), '5');
  await handled.arrayBuffer();
  server.closeAllConnections();
});

test('guardrails are keyed by checkId ?? id: a checkId with no id, a null checkId', async (t) => {
  const path = variant((index) => {
    const [guardrail] = index.guardrails;
    delete guardrail.id;
    index.guardrails.push({ ...guardrail, id: 'fixture.by-id', checkId: null });
  });
  const { started, port } = await start(t, path);
  assert.equal(started.kind, 'ok', JSON.stringify(started.problems));
  assert.deepEqual(JSON.parse(await info(port)).checks, ['fixture.checks.max-len', 'fixture.by-id']);
  for (const id of ['fixture.checks.max-len', 'fixture.by-id']) {
    const answer = await (await invoke(port, checkCall(id))).json();
    assert.deepEqual(answer, { v: 2, kind: 'check-result', result: { passed: true, attributes: { length: 5 } } }, id);
  }
});

test('the process boots such an index and says so in its listening line', async () => {
  const path = variant((index) => {
    delete index.packId;
    index.artifactVersion = 5;
    index.agents = [{ name: 'x\udc00' }];
  });
  const child = spawn(process.execPath, [bin, '--index', path, '--module-root', packRoot], {
    env: {
      PATH: process.env.PATH,
      KINDGI_PACK_SERVICE_TOKEN: TOKEN,
      PORT: '0',
      ...(process.env.NAPI_RS_NATIVE_LIBRARY_PATH && { NAPI_RS_NATIVE_LIBRARY_PATH: process.env.NAPI_RS_NATIVE_LIBRARY_PATH }),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = [];
  const exited = new Promise((done) => child.on('exit', (code) => done(code)));
  onLines(child.stderr, (line) => lines.push(JSON.parse(line)));
  await Promise.race([until(() => lines.some((l) => l.kind === 'listening'), 'listening'), exited]);
  child.kill('SIGTERM');
  assert.equal(await exited, 0, JSON.stringify(lines));
  const listening = lines.find((l) => l.kind === 'listening');
  assert.equal(listening.artifactVersion, 5);
  assert.equal('packId' in listening, false);
});
