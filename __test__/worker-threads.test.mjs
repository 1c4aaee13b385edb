// The package in worker threads, as pools, build tools and test runners load it: processes that
// load it in one worker that exits, then in 2–5 workers at once, each ended by terminate() at a
// random moment or exiting by itself, with and without the main thread using it too. Every
// process must end by itself, cleanly, and leave no tokio thread behind once its last
// environment is gone (__test__/fixtures/workers/pool.mjs).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pool = join(here, 'fixtures', 'workers', 'pool.mjs');
const packRoot = join(here, 'fixtures', 'js-pack');
// Generous for a loaded 2-core machine; a process still running then is a hang.
const PROCESS_LIMIT_MS = 40_000;

/** Runs one pool process; resolves with its exit code, signal, stdout and stderr. */
function runPool(seed, placement) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [pool, String(seed), placement, packRoot], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const limit = setTimeout(() => child.kill('SIGKILL'), PROCESS_LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      done({ seed, placement, code, signal, stdout, stderr });
    });
  });
}

test('worker threads: loaded, used and ended in any order, no crash, no hang, no tokio thread left', { timeout: 120_000 }, async () => {
  const base = Date.now() % 100_000;
  const runs = [];
  for (let at = 0; at < 8; at += 1) runs.push([base + at, at % 4 === 3 ? 'beside' : 'alone']);
  // Two processes at a time: enough to overlap, few enough for a 2-core machine.
  const results = [];
  for (let at = 0; at < runs.length; at += 2) {
    results.push(...(await Promise.all(runs.slice(at, at + 2).map(([seed, placement]) => runPool(seed, placement)))));
  }
  for (const result of results) {
    const name = `seed ${result.seed} (${result.placement})`;
    assert.equal(result.signal, null, `${name} was killed by ${result.signal}: ${result.stderr}`);
    assert.equal(result.code, 0, `${name} exited with ${result.code}: ${result.stderr}`);
    const report = JSON.parse(result.stdout.trim().split('\n').at(-1));
    if (result.placement === 'alone') assert.equal(report.tokioThreads, 0, `${name} left tokio threads`);
  }
});
