// runIndexer through the public entry points: packs written to temp folders, read through real
// `import()` or through the `importModule` seam, the index file and the report checked to the
// byte and the key. Reference: the behaviour spec of the TypeScript indexer (newest: warnings,
// `checkBuiltIn`, reserved check ids, JVM configs).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';

import * as root from '../index.js';
import * as subpath from '../lib/kindgi-index.js';
import { reference as canonicalText } from './helpers/canonical-reference.mjs';

const { runIndexer, RESERVED_CHECK_IDS, INDEX_ENVELOPE_VERSION, KERNEL_PAYLOAD_VERSION } = root;

const FIXED = '2026-09-20T14:32:07.104Z';
const PACK = { id: 'acme.pack', version: '1.0.0' };

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const closedObject = (properties) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const evaluate = async () => ({ passed: true });

const toolDef = (o = {}) => ({
  id: 'acme.echo',
  description: 'Says back what it is told',
  input: closedObject({ text: { type: 'string' } }),
  output: closedObject({ text: { type: 'string' } }),
  effects: [{ kind: 'reads', resource: 'notes' }],
  handler: async (input) => input,
  ...o,
});
const guardrailDef = (o = {}) => ({
  id: 'acme.grounded',
  name: 'Answers stay grounded',
  kind: 'zero-llm',
  check: 'acme.pack.checks.grounded',
  action: { 'on-violation': 'halt' },
  severity: 'blocking',
  ...o,
});
const agentDef = (o = {}) => ({
  id: 'acme.support',
  version: '1.0.0',
  name: 'Support desk',
  instructions: 'Answer briefly.',
  capabilities: [{ needs: [{ feature: 'tool-use' }] }],
  tools: [{ id: 'acme.echo', version: '^1.0.0' }],
  ...o,
});
const flowDef = (o = {}) => ({
  id: 'acme.flow',
  version: '1.0.0',
  nodes: [{ id: 'first', kind: 'tool', ref: 'acme.echo' }],
  edges: [{ id: 'go', from: '$start', to: 'first' }],
  ...o,
});
const withDefault = (def, exports = {}) => ({ default: def, ...exports });

