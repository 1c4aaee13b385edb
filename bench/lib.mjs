// Shared benchmark helpers: interleaved rounds, medians, machine facts, a markdown table.
import os from 'node:os';
import { readFileSync } from 'node:fs';

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The 1-minute load average and the CPU count: a benchmark on a busy machine says so. */
export function machine() {
  let load = os.loadavg()[0];
  try {
    load = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    // not Linux: os.loadavg() is what there is
  }
  return { cpus: os.cpus().length, load, node: process.version };
}

/**
 * Times each candidate `rounds` times, interleaved (A, B, A, B, …) so drift in machine load
 * hits both alike; each round runs `fn` `inner` times. Returns median ms per call. A candidate
 * given as `{ timed(calls) }` times itself (a loop in Rust) and returns ms per call.
 */
export async function compare(candidates, { rounds = 7, inner = 1, warmup = 2 } = {}) {
  const times = Object.fromEntries(Object.keys(candidates).map((k) => [k, []]));
  const isAsync = new Map();
  for (const fn of Object.values(candidates)) {
    if (typeof fn !== 'function') continue;
    const first = fn();
    isAsync.set(fn, first instanceof Promise);
    await first;
  }
  for (let round = -warmup; round < rounds; round++) {
    for (const [name, fn] of Object.entries(candidates)) {
      if (typeof fn !== 'function') {
        const ms = fn.timed(inner);
        if (round >= 0) times[name].push(ms);
        continue;
      }
      const start = process.hrtime.bigint();
      // A synchronous candidate is not awaited: a microtask turn per call would outweigh a call
      // of well under a microsecond on both sides.
      if (isAsync.get(fn)) {
        for (let i = 0; i < inner; i++) await fn();
      } else {
        for (let i = 0; i < inner; i++) fn();
      }
      const ms = Number(process.hrtime.bigint() - start) / 1e6 / inner;
      if (round >= 0) times[name].push(ms);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

export function table(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
export const ratio = (base, x) => `${(base / x).toFixed(2)}x`;
