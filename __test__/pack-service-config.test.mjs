// readPackServiceConfig: the pack service process's settings (ts-reference.md 4.1; checklist
// items PS 36-41, 45, 46, 55), through the root, ./pack-service and ./pack-service-main.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readPackServiceConfig, PACK_SERVICE_DRAIN_MS } from '../index.js';
import * as packService from '@kindgi/handler-runtime-native/pack-service';
import * as packServiceMain from '@kindgi/handler-runtime-native/pack-service-main';

const TOKEN = { KINDGI_PACK_SERVICE_TOKEN: 'secret' };
const PRINTABLE = 'KINDGI_PACK_SERVICE_TOKEN may hold only printable ASCII without spaces (it travels in an HTTP header). Use a random value such as `openssl rand -hex 32`.';

test('the subpaths export the same reader and drain budget', () => {
  assert.equal(packService.readPackServiceConfig, readPackServiceConfig);
  assert.equal(packServiceMain.readPackServiceConfig, readPackServiceConfig);
  assert.equal(packServiceMain.PACK_SERVICE_DRAIN_MS, 8000);
  assert.equal(PACK_SERVICE_DRAIN_MS, 8000);
});

test('PS 36: no token is the only problem of an empty configuration', () => {
  assert.deepEqual(readPackServiceConfig([], {}), { kind: 'err', problems: ['KINDGI_PACK_SERVICE_TOKEN is required'] });
});

test('PS 37: --index sets the index and, by default, the module root; PORT=0', () => {
  const read = readPackServiceConfig(['--index', '/pack/dist/index.json'], { ...TOKEN, PORT: '0' });
  assert.deepEqual(read, {
    kind: 'ok',
    value: { indexPath: path.resolve('/pack/dist/index.json'), moduleRoot: path.resolve('/pack/dist'), token: 'secret', port: 0, envCheck: 'strict', envFilter: 'on' },
  });
  assert.deepEqual(Object.keys(read.value), ['indexPath', 'moduleRoot', 'token', 'port', 'envCheck', 'envFilter']);
});

test('PS 38: PORT=x with MAX_CONCURRENCY=0 gives exactly two problems', () => {
  const read = readPackServiceConfig([], { ...TOKEN, PORT: 'x', KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '0' });
  assert.deepEqual(read, {
    kind: 'err',
    problems: ['PORT must be a port number, got "x"', 'KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer'],
  });
});

test('PS 39-41: the token is trimmed; blank is required; a space is refused', () => {
  assert.equal(readPackServiceConfig([], { KINDGI_PACK_SERVICE_TOKEN: 'tok\n' }).value.token, 'tok');
  assert.equal(readPackServiceConfig([], { KINDGI_PACK_SERVICE_TOKEN: '\ufefftok\u2028' }).value.token, 'tok');
  assert.deepEqual(readPackServiceConfig([], { KINDGI_PACK_SERVICE_TOKEN: ' \n' }).problems, ['KINDGI_PACK_SERVICE_TOKEN is required']);
  assert.deepEqual(readPackServiceConfig([], { KINDGI_PACK_SERVICE_TOKEN: 'two words' }).problems, [PRINTABLE]);
  assert.deepEqual(readPackServiceConfig([], { KINDGI_PACK_SERVICE_TOKEN: 'tök' }).problems, [PRINTABLE]);
});

test('PS 45-46: --bundle-map and --host, given, absent and empty', () => {
  const given = readPackServiceConfig(['--bundle-map', 'dist/bundle-map.json', '--host', '127.0.0.1'], TOKEN).value;
  assert.equal(given.bundleMapPath, path.resolve('dist/bundle-map.json'));
  assert.equal(given.host, '127.0.0.1');
  assert.deepEqual(Object.keys(given), ['indexPath', 'moduleRoot', 'bundleMapPath', 'token', 'port', 'host', 'envCheck', 'envFilter']);
  const absent = readPackServiceConfig([], TOKEN).value;
  assert.equal('bundleMapPath' in absent, false);
  assert.equal('host' in absent, false);
  assert.deepEqual(readPackServiceConfig(['--bundle-map', ''], TOKEN).problems, ['--bundle-map needs a path']);
  assert.deepEqual(readPackServiceConfig(['--host', ''], TOKEN).problems, ['--host needs an address']);
});

