// The pack's declared process environment through the public JS API (the pack-env module and the
// root re-exports). Reference: spec/ts-reference.md sections 1.1, 4.1, 4.3 and checklist 101-106 (PE).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as packEnv from '../lib/pack-env.js';
import * as root from '../index.js';

const {
  PACK_ENV_NAME,
  RESERVED_ENV_PREFIX,
  PACK_ENV_CHECK_VAR,
  PACK_ENV_FILTER_VAR,
  PLATFORM_ENV_NAMES,
  PLATFORM_ENV_PREFIXES,
  resolvePackEnv,
  missingPackEnv,
  parsePackEnvCheck,
  parsePackEnvFilter,
  undeclaredPackEnv,
} = packEnv;

// Section 4.3, in table order.
const EXPECTED_PLATFORM_ENV_NAMES = [
  // the process
  'PATH', 'HOME', 'HOSTNAME', 'USER', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TMP', 'TEMP', 'PWD', 'SHLVL', '_',
  '__CF_USER_TEXT_ENCODING',
  // the language runtime
  'NODE_ENV', 'NODE_VERSION', 'YARN_VERSION', 'NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'JAVA_HOME', 'JAVA_VERSION',
  'JAVA_TOOL_OPTIONS', 'JDK_JAVA_OPTIONS', '_JAVA_OPTIONS', 'VIRTUAL_ENV',
  // the port
  'PORT',
  // network trust
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE',
  // Cloud Run
  'K_SERVICE', 'K_REVISION', 'K_CONFIGURATION',
  // AWS
  'AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_EXECUTION_ENV', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_AUTHORIZATION_TOKEN', 'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
  'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_ROLE_ARN', 'ECS_CONTAINER_METADATA_URI', 'ECS_CONTAINER_METADATA_URI_V4',
  // Azure
  'IDENTITY_ENDPOINT', 'IDENTITY_HEADER', 'MSI_ENDPOINT', 'MSI_SECRET', 'AZURE_CLIENT_ID', 'AZURE_TENANT_ID',
  'AZURE_FEDERATED_TOKEN_FILE', 'AZURE_AUTHORITY_HOST',
];

const EXPECTED_PLATFORM_ENV_PREFIXES = ['LC_', 'PYTHON', 'OTEL_', 'CLOUD_RUN_', 'CONTAINER_APP_'];

const NOT_AN_OBJECT = '`env` must be an object: { required?: string[], optional?: string[] }';

const ok = (value) => ({ kind: 'ok', value });
const err = (message) => ({ kind: 'err', message });

const isInvalidArgument = (error) => {
  assert.ok(error instanceof Error, 'an Error');
  assert.equal(error.code, 'invalid-argument');
  return true;
};

const byCodeUnit = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------------------------------------
// Constants and exports

test('constants', () => {
  assert.ok(PACK_ENV_NAME instanceof RegExp);
  assert.equal(PACK_ENV_NAME.source, '^[A-Za-z_][A-Za-z0-9_]*$');
  assert.equal(PACK_ENV_NAME.flags, '');
  for (const name of ['A', '_', 'a_1', 'DB_URL', '_x', 'Z9']) assert.ok(PACK_ENV_NAME.test(name), name);
  for (const name of ['', '1X', 'A-B', 'é', 'A B', 'A.B', 'A\n']) assert.ok(!PACK_ENV_NAME.test(name), JSON.stringify(name));
  assert.equal(RESERVED_ENV_PREFIX, 'KINDGI_');
  assert.equal(PACK_ENV_CHECK_VAR, 'KINDGI_PACK_ENV_CHECK');
  assert.equal(PACK_ENV_FILTER_VAR, 'KINDGI_PACK_ENV_FILTER');
});

test('PLATFORM_ENV_NAMES is the full section 4.3 table, in table order', () => {
  assert.deepStrictEqual([...PLATFORM_ENV_NAMES], EXPECTED_PLATFORM_ENV_NAMES);
  assert.equal(new Set(PLATFORM_ENV_NAMES).size, PLATFORM_ENV_NAMES.length, 'no repeats');
  for (const secret of ['AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SESSION_TOKEN', 'GOOGLE_APPLICATION_CREDENTIALS', 'AZURE_CLIENT_SECRET']) {
    assert.ok(!PLATFORM_ENV_NAMES.includes(secret), `${secret} is not a platform name`);
  }
});

