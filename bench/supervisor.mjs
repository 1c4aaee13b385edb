// The supervisor (`createPackServiceSupervisor`) as `kindgi dev` runs it: echo through its front
// against the same child called directly, at 32 and 1 connections (one load generator,
// `examples/load.rs`, for both, rounds interleaved), and the swap: from `start()` to the first
// call the new child answers, against that child's own boot (spawn to `listening`). The same
// echo through a second supervisor whose child is the bare hyper echo server
// (`examples/bare_echo.rs`) against that server called directly: the front's own cost at the
// machine's limit.
//
// Knobs: BENCH_SUPERVISOR_ROUNDS (3), BENCH_SUPERVISOR_SECONDS (3, after 1 s of warm-up),
// BENCH_SUPERVISOR_SWAPS (5).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPackServiceSupervisor } from '../lib/pack-service.js';
import { median, table } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const work = join(here, '.work');
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(root, 'target');
const loadBin = join(targetDir, 'release', 'examples', 'load');
const bareBin = join(targetDir, 'release', 'examples', 'bare_echo');
const packRoot = join(root, '__test__', 'fixtures', 'js-pack');
const ROUNDS = Number(process.env.BENCH_SUPERVISOR_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SUPERVISOR_SECONDS ?? 3);
const SWAPS = Number(process.env.BENCH_SUPERVISOR_SWAPS ?? 5);
const TARGETS = { throughput: 0.8, swapOverMs: 20 };

const log = (line) => process.stderr.write(`[bench supervisor] ${line}\n`);

function requestFile(token, name) {
  const body = JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: { text: 'hi' }, ctx: { tenantId: 't1', runId: 'r1' } });
  const head = `POST /v1/invoke HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nkindgi-pack-token: ${token}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;
  const file = join(work, name);
  writeFileSync(file, head + body);
  return file;
}

function load(port, file, connections) {
  return new Promise((done, reject) => {
    const args = ['--addr', `127.0.0.1:${port}`, '--request', file, '--connections', String(connections), '--warmup', '1', '--seconds', String(SECONDS)];
    const child = spawn(loadBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? done(JSON.parse(out)) : reject(new Error(`load exited ${code}`))));
  });
}

/** One call through the front, resolving with the answer's artifact version. */
async function artifactVia(url, token) {
  const res = await fetch(`${url}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': token },
    body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'fixture.echo' }, input: { text: 'swap' }, ctx: { tenantId: 't', runId: 'r' } }),
  });
  await res.text();
  return res.headers.get('kindgi-artifact-version');
}