/** A fresh folder under the OS temp dir, removed when the test ends. */
async function tempDir(t, prefix = 'kindgi-idx-') {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function put(dir, rel, content) {
  const abs = path.join(dir, ...rel.split('/'));
  await mkdir(path.dirname(abs), { recursive: true });
  await writeFile(abs, content);
  return abs;
}

const STUB = '// a stub: the importModule seam hands in this file\'s module\n';

/**
 * A pack whose files exist (as stubs) and whose modules come from the `importModule` seam:
 * `modules` maps each relative path to the module object the seam returns for it.
 */
async function seamPack(t, modules, { config = {}, configModule } = {}) {
  const dir = await tempDir(t);
  const byUrl = new Map();
  const all = { 'kindgi.config.mjs': configModule ?? withDefault({ pack: PACK, ...config }), ...modules };
  for (const [rel, module] of Object.entries(all)) {
    byUrl.set(pathToFileURL(await put(dir, rel, STUB)).href, module);
  }
  const calls = [];
  const importModule = async (url) => {
    calls.push(url);
    if (!byUrl.has(url)) throw new Error(`no module registered for ${url}`);
    const module = byUrl.get(url);
    if (module instanceof Error) throw module;
    return module;
  };
  const run = (opts = {}) =>
    runIndexer({ packDir: dir, importModule, artifactVersion: '20260920.1', publishedAt: FIXED, ...opts });
  const index = async (file = path.join(dir, 'index.json')) => JSON.parse(await readFile(file, 'utf8'));
  return { dir, importModule, calls, run, index, url: (rel) => pathToFileURL(path.join(dir, ...rel.split('/'))).href };
}

/** A pack of real files, imported with Node's own `import()`. */
async function realPack(t, files) {
  const dir = await tempDir(t, 'kindgi-idx-real-');
  for (const [rel, content] of Object.entries(files)) await put(dir, rel, content);
  return dir;
}

const CONFIG_SOURCE = "export default { pack: { id: 'acme.pack', version: '1.0.0' } };\n";
const toolSource = (id, extra = '') =>
  `export default {\n  id: ${JSON.stringify(id)},\n  description: 'real',\n  input: { type: 'object', properties: {}, additionalProperties: false },\n  output: { type: 'object', properties: {}, additionalProperties: false },\n  effects: [],${extra}\n  handler: async () => ({}),\n};\n`;

function okValue(result) {
  assert.equal(result.kind, 'ok', result.kind === 'err' ? `${result.error.code}: ${result.error.message}` : '');
  return result.value;
}
function errValue(result) {
  assert.equal(result.kind, 'err', result.kind === 'ok' ? `ok, with ${JSON.stringify(result.value.fileErrors)}` : '');
  return result.error;
}

const warning = (file, id, packId = 'acme.pack') => ({
  code: 'check-id-unprefixed',
  message: `${file}: check "${id}" doesn't start with this pack's id ("${packId}."). Name it "${packId}.checks.<name>" so it can't collide with another pack's check on the same runtime. The pack builds as it is.`,
  filePath: file,
  field: 'check',
});
const reservedMessage = (file, id) =>
  `${file} ships its own check under "${id}", a built-in check's id: a pack can't replace a built-in. Rename your check (for example "<pack>.checks.${id}"), or, to use the built-in, name it (check: '${id}') and drop your implementation.`;

const REPORT_KEYS = ['packId', 'packVersion', 'artifactVersion', 'publishedAt', 'counts', 'outputPath', 'fileErrors', 'warnings'];
const todayUtc = () => new Date().toISOString().slice(0, 10).replace(/-/g, '');

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

describe('entry points', () => {
  test('the root and the ./kindgi-index subpath export the same indexer functions', () => {
    for (const name of [
      'runIndexer',
      'loadKindgiConfig',
      'findKindgiConfig',
      'packLanguage',
      'isJvmLanguage',
      'resolveDiscovery',
      'globToRegex',
      'globStaticPrefix',
      'discoveryRoots',
      'createGlobMatcher',
    ]) {
      assert.equal(typeof root[name], 'function', name);
      assert.equal(root[name], subpath[name], name);
    }
    assert.equal(root.kindgiIndexMain, subpath.main);
    assert.equal(root.KINDGI_INDEX_HELP_TEXT, subpath.HELP_TEXT);
    assert.equal(typeof subpath.readBundleMap, 'function');
    // As in TypeScript, `main`, `HELP_TEXT` and `readBundleMap` are not root names.
    assert.equal('main' in root, false);
    assert.equal('HELP_TEXT' in root, false);
    assert.equal('readBundleMap' in root, false);
    assert.equal(root.TEST_FILE_REGEX, subpath.TEST_FILE_REGEX);
  });

  test('the envelope constants and the built-in check ids', () => {
    assert.equal(INDEX_ENVELOPE_VERSION, 1);
    assert.equal(KERNEL_PAYLOAD_VERSION, 1);
    assert.deepEqual(RESERVED_CHECK_IDS, [
      'must-cite',
      'never-call-tool',
      'max-tool-calls',
      'output-matches',
      'tool-order',
      'required-substring',
      'forbidden-substring',
    ]);
    assert.ok(Array.isArray(RESERVED_CHECK_IDS));
    assert.equal(subpath.RESERVED_CHECK_IDS, RESERVED_CHECK_IDS);
  });
});

// ---------------------------------------------------------------------------------------------
// A pack indexed
// ---------------------------------------------------------------------------------------------

describe('runIndexer: a whole pack', () => {
  test('every kind is indexed; the index and the report hold what the pack declares', async (t) => {
    const pack = await seamPack(t, {
      'tools/echo.mjs': withDefault(toolDef()),
      'tools/shout.mjs': withDefault(toolDef({ id: 'acme.shout', description: 'Loud' })),
      'guardrails/grounded.mjs': withDefault(guardrailDef()),
      'agents/support.mjs': withDefault(agentDef({ retrieval: [], guardrails: ['acme.grounded'] })),
      'flows/flow.mjs': withDefault(flowDef()),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(Object.keys(report), REPORT_KEYS);
    assert.deepEqual(report, {
      packId: 'acme.pack',
      packVersion: '1.0.0',
      artifactVersion: '20260920.1',
      publishedAt: FIXED,
      counts: { tools: 2, guardrails: 1, agents: 1, flows: 1 },
      outputPath: path.join(pack.dir, 'index.json'),
      fileErrors: [],
      warnings: [],
    });
    assert.deepEqual(Object.keys(report.counts), ['tools', 'guardrails', 'agents', 'flows']);

    const index = await pack.index();
    assert.equal(index.v, 1);
    assert.equal(index.packId, 'acme.pack');
    assert.equal(index.packVersion, '1.0.0');
    assert.equal(index.artifactVersion, '20260920.1');
    assert.equal(index.publishedAt, FIXED);
    assert.equal('env' in index, false);
    const tool = toolDef();
    assert.deepEqual(index.tools, [
      {
        id: 'acme.echo',
        description: tool.description,
        input: tool.input,
        output: tool.output,
        effects: tool.effects,
        modulePath: 'tools/echo.mjs',
      },
      {
        id: 'acme.shout',
        description: 'Loud',
        input: tool.input,
        output: tool.output,
        effects: tool.effects,
        modulePath: 'tools/shout.mjs',
      },
    ]);
    assert.deepEqual(index.guardrails, [
      {
        id: 'acme.grounded',
        name: 'Answers stay grounded',
        kind: 'zero-llm',
        action: { 'on-violation': 'halt' },
        severity: 'blocking',
        checkModulePath: 'guardrails/grounded.mjs',
        checkId: 'acme.pack.checks.grounded',
      },
    ]);
    const agent = agentDef();
    assert.deepEqual(index.agents, [
      {
        id: 'acme.support',
        version: '1.0.0',
        name: agent.name,
        instructions: agent.instructions,
        capabilities: agent.capabilities,
        tools: agent.tools,
        retrieval: [],
        guardrails: ['acme.grounded'],
        modulePath: 'agents/support.mjs',
      },
    ]);
    assert.equal(index.flows.length, 1);
    assert.equal(index.flows[0].id, 'acme.flow');
    assert.equal(index.flows[0].version, '1.0.0');
    assert.equal(index.flows[0].modulePath, 'flows/flow.mjs');
    assert.equal(index.flows[0].kernelPayloadVersion, 1);
  });

  test('the index file is canonical JSON: keys sorted at every depth, two-space indent, one final newline', async (t) => {
    const pack = await seamPack(t, {
      'tools/echo.mjs': withDefault(toolDef({ limits: { timeoutMs: 5, cpu: 1 }, network: { egress: ['b', 'a'] } })),
      'agents/support.mjs': withDefault(agentDef({ budget: { z: 1, a: { y: 2, b: 3 } } })),
    });
    okValue(await pack.run());
    const text = await readFile(path.join(pack.dir, 'index.json'), 'utf8');
    assert.equal(text, canonicalText(JSON.parse(text)));
    assert.ok(text.startsWith('{\n  "agents": ['));
    assert.ok(text.endsWith('\n  "v": 1\n}\n'));
  });

  test('lists are sorted by id whatever order the files come in', async (t) => {
    const pack = await seamPack(t, {
      'tools/a.mjs': withDefault(toolDef({ id: 'acme.zulu' })),
      'tools/b.mjs': withDefault(toolDef({ id: 'acme.Alpha' })),
      'tools/c.mjs': withDefault(toolDef({ id: 'acme.alpha' })),
      'agents/a.mjs': withDefault(agentDef({ id: 'acme.z' })),
      'agents/b.mjs': withDefault(agentDef({ id: 'acme.a' })),
    });
    okValue(await pack.run());
    const index = await pack.index();
    assert.deepEqual(index.tools.map((x) => x.modulePath), ['tools/b.mjs', 'tools/c.mjs', 'tools/a.mjs']);
    assert.deepEqual(index.agents.map((x) => x.id), ['acme.a', 'acme.z']);
  });

  test('a real pack on disk, imported by Node: tools, a guardrail with its check, an agent', async (t) => {
    const dir = await realPack(t, {
      'kindgi.config.mjs': CONFIG_SOURCE,
      'tools/b.mjs': toolSource('acme.beta', '\n  mutating: false,'),
      'tools/a.mjs': toolSource('acme.alpha'),
      'guardrails/g.mjs':
        "export const check = { id: 'acme.pack.checks.short', evaluate: async () => ({ passed: true }) };\n" +
        "export default { id: 'acme.short', kind: 'zero-llm', check, action: { 'on-violation': 'warn' } };\n",
      'agents/helper.mjs':
        "export default { id: 'acme.helper', version: '2.0.0', name: 'Helper', instructions: { prompt: 'acme.p', version: '^1.0.0' }, capabilities: [], tools: [] };\n",
      'tools/readme.md': '# not a module\n',
    });
    const report = okValue(await runIndexer({ packDir: dir, artifactVersion: 'r1', publishedAt: FIXED }));
    assert.deepEqual(report.counts, { tools: 2, guardrails: 1, agents: 1, flows: 0 });
    assert.deepEqual(report.fileErrors, []);
    assert.deepEqual(report.warnings, []);
    const index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8'));
    assert.deepEqual(index.tools.map((x) => [x.id, x.modulePath, x.mutating]), [
      ['acme.alpha', 'tools/a.mjs', undefined],
      ['acme.beta', 'tools/b.mjs', false],
    ]);
    assert.deepEqual(index.guardrails, [
      {
        id: 'acme.short',
        kind: 'zero-llm',
        action: { 'on-violation': 'warn' },
        checkModulePath: 'guardrails/g.mjs',
        checkId: 'acme.pack.checks.short',
      },
    ]);
    assert.deepEqual(index.agents[0].instructions, { prompt: 'acme.p', version: '^1.0.0' });
  });

  test('a Result-wrapped ok default export is unwrapped', async (t) => {
    const pack = await seamPack(t, {
      'tools/echo.mjs': withDefault({ kind: 'ok', value: toolDef() }),
      'agents/a.mjs': withDefault({ kind: 'ok', value: agentDef() }),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.counts, { tools: 1, guardrails: 0, agents: 1, flows: 0 });
    assert.deepEqual(report.fileErrors, []);
  });

  test('relative packDir and outputPath are resolved against the working directory', async (t) => {
    const pack = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) });
    const out = path.join(pack.dir, 'out', 'deep', 'index.json');
    const report = okValue(
      await pack.run({ packDir: path.relative(process.cwd(), pack.dir), outputPath: path.relative(process.cwd(), out) }),
    );
    assert.equal(report.outputPath, out);
    assert.equal((await pack.index(out)).packId, 'acme.pack');
  });

  test('configPath names the config file explicitly', async (t) => {
    const pack = await seamPack(t, {
      'tools/echo.mjs': withDefault(toolDef()),
      'config/other.mjs': withDefault({ pack: { id: 'acme.other', version: '3.0.0' } }),
    });
    const report = okValue(await pack.run({ configPath: path.join(pack.dir, 'config', 'other.mjs') }));
    assert.equal(report.packId, 'acme.other');
    assert.equal(report.packVersion, '3.0.0');
  });

  test('the seam is handed each module as a plain file URL (no cache-busting query)', async (t) => {
    const pack = await seamPack(t, {
      'tools/echo.mjs': withDefault(toolDef()),
      'agents/a.mjs': withDefault(agentDef()),
    });
    okValue(await pack.run());
    assert.deepEqual(
      [...pack.calls].sort(),
      [pack.url('agents/a.mjs'), pack.url('kindgi.config.mjs'), pack.url('tools/echo.mjs')].sort(),
    );
    assert.equal(pack.calls[0], pack.url('kindgi.config.mjs'));
  });

  test('real imports are cache-busted by mtime: an edited module is read anew in the same process', async (t) => {
    const dir = await realPack(t, {
      'kindgi.config.mjs': CONFIG_SOURCE,
      'tools/echo.mjs': toolSource('acme.first'),
    });
    const first = okValue(await runIndexer({ packDir: dir, artifactVersion: 'x', publishedAt: FIXED }));
    assert.equal(first.counts.tools, 1);
    let index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8'));
    assert.equal(index.tools[0].id, 'acme.first');
    const file = path.join(dir, 'tools', 'echo.mjs');
    await writeFile(file, toolSource('acme.second'));
    const later = new Date(Date.now() + 5000);
    await utimes(file, later, later);
    okValue(await runIndexer({ packDir: dir, artifactVersion: 'x', publishedAt: FIXED }));
    index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8'));
    assert.equal(index.tools[0].id, 'acme.second');
  });
});

// ---------------------------------------------------------------------------------------------
// Flows
// ---------------------------------------------------------------------------------------------

describe('runIndexer: flows', () => {
  test("a flow's optional fields and mappings are carried", async (t) => {
    const inputMapping = { id: { path: 'runInput.id' } };
    const output = { mapping: { result: { path: 'nodeOutputs.first' } } };
    const pack = await seamPack(t, {
      'flows/flow.mjs': withDefault(
        flowDef({
          name: 'One step',
          description: 'Runs the echo once.',
          maxParallelism: 3,
          metadata: { team: 'acme' },
          nodes: [{ id: 'first', kind: 'tool', ref: 'acme.echo', inputMapping }],
          output,
        }),
      ),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    const [flow] = (await pack.index()).flows;
    assert.equal(flow.name, 'One step');
    assert.equal(flow.description, 'Runs the echo once.');
    assert.equal(flow.maxParallelism, 3);
    assert.deepEqual(flow.metadata, { team: 'acme' });
    assert.equal(flow.nodes[0].id, 'first');
    assert.deepEqual(flow.nodes[0].inputMapping, inputMapping);
    assert.deepEqual(flow.output, output);
    assert.equal(flow.kernelPayloadVersion, 1);
  });

  test('a flow the flow loader refuses is a file error naming the problem', async (t) => {
    const pack = await seamPack(t, {
      'flows/flow.mjs': withDefault(flowDef({ output: { mapping: { x: { path: 'nodeOutputs.ghost' } } } })),
      'tools/echo.mjs': withDefault(toolDef()),
    });
    const report = okValue(await pack.run());
    assert.equal(report.fileErrors.length, 1);
    const [error] = report.fileErrors;
    assert.deepEqual(Object.keys(error), ['code', 'message', 'filePath']);
    assert.equal(error.code, 'manifest-validation-failed');
    assert.equal(error.filePath, 'flows/flow.mjs');
    assert.ok(error.message.startsWith('flows/flow.mjs: '), error.message);
    assert.ok(error.message.includes('nodeOutputs.ghost names no node'), error.message);
    assert.equal(report.counts.flows, 0);
    assert.equal(report.counts.tools, 1);
  });
});

// ---------------------------------------------------------------------------------------------
// Guardrails and check ids
// ---------------------------------------------------------------------------------------------

describe('runIndexer: built-in check ids', () => {
  test('a guardrail naming a built-in check by its id builds, marked checkBuiltIn', async (t) => {
    const pack = await seamPack(t, { 'guardrails/cites.mjs': withDefault(guardrailDef({ check: 'must-cite' })) });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    assert.deepEqual(report.warnings, []);
    const [g] = (await pack.index()).guardrails;
    assert.equal(g.id, 'acme.grounded');
    assert.equal(g.checkId, 'must-cite');
    assert.equal(g.checkBuiltIn, true);
  });

  test('with no check at all, a guardrail whose own id is a built-in id is marked, with no checkId', async (t) => {
    const { check, ...noCheck } = guardrailDef({ id: 'tool-order' });
    assert.equal(check, 'acme.pack.checks.grounded');
    const pack = await seamPack(t, { 'guardrails/order.mjs': withDefault(noCheck) });
    okValue(await pack.run());
    const [g] = (await pack.index()).guardrails;
    assert.equal(g.checkBuiltIn, true);
    assert.equal('checkId' in g, false);
  });

  test('a check object with a built-in id but no evaluate names the built-in: checkId and the mark, no error', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/cites.mjs': withDefault(guardrailDef({ check: { id: 'max-tool-calls', configSchema: { type: 'object' } } })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    assert.deepEqual(report.warnings, []);
    const [g] = (await pack.index()).guardrails;
    assert.equal(g.checkId, 'max-tool-calls');
    assert.equal(g.checkBuiltIn, true);
  });

  test('a check of the pack (not a built-in id) carries no checkBuiltIn key at all', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/a.mjs': withDefault(guardrailDef({ id: 'acme.a', check: { id: 'acme.pack.checks.a', evaluate } })),
      'guardrails/b.mjs': withDefault(guardrailDef({ id: 'acme.b', check: 'acme.pack.checks.b' })),
    });
    okValue(await pack.run());
    const guardrails = (await pack.index()).guardrails;
    assert.deepEqual(guardrails.map((g) => g.checkId), ['acme.pack.checks.a', 'acme.pack.checks.b']);
    for (const g of guardrails) assert.equal('checkBuiltIn' in g, false);
  });

  for (const [form, module] of [
    ['as the guardrail\'s own check', withDefault(guardrailDef({ check: { id: 'must-cite', evaluate } }))],
    ['as an exported check beside a guardrail naming the built-in', withDefault(guardrailDef({ check: 'must-cite' }), { check: { id: 'must-cite', evaluate } })],
  ]) {
    test(`an implementation shipped under a built-in id is refused (${form})`, async (t) => {
      const pack = await seamPack(t, {
        'guardrails/cites.mjs': module,
        'tools/echo.mjs': withDefault(toolDef()),
      });
      const report = okValue(await pack.run());
      assert.deepEqual(report.fileErrors, [
        {
          code: 'reserved-check-id',
          message: reservedMessage('guardrails/cites.mjs', 'must-cite'),
          filePath: 'guardrails/cites.mjs',
          field: 'check',
        },
      ]);
      assert.deepEqual(Object.keys(report.fileErrors[0]), ['code', 'message', 'filePath', 'field']);
      // The guardrail is left out, and its warnings are never looked at.
      assert.equal(report.counts.guardrails, 0);
      assert.deepEqual(report.warnings, []);
      assert.deepEqual((await pack.index()).guardrails, []);
    });
  }

  test('the first candidate decides: the guardrail\'s own check, then the exports in their order', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/a.mjs': withDefault(guardrailDef({ id: 'acme.a', check: { id: 'never-call-tool', evaluate } }), {
        extra: { id: 'must-cite', evaluate },
      }),
      'guardrails/b.mjs': {
        second: { id: 'tool-order', evaluate },
        default: guardrailDef({ id: 'acme.b', check: 'must-cite' }),
        first: { id: 'output-matches', evaluate },
      },
    });
    const report = okValue(await pack.run());
    assert.deepEqual(
      report.fileErrors.map((e) => e.message),
      [reservedMessage('guardrails/a.mjs', 'never-call-tool'), reservedMessage('guardrails/b.mjs', 'tool-order')],
    );
  });

  test('a real module namespace lists its exports by name, so the alphabetically first export decides', async (t) => {
    const dir = await realPack(t, {
      'kindgi.config.mjs': CONFIG_SOURCE,
      'guardrails/g.mjs':
        "const evaluate = async () => ({ passed: true });\n" +
        "export const zed = { id: 'tool-order', evaluate };\n" +
        "export const alpha = { id: 'required-substring', evaluate };\n" +
        "export default { id: 'acme.g', kind: 'zero-llm', check: 'must-cite', action: { 'on-violation': 'halt' } };\n",
    });
    const report = okValue(await runIndexer({ packDir: dir, artifactVersion: 'x', publishedAt: FIXED }));
    assert.deepEqual(report.fileErrors.map((e) => e.message), [reservedMessage('guardrails/g.mjs', 'required-substring')]);
  });

  test('the default export itself is a candidate when it has an id and an evaluate function', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/g.mjs': withDefault(guardrailDef({ id: 'forbidden-substring', check: undefined, evaluate })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors.map((e) => [e.code, e.message]), [
      ['reserved-check-id', reservedMessage('guardrails/g.mjs', 'forbidden-substring')],
    ]);
  });

  test('objects without evaluate, functions and arrays are not check implementations', async (t) => {
    const fn = Object.assign(() => {}, { id: 'must-cite', evaluate });
    const list = Object.assign([], { id: 'must-cite', evaluate });
    const pack = await seamPack(t, {
      'guardrails/g.mjs': withDefault(guardrailDef({ check: 'must-cite' }), {
        settings: { id: 'must-cite', minCitations: 2 },
        notAFunction: { id: 'must-cite', evaluate: 'later' },
        numericId: { id: 7, evaluate },
        fn,
        list,
      }),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    assert.deepEqual(report.warnings, []);
    assert.equal(report.counts.guardrails, 1);
  });

  test('the reserved check comes before the duplicate check', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/a.mjs': withDefault(guardrailDef()),
      'guardrails/b.mjs': withDefault(guardrailDef({ check: { id: 'must-cite', evaluate } })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors.map((e) => e.code), ['reserved-check-id']);
  });
});

