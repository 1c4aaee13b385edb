// Seeded random HTTP requests for the fixture pack (js-pack), shared by the service's and the
// supervisor's randomized tests: mostly calls with one thing odd, sometimes a caller that leaves.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { PACK_ERROR_CODES } from '../../lib/protocol.js';

/** SplitMix64, on BigInt: the same seed gives the same requests. */
export function rng(seed) {
  let state = BigInt(seed);
  const mask = (1n << 64n) - 1n;
  const next = () => {
    state = (state + 0x9e3779b97f4a7c15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    return z ^ (z >> 31n);
  };
  const below = (n) => Number(next() % BigInt(n));
  return { below, oneIn: (n) => below(n) === 0, pick: (items) => items[below(items.length)] };
}

function randomValue(r, depth) {
  switch (r.below(depth > 0 ? 7 : 5)) {
    case 0: return null;
    case 1: return r.oneIn(2);
    case 2: return r.pick([0, -1, 1.5, 1e308, 2 ** 53 + 2, 7]);
    case 3:
    case 4: return r.pick(['', 'hi', 'é', '\u{1F600}', 'x'.repeat(300)]);
    case 5: return Array.from({ length: r.below(4) }, () => randomValue(r, depth - 1));
    default: return Object.fromEntries(Array.from({ length: r.below(4) }, () => [r.pick(['text', 'n', 'ms', 'kb', 'iterations', '__proto__', 'x']), randomValue(r, depth - 1)]));
  }
}

/** A fitting input for most tools, a random value sometimes. */
function randomInput(r, tool) {
  if (r.oneIn(5)) return randomValue(r, 3);
  switch (tool) {
    case 'fixture.echo': return r.oneIn(2) ? { text: 'hi' } : { text: 'hi', n: r.below(5) };
    case 'fixture.sleep': return { ms: r.below(30) };
    case 'fixture.cpu': return { iterations: r.below(2000) };
    case 'fixture.big': return { kb: r.below(64) };
    case 'fixture.bad-output': return {};
    default: return {};
  }
}

export function randomRequest(r, token) {
  const tool = r.pick(['fixture.echo', 'fixture.echo', 'fixture.sleep', 'fixture.cpu', 'fixture.big', 'fixture.bad-output', 'fixture.ctx', 'fixture.env', 'fixture.throw', 'fixture.versioned', 'fixture.nope']);
  let message;
  switch (r.below(10)) {
    case 0: message = { v: 2, kind: 'check', checkId: r.pick(['fixture.checks.max-len', 'nope']), payload: randomValue(r, 2) }; break;
    case 1: message = { v: r.pick([1, 3, '2']), kind: 'invoke', tool: { id: tool }, input: {}, ctx: { tenantId: 't', runId: 'r' } }; break;
    case 2: message = { v: 2, kind: r.pick(['invoke', 'nope']), tool: randomValue(r, 1), input: randomValue(r, 2), ctx: randomValue(r, 1) }; break;
    default: message = { v: 2, kind: 'invoke', tool: r.oneIn(6) ? { id: tool, version: r.pick(['1.2.0', '9']) } : { id: tool }, input: randomInput(r, tool), ctx: { tenantId: 't', runId: 'r' } };
  }
  let body = Buffer.from(JSON.stringify(message));
  if (r.oneIn(10)) body = Buffer.from(body.toString().slice(0, r.below(body.length)));
  if (r.oneIn(15)) body = Buffer.concat([body, Buffer.from([0xff, 0xfe])]);
  const headers = ['host: x'];
  if (!r.oneIn(20)) headers.push(`kindgi-pack-token: ${r.oneIn(12) ? 'wrong' : token}`);
  if (!r.oneIn(20)) headers.push(`content-type: ${r.oneIn(10) ? 'text/plain' : 'application/json'}`);
  headers.push(`kindgi-timeout-ms: ${r.oneIn(6) ? r.pick(['5', '0', 'abc', '99999999999']) : '5000'}`);
  if (r.oneIn(4)) headers.push('traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  // A body shorter than its content-length keeps the service waiting for the rest (up to
  // Node's 300 s): such a caller gives up and leaves.
  const short = r.oneIn(25);
  headers.push(`content-length: ${short ? body.length + 3 : body.length}`);
  const method = r.oneIn(12) ? r.pick(['GET', 'PUT']) : 'POST';
  const path = r.oneIn(12) ? r.pick(['/v1/info', '/readyz', '/nope']) : '/v1/invoke';
  const head = Buffer.from(`${method} ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
  // Some callers leave as soon as they have sent their request.
  return { bytes: Buffer.concat([head, body]), leaves: short || r.oneIn(15) };
}

/** Sends `bytes`; resolves with the first response's status and body, or null on a close. */
export function send(port, { bytes, leaves }) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close within 10 s for ${JSON.stringify(bytes.toString())}`));
    }, 10_000);
    const done = (value) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    socket.on('data', (chunk) => {
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (got.length < end + 4 + length) return;
      done({ status: Number(head.slice(9, 12)), head, body: got.subarray(end + 4, end + 4 + length).toString() });
    });
    socket.on('error', () => done(null));
    socket.on('close', () => done(null));
    socket.write(bytes, () => {
      if (leaves) done(null);
    });
  });
}

/** How many requests a randomized test sends: `fallback`, or `KINDGI_RANDOM_CASES` by hand. */
export const randomCases = (fallback) => Number(process.env.KINDGI_RANDOM_CASES) || fallback;

const codes = new Set(PACK_ERROR_CODES);

/**
 * Sends `cases` seeded random requests to `port`, 32 at a time, and checks each answer: an
 * expected status (never 500 or 502: nothing here fails the service or kills its process), and
 * every invoke 200 a protocol v2 message with a known error code. Returns the count of each
 * status (0: closed, or the caller left).
 */
export async function sendRandomRequests(port, token, cases, seed) {
  const r = rng(seed);
  const statuses = new Map();
  for (let start = 0; start < cases; start += 32) {
    const batch = Array.from({ length: Math.min(32, cases - start) }, () => randomRequest(r, token));
    const answers = await Promise.all(batch.map((request) => send(port, request)));
    answers.forEach((answer, i) => {
      const status = answer?.status ?? 0;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (answer === null) return;
      const sent = JSON.stringify(batch[i].bytes.toString());
      assert.ok([200, 400, 401, 404, 405, 413, 415, 503].includes(status), `status ${status} (${answer.body}) for ${sent}`);
      if (status === 200 && /\r\nkindgi-duration-ms:/i.test(answer.head)) {
        const message = JSON.parse(answer.body);
        assert.equal(message.v, 2, answer.body);
        assert.ok(['result', 'error', 'check-result'].includes(message.kind), answer.body);
        if (message.kind === 'error') assert.ok(codes.has(message.code), answer.body);
      }
    });
  }
  return statuses;
}
