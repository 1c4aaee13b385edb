// The pack service supervisor (`createPackServiceSupervisor`, the engine behind `kindgi dev`):
// a front with one address and token for its whole life, forwarding calls to whichever child
// serves; children booted, swapped, restarted and retired. All of it runs in Rust
// (src/supervisor/); what stays here is what must be JavaScript: the owner's `command` and
// `env()`, read at every start, the `onLog` / `onEvent` callbacks, and stepping the owner's
// `nextTurn`.
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { inspect } from 'node:util';
import { describe, invalidArgument, nativeError } from './errors.js';
import { native } from './native.js';
import { keepCallbacks, weakCallbacks } from './weak-callbacks.js';
import { PACK_SERVICE_DRAIN_MS } from './pack-service/config.js';

/**
 * One of the pack service's own lines as an event with a `kind` (a record of subsystem `pack`
 * takes its `event`; any other record is `kind: 'record'`; a bare legacy `{"kind": …}` line
 * keeps its kind), or `undefined` for the pack's own output.
 */
export function serviceEvent(line) {
  // TypeScript throws too (a TypeError from line.startsWith).
  if (typeof line !== 'string') throw invalidArgument(`line must be a string, not ${describe(line)}`);
  const json = native.serviceEventJson(line);
  return json === null ? undefined : JSON.parse(json);
}

const DEFAULT_HOST = '127.0.0.1';
// The pack service's body cap (src/service/core.rs): the front takes what a child would.
const DEFAULT_MAX_BODY_BYTES = native.serviceDefaults().maxBodyBytes;
const TOKEN_RULE = /^[A-Za-z0-9_-]{32,}$/;
// The tag that starts each text from native that is not an event's JSON
// (src/supervisor/event_text.rs).
const TAG = Object.freeze(native.supervisorTextTags());

function count(value, name, fallback, { min = 0 } = {}) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw invalidArgument(`${name} must be a number of at least ${min}, not ${describe(value)}`);
  }
  return value;
}

/**
 * `maxRestarts` as a whole count: TypeScript restarts while its attempts are below it, so 2.5
 * allows 3, and `Infinity` never gives up (restarts still back off).
 */
function restarts(value) {
  if (value === Infinity) return 2 ** 32 - 1;
  return Math.min(Math.ceil(count(value, 'options.maxRestarts', 3)), 2 ** 32 - 1);
}

/**
 * The port as Node's `server.listen` takes it (a whole number from 0 to 65535, or such a number
 * as a string; none is 0), or the RangeError Node throws for one it refuses, which is how the
 * TypeScript front's `listen()` rejects.
 */
function listenPort(port) {
  if (port === undefined || port === null) return 0;
  const number = typeof port === 'number' || (typeof port === 'string' && port.trim() !== '') ? Number(port) : Number.NaN;
  if (number === number >>> 0 && number <= 0xffff) return number;
  const shown = typeof port === 'number' || typeof port === 'string' ? `type ${typeof port} (${inspect(port)})` : inspect(port);
  const error = new RangeError(`options.port should be >= 0 and < 65536. Received ${shown}.`);
  error.code = 'ERR_SOCKET_BAD_PORT';
  throw error;
}

/** Bytes as the TypeScript relay's fetch sends them, read as UTF-8 text. */
function bytesText(body) {
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString('utf8');
  return undefined;
}

/** The call's fields that go as headers, in the order the TypeScript relay gives fetch them. */
const HEADER_FIELDS = [
  ['timeoutMs', 'kindgi-timeout-ms'],
  ['runId', 'kindgi-run-id'],
  ['requestId', 'kindgi-request-id'],
  ['protocol', 'kindgi-protocol'],
  ['traceparent', 'traceparent'],
  ['tenantId', 'kindgi-tenant-id'],
];

/**
 * A header value fetch sends as it is: no white space at either end (fetch trims it), and
 * only tab, printable ASCII and U+0080–U+00FF (fetch refuses CR, LF, NUL and anything above
 * U+00FF; undici any other control character).
 */
const PLAIN_HEADER = /^(?:[!-~\x80-\xff](?:[\t -~\x80-\xff]*[!-~\x80-\xff])?)?$/;

/**
 * A relay call as the native relay takes it, its fields as the TypeScript relay's `fetch`
 * sends them: the deadline as `String()` of it (`null` goes as `null`), the other headers as
 * fetch's text of them, bytes as UTF-8. A common call (an invoke with a string or bytes body,
 * an info without one, headers that are numbers or plain strings) is read here; any other goes
 * through fetch's own `Request`, which throws where fetch would and gives its header values.
 */