test('PLATFORM_ENV_PREFIXES is LC_, PYTHON, OTEL_, CLOUD_RUN_, CONTAINER_APP_', () => {
  assert.deepStrictEqual([...PLATFORM_ENV_PREFIXES], EXPECTED_PLATFORM_ENV_PREFIXES);
});

test('the root entry re-exports the pack-env module', () => {
  for (const name of [
    'PACK_ENV_NAME',
    'RESERVED_ENV_PREFIX',
    'PACK_ENV_CHECK_VAR',
    'PACK_ENV_FILTER_VAR',
    'PLATFORM_ENV_NAMES',
    'PLATFORM_ENV_PREFIXES',
    'resolvePackEnv',
    'missingPackEnv',
    'parsePackEnvCheck',
    'parsePackEnvFilter',
    'undeclaredPackEnv',
  ]) {
    assert.ok(name in root, `root exports ${name}`);
    assert.strictEqual(root[name], packEnv[name], `root ${name} is the pack-env module's`);
  }
});

// ---------------------------------------------------------------------------------------------
// resolvePackEnv

test('PE 101: resolvePackEnv of undefined, {} and two empty lists is ok undefined', () => {
  for (const env of [undefined, {}, { required: [], optional: [] }, { required: [] }, { optional: [] }, { required: undefined, optional: undefined }]) {
    const outcome = resolvePackEnv(env);
    assert.deepStrictEqual(outcome, { kind: 'ok', value: undefined });
    assert.ok(Object.hasOwn(outcome, 'value'), 'the `value` key is present');
  }
});

test('PE 102: lists are sorted by code unit and a missing list becomes []', () => {
  assert.deepStrictEqual(resolvePackEnv({ required: ['b', 'A_URL', 'B_URL', '_x'] }), ok({ required: ['A_URL', 'B_URL', '_x', 'b'], optional: [] }));
  assert.deepStrictEqual(resolvePackEnv({ optional: ['b', 'A_URL', 'B_URL', '_x'] }), ok({ required: [], optional: ['A_URL', 'B_URL', '_x', 'b'] }));
  assert.deepStrictEqual(
    resolvePackEnv({ optional: ['Z9', 'a', '_', 'B', 'A1', 'A_'], required: ['DB_URL', 'API_KEY'] }),
    ok({ required: ['API_KEY', 'DB_URL'], optional: ['A1', 'A_', 'B', 'Z9', '_', 'a'] }),
  );
});

test('resolvePackEnv does not change the lists it was given', () => {
  const required = ['b', 'a'];
  const optional = ['d', 'c'];
  const outcome = resolvePackEnv({ required, optional });
  assert.deepStrictEqual(outcome, ok({ required: ['a', 'b'], optional: ['c', 'd'] }));
  assert.deepEqual(required, ['b', 'a']);
  assert.deepEqual(optional, ['d', 'c']);
  assert.notStrictEqual(outcome.value.required, required);
});

test('PE 103: null, an array or a primitive is refused', () => {
  for (const env of [null, [], ['A'], 'A', 5, true]) {
    assert.deepStrictEqual(resolvePackEnv(env), err(NOT_AN_OBJECT), JSON.stringify(env));
  }
});

test('PE 103: unknown keys are refused, listed in their order', () => {
  assert.deepStrictEqual(resolvePackEnv({ extra: ['A'] }), err('`env` takes only `required` and `optional`, not `extra`'));
  assert.deepStrictEqual(
    resolvePackEnv({ a: 1, required: ['X'], b: 2 }),
    err('`env` takes only `required` and `optional`, not `a`, `b`'),
  );
  // Unknown keys are reported alone, before the lists are looked at.
  assert.deepStrictEqual(
    resolvePackEnv({ required: ['1X'], Optional: [] }),
    err('`env` takes only `required` and `optional`, not `Optional`'),
  );
});

