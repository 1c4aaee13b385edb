// `kindgi-pack-dev --pack-dir`: the pack indexed and served, an edit served, a schema change
// taking effect, a broken edit keeping the old child serving (and reported), SIGTERM.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readDevArgs } from '../lib/pack-dev.js';
import { launchDev } from './helpers/dev-cli.mjs';
import { packFolder } from './helpers/local-pack.mjs';
import { processesNaming } from './helpers/processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const example = join(here, '..', 'examples', 'pack');

test('arguments: --pack-dir alone, its dev index path, and what does not go with it', () => {
  const { value } = readDevArgs(['--pack-dir', '/p']);
  assert.deepEqual([value.packDir, value.index, value.moduleRoot], ['/p', join('/p', '.kindgi', 'dev', 'index.json'), '/p']);
  assert.equal(readDevArgs(['--pack-dir', '/p', '--index', '/i.json']).value.index, '/i.json');
  assert.deepEqual(readDevArgs([]).problems, ['--index or --pack-dir is required']);
  assert.deepEqual(readDevArgs(['--pack-dir', '/p', '--', 'python']).problems, [
    "--pack-dir serves with this package's pack service; a command after '--' goes with --index",
  ]);
});

/** A copy of the example pack served by `kindgi-pack-dev --pack-dir`, and a call through its front. */
async function serving() {
  const packDir = packFolder('kindgi-pack-dir-');
  cpSync(example, packDir, { recursive: true });
  const run = launchDev(['--pack-dir', packDir]);
  const front = await run.nth('front', 1);
  const indexed = await run.nth('indexed', 1);
  await run.nth('started', 1);
  const greet = async (name) => {
    const res = await fetch(`${front.url}/v1/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'kindgi-pack-token': front.token },
      body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'example.greet' }, input: { name }, ctx: { tenantId: 't', runId: 'r' } }),
    });
    return res.json();
  };
  const tool = join(packDir, 'tools', 'greet.mjs');
  const source = readFileSync(tool, 'utf8');
  return { packDir, run, indexed, greet, edit: (from, to) => writeFileSync(tool, source.replace(from, to)) };
}

test('the pack is indexed into its dev index and served; an edit to a handler is served', { timeout: 60_000 }, async () => {
  const { packDir, run, indexed, greet, edit } = await serving();
  assert.deepEqual(indexed.counts, { tools: 3, guardrails: 1, agents: 0, flows: 0 });
  assert.equal(typeof indexed.ms, 'number');
  assert.ok(existsSync(join(packDir, '.kindgi', 'dev', 'index.json')));
  assert.deepEqual((await greet('Ada')).output, { greeting: 'Hello, Ada!' });

  edit("en: 'Hello'", "en: 'Howdy'");
  await run.nth('indexed', 2);
  await run.nth('started', 2);
  assert.deepEqual((await greet('Ada')).output, { greeting: 'Howdy, Ada!' });

  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  assert.equal(run.events.at(-1).kind, 'closed');
  assert.deepEqual(processesNaming(packDir), [], 'no child, and no indexer process, outlives the CLI');
});

test('a schema change takes effect: the new input schema is the one checked', { timeout: 60_000 }, async () => {
  const { run, greet, edit } = await serving();
  const long = 'x'.repeat(150);
  assert.equal((await greet(long)).code, 'input-validation-failed');
  edit('maxLength: 100', 'maxLength: 200');
  await run.nth('started', 2);
  assert.deepEqual((await greet(long)).output, { greeting: `Hello, ${long}!` });
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('a broken edit keeps the old child serving and says why; fixing it swaps again', { timeout: 60_000 }, async () => {
  const { run, greet, edit } = await serving();
  // An import error: the module no longer parses.
  edit('export default {', 'export default {{');
  const failed = await run.nth('index-failed', 1);
  assert.equal(failed.fileErrors[0].code, 'file-import-failed');
  assert.equal(failed.fileErrors[0].filePath, 'tools/greet.mjs');
  assert.deepEqual((await greet('Ada')).output, { greeting: 'Hello, Ada!' });
  assert.equal(run.events.filter((e) => e.kind === 'started').length, 1);

  // An invalid schema: refused before a child is started with it.
  edit("type: 'string', minLength: 1", "type: 'strin', minLength: 1");
  const refused = await run.nth('index-failed', 2);
  assert.deepEqual(refused.fileErrors, []);
  assert.match(refused.schemaErrors[0].message, /^tools\/greet\.mjs: tool example\.greet's input schema doesn't compile: .*type/);
  assert.deepEqual((await greet('Ada')).output, { greeting: 'Hello, Ada!' });
  assert.equal(run.events.filter((e) => e.kind === 'started').length, 1);

  edit("en: 'Hello'", "en: 'Hi'");
  await run.nth('started', 2);
  assert.deepEqual((await greet('Ada')).output, { greeting: 'Hi, Ada!' });
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('a pack without a config is refused at once', { timeout: 60_000 }, async () => {
  const empty = packFolder('kindgi-pack-dir-empty-');
  const run = launchDev(['--pack-dir', empty]);
  assert.equal(await run.exited, 1);
  assert.equal(run.events[0].kind, 'error');
  assert.equal(run.events[0].code, 'config-not-found');
});

test('a helper a tool imports, edited, is served (a fresh indexer process, a fresh child)', { timeout: 60_000 }, async () => {
  const { packDir, run, greet } = await serving();
  mkdirSync(join(packDir, 'lib'));
  writeFileSync(join(packDir, 'lib', 'words.mjs'), "export const HELLO = 'Hey';\n");
  const tool = join(packDir, 'tools', 'greet.mjs');
  writeFileSync(tool, `import { HELLO } from '../lib/words.mjs';\n${readFileSync(tool, 'utf8').replace("en: 'Hello'", 'en: HELLO')}`);
  await run.nth('started', 2);
  assert.deepEqual((await greet('Ada')).output, { greeting: 'Hey, Ada!' });
  writeFileSync(join(packDir, 'lib', 'words.mjs'), "export const HELLO = 'Yo';\n");
  await run.nth('started', 3);
  assert.deepEqual((await greet('Ada')).output, { greeting: 'Yo, Ada!' });
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  assert.deepEqual(processesNaming(packDir), []);
});

test("pack code's own output is an `output` event, and a refused reindex leaves the served index as it was", { timeout: 60_000 }, async () => {
  const { packDir, run, edit } = await serving();
  writeFileSync(
    join(packDir, 'tools', 'noisy.mjs'),
    "console.log('hello from pack code');\nexport default { id: 'example.noisy', input: {}, output: {}, handler: () => ({}) };\n",
  );
  await run.nth('started', 2);
  assert.ok(run.events.some((e) => e.kind === 'output' && e.stream === 'stdout' && e.line === 'hello from pack code'));
  const served = join(packDir, '.kindgi', 'dev', 'index.json');
  const before = readFileSync(served, 'utf8');
  edit('export default {', 'export default {{');
  await run.nth('index-failed', 1);
  assert.equal(readFileSync(served, 'utf8'), before);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('a module whose import never settles, or never yields, does not keep the loop or its processes alive', { timeout: 60_000 }, async () => {
  const packDir = packFolder('kindgi-pack-dir-hang-');
  cpSync(example, packDir, { recursive: true });
  writeFileSync(join(packDir, 'tools', 'hang.mjs'), 'await new Promise(() => {});\nexport default {};\n');
  const hung = launchDev(['--pack-dir', packDir]);
  // The front listens before the first run starts: by then SIGTERM is the CLI's to handle.
  await hung.nth('front', 1);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(hung.events.filter((e) => e.kind === 'indexed').length, 0);
  hung.child.kill('SIGTERM');
  assert.equal(await hung.exited, 0);
  assert.deepEqual(processesNaming(packDir), [], 'no indexer process left behind');

  // Fixed while running: the stuck run is given up and the fix indexed.
  const run = launchDev(['--pack-dir', packDir]);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  writeFileSync(join(packDir, 'tools', 'hang.mjs'), "export default { id: 'x.h', input: {}, output: {}, handler: () => ({}) };\n");
  await run.nth('started', 1);
  // A module that never yields, saved while serving.
  writeFileSync(join(packDir, 'tools', 'hang.mjs'), 'for (;;) {}\n');
  await new Promise((resolve) => setTimeout(resolve, 500));
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.deepEqual(processesNaming(packDir), [], 'a busy indexer process is killed');
});