function relayCall(call) {
  const route = call.route;
  const body = call.body;
  const signal = call.signal;
  const text =
    body === undefined || typeof body === 'string' ? body : route === 'invoke' ? bytesText(body) : undefined;
  if (
    (route === 'invoke' || (route === 'info' && body === undefined)) &&
    (text !== undefined || body === undefined) &&
    (signal === undefined || signal === null || signal instanceof AbortSignal)
  ) {
    const headers = plainHeaders(call);
    if (headers !== undefined) return { route, ...(text !== undefined && { body: text }), ...headers };
  }
  return fetchedCall(call);
}

/** The call's header fields, when each is absent, a number or a string fetch sends unchanged. */
function plainHeaders(call) {
  const headers = {};
  for (const [field] of HEADER_FIELDS) {
    const value = call[field];
    if (value === undefined) continue;
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !PLAIN_HEADER.test(text)) return undefined;
    headers[field] = text;
  }
  return headers;
}

/**
 * An uncommon relay call, read by the `Request` the TypeScript relay's fetch makes of it, in
 * its order: the URL (`/v1/${route}`, GET unless the route is `invoke`), the headers (a value
 * above U+00FF, or with CR, LF or NUL, refused in fetch's words; white space at either end
 * trimmed), then the body and signal, refusing a GET with a body, a body it cannot send and a
 * signal that is not an AbortSignal. Another route goes as the path fetch would request;
 * another body as fetch's text.
 */
async function fetchedCall(call) {
  const url = `http://${DEFAULT_HOST}/v1/${call.route}`;
  const invoke = call.route === 'invoke';
  const body = call.body;
  const timeoutMs = call.timeoutMs;
  const request = new Request(url, {
    method: invoke ? 'POST' : 'GET',
    headers: {
      'kindgi-pack-token': 'token',
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(timeoutMs !== undefined && { 'kindgi-timeout-ms': String(timeoutMs) }),
      ...Object.fromEntries(
        HEADER_FIELDS.slice(1)
          .map(([field, name]) => [name, call[field]])
          .filter(([, value]) => value !== undefined),
      ),
    },
    ...(body !== undefined && { body }),
    // Only to be refused: an AbortSignal is followed by the native call itself.
    ...(call.signal != null && !(call.signal instanceof AbortSignal) && { signal: call.signal }),
  });
  // The path and query fetch sends (no fragment): only characters a request target may hold.
  const { pathname, search } = new URL(request.url);
  const path = `${pathname}${search}`;
  const text = body === undefined ? undefined : typeof body === 'string' ? body : (bytesText(body) ?? (await request.text()));
  // A value with another control character passes here and fails in the native relay, as
  // undici fails it (`fetch failed`).
  const headers = {};
  for (const [field, name] of HEADER_FIELDS) {
    const value = request.headers.get(name);
    if (value !== null) headers[field] = value;
  }
  return { route: invoke ? 'invoke' : path === '/v1/info' ? 'info' : path, ...(text !== undefined && { body: text }), ...headers };
}

function checkCommand(command) {
  if (!Array.isArray(command) || command.length === 0 || command.some((a) => typeof a !== 'string') || command[0] === '') {
    throw invalidArgument('options.command must be a non-empty list of strings: the program, then its arguments');
  }
  return command;
}

/**
 * The `log` event of a line Rust found to be one of the service's events (`service_event` in
 * `src/supervisor/lines.rs`, whose rule this repeats): a record's `kind` is its `event` when
 * it is the service's own (subsystem `pack`, a string `event`) and `record` otherwise; a bare
 * line from a service from before records keeps its own `kind`.
 */
function logEvent(line) {
  const fields = JSON.parse(line);
  const record = ['time', 'level', 'subsystem', 'message'].every((key) => typeof fields[key] === 'string');
  if (!record) return { kind: 'log', event: fields, line };
  const own = fields.subsystem === 'pack' && typeof fields.event === 'string';
  return { kind: 'log', event: { ...fields, kind: own ? fields.event : 'record' }, line };
}

