// Rules Rust owns and JavaScript reads from native: each JS value must be native's, and the
// declarations that cannot read it (the .d.ts files) must say the same.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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

test('the service defaults are the core\'s: pack-service.js and supervisor.js read them from native', () => {
  assert.deepEqual(native.serviceDefaults(), { maxConcurrency: 32, maxBodyBytes: 10 * 1024 * 1024, defaultTimeoutMs: 120_000 });
  for (const file of ['pack-service.js', 'supervisor.js']) {
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
  const source = declared('logs.js');
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
  const source = declared('pack-service.js');
  assert.doesNotMatch(source, /NOT_A_HEADER_VALUE|\\x80-\\xff/, 'pack-service.js has a header-value rule of its own');
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