describe('runIndexer: check ids without the pack prefix (warnings)', () => {
  for (const [form, module] of [
    ['the guardrail\'s own check object', withDefault(guardrailDef({ check: { id: 'acme.checks.cites', evaluate } }))],
    ['an exported check, the guardrail naming a built-in', withDefault(guardrailDef({ check: 'must-cite' }), { check: { id: 'acme.checks.cites', evaluate } })],
  ]) {
    test(`an unprefixed id warns and the pack builds (${form})`, async (t) => {
      const pack = await seamPack(t, { 'guardrails/cites.mjs': module });
      const report = okValue(await pack.run());
      assert.deepEqual(report.fileErrors, []);
      assert.deepEqual(report.warnings, [warning('guardrails/cites.mjs', 'acme.checks.cites')]);
      assert.deepEqual(Object.keys(report.warnings[0]), ['code', 'message', 'filePath', 'field']);
      assert.equal(report.counts.guardrails, 1);
    });
  }

  test('the prefix is the pack id and a dot: a longer id sharing its start still warns', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/cites.mjs': withDefault(guardrailDef({ check: { id: 'acme.packs.cites', evaluate } })),
    });
    assert.deepEqual(okValue(await pack.run()).warnings, [warning('guardrails/cites.mjs', 'acme.packs.cites')]);
  });

  test('the prefix follows the config\'s pack id', async (t) => {
    const pack = await seamPack(
      t,
      { 'guardrails/cites.mjs': withDefault(guardrailDef({ check: { id: 'acme.pack.checks.cites', evaluate } })) },
      { configModule: withDefault({ pack: { id: 'globex', version: '2.0.0' } }) },
    );
    assert.deepEqual(okValue(await pack.run()).warnings, [warning('guardrails/cites.mjs', 'acme.pack.checks.cites', 'globex')]);
  });

  test('one id is reported once, even when the same check is both the guardrail\'s and an export', async (t) => {
    const check = { id: 'cites', evaluate };
    const pack = await seamPack(t, {
      'guardrails/cites.mjs': withDefault(guardrailDef({ check }), { check, again: { id: 'cites', evaluate } }),
    });
    assert.deepEqual(okValue(await pack.run()).warnings, [warning('guardrails/cites.mjs', 'cites')]);
  });

  test('several ids warn in the order they are first seen: own check, then the exports', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/g.mjs': withDefault(guardrailDef({ check: { id: 'zz.own', evaluate } }), {
        one: { id: 'mm.export', evaluate },
        fine: { id: 'acme.pack.checks.ok', evaluate },
        two: { id: 'aa.export', evaluate },
      }),
    });
    assert.deepEqual(okValue(await pack.run()).warnings, [
      warning('guardrails/g.mjs', 'zz.own'),
      warning('guardrails/g.mjs', 'mm.export'),
      warning('guardrails/g.mjs', 'aa.export'),
    ]);
  });

  test('prefixed ids and checks named by a string never warn', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/a.mjs': withDefault(guardrailDef({ id: 'acme.a', check: { id: 'acme.pack.checks.cites', evaluate } })),
      'guardrails/b.mjs': withDefault(guardrailDef({ id: 'acme.b', check: 'must-cite' })),
      'guardrails/c.mjs': withDefault(guardrailDef({ id: 'acme.c', check: 'acme.checks.grounded' })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.warnings, []);
    assert.equal(report.counts.guardrails, 3);
  });

  test('warnings follow file order, and a guardrail refused as a duplicate still adds its own', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/b.mjs': withDefault(guardrailDef({ check: { id: 'b.check', evaluate } })),
      'guardrails/a.mjs': withDefault(guardrailDef({ check: { id: 'a.check', evaluate } })),
      'guardrails/c.mjs': withDefault(guardrailDef({ id: 'acme.other', check: { id: 'c.check', evaluate } })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.warnings, [
      warning('guardrails/a.mjs', 'a.check'),
      warning('guardrails/b.mjs', 'b.check'),
      warning('guardrails/c.mjs', 'c.check'),
    ]);
    assert.deepEqual(report.fileErrors, [
      {
        code: 'manifest-validation-failed',
        message: "guardrails/b.mjs: duplicate guardrail 'acme.grounded' (also defined in guardrails/a.mjs)",
        filePath: 'guardrails/b.mjs',
      },
    ]);
  });

  test('a guardrail that fails to build adds no warning', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/g.mjs': withDefault(guardrailDef({ kind: 42, check: { id: 'x.check', evaluate } })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.warnings, []);
    assert.deepEqual(report.fileErrors, [
      { code: 'manifest-validation-failed', message: "guardrails/g.mjs: 'kind' is missing or not a string", filePath: 'guardrails/g.mjs' },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Zod
// ---------------------------------------------------------------------------------------------

describe('runIndexer: Zod schemas', () => {
  test('a tool input given as Zod (inputZod and input) is converted on the input side', async (t) => {
    const InputZod = z.object({ query: z.string().min(1), topK: z.number().int().min(1).max(20) });
    const pack = await seamPack(t, { 'tools/search.mjs': withDefault(toolDef({ id: 'acme.search', inputZod: InputZod, input: InputZod })) });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    const [tool] = (await pack.index()).tools;
    const expected = z.toJSONSchema(InputZod, { io: 'input' });
    assert.deepEqual(tool.input, expected);
    assert.equal(tool.input.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal('additionalProperties' in tool.input, false);
    assert.equal('inputZod' in tool, false);
  });

  test('a JSON Schema input with a Zod output: the input verbatim, the output converted on the output side', async (t) => {
    const OutputZod = z.object({ ok: z.boolean() });
    const input = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] };
    const pack = await seamPack(t, { 'tools/mixed.mjs': withDefault(toolDef({ input, output: OutputZod, outputZod: OutputZod })) });
    okValue(await pack.run());
    const [tool] = (await pack.index()).tools;
    assert.deepEqual(tool.input, input);
    assert.deepEqual(tool.output, z.toJSONSchema(OutputZod, { io: 'output' }));
    assert.equal(tool.output.additionalProperties, false);
  });

  test('only a Zod wire slot (no xZod field) is converted too', async (t) => {
    const pack = await seamPack(t, {
      'tools/a.mjs': withDefault(toolDef({ input: z.object({ n: z.number().default(3) }), output: z.string() })),
    });
    okValue(await pack.run());
    const [tool] = (await pack.index()).tools;
    assert.deepEqual(tool.input, z.toJSONSchema(z.object({ n: z.number().default(3) }), { io: 'input' }));
    assert.deepEqual(tool.output, z.toJSONSchema(z.string(), { io: 'output' }));
    assert.equal('required' in tool.input, false);
  });

  test('xZod wins over the wire slot', async (t) => {
    const pack = await seamPack(t, {
      'tools/a.mjs': withDefault(toolDef({ inputZod: z.object({ fromZod: z.string() }), input: { type: 'object', title: 'wire' } })),
    });
    okValue(await pack.run());
    const [tool] = (await pack.index()).tools;
    assert.deepEqual(Object.keys(tool.input.properties), ['fromZod']);
  });

  test('a tool whose Zod schema cannot be converted is a zod-conversion-failed file error with the thrown cause', async (t) => {
    const Broken = z.object({ n: z.bigint() });
    const pack = await seamPack(t, {
      'tools/broken.mjs': withDefault(toolDef({ id: 'acme.broken', inputZod: Broken, input: Broken })),
      'tools/out.mjs': withDefault(toolDef({ id: 'acme.out', output: z.bigint() })),
      'tools/ok.mjs': withDefault(toolDef()),
    });
    const report = okValue(await pack.run());
    assert.equal(report.counts.tools, 1);
    assert.equal(report.fileErrors.length, 2);
    const [broken, out] = report.fileErrors;
    assert.deepEqual(Object.keys(broken), ['code', 'message', 'filePath', 'field', 'cause']);
    assert.equal(broken.code, 'zod-conversion-failed');
    assert.equal(broken.filePath, 'tools/broken.mjs');
    assert.equal(broken.field, 'inputZod');
    assert.equal(
      broken.message,
      "tools/broken.mjs: Zod conversion for 'inputZod' failed: z.toJSONSchema() failed: BigInt cannot be represented in JSON Schema",
    );
    assert.ok(broken.cause instanceof Error);
    assert.equal(broken.cause.message, 'BigInt cannot be represented in JSON Schema');
    assert.equal(out.field, 'output');
    assert.equal(
      out.message,
      "tools/out.mjs: Zod conversion for 'output' failed: z.toJSONSchema() failed: BigInt cannot be represented in JSON Schema",
    );
  });

  test('a guardrail configZod becomes its configSchema (input side), and the config is checked against it', async (t) => {
    const ConfigZod = z.object({ threshold: z.number().min(0).max(1) });
    const pack = await seamPack(t, {
      'guardrails/threshold.mjs': withDefault(guardrailDef({ configZod: ConfigZod, config: { threshold: 0.5 } })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    const [g] = (await pack.index()).guardrails;
    assert.deepEqual(g.configSchema, z.toJSONSchema(ConfigZod, { io: 'input' }));
    assert.deepEqual(g.config, { threshold: 0.5 });
    assert.equal('configZod' in g, false);
  });

  test('configSchema precedence: configZod, check.configZod, configSchema, check.configSchema, check.configJsonSchema', async (t) => {
    const mark = (name) => ({ type: 'object', title: name });
    const zodMark = (name) => z.object({ [name]: z.string().optional() });
    const pack = await seamPack(t, {
      'guardrails/g1.mjs': withDefault(
        guardrailDef({ id: 'g1', configZod: zodMark('top'), configSchema: mark('x'), check: { id: 'acme.pack.c', configZod: zodMark('nested'), configSchema: mark('y') } }),
      ),
      'guardrails/g2.mjs': withDefault(
        guardrailDef({ id: 'g2', configSchema: mark('top'), check: { id: 'acme.pack.c', configZod: zodMark('nested'), configJsonSchema: mark('z') } }),
      ),
      'guardrails/g3.mjs': withDefault(
        guardrailDef({ id: 'g3', configSchema: mark('top'), check: { id: 'acme.pack.c', configSchema: mark('nested'), configJsonSchema: mark('z') } }),
      ),
      'guardrails/g4.mjs': withDefault(guardrailDef({ id: 'g4', check: { id: 'acme.pack.c', configSchema: mark('nested'), configJsonSchema: mark('z') } })),
      'guardrails/g5.mjs': withDefault(guardrailDef({ id: 'g5', check: { id: 'acme.pack.c', configJsonSchema: mark('json') } })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    const byId = Object.fromEntries((await pack.index()).guardrails.map((g) => [g.id, g.configSchema]));
    assert.deepEqual(Object.keys(byId.g1.properties), ['top']);
    assert.deepEqual(Object.keys(byId.g2.properties), ['nested']);
    assert.deepEqual(byId.g3, mark('top'));
    assert.deepEqual(byId.g4, mark('nested'));
    assert.deepEqual(byId.g5, mark('json'));
  });

  test('a guardrail configZod that cannot be converted: the message has no file prefix, field configSchema', async (t) => {
    const pack = await seamPack(t, { 'guardrails/g.mjs': withDefault(guardrailDef({ configZod: z.object({ n: z.bigint() }) })) });
    const report = okValue(await pack.run());
    assert.equal(report.fileErrors.length, 1);
    const [error] = report.fileErrors;
    assert.deepEqual(Object.keys(error), ['code', 'message', 'filePath', 'field', 'cause']);
    assert.equal(error.code, 'zod-conversion-failed');
    assert.equal(
      error.message,
      'Guardrail acme.grounded configSchema Zod conversion failed: z.toJSONSchema() failed: BigInt cannot be represented in JSON Schema',
    );
    assert.equal(error.filePath, 'guardrails/g.mjs');
    assert.equal(error.field, 'configSchema');
    assert.ok(error.cause instanceof Error);
  });

  test('a real module authoring with zod is converted by the zod the indexer finds', async (t) => {
    const zodUrl = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;
    const dir = await realPack(t, {
      'kindgi.config.mjs': CONFIG_SOURCE,
      'tools/search.mjs':
        `import { z } from ${JSON.stringify(zodUrl)};\n` +
        'const Input = z.object({ q: z.string().min(2) });\n' +
        "export default { id: 'acme.search', inputZod: Input, output: { type: 'object' }, handler: async () => ({}) };\n",
    });
    const report = okValue(await runIndexer({ packDir: dir, artifactVersion: 'x', publishedAt: FIXED }));
    assert.deepEqual(report.fileErrors, []);
    const index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8'));
    assert.deepEqual(index.tools[0].input, z.toJSONSchema(z.object({ q: z.string().min(2) }), { io: 'input' }));
  });
});

// ---------------------------------------------------------------------------------------------
// Carried fields
// ---------------------------------------------------------------------------------------------

describe('runIndexer: carried fields', () => {
  test('a tool carries spec, mutating and its optional fields of the right type; others are dropped', async (t) => {
    const spec = {
      kind: 'http',
      method: 'GET',
      urlTemplate: 'https://api.example.com/{owner}',
      authorization: { kind: 'bearer', secretRef: { envName: 'local', name: 'API_TOKEN' } },
    };
    const pack = await seamPack(t, {
      'tools/full.mjs': withDefault(
        toolDef({
          id: 'acme.full',
          version: '1.2.0',
          spec,
          mutating: true,
          needs: [{ feature: 'net' }],
          needsSpec: { all: [] },
          sandbox: 'strict',
          limits: { timeoutMs: 100 },
          network: { egress: ['api.example.com'] },
          unknownField: 'dropped',
        }),
      ),
      'tools/lookup.mjs': withDefault(toolDef({ id: 'acme.lookup', mutating: false })),
      'tools/plain.mjs': withDefault(
        toolDef({ id: 'acme.plain', mutating: 'yes', version: 3, sandbox: 1, limits: [], spec: 'http', effects: {}, description: 5 }),
      ),
    });
    okValue(await pack.run());
    const tools = Object.fromEntries((await pack.index()).tools.map((x) => [x.id, x]));
    const { handler, unknownField, ...kept } = toolDef({
      id: 'acme.full',
      version: '1.2.0',
      spec,
      mutating: true,
      needs: [{ feature: 'net' }],
      needsSpec: { all: [] },
      sandbox: 'strict',
      limits: { timeoutMs: 100 },
      network: { egress: ['api.example.com'] },
      unknownField: 'dropped',
    });
    assert.equal(typeof handler, 'function');
    assert.equal(unknownField, 'dropped');
    assert.deepEqual(tools['acme.full'], { ...kept, modulePath: 'tools/full.mjs' });
    assert.equal(tools['acme.lookup'].mutating, false);
    assert.deepEqual(Object.keys(tools['acme.plain']).sort(), ['id', 'input', 'modulePath', 'output']);
  });

  test('an agent carries prompt blocks, settings, model settings, output, toolErrors, memory and the rest', async (t) => {
    const extra = {
      instructions: { prompt: 'acme.support-prompt', version: '^1.0.0' },
      settings: [{ id: 'acme.weights', version: '^1.0.0' }],
      modelSettings: { id: 'acme.model', version: '^1.0.0' },
      output: { name: 'axes', schema: { type: 'object', properties: { remedy: { type: 'array' } }, required: ['remedy'] }, maxRepairs: 2 },
      toolErrors: { maxRetries: 2, retryOn: ['invalid-arguments'] },
      memory: { instructionTypes: ['acme.policy'] },
      conversationPolicy: { historyLimit: 5 },
      budget: { maxTokens: 1000 },
      parameters: [{ name: 'tone' }],
      preferredProvider: 'anthropic',
      preferredModel: 'claude-x',
      description: 'Answers support questions.',
      tags: ['support'],
      retrieval: [{ source: 'kb' }],
      guardrails: ['acme.grounded'],
    };
    const pack = await seamPack(t, {
      'agents/full.mjs': withDefault(agentDef(extra)),
      'agents/bad-types.mjs': withDefault(
        agentDef({ id: 'acme.typed', tags: 'support', memory: [], preferredModel: 7, output: 'text', settings: {} }),
      ),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    const agents = Object.fromEntries((await pack.index()).agents.map((a) => [a.id, a]));
    assert.deepEqual(agents['acme.support'], { ...agentDef(extra), modulePath: 'agents/full.mjs' });
    assert.deepEqual(Object.keys(agents['acme.typed']).sort(), [
      'capabilities',
      'id',
      'instructions',
      'modulePath',
      'name',
      'tools',
      'version',
    ]);
  });

  test('a guardrail carries config, scope, sandbox, limits, network; a built-in check with config is marked', async (t) => {
    const config = { substrings: ['password', 'api_key'], caseSensitive: false };
    const pack = await seamPack(t, {
      'guardrails/no-secrets.mjs': withDefault(
        guardrailDef({
          id: 'acme.no-secrets',
          check: 'forbidden-substring',
          config,
          scope: { agents: ['acme.support'] },
          sandbox: 'strict',
          limits: { timeoutMs: 10 },
          network: { egress: [] },
          severity: 3,
        }),
      ),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    const [g] = (await pack.index()).guardrails;
    assert.deepEqual(g, {
      id: 'acme.no-secrets',
      name: 'Answers stay grounded',
      kind: 'zero-llm',
      action: { 'on-violation': 'halt' },
      scope: { agents: ['acme.support'] },
      checkModulePath: 'guardrails/no-secrets.mjs',
      checkId: 'forbidden-substring',
      checkBuiltIn: true,
      config,
      sandbox: 'strict',
      limits: { timeoutMs: 10 },
      network: { egress: [] },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// env
// ---------------------------------------------------------------------------------------------

describe('runIndexer: the pack env', () => {
  test('env lists are written sorted, optional then required', async (t) => {
    const pack = await seamPack(
      t,
      { 'tools/echo.mjs': withDefault(toolDef()) },
      { config: { env: { required: ['STORAGE_BUCKET', 'DATABASE_URL'], optional: ['LOG_LEVEL', 'A_FLAG'] } } },
    );
    okValue(await pack.run());
    const index = await pack.index();
    assert.deepEqual(index.env, { optional: ['A_FLAG', 'LOG_LEVEL'], required: ['DATABASE_URL', 'STORAGE_BUCKET'] });
    const text = await readFile(path.join(pack.dir, 'index.json'), 'utf8');
    assert.ok(text.indexOf('"env"') < text.indexOf('"flows"'));
  });

  test('empty env lists write no env key', async (t) => {
    const pack = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) }, { config: { env: { required: [], optional: [] } } });
    okValue(await pack.run());
    assert.equal('env' in (await pack.index()), false);
  });

  test('a malformed env is config-invalid, every problem joined, before discovery', async (t) => {
    // No primitives at all: the env error must come first, not discovery-empty.
    const pack = await seamPack(t, {}, {
      config: { env: { required: ['DATABASE_URL', 'KINDGI_ENV', 'not a name'], optional: ['DATABASE_URL'] } },
    });
    const error = errValue(await pack.run());
    assert.deepEqual(error, {
      code: 'config-invalid',
      field: 'env',
      message:
        'kindgi.config: "KINDGI_ENV" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack; ' +
        '"not a name" in `env.required` isn\'t an environment variable name; ' +
        '"DATABASE_URL" is in both `env.required` and `env.optional`',
    });
    assert.deepEqual(Object.keys(error), ['code', 'field', 'message']);
  });

  test('env of the wrong shape: not an object, unknown keys', async (t) => {
    const notObject = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) }, { config: { env: ['A'] } });
    assert.equal(
      errValue(await notObject.run()).message,
      'kindgi.config: `env` must be an object: { required?: string[], optional?: string[] }',
    );
    const extraKeys = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) }, { config: { env: { required: [], x: 1, y: 2 } } });
    assert.equal(errValue(await extraKeys.run()).message, 'kindgi.config: `env` takes only `required` and `optional`, not `x`, `y`');
  });
});

// ---------------------------------------------------------------------------------------------
// Guardrail config checks
// ---------------------------------------------------------------------------------------------

describe('runIndexer: a guardrail config against its configSchema', () => {
  const limit = (o) =>
    withDefault(guardrailDef({ id: 'acme.limit', check: 'acme.checks.limit', configZod: z.object({ maxChars: z.number().int().min(0) }), ...o }));

  test('a config that does not fit: the guardrail is left out, the error says where', async (t) => {
    const pack = await seamPack(t, { 'guardrails/limit.mjs': limit({ config: { maxChars: -5 } }), 'tools/echo.mjs': withDefault(toolDef()) });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, [
      {
        code: 'manifest-validation-failed',
        message: "guardrails/limit.mjs: guardrail acme.limit's config doesn't fit its configSchema at /maxChars: must be >= 0",
        filePath: 'guardrails/limit.mjs',
        field: 'config',
      },
    ]);
    assert.deepEqual(Object.keys(report.fileErrors[0]), ['code', 'message', 'filePath', 'field']);
    assert.deepEqual((await pack.index()).guardrails, []);
  });

  test('no config is checked as {}: a required property is missing (no " at")', async (t) => {
    const pack = await seamPack(t, { 'guardrails/limit.mjs': limit({}) });
    const [error] = okValue(await pack.run()).fileErrors;
    assert.equal(
      error.message,
      "guardrails/limit.mjs: guardrail acme.limit's config doesn't fit its configSchema: must have required property 'maxChars'",
    );
  });

  test('a config that is not an object is refused, with or without a schema', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/a.mjs': withDefault(guardrailDef({ id: 'acme.a', config: 'strict' })),
      'guardrails/b.mjs': withDefault(guardrailDef({ id: 'acme.b', config: [1, 2] })),
      'guardrails/c.mjs': limit({ config: null }),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors.map((e) => e.message), [
      "guardrails/a.mjs: guardrail acme.a's config must be an object",
      "guardrails/b.mjs: guardrail acme.b's config must be an object",
      "guardrails/c.mjs: guardrail acme.limit's config must be an object",
    ]);
    assert.ok(report.fileErrors.every((e) => e.field === 'config'));
  });

  test('defaults are not filled in: a config left out stays out of the index', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/g.mjs': withDefault(guardrailDef({ configZod: z.object({ minLength: z.number().int().min(0).default(1) }) })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    const [g] = (await pack.index()).guardrails;
    assert.equal('config' in g, false);
    assert.equal(g.configSchema.properties.minLength.default, 1);
  });

  test('a JSON configSchema is checked too, and one that does not compile says so', async (t) => {
    const pack = await seamPack(t, {
      'guardrails/a.mjs': withDefault(
        guardrailDef({ id: 'acme.a', configSchema: { type: 'object', properties: { mode: { enum: ['x', 'y'] } } }, config: { mode: 'z' } }),
      ),
      'guardrails/b.mjs': withDefault(guardrailDef({ id: 'acme.b', configSchema: { type: 'not-a-type' }, config: {} })),
      'guardrails/c.mjs': withDefault(
        guardrailDef({ id: 'acme.c', configSchema: { type: 'object', properties: { mode: { enum: ['x', 'y'] } } }, config: { mode: 'x' } }),
      ),
    });
    const report = okValue(await pack.run());
    assert.equal(report.fileErrors.length, 2);
    assert.equal(
      report.fileErrors[0].message,
      "guardrails/a.mjs: guardrail acme.a's config doesn't fit its configSchema at /mode: must be equal to one of the allowed values",
    );
    assert.ok(
      report.fileErrors[1].message.startsWith("guardrails/b.mjs: guardrail acme.b's config can't be checked: its configSchema doesn't compile: "),
      report.fileErrors[1].message,
    );
    const [c] = (await pack.index()).guardrails;
    assert.deepEqual(c.config, { mode: 'x' });
  });
});

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

describe('runIndexer: errors of the whole run', () => {
  test('config-not-found: no config at the pack root', async (t) => {
    const dir = await realPack(t, { 'tools/echo.mjs': toolSource('acme.echo') });
    const error = errValue(await runIndexer({ packDir: dir }));
    assert.deepEqual(error, {
      code: 'config-not-found',
      message: `No kindgi.config.{ts,mts,mjs,js,cjs}, pyproject.toml with a [tool.kindgi] table, or kindgi.config.json, found at pack root ${dir}`,
    });
  });

  test('config-not-found: an explicit configPath that does not exist', async (t) => {
    const dir = await realPack(t, { 'kindgi.config.mjs': CONFIG_SOURCE, 'tools/echo.mjs': toolSource('acme.echo') });
    const error = errValue(await runIndexer({ packDir: dir, configPath: path.join(dir, 'missing.mjs') }));
    assert.equal(error.code, 'config-not-found');
    assert.ok(error.message.endsWith(`found at pack root ${dir}`));
  });

  test('config-parse-failed: a config module that throws, with the cause serialised', async (t) => {
    const dir = await realPack(t, { 'kindgi.config.mjs': "throw new TypeError('bad config');\n", 'tools/echo.mjs': toolSource('acme.echo') });
    const error = errValue(await runIndexer({ packDir: dir }));
    const file = path.join(dir, 'kindgi.config.mjs');
    assert.deepEqual(Object.keys(error), ['code', 'message', 'filePath', 'cause']);
    assert.equal(error.code, 'config-parse-failed');
    assert.equal(error.message, `Failed to import ${file}: TypeError: bad config`);
    assert.equal(error.filePath, file);
    assert.deepEqual(Object.keys(error.cause), ['name', 'message', 'stack']);
    assert.equal(error.cause.name, 'TypeError');
    assert.equal(error.cause.message, 'bad config');
    assert.match(error.cause.stack, /^TypeError: bad config\n/);
  });

  test('config-parse-failed: a config module without an object default export; a config without pack.id', async (t) => {
    const noDefault = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) }, { configModule: { pack: PACK } });
    const file = path.join(noDefault.dir, 'kindgi.config.mjs');
    assert.deepEqual(errValue(await noDefault.run()), {
      code: 'config-parse-failed',
      message: `Config file ${file} has no default export (or it is not an object)`,
      filePath: file,
    });
    const noId = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) }, { configModule: withDefault({ pack: { version: '1.0.0' } }) });
    const file2 = path.join(noId.dir, 'kindgi.config.mjs');
    assert.deepEqual(errValue(await noId.run()), {
      code: 'config-parse-failed',
      message: `Config file ${file2}: 'pack.id' is missing or not a non-empty string`,
      filePath: file2,
    });
  });

  test('language-mismatch: a Python, Java or Scala pack is refused, before its env is looked at', async (t) => {
    const py = await realPack(t, {
      'pyproject.toml': '[tool.kindgi.pack]\nid = "acme.py"\nversion = "1.0.0"\n\n[tool.kindgi.env]\nrequired = ["not a name"]\n',
    });
    assert.deepEqual(errValue(await runIndexer({ packDir: py })), {
      code: 'language-mismatch',
      message: `${py} is a python pack; index it with its own indexer (python -m kindgi.pack index)`,
    });
    for (const language of ['java', 'scala']) {
      const jvm = await realPack(t, {
        'kindgi.config.json': JSON.stringify({ language, pack: { id: 'acme.jvm', version: '1.0.0' }, env: { required: ['not a name'] } }),
      });
      assert.deepEqual(errValue(await runIndexer({ packDir: jvm })), {
        code: 'language-mismatch',
        message: `${jvm} is a ${language} pack; index it with its own indexer (java -cp <classpath> com.kindgi.pack.Main index)`,
      });
    }
  });

  test('discovery-empty: a config and no primitive', async (t) => {
    const pack = await seamPack(t, { 'lib/helper.mjs': withDefault(toolDef()), 'tools/readme.md': {} });
    assert.deepEqual(errValue(await pack.run()), {
      code: 'discovery-empty',
      message: `Indexer discovered zero files under ${pack.dir}. Check kindgi.config.ts discovery patterns.`,
    });
    assert.equal(pack.calls.length, 1, 'only the config is imported');
  });

  test('discovery-empty: a bundle map listing nothing the patterns match', async (t) => {
    const pack = await seamPack(t, {});
    assert.deepEqual(errValue(await pack.run({ bundleMap: { 'lib/helpers.ts': 'lib/helpers.mjs', 'tools/a.test.ts': 'a.mjs' } })), {
      code: 'discovery-empty',
      message: 'The bundle map lists no file the discovery patterns match. Check kindgi.config.ts discovery patterns.',
    });
  });

  test('output-write-failed: the output folder is a file', async (t) => {
    const pack = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) });
    const blocker = await put(pack.dir, 'not-a-dir.txt', 'a file\n');
    const outputPath = path.join(blocker, 'index.json');
    let expected;
    try {
      await mkdir(path.dirname(outputPath), { recursive: true });
    } catch (cause) {
      expected = cause;
    }
    assert.ok(expected instanceof Error, 'the folder cannot be made');
    const error = errValue(await pack.run({ outputPath }));
    assert.deepEqual(Object.keys(error), ['code', 'message', 'filePath', 'cause']);
    assert.equal(error.code, 'output-write-failed');
    assert.equal(error.filePath, outputPath);
    assert.equal(error.message, `Failed to write ${outputPath}: ${expected.name}: ${expected.message}`);
    assert.equal(error.cause.name, 'Error');
    assert.equal(error.cause.message, expected.message);
  });

  test('a discovery pattern JavaScript cannot compile throws, as the TypeScript indexer does', async (t) => {
    const pack = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) }, { config: { discovery: { flows: 'flows/{*}.mjs' } } });
    await assert.rejects(pack.run(), SyntaxError);
  });
});

