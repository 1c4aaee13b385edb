// The pack service as a real process (`bin/kindgi-pack-service.mjs` on the JS fixture pack)
// against the limit of this machine, a bare hyper echo server (`examples/bare_echo.rs`); against
// a stand-in for the TypeScript service (`bench/ts-service-steps.mjs`: its per-call steps on
// node:http with Ajv, written here from its documentation, on the same fixture pack); and
// against the Python peer (`python -m kindgi.pack serve`, kindgi 0.1.10, on
// `__test__/fixtures/py-pack`, its venv from `scripts/python-peer.mjs`). One load generator
// (`examples/load.rs`) drives every target with the same bytes; answers are compared before
// anything is timed; load rounds are interleaved (bare hyper, native, TypeScript stand-in,
// Python, bare hyper, …) and medians reported.
//
// Knobs: BENCH_SERVICE_ROUNDS (3), BENCH_SERVICE_SECONDS (3, each measured run, after
// BENCH_SERVICE_WARMUP = 1 s of warm-up), BENCH_SERVICE_BOOTS (5), PYTHON (python3, makes the
// venv), BENCH_PY_PACK (the Python pack's folder).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPythonPeer, KINDGI_PY } from '../scripts/python-peer.mjs';
import { median, table } from './lib.mjs';
import { call, cpuMs, launch, memory, stop, TOKEN } from './processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const work = join(here, '.work');
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(root, 'target');
const examples = join(targetDir, 'release', 'examples');
const jsIndex = join(root, '__test__', 'fixtures', 'js-pack', 'index.json');
const pyPack = resolve(process.env.BENCH_PY_PACK ?? join(root, '__test__', 'fixtures', 'py-pack'));

const ROUNDS = Number(process.env.BENCH_SERVICE_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SERVICE_SECONDS ?? 3);
const WARMUP = Number(process.env.BENCH_SERVICE_WARMUP ?? 1);
const BOOTS = Number(process.env.BENCH_SERVICE_BOOTS ?? 5);

const TARGETS = { p32: 0.65, firstMs: 2, p99Ms: 3, overTs: 3 };