export async function run() {
  const built = spawnSync('cargo', ['build', '--release', '--example', 'load', '--example', 'bare_echo', '--quiet'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (built.status !== 0) throw new Error('cargo build --release --example load --example bare_echo failed');
  mkdirSync(work, { recursive: true });
  const indexV1 = join(packRoot, 'index.json');
  const indexV2 = join(work, 'supervisor-v2.json');
  writeFileSync(indexV2, JSON.stringify({ ...JSON.parse(readFileSync(indexV1, 'utf8')), artifactVersion: 'swap.2' }));

  let startedAt = 0;
  const bootMs = [];
  const sup = createPackServiceSupervisor({
    command: [process.execPath, join(root, 'bin', 'kindgi-pack-service.mjs')],
    moduleRoot: packRoot,
    env: async () => ({ PATH: process.env.PATH ?? '' }),
    onEvent: (e) => {
      if (e.kind === 'started') bootMs.push(performance.now() - startedAt);
    },
  });
  // Any process with the pack service's process contract can be the child: bare hyper echoes
  // every body and ignores the flags it is given.
  const bareSup = createPackServiceSupervisor({ command: [bareBin], moduleRoot: packRoot, env: async () => ({ PATH: process.env.PATH ?? '' }) });
  try {
    const front = await sup.listen();
    const bareFront = await bareSup.listen();
    const bare = await bareSup.start(indexV1);
    if (bare.kind !== 'ok') throw new Error(`bare hyper did not boot: ${bare.error.problems.join('; ')}`);
    startedAt = performance.now();
    const first = await sup.start(indexV1);
    if (first.kind !== 'ok') throw new Error(`the child did not boot: ${first.error.problems.join('; ')}`);
    const file = requestFile(sup.token, 'supervisor-echo.http');
    const bareFile = requestFile(bareSup.token, 'supervisor-bare.http');

    const results = { front32: [], direct32: [], front1: [], direct1: [], bareFront32: [], bareDirect32: [], bareFront1: [], bareDirect1: [] };
    for (let round = 1; round <= ROUNDS; round += 1) {
      const port = first.value.port;
      for (const [key, target, connections, request] of [
        ['direct32', port, 32, file],
        ['front32', front.port, 32, file],
        ['bareDirect32', bare.value.port, 32, bareFile],
        ['bareFront32', bareFront.port, 32, bareFile],
        ['direct1', port, 1, file],
        ['front1', front.port, 1, file],
        ['bareDirect1', bare.value.port, 1, bareFile],
        ['bareFront1', bareFront.port, 1, bareFile],
      ]) {
        const r = await load(target, request, connections);
        if (r.non200 > 0 || r.errors > 0) throw new Error(`${key}: ${r.non200} non-200 answers, ${r.errors} errors`);
        results[key].push(r);
        log(`round ${round}/${ROUNDS} ${key}: ${Math.round(r.rps)} req/s, p50 ${(r.p50Us / 1000).toFixed(3)} ms, p99 ${(r.p99Us / 1000).toFixed(3)} ms`);
      }
    }

    // Swaps: start() to the first call the new child answers, calling through the front.
    const swapMs = [];
    const swapBootMs = [];
    for (let i = 0; i < SWAPS; i += 1) {
      const index = i % 2 === 0 ? indexV2 : indexV1;
      const wanted = i % 2 === 0 ? 'swap.2' : '20260101.1';
      bootMs.length = 0;
      startedAt = performance.now();
      const swapping = sup.start(index);
      let seen;
      do seen = await artifactVia(front.url, sup.token);
      while (seen !== wanted);
      swapMs.push(performance.now() - startedAt);
      await swapping;
      swapBootMs.push(bootMs[0]);
      log(`swap ${i + 1}/${SWAPS}: ${swapMs.at(-1).toFixed(1)} ms to the new child's first answer, its boot ${bootMs[0].toFixed(1)} ms`);
    }

    const m = (key, field) => median(results[key].map((r) => r[field]));
    const rows = [];
    for (const [label, f, d] of [
      ['32 connections', 'front32', 'direct32'],
      ['1 connection', 'front1', 'direct1'],
      ['32 connections, bare hyper as the child', 'bareFront32', 'bareDirect32'],
      ['1 connection, bare hyper as the child', 'bareFront1', 'bareDirect1'],
    ]) {
      rows.push([`echo, ${label}: req/s`, Math.round(m(d, 'rps')).toLocaleString('en'), Math.round(m(f, 'rps')).toLocaleString('en'), `${(m(f, 'rps') / m(d, 'rps')).toFixed(2)}x`]);
      rows.push([`echo, ${label}: p50 ms`, (m(d, 'p50Us') / 1000).toFixed(2), (m(f, 'p50Us') / 1000).toFixed(2), `${(m(f, 'p50Us') / m(d, 'p50Us')).toFixed(2)}x`]);
      rows.push([`echo, ${label}: p99 ms`, (m(d, 'p99Us') / 1000).toFixed(2), (m(f, 'p99Us') / 1000).toFixed(2), `${(m(f, 'p99Us') / m(d, 'p99Us')).toFixed(2)}x`]);
    }
    const swap = median(swapMs);
    const boot = median(swapBootMs);
    // Per swap, then the median: boots vary by tens of milliseconds on a shared machine.
    const over = median(swapMs.map((ms, i) => ms - swapBootMs[i]));
    const ratio32 = m('front32', 'rps') / m('direct32', 'rps');
    const ratio1 = m('front1', 'rps') / m('direct1', 'rps');
    const verdict = (ok) => (ok ? 'met' : 'MISSED');
    const text = [
      table(['measure', 'direct to the child', 'through the front', 'front / direct'], rows),
      '',
      `Swap (median of ${SWAPS}): start() to the first call the new child answers ${swap.toFixed(1)} ms; that child's boot (start() to its started event) ${boot.toFixed(1)} ms; the difference, swap by swap, ${over.toFixed(1)} ms.`,
      '',
      'Targets:',
      '',
      `- through the front at least ${TARGETS.throughput}x of direct: ${ratio32.toFixed(2)}x at 32 connections, ${ratio1.toFixed(2)}x at 1: ${verdict(ratio32 >= TARGETS.throughput && ratio1 >= TARGETS.throughput)}`,
      `- swap within the child's boot plus ${TARGETS.swapOverMs} ms: +${over.toFixed(1)} ms: ${verdict(over < TARGETS.swapOverMs)}`,
    ].join('\n');
    return { title: `Supervisor: through its front against direct to the child, median of ${ROUNDS} interleaved rounds of ${SECONDS} s`, text };
  } finally {
    await Promise.all([sup.close(), bareSup.close()]);
  }
}
