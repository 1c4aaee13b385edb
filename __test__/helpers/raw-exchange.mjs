// Raw HTTP/1.1 exchanges for the transport tests: the bytes of a request sent as they are, the
// answers read back and cut into responses, and seeded random requests whose answers Node's
// server and ours are to give alike.
import assert from 'node:assert/strict';
import { connect } from 'node:net';

/**
 * Cuts `text` (latin1) into responses: `{ status, headers, lines, body }`, headers as
 * `[lower-case name, value]` in order, `lines` the header lines as written, a chunked body
 * decoded; `partial` holds what is left.
 * `head`: the first request was a HEAD, so its answer has no body whatever its length says.
 */
export function responses(text, head = false) {
  const out = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return { out, partial: rest };
    const [line, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = lines.map((header) => {
      const colon = header.indexOf(':');
      return [header.slice(0, colon).toLowerCase(), header.slice(colon + 1).trim()];
    });
    const status = Number(line.slice(9, 12));
    const value = (name) => headers.find(([n]) => n === name)?.[1];
    let body = '';
    let next = end + 4;
    // An interim answer has no body, nor has the answer to a HEAD.
    const bodiless = status < 200 || (head && !out.some((r) => r.status >= 200));
    if (!bodiless && value('transfer-encoding') === 'chunked') {
      for (;;) {
        const size = rest.indexOf('\r\n', next);
        if (size < 0) return { out, partial: rest };
        const length = parseInt(rest.slice(next, size), 16);
        if (rest.length < size + 2 + length + 2) return { out, partial: rest };
        body += rest.slice(size + 2, size + 2 + length);
        next = size + 2 + length + 2;
        if (length === 0) break;
      }
    } else if (!bodiless) {
      const length = Number(value('content-length') ?? 0);
      if (rest.length < next + length) return { out, partial: rest };
      body = rest.slice(next, next + length);
      next += length;
    }
    out.push({ line, status, headers, lines, body });
    rest = rest.slice(next);
  }
}

/**
 * Writes `chunks` to `port` a few milliseconds apart and reads until `answers` final (non-1xx)
 * responses have come, the server closes, or 3 s pass. Resolves with the responses, what was
 * left unparsed and how the exchange ended (`answered`, `closed` or `timeout`). `head` as for
 * `responses`.
 */
export function exchange(port, chunks, answers, head = false) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    let settled = false;
    const done = (how) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...responses(got, head), how });
    };
    const timer = setTimeout(() => done('timeout'), 3000);
    socket.on('data', (data) => {
      got += data.toString('latin1');
      if (responses(got, head).out.filter((r) => r.status >= 200).length >= answers) done('answered');
    });
    socket.on('error', () => done('closed'));
    socket.on('close', () => done('closed'));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        await new Promise((r) => setTimeout(r, 2));
      }
    });
  });
}

const message = (tool, input) => JSON.stringify({ v: 2, kind: 'invoke', tool: { id: tool }, input, ctx: { tenantId: 't', runId: 'r' } });

/**
 * Seeded random raw request bytes for the fixture pack (js-pack), in one to five pieces, with how
 * many answers it is to get and whether it is a HEAD. Left out are the requests docs/known-differences.md
 * lists as read differently by hyper and by Node ("HTTP parsing is hyper's, not Node's").
 */
