// The pack service's memory as a process, against the TypeScript stand-in
// (`bench/ts-service-steps.mjs`) on the same pack and the same bytes:
//
// - idle: virtual size (VmSize) and RSS after boot and one small call;
// - large bodies: BENCH_MEMORY_CALLS (50) calls with a 9 MiB body each, all sent at once on
//   their own connections at the default concurrency; the answers' statuses and the process's
//   peak RSS (VmHWM) over them. Two shapes: one long string (`echo`, answered with it) and
//   many small numbers (`count`, answered with their count), which cost a parser far more.
//   BENCH_MEMORY_SHAPES (`text,numbers`) picks them.
//
// Each shape's round boots a fresh process of each target (a peak is the process's whole
// life), alternated; BENCH_MEMORY_ROUNDS (3) rounds, every round's numbers printed.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, table } from './lib.mjs';
import { call, launch, memory, stop, TOKEN } from './processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const work = join(here, '.work', 'memory-pack');

const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_MEMORY_CALLS ?? 50);
// A comma list of the shapes to run (`text`, `numbers`), all when unset.
const SHAPES = process.env.BENCH_MEMORY_SHAPES?.split(',');
const BODY_BYTES = 9 * 1024 * 1024;

const log = (line) => process.stderr.write(`[bench memory] ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The bench's pack: `bench.echo` answers its input, `bench.count` the length of its `values`. */
function writePack() {
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'echo.mjs'), 'export default (input) => input;\n');
  writeFileSync(join(work, 'count.mjs'), 'export default (input) => ({ n: input.values.length });\n');
  const tool = (id, file, input, output) => ({ id, version: '1.0.0', input, output, modulePath: file });
  const index = {
    v: 1,
    packId: 'bench-memory',
    packVersion: '0.1.0',
    artifactVersion: '20261201.1',
    publishedAt: '2026-12-01T00:00:00.000Z',
    tools: [
      tool('bench.count', 'count.mjs', { type: 'object', properties: { values: { type: 'array', items: { type: 'integer' } } }, required: ['values'] }, { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }),
      tool('bench.echo', 'echo.mjs', { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
    ],
    guardrails: [],
    agents: [],
    flows: [],
  };
  const path = join(work, 'index.json');
  writeFileSync(path, JSON.stringify(index));
  return path;
}

function request(tool, input) {
  const body = Buffer.from(JSON.stringify({ v: 2, kind: 'invoke', tool: { id: tool }, input, ctx: { tenantId: 't1', runId: 'r1' } }));
  const head =
    'POST /v1/invoke HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
    `kindgi-pack-token: ${TOKEN}\r\ncontent-length: ${body.length}\r\n\r\n`;
  return { bytes: Buffer.concat([Buffer.from(head), body]), bodyBytes: body.length };
}

/** The two large bodies, each 9 MiB (within a few bytes), with the answer each must get. */
function shapes() {
  const envelope = request('bench.echo', { text: '' }).bodyBytes;
  const text = 'x'.repeat(BODY_BYTES - envelope);
  // Numbers 0–9 with their commas: two bytes each.
  const values = Array.from({ length: Math.floor((BODY_BYTES - envelope) / 2) }, (_, i) => i % 10);
  return [
    { key: 'text', label: 'one 9 MiB string (echo)', request: request('bench.echo', { text }), answer: { v: 2, kind: 'result', output: { text } } },
    { key: 'numbers', label: '4.7 million small numbers (count)', request: request('bench.count', { values }), answer: { v: 2, kind: 'result', output: { n: values.length } } },
  ]
    .filter((shape) => !SHAPES || SHAPES.includes(shape.key))
    .map((shape) => ({ ...shape, answer: Buffer.from(JSON.stringify(shape.answer)) }));
}

/** Idle memory after boot and one small call, then the large bodies' statuses and peak. */
async function measure(target, shape, started) {
  const running = await launch(target, (child) => started.add(child));
  try {
    const small = await call(running.port, request('bench.echo', { text: 'hi' }).bytes);
    assert.equal(small.status, 200, `${target.name}: ${small.body}`);
    await sleep(500);
    const idle = memory(running.child.pid);
    // A call without an answer (the connection reset or closed) counts as such, not as a
    // failure of the bench: a process that dies of its memory is a result.
    const answers = await Promise.all(
      Array.from({ length: CALLS }, () => call(running.port, shape.request.bytes, undefined, 300_000).catch(() => ({ status: 0 }))),
    );
    const statuses = {};
    for (const answer of answers) {
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (answer.status === 200) assert.ok(answer.body.equals(shape.answer), `${target.name}, ${shape.key}: a different answer`);
      else if (answer.status !== 0) assert.equal(answer.status, 503, `${target.name}, ${shape.key}: ${answer.status} ${answer.body.subarray(0, 200)}`);
    }
    const peak = memory(running.child.pid).hwm;
    return { idle, peak, served: statuses[200] ?? 0, refused: statuses[503] ?? 0, unanswered: statuses[0] ?? 0 };
  } finally {
    await stop(running);
  }
}

export async function run() {
  const index = writePack();
  const targets = [
    { key: 'native', name: 'native', command: [process.execPath, join(root, 'bin', 'kindgi-pack-service.mjs'), '--index', index, '--host', '127.0.0.1'] },
    { key: 'ts', name: 'TypeScript stand-in', command: [process.execPath, join(here, 'ts-service-steps.mjs'), '--index', index, '--host', '127.0.0.1'] },
  ];
  const bodies = shapes();
  const started = new Set();
  const killAll = () => started.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  process.once('exit', killAll);
  // results[shape][target]: one entry a round.
  const results = Object.fromEntries(bodies.map((s) => [s.key, Object.fromEntries(targets.map((t) => [t.key, []]))]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const shape of bodies) {
        // Alternated: whichever goes first in a round goes second in the next.
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const target of order) {
          const r = await measure(target, shape, started);
          results[shape.key][target.key].push(r);
          log(
            `round ${round + 1}/${ROUNDS} ${shape.key} ${target.name}: idle VSZ ${r.idle.vsz.toFixed(0)} MB, RSS ${r.idle.rss.toFixed(1)} MB; ` +
              `${r.served} served, ${r.refused} answered 503, ${r.unanswered} unanswered, peak RSS ${r.peak.toFixed(0)} MB`,
          );
        }
      }
    }
  } finally {
    killAll();
    process.removeListener('exit', killAll);
  }
  const cell = (list, pick, digits) => `${median(list.map(pick)).toFixed(digits)} (${list.map((r) => pick(r).toFixed(digits)).join(', ')})`;
  const row = (label, lists, pick, digits) => [label, cell(lists.native, pick, digits), cell(lists.ts, pick, digits)];
  // Idle figures from every boot of both shapes.
  const everyBoot = Object.fromEntries(targets.map((t) => [t.key, bodies.flatMap((s) => results[s.key][t.key])]));
  const rows = [
    row('idle virtual size (VmSize), MB', everyBoot, (r) => r.idle.vsz, 0),
    row('idle RSS, MB', everyBoot, (r) => r.idle.rss, 1),
    ...bodies.flatMap((shape) => [
      row(`${shape.label}: peak RSS (VmHWM), MB`, results[shape.key], (r) => r.peak, 0),
      row(`${shape.label}: served (200)`, results[shape.key], (r) => r.served, 0),
      row(`${shape.label}: answered 503`, results[shape.key], (r) => r.refused, 0),
      row(`${shape.label}: unanswered (connection closed)`, results[shape.key], (r) => r.unanswered, 0),
    ]),
  ];
  return {
    title: `Pack service memory: native against the TypeScript service's steps (bench/ts-service-steps.mjs), ${ROUNDS} alternated rounds, a fresh process each`,
    text: `${table(['measure', 'native: median (each run)', 'TypeScript stand-in: median (each run)'], rows)}

Large bodies: ${CALLS} calls, each a 9 MiB body, written at once on ${CALLS} connections from this
process, at the default concurrency (32); every 200 answer is checked. Memory from
/proc/<pid>/status: idle after boot, one small call and 500 ms (${2 * ROUNDS} boots of each); the
peak is VmHWM after the last answer.`,
  };
}
