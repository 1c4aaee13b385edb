// The package as a consumer sees it: the `exports` map resolved by name (self-reference), the
// names each entry exports, and a process that loads the addon exiting by itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import * as rootByPath from '../index.js';
import * as protocolByPath from '../lib/protocol.js';
import * as indexByPath from '../lib/kindgi-index.js';

const PACKAGE = '@kindgi/handler-runtime-native';
const ROOT_URL = new URL('../index.js', import.meta.url);

const ROOT_NAMES = [
  'compileSchema',
  'runHandler',
  'runCheck',
  'canonicalJson',
  'writeIndex',
  'indexHash',
  'idempotencyKey',
  'parsePackRequest',
  'parsePackResponse',
  'packError',
  'PACK_HEADERS',
  'PACK_PROTOCOL_VERSION',
  'resolvePackEnv',
  'missingPackEnv',
  'parsePackEnvCheck',
  'parsePackEnvFilter',
  'undeclaredPackEnv',
  'PLATFORM_ENV_NAMES',
  'PLATFORM_ENV_PREFIXES',
  'PACK_ENV_CHECK_VAR',
  'PACK_ENV_FILTER_VAR',
  'RESERVED_ENV_PREFIX',
  'PACK_ENV_NAME',
  'PACK_SERVICE_DRAIN_MS',
  'INDEX_ENVELOPE_VERSION',
  'KERNEL_PAYLOAD_VERSION',
  'NATIVE_ERROR_CODES',
  'MAX_JSON_DEPTH',
];

const ROOT_FUNCTIONS = [
  'compileSchema',
  'runHandler',
  'runCheck',
  'canonicalJson',
  'writeIndex',
  'indexHash',
  'idempotencyKey',
  'parsePackRequest',
  'parsePackResponse',
  'packError',
  'resolvePackEnv',
  'missingPackEnv',
  'parsePackEnvCheck',
  'parsePackEnvFilter',
  'undeclaredPackEnv',
];

const PROTOCOL_NAMES = [
  'PACK_PROTOCOL_VERSION',
  'PACK_ERROR_CODES',
  'PACK_HEADERS',
  'IDEMPOTENCY_KEY_NAMESPACE',
  'packError',
  'parsePackRequest',
  'parsePackResponse',
  'idempotencyKey',
];

const KINDGI_INDEX_NAMES = ['canonicalJson', 'writeIndex', 'indexHash', 'INDEX_ENVELOPE_VERSION', 'KERNEL_PAYLOAD_VERSION', 'MAX_JSON_DEPTH'];

function assertExports(module, names, label) {
  for (const name of names) {
    assert.ok(name in module, `${label} exports ${name}`);
    assert.notEqual(module[name], undefined, `${label} ${name} is defined`);
  }
}

test('the root resolves by name and exports the expected names', async () => {
  const root = await import(PACKAGE);
  assertExports(root, ROOT_NAMES, PACKAGE);
  for (const name of ROOT_FUNCTIONS) assert.equal(typeof root[name], 'function', `${name} is a function`);
  // Resolving by name gives the very module the relative path gives.
  for (const name of ROOT_NAMES) assert.strictEqual(root[name], rootByPath[name], name);
});

test('the root constants', async () => {
  const root = await import(PACKAGE);
  assert.strictEqual(root.PACK_SERVICE_DRAIN_MS, 8000);
  assert.strictEqual(root.INDEX_ENVELOPE_VERSION, 1);
  assert.strictEqual(root.KERNEL_PAYLOAD_VERSION, 1);
  assert.strictEqual(root.PACK_PROTOCOL_VERSION, 2);
  assert.deepStrictEqual([...root.NATIVE_ERROR_CODES], [
    'invalid-argument',
    'invalid-json-value',
    'value-too-deep',
    'output-write-failed',
    'index-read-failed',
    'schema-compile-failed',
    'listen-failed',
  ]);
  assert.ok(Number.isSafeInteger(root.MAX_JSON_DEPTH) && root.MAX_JSON_DEPTH > 0, `MAX_JSON_DEPTH is ${root.MAX_JSON_DEPTH}`);
  assert.equal(root.PACK_ENV_CHECK_VAR, 'KINDGI_PACK_ENV_CHECK');
  assert.equal(root.PACK_ENV_FILTER_VAR, 'KINDGI_PACK_ENV_FILTER');
  assert.equal(root.RESERVED_ENV_PREFIX, 'KINDGI_');
  assert.ok(root.PACK_ENV_NAME instanceof RegExp);
});

test('./protocol resolves by name and exports the protocol API', async () => {
  const protocol = await import(`${PACKAGE}/protocol`);
  assertExports(protocol, PROTOCOL_NAMES, './protocol');
  for (const name of PROTOCOL_NAMES) {
    assert.strictEqual(protocol[name], protocolByPath[name], name);
    assert.strictEqual(protocol[name], rootByPath[name], `${name} is the root's`);
  }
});

test('./kindgi-index resolves by name and exports the index writer', async () => {
  const kindgiIndex = await import(`${PACKAGE}/kindgi-index`);
  assertExports(kindgiIndex, KINDGI_INDEX_NAMES, './kindgi-index');
  for (const name of KINDGI_INDEX_NAMES) {
    assert.strictEqual(kindgiIndex[name], indexByPath[name], name);
    assert.strictEqual(kindgiIndex[name], rootByPath[name], `${name} is the root's`);
  }
  assert.equal(kindgiIndex.canonicalJson({ b: 1, a: [true, null] }), '{\n  "a": [\n    true,\n    null\n  ],\n  "b": 1\n}\n');
  // As in TypeScript, readBundleMap is this subpath's alone.
  assert.equal(typeof kindgiIndex.readBundleMap, 'function');
  assert.equal('readBundleMap' in (await import(PACKAGE)), false);
});

