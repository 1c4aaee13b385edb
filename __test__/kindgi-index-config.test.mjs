// Pack configs through the public API: loadKindgiConfig, findKindgiConfig, packLanguage,
// isJvmLanguage, resolveDiscovery and the config constants. Real files in temp folders, real
// `import()` unless a test hands in the `importModule` seam.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import * as root from '../index.js';
import * as subpath from '../lib/kindgi-index.js';

const {
  DEFAULT_DISCOVERY,
  DEFAULT_PYTHON_DISCOVERY,
  DEFAULT_JAVA_DISCOVERY,
  DEFAULT_SCALA_DISCOVERY,
  KINDGI_CONFIG_FILENAMES,
  KINDGI_JSON_CONFIG_FILENAME,
  PYPROJECT_FILENAME,
  PRESET_DECLARATION_SETTINGS,
  findKindgiConfig,
  isJvmLanguage,
  loadKindgiConfig,
  packLanguage,
  resolveDiscovery,
} = root;

async function tempDir(t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kindgi-config-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function pack(t, files) {
  const dir = await tempDir(t);
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return dir;
}

const moduleConfig = (fields) => `export default ${JSON.stringify(fields)};\n`;
const PACK = { id: 'acme.pack', version: '1.0.0' };

function okValue(result) {
  assert.equal(result.kind, 'ok', result.kind === 'err' ? `${result.error.code}: ${result.error.message}` : '');
  return result.value;
}
function errValue(result) {
  assert.equal(result.kind, 'err', result.kind === 'ok' ? `ok: ${JSON.stringify(result.value)}` : '');
  return result.error;
}

const PYPROJECT =
  '[project]\nname = "ledger"\n\n' +
  '[tool.kindgi.pack]\nid = "acme.ledger"\nversion = "1.0.0"\n\n' +
  '[tool.kindgi.dev]\nenvFiles = [".env", ".env.local"]\n';

const notFoundMessage = (dir) =>
  `No kindgi.config.{ts,mts,mjs,js,cjs}, pyproject.toml with a [tool.kindgi] table, or kindgi.config.json, found at pack root ${dir}`;

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

describe('config constants', () => {
  test('file names, in lookup order', () => {
    assert.deepEqual(KINDGI_CONFIG_FILENAMES, [
      'kindgi.config.ts',
      'kindgi.config.mts',
      'kindgi.config.mjs',
      'kindgi.config.js',
      'kindgi.config.cjs',
    ]);
    assert.equal(KINDGI_JSON_CONFIG_FILENAME, 'kindgi.config.json');
    assert.equal(PYPROJECT_FILENAME, 'pyproject.toml');
    assert.equal(subpath.KINDGI_CONFIG_FILENAMES, KINDGI_CONFIG_FILENAMES);
  });

  test('the default discovery of each language, keys in tools, guardrails, agents, flows order', () => {
    const table = {
      DEFAULT_DISCOVERY: [DEFAULT_DISCOVERY, (f) => `${f}/**/*.{ts,js,mjs}`],
      DEFAULT_PYTHON_DISCOVERY: [DEFAULT_PYTHON_DISCOVERY, (f) => `${f}/**/*.py`],
      DEFAULT_JAVA_DISCOVERY: [DEFAULT_JAVA_DISCOVERY, (f) => `src/main/java/**/${f}/**/*.java`],
      DEFAULT_SCALA_DISCOVERY: [DEFAULT_SCALA_DISCOVERY, (f) => `src/main/scala/**/${f}/**/*.scala`],
    };
    for (const [name, [value, pattern]] of Object.entries(table)) {
      assert.deepEqual(Object.keys(value), ['tools', 'guardrails', 'agents', 'flows'], name);
      for (const folder of ['tools', 'guardrails', 'agents', 'flows']) assert.equal(value[folder], pattern(folder), `${name}.${folder}`);
    }
    assert.equal(DEFAULT_JAVA_DISCOVERY.tools, 'src/main/java/**/tools/**/*.java');
    assert.equal(DEFAULT_SCALA_DISCOVERY.flows, 'src/main/scala/**/flows/**/*.scala');
  });

  test('the provider presets and their own settings', () => {
    assert.deepEqual(PRESET_DECLARATION_SETTINGS, {
      anthropic: [],
      'azure-openai': ['resourceName', 'deployments'],
      bedrock: ['region'],
      gemini: ['project'],
      'gemini-api': [],
      groq: [],
      openai: [],
      openrouter: [],
    });
    assert.deepEqual(Object.keys(PRESET_DECLARATION_SETTINGS), [
      'anthropic',
      'azure-openai',
      'bedrock',
      'gemini',
      'gemini-api',
      'groq',
      'openai',
      'openrouter',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// packLanguage, isJvmLanguage, resolveDiscovery
// ---------------------------------------------------------------------------------------------

describe('packLanguage and isJvmLanguage', () => {
  test('packLanguage: the config\'s language, node when absent', () => {
    assert.equal(packLanguage({ pack: PACK }), 'node');
    for (const language of ['node', 'python', 'java', 'scala']) assert.equal(packLanguage({ pack: PACK, language }), language);
  });

  test('isJvmLanguage: java and scala only', () => {
    assert.equal(isJvmLanguage('java'), true);
    assert.equal(isJvmLanguage('scala'), true);
    for (const other of ['python', 'node', 'Java', 'kotlin', '', undefined, null]) assert.equal(isJvmLanguage(other), false, String(other));
  });
});

describe('resolveDiscovery', () => {
  test('no discovery: the language\'s defaults (node when no language is given)', () => {
    assert.deepEqual(resolveDiscovery(undefined), DEFAULT_DISCOVERY);
    assert.deepEqual(resolveDiscovery(undefined, 'node'), DEFAULT_DISCOVERY);
    assert.deepEqual(resolveDiscovery(undefined, 'python'), DEFAULT_PYTHON_DISCOVERY);
    assert.deepEqual(resolveDiscovery(undefined, 'java'), DEFAULT_JAVA_DISCOVERY);
    assert.deepEqual(resolveDiscovery(undefined, 'scala'), DEFAULT_SCALA_DISCOVERY);
    assert.deepEqual(resolveDiscovery(null, 'python'), DEFAULT_PYTHON_DISCOVERY);
    assert.deepEqual(resolveDiscovery(undefined, 'cobol'), DEFAULT_DISCOVERY);
    assert.equal(resolveDiscovery(undefined).tools, 'tools/**/*.{ts,js,mjs}');
  });

  test('given patterns override their kind only, over each language\'s defaults', () => {
    assert.deepEqual(resolveDiscovery({ tools: 'kindgi/tools/**/*.ts' }), { ...DEFAULT_DISCOVERY, tools: 'kindgi/tools/**/*.ts' });
    assert.equal(resolveDiscovery({ tools: 'kindgi/tools/**/*.py' }, 'python').tools, 'kindgi/tools/**/*.py');
    assert.equal(resolveDiscovery({ tools: 'kindgi/tools/**/*.py' }, 'python').agents, 'agents/**/*.py');
    const java = resolveDiscovery({ flows: 'src/main/java/com/acme/kindgi/**/*.java' }, 'java');
    assert.equal(java.flows, 'src/main/java/com/acme/kindgi/**/*.java');
    assert.equal(java.tools, 'src/main/java/**/tools/**/*.java');
  });

  test('a new object each time, defaults untouched; a key present as undefined wins; extra keys are kept', () => {
    const resolved = resolveDiscovery(undefined);
    assert.notEqual(resolved, DEFAULT_DISCOVERY);
    resolved.tools = 'changed';
    assert.equal(DEFAULT_DISCOVERY.tools, 'tools/**/*.{ts,js,mjs}');
    const withUndefined = resolveDiscovery({ agents: undefined });
    assert.equal('agents' in withUndefined, true);
    assert.equal(withUndefined.agents, undefined);
    assert.deepEqual(Object.keys(resolveDiscovery({ extra: 'x/*', tools: 't/*' })), ['tools', 'guardrails', 'agents', 'flows', 'extra']);
  });
});

// ---------------------------------------------------------------------------------------------
// findKindgiConfig
// ---------------------------------------------------------------------------------------------

describe('findKindgiConfig', () => {
  test('modules are looked up in KINDGI_CONFIG_FILENAMES order', async (t) => {
    const dir = await tempDir(t);
    assert.equal(await findKindgiConfig(dir), undefined);
    for (const name of [...KINDGI_CONFIG_FILENAMES].reverse()) {
      await writeFile(path.join(dir, name), '');
      assert.deepEqual(await findKindgiConfig(dir), { path: path.join(dir, name), format: 'module' }, name);
    }
  });

  test('a module wins over a pyproject table', async (t) => {
    const dir = await pack(t, { 'pyproject.toml': PYPROJECT, 'kindgi.config.cjs': '' });
    assert.deepEqual(await findKindgiConfig(dir), { path: path.join(dir, 'kindgi.config.cjs'), format: 'module' });
  });

  test('pyproject.toml counts only with a [tool.kindgi] table', async (t) => {
    const cases = [
      [PYPROJECT, true],
      ['[tool.kindgi]\n', true],
      ['[tool]\nkindgi = 1\n', true],
      ['[tool.kindgi.pack]\nid = "acme\n', true], // does not parse, but clearly meant to
      ['  [tool.kindgi]\nbroken = \n', true],
      ['[project]\nname = "app"\n', false],
      ['[tool.poetry]\nname = "app"\n', false],
      ['[tool.kindgiX]\nbroken = \n', false],
      ['[project]\nname = "app\n', false],
    ];
    for (const [text, found] of cases) {
      const dir = await pack(t, { 'pyproject.toml': text });
      const expected = found ? { path: path.join(dir, 'pyproject.toml'), format: 'pyproject' } : undefined;
      assert.deepEqual(await findKindgiConfig(dir), expected, JSON.stringify(text));
    }
  });

  test('kindgi.config.json is found alone, and flagged beside another config', async (t) => {
    const alone = await pack(t, { 'kindgi.config.json': '{}' });
    assert.deepEqual(await findKindgiConfig(alone), { path: path.join(alone, 'kindgi.config.json'), format: 'json' });
    for (const other of ['kindgi.config.ts', 'kindgi.config.mjs', 'kindgi.config.cjs', 'pyproject.toml']) {
      const dir = await pack(t, { 'kindgi.config.json': '{}', [other]: other === 'pyproject.toml' ? PYPROJECT : '' });
      assert.deepEqual(await findKindgiConfig(dir), {
        path: path.join(dir, 'kindgi.config.json'),
        format: 'json',
        conflictsWith: path.join(dir, other),
      });
    }
    const plainPython = await pack(t, { 'kindgi.config.json': '{}', 'pyproject.toml': '[project]\nname = "app"\n' });
    assert.deepEqual(await findKindgiConfig(plainPython), { path: path.join(plainPython, 'kindgi.config.json'), format: 'json' });
  });

  test('the folder is joined as given: a relative folder gives a relative path', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': '' });
    const relative = path.relative(process.cwd(), dir);
    assert.deepEqual(await findKindgiConfig(relative), { path: path.join(relative, 'kindgi.config.mjs'), format: 'module' });
  });
});

// ---------------------------------------------------------------------------------------------
// loadKindgiConfig: modules
// ---------------------------------------------------------------------------------------------

describe('loadKindgiConfig: a config module', () => {
  test('the default export comes back whole, unknown fields and all', async (t) => {
    const fields = {
      pack: { ...PACK, description: 'A pack' },
      dev: { envFiles: ['.env'] },
      project: 'acme-app',
      providers: [{ preset: 'anthropic' }, { spec: { adapter_id: '@kindgi/adapter-model-openai-compat' } }],
      discovery: { tools: 42 },
      anything: { nested: [1, 'two'] },
    };
    const dir = await pack(t, { 'kindgi.config.mjs': moduleConfig(fields) });
    assert.deepEqual(okValue(await loadKindgiConfig(dir)), fields);
  });

  test('through the importModule seam: the very object, from a plain file URL', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': '// never imported\n' });
    const config = { pack: PACK, hooks: { onStart: () => 'hi' } };
    const urls = [];
    const value = okValue(
      await loadKindgiConfig(dir, {
        importModule: async (url) => {
          urls.push(url);
          return { default: config };
        },
      }),
    );
    assert.equal(value, config);
    assert.deepEqual(urls, [pathToFileURL(path.join(dir, 'kindgi.config.mjs')).href]);
  });

  test('.mjs before .js; a CommonJS .cjs config loads too', async (t) => {
    const dir = await pack(t, {
      'package.json': '{"type":"module"}',
      'kindgi.config.mjs': moduleConfig({ pack: { id: 'from-mjs', version: '1.0.0' } }),
      'kindgi.config.js': moduleConfig({ pack: { id: 'from-js', version: '1.0.0' } }),
    });
    assert.ok(KINDGI_CONFIG_FILENAMES.indexOf('kindgi.config.mjs') < KINDGI_CONFIG_FILENAMES.indexOf('kindgi.config.js'));
    assert.equal(okValue(await loadKindgiConfig(dir)).pack.id, 'from-mjs');
    const cjs = await pack(t, { 'kindgi.config.cjs': `module.exports = ${JSON.stringify({ pack: { id: 'from-cjs', version: '2.0.0' } })};\n` });
    assert.equal(okValue(await loadKindgiConfig(cjs)).pack.id, 'from-cjs');
  });

  test('an edited config is read anew (imports are cache-busted by mtime)', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': moduleConfig({ pack: { id: 'acme.v1', version: '1.0.0' } }) });
    assert.equal(okValue(await loadKindgiConfig(dir)).pack.id, 'acme.v1');
    const file = path.join(dir, 'kindgi.config.mjs');
    await writeFile(file, moduleConfig({ pack: { id: 'acme.v2', version: '1.0.0' } }));
    const later = new Date(Date.now() + 5000);
    await utimes(file, later, later);
    assert.equal(okValue(await loadKindgiConfig(dir)).pack.id, 'acme.v2');
  });

  test('no config at all: config-not-found, naming the resolved folder, with no filePath', async (t) => {
    const dir = await pack(t, { 'tools/echo.mjs': '' });
    assert.deepEqual(errValue(await loadKindgiConfig(dir)), { code: 'config-not-found', message: notFoundMessage(dir) });
    const relative = path.relative(process.cwd(), dir);
    assert.deepEqual(errValue(await loadKindgiConfig(relative)), { code: 'config-not-found', message: notFoundMessage(dir) });
  });

  test('a module that throws: config-parse-failed with the Error as the cause', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': "throw new Error('boom in config');\n" });
    const file = path.join(dir, 'kindgi.config.mjs');
    const error = errValue(await loadKindgiConfig(dir));
    assert.deepEqual(Object.keys(error), ['code', 'message', 'filePath', 'cause']);
    assert.equal(error.code, 'config-parse-failed');
    assert.equal(error.message, `Failed to import ${file}: Error: boom in config`);
    assert.equal(error.filePath, file);
    assert.equal(error.cause.name, 'Error');
    assert.equal(error.cause.message, 'boom in config');
    assert.equal(typeof error.cause.stack, 'string');
  });

  test('a seam that throws a non-Error: the value stringified, and kept as the cause', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': '' });
    const file = path.join(dir, 'kindgi.config.mjs');
    const error = errValue(
      await loadKindgiConfig(dir, {
        importModule: async () => {
          throw 'nope';
        },
      }),
    );
    assert.deepEqual(error, { code: 'config-parse-failed', message: `Failed to import ${file}: nope`, filePath: file, cause: 'nope' });
  });

  test('no default export, or not an object', async (t) => {
    for (const source of ['export const pack = {};\n', 'export default null;\n', "export default 'acme';\n", 'export default () => ({});\n']) {
      const dir = await pack(t, { 'kindgi.config.mjs': source });
      const file = path.join(dir, 'kindgi.config.mjs');
      assert.deepEqual(
        errValue(await loadKindgiConfig(dir)),
        { code: 'config-parse-failed', message: `Config file ${file} has no default export (or it is not an object)`, filePath: file },
        source,
      );
    }
  });

  test('the pack checks, in order, each with the exact message', async (t) => {
    const cases = [
      [{}, "'pack' field is missing or not an object"],
      [{ pack: null }, "'pack' field is missing or not an object"],
      [{ pack: 'acme' }, "'pack' field is missing or not an object"],
      [{ pack: [] }, "'pack.id' is missing or not a non-empty string"],
      [{ pack: { version: '1.0.0' } }, "'pack.id' is missing or not a non-empty string"],
      [{ pack: { id: '', version: '' } }, "'pack.id' is missing or not a non-empty string"],
      [{ pack: { id: 7, version: '1.0.0' } }, "'pack.id' is missing or not a non-empty string"],
      [{ pack: { id: 'a' } }, "'pack.version' is missing or not a non-empty string"],
      [{ pack: { id: 'a', version: 1 }, language: 'ruby' }, "'pack.version' is missing or not a non-empty string"],
      [{ pack: PACK, language: 'ruby' }, `'language' must be "node" or "python"`],
      [{ pack: PACK, language: 'java' }, `'language' must be "node" or "python"`],
      [{ pack: PACK, language: 'scala' }, `'language' must be "node" or "python"`],
      [{ pack: PACK, language: null }, `'language' must be "node" or "python"`],
    ];
    for (const [fields, problem] of cases) {
      const dir = await pack(t, { 'kindgi.config.mjs': moduleConfig(fields) });
      const file = path.join(dir, 'kindgi.config.mjs');
      assert.deepEqual(
        errValue(await loadKindgiConfig(dir)),
        { code: 'config-parse-failed', message: `Config file ${file}: ${problem}`, filePath: file },
        JSON.stringify(fields),
      );
    }
  });

  test('a pack array with id and version passes, as its type is object', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': '' });
    const config = { pack: Object.assign([], { id: 'acme.arr', version: '1.0.0' }) };
    assert.equal(okValue(await loadKindgiConfig(dir, { importModule: async () => ({ default: config }) })), config);
  });

  test('a module config saying node or python is accepted as it says', async (t) => {
    for (const language of ['node', 'python']) {
      const dir = await pack(t, { 'kindgi.config.mjs': moduleConfig({ pack: PACK, language }) });
      const value = okValue(await loadKindgiConfig(dir));
      assert.equal(value.language, language);
      assert.equal(packLanguage(value), language);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// loadKindgiConfig: explicit paths
// ---------------------------------------------------------------------------------------------

describe('loadKindgiConfig: configPath', () => {
  test('the format comes from the file name; no conflict check; a relative path resolves from the cwd', async (t) => {
    const dir = await pack(t, {
      'kindgi.config.json': JSON.stringify({ language: 'java', pack: { id: 'acme.json', version: '1.0.0' } }),
      'kindgi.config.mjs': moduleConfig({ pack: { id: 'acme.module', version: '1.0.0' } }),
      'conf/pyproject.toml': PYPROJECT,
      'conf/acme-pack.json': JSON.stringify({ language: 'scala', pack: { id: 'acme.named', version: '1.0.0' } }),
      'conf/setup.js': moduleConfig({ pack: { id: 'acme.setup', version: '1.0.0' } }),
      'package.json': '{"type":"module"}',
    });
    const load = (rel) => loadKindgiConfig(dir, { configPath: path.join(dir, rel) });
    assert.equal(okValue(await load('kindgi.config.json')).pack.id, 'acme.json');
    assert.equal(okValue(await load('kindgi.config.mjs')).pack.id, 'acme.module');
    assert.deepEqual(okValue(await load('conf/pyproject.toml')), {
      pack: { id: 'acme.ledger', version: '1.0.0' },
      dev: { envFiles: ['.env', '.env.local'] },
      language: 'python',
    });
    assert.equal(packLanguage(okValue(await load('conf/acme-pack.json'))), 'scala');
    assert.equal(okValue(await load('conf/setup.js')).pack.id, 'acme.setup');
    const relative = path.relative(process.cwd(), path.join(dir, 'conf', 'setup.js'));
    assert.equal(okValue(await loadKindgiConfig(dir, { configPath: relative })).pack.id, 'acme.setup');
  });

  test('a missing explicit file is config-not-found, naming the pack folder', async (t) => {
    const dir = await pack(t, { 'kindgi.config.mjs': moduleConfig({ pack: PACK }) });
    assert.deepEqual(errValue(await loadKindgiConfig(dir, { configPath: path.join(dir, 'nope.mjs') })), {
      code: 'config-not-found',
      message: notFoundMessage(dir),
    });
  });

  test('an explicit JSON file of another name says the JVM rule with the standard file name', async (t) => {
    const dir = await pack(t, { 'acme-pack.json': JSON.stringify({ pack: PACK }) });
    const file = path.join(dir, 'acme-pack.json');
    assert.deepEqual(errValue(await loadKindgiConfig(dir, { configPath: file })), {
      code: 'config-parse-failed',
      message: `Config file ${file}: kindgi.config.json is a JVM pack's config; it says "language": "java" or "scala"`,
      filePath: file,
    });
  });
});

// ---------------------------------------------------------------------------------------------
// loadKindgiConfig: Python
// ---------------------------------------------------------------------------------------------

describe('loadKindgiConfig: a pyproject.toml [tool.kindgi] table', () => {
  test('the table is the config, in document order, language python added last', async (t) => {
    const dir = await pack(t, { 'pyproject.toml': PYPROJECT });
    assert.deepEqual(await findKindgiConfig(dir), { path: path.join(dir, 'pyproject.toml'), format: 'pyproject' });
    const value = okValue(await loadKindgiConfig(dir));
    assert.deepEqual(value, { pack: { id: 'acme.ledger', version: '1.0.0' }, dev: { envFiles: ['.env', '.env.local'] }, language: 'python' });
    assert.deepEqual(Object.keys(value), ['pack', 'dev', 'language']);
    assert.equal(packLanguage(value), 'python');
  });

  test('providers as arrays of tables, deployments as a map, project', async (t) => {
    const dir = await pack(t, {
      'pyproject.toml':
        PYPROJECT.replace('[tool.kindgi.pack]', '[tool.kindgi]\nproject = "acme-app"\n\n[tool.kindgi.pack]') +
        '\n[[tool.kindgi.providers]]\npreset = "gemini"\nproject = "acme-gcp"\nmodels = ["gemini-2.5-pro"]\nmaxOutputTokens = 16384\n' +
        '\n[[tool.kindgi.providers]]\npreset = "anthropic"\n' +
        '\n[[tool.kindgi.providers]]\npreset = "azure-openai"\nresourceName = "acme"\n\n[tool.kindgi.providers.deployments]\n"gpt-6" = "prod-gpt"\n',
    });
    const value = okValue(await loadKindgiConfig(dir));
    assert.equal(value.project, 'acme-app');
    assert.deepEqual(value.providers, [
      { preset: 'gemini', project: 'acme-gcp', models: ['gemini-2.5-pro'], maxOutputTokens: 16384 },
      { preset: 'anthropic' },
      { preset: 'azure-openai', resourceName: 'acme', deployments: { 'gpt-6': 'prod-gpt' } },
    ]);
  });

  test('TOML numbers come through as JavaScript numbers, inf and nan included', async (t) => {
    const dir = await pack(t, {
      'pyproject.toml': '[tool.kindgi]\nratio = 0.25\nbig = inf\nsmall = -inf\nnone = nan\ncount = 3\n\n[tool.kindgi.pack]\nid = "a"\nversion = "1"\n',
    });
    const value = okValue(await loadKindgiConfig(dir));
    assert.equal(value.ratio, 0.25);
    assert.equal(value.count, 3);
    assert.equal(value.big, Infinity);
    assert.equal(value.small, -Infinity);
    assert.ok(Number.isNaN(value.none), `nan read as ${value.none}`);
  });

  test('a pyproject table may say node; it may not say a JVM language', async (t) => {
    const node = await pack(t, { 'pyproject.toml': '[tool.kindgi]\nlanguage = "node"\n\n[tool.kindgi.pack]\nid = "a"\nversion = "1"\n' });
    assert.equal(packLanguage(okValue(await loadKindgiConfig(node))), 'node');
    const java = await pack(t, { 'pyproject.toml': '[tool.kindgi]\nlanguage = "java"\n\n[tool.kindgi.pack]\nid = "a"\nversion = "1"\n' });
    const file = path.join(java, 'pyproject.toml');
    assert.deepEqual(errValue(await loadKindgiConfig(java)), {
      code: 'config-parse-failed',
      message: `Config file ${file}: 'language' must be "node" or "python"`,
      filePath: file,
    });
  });

  test('a module config beside the pyproject wins, and is a node pack', async (t) => {
    const dir = await pack(t, { 'pyproject.toml': PYPROJECT, 'kindgi.config.mjs': moduleConfig({ pack: { id: 'acme.node', version: '1.0.0' } }) });
    const value = okValue(await loadKindgiConfig(dir));
    assert.equal(value.pack.id, 'acme.node');
    assert.equal(packLanguage(value), 'node');
  });

  test('a pyproject without the table is no pack: config-not-found', async (t) => {
    const dir = await pack(t, { 'pyproject.toml': '[project]\nname = "app"\n' });
    assert.equal(await findKindgiConfig(dir), undefined);
    assert.deepEqual(errValue(await loadKindgiConfig(dir)), { code: 'config-not-found', message: notFoundMessage(dir) });
  });

  test('tool.kindgi that is not a table: config-not-found naming the file', async (t) => {
    const dir = await pack(t, { 'pyproject.toml': '[tool]\nkindgi = "yes"\n' });
    const file = path.join(dir, 'pyproject.toml');
    assert.deepEqual(errValue(await loadKindgiConfig(dir)), { code: 'config-not-found', message: `${file} has no [tool.kindgi] table`, filePath: file });
  });

  test('TOML that does not parse (broken string, a key twice): config-parse-failed, "Failed to read"', async (t) => {
    for (const text of ['[tool.kindgi.pack]\nid = "acme\n', '[tool.kindgi.pack]\nid = "a"\nid = "b"\nversion = "1"\n']) {
      const dir = await pack(t, { 'pyproject.toml': text });
      const file = path.join(dir, 'pyproject.toml');
      const error = errValue(await loadKindgiConfig(dir));
      assert.equal(error.code, 'config-parse-failed', text);
      assert.equal(error.filePath, file);
      assert.ok(error.message.startsWith(`Failed to read ${file}: `), error.message);
      assert.equal(typeof error.cause, 'object');
    }
  });

  test('the pack checks apply to the table too', async (t) => {
    const dir = await pack(t, { 'pyproject.toml': '[tool.kindgi.pack]\nid = "acme"\n' });
    const file = path.join(dir, 'pyproject.toml');
    assert.equal(errValue(await loadKindgiConfig(dir)).message, `Config file ${file}: 'pack.version' is missing or not a non-empty string`);
  });
});

// ---------------------------------------------------------------------------------------------
// loadKindgiConfig: Java and Scala
// ---------------------------------------------------------------------------------------------

describe('loadKindgiConfig: kindgi.config.json (Java, Scala)', () => {
  const JAVA = { language: 'java', pack: { id: 'acme.ledger', version: '1.0.0' }, env: { required: ['DATABASE_URL'] }, providers: [{ preset: 'anthropic' }] };

  test('a Java config loads as written, in its key order', async (t) => {
    const text = JSON.stringify(JAVA);
    const dir = await pack(t, { 'kindgi.config.json': text });
    assert.deepEqual(await findKindgiConfig(dir), { path: path.join(dir, 'kindgi.config.json'), format: 'json' });
    const value = okValue(await loadKindgiConfig(dir));
    assert.deepEqual(value, JSON.parse(text));
    assert.deepEqual(Object.keys(value), ['language', 'pack', 'env', 'providers']);
    assert.equal(packLanguage(value), 'java');
    assert.equal(isJvmLanguage(packLanguage(value)), true);
  });

  test('a Scala config', async (t) => {
    const dir = await pack(t, { 'kindgi.config.json': JSON.stringify({ language: 'scala', pack: { id: 'acme.ledger', version: '1.0.0' } }) });
    const value = okValue(await loadKindgiConfig(dir));
    assert.equal(packLanguage(value), 'scala');
    assert.equal(isJvmLanguage(packLanguage(value)), true);
  });

  for (const [other, content, kind] of [
    ['kindgi.config.ts', 'export default {};\n', 'TypeScript'],
    ['kindgi.config.mjs', 'export default {};\n', 'TypeScript'],
    ['kindgi.config.js', 'export default {};\n', 'TypeScript'],
    ['kindgi.config.cjs', 'module.exports = {};\n', 'TypeScript'],
    ['pyproject.toml', PYPROJECT, 'Python'],
  ]) {
    test(`kindgi.config.json beside ${other}: config-invalid, both named`, async (t) => {
      const dir = await pack(t, { 'kindgi.config.json': JSON.stringify(JAVA), [other]: content });
      assert.equal((await findKindgiConfig(dir)).conflictsWith, path.join(dir, other));
      const error = errValue(await loadKindgiConfig(dir));
      assert.deepEqual(error, {
        code: 'config-invalid',
        message: `${dir} has two pack configs, kindgi.config.json and ${other}; a pack has one. Keep kindgi.config.json for a Java or Scala pack, or ${other} for a ${kind} one, and remove the other.`,
        filePath: path.join(dir, 'kindgi.config.json'),
      });
      assert.deepEqual(Object.keys(error), ['code', 'message', 'filePath']);
    });
  }

  test('beside a pyproject.toml with no [tool.kindgi] table there is no conflict', async (t) => {
    const dir = await pack(t, { 'kindgi.config.json': JSON.stringify(JAVA), 'pyproject.toml': '[project]\nname = "x"\n' });
    assert.equal(packLanguage(okValue(await loadKindgiConfig(dir))), 'java');
  });

  test('refusals: no JVM language, no version, not an object', async (t) => {
    const cases = [
      ['{"pack": {"id": "a", "version": "1"}}', `kindgi.config.json is a JVM pack's config; it says "language": "java" or "scala"`],
      ['{"language": "node", "pack": {"id": "a", "version": "1"}}', `kindgi.config.json is a JVM pack's config; it says "language": "java" or "scala"`],
      ['{"language": "python", "pack": {"id": "a", "version": "1"}}', `kindgi.config.json is a JVM pack's config; it says "language": "java" or "scala"`],
      ['{"language": "java", "pack": {"id": "a"}}', "'pack.version' is missing or not a non-empty string"],
      ['{"language": "java"}', "'pack' field is missing or not an object"],
      ['[1, 2]', 'the file must hold a JSON object'],
      ['null', 'the file must hold a JSON object'],
      ['"java"', 'the file must hold a JSON object'],
    ];
    for (const [text, problem] of cases) {
      const dir = await pack(t, { 'kindgi.config.json': text });
      const file = path.join(dir, 'kindgi.config.json');
      assert.deepEqual(
        errValue(await loadKindgiConfig(dir)),
        { code: 'config-parse-failed', message: `Config file ${file}: ${problem}`, filePath: file },
        text,
      );
    }
  });

  test('JSON that does not parse: the message and cause are those of JSON.parse', async (t) => {
    for (const text of ['{"language": "java",', '', '{"a": 1,}', "{'a': 1}", '\uFEFF{"language": "java"}', '{"a": 01}']) {
      await t.test(JSON.stringify(text), async (t) => {
        const dir = await pack(t, { 'kindgi.config.json': text });
        const file = path.join(dir, 'kindgi.config.json');
        let thrown;
        try {
          JSON.parse(await readFile(file, 'utf8'));
        } catch (error) {
          thrown = error;
        }
        assert.ok(thrown instanceof SyntaxError, JSON.stringify(text));
        const error = errValue(await loadKindgiConfig(dir));
        assert.deepEqual(Object.keys(error), ['code', 'message', 'filePath', 'cause'], JSON.stringify(text));
        assert.equal(error.code, 'config-parse-failed');
        assert.equal(error.filePath, file);
        assert.equal(error.message, `Failed to read ${file}: SyntaxError: ${thrown.message}`, JSON.stringify(text));
        assert.equal(error.cause.name, 'SyntaxError');
        assert.equal(error.cause.message, thrown.message);
      });
    }
  });

  test('JSON that JSON.parse accepts is read as it reads it', async (t) => {
    const texts = [
      '{"language": "node", "language": "java", "pack": {"id": "a", "version": "1"}}',
      '{"language": "java", "pack": {"id": "a", "version": "1"}, "huge": 1e400}',
      '{"language": "java", "pack": {"id": "a", "version": "1"}, "negZero": -0, "exact": 0.1, "big": 12345678901234567890}',
      '{"language": "java", "pack": {"id": "a", "version": "1"}, "text": "\\ud800 and \\udc00"}',
      ' \n\t{"language": "scala", "pack": {"id": "\\u00e9", "version": "1"}}\n\n',
    ];
    for (const text of texts) {
      await t.test(text.trim(), async (t) => {
        const dir = await pack(t, { 'kindgi.config.json': text });
        const value = okValue(await loadKindgiConfig(dir));
        assert.deepEqual(value, JSON.parse(text), text);
      });
    }
  });

  test('a kindgi.config.json that cannot be read (a folder) is config-parse-failed with the fs error', async (t) => {
    const dir = await tempDir(t);
    const file = path.join(dir, 'kindgi.config.json');
    await mkdir(file);
    let thrown;
    try {
      await readFile(file, 'utf8');
    } catch (error) {
      thrown = error;
    }
    const error = errValue(await loadKindgiConfig(dir));
    assert.equal(error.code, 'config-parse-failed');
    assert.equal(error.message, `Failed to read ${file}: Error: ${thrown.message}`);
    assert.equal(error.cause.name, 'Error');
  });

  test('a config module may not say java or scala', async (t) => {
    for (const language of ['java', 'scala']) {
      const dir = await pack(t, { 'kindgi.config.mjs': moduleConfig({ pack: PACK, language }) });
      assert.match(errValue(await loadKindgiConfig(dir)).message, /'language' must be "node" or "python"$/);
    }
  });
});
