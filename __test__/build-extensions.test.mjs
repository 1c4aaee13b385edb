// `./build-extensions`: `image` in a TypeScript pack's kindgi.config, as
// @kindgi/handler-runtime's src/build-extensions.ts gives it (data only, nothing checked).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as byPath from '../lib/build-extensions.js';

const PACKAGE = '@kindgi/handler-runtime-native';

test('./build-extensions resolves by name and exports defineBuildExtension and prisma', async () => {
  const entry = await import(`${PACKAGE}/build-extensions`);
  assert.deepStrictEqual(Object.keys(entry).sort(), ['defineBuildExtension', 'prisma']);
  assert.strictEqual(entry.prisma, byPath.prisma);
  assert.strictEqual(entry.defineBuildExtension, byPath.defineBuildExtension);
});

test('prisma copies the schema and generates from it when the app has no config file', () => {
  const extension = byPath.prisma({ schema: 'prisma/schema.prisma' });
  assert.deepStrictEqual(extension, {
    name: 'prisma',
    contextFiles: ['prisma/schema.prisma'],
    postInstall: [{ bin: 'prisma', args: ['generate', '--schema', 'prisma/schema.prisma'] }],
  });
  assert.deepStrictEqual(Object.keys(extension), ['name', 'contextFiles', 'postInstall']);
  assert.deepStrictEqual(Object.keys(extension.postInstall[0]), ['bin', 'args']);
  // `config: undefined` is no config.
  assert.deepStrictEqual(byPath.prisma({ schema: 's.prisma', config: undefined }), {
    name: 'prisma',
    contextFiles: ['s.prisma'],
    postInstall: [{ bin: 'prisma', args: ['generate', '--schema', 's.prisma'] }],
  });
});

test('prisma copies the config too and generates from the config when the app has one', () => {
  assert.deepStrictEqual(byPath.prisma({ schema: 'prisma/schema.prisma', config: 'prisma.config.ts' }), {
    name: 'prisma',
    contextFiles: ['prisma/schema.prisma', 'prisma.config.ts'],
    postInstall: [{ bin: 'prisma', args: ['generate', '--config', 'prisma.config.ts'] }],
  });
});

test('prisma gives a fresh object each call, not frozen, as TypeScript does', () => {
  const first = byPath.prisma({ schema: 'a.prisma' });
  const second = byPath.prisma({ schema: 'a.prisma' });
  assert.notStrictEqual(first, second);
  assert.notStrictEqual(first.postInstall, second.postInstall);
  for (const part of [first, first.contextFiles, first.postInstall, first.postInstall[0], first.postInstall[0].args]) {
    assert.equal(Object.isFrozen(part), false);
  }
  first.contextFiles.push('extra');
  assert.deepStrictEqual(second.contextFiles, ['a.prisma']);
});

test('nothing is checked: values pass through, and only a missing options object throws', () => {
  // Checking is `kindgi build`'s work (readImageConfig), not these helpers'.
  assert.deepStrictEqual(byPath.prisma({ schema: 5, config: null }).postInstall, [
    { bin: 'prisma', args: ['generate', '--config', null] },
  ]);
  assert.deepStrictEqual(byPath.prisma({}).contextFiles, [undefined]);
  assert.throws(() => byPath.prisma(), {
    name: 'TypeError',
    message: "Cannot read properties of undefined (reading 'config')",
  });
  assert.throws(() => byPath.prisma(null), {
    name: 'TypeError',
    message: "Cannot read properties of null (reading 'config')",
  });
});

test('defineBuildExtension returns what it is given, the very object, unchecked and unfrozen', () => {
  const extension = {
    name: 'ocr',
    contextFiles: ['ocr/langs.txt'],
    systemPackages: ['tesseract-ocr', 'poppler-utils'],
    postInstall: [{ bin: 'ocr-setup', args: ['--langs', 'ocr/langs.txt'] }],
    buildEnv: { OCR_LANG: 'eng' },
  };
  assert.strictEqual(byPath.defineBuildExtension(extension), extension);
  assert.equal(Object.isFrozen(extension), false);
  assert.deepStrictEqual(Object.keys(extension), ['name', 'contextFiles', 'systemPackages', 'postInstall', 'buildEnv']);
  for (const odd of [undefined, null, {}, 'x']) assert.strictEqual(byPath.defineBuildExtension(odd), odd);
});
