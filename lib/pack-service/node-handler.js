// `handle`: a node:http request listener over the service's Rust core, for callers with their
// own server. Rust decides the answer (status, headers, body: src/service/node_answer.rs);
// this reads the request and writes what it is given.
import { describeMessage as describeCause } from '../handler-runner.js';
import { native } from '../native.js';

const text = (value) => (typeof value === 'string' ? value : undefined);

/** A node:http request's head as the Rust core reads it (Node already joined and trimmed). */
function requestHead(req) {
  const h = req.headers;
  return {
    method: req.method ?? '',
    target: req.url ?? '/',
    token: text(h['kindgi-pack-token']),
    tenant: text(h['kindgi-tenant-id']),
    contentType: text(h['content-type']),
    contentLength: text(h['content-length']),
    timeoutMs: text(h['kindgi-timeout-ms']),
    traceparent: text(h.traceparent),
  };
}

/**
 * Writes `out` (status, `[name, value, …]` headers, body) unless the caller's own code has
 * answered already (middleware that ended the response, then passed the request on): writing
 * would throw out of the listener.
 */
function write(res, out) {
  if (res.headersSent || res.writableEnded || res.destroyed) return;
  const headers = {};
  for (let i = 0; i < out.headers.length; i += 2) headers[out.headers[i]] = out.headers[i + 1];
  res.writeHead(out.status, headers);
  res.end(out.body);
}

/** The 500 of a call this glue could not make (a request whose body cannot be read). */
const failure = (cause) => native.nodeFailureAnswer(JSON.stringify({ error: describeCause(cause) }));

/** The listener over `service` (a NativePackService). */
export function nodeHandler(service) {
  return function handle(req, res) {
    const answer = (out) => write(res, out);
    const head = requestHead(req);
    const begun = service.begin(head);
    if (begun.ticket === undefined) {
      answer(begun);
      return;
    }
    const { ticket, bodyLimit } = begun;
    // The ticket goes back once: refused, failed, or handed to the call with its body.
    let handedOver = false;
    const handOver = () => {
      if (handedOver) return false;
      handedOver = true;
      req.socket?.off?.('close', giveBack);
      return true;
    };
    const giveBack = () => {
      if (!handOver()) return false;
      service.release(ticket);
      return true;
    };
    const failed = (cause) => {
      if (giveBack()) answer(failure(cause));
    };
    const chunks = [];
    let size = 0;
    let tooLarge = false;
    const ended = () => {
      if (handedOver) return;
      if (tooLarge) {
        handOver();
        answer(service.refuseBody(ticket));
        return;
      }
      let body;
      try {
        body = Buffer.concat(chunks).toString('utf8');
      } catch (cause) {
        // Chunks that are not bytes (the caller set an encoding on the request).
        failed(cause);
        return;
      }
      handOver();
      // The caller gave up before its answer: the call is cancelled.
      res.on('close', () => {
        if (!res.writableEnded) service.hangUp(ticket);
      });
      service.bodyReceived(ticket);
      service.invoke(ticket, head, body).then(
        // Status 0: the caller hung up, and nothing is written.
        (out) => out.status !== 0 && answer(out),
        (cause) => answer(failure(cause)),
      );
    };
    // A body read already (by a framework's body parser) ends no more: TypeScript waits for it
    // for ever, holding a place under the cap.
    if (req.readableEnded === true) {
      failed(new Error('The request body was already read'));
      return;
    }
    try {
      req.on('data', (chunk) => {
        size += chunk.length;
        // Past the limit native gave with the ticket: nothing more is kept, and native answers.
        if (size > bodyLimit) tooLarge = true;
        if (!tooLarge) chunks.push(chunk);
      });
      req.on('error', failed);
      req.on('end', ended);
      // Destroyed before its body ended with no error (by the caller's own code), or its
      // connection closed after a response that ended first (Node then ends the request no
      // more): no call, and its place is given back.
      req.on('close', giveBack);
      req.socket?.on?.('close', giveBack);
    } catch (cause) {
      // Not a stream (a framework's request object): answered 500 as TypeScript's body read
      // rejects, and its place under the cap given back.
      failed(cause);
    }
  };
}
