// The pack service with KINDGI_PACK_SERVICE_WORKERS=2 against 1 (the same bin, the JS fixture
// pack), and the 100 KB echo against the TypeScript stand-in (bench/ts-service-steps.mjs) in the
// same run. Load from examples/load.rs at 32 connections; rounds interleaved (1 worker, 2
// workers, stand-in, …) and medians reported. Per-thread CPU (from /proc) says where the time
// of the 2-worker process goes.
//
// Knobs: as bench/service.mjs (BENCH_SERVICE_ROUNDS, BENCH_SERVICE_SECONDS, BENCH_SERVICE_WARMUP),
// and BENCH_CPU_MS (1): the JavaScript each call of the CPU case spends.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, table } from './lib.mjs';
import { call, cpuMs, launch, memory, stop } from './processes.mjs';
import { buildExamples, invokeBody, load, wireRequest } from './service.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const work = join(here, '.work');
const jsIndex = join(root, '__test__', 'fixtures', 'js-pack', 'index.json');

const ROUNDS = Number(process.env.BENCH_SERVICE_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SERVICE_SECONDS ?? 3);
const WARMUP = Number(process.env.BENCH_SERVICE_WARMUP ?? 1);
const CPU_MS = Number(process.env.BENCH_CPU_MS ?? 1);
const CONNECTIONS = 32;

const TARGETS = { cpu: 1.7, echo: 0.95, overTs: 3 };

