// `node scripts/smoke.mjs`: the built addon, loaded through the package's own name, does its
// main jobs on this platform: the protocol, validation, an index of the example pack, one call
// served over loopback, and the two commands' help. The release workflow runs it where the
// whole test suite cannot run (macOS, Windows: much of it reads /proc and sends POSIX
// signals). Exits 0 after printing how many checks passed; a failed check throws.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@kindgi/handler-runtime-native';
const root = fileURLToPath(new URL('..', import.meta.url));
let passed = 0;
const check = async (what, fn) => {
  try {
    await fn();
  } catch (error) {
    error.message = `${what}: ${error.message}`;
    throw error;
  }
  passed += 1;
};

const native = await import(PACKAGE);
const { packError, parsePackRequest, PACK_PROTOCOL_VERSION } = await import(`${PACKAGE}/protocol`);
const { createPackService } = await import(`${PACKAGE}/pack-service`);

await check('canonicalJson sorts keys', () => {
  assert.equal(native.canonicalJson({ b: 1, a: [true, null] }), '{\n  "a": [\n    true,\n    null\n  ],\n  "b": 1\n}\n');
});
await check('idempotencyKey is a stable UUID', () => {
  const key = native.idempotencyKey('run', 'step', 'tool', 'call');
  assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(native.idempotencyKey('run', 'step', 'tool', 'call'), key);
});
await check('parsePackRequest reads an invoke and refuses a wrong version', () => {
  const ctx = { tenantId: 't', runId: 'r' };
  assert.equal(parsePackRequest({ v: PACK_PROTOCOL_VERSION, kind: 'invoke', tool: { id: 'a.b' }, input: {}, ctx }).kind, 'ok');
  const wrong = parsePackRequest({ v: 1, kind: 'invoke', tool: { id: 'a.b' }, input: {}, ctx });
  assert.equal(wrong.kind, 'err');
  assert.equal(wrong.error.code, 'unknown-protocol-version');
  assert.equal(packError('cancelled', 'gone').code, 'cancelled');
});
await check('compileSchema fills defaults on the input side and reports issues', () => {
  const input = native.compileSchema({ type: 'object', properties: { n: { type: 'integer', default: 3 } } }, 'input');
  assert.deepEqual(input.validate({}), { valid: true, value: { n: 3 } });
  const bad = input.validate({ n: 'x' });
  assert.equal(bad.valid, false);
  assert.equal(bad.issues[0].keyword, 'type');
});

const work = mkdtempSync(join(tmpdir(), 'kindgi-smoke-'));
try {
  const packDir = join(work, 'pack');
  cpSync(join(root, 'examples', 'pack'), packDir, { recursive: true });
  const indexPath = join(packDir, 'index.json');
  await check('runIndexer indexes the example pack', async () => {
    const outcome = await native.runIndexer({ packDir, outputPath: indexPath, artifactVersion: '20260101.1', publishedAt: '2026-01-01T00:00:00.000Z' });
    assert.equal(outcome.kind, 'ok', JSON.stringify(outcome.error));
    assert.equal(outcome.value.counts.tools, 3);
  });
  await check('createPackService serves a call over loopback', async () => {
    const index = JSON.parse(readFileSync(indexPath, 'utf8'));
    const service = createPackService({ index, resolveModule: (p) => resolve(packDir, p), token: 'smoke-token' });
    assert.deepEqual(await service.prewarm(), []);
    const port = await service.listen(0, '127.0.0.1');
    try {
      assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
      const res = await fetch(`http://127.0.0.1:${port}/v1/invoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'kindgi-pack-token': 'smoke-token' },
        body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'example.greet' }, input: { name: 'Ada' }, ctx: { tenantId: 't', runId: 'r' } }),
      });
      assert.deepEqual(await res.json(), { v: 2, kind: 'result', output: { greeting: 'Hello, Ada!' } });
    } finally {
      await service.stop();
    }
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}

for (const [bin, first] of [
  ['kindgi-pack-service', 'kindgi-pack-service: '],
  ['kindgi-index', 'kindgi-index \u2014 '],
]) {
  await check(`${bin} --help`, () => {
    const run = spawnSync(process.execPath, [join(root, 'bin', `${bin}.mjs`), '--help'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(run.stdout.startsWith(first), run.stdout.slice(0, 80));
  });
}

process.stdout.write(`smoke: ${passed} passed, 0 failed (${process.platform}-${process.arch}, Node ${process.version})\n`);