test('./pack-service resolves by name and exports PACK_SERVICE_DRAIN_MS', async () => {
  const packService = await import(`${PACKAGE}/pack-service`);
  assert.strictEqual(packService.PACK_SERVICE_DRAIN_MS, 8000);
  assert.strictEqual(packService.PACK_SERVICE_DRAIN_MS, rootByPath.PACK_SERVICE_DRAIN_MS);
});

test('./package.json resolves by name', () => {
  const require = createRequire(import.meta.url);
  const manifest = require(`${PACKAGE}/package.json`);
  assert.equal(manifest.name, PACKAGE);
  assert.equal(manifest.type, 'module');
});

test('files outside the exports map are not reachable by name', async () => {
  for (const subpath of ['lib/protocol.js', 'lib/native.js', 'binding.cjs', 'index.js', 'protocol.js']) {
    await assert.rejects(import(`${PACKAGE}/${subpath}`), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' }, subpath);
  }
});

test('a process that loads the addon exits by itself (the addon keeps nothing alive)', async () => {
  const script =
    `import(${JSON.stringify(ROOT_URL.href)})` +
    '.then((m) => process.stdout.write(JSON.stringify(m.canonicalJson({ a: 1 }))))';
  const child = spawn(process.execPath, ['-e', script], {
    cwd: fileURLToPath(new URL('.', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));

  let timer;
  const outcome = await Promise.race([
    new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), 5000);
    }),
  ]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    assert.fail(`the child was still running after 5 s (stderr: ${stderr})`);
  }
  assert.deepStrictEqual(outcome, { code: 0, signal: null }, `stderr: ${stderr}`);
  assert.equal(stdout, JSON.stringify('{\n  "a": 1\n}\n'));
});

// The entries TypeScript's package.json gives a `default` condition, which CommonJS `require()`
// loads (Node 20.19+ / 22.12+ require ES modules without top-level await), with names its
// modules export; and ./pack-service-main, whose `default` condition is ours.
const REQUIRED_ENTRIES = {
  '': ['runHandler', 'runCheck', 'resolvePackEnv', 'missingPackEnv', 'parsePackEnvCheck', 'PACK_ENV_CHECK_VAR', 'PACK_ENV_NAME', 'RESERVED_ENV_PREFIX', 'INDEX_ENVELOPE_VERSION', 'KERNEL_PAYLOAD_VERSION'],
  '/protocol': ['PACK_PROTOCOL_VERSION', 'PACK_HEADERS', 'packError', 'parsePackRequest', 'parsePackResponse'],
  '/pack-service': ['createPackService', 'PACK_SERVICE_DRAIN_MS', 'main', 'readPackServiceConfig', 'startPackService', 'createPackServiceSupervisor'],
  '/pack-service-main': ['PACK_SERVICE_DRAIN_MS', 'main', 'readPackServiceConfig', 'startPackService'],
  '/kindgi-index': ['INDEX_ENVELOPE_VERSION', 'KERNEL_PAYLOAD_VERSION', 'readBundleMap'],
  '/build-extensions': ['defineBuildExtension', 'prisma'],
};

/** Runs `node <args>` to its end (5 s at most); resolves with its exit code and output. */
function runNode(args, env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${args[0]} was still running after 5 s (stderr: ${stderr})`));
    }, 5000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

test('CommonJS require()s every entry TypeScript lets it, with its names, and runs nothing', async () => {
  const manifest = fileURLToPath(new URL('../package.json', import.meta.url));
  const script = `
    const load = require('node:module').createRequire(${JSON.stringify(manifest)});
    const out = {};
    for (const sub of ${JSON.stringify(Object.keys(REQUIRED_ENTRIES))}) {
      try {
        out[sub] = Object.keys(load(${JSON.stringify(PACKAGE)} + sub)).sort();
      } catch (error) {
        out[sub] = { code: error.code, message: String(error.message).split('\\n')[0] };
      }
    }
    out.token = process.env.KINDGI_PACK_SERVICE_TOKEN;
    process.stdout.write(JSON.stringify(out));`;
  const run = await runNode(['-e', script], { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: 'stays' });
  assert.deepStrictEqual({ code: run.code, signal: run.signal }, { code: 0, signal: null }, `stderr: ${run.stderr}`);
  const required = JSON.parse(run.stdout);
  for (const [sub, names] of Object.entries(REQUIRED_ENTRIES)) {
    const label = `require('${PACKAGE}${sub}')`;
    assert.ok(Array.isArray(required[sub]), `${label}: ${JSON.stringify(required[sub])}`);
    for (const name of names) assert.ok(required[sub].includes(name), `${label} has ${name}`);
    // The same module as import() gives.
    const imported = Object.keys(await import(`${PACKAGE}${sub}`)).sort();
    assert.deepStrictEqual(required[sub].filter((name) => name !== '__esModule'), imported, label);
  }
  // Required, ./pack-service-main only exports: main did not run (the token is still there).
  assert.equal(required.token, 'stays');
});

test('./pack-service-main run by node exits with main\'s code once it resolves', async () => {
  // Exit 0 after SIGTERM is pack-service-process.test.mjs's; here, 1 with no token.
  const entry = fileURLToPath(import.meta.resolve(`${PACKAGE}/pack-service-main`));
  const run = await runNode([entry, '--index', 'index.json'], { PATH: process.env.PATH, PORT: '0' });
  assert.deepStrictEqual({ code: run.code, signal: run.signal }, { code: 1, signal: null }, `stderr: ${run.stderr}`);
  const line = JSON.parse(run.stderr.trim());
  assert.equal(line.kind, 'config-invalid');
  assert.deepStrictEqual(line.problems, ['KINDGI_PACK_SERVICE_TOKEN is required']);
});