test('PE 103: a non-list, or non-string items, are refused', () => {
  for (const required of ['A', 5, null, { A: 1 }, [1], ['A', 2], [null], [['A']]]) {
    assert.deepStrictEqual(resolvePackEnv({ required }), err('`env.required` must be a list of names'), JSON.stringify(required));
  }
  assert.deepStrictEqual(resolvePackEnv({ optional: {} }), err('`env.optional` must be a list of names'));
  assert.deepStrictEqual(
    resolvePackEnv({ required: 'A', optional: [1] }),
    err('`env.required` must be a list of names; `env.optional` must be a list of names'),
  );
});

test('PE 103: a name starting with a digit, or holding "-", is refused', () => {
  assert.deepStrictEqual(resolvePackEnv({ required: ['1X'] }), err('"1X" in `env.required` isn\'t an environment variable name'));
  assert.deepStrictEqual(resolvePackEnv({ required: ['A-B'] }), err('"A-B" in `env.required` isn\'t an environment variable name'));
  assert.deepStrictEqual(resolvePackEnv({ optional: ['A-B'] }), err('"A-B" in `env.optional` isn\'t an environment variable name'));
  assert.deepStrictEqual(resolvePackEnv({ required: [''] }), err('"" in `env.required` isn\'t an environment variable name'));
  assert.deepStrictEqual(resolvePackEnv({ required: ['ä'] }), err('"ä" in `env.required` isn\'t an environment variable name'));
});

test('PE 103: a KINDGI_ name is refused', () => {
  assert.deepStrictEqual(
    resolvePackEnv({ optional: ['KINDGI_X'] }),
    err('"KINDGI_X" in `env.optional`: `KINDGI_*` names configure Kindgi, not the pack'),
  );
  assert.deepStrictEqual(
    resolvePackEnv({ required: ['KINDGI_'] }),
    err('"KINDGI_" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack'),
  );
  // Only the exact, case-sensitive prefix is reserved.
  assert.deepStrictEqual(resolvePackEnv({ required: ['KINDGI', 'kindgi_x'] }), ok({ required: ['KINDGI', 'kindgi_x'], optional: [] }));
});

test('PE 103: a name listed twice, or in both lists, is refused', () => {
  assert.deepStrictEqual(resolvePackEnv({ required: ['A', 'A'] }), err('"A" is listed twice in `env.required`'));
  assert.deepStrictEqual(resolvePackEnv({ optional: ['B', 'A', 'B'] }), err('"B" is listed twice in `env.optional`'));
  assert.deepStrictEqual(resolvePackEnv({ required: ['A'], optional: ['A'] }), err('"A" is in both `env.required` and `env.optional`'));
  // The required list is read first, whatever the key order.
  assert.deepStrictEqual(resolvePackEnv({ optional: ['A'], required: ['A'] }), err('"A" is in both `env.required` and `env.optional`'));
});

test('several problems are joined by "; " in order, the required list first', () => {
  assert.deepStrictEqual(
    resolvePackEnv({
      optional: ['A', 'b-', 'KINDGI_Y', 'C', 'C'],
      required: ['1X', 'A', 'A', 'KINDGI_Z'],
    }),
    err(
      [
        '"1X" in `env.required` isn\'t an environment variable name',
        '"A" is listed twice in `env.required`',
        '"KINDGI_Z" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack',
        '"A" is in both `env.required` and `env.optional`',
        '"b-" in `env.optional` isn\'t an environment variable name',
        '"KINDGI_Y" in `env.optional`: `KINDGI_*` names configure Kindgi, not the pack',
        '"C" is listed twice in `env.optional`',
      ].join('; '),
    ),
  );
  assert.deepStrictEqual(
    resolvePackEnv({ required: 5, optional: ['1A'] }),
    err('`env.required` must be a list of names; "1A" in `env.optional` isn\'t an environment variable name'),
  );
});

// ---------------------------------------------------------------------------------------------
// missingPackEnv