describe('runIndexer: file errors', () => {
  test('file-import-failed: the seam throws an Error; the cause keeps its name, message and stack', async (t) => {
    const thrown = new RangeError('kaboom');
    const pack = await seamPack(t, { 'tools/boom.mjs': thrown, 'tools/echo.mjs': withDefault(toolDef()) });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, [
      {
        code: 'file-import-failed',
        message: 'Failed to import tools/boom.mjs: RangeError: kaboom',
        filePath: 'tools/boom.mjs',
        cause: { name: 'RangeError', message: 'kaboom', stack: thrown.stack },
      },
    ]);
    assert.deepEqual(Object.keys(report.fileErrors[0]), ['code', 'message', 'filePath', 'cause']);
    assert.equal(report.counts.tools, 1);
  });

  test('file-import-failed: thrown non-Errors are stringified in the message and kept as the cause', async (t) => {
    const dir = await tempDir(t);
    await put(dir, 'kindgi.config.mjs', STUB);
    const thrown = { 'tools/a.mjs': 'plain words', 'tools/b.mjs': undefined, 'tools/c.mjs': { reason: 'x' }, 'tools/d.mjs': 42 };
    for (const rel of Object.keys(thrown)) await put(dir, rel, STUB);
    const importModule = async (url) => {
      const rel = path.relative(dir, fileURLToPath(url)).split(path.sep).join('/');
      if (rel === 'kindgi.config.mjs') return withDefault({ pack: PACK });
      throw thrown[rel];
    };
    const report = okValue(await runIndexer({ packDir: dir, importModule, artifactVersion: 'x', publishedAt: FIXED }));
    assert.deepEqual(
      report.fileErrors.map((e) => [e.filePath, e.message, e.cause]),
      [
        ['tools/a.mjs', 'Failed to import tools/a.mjs: plain words', 'plain words'],
        ['tools/b.mjs', 'Failed to import tools/b.mjs: undefined', null],
        ['tools/c.mjs', 'Failed to import tools/c.mjs: [object Object]', { reason: 'x' }],
        ['tools/d.mjs', 'Failed to import tools/d.mjs: 42', 42],
      ],
    );
  });

  test('file-import-failed: real modules with a syntax error or a missing package', async (t) => {
    const dir = await realPack(t, {
      'kindgi.config.mjs': CONFIG_SOURCE,
      'tools/ok.mjs': toolSource('acme.ok'),
      'tools/broken.mjs': "import 'acme-package-not-installed';\n" + toolSource('acme.broken'),
      'tools/syntax.mjs': 'export default {\n',
    });
    const report = okValue(await runIndexer({ packDir: dir, artifactVersion: 'x', publishedAt: FIXED }));
    assert.equal(report.counts.tools, 1);
    assert.deepEqual(report.fileErrors.map((e) => [e.code, e.filePath]), [
      ['file-import-failed', 'tools/broken.mjs'],
      ['file-import-failed', 'tools/syntax.mjs'],
    ]);
    assert.ok(report.fileErrors[0].message.startsWith('Failed to import tools/broken.mjs: Error: '), report.fileErrors[0].message);
    assert.ok(report.fileErrors[0].message.includes('acme-package-not-installed'));
    assert.ok(report.fileErrors[1].message.startsWith('Failed to import tools/syntax.mjs: SyntaxError: '), report.fileErrors[1].message);
    assert.equal(report.fileErrors[1].cause.name, 'SyntaxError');
  });

  test('no-default-export: named exports only, a null module', async (t) => {
    const pack = await seamPack(t, { 'tools/named-only.mjs': { echo: 'not-a-tool' }, 'tools/null.mjs': null });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, [
      { code: 'no-default-export', message: 'File tools/named-only.mjs has no default export', filePath: 'tools/named-only.mjs' },
      { code: 'no-default-export', message: 'File tools/null.mjs has no default export', filePath: 'tools/null.mjs' },
    ]);
  });

  test('kind-mismatch: a guardrail in the tools folder', async (t) => {
    const pack = await seamPack(t, { 'tools/wrong.mjs': withDefault(guardrailDef({ id: 'acme.misplaced' })) });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, [
      {
        code: 'kind-mismatch',
        message: "File tools/wrong.mjs is under the default folder for kind 'tool' but default-exports a 'guardrail'",
        filePath: 'tools/wrong.mjs',
      },
    ]);
    assert.equal(report.counts.guardrails, 0);
  });

  test('kind-mismatch is found before the entry is built', async (t) => {
    const pack = await seamPack(t, { 'agents/x.mjs': withDefault(flowDef({ id: 42 })) });
    const [error] = okValue(await pack.run()).fileErrors;
    assert.equal(error.code, 'kind-mismatch');
    assert.equal(error.message, "File agents/x.mjs is under the default folder for kind 'agent' but default-exports a 'flow'");
  });

  test('ambiguous-kind: a default export of no primitive shape', async (t) => {
    const pack = await seamPack(
      t,
      { 'src/mystery.mjs': withDefault({ hello: 'world' }), 'tools/str.mjs': withDefault('a string') },
      { config: { discovery: { flows: 'src/**/*.{ts,js,mjs}' } } },
    );
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, [
      {
        code: 'ambiguous-kind',
        message: 'File src/mystery.mjs default export does not match any primitive shape (tool / guardrail / agent / flow)',
        filePath: 'src/mystery.mjs',
      },
      {
        code: 'ambiguous-kind',
        message: 'File tools/str.mjs default export does not match any primitive shape (tool / guardrail / agent / flow)',
        filePath: 'tools/str.mjs',
      },
    ]);
  });

  test('manifest-validation-failed: a Result-wrapped error default export, its error kept as the cause', async (t) => {
    const error = { code: 'invalid-schema', message: 'oh no' };
    const noMessage = { code: 'bad', detail: [1] };
    const pack = await seamPack(t, {
      'tools/bad.mjs': withDefault({ kind: 'err', error }),
      'tools/bare.mjs': withDefault({ kind: 'err', error: noMessage }),
      'tools/text.mjs': withDefault({ kind: 'err', error: 'just text' }),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors.map((e) => e.message), [
      'File tools/bad.mjs default export is a Result-wrapped error: oh no',
      'File tools/bare.mjs default export is a Result-wrapped error: {"code":"bad","detail":[1]}',
      'File tools/text.mjs default export is a Result-wrapped error: just text',
    ]);
    const [bad] = report.fileErrors;
    assert.deepEqual(Object.keys(bad), ['code', 'message', 'filePath', 'cause']);
    assert.equal(bad.code, 'manifest-validation-failed');
    assert.equal(bad.filePath, 'tools/bad.mjs');
    assert.equal(bad.cause, error, 'the very error object');
    assert.equal(report.fileErrors[2].cause, 'just text');
  });

  test('manifest-validation-failed: what each builder checks', async (t) => {
    const { input, ...noInput } = toolDef({ id: 'acme.noinput', inputZod: 'not zod' });
    assert.ok(input);
    const pack = await seamPack(t, {
      'tools/a.mjs': withDefault(toolDef({ id: 7 })),
      'tools/b.mjs': withDefault(noInput),
      'tools/c.mjs': withDefault(toolDef({ id: 'acme.nooutput', output: 'text' })),
      'guardrails/a.mjs': withDefault(guardrailDef({ id: undefined })),
      'guardrails/b.mjs': withDefault(guardrailDef({ kind: null })),
      'agents/a.mjs': withDefault(agentDef({ id: null })),
      'agents/b.mjs': withDefault(agentDef({ version: 1 })),
      'agents/c.mjs': withDefault(agentDef({ name: undefined })),
      'agents/d.mjs': withDefault(agentDef({ capabilities: 'all' })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, [
      { code: 'manifest-validation-failed', message: "agents/a.mjs: 'id' is missing or not a string", filePath: 'agents/a.mjs' },
      { code: 'manifest-validation-failed', message: "agents/b.mjs: 'version' is missing or not a string", filePath: 'agents/b.mjs' },
      { code: 'manifest-validation-failed', message: "agents/c.mjs: 'name' is missing or not a string", filePath: 'agents/c.mjs' },
      { code: 'manifest-validation-failed', message: "agents/d.mjs: 'capabilities' is missing or not an array", filePath: 'agents/d.mjs' },
      { code: 'manifest-validation-failed', message: "guardrails/a.mjs: 'id' is missing or not a string", filePath: 'guardrails/a.mjs' },
      { code: 'manifest-validation-failed', message: "guardrails/b.mjs: 'kind' is missing or not a string", filePath: 'guardrails/b.mjs' },
      { code: 'manifest-validation-failed', message: "tools/a.mjs: 'id' is missing or not a string", filePath: 'tools/a.mjs' },
      {
        code: 'manifest-validation-failed',
        message: "tools/b.mjs: 'input' is missing or not an object",
        filePath: 'tools/b.mjs',
        field: 'input',
      },
      {
        code: 'manifest-validation-failed',
        message: "tools/c.mjs: 'output' is missing or not an object",
        filePath: 'tools/c.mjs',
        field: 'output',
      },
    ]);
    assert.deepEqual(report.counts, { tools: 0, guardrails: 0, agents: 0, flows: 0 });
  });
});

describe('runIndexer: duplicates', () => {
  for (const [kind, folder, list, def, what] of [
    ['tool', 'tools', 'tools', toolDef(), ''],
    ['guardrail', 'guardrails', 'guardrails', guardrailDef(), ''],
    ['agent', 'agents', 'agents', agentDef(), ' version 1.0.0'],
    ['flow', 'flows', 'flows', flowDef(), ' version 1.0.0'],
  ]) {
    test(`the same ${kind} twice: the first file in discovery order is kept`, async (t) => {
      const pack = await seamPack(t, { [`${folder}/b.mjs`]: withDefault(def), [`${folder}/a.mjs`]: withDefault(def) });
      const report = okValue(await pack.run());
      assert.deepEqual(report.fileErrors, [
        {
          code: 'manifest-validation-failed',
          message: `${folder}/b.mjs: duplicate ${kind} '${def.id}'${what} (also defined in ${folder}/a.mjs)`,
          filePath: `${folder}/b.mjs`,
        },
      ]);
      assert.equal(report.counts[list], 1);
      const [entry] = (await pack.index())[list];
      assert.equal(entry.modulePath ?? entry.checkModulePath, `${folder}/a.mjs`);
    });
  }

  test('different versions of one tool or agent live side by side', async (t) => {
    const pack = await seamPack(t, {
      'tools/echo.mjs': withDefault(toolDef({ version: '1.0.0' })),
      'tools/echo-v2.mjs': withDefault(toolDef({ version: '2.0.0' })),
      'agents/support.mjs': withDefault(agentDef()),
      'agents/support-v2.mjs': withDefault(agentDef({ version: '2.0.0' })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    const index = await pack.index();
    assert.deepEqual(index.tools.map((x) => `${x.id}@${x.version}`).sort(), ['acme.echo@1.0.0', 'acme.echo@2.0.0']);
    assert.deepEqual(index.agents.map((x) => `${x.id}@${x.version}`).sort(), ['acme.support@1.0.0', 'acme.support@2.0.0']);
  });

  test('an unversioned tool clashes with any version of its id, and the other way round', async (t) => {
    const pack = await seamPack(t, {
      'tools/a.mjs': withDefault(toolDef({ version: '1.0.0' })),
      'tools/b.mjs': withDefault(toolDef()),
      'tools/c.mjs': withDefault(toolDef({ id: 'acme.other' })),
      'tools/d.mjs': withDefault(toolDef({ id: 'acme.other', version: '2.0.0' })),
    });
    assert.deepEqual(okValue(await pack.run()).fileErrors, [
      { code: 'manifest-validation-failed', message: "tools/b.mjs: duplicate tool 'acme.echo' (also defined in tools/a.mjs)", filePath: 'tools/b.mjs' },
      {
        code: 'manifest-validation-failed',
        message: "tools/d.mjs: duplicate tool 'acme.other' version 2.0.0 (also defined in tools/c.mjs)",
        filePath: 'tools/d.mjs',
      },
    ]);
  });

  test('the owner named is the first file of the id, or the first of that version', async (t) => {
    const pack = await seamPack(t, {
      'tools/a.mjs': withDefault(toolDef({ version: '1.0.0' })),
      'tools/b.mjs': withDefault(toolDef({ version: '2.0.0' })),
      'tools/c.mjs': withDefault(toolDef({ version: '2.0.0' })),
      'tools/d.mjs': withDefault(toolDef()),
      'tools/e.mjs': withDefault(toolDef({ version: 7 })),
    });
    assert.deepEqual(okValue(await pack.run()).fileErrors.map((e) => e.message), [
      "tools/c.mjs: duplicate tool 'acme.echo' version 2.0.0 (also defined in tools/b.mjs)",
      "tools/d.mjs: duplicate tool 'acme.echo' (also defined in tools/a.mjs)",
      "tools/e.mjs: duplicate tool 'acme.echo' (also defined in tools/a.mjs)",
    ]);
  });

  test('a guardrail is one per id, whatever else differs; one id on two kinds is no clash', async (t) => {
    const pack = await seamPack(t, {
      'tools/shared.mjs': withDefault(toolDef({ id: 'acme.shared' })),
      'flows/shared.mjs': withDefault(flowDef({ id: 'acme.shared' })),
      'agents/shared.mjs': withDefault(agentDef({ id: 'acme.shared' })),
      'guardrails/shared.mjs': withDefault(guardrailDef({ id: 'acme.shared' })),
      'guardrails/shared2.mjs': withDefault(guardrailDef({ id: 'acme.shared', version: '9.0.0', kind: 'llm' })),
    });
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors.map((e) => e.message), [
      "guardrails/shared2.mjs: duplicate guardrail 'acme.shared' (also defined in guardrails/shared.mjs)",
    ]);
    assert.deepEqual(report.counts, { tools: 1, guardrails: 1, agents: 1, flows: 1 });
  });
});

// ---------------------------------------------------------------------------------------------
// Discovery and bundle maps
// ---------------------------------------------------------------------------------------------

describe('runIndexer: discovery', () => {
  test('a custom tools pattern under src/', async (t) => {
    const pack = await seamPack(t, { 'src/tools/echo.mjs': withDefault(toolDef()) }, { config: { discovery: { tools: 'src/tools/**/*.{ts,js,mjs}' } } });
    const report = okValue(await pack.run());
    assert.equal(report.counts.tools, 1);
    assert.equal((await pack.index()).tools[0].modulePath, 'src/tools/echo.mjs');
  });

  test('a file a custom pattern finds is classified by its shape, whatever pattern found it', async (t) => {
    const pack = await seamPack(
      t,
      {
        'src/nested/echo.mjs': withDefault(toolDef()),
        'src/g.mjs': withDefault(guardrailDef()),
        // The tools pattern matches first, but this is not the tools folder: no kind is expected.
        'guardrails/really-a-tool.mjs': withDefault(toolDef({ id: 'acme.other' })),
      },
      { config: { discovery: { tools: '{src,guardrails}/**/*.mjs' } } },
    );
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    assert.deepEqual(report.counts, { tools: 2, guardrails: 1, agents: 0, flows: 0 });
  });

  test('with the default patterns, the folder decides the kind expected', async (t) => {
    const pack = await seamPack(t, { 'guardrails/really-a-tool.mjs': withDefault(toolDef()) });
    const [error] = okValue(await pack.run()).fileErrors;
    assert.equal(error.code, 'kind-mismatch');
    assert.equal(error.message, "File guardrails/really-a-tool.mjs is under the default folder for kind 'guardrail' but default-exports a 'tool'");
  });

  test('a pack inside an app: kindgi/ patterns leave the host app\'s own folders alone', async (t) => {
    const pack = await seamPack(
      t,
      {
        'kindgi/tools/echo.mjs': withDefault(toolDef()),
        'tools/app-script.mjs': withDefault(toolDef({ id: 'app.not-a-kindgi-tool' })),
      },
      {
        config: {
          discovery: {
            tools: 'kindgi/tools/**/*.{ts,js,mjs}',
            guardrails: 'kindgi/guardrails/**/*.{ts,js,mjs}',
            agents: 'kindgi/agents/**/*.{ts,js,mjs}',
            flows: 'kindgi/flows/**/*.{ts,js,mjs}',
          },
        },
      },
    );
    const report = okValue(await pack.run());
    assert.equal(report.counts.tools, 1);
    assert.deepEqual((await pack.index()).tools.map((x) => x.modulePath), ['kindgi/tools/echo.mjs']);
    assert.equal(pack.calls.includes(pack.url('tools/app-script.mjs')), false);
  });

  test('test and spec files, node_modules, dot entries, other extensions and symlinks are never imported', async (t) => {
    const pack = await seamPack(t, {
      'tools/echo.mjs': withDefault(toolDef()),
      'tools/echo/index.ts': withDefault(toolDef({ id: 'acme.ts' })),
      'tools/echo/index.js': withDefault(toolDef({ id: 'acme.js' })),
      'tools/echo.test.mjs': withDefault(toolDef({ id: 'acme.test' })),
      'tools/echo.spec.ts': withDefault(toolDef({ id: 'acme.spec' })),
      'tools/echo.cjs': withDefault(toolDef({ id: 'acme.cjs' })),
      'tools/node_modules/dep.mjs': withDefault(toolDef({ id: 'acme.dep' })),
      'tools/.cache/hidden.mjs': withDefault(toolDef({ id: 'acme.hidden' })),
      'tools/.dot.mjs': withDefault(toolDef({ id: 'acme.dot' })),
      'outside/real.mjs': withDefault(toolDef({ id: 'acme.linked' })),
    });
    await symlink(path.join(pack.dir, 'outside'), path.join(pack.dir, 'tools', 'linked-dir'));
    await symlink(path.join(pack.dir, 'outside', 'real.mjs'), path.join(pack.dir, 'tools', 'linked.mjs'));
    const report = okValue(await pack.run());
    assert.deepEqual(report.fileErrors, []);
    assert.deepEqual((await pack.index()).tools.map((x) => x.modulePath), ['tools/echo.mjs', 'tools/echo/index.js', 'tools/echo/index.ts']);
  });
});

describe('runIndexer: bundle maps', () => {
  test('the map is the file list: modules come from their bundles, the index records the source paths', async (t) => {
    const pack = await seamPack(t, {
      'dist/tools/echo.mjs': withDefault(toolDef()),
      'dist/agents/support.mjs': withDefault(agentDef({ guardrails: [] })),
    });
    const report = okValue(
      await pack.run({
        moduleRoot: path.join(pack.dir, 'dist'),
        bundleMap: {
          'tools/echo.ts': 'tools/echo.mjs',
          'agents/support.ts': 'agents/support.mjs',
          'tools/echo.test.ts': 'tools/echo.test.mjs',
          'lib/helpers.ts': 'lib/helpers.mjs',
        },
      }),
    );
    assert.deepEqual(report.fileErrors, []);
    assert.deepEqual(report.counts, { tools: 1, guardrails: 0, agents: 1, flows: 0 });
    const index = await pack.index();
    assert.deepEqual(index.tools.map((x) => x.modulePath), ['tools/echo.ts']);
    assert.deepEqual(index.agents.map((x) => x.modulePath), ['agents/support.ts']);
    assert.deepEqual(pack.calls.slice(1).sort(), [pack.url('dist/agents/support.mjs'), pack.url('dist/tools/echo.mjs')]);
  });

  test('a kindgi/ pattern over a bundle map', async (t) => {
    const pack = await seamPack(
      t,
      { 'dist/kindgi/tools/echo.mjs': withDefault(toolDef()) },
      { config: { discovery: { tools: 'kindgi/tools/**/*.{ts,js,mjs}' } } },
    );
    okValue(await pack.run({ moduleRoot: path.join(pack.dir, 'dist'), bundleMap: { 'kindgi/tools/echo.ts': 'kindgi/tools/echo.mjs' } }));
    assert.deepEqual((await pack.index()).tools.map((x) => x.modulePath), ['kindgi/tools/echo.ts']);
  });

  test('without moduleRoot, bundles resolve from the pack folder; a file error names the source path', async (t) => {
    const pack = await seamPack(t, { 'build/echo.mjs': withDefault(toolDef()) });
    const report = okValue(await pack.run({ bundleMap: { 'tools/echo.ts': 'build/echo.mjs', 'tools/gone.ts': 'build/gone.mjs' } }));
    assert.equal(report.counts.tools, 1);
    assert.deepEqual(report.fileErrors.map((e) => [e.code, e.filePath]), [['file-import-failed', 'tools/gone.ts']]);
    assert.equal(report.fileErrors[0].message, `Failed to import tools/gone.ts: Error: no module registered for ${pack.url('build/gone.mjs')}`);
  });

  test('real bundles imported through a map, the sources absent', async (t) => {
    const dir = await realPack(t, {
      'kindgi.config.mjs': CONFIG_SOURCE,
      'dist/t/one.mjs': toolSource('acme.one'),
    });
    const report = okValue(
      await runIndexer({ packDir: dir, moduleRoot: path.join(dir, 'dist'), bundleMap: { 'tools/one.ts': 't/one.mjs' }, artifactVersion: 'x', publishedAt: FIXED }),
    );
    assert.deepEqual(report.fileErrors, []);
    const index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8'));
    assert.deepEqual(index.tools.map((x) => [x.id, x.modulePath]), [['acme.one', 'tools/one.ts']]);
  });
});

// ---------------------------------------------------------------------------------------------
// Artifact version, publishedAt and determinism
// ---------------------------------------------------------------------------------------------

describe('runIndexer: artifactVersion and publishedAt', () => {
  test('automatic: <UTC day>.1 first, then counting on from the previous index of the day', async (t) => {
    const pack = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) });
    const days = new Set([todayUtc()]);
    const first = okValue(await pack.run({ artifactVersion: undefined }));
    const second = okValue(await pack.run({ artifactVersion: undefined }));
    days.add(todayUtc());
    assert.match(first.artifactVersion, /^\d{8}\.1$/);
    assert.ok(days.has(first.artifactVersion.slice(0, 8)));
    const [day, n] = second.artifactVersion.split('.');
    if (day === first.artifactVersion.slice(0, 8)) assert.equal(n, '2');
    assert.equal((await pack.index()).artifactVersion, second.artifactVersion);
  });

  test('automatic: a previous index of today at .9 gives .10; another day, a pinned one or garbage gives .1', async (t) => {
    const pack = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) });
    const out = path.join(pack.dir, 'index.json');
    for (const [previous, expectedN] of [
      [JSON.stringify({ artifactVersion: `${todayUtc()}.9` }), '10'],
      [JSON.stringify({ artifactVersion: '19990101.5' }), '1'],
      [JSON.stringify({ artifactVersion: 'pinned-v42' }), '1'],
      [JSON.stringify({ artifactVersion: 7 }), '1'],
      ['not json', '1'],
    ]) {
      await writeFile(out, previous);
      const before = todayUtc();
      const { artifactVersion } = okValue(await pack.run({ artifactVersion: undefined }));
      if (before === todayUtc()) assert.equal(artifactVersion, `${before}.${expectedN}`, previous);
    }
  });

  test('a pinned artifactVersion is used verbatim; publishedAt defaults to now', async (t) => {
    const pack = await seamPack(t, { 'tools/echo.mjs': withDefault(toolDef()) });
    const before = Date.now();
    const report = okValue(await pack.run({ artifactVersion: 'pinned-v42', publishedAt: undefined }));
    const after = Date.now();
    assert.equal(report.artifactVersion, 'pinned-v42');
    assert.match(report.publishedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const at = Date.parse(report.publishedAt);
    assert.ok(at >= before - 1 && at <= after + 1, `${report.publishedAt} is now`);
    const index = await pack.index();
    assert.equal(index.artifactVersion, 'pinned-v42');
    assert.equal(index.publishedAt, report.publishedAt);
  });
});

