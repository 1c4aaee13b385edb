// Raw HTTP/1.1 exchanges for the transport tests: the bytes of a request sent as they are, the
// answers read back and cut into responses, and seeded random requests whose answers Node's
// server and ours are to give alike.
import { connect } from 'node:net';

/**
 * Cuts `text` (latin1) into responses: `{ status, headers, body }`, headers as
 * `[lower-case name, value]` in order, a chunked body decoded; `partial` holds what is left.
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
    const bodiless = head && !out.some((r) => r.status >= 200);
    if (status >= 200 && bodiless) {
      // No body follows.
    } else if (status >= 200 && value('transfer-encoding') === 'chunked') {
      for (;;) {
        const size = rest.indexOf('\r\n', next);
        if (size < 0) return { out, partial: rest };
        const length = parseInt(rest.slice(next, size), 16);
        if (rest.length < size + 2 + length + 2) return { out, partial: rest };
        body += rest.slice(size + 2, size + 2 + length);
        next = size + 2 + length + 2;
        if (length === 0) break;
      }
    } else if (status >= 200) {
      const length = Number(value('content-length') ?? 0);
      if (rest.length < next + length) return { out, partial: rest };
      body = rest.slice(next, next + length);
      next += length;
    }
    out.push({ line, status, headers, body });
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
