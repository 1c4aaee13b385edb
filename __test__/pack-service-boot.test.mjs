// What a pack service is started with: createPackService's tenantId, startPackService's port
// (as Node's server.listen takes it) and index entries whose module path is not a string.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackService, startPackService } from '../lib/pack-service.js';
import { packFolder } from './helpers/local-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const packRoot = join(here, 'fixtures', 'js-pack');
const indexPath = join(packRoot, 'index.json');
const fixtureIndex = JSON.parse(readFileSync(indexPath, 'utf8'));
const TOKEN = 'boot-token';
const quiet = () => undefined;

test('createPackService: tenantId is read as KINDGI_PACK_TENANT_ID is (trimmed; blank pins nothing)', async () => {
  const statusOf = async (tenantId, headers) => {
    const service = createPackService({ index: fixtureIndex, resolveModule: (p) => resolve(packRoot, p), token: TOKEN, env: {}, tenantId });
    const port = await service.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/info`, { headers: { 'kindgi-pack-token': TOKEN, ...headers } });
      await res.arrayBuffer();
      return res.status;
    } finally {
      await service.stop(0);
    }
  };
  // A pin to '' answered 421 to every call, since no header can name the empty tenant.
  assert.equal(await statusOf('', {}), 200);
  assert.equal(await statusOf(' \n', {}), 200);
  assert.equal(await statusOf(' t1\n', { 'kindgi-tenant-id': 't1' }), 200);
  assert.equal(await statusOf(' t1\n', {}), 421);
  assert.throws(
    () => createPackService({ index: fixtureIndex, resolveModule: (p) => p, token: TOKEN, env: {}, tenantId: 'a\nb' }),
    {
      code: 'invalid-argument',
      message: 'options.tenantId may hold only what an HTTP header can carry: printable ASCII, spaces, tabs and U+0080 to U+00FF (it is matched against kindgi-tenant-id)',
    },
  );
});

test("startPackService takes config.port as Node's server.listen takes it", async () => {
  const config = { indexPath, moduleRoot: packRoot, token: TOKEN, host: '127.0.0.1' };
  // Absent or null: any free port; a numeric string is that port.
  for (const port of [undefined, null, '0', ' 0 ', 0]) {
    const started = await startPackService({ ...config, port }, quiet);
    assert.equal(started.kind, 'ok', `${JSON.stringify(port)}: ${JSON.stringify(started.problems)}`);
    assert.ok(started.value.port > 0);
    await started.value.stop(0);
  }
  const range = (shown) => `config.port must be a port number from 0 to 65535 (a number or a numeric string), not ${shown}`;
  for (const [port, message] of [
    [0.5, range('0.5')],
    [65536, range('65536')],
    [NaN, range('NaN')],
    ['  ', range('"  "')],
    ['80.5', range('"80.5"')],
    [true, range('a boolean')],
    [{}, range('an object')],
    ['abc', 'config.port "abc" is a pipe\'s path to Node\'s server.listen; the pack service listens on TCP ports only'],
  ]) {
    await assert.rejects(startPackService({ ...config, port }, quiet), { code: 'invalid-argument', message }, String(port));
  }
});

test('an index entry without a string module path is reported in the catalog\'s words, not as a missing module', async () => {
  const dir = packFolder('kindgi-boot-');
  const index = structuredClone(fixtureIndex);
  delete index.tools[0].modulePath;
  index.tools[1].modulePath = 5;
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
  const started = await startPackService({ indexPath: join(dir, 'index.json'), moduleRoot: packRoot, token: TOKEN, port: 0, host: '127.0.0.1' }, quiet);
  assert.deepEqual(started, {
    kind: 'err',
    problems: ["The pack index's tools[0] has no string `modulePath`", "The pack index's tools[1] has no string `modulePath`"],
  });
});