test('arguments: the first occurrence wins, a flag last has no value, and a flag can be a value', () => {
  const read = readPackServiceConfig(['--index', '/a/i.json', '--index', '/b/i.json', '--host'], TOKEN).value;
  assert.equal(read.indexPath, path.resolve('/a/i.json'));
  assert.equal('host' in read, false);
  assert.equal(readPackServiceConfig(['--host', '--index'], TOKEN).value.host, '--index');
  assert.equal(readPackServiceConfig([], { ...TOKEN, KINDGI_PACK_INDEX: '/k/index.json' }).value.moduleRoot, path.resolve('/k'));
  assert.equal(readPackServiceConfig([], TOKEN).value.indexPath, path.resolve('/app/index.json'));
  assert.equal(readPackServiceConfig(['--index', ''], TOKEN).value.indexPath, process.cwd());
  assert.equal(readPackServiceConfig(['--module-root', 'mods'], TOKEN).value.moduleRoot, path.resolve('mods'));
});

test('PORT follows Number(): empty, padded, hex, exponent; out of range refused', () => {
  const port = (PORT) => readPackServiceConfig([], { ...TOKEN, PORT });
  assert.equal(port('').value.port, 0);
  assert.equal(port(' 80 ').value.port, 80);
  assert.equal(port('0x50').value.port, 80);
  assert.equal(port('8e3').value.port, 8000);
  assert.equal(readPackServiceConfig([], TOKEN).value.port, 8080);
  for (const bad of ['65536', '-1', '80.5', 'Infinity', '1e']) {
    assert.deepEqual(port(bad).problems, [`PORT must be a port number, got ${JSON.stringify(bad)}`], bad);
  }
});

test('KINDGI_PACK_SERVICE_MAX_CONCURRENCY: a positive integer, or unset', () => {
  const read = (v) => readPackServiceConfig([], { ...TOKEN, KINDGI_PACK_SERVICE_MAX_CONCURRENCY: v });
  assert.equal(read('4').value.maxConcurrency, 4);
  assert.equal(read('5000000000').value.maxConcurrency, 5e9, 'kept as Number() reads it');
  assert.equal('maxConcurrency' in readPackServiceConfig([], TOKEN).value, false);
  for (const bad of ['', '0', '1.5', 'many']) {
    assert.deepEqual(read(bad).problems, ['KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer'], bad);
  }
});

test('PS 55 and the env filter: strict/warn, on/off, with the exact refusals', () => {
  const read = (env) => readPackServiceConfig([], { ...TOKEN, ...env });
  assert.equal(read({}).value.envCheck, 'strict');
  assert.equal(read({ KINDGI_PACK_ENV_CHECK: '' }).value.envCheck, 'strict');
  assert.equal(read({ KINDGI_PACK_ENV_CHECK: 'warn' }).value.envCheck, 'warn');
  assert.deepEqual(read({ KINDGI_PACK_ENV_CHECK: 'loose' }).problems, ['KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "loose"']);
  assert.equal(read({ KINDGI_PACK_ENV_FILTER: 'off' }).value.envFilter, 'off');
  assert.deepEqual(read({ KINDGI_PACK_ENV_FILTER: 'no' }).problems, ['KINDGI_PACK_ENV_FILTER must be `on` or `off`, not "no"']);
});

test('every problem is listed, in order', () => {
  const read = readPackServiceConfig(['--bundle-map', '', '--host', ''], {
    PORT: 'x', KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '0', KINDGI_PACK_ENV_CHECK: 'loose', KINDGI_PACK_ENV_FILTER: 'no',
  });
  assert.deepEqual(read.problems, [
    '--bundle-map needs a path',
    '--host needs an address',
    'KINDGI_PACK_SERVICE_TOKEN is required',
    'PORT must be a port number, got "x"',
    'KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer',
    'KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "loose"',
    'KINDGI_PACK_ENV_FILTER must be `on` or `off`, not "no"',
  ]);
});

test('bad arguments throw invalid-argument', () => {
  assert.throws(() => readPackServiceConfig('--index', {}), { code: 'invalid-argument' });
  assert.throws(() => readPackServiceConfig([], null), { code: 'invalid-argument' });
});

const TENANT_PROBLEM = 'KINDGI_PACK_TENANT_ID may hold only what an HTTP header can carry: printable ASCII, spaces, tabs and U+0080 to U+00FF (it is matched against kindgi-tenant-id)';

test('KINDGI_PACK_TENANT_ID: trimmed as the token is, blank is no pin, and one no header carries is a problem', () => {
  const tenant = (value, env = {}) => readPackServiceConfig([], { ...TOKEN, ...env, KINDGI_PACK_TENANT_ID: value });
  // A secret stored with a trailing newline would otherwise answer 421 to every call.
  assert.equal(tenant('t1\n').value.tenantId, 't1');
  assert.equal(tenant(' t1').value.tenantId, 't1');
  assert.equal(tenant('\ufeffacme corp\u00a0').value.tenantId, 'acme corp');
  assert.equal(tenant('café').value.tenantId, 'café', 'Latin-1, as Node reads a header');
  assert.deepEqual(Object.keys(tenant('t1').value).at(-1), 'tenantId');
  for (const blank of ['', ' ', '\n\t ']) assert.equal('tenantId' in tenant(blank).value, false, JSON.stringify(blank));
  for (const bad of ['a\u0001b', 'a\nb', 'a\u007fb', '☃', 't\u0100']) {
    assert.deepEqual(tenant(bad).problems, [TENANT_PROBLEM], JSON.stringify(bad));
  }
  // After the TypeScript problems (TypeScript has no tenant pinning).
  assert.deepEqual(tenant('a\nb', { PORT: 'x' }).problems, ['PORT must be a port number, got "x"', TENANT_PROBLEM]);
});

