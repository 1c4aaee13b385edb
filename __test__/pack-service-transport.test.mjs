// The same raw bytes to the service served by hyper (`listen`) and by Node's own HTTP server
// with `service.handle` (the transport the TypeScript service has): seeded random requests
// with odd methods, targets, versions, headers, framing and `Expect`, written whole or in
// pieces, some with a second request behind them. Each gets the same answers from both: the
// status, the headers (as a set: the README's Known differences give hyper's header case and
// order), the body, and whether the connection closed. Left out are the requests the README
// lists as read differently (see "HTTP parsing is hyper's, not Node's"), and the framing of
// the bodiless refusals (Node's are chunked). KINDGI_RANDOM_CASES runs more.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPackService } from '../lib/pack-service.js';
import { exchange } from './helpers/raw-exchange.mjs';
import { randomCases, rng } from './helpers/random-requests.mjs';

const TOKEN = 'transport-token';
const packDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'js-pack');

const message = (tool, input) => JSON.stringify({ v: 2, kind: 'invoke', tool: { id: tool }, input, ctx: { tenantId: 't', runId: 'r' } });

/** A request's bytes (in one or two pieces) and how many answers it is to get. */
function randomExchange(r) {
  const version = r.oneIn(6) ? r.pick(['HTTP/1.0', 'http/1.1']) : 'HTTP/1.1';
  const method = r.oneIn(4)
    ? r.pick(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'SEARCH', 'TRACE', 'M-SEARCH', 'PROPFIND', 'post', 'FOO'])
    : 'POST';
  const target = r.oneIn(3)
    ? r.pick(['/v1/invoke?x=1', '/v1/invoke/', '//v1/invoke', '/V1/invoke', 'http://x/v1/invoke', '*', '/v1/info', '/v1/info?q=1', '/healthz', '/readyz', '/healthz/', '/v1/%69nvoke', '/v1/invoke;x'])
    : '/v1/invoke';
  const body = Buffer.from(
    r.oneIn(8)
      ? r.pick(['', '{', 'null', '[]', '{"v":2}', '\u00e9', '{"v":2,"kind":"invoke"}', '{"v":2,"kind":"invoke","tool":{"id":1}}'])
      : message(r.pick(['fixture.echo', 'fixture.echo', 'fixture.throw', 'fixture.nope', 'fixture.bad-output', 'fixture.versioned']), r.oneIn(5) ? {} : { text: r.pick(['hi', 'é', '', '\u{1F600}']) }),
  );
  const headers = [];
  if (!r.oneIn(10)) headers.push(r.pick(['host: x', 'Host: x', 'HOST:x', 'host:', 'host: x\r\nhost: y']));
  headers.push(
    r.pick([
      `kindgi-pack-token: ${TOKEN}`,
      `Kindgi-Pack-Token:${TOKEN}`,
      `kindgi-pack-token:  ${TOKEN}  `,
      `kindgi-pack-token: ${TOKEN}\r\nkindgi-pack-token: ${TOKEN}`,
      `kindgi-pack-token: ${TOKEN}\r\nkindgi-pack-token: other`,
      'kindgi-pack-token: other',
      `kindgi-pack-token: ${TOKEN}x`,
      'kindgi-pack-token:',
    ]),
  );
  const contentType = r.pick([
    'application/json', 'application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json ',
    'application/jsonx', 'application/json;', 'text/plain', '', 'application/json\r\ncontent-type: text/plain',
    'application/json, text/plain', 'application/vnd.api+json', null,
  ]);
  if (contentType !== null) headers.push(`content-type: ${contentType}`);
  let tail;
  const hex = body.length.toString(16);
  // A transfer coding on HTTP/1.0 is read differently (README).
  switch (version === 'HTTP/1.0' ? 7 : r.below(8)) {
    case 0:
      headers.push(r.pick(['transfer-encoding: chunked', 'Transfer-Encoding: Chunked', 'transfer-encoding: gzip, chunked']));
      {
        // One chunk (none for an empty body), the last chunk, maybe a trailer.
        const chunk = body.length === 0 ? '' : `${r.pick([hex, `${hex};ext=1`, hex.toUpperCase(), `0${hex}`])}\r\n${body.toString('latin1')}\r\n`;
        tail = Buffer.from(`${chunk}0\r\n${r.oneIn(2) ? 'x-trailer: 1\r\n' : ''}\r\n`, 'latin1');
      }
      break;
    case 1:
      headers.push(r.pick([`content-length: ${body.length} `, `content-length: 0${body.length}`, 'content-length: -1', 'content-length: x', `content-length: ${body.length}\r\ncontent-length: ${body.length + 1}`]));
      tail = body;
      break;
    default:
      headers.push(`content-length: ${body.length}`);
      tail = body;
  }
  // `Expect` on HTTP/1.1 with a body: the README gives when each writes `100 Continue` otherwise.
  if (version === 'HTTP/1.1' && body.length > 0 && r.oneIn(6)) headers.push(r.pick(['expect: 100-continue', 'Expect: 100-Continue', 'expect: foo']));
  const closes = r.oneIn(5);
  if (closes) headers.push(r.pick(['connection: close', 'connection: Close', 'connection: foo, close']));
  else if (r.oneIn(6)) headers.push(r.pick(['Connection: keep-alive', 'keep-alive: timeout=1']));
  if (r.oneIn(4)) {
    headers.push(
      r.pick([
        'kindgi-timeout-ms: 1000', 'kindgi-timeout-ms: 0', 'kindgi-timeout-ms: 1e3', 'kindgi-timeout-ms: ', 'kindgi-run-id: r',
        'kindgi-request-id: q', 'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'traceparent: junk',
        'kindgi-protocol: 2', 'x-a: \u00e9', 'x-b:\tv\t', 'x-e: a\r\n b', 'x-f', 'x-d : space before colon', 'x-g: \x7f',
      ]),
    );
  }
  const head = Buffer.from(`${method} ${target} ${version}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1');
  let bytes = Buffer.concat([head, tail]);
  let answers = 1;
  // A second request behind it, on a connection that is to stay open (after one that asked to
  // close, Node's parser reads ahead: see the README).
  if (!closes && version === 'HTTP/1.1' && r.oneIn(5)) {
    const second = message('fixture.echo', { text: 'second' });
    bytes = Buffer.concat([bytes, Buffer.from(`POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(second)}\r\n\r\n${second}`)]);
    answers = 2;
  }
  if (r.oneIn(4)) {
    const at = 1 + r.below(bytes.length - 1);
    return { chunks: [bytes.subarray(0, at), bytes.subarray(at)], answers, head: method === 'HEAD' };
  }
  return { chunks: [bytes], answers, head: method === 'HEAD' };
}

/** What both are to agree on: each response's status, header set and body, and the ending. */
function comparable({ out, partial, how }) {
  const answers = out.map(({ status, headers, body }) => {
    // A bodiless refusal: Node's are chunked (or carry no length at all), ours say length 0.
    const refusal = [400, 408, 417, 431].includes(status) && body === '';
    const kept = headers
      .filter(([name]) => !['date', 'kindgi-duration-ms'].includes(name))
      .filter(([name]) => !(refusal && ['content-length', 'transfer-encoding'].includes(name)))
      .map(([name, value]) => `${name}: ${value}`)
      .sort();
    return { status, headers: kept, body };
  });
  return { answers, partial, how };
}

async function serveBoth() {
  const index = JSON.parse(await readFile(join(packDir, 'index.json'), 'utf8'));
  const service = createPackService({ index, token: TOKEN, env: {}, resolveModule: (modulePath) => join(packDir, modulePath) });
  assert.deepEqual(await service.prewarm(), []);
  const hyperPort = await service.listen(0, '127.0.0.1');
  const server = createServer(service.handle);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await service.stop(100);
  };
  return { hyperPort, nodePort: server.address().port, stop };
}

test('HTTP/1.0 requests get the same answers and connection handling from hyper as from Node', async () => {
  const { hyperPort, nodePort, stop } = await serveBoth();
  try {
    const probe = 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n';
    const cases = [
      // Refused with a close although it asked to be kept: `connection: close` alone.
      ['FOO /healthz HTTP/1.0\r\nconnection: keep-alive\r\n\r\n', 1],
      ['FOO /healthz HTTP/1.0\r\n\r\n', 1],
      // Kept when it asks, closed when it does not.
      [`GET /healthz HTTP/1.0\r\nconnection: keep-alive\r\n\r\n${probe}`, 2],
      ['GET /healthz HTTP/1.0\r\n\r\n', 1],
      [`POST /v1/invoke HTTP/1.0\r\nconnection: keep-alive\r\nkindgi-pack-token: ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}${probe}`, 2],
    ];
    for (const [bytes, answers] of cases) {
      const [ours, nodes] = await Promise.all([exchange(hyperPort, [bytes], answers), exchange(nodePort, [bytes], answers)]);
      assert.deepEqual(comparable(ours), comparable(nodes), JSON.stringify(bytes));
      assert.equal(ours.out.length, answers, JSON.stringify(bytes));
    }
  } finally {
    await stop();
  }
});

test('random raw requests get the same answers from hyper as from Node with handle', async () => {
  const { hyperPort, nodePort, stop } = await serveBoth();
  try {
    const r = rng(0x7472616e73);
    const cases = randomCases(300);
    const statuses = new Map();
    for (let i = 0; i < cases; i += 1) {
      const { chunks, answers, head } = randomExchange(r);
      const [ours, nodes] = await Promise.all([exchange(hyperPort, chunks, answers, head), exchange(nodePort, chunks, answers, head)]);
      const sent = JSON.stringify(Buffer.concat(chunks).toString('latin1'));
      assert.deepEqual(comparable(ours), comparable(nodes), `case ${i}, in ${chunks.length} piece(s): ${sent}`);
      const status = nodes.out.at(-1)?.status ?? 0;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    console.log('final statuses (0: closed with none):', JSON.stringify([...statuses].sort()));
    // The requests reach every layer: calls that run, the service's refusals and Node's.
    for (const status of [200, 400, 401, 404, 405, 415]) assert.ok(statuses.get(status) > 0, `no ${status} among ${cases} cases`);
  } finally {
    await stop();
  }
});