describe('runIndexer: determinism', () => {
  test('one pack indexed twice with pinned fields writes the same bytes', async (t) => {
    const modules = {
      'tools/echo.mjs': withDefault(toolDef({ limits: { b: 1, a: 2 } })),
      'tools/shout.mjs': withDefault(toolDef({ id: 'acme.shout' })),
      'guardrails/grounded.mjs': withDefault(guardrailDef({ config: { z: 1, a: [3, { y: 1, x: 2 }] } })),
      'agents/support.mjs': withDefault(agentDef()),
      'flows/flow.mjs': withDefault(flowDef({ metadata: { é: 1, e: 2, Z: 3 } })),
    };
    const pack = await seamPack(t, modules, { config: { env: { required: ['B', 'A'] } } });
    const opts = { artifactVersion: '20260920.7' };
    okValue(await pack.run({ ...opts, outputPath: path.join(pack.dir, 'one.json') }));
    okValue(await pack.run({ ...opts, outputPath: path.join(pack.dir, 'two.json') }));
    okValue(await pack.run(opts));
    const one = await readFile(path.join(pack.dir, 'one.json'));
    assert.ok(one.equals(await readFile(path.join(pack.dir, 'two.json'))));
    assert.ok(one.equals(await readFile(path.join(pack.dir, 'index.json'))));
    // And the same as another folder holding the same pack.
    const other = await seamPack(t, modules, { config: { env: { required: ['B', 'A'] } } });
    okValue(await other.run(opts));
    assert.ok(one.equals(await readFile(path.join(other.dir, 'index.json'))));
  });
});