const log = (line) => process.stderr.write(`[bench service] ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Setup: the two cargo examples, the Python venv, the request bytes.

export function buildExamples() {
  log('cargo build --release --example bare_echo --example load');
  const built = spawnSync('cargo', ['build', '--release', '--example', 'bare_echo', '--example', 'load', '--quiet'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (built.status !== 0) throw new Error(`cargo build --release --example bare_echo --example load failed (${built.error?.message ?? `exit ${built.status}`})`);
  for (const name of ['bare_echo', 'load']) {
    if (!existsSync(join(examples, name))) throw new Error(`${join(examples, name)} was not built`);
  }
}

/** The Python peer's python (installed on first use), or why it can't run. */
function pythonPeer() {
  const index = join(pyPack, 'index.json');
  if (!existsSync(index)) return { why: `no Python fixture pack at ${pyPack}` };
  const peer = installPythonPeer(log);
  return peer.why ? peer : { python: peer.python, index };
}

export function invokeBody(input, tool = 'fixture.echo') {
  return Buffer.from(JSON.stringify({ v: 2, kind: 'invoke', tool: { id: tool }, input, ctx: { tenantId: 't1', runId: 'r1' } }));
}

/** One whole request as it goes on the wire: the same bytes for every target. */
export function wireRequest(body) {
  const head =
    'POST /v1/invoke HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
    `kindgi-pack-token: ${TOKEN}\r\ncontent-length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** One run of the load generator against `port`. */
export function load(port, requestFile, connections) {
  return new Promise((resolveLoad, reject) => {
    const args = ['--addr', `127.0.0.1:${port}`, '--request', requestFile, '--connections', String(connections), '--warmup', String(WARMUP), '--seconds', String(SECONDS)];
    // Not spawnSync: the event loop must keep reading the targets' stderr meanwhile.
    const child = spawn(join(examples, 'load'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolveLoad(JSON.parse(out)) : reject(new Error(`load exited ${code}: ${err}`))));
  });
}

// ---------------------------------------------------------------------------------------------

export async function run() {
  buildExamples();
  const peer = pythonPeer();
  if (peer.why) log(`Python peer skipped: ${peer.why}`);

  mkdirSync(work, { recursive: true });
  const smallBody = invokeBody({ text: 'hi' });
  const bigText = 'x'.repeat(100 * 1024 - '{"text":""}'.length);
  const bigBody = invokeBody({ text: bigText });
  const requests = {
    small: { file: join(work, 'echo-small.http'), bytes: wireRequest(smallBody), body: smallBody, output: { text: 'hi', n: 1 } },
    big: { file: join(work, 'echo-100kb.http'), bytes: wireRequest(bigBody), body: bigBody, output: { text: bigText, n: 1 } },
  };
  for (const r of Object.values(requests)) writeFileSync(r.file, r.bytes);

  const targets = [
    { key: 'bare', name: 'bare hyper', command: [join(examples, 'bare_echo'), '--host', '127.0.0.1', '--port', '0'] },
    { key: 'native', name: 'native', command: [process.execPath, join(root, 'bin', 'kindgi-pack-service.mjs'), '--index', jsIndex, '--host', '127.0.0.1'] },
    { key: 'ts', name: 'TypeScript stand-in', command: [process.execPath, join(here, 'ts-service-steps.mjs'), '--index', jsIndex, '--host', '127.0.0.1'] },
  ];
  if (!peer.why) {
    targets.push({ key: 'python', name: 'Python', command: [peer.python, '-m', 'kindgi.pack', 'serve', '--index', peer.index, '--host', '127.0.0.1'] });
  }
  const why = { python: peer.why };

  // Every process this section starts is ended by it, whatever happens.
  const live = {};
  const started = new Set();
  const killAll = () => started.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  process.once('exit', killAll);
  const boot = (target) => launch(target, (child) => started.add(child));
  try {
    // This process's own client warmed up first (its first calls would be JIT-cold).
    {
      const warm = await boot(targets[0]);
      for (let i = 0; i < 200; i++) await call(warm.port, requests.small.bytes);
      await stop(warm);
    }

    // Boot → listening, then the first call (timed from the `listening` line) and a second one,
    // each on a fresh connection; every target booted BOOTS times, interleaved; the last process
    // of each stays up for the load.
    const boots = Object.fromEntries(targets.map((t) => [t.key, { bootMs: [], firstMs: [], secondMs: [] }]));
    for (let b = 0; b < BOOTS; b++) {
      for (const target of targets) {
        if (why[target.key]) continue;
        let running;
        try {
          running = await boot(target);
          const first = await call(running.port, requests.small.bytes, running.listenedAt);
          const second = await call(running.port, requests.small.bytes);
          boots[target.key].bootMs.push(running.bootMs);
          boots[target.key].firstMs.push(first.ms);
          boots[target.key].secondMs.push(second.ms);
        } catch (error) {
          if (target.key !== 'python') throw error;
          why.python = `the Python peer failed: ${error.message}`;
          log(why.python);
          if (running) await stop(running);
          continue;
        }
        if (b === BOOTS - 1) live[target.key] = running;
        else await stop(running);
      }
    }
    const active = targets.filter((t) => live[t.key]);

    // Answers compared before anything is timed: bare hyper echoes the request body; the pack
    // services (native, the TypeScript stand-in, Python) answer the same bytes.
    for (const [label, r] of Object.entries(requests)) {
      const expected = Buffer.from(JSON.stringify({ v: 2, kind: 'result', output: r.output }));
      for (const t of active) {
        const answer = await call(live[t.key].port, r.bytes);
        assert.equal(answer.status, 200, `${t.name}, ${label}: status ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
        if (t.key === 'bare') assert.ok(answer.body.equals(r.body), `bare hyper, ${label}: not an echo`);
        else assert.ok(answer.body.equals(expected), `${t.name}, ${label}: a different answer: ${answer.body.toString().slice(0, 300)}`);
      }
    }

    await sleep(500);
    const idle = Object.fromEntries(active.map((t) => [t.key, memory(live[t.key].child.pid).rss]));

    const cases = [
      { key: 'echo32', label: 'echo {"text":"hi"}, 32 connections', request: requests.small, connections: 32 },
      { key: 'echo1', label: 'echo {"text":"hi"}, 1 connection', request: requests.small, connections: 1 },
      { key: 'big1', label: 'echo, 100 KB input, 1 connection', request: requests.big, connections: 1 },
      { key: 'big32', label: 'echo, 100 KB input, 32 connections', request: requests.big, connections: 32 },
    ];
    const runs = {};
    const afterLoad = Object.fromEntries(active.map((t) => [t.key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        for (const t of active) {
          const pid = live[t.key].child.pid;
          const cpuBefore = cpuMs(pid);
          const result = await load(live[t.key].port, c.request.file, c.connections);
          const cpu = cpuMs(pid) - cpuBefore;
          if (c.key === 'echo32') afterLoad[t.key].push(memory(pid).rss);
          const errors = result.errors + result.non200;
          if (errors > 0) log(`${t.name}, ${c.label}: ${result.non200} non-200 answers, ${result.errors} errors`);
          // CPU per call: the process's CPU time over warm-up and window, per call at the
          // window's rate.
          const cpuUs = (cpu * 1000) / (result.rps * (WARMUP + SECONDS));
          ((runs[c.key] ??= {})[t.key] ??= []).push({ ...result, cpuUs, errors });
          log(`round ${round + 1}/${ROUNDS} ${c.label} ${t.name}: ${result.rps.toFixed(0)} req/s, p50 ${(result.p50Us / 1000).toFixed(3)} ms, p99 ${(result.p99Us / 1000).toFixed(3)} ms`);
        }
      }
    }
    const peak = Object.fromEntries(active.map((t) => [t.key, memory(live[t.key].child.pid).hwm]));

    // -------------------------------------------------------------------------------------
    // The table: raw numbers per target, then native against bare hyper and against Python.
    const stat = (caseKey, target, field) => {
      const list = runs[caseKey]?.[target];
      return list ? median(list.map((r) => r[field])) : NaN;
    };
    const has = (key) => Boolean(live[key]);
    const num = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
    const rps = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
    const ms = (x) => (Number.isFinite(x) ? (x >= 10 ? x.toFixed(1) : x.toFixed(2)) : '—');
    const share = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${((100 * a) / b).toFixed(0)}%` : '—');
    const times = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : '—');

    const rows = [];
    const metric = (label, values, format) => {
      const v = (k) => (has(k) ? values[k] : NaN);
      rows.push([
        label,
        format(v('bare')),
        format(v('native')),
        format(v('ts')),
        format(v('python')),
        times(v('native'), v('bare')),
        times(v('native'), v('ts')),
        times(v('native'), v('python')),
      ]);
    };
    for (const c of cases) {
      metric(`${c.label}: req/s`, Object.fromEntries(active.map((t) => [t.key, stat(c.key, t.key, 'rps')])), rps);
      metric(`${c.label}: p50 ms`, Object.fromEntries(active.map((t) => [t.key, stat(c.key, t.key, 'p50Us') / 1000])), ms);
      metric(`${c.label}: p99 ms`, Object.fromEntries(active.map((t) => [t.key, stat(c.key, t.key, 'p99Us') / 1000])), ms);
      metric(`${c.label}: CPU per call µs (≈)`, Object.fromEntries(active.map((t) => [t.key, stat(c.key, t.key, 'cpuUs')])), (x) => num(x, 0));
    }
    const bootMedian = (field) => Object.fromEntries(active.map((t) => [t.key, median(boots[t.key][field])]));
    metric('boot: spawn to `listening`, ms', bootMedian('bootMs'), ms);
    metric('first call: `listening` line to its answer, ms (new connection)', bootMedian('firstMs'), ms);
    metric('second call, ms (new connection)', bootMedian('secondMs'), ms);
    metric('RSS idle, MB', idle, (x) => num(x, 1));
    metric('RSS right after the 32-connection echo load, MB (max of rounds)', Object.fromEntries(active.map((t) => [t.key, Math.max(...afterLoad[t.key])])), (x) => num(x, 1));
    metric('peak RSS (VmHWM) over the whole run, MB', peak, (x) => num(x, 1));

    const errorsSeen = Object.entries(runs).flatMap(([c, byTarget]) =>
      Object.entries(byTarget).flatMap(([t, list]) => {
        const n = list.reduce((s, r) => s + r.errors, 0);
        return n > 0 ? [`${t} ${c}: ${n}`] : [];
      }),
    );

    const n32 = stat('echo32', 'native', 'rps');
    const b32 = stat('echo32', 'bare', 'rps');
    const first = median(boots.native.firstMs);
    const p99 = stat('echo32', 'native', 'p99Us') / 1000;
    const verdict = (ok) => (ok ? 'met' : 'MISSED');
    const overTs = (caseKey) => {
      const n = stat(caseKey, 'native', 'rps');
      const t = stat(caseKey, 'ts', 'rps');
      return `${times(n, t)} (${rps(n)} against ${rps(t)} req/s): ${verdict(n >= TARGETS.overTs * t)}`;
    };
    const targetLines = [
      `- echo at 32 connections ≥ ${TARGETS.p32 * 100}% of bare hyper: ${share(n32, b32)} (${rps(n32)} of ${rps(b32)} req/s): ${verdict(n32 >= TARGETS.p32 * b32)}`,
      `- first call after boot ≤ ${TARGETS.firstMs} ms: ${ms(first)} ms (median of ${BOOTS} boots; worst ${ms(Math.max(...boots.native.firstMs))} ms): ${verdict(first <= TARGETS.firstMs)}`,
      `- p99 at 32 connections < ${TARGETS.p99Ms} ms: ${ms(p99)} ms: ${verdict(p99 < TARGETS.p99Ms)}`,
      `- 100 KB input, 1 connection, ≥ ${TARGETS.overTs}x the TypeScript stand-in's req/s: ${overTs('big1')}`,
      `- 100 KB input, 32 connections, ≥ ${TARGETS.overTs}x the TypeScript stand-in's req/s: ${overTs('big32')}`,
    ];

    return {
      title: `Pack service process: native against bare hyper (this machine's limit), the TypeScript service's steps (bench/ts-service-steps.mjs) and the Python peer (kindgi ${KINDGI_PY}), median of ${ROUNDS} interleaved rounds of ${SECONDS} s (after ${WARMUP} s warm-up)`,
      text: `${table(
        ['measure', 'bare hyper', 'native', 'TypeScript stand-in', `Python (kindgi ${KINDGI_PY})`, 'native / bare hyper', 'native / TypeScript stand-in', 'native / Python'],
        rows,
      )}

Ratios are native divided by the other column: above 1 is better for req/s, below 1 for times,
CPU and memory.

The TypeScript stand-in is bench/ts-service-steps.mjs: the TypeScript service's per-call steps on
node:http with Ajv as that package sets it up, written here from its documentation (not the
package; its records go to a logger that writes nothing).

${why.python ? `Python peer not measured: ${why.python}\n\n` : ''}Targets:

${targetLines.join('\n')}

${errorsSeen.length ? `Errors or non-200 answers during load: ${errorsSeen.join(', ')}` : 'No errors or non-200 answers during load.'}
Load: examples/load.rs (one tokio thread, keep-alive, one request in flight per connection);
boot and first calls: median of ${BOOTS} boots, calls on fresh connections from this process.`,
    };
  } finally {
    await Promise.all(Object.values(live).map(stop));
    killAll();
    process.removeListener('exit', killAll);
  }
}
