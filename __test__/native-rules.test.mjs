// Rules Rust owns and JavaScript reads from native: each JS value must be native's, and the
// declarations that cannot read it (the .d.ts files) must say the same.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { native } from '../lib/native.js';
import { NATIVE_ERROR_CODES } from '../lib/errors.js';

const declared = (file) => readFileSync(new URL(`../lib/${file}`, import.meta.url), 'utf8');

test('NATIVE_ERROR_CODES is native\'s list, and errors.d.ts declares the same codes in order', () => {
  assert.deepEqual([...NATIVE_ERROR_CODES], native.nativeErrorCodes());
  assert.ok(Object.isFrozen(NATIVE_ERROR_CODES));
  // The union's members, one `| 'code'` a line (its doc comments hold semicolons of their own).
  const union = declared('errors.d.ts').split('export type NativeErrorCode =')[1] ?? '';
  const members = [...union.split(/'\s*;/)[0].matchAll(/^\s*\|\s*'([^']+)/gm)].map((m) => m[1]);
  assert.deepEqual(members, [...NATIVE_ERROR_CODES]);
});

/** The pack service's JavaScript: its public entry and every part of it. */
const PACK_SERVICE_FILES = ['pack-service.js', ...readdirSync(new URL('../lib/pack-service/', import.meta.url)).map((f) => `pack-service/${f}`)];

test('the service defaults are the core\'s: the service and supervisor.js read them from native', () => {
  assert.deepEqual(native.serviceDefaults(), { maxConcurrency: 32, maxBodyBytes: 10 * 1024 * 1024, defaultTimeoutMs: 120_000, stallMs: 10_000, maxWorkers: 256 });
  for (const file of PACK_SERVICE_FILES.concat('supervisor.js')) {
    assert.doesNotMatch(declared(file), /10 \* 1024 \* 1024|120_000/, `${file} repeats a default`);
  }
  for (const file of ['pack-service/service.js', 'supervisor.js']) {
    const source = declared(file);
    assert.match(source, /native\.serviceDefaults\(\)/, file);
    assert.doesNotMatch(source, /10 \* 1024 \* 1024|120_000/, `${file} repeats a default`);
  }
});

test('the log levels\' ranks and the redaction depth are native\'s', () => {
  assert.deepEqual(native.logLevelRanks(), [
    { name: 'trace', rank: 10 },
    { name: 'debug', rank: 20 },
    { name: 'info', rank: 30 },
    { name: 'warn', rank: 40 },
    { name: 'error', rank: 50 },
  ]);
  assert.equal(native.maxRedactDepth(), 8);
  const source = declared('log-records.js');
  assert.match(source, /native\.logLevelRanks\(\)/);
  assert.match(source, /const MAX_DEPTH = native\.maxRedactDepth\(\);/);
});

test('the tenant-id rule is native\'s: trimmed, blank pins nothing, and what no header carries is refused', () => {
  assert.deepEqual(native.pinnedTenant(' acme\n'), { tenant: 'acme' });
  assert.deepEqual(native.pinnedTenant('\uFEFF \t'), {});
  assert.deepEqual(native.pinnedTenant('a\tb é'), { tenant: 'a\tb é' });
  for (const bad of ['a\0b', 'a\x7f', 'a\rb', 'tenant\u0100', '\uD800']) {
    assert.match(native.pinnedTenant(bad).refusal, /^may hold only what an HTTP header can carry/, JSON.stringify(bad));
  }
  for (const file of PACK_SERVICE_FILES) {
    assert.doesNotMatch(declared(file), /NOT_A_HEADER_VALUE|\\x80-\\xff/, `${file} has a header-value rule of its own`);
  }
});

test('the runner\'s failure messages are native\'s templates, and no JavaScript file words them again', async () => {
  const templates = Object.fromEntries(native.runnerMessages().map(({ name, template }) => [name, template]));
  assert.deepEqual(templates, {
    toolInputSchemaRefused: 'Tool "{id}" input schema failed to compile: {thrown}',
    toolInputUnreadable: 'Tool "{id}" input cannot be validated: {thrown}',
    toolInputInvalid: 'Tool "{id}" input failed validation',
    handlerImportFailed: "Failed to import handler module '{path}': {thrown}",
    handlerShapeInvalid: "Handler module '{path}' does not export a handler function (looked for default / handler / run)",
    handlerThrew: 'Handler for tool "{id}" threw: {thrown}',
    toolOutputSchemaRefused: 'Tool "{id}" output schema failed to compile: {thrown}',
    toolOutputUnreadable: 'Tool "{id}" handler produced output that cannot be validated: {thrown}',
    toolOutputInvalid: 'Tool "{id}" handler produced output that failed validation',
    checkConfigSchemaRefused: 'Check "{id}" config schema failed to compile: {thrown}',
    checkConfigUnreadable: 'Check "{id}" config cannot be validated: {thrown}',
    checkConfigInvalid: 'Check "{id}" config failed validation{issue}',
    checkImportFailed: "Failed to import check module '{path}': {thrown}",
    checkShapeInvalid: "Check module '{path}' does not export a check with .evaluate() (looked for default / check / bare export with evaluate)",
    checkThrew: 'Check "{id}" evaluate() threw: {thrown}',
  });
  const { runnerMessage } = await import('../lib/runner-messages.js');
  // Filled once: a value that holds a slot's text stays as it is; lone surrogates are kept.
  assert.equal(runnerMessage('handlerThrew', { id: '{thrown}', thrown: 'Error: \uD800 $&' }), 'Handler for tool "{thrown}" threw: Error: \uD800 $&');
  for (const file of ['handler-runner.js', ...PACK_SERVICE_FILES]) {
    assert.doesNotMatch(declared(file), /failed validation|failed to compile|cannot be validated|does not export a|Failed to import|\bthrew: /, `${file} words a runner message`);
  }
});

test('the node:http listener writes the status and headers native gives it', () => {
  const failure = native.nodeFailureAnswer('{"error":"é"}');
  assert.deepEqual(failure, {
    status: 500,
    headers: ['content-type', 'application/json; charset=utf-8', 'content-length', '14'],
    body: '{"error":"é"}',
  });
  const source = declared('pack-service/node-handler.js');
  assert.doesNotMatch(source, /\b413\b|\\d\+|retry-after|kindgi-duration-ms|kindgi-artifact-version|content-type'\]?:|byteLength|maxBodyBytes/, 'node-handler.js decides HTTP of its own');
});

test('the supervisor\'s text tags are native\'s: supervisor.js reads them and names no letter itself', () => {
  assert.deepEqual(native.supervisorTextTags(), { stdout: 'o', stderr: 'e', serviceLine: 'l', interrupted: 'i' });
  const source = declared('supervisor.js');
  assert.match(source, /native\.supervisorTextTags\(\)/);
  assert.doesNotMatch(source, /===\s*'[a-z]'/, 'supervisor.js compares a tag of its own');
});

test('validateJson\'s answer tags are native\'s: validate.js reads them and names no letter itself', () => {
  assert.deepEqual(native.validationAnswerTags(), { validWithDefaults: 'v', invalid: 'i', recursed: 'r', threw: 't' });
  const source = declared('validate.js');
  assert.match(source, /native\.validationAnswerTags\(\)/);
  assert.doesNotMatch(source, /result(\[0\])? === '[a-z]'/, 'validate.js compares a tag of its own');
});