test('PE 104: unset and "" are missing, " " is set; the order is the declaration\'s', () => {
  const declaration = { required: ['C_UNSET', 'A_EMPTY', 'B_SPACE', 'D_SET', 'E_UNSET'], optional: [] };
  const environment = { A_EMPTY: '', B_SPACE: ' ', D_SET: 'x', E_UNSET: undefined };
  assert.deepStrictEqual([...missingPackEnv(declaration, environment)], ['C_UNSET', 'A_EMPTY', 'E_UNSET']);
  assert.deepStrictEqual([...missingPackEnv({ required: ['B', 'A'], optional: [] }, {})], ['B', 'A']);
  assert.deepStrictEqual([...missingPackEnv({ required: ['A', 'B'], optional: [] }, { A: 'a', B: 'b' })], []);
});

test('PE 105: optional names are never missing; an undefined declaration gives []', () => {
  assert.deepStrictEqual([...missingPackEnv({ required: [], optional: ['A', 'B'] }, {})], []);
  assert.deepStrictEqual([...missingPackEnv({ required: ['R'], optional: ['O'] }, { O: '' })], ['R']);
  assert.deepStrictEqual([...missingPackEnv(undefined, {})], []);
  assert.deepStrictEqual([...missingPackEnv(undefined, { A: '' })], []);
});

test('missingPackEnv reads any name as a key, as TypeScript does: NUL, lone surrogates, inherited', () => {
  const declaration = { required: ['A\u0000B', '\ud800', 'toString', 'C'], optional: [] };
  // '\ud800' is set, and so is toString (inherited from Object.prototype), as `environment[name]` reads them.
  assert.deepStrictEqual(missingPackEnv(declaration, { '\ud800': 'x' }), ['A\u0000B', 'C']);
  assert.deepStrictEqual(missingPackEnv(declaration, { 'A\u0000B': 'y', '\ufffd': 'x' }), ['\ud800', 'C']);
});

test('missingPackEnv works on process.env', () => {
  const set = `KTEST_PE_SET_${process.pid}`;
  const empty = `KTEST_PE_EMPTY_${process.pid}`;
  const unset = `KTEST_PE_UNSET_${process.pid}`;
  process.env[set] = 'value';
  process.env[empty] = '';
  delete process.env[unset];
  try {
    assert.deepStrictEqual([...missingPackEnv({ required: [unset, set, empty], optional: [] }, process.env)], [unset, empty]);
  } finally {
    delete process.env[set];
    delete process.env[empty];
  }
});

test('missingPackEnv takes a resolved declaration as is', () => {
  const resolved = resolvePackEnv({ required: ['B_URL', 'A_URL'], optional: ['C'] });
  assert.equal(resolved.kind, 'ok');
  assert.deepStrictEqual([...missingPackEnv(resolved.value, { B_URL: 'x' })], ['A_URL']);
});

test('missingPackEnv refuses wrong argument types with invalid-argument', () => {
  assert.throws(() => missingPackEnv({ required: ['A'], optional: [] }, null), isInvalidArgument);
  assert.throws(() => missingPackEnv(undefined, null), isInvalidArgument);
  assert.throws(() => missingPackEnv({ required: ['A'], optional: [] }, 'A=1'), isInvalidArgument);
  assert.throws(() => missingPackEnv({ required: ['A'], optional: [] }, undefined), isInvalidArgument);
  assert.throws(() => missingPackEnv(null, {}), isInvalidArgument);
  assert.throws(() => missingPackEnv(5, {}), isInvalidArgument);
  assert.throws(() => missingPackEnv({ required: 'A', optional: [] }, {}), isInvalidArgument);
  assert.throws(() => missingPackEnv({ required: [1], optional: [] }, {}), isInvalidArgument);
});

// ---------------------------------------------------------------------------------------------
// parsePackEnvCheck / parsePackEnvFilter

test('PE 106: parsePackEnvCheck: undefined, "" and strict → strict; warn → warn; WARN → the exact error', () => {
  assert.deepStrictEqual(parsePackEnvCheck(undefined), ok('strict'));
  assert.deepStrictEqual(parsePackEnvCheck(), ok('strict'));
  assert.deepStrictEqual(parsePackEnvCheck(''), ok('strict'));
  assert.deepStrictEqual(parsePackEnvCheck('strict'), ok('strict'));
  assert.deepStrictEqual(parsePackEnvCheck('warn'), ok('warn'));
  assert.deepStrictEqual(parsePackEnvCheck('WARN'), err('KINDGI_PACK_ENV_CHECK must be `strict` or `warn`, not "WARN"'));
});