export function randomRawRequest(r, token) {
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
      `kindgi-pack-token: ${token}`,
      `Kindgi-Pack-Token:${token}`,
      `kindgi-pack-token:  ${token}  `,
      `kindgi-pack-token: ${token}\r\nkindgi-pack-token: ${token}`,
      `kindgi-pack-token: ${token}\r\nkindgi-pack-token: other`,
      'kindgi-pack-token: other',
      `kindgi-pack-token: ${token}x`,
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
  // A transfer coding on HTTP/1.0 is read differently (docs/known-differences.md).
  switch (version === 'HTTP/1.0' ? 7 : r.below(8)) {
    case 0: {
      headers.push(r.pick(['transfer-encoding: chunked', 'Transfer-Encoding: Chunked', 'transfer-encoding: gzip, chunked']));
      // One chunk (none for an empty body), the last chunk, maybe a trailer.
      const chunk = body.length === 0 ? '' : `${r.pick([hex, `${hex};ext=1`, hex.toUpperCase(), `0${hex}`])}\r\n${body.toString('latin1')}\r\n`;
      tail = Buffer.from(`${chunk}0\r\n${r.oneIn(2) ? 'x-trailer: 1\r\n' : ''}\r\n`, 'latin1');
      break;
    }
    case 1:
      headers.push(r.pick([`content-length: ${body.length} `, `content-length: 0${body.length}`, 'content-length: -1', 'content-length: x', `content-length: ${body.length}\r\ncontent-length: ${body.length + 1}`]));
      tail = body;
      break;
    default:
      headers.push(`content-length: ${body.length}`);
      tail = body;
  }
  // `Expect` on HTTP/1.1 with a body: docs/known-differences.md gives when each writes `100 Continue` otherwise.
  if (version === 'HTTP/1.1' && body.length > 0 && r.oneIn(6)) headers.push(r.pick(['expect: 100-continue', 'Expect: 100-Continue', 'expect: foo']));
  const closes = r.oneIn(5);
  if (closes) headers.push(r.pick(['connection: close', 'connection: Close', 'connection: foo, close']));
  else if (r.oneIn(6)) headers.push(r.pick(['Connection: keep-alive', 'keep-alive: timeout=1']));
  if (r.oneIn(4)) {
    headers.push(
      r.pick([
        'kindgi-timeout-ms: 1000', 'kindgi-timeout-ms: 0', 'kindgi-timeout-ms: 1e3', 'kindgi-timeout-ms: ', 'kindgi-run-id: r',
        'kindgi-request-id: q', 'traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'traceparent: junk',
        'kindgi-protocol: 2', 'kindgi-tenant-id: t', 'x-a: \u00e9', 'x-a: \u00c3\u00a9', 'x-b:\tv\t', 'x-e: a\r\n b', 'x-f',
        'x-d : space before colon', 'x-g: \x7f', 'x-n: a\x00b', 'x-c: a:b', 'X-Upper: v', `x-long: ${'v'.repeat(9000)}`,
      ]),
    );
  }
  const head = Buffer.from(`${method} ${target} ${version}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1');
  let bytes = Buffer.concat([head, tail]);
  let answers = 1;
  // A second request behind it, on a connection that is to stay open (after one that asked to
  // close, Node's parser reads ahead: see docs/known-differences.md).
  if (!closes && version === 'HTTP/1.1' && r.oneIn(5)) {
    const second = message('fixture.echo', { text: 'second' });
    bytes = Buffer.concat([bytes, Buffer.from(`POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: ${token}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(second)}\r\n\r\n${second}`)]);
    answers = 2;
  }
  // Sometimes in up to five pieces, cut anywhere.
  const cuts = r.oneIn(4) ? [...new Set(Array.from({ length: 1 + r.below(4) }, () => 1 + r.below(bytes.length - 1)))].sort((a, b) => a - b) : [];
  const chunks = [0, ...cuts].map((at, i) => bytes.subarray(at, cuts[i] ?? bytes.length));
  return { chunks, answers, head: method === 'HEAD' };
}

/**
 * What two servers are to agree on: each response's status, header set (lower-cased, without
 * the values of `date` and `kindgi-duration-ms`) and body, and the ending. A bodiless
 * refusal's headers leave out their framing: Node's are chunked (or carry no length at all),
 * ours say length 0 (docs/known-differences.md). With `inOrder`, the header lines as written instead, in order
 * and case (the two values still left out).
 */
export function comparable({ out, partial, how }, { inOrder = false } = {}) {
  const answers = out.map(({ status, headers, lines, body }) => {
    if (inOrder) {
      const written = lines.map((line) => line.replace(/^(date|kindgi-duration-ms):.*$/i, '$1:'));
      return { status, headers: written, body };
    }
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

/**
 * Sends `cases` seeded random requests (`randomRawRequest(r, token)`) to `portA` and `portB`
 * at once, each case's two exchanges alike (`comparable`) or it fails with the bytes sent;
 * `each(a, b)` sees both exchanges of every case.
 */
export async function sameAnswers(r, cases, token, portA, portB, each) {
  for (let i = 0; i < cases; i += 1) {
    const { chunks, answers, head } = randomRawRequest(r, token);
    const [a, b] = await Promise.all([exchange(portA, chunks, answers, head), exchange(portB, chunks, answers, head)]);
    const sent = JSON.stringify(Buffer.concat(chunks).toString('latin1'));
    assert.deepEqual(comparable(a), comparable(b), `case ${i}, in ${chunks.length} piece(s): ${sent}`);
    each(a, b);
  }
}
