// Waiting, in tests, for something another process or thread brings about.
import assert from 'node:assert/strict';

/** Polls `condition` (which may be async) every 5 ms until it holds; fails after 15 s, longer than a loaded machine ever needs. */
export async function until(condition, what) {
  for (let i = 0; i < 3000; i += 1) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
}
