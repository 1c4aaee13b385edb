// What `kindgi dev` (the Kindgi CLI) imports from @kindgi/handler-runtime, imported from this
// package by name and used as the CLI uses it: the pack indexed, its discovery roots watched
// by a matcher, its index served behind the supervisor, one call answered.
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_DISCOVERY,
  PACK_ENV_CHECK_VAR,
  createGlobMatcher,
  discoveryRoots,
  runIndexer,
} from '@kindgi/handler-runtime-native';
import { createPackServiceSupervisor } from '@kindgi/handler-runtime-native/pack-service';
import { packFolder } from './helpers/local-pack.mjs';

const example = fileURLToPath(new URL('../examples/pack', import.meta.url));

test("the Kindgi CLI's imports, by this package's name, index and serve a pack", async () => {
  const packDir = packFolder('kindgi-cli-imports-');
  cpSync(example, packDir, { recursive: true });
  const outputPath = join(packDir, '.kindgi', 'index.json');
  const outcome = await runIndexer({ packDir, outputPath });
  assert.equal(outcome.kind, 'ok');
  const patterns = Object.values(DEFAULT_DISCOVERY);
  assert.deepEqual(discoveryRoots(patterns), ['agents', 'flows', 'guardrails', 'tools']);
  const isPrimitive = createGlobMatcher(patterns);
  assert.equal(isPrimitive(relative(packDir, join(packDir, 'tools', 'greet.mjs'))), true);
  assert.equal(isPrimitive('tools/greet.test.mjs'), false);

  const supervisor = createPackServiceSupervisor({
    command: [process.execPath, fileURLToPath(new URL('../bin/kindgi-pack-service.mjs', import.meta.url))],
    moduleRoot: packDir,
    env: async () => ({ PATH: process.env.PATH ?? '', [PACK_ENV_CHECK_VAR]: 'warn' }),
  });
  try {
    const front = await supervisor.listen();
    assert.equal((await supervisor.start(outputPath)).kind, 'ok');
    const res = await fetch(`${front.url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': supervisor.token },
      body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'example.greet' }, input: { name: 'Ada' }, ctx: { tenantId: 't', runId: 'r' } }),
    });
    assert.deepEqual(await res.json(), { v: 2, kind: 'result', output: { greeting: 'Hello, Ada!' } });
  } finally {
    await supervisor.close();
  }
});