test('parsePackEnvCheck is case- and space-sensitive', () => {
  for (const raw of ['Strict', ' strict', 'warn ', 'off', 'on', 'true', '0']) {
    assert.deepStrictEqual(parsePackEnvCheck(raw), err(`KINDGI_PACK_ENV_CHECK must be \`strict\` or \`warn\`, not "${raw}"`));
  }
});

test('parsePackEnvFilter: undefined, "" and on → on; off → off; anything else → the exact error', () => {
  assert.deepStrictEqual(parsePackEnvFilter(undefined), ok('on'));
  assert.deepStrictEqual(parsePackEnvFilter(), ok('on'));
  assert.deepStrictEqual(parsePackEnvFilter(''), ok('on'));
  assert.deepStrictEqual(parsePackEnvFilter('on'), ok('on'));
  assert.deepStrictEqual(parsePackEnvFilter('off'), ok('off'));
  assert.deepStrictEqual(parsePackEnvFilter('no'), err('KINDGI_PACK_ENV_FILTER must be `on` or `off`, not "no"'));
  for (const raw of ['OFF', 'On', 'strict', 'false', ' off']) {
    assert.deepStrictEqual(parsePackEnvFilter(raw), err(`KINDGI_PACK_ENV_FILTER must be \`on\` or \`off\`, not "${raw}"`));
  }
});

test('parsePackEnvCheck / parsePackEnvFilter refuse non-strings with invalid-argument', () => {
  for (const raw of [5, null, true, {}, ['warn']]) {
    assert.throws(() => parsePackEnvCheck(raw), isInvalidArgument);
    assert.throws(() => parsePackEnvFilter(raw), isInvalidArgument);
  }
});

// ---------------------------------------------------------------------------------------------
// undeclaredPackEnv

test('undeclaredPackEnv drops what is not declared, KINDGI_*, a platform name or a platform prefix', () => {
  const declaration = { required: ['DB_URL'], optional: ['FEATURE_FLAG'] };
  const environment = {
    DB_URL: 'postgres://',
    FEATURE_FLAG: '1',
    SECRET_TOKEN: 's',
    PATH: '/usr/bin',
    HOME: '/home/app',
    _: '/usr/bin/node',
    no_proxy: 'localhost',
    PORT: '8080',
    K_SERVICE: 'svc',
    KINDGI_PACK_SERVICE_TOKEN: 't',
    KINDGI_ANYTHING: 'x',
    LC_ALL: 'C',
    PYTHONPATH: '/p',
    PYTHON: 'x',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x',
    CLOUD_RUN_JOB: 'j',
    CONTAINER_APP_NAME: 'n',
    b_lower: '',
    A_UPPER: '',
  };
  assert.deepStrictEqual(undeclaredPackEnv(declaration, environment), ['A_UPPER', 'SECRET_TOKEN', 'b_lower']);
});

test('undeclaredPackEnv: near misses of the platform names and prefixes are dropped', () => {
  const environment = {
    path: '', Path: '', KINDGI: '', kindgi_x: '', Kindgi_X: '', LC: '', lc_all: '', PYTHO: '', python_x: '',
    OTEL: '', otel_x: '', CLOUD_RUN: '', CONTAINER_APP: '', PORTS: '', HOME_DIR: '', __: '',
  };
  assert.deepStrictEqual(undeclaredPackEnv(undefined, environment), Object.keys(environment).sort(byCodeUnit));
});

test('undeclaredPackEnv: static cloud credentials are dropped unless declared', () => {
  const environment = {
    AWS_SECRET_ACCESS_KEY: 'k',
    GOOGLE_APPLICATION_CREDENTIALS: '/creds.json',
    AZURE_CLIENT_SECRET: 's',
    AWS_REGION: 'eu-west-1',
    AZURE_CLIENT_ID: 'id',
  };
  assert.deepStrictEqual(undeclaredPackEnv(undefined, environment), [
    'AWS_SECRET_ACCESS_KEY',
    'AZURE_CLIENT_SECRET',
    'GOOGLE_APPLICATION_CREDENTIALS',
  ]);
  assert.deepStrictEqual(
    undeclaredPackEnv({ required: ['AWS_SECRET_ACCESS_KEY'], optional: ['AZURE_CLIENT_SECRET'] }, environment),
    ['GOOGLE_APPLICATION_CREDENTIALS'],
  );
});

