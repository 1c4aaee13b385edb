// The example pack (examples/pack) and `npm start`: its committed index.json is what its build
// script writes with the package's index writer, and every call `npm start` prints works
// against the service it starts, which then drains and exits 0 on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BUILD, buildExampleIndex, exampleIndex } from '../examples/pack/build-index.mjs';
import { writeIndex } from '../lib/kindgi-index.js';
import { listeningPort } from './helpers/lines.mjs';
import { packFolder } from './helpers/local-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const committed = join(root, 'examples', 'pack', 'index.json');

test('the example pack\'s index.json is exactly what runIndexer writes from its modules, and what they give assembled by hand', async () => {
  const folder = packFolder('kindgi-example-');
  const indexed = await buildExampleIndex(join(folder, 'indexed.json'));
  assert.equal(indexed.kind, 'ok');
  assert.deepEqual([indexed.value.fileErrors, indexed.value.warnings], [[], []]);
  assert.equal(readFileSync(join(folder, 'indexed.json'), 'utf8'), readFileSync(committed, 'utf8'), 'run `node examples/pack/build-index.mjs`');
  const written = await writeIndex(await exampleIndex(), join(folder, 'by-hand.json'), BUILD);
  assert.equal(readFileSync(join(folder, 'by-hand.json'), 'utf8'), readFileSync(committed, 'utf8'));
  assert.equal(written.artifactVersion, BUILD.artifactVersion);
});

/** The calls `npm start` prints: each `curl` line (its path and headers) with the `-d` body on the line after it. */
function printedCalls(text) {
  const lines = text.split('\n');
  const calls = [];
  lines.forEach((line, i) => {
    const curl = /^\s*curl -s localhost:\d+(\/\S+)(.*)$/.exec(line);
    if (!curl) return;
    const headers = Object.fromEntries([...curl[2].matchAll(/-H '([^:]+): ([^']*)'/g)].map((m) => [m[1], m[2]]));
    const body = curl[2].trimEnd().endsWith('\\') ? /^\s*-d '(.*)'$/.exec(lines[i + 1])?.[1] : undefined;
    calls.push({ path: curl[1], headers, body });
  });
  return calls;
}

test('`npm start` serves the example pack, every call it prints is answered, and SIGTERM ends it', async () => {
  const started = spawn(process.execPath, [join(root, 'scripts', 'start-example.mjs')], {
    env: { PATH: process.env.PATH ?? '', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  started.stdout.on('data', (chunk) => (printed += chunk));
  const exited = new Promise((done) => started.on('exit', (code, signal) => done({ code, signal })));
  try {
    const port = await listeningPort(started);
    // Written before the service starts, but read through another pipe than the listening line.
    for (let i = 0; i < 500 && !printed.includes('Stop with Ctrl-C'); i += 1) await new Promise((r) => setTimeout(r, 10));
    const calls = printedCalls(printed);
    assert.equal(calls.length, 5, printed);
    // PORT=0 picks a free port before the service starts, so the printed calls name it.
    assert.ok(printed.includes(`on port ${port}.`), printed);
    const answers = [];
    for (const { path, headers, body } of calls) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body });
      answers.push([res.status, JSON.parse(await res.text())]);
    }
    const [info, greet, words, countdown, check] = answers;
    assert.equal(info[0], 200);
    assert.deepEqual(
      [info[1].packId, info[1].tools.map((t) => t.id), info[1].checks],
      ['example', ['example.countdown', 'example.greet', 'example.word-count'], ['example.checks.no-shouting']],
    );
    assert.deepEqual(greet, [200, { v: 2, kind: 'result', output: { greeting: 'Bonjour, Ada!' } }]);
    assert.deepEqual(words, [200, { v: 2, kind: 'result', output: { words: 5, top: [{ word: 'the', count: 2 }, { word: 'and', count: 1 }, { word: 'cat', count: 1 }] } }]);
    assert.deepEqual([countdown[0], countdown[1].code], [200, 'deadline-exceeded']);
    assert.deepEqual(check, [200, { v: 2, kind: 'check-result', result: { passed: false, reason: '100% of the letters are capitals', attributes: { letters: 16, upper: 16 } } }]);
  } finally {
    started.kill('SIGTERM');
  }
  assert.deepEqual(await exited, { code: 0, signal: null });
});
