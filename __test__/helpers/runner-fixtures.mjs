// What the handler runner's suites share: Ajv configured as the TypeScript package configures it
// (the oracle for every expected issue and compile failure), the tools and checks they run,
// and a directory of real module files for the default importers.
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

// ajv-formats is CommonJS: the default import is the plugin or a module object carrying it.
const addFormats = typeof addFormatsModule === 'function' ? addFormatsModule : addFormatsModule.default;

/** A fresh Ajv configured like the TypeScript package for `side` (section 3.7). */
function makeAjv(side) {
  const input = side === 'input';
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, ...(input && { useDefaults: true }) });
  addFormats(ajv);
  return ajv;
}

/** Ajv's compile: `{validate}` or `{error}`. */
export function ajvCompile(schema, side) {
  try {
    return { validate: makeAjv(side).compile(schema) };
  } catch (error) {
    return { error };
  }
}

/** What Ajv says about `value` (the input side validates a structuredClone, as the TS runner does). */
export function ajvOutcome(schema, side, value) {
  const { validate, error } = ajvCompile(schema, side);
  if (error) throw new Error(`oracle: Ajv refuses the test schema ${JSON.stringify(schema)}: ${error.message}`);
  const data = side === 'input' ? structuredClone(value) : value;
  return validate(data) ? { valid: true, value: data } : { valid: false, issues: validate.errors };
}

export function ajvIssues(schema, side, value) {
  const outcome = ajvOutcome(schema, side, value);
  assert.equal(outcome.valid, false, `oracle: Ajv accepts ${JSON.stringify(value)}`);
  return outcome.issues;
}

/** The error Ajv throws compiling `schema`. */
export function ajvCompileError(schema, side) {
  const { error } = ajvCompile(schema, side);
  assert.ok(error, `oracle: Ajv compiles ${JSON.stringify(schema)} on the ${side} side`);
  return error;
}

/** Same issues, same values and the same key order (Ajv's `instancePath, schemaPath, keyword, params, message`). */
export function assertSameIssues(actual, expected, label = '') {
  assert.deepStrictEqual(actual, expected, label);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${label} (key order)`);
}

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

export const ECHO_IN = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
  additionalProperties: false,
};
export const ECHO_OUT = {
  type: 'object',
  properties: { echoed: { type: 'string' } },
  required: ['echoed'],
  additionalProperties: false,
};

export const tool = (overrides = {}) => ({
  id: 'test.echo',
  modulePath: '/fake/echo.js',
  inputSchema: ECHO_IN,
  outputSchema: ECHO_OUT,
  ...overrides,
});

export const ctx = (overrides = {}) => ({
  tenantId: 'tenant-1',
  runId: 'run-1',
  requestId: 'req-1',
  env: { KEY: 'value' },
  secrets: { API_KEY: 'redacted' },
  config: { model: 'fast' },
  ...overrides,
});

export const wrap = (module) => async () => module;
export const echo = (input) => ({ echoed: input.message });

export const CHECK = { id: 'test.cites', modulePath: '/fake/cites.js' };
export const CITES_SCHEMA = {
  type: 'object',
  properties: { minChars: { type: 'integer', minimum: 0, default: 1 } },
};

export const GREET_IN = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    greeting: { type: 'string', default: 'Kia ora' },
  },
  required: ['name'],
  additionalProperties: false,
};
export const GREET_OUT = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
  additionalProperties: false,
};
export const greet = (input) => ({ message: `${input.greeting}, ${input.name}!` });

/** An importer that records the paths it was asked for. */
export function recordingImporter(module) {
  const calls = [];
  const importer = (path) => {
    calls.push(path);
    return module;
  };
  return { importer, calls };
}

// Real module files for the default importers: a directory whose path has a space and a `#`.
let tempBase;
let tempModules;
export async function moduleDir() {
  if (tempModules === undefined) {
    tempBase = await mkdtemp(join(tmpdir(), 'kindgi hr #'));
    tempModules = join(tempBase, 'pack #1 dir');
    await mkdir(tempModules, { recursive: true });
  }
  return tempModules;
}
after(async () => {
  if (tempBase !== undefined) await rm(tempBase, { recursive: true, force: true });
});