test('variables that are not strings are read as TypeScript reads them', () => {
  const read = (env) => readPackServiceConfig([], { ...TOKEN, ...env });
  // PORT: Number(env.PORT ?? '8080'), and the problem shows JSON.stringify(env.PORT).
  assert.equal(read({ PORT: 8081 }).value.port, 8081);
  assert.equal(read({ PORT: [0x50] }).value.port, 80);
  assert.equal(read({ PORT: null }).value.port, 8080);
  assert.deepEqual(read({ PORT: 8081.5 }).problems, ['PORT must be a port number, got 8081.5']);
  assert.deepEqual(read({ PORT: {} }).problems, ['PORT must be a port number, got {}']);
  // The concurrency: Number(raw) unless undefined, so null is 0.
  const MAX = 'KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer';
  assert.equal(read({ KINDGI_PACK_SERVICE_MAX_CONCURRENCY: 4 }).value.maxConcurrency, 4);
  for (const bad of [0, null, 1.5, {}]) {
    assert.deepEqual(read({ KINDGI_PACK_SERVICE_MAX_CONCURRENCY: bad }).problems, [MAX], String(bad));
  }
  // The env settings are compared with ===: any other value is refused, shown as `${raw}`.
  assert.deepEqual(read({ KINDGI_PACK_ENV_CHECK: null }).problems, ['KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "null"']);
  assert.deepEqual(read({ KINDGI_PACK_ENV_CHECK: ['warn'] }).problems, ['KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "warn"']);
  assert.deepEqual(read({ KINDGI_PACK_ENV_FILTER: 5 }).problems, ['KINDGI_PACK_ENV_FILTER must be `on` or `off`, not "5"']);
  // Where TypeScript throws a TypeError (`raw?.trim()`, `path.resolve`, Number(Symbol)).
  for (const name of ['KINDGI_PACK_SERVICE_TOKEN', 'KINDGI_PACK_INDEX', 'KINDGI_PACK_TENANT_ID']) {
    assert.throws(() => read({ [name]: 5 }), { code: 'invalid-argument', message: `env.${name} must be a string, not a number` });
  }
  assert.equal(readPackServiceConfig(['--index', '/i.json'], { ...TOKEN, KINDGI_PACK_INDEX: 5 }).kind, 'ok', 'unread when --index is given');
  // TypeScript resolves the index before it reads anything else.
  const INDEX = { code: 'invalid-argument', message: 'env.KINDGI_PACK_INDEX must be a string, not a number' };
  assert.throws(() => readPackServiceConfig([], { KINDGI_PACK_INDEX: 5, KINDGI_PACK_SERVICE_TOKEN: 5, PORT: Symbol('port') }), INDEX);
  assert.throws(() => readPackServiceConfig(['--index'], { KINDGI_PACK_INDEX: 5, KINDGI_PACK_SERVICE_TOKEN: 5 }), INDEX, 'a last --index has no value');
  assert.throws(() => readPackServiceConfig(['--index', '/i.json'], { KINDGI_PACK_INDEX: 5, KINDGI_PACK_SERVICE_TOKEN: 5 }), { message: /KINDGI_PACK_SERVICE_TOKEN/ });
  assert.throws(() => read({ PORT: Symbol('port') }), { code: 'invalid-argument' });
});