export function createPackServiceSupervisor(options) {
  if (options === null || typeof options !== 'object') {
    throw invalidArgument(`options must be an object, not ${describe(options)}`);
  }
  const { command, moduleRoot, env } = options;
  if (typeof command !== 'function') checkCommand(command);
  if (typeof moduleRoot !== 'string' || moduleRoot === '') {
    throw invalidArgument('options.moduleRoot must be the pack folder');
  }
  if (!existsSync(moduleRoot) || !statSync(moduleRoot).isDirectory()) {
    throw nativeError('invalid-argument', `options.moduleRoot ${moduleRoot} is not a folder`);
  }
  if (typeof env !== 'function') {
    throw invalidArgument('options.env must be a function giving the child its whole environment');
  }
  if (options.token !== undefined && (typeof options.token !== 'string' || !TOKEN_RULE.test(options.token))) {
    throw invalidArgument('A pack service token is at least 32 URL-safe base64 characters.');
  }
  for (const name of ['host', 'cwd']) {
    if (options[name] !== undefined && typeof options[name] !== 'string') {
      throw invalidArgument(`options.${name} must be a string, not ${describe(options[name])}`);
    }
  }
  if (options.spare !== undefined && typeof options.spare !== 'boolean') {
    throw invalidArgument(`options.spare must be a boolean, not ${describe(options.spare)}`);
  }
  // `??`, as TypeScript takes it: null is no seam.
  const nextTurn = options.nextTurn ?? undefined;
  if (nextTurn !== undefined && typeof nextTurn !== 'function') {
    throw invalidArgument(`options.nextTurn must be a function, not ${describe(nextTurn)}`);
  }
  const token = options.token ?? randomBytes(24).toString('base64url');
  const host = options.host ?? DEFAULT_HOST;
  const onLog = options.onLog;
  const onEvent = options.onEvent;

  // Every start: the command (a function may give a new one each time) and the whole
  // environment, with the token, PORT=0 and JSON records, since this process reads them.
  async function launch(indexPath) {
    const argv = checkCommand(typeof command === 'function' ? await command() : command);
    const childEnv = {
      ...(await env()),
      KINDGI_PACK_SERVICE_TOKEN: token,
      PORT: '0',
      KINDGI_LOG_FORMAT: 'json',
    };
    return {
      program: argv[0],
      args: [...argv.slice(1), '--index', indexPath, '--module-root', moduleRoot, '--host', DEFAULT_HOST],
      // As Node's spawn takes an environment: undefined values left out, the rest as strings.
      env: Object.fromEntries(
        Object.entries(childEnv)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, `${v}`]),
      ),
      ...(options.cwd !== undefined && { cwd: options.cwd }),
    };
  }

  // Lines and events come in batches, one per line of `batch` (no line holds a line feed, and
  // JSON escapes it): an output line after its stream's tag, a line that is one of the
  // service's events after `TAG.serviceLine`, a SIGINT or SIGHUP exit to step through
  // `nextTurn` as `TAG.interrupted` and its id, any other event as JSON.
  function heard(batch) {
    for (const text of batch.split('\n')) {
      try {
        const tag = text[0];
        if (tag === TAG.stdout) onLog?.(text.slice(1), 'stdout');
        else if (tag === TAG.stderr) onLog?.(text.slice(1), 'stderr');
        else if (tag === TAG.serviceLine) onEvent?.(logEvent(text.slice(1)));
        else if (tag === TAG.interrupted) interrupted(Number(text.slice(1)));
        else onEvent?.(JSON.parse(text));
      } catch {
        // A throwing callback must not take the process down, nor the batch's other lines.
      }
    }
  }

  // A child killed by SIGINT or SIGHUP (a terminal's Ctrl+C, which may reach the owner just
  // after) is judged two of the owner's turns later, as TypeScript judges it, and what that
  // raises (`exited`, then `restarting` or `gave-up`) is raised within that turn.
  function interrupted(id) {
    nextTurn(() =>
      nextTurn(() => {
        const raised = supervisor.judgeInterrupt(id);
        if (raised !== null) heard(raised);
      }),
    );
  }

  const callbacks = { launch, heard };
  const supervisor = native.createNativeSupervisor(
    {
      token,
      bootTimeoutMs: count(options.bootTimeoutMs, 'options.bootTimeoutMs', 60_000, { min: 1 }),
      stopGraceMs: count(options.stopGraceMs, 'options.stopGraceMs', PACK_SERVICE_DRAIN_MS + 2_000),
      maxRestarts: restarts(options.maxRestarts),
      restartDelayMs: count(options.restartDelayMs, 'options.restartDelayMs', 500),
      maxBodyBytes: count(options.maxBodyBytes, 'options.maxBodyBytes', DEFAULT_MAX_BODY_BYTES, { min: 1 }),
      hearsOutput: onLog !== undefined && onLog !== null,
      hearsEvents: onEvent !== undefined && onEvent !== null,
      stepsTurns: nextTurn !== undefined,
      spare: options.spare === true,
    },
    ...weakCallbacks(callbacks, 'launch', 'heard'),
  );
  // The callbacks live as long as the native supervisor: every function here holds it.
  keepCallbacks(supervisor, callbacks);

  const relay = {
    serving: () => supervisor.serving(),
    async forward(call) {
      // As TypeScript orders them: no child is `unavailable` even for a caller already gone, or
      // with no call; with a child, reading no call's signal throws.
      if (call === undefined || call === null) {
        if (!supervisor.serving()) return { kind: 'unavailable', reason: 'no pack service' };
        throw new TypeError(`Cannot read properties of ${call} (reading 'signal')`);
      }
      if (call.signal?.aborted) {
        return supervisor.serving() ? { kind: 'cancelled' } : { kind: 'unavailable', reason: 'no pack service' };
      }
      // Read before the cancel ticket is taken: a call that fails here leaves none behind.
      let native;
      try {
        native = relayCall(call);
        if (native instanceof Promise) native = await native;
      } catch (cause) {
        // As the TypeScript relay fails what fetch throws (once it knows a child serves).
        return supervisor.serving()
          ? { kind: 'failed', reason: `the pack service did not answer: ${cause instanceof Error ? cause.message : String(cause)}` }
          : { kind: 'unavailable', reason: 'no pack service' };
      }
      const ticket = supervisor.cancelTicket();
      const onAbort = () => supervisor.cancel(ticket);
      call.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const out = await supervisor.forward(native, ticket);
        if (out.kind !== 'answer') return out.kind === 'cancelled' ? { kind: 'cancelled' } : { kind: out.kind, reason: out.reason };
        const headers = {};
        for (let i = 0; i < out.headers.length; i += 2) headers[out.headers[i]] = out.headers[i + 1];
        return { kind: 'answer', status: out.status, headers, body: out.body };
      } finally {
        call.signal?.removeEventListener('abort', onAbort);
      }
    },
  };

  // The native side holds no reference on the event loop: like the TypeScript front's
  // node:http server, a listening front or a started child keeps the process alive until
  // close(), and the supervisor (with its callbacks, which Rust reaches weakly) with it.
  let keepAlive;
  const holdProcess = () => {
    keepAlive ??= setInterval(() => void supervisor, 2 ** 31 - 1);
  };
  const letProcessGo = () => {
    clearInterval(keepAlive);
    keepAlive = undefined;
  };

  let front;
  let closing = false;
  return {
    token,
    relay,
    async listen() {
      if (front !== undefined) return { ...front };
      const bound = await supervisor.listen(host, listenPort(options.port));
      if (bound.error !== undefined) {
        // Node's error, as the TypeScript front's server.listen rejects: code EADDRINUSE, …
        const { code, errno, syscall, address, port: tried, message } = bound.error;
        throw nativeError(code, message, {
          ...(errno !== undefined && errno !== null && { errno }),
          syscall,
          ...(syscall === 'getaddrinfo' ? { hostname: address } : { address, port: tried }),
        });
      }
      holdProcess();
      front = { url: `http://${host.includes(':') ? `[${host}]` : host}:${bound.port}`, port: bound.port };
      return { ...front };
    },
    async start(indexPath, startOptions) {
      // Closing answers before any argument is looked at, as in TypeScript.
      if (closing) return { kind: 'err', error: { problems: ['The pack service is closing'] } };
      if (typeof indexPath !== 'string' || indexPath === '') {
        throw invalidArgument(`indexPath must be a path, not ${describe(indexPath)}`);
      }
      const fresh = startOptions?.fresh ?? false;
      if (typeof fresh !== 'boolean') throw invalidArgument(`options.fresh must be a boolean, not ${describe(fresh)}`);
      holdProcess();
      const out = await supervisor.start(indexPath, fresh);
      if (out.problems !== undefined && front === undefined && !supervisor.serving()) letProcessGo();
      return out.problems === undefined
        ? { kind: 'ok', value: { port: out.port } }
        : { kind: 'err', error: { problems: out.problems } };
    },
    stop: () => supervisor.stop(),
    beginClose() {
      closing = true;
      supervisor.beginClose();
    },
    async close() {
      closing = true;
      await supervisor.close();
      front = undefined;
      letProcessGo();
    },
  };
}
