// `kindgi-pack-dev` as a spawned process with --json: its events, waited for by kind.
import { spawn } from 'node:child_process';
import { after } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onLines } from './lines.mjs';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'kindgi-pack-dev.mjs');
const launched = new Set();
// A test that fails midway leaves its CLI running: SIGTERM closes it and its child.
after(() => {
  for (const child of launched) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

/** Spawns the CLI with --json; `nth(kind, count)` resolves with the count-th event of that kind. */
export function launchDev(args, env = process.env) {
  const child = spawn(process.execPath, [bin, '--json', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  launched.add(child);
  const events = [];
  const waiting = [];
  onLines(child.stdout, (line) => {
    const event = JSON.parse(line);
    events.push(event);
    for (const w of waiting.filter((w) => w.kind === event.kind && events.filter((e) => e.kind === w.kind).length >= w.count)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(event);
    }
  });
  // 'close', not 'exit': every line on stdout has been read by then.
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  const nth = (kind, count) => {
    const seen = events.filter((e) => e.kind === kind);
    if (seen.length >= count) return Promise.resolve(seen[count - 1]);
    return new Promise((resolve) => waiting.push({ kind, count, resolve }));
  };
  return { child, events, exited, nth };
}