test('the env settings refuse every value that is not a string, shown as `${value}` shows it', () => {
  const read = (env) => readPackServiceConfig([], { ...TOKEN, ...env });
  const check = (shown) => `KINDGI_PACK_ENV_CHECK must be \`strict\` or \`warn\`, not "${shown}"`;
  const filter = (shown) => `KINDGI_PACK_ENV_FILTER must be \`on\` or \`off\`, not "${shown}"`;
  // Whatever the text: TypeScript compares the value itself with ===.
  const cases = [
    [5, '5'], [true, 'true'], [false, 'false'], [null, 'null'], [{}, '[object Object]'], [[], ''],
    [['a', 'b'], 'a,b'], [['strict'], 'strict'], [[''], ''], [new String('warn'), 'warn'], [5n, '5'],
    [{ toString: () => 'off' }, 'off'], [['on\u0000'], 'on\u0000'],
  ];
  for (const [value, shown] of cases) {
    assert.deepEqual(read({ KINDGI_PACK_ENV_CHECK: value }).problems, [check(shown)], shown);
    assert.deepEqual(read({ KINDGI_PACK_ENV_FILTER: value }).problems, [filter(shown)], shown);
  }
  // A string holding NUL is the string TypeScript compares and prints, never the value it spells.
  assert.deepEqual(read({ KINDGI_PACK_ENV_CHECK: 'warn\u0000' }).problems, [check('warn\u0000')]);
  assert.deepEqual(read({ KINDGI_PACK_ENV_CHECK: '5\u0000', KINDGI_PACK_ENV_FILTER: 5 }).problems, [check('5\u0000'), filter('5')]);
  assert.deepEqual(read({ KINDGI_PACK_ENV_CHECK: 5, KINDGI_PACK_ENV_FILTER: '5\u0000' }).problems, [check('5'), filter('5\u0000')]);
  assert.deepEqual(read({ KINDGI_PACK_ENV_FILTER: '\u0000' }).problems, [filter('\u0000')]);
  // Where TypeScript's template throws a TypeError.
  for (const value of [Symbol('s'), { toString: () => { throw new Error('no'); } }]) {
    assert.throws(() => read({ KINDGI_PACK_ENV_CHECK: value }), { code: 'invalid-argument' });
    assert.throws(() => read({ KINDGI_PACK_ENV_FILTER: value }), { code: 'invalid-argument' });
  }
});

test('PORT that is not a string: Number() decides, and the problem shows JSON.stringify(PORT)', () => {
  const read = (PORT) => readPackServiceConfig([], { ...TOKEN, PORT });
  for (const [value, port] of [[true, 1], [false, 0], [[], 0], [['81'], 81], [new String(' 82 '), 82], [{ valueOf: () => 83 }, 83], [84n, 84]]) {
    assert.equal(read(value).value.port, port, String(value));
  }
  const cases = [
    [NaN, 'null'], [Infinity, 'null'], [-1, '-1'], [65536, '65536'], [1e21, '1e+21'], [['x'], '["x"]'], [[1, 2], '[1,2]'],
    [{ a: 1 }, '{"a":1}'], [new String('x'), '"x"'], [() => 80, 'undefined'], [{ toJSON: () => 'p' }, '"p"'],
    [['\u0000'], '["\\u0000"]'],
  ];
  for (const [value, shown] of cases) {
    assert.deepEqual(read(value).problems, [`PORT must be a port number, got ${shown}`], shown);
  }
  // A string holding NUL is read and printed as the string it is.
  assert.deepEqual(read('80\u0000').problems, ['PORT must be a port number, got "80\\u0000"']);
  assert.deepEqual(read('NaN').problems, ['PORT must be a port number, got "NaN"']);
  // Both a PORT and a setting that are not strings, with the rest of the problems in order.
  assert.deepEqual(readPackServiceConfig([], { PORT: NaN, KINDGI_PACK_SERVICE_MAX_CONCURRENCY: [], KINDGI_PACK_ENV_CHECK: 0 }).problems, [
    'KINDGI_PACK_SERVICE_TOKEN is required',
    'PORT must be a port number, got null',
    'KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer',
    'KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "0"',
  ]);
});

test('KINDGI_PACK_SERVICE_MAX_CONCURRENCY that is not a string goes through Number()', () => {
  const read = (value) => readPackServiceConfig([], { ...TOKEN, KINDGI_PACK_SERVICE_MAX_CONCURRENCY: value });
  for (const [value, n] of [[true, 1], [['4'], 4], [new String('5'), 5], [6n, 6]]) assert.equal(read(value).value.maxConcurrency, n, String(value));
  for (const bad of [false, [], NaN, Infinity, -1, '']) {
    assert.deepEqual(read(bad).problems, ['KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer'], String(bad));
  }
  assert.throws(() => read(Symbol('n')), { code: 'invalid-argument' });
});

test('variables are read in the TypeScript order: the concurrency throws before a setting does', () => {
  const env = { ...TOKEN, KINDGI_PACK_SERVICE_MAX_CONCURRENCY: Symbol('n'), KINDGI_PACK_ENV_CHECK: Symbol('c'), KINDGI_PACK_ENV_FILTER: Symbol('f') };
  assert.throws(() => readPackServiceConfig([], env), { code: 'invalid-argument', message: /^env\.KINDGI_PACK_SERVICE_MAX_CONCURRENCY / });
  delete env.KINDGI_PACK_SERVICE_MAX_CONCURRENCY;
  assert.throws(() => readPackServiceConfig([], env), { code: 'invalid-argument', message: /^env\.KINDGI_PACK_ENV_CHECK / });
});