const log = (line) => process.stderr.write(`[bench workers] ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Iterations of fixture.cpu's loop that take `ms` on this machine (its loop, timed here). */
function calibrate(ms) {
  const spin = (iterations) => {
    let x = 1;
    for (let i = 0; i < iterations; i++) x = (x * 1664525 + 1013904223 + i) % 4294967296;
    return x;
  };
  let iterations = 1000;
  for (;;) {
    const start = process.hrtime.bigint();
    spin(iterations);
    const took = Number(process.hrtime.bigint() - start) / 1e6;
    if (took >= 20) return Math.round((iterations * ms) / took);
    iterations *= 2;
  }
}

/** CPU ms per thread of `pid`, by thread name (threads of one name summed), from /proc. */
function threadCpu(pid) {
  const byName = {};
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      (byName[name] ??= []).push({ tid, ms });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

/** Each thread's CPU over a run, as a share of one core, busiest first. */
function threadShares(before, after, seconds) {
  const rows = [];
  for (const [name, threads] of Object.entries(after)) {
    for (const { tid, ms } of threads) {
      const was = before[name]?.find((t) => t.tid === tid)?.ms ?? 0;
      const share = (ms - was) / (seconds * 1000);
      if (share >= 0.02) rows.push({ name, share });
    }
  }
  return rows.sort((a, b) => b.share - a.share);
}

export async function run() {
  buildExamples();
  mkdirSync(work, { recursive: true });
  const iterations = calibrate(CPU_MS);
  log(`fixture.cpu at ${iterations} iterations ≈ ${CPU_MS} ms of JavaScript a call`);
  const bigText = 'x'.repeat(100 * 1024 - '{"text":""}'.length);
  const bodies = {
    cpu: invokeBody({ iterations }, 'fixture.cpu'),
    echo: invokeBody({ text: 'hi' }),
    big: invokeBody({ text: bigText }),
  };
  const files = {};
  for (const [key, body] of Object.entries(bodies)) {
    files[key] = join(work, `workers-${key}.http`);
    writeFileSync(files[key], wireRequest(body));
  }
  const native = [process.execPath, join(root, 'bin', 'kindgi-pack-service.mjs'), '--index', jsIndex, '--host', '127.0.0.1'];
  const targets = [
    { key: 'w1', name: '1 worker', command: native, env: { KINDGI_PACK_SERVICE_WORKERS: '1' } },
    { key: 'w2', name: '2 workers', command: native, env: { KINDGI_PACK_SERVICE_WORKERS: '2' } },
    { key: 'ts', name: 'TypeScript stand-in', command: [process.execPath, join(here, 'ts-service-steps.mjs'), '--index', jsIndex, '--host', '127.0.0.1'] },
  ];
  const cases = [
    { key: 'cpu', label: `fixture.cpu, ${CPU_MS} ms of JavaScript a call`, targets: ['w1', 'w2'] },
    { key: 'echo', label: 'echo {"text":"hi"}', targets: ['w1', 'w2'] },
    { key: 'big', label: 'echo, 100 KB input', targets: ['w1', 'w2', 'ts'] },
  ];

  const started = new Set();
  const killAll = () => started.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  process.once('exit', killAll);
  const live = {};
  try {
    for (const target of targets) live[target.key] = await launch(target, (child) => started.add(child));
    // The same answers from every target before anything is timed.
    for (const key of ['echo', 'big']) {
      const answers = await Promise.all(targets.map((t) => call(live[t.key].port, wireRequest(bodies[key]))));
      for (const a of answers) assert.equal(a.status, 200);
      assert.ok(answers.every((a) => a.body.equals(answers[0].body)), `${key}: the targets answer differently`);
    }
    await sleep(500);
    const idle = Object.fromEntries(targets.map((t) => [t.key, memory(live[t.key].child.pid).rss]));
    const runs = {};
    const threads = {};
    const afterLoad = { w1: [], w2: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        for (const key of c.targets) {
          const pid = live[key].child.pid;
          const cpuBefore = cpuMs(pid);
          const before = threadCpu(pid);
          const result = await load(live[key].port, files[c.key], CONNECTIONS);
          const cpu = cpuMs(pid) - cpuBefore;
          if (key in afterLoad) afterLoad[key].push(memory(pid).rss);
          if (round === ROUNDS - 1) threads[`${c.key}/${key}`] = threadShares(before, threadCpu(pid), WARMUP + SECONDS);
          const errors = result.errors + result.non200;
          if (errors > 0) log(`${key}, ${c.label}: ${result.non200} non-200 answers, ${result.errors} errors`);
          ((runs[c.key] ??= {})[key] ??= []).push({ ...result, cores: cpu / ((WARMUP + SECONDS) * 1000), errors });
          log(`round ${round + 1}/${ROUNDS} ${c.label} ${key}: ${result.rps.toFixed(0)} req/s, p99 ${(result.p99Us / 1000).toFixed(2)} ms, ${(cpu / ((WARMUP + SECONDS) * 1000)).toFixed(2)} cores`);
        }
      }
    }
    const stat = (c, key, field) => (runs[c]?.[key] ? median(runs[c][key].map((r) => r[field])) : NaN);
    const rps = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
    const ms = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');
    const times = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : '—');
    const rows = [];
    for (const c of cases) {
      rows.push([`${c.label}: req/s`, rps(stat(c.key, 'w1', 'rps')), rps(stat(c.key, 'w2', 'rps')), c.targets.includes('ts') ? rps(stat(c.key, 'ts', 'rps')) : '', times(stat(c.key, 'w2', 'rps'), stat(c.key, 'w1', 'rps'))]);
      rows.push([`${c.label}: p99 ms`, ms(stat(c.key, 'w1', 'p99Us') / 1000), ms(stat(c.key, 'w2', 'p99Us') / 1000), c.targets.includes('ts') ? ms(stat(c.key, 'ts', 'p99Us') / 1000) : '', times(stat(c.key, 'w2', 'p99Us'), stat(c.key, 'w1', 'p99Us'))]);
      rows.push([`${c.label}: cores busy`, ms(stat(c.key, 'w1', 'cores')), ms(stat(c.key, 'w2', 'cores')), c.targets.includes('ts') ? ms(stat(c.key, 'ts', 'cores')) : '', '']);
    }
    rows.push(['RSS idle, MB', idle.w1.toFixed(1), idle.w2.toFixed(1), idle.ts.toFixed(1), times(idle.w2, idle.w1)]);
    const loaded = { w1: Math.max(...afterLoad.w1), w2: Math.max(...afterLoad.w2) };
    rows.push(['RSS after load, MB (max of rounds)', loaded.w1.toFixed(1), loaded.w2.toFixed(1), '', times(loaded.w2, loaded.w1)]);

    const verdict = (ok) => (ok ? 'met' : 'MISSED');
    const ratio = (c) => stat(c, 'w2', 'rps') / stat(c, 'w1', 'rps');
    const overTs = stat('big', 'w2', 'rps') / stat('big', 'ts', 'rps');
    const targetLines = [
      `- ${CPU_MS} ms of JavaScript a call: 2 workers ≥ ${TARGETS.cpu}x 1 worker: ${ratio('cpu').toFixed(2)}x: ${verdict(ratio('cpu') >= TARGETS.cpu)}`,
      `- echo: 2 workers ≥ ${TARGETS.echo}x 1 worker: ${ratio('echo').toFixed(2)}x: ${verdict(ratio('echo') >= TARGETS.echo)}`,
      `- 100 KB echo: 2 workers ≥ ${TARGETS.overTs}x the TypeScript stand-in: ${overTs.toFixed(2)}x (1 worker: ${(stat('big', 'w1', 'rps') / stat('big', 'ts', 'rps')).toFixed(2)}x): ${verdict(overTs >= TARGETS.overTs)}`,
    ];
    const threadLines = Object.entries(threads).map(
      ([k, list]) => `- ${k}: ${list.map((t) => `${t.name} ${(t.share * 100).toFixed(0)}%`).join(', ')}`,
    );
    const errorsSeen = Object.entries(runs).flatMap(([c, byKey]) =>
      Object.entries(byKey).flatMap(([k, list]) => {
        const n = list.reduce((s, r) => s + r.errors, 0);
        return n > 0 ? [`${k} ${c}: ${n}`] : [];
      }),
    );
    return {
      title: `Pack service workers: KINDGI_PACK_SERVICE_WORKERS=2 against 1, ${CONNECTIONS} connections, median of ${ROUNDS} interleaved rounds of ${SECONDS} s (after ${WARMUP} s warm-up)`,
      text: `${table(['measure', '1 worker', '2 workers', 'TypeScript stand-in', '2 workers / 1 worker'], rows)}

"cores busy" is the process's CPU time over the run's warm-up and window, in cores.

Targets:

${targetLines.join('\n')}

CPU per thread in the last round (share of one core; threads under 2% left out):

${threadLines.join('\n')}

${errorsSeen.length ? `Errors or non-200 answers during load: ${errorsSeen.join(', ')}` : 'No errors or non-200 answers during load.'}`,
    };
  } finally {
    await Promise.all(Object.values(live).map(stop));
    killAll();
    process.removeListener('exit', killAll);
  }
}