// ---------------------------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------------------------

describe('runIndexer: concurrent imports, discovery-ordered results', () => {
  test('all imports are in flight at once; settled in reverse, the report still follows discovery order', async (t) => {
    const modules = {
      'agents/a.mjs': withDefault(agentDef()),
      'guardrails/a.mjs': withDefault(guardrailDef({ id: 'acme.g1', check: { id: 'first.check', evaluate } })),
      'guardrails/b.mjs': withDefault(guardrailDef({ id: 'acme.g2', check: { id: 'second.check', evaluate } })),
      'tools/a.mjs': new Error('first failure'),
      'tools/b.mjs': { nothing: true },
      'tools/c.mjs': withDefault(toolDef({ id: 'acme.c' })),
      'tools/d.mjs': new Error('second failure'),
      'tools/e.mjs': withDefault(toolDef({ id: 'acme.c' })),
    };
    const files = Object.keys(modules).length;
    const pack = await seamPack(t, modules);

    // Sequential baseline through the same seam.
    okValue(await pack.run({ outputPath: path.join(pack.dir, 'sequential.json') }));
    const baseline = okValue(await pack.run({ outputPath: path.join(pack.dir, 'sequential.json') }));

    const pending = [];
    let allAtOnce = false;
    let release;
    const released = new Promise((resolve) => {
      release = resolve;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      release();
    }, 2000);
    const gated = async (url) => {
      if (url === pack.url('kindgi.config.mjs')) return pack.importModule(url);
      const gate = new Promise((resolve) => pending.push({ url, resolve }));
      if (pending.length === files && !timedOut) {
        allAtOnce = true;
        release();
      }
      await gate;
      return pack.importModule(url);
    };
    const running = runIndexer({
      packDir: pack.dir,
      importModule: gated,
      artifactVersion: '20260920.1',
      publishedAt: FIXED,
      outputPath: path.join(pack.dir, 'gated.json'),
    });
    await released;
    clearTimeout(timer);
    const atRelease = pending.length;
    // Settle the last discovered first, one turn apart, then any late arrivals.
    for (const entry of [...pending].reverse()) {
      entry.resolve();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const settleLate = setInterval(() => pending.forEach((entry) => entry.resolve()), 10);
    const report = okValue(await running);
    clearInterval(settleLate);

    assert.ok(allAtOnce, `only ${atRelease} of ${files} imports were requested before any settled`);
    const discoveryOrder = Object.keys(modules).sort();
    assert.deepEqual(pending.map((e) => e.url), discoveryOrder.map((rel) => pack.url(rel)));
    assert.deepEqual(
      report.fileErrors.map((e) => e.filePath),
      ['tools/a.mjs', 'tools/b.mjs', 'tools/d.mjs', 'tools/e.mjs'],
    );
    assert.deepEqual(report.fileErrors.map((e) => e.code), ['file-import-failed', 'no-default-export', 'file-import-failed', 'manifest-validation-failed']);
    assert.equal(report.fileErrors[3].message, "tools/e.mjs: duplicate tool 'acme.c' (also defined in tools/c.mjs)");
    assert.deepEqual(report.warnings, [warning('guardrails/a.mjs', 'first.check'), warning('guardrails/b.mjs', 'second.check')]);
    assert.deepEqual({ ...report, outputPath: null }, { ...baseline, outputPath: null });
    const gatedBytes = await readFile(path.join(pack.dir, 'gated.json'));
    assert.ok(gatedBytes.equals(await readFile(path.join(pack.dir, 'sequential.json'))));
  });
});