test('undeclaredPackEnv keeps every platform name and prefix', () => {
  const environment = {};
  for (const name of EXPECTED_PLATFORM_ENV_NAMES) environment[name] = 'x';
  for (const prefix of EXPECTED_PLATFORM_ENV_PREFIXES) environment[`${prefix}SOMETHING`] = 'x';
  for (const prefix of EXPECTED_PLATFORM_ENV_PREFIXES) environment[prefix] = 'x';
  environment.KINDGI_ = 'x';
  environment.KINDGI_LOG_LEVEL = 'debug';
  assert.deepStrictEqual(undeclaredPackEnv(undefined, environment), []);
  environment.UNDECLARED = 'x';
  assert.deepStrictEqual(undeclaredPackEnv(undefined, environment), ['UNDECLARED']);
});

test('undeclaredPackEnv sorts by UTF-16 code unit, not by code point or locale', () => {
  // U+1F600 is the surrogate pair D83D DE00, below U+FF5A in code units but above it in code points.
  const environment = { '\uff5a': '', '\u{1f600}': '', a: '', B: '', _: '', __x: '', 'Ä': '', Z: '' };
  const dropped = undeclaredPackEnv(undefined, environment);
  assert.deepStrictEqual(dropped, ['B', 'Z', '__x', 'a', 'Ä', '\u{1f600}', '\uff5a']);
  assert.deepStrictEqual(dropped, Object.keys(environment).filter((n) => n !== '_').sort(byCodeUnit));
});

test('undeclaredPackEnv: an undefined declaration keeps only platform and KINDGI_ names', () => {
  assert.deepStrictEqual(
    undeclaredPackEnv(undefined, { A: '1', PATH: '/bin', KINDGI_PACK_INDEX: '/app/index.json', LC_CTYPE: 'C', Z: '' }),
    ['A', 'Z'],
  );
  assert.deepStrictEqual(undeclaredPackEnv({ required: [], optional: [] }, { A: '1', PATH: '/bin' }), ['A']);
});

test('undeclaredPackEnv works on process.env', () => {
  const mine = `KTEST_UNDECLARED_${process.pid}`;
  process.env[mine] = 'x';
  try {
    const expected = Object.keys(process.env)
      .filter(
        (name) =>
          !name.startsWith('KINDGI_') &&
          !EXPECTED_PLATFORM_ENV_NAMES.includes(name) &&
          !EXPECTED_PLATFORM_ENV_PREFIXES.some((p) => name.startsWith(p)),
      )
      .sort(byCodeUnit);
    assert.ok(expected.includes(mine));
    assert.deepStrictEqual(undeclaredPackEnv(undefined, process.env), expected);
    assert.deepStrictEqual(
      undeclaredPackEnv({ required: [mine], optional: [] }, process.env),
      expected.filter((n) => n !== mine),
    );
  } finally {
    delete process.env[mine];
  }
});

test('undeclaredPackEnv only reports: it never changes the environment', () => {
  const environment = { SECRET: 's', PATH: '/bin' };
  undeclaredPackEnv(undefined, environment);
  assert.deepStrictEqual(environment, { SECRET: 's', PATH: '/bin' });
});

test('undeclaredPackEnv refuses wrong argument types with invalid-argument', () => {
  assert.throws(() => undeclaredPackEnv(undefined, null), isInvalidArgument);
  assert.throws(() => undeclaredPackEnv(undefined, 5), isInvalidArgument);
  assert.throws(() => undeclaredPackEnv(null, {}), isInvalidArgument);
  assert.throws(() => undeclaredPackEnv('A', {}), isInvalidArgument);
  assert.throws(() => undeclaredPackEnv({ required: ['A'], optional: 'B' }, {}), isInvalidArgument);
});
