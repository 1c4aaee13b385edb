// runIndexer at its edges: Zod schemas JSON cannot hold, options and config values of the wrong
// type, and config paths relative to the working folder.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { findKindgiConfig, runIndexer } from '../index.js';

const CONFIG = "export default { pack: { id: 'acme.pack', version: '1.0.0' } };\n";

const zodDir = dirname(createRequire(import.meta.url).resolve('zod/package.json'));

/** A pack in a temporary folder, with this package's zod linked in as its own. */
function pack(files, config = CONFIG) {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-edges-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(zodDir, join(dir, 'node_modules', 'zod'));
  writeFileSync(join(dir, 'kindgi.config.mjs'), config);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}
const PINS = { artifactVersion: 'edge.1', publishedAt: '2026-01-01T00:00:00.000Z' };

test('a recursive Zod schema is converted, never sent as itself', async () => {
  const dir = pack({
    'tools/tree.mjs': `import { z } from 'zod';
const Category = z.object({ name: z.string(), get children() { return z.array(Category); } });
export default { id: 'acme.tree', input: Category, output: z.object({ ok: z.boolean() }), handler: async () => ({ ok: true }) };
`,
  });
  const outcome = await runIndexer({ packDir: dir, ...PINS });
  assert.equal(outcome.kind, 'ok');
  assert.deepEqual(outcome.value.fileErrors, []);
  const [tool] = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')).tools;
  assert.equal(tool.input.type, 'object');
  assert.ok(JSON.stringify(tool.input).includes('"$ref"'), 'the recursion is a $ref');
});

test('a Zod default JSON cannot hold is a zod-conversion-failed, as in TypeScript', async () => {
  const dir = pack({
    'tools/big.mjs': `import { z } from 'zod';
export default { id: 'acme.big', inputZod: z.object({ n: z.bigint().default(5n) }), input: {}, output: {}, handler: async () => ({}) };
`,
  });
  const outcome = await runIndexer({ packDir: dir, ...PINS });
  assert.equal(outcome.value.fileErrors.length, 1);
  const [error] = outcome.value.fileErrors;
  assert.equal(error.code, 'zod-conversion-failed');
  assert.equal(error.field, 'inputZod');
  assert.match(error.message, /^tools\/big\.mjs: Zod conversion for 'inputZod' failed: z\.toJSONSchema\(\) failed: /);
});

test("a guardrail config that is a function is not an object", async () => {
  const dir = pack({
    'guardrails/g.mjs': `export default { id: 'acme.g', kind: 'zero-llm', check: 'acme.pack.checks.g', config: () => ({}), action: { 'on-violation': 'halt' } };\n`,
  });
  const outcome = await runIndexer({ packDir: dir, ...PINS });
  assert.deepEqual(outcome.value.fileErrors, [
    { code: 'manifest-validation-failed', message: "guardrails/g.mjs: guardrail acme.g's config must be an object", filePath: 'guardrails/g.mjs', field: 'config' },
  ]);
});

test('a bundle map is read as Object.keys reads it: [] lists nothing, null throws', async () => {
  const dir = pack({ 'tools/a.mjs': "export default { id: 'a', input: {}, output: {}, handler() {} };\n" });
  const empty = await runIndexer({ packDir: dir, bundleMap: [], ...PINS });
  assert.equal(empty.kind, 'err');
  assert.equal(empty.error.code, 'discovery-empty');
  assert.match(empty.error.message, /^The bundle map lists no file/);
  await assert.rejects(runIndexer({ packDir: dir, bundleMap: null, ...PINS }), TypeError);
});

test('a discovery pattern that is not a string is a TypeError naming it', async () => {
  const dir = pack({}, "export default { pack: { id: 'a', version: '1' }, discovery: { tools: 42 } };\n");
  await assert.rejects(runIndexer({ packDir: dir, ...PINS }), {
    name: 'TypeError',
    message: "The config's discovery.tools must be a glob pattern (a string), not number",
  });
});

test("findKindgiConfig joins its file names to the folder as path.join does", async () => {
  const dir = pack({});
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    assert.deepEqual(await findKindgiConfig('.'), { path: 'kindgi.config.mjs', format: 'module' });
    assert.deepEqual(await findKindgiConfig('./'), { path: 'kindgi.config.mjs', format: 'module' });
  } finally {
    process.chdir(cwd);
  }
  writeFileSync(join(dir, 'kindgi.config.json'), '{}');
  assert.deepEqual(await findKindgiConfig(dir), {
    path: join(dir, 'kindgi.config.json'),
    format: 'json',
    conflictsWith: join(dir, 'kindgi.config.mjs'),
  });
});

test('in one process: an edited module is imported anew, a broken edit is an error, a top-level await is imported', async () => {
  const tool = (n) => `export default { id: 'acme.t', description: 'v${n}', input: {}, output: {}, handler() {} };\n`;
  const dir = pack({ 'tools/t.mjs': tool(1), 'tools/tla.mjs': `await Promise.resolve();\n${tool(0).replace('acme.t', 'acme.tla')}` });
  const run = async () => {
    const outcome = await runIndexer({ packDir: dir, ...PINS });
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
    return { errors: outcome.value.fileErrors, descriptions: index.tools.map((t) => t.description) };
  };
  const later = (n) => {
    const when = new Date(Date.now() + n * 2000);
    utimesSync(join(dir, 'tools', 't.mjs'), when, when);
  };
  assert.deepEqual(await run(), { errors: [], descriptions: ['v1', 'v0'] });
  writeFileSync(join(dir, 'tools', 't.mjs'), tool(2));
  later(1);
  assert.deepEqual((await run()).descriptions, ['v2', 'v0']);
  writeFileSync(join(dir, 'tools', 't.mjs'), 'export default {{\n');
  later(2);
  const broken = await run();
  assert.equal(broken.errors.length, 1);
  assert.equal(broken.errors[0].code, 'file-import-failed');
  assert.match(broken.errors[0].message, /^Failed to import tools\/t\.mjs: SyntaxError: /);
  writeFileSync(join(dir, 'tools', 't.mjs'), tool(3));
  later(3);
  assert.deepEqual(await run(), { errors: [], descriptions: ['v3', 'v0'] });
});
