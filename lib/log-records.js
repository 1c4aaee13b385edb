// The pack service's logs: `@kindgi/log` records on stderr (or a given `write`), formatted,
// redacted and written in Rust (src/log/). A logger here is a facade with `@kindgi/log`'s
// methods: it checks the level, turns Errors and BigInts into JSON, and hands the record over.
// The service writes its own call records in Rust, without calling into JavaScript.
import { native } from './native.js';

// Native owns the levels and their ranks (src/log/levels.rs): trace 10 … error 50.
const RANK = Object.freeze(Object.fromEntries(native.logLevelRanks().map(({ name, rank }) => [name, rank])));

/** Where a facade keeps its native logs and bindings; the service reads them from here. */
const NATIVE = Symbol('kindgi.nativeLogger');

/** An Error as a record carries it: `{name, message, code?, stack?, cause?}`. */
function serializeError(err, withStack, depth = 0) {
  if (!(err instanceof Error)) return String(err);
  const { code, cause } = err;
  return {
    name: err.name,
    message: err.message,
    ...((typeof code === 'string' || typeof code === 'number') && { code: String(code) }),
    ...(withStack && err.stack !== undefined && { stack: err.stack }),
    ...(cause !== undefined && depth < 3 && { cause: serializeError(cause, withStack, depth + 1) }),
  };
}

/** How deep `@kindgi/log` copies a record's values; deeper ones are `[too deep]` (native's rule). */
const MAX_DEPTH = native.maxRedactDepth();

/**
 * `fields` with every cycle (an object inside itself) replaced by `[circular]`, as
 * `@kindgi/log`'s redaction replaces it; what lies deeper than it copies is `[too deep]`.
 * The record's own Errors (its top-level values, and `err`) are kept for `serializeError`.
 */
function withoutCycles(value, depth, path, key) {
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (depth === 1 && (value instanceof Error || key === 'err')) return value;
  if (path.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  path.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => withoutCycles(v, depth + 1, path));
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = withoutCycles(v, depth + 1, path, k);
    return out;
  } finally {
    path.delete(value);
  }
}

/**
 * An object of fields or bindings as JSON text: an Error among its own values, and whatever
 * `err` holds, is serialised (`err` with its stack at error level, or when debug is on), a
 * BigInt becomes its digits, a cycle `[circular]`, and a `__proto__` member is left out (an
 * assignment in `@kindgi/log` never makes it a key). What JSON still cannot hold (a getter
 * that throws) gives no text: logging never throws.
 */
function recordJson(fields, level, threshold) {
  if (fields === null || typeof fields !== 'object') return undefined;
  const stringify = (top) =>
    JSON.stringify(top, function replace(key, value) {
      if (key === '__proto__') return undefined;
      if (typeof value === 'bigint') return value.toString();
      if (this === top && (value instanceof Error || key === 'err')) {
        const withStack = level === 'error' || (key === 'err' && RANK.debug >= threshold);
        return serializeError(value, withStack);
      }
      return value;
    });
  try {
    return stringify(fields);
  } catch {
    try {
      return stringify(withoutCycles(fields, 0, new Set()));
    } catch {
      return undefined;
    }
  }
}

/** A record's fields as `@kindgi/log` spreads them: a string or an array by its indexes. */
const spread = (fields) =>
  fields !== undefined && fields !== null && (typeof fields !== 'object' || Array.isArray(fields))
    ? { ...fields }
    : fields;

/** Whether `fields` sets to `undefined` a name `bindings` has (which hides it from the record). */
function hidesBinding(fields, bindings) {
  if (fields === undefined || fields === null) return false;
  for (const key of Object.keys(fields)) {
    if (fields[key] === undefined && Object.hasOwn(bindings, key)) return true;
  }
  return false;
}

/**
 * The bindings with `fields` over them, as `@kindgi/log` merges them, without the names set to
 * `undefined`; the subsystem stays the logger's own.
 */
function merged(bindings, fields) {
  const both = { ...bindings, ...fields };
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete both[key];
  if (Object.hasOwn(bindings, 'subsystem')) both.subsystem = bindings.subsystem;
  else delete both.subsystem;
  return both;
}

/**
 * A `@kindgi/log` Logger whose records are written by `logs` (a NativeLogs) with `bindings`;
 * `sink` writes the lines a call hands back (those meant for a caller's `write`).
 */
function nativeLogger(logs, bindings, sink) {
  const subsystem =
    typeof bindings.subsystem === 'string' && bindings.subsystem !== '' ? bindings.subsystem : 'root';
  const threshold = logs.threshold(subsystem);
  // The bindings' text at error level and below it (an Error among them has its stack at error).
  const boundJson = [undefined, undefined];
  const write = (level) => (message, fields, how) => {
    if (RANK[level] < threshold) return;
    const atError = level === 'error' ? 1 : 0;
    let own = spread(fields);
    let bound;
    if (hidesBinding(own, bindings)) {
      bound = recordJson(merged(bindings, own), level, threshold) ?? '{}';
      own = undefined;
    } else {
      bound = boundJson[atError] ??= recordJson(bindings, level, threshold) ?? '{}';
    }
    const inMessage = Array.isArray(how?.inMessage) ? how.inMessage.filter((k) => typeof k === 'string') : undefined;
    // A message with lone surrogates crosses as JSON text, which keeps them.
    const text = String(message);
    const wellFormed = text.isWellFormed();
    const line = logs.write(
      bound,
      level,
      wellFormed ? text : JSON.stringify(text),
      recordJson(own, level, threshold),
      inMessage,
      !wellFormed,
    );
    sink(line);
  };
  // Keys in `@kindgi/log`'s order; extensible, as its loggers are.
  const logger = {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    trace: write('trace'),
    child: (more) => nativeLogger(logs, { ...bindings, ...more }, sink),
    isLevelEnabled: (level) => RANK[level] >= threshold,
  };
  Object.defineProperty(logger, NATIVE, { value: { logs, bindings } });
  return logger;
}

/**
 * The native logs behind a logger made here and its bindings as JSON text, or undefined for
 * any other logger.
 */
export function nativeLoggerParts(logger) {
  const parts = logger !== null && typeof logger === 'object' ? logger[NATIVE] : undefined;
  if (parts === undefined) return undefined;
  return { logs: parts.logs, bindingsJson: recordJson(parts.bindings, 'info', RANK.trace) ?? '{}' };
}

/** Lifecycle events: always written, whatever the levels; a supervisor reads them. */
export const PACK_SERVICE_EVENTS = Object.freeze(['listening', 'boot-failed', 'config-invalid', 'draining', 'stopped', 'js-stalled', 'js-resumed']);

/**
 * The pack service's logs from `KINDGI_LOG_LEVEL`, `KINDGI_LOG_LEVELS` and `KINDGI_LOG_FORMAT`
 * (`auto`: pretty only when `isTTY`; `KINDGI_DEV` plays no part). `log` is the `pack`
 * logger for calls and `ctx.log`; `event(kind, message, fields)` writes a lifecycle record.
 * A bad setting is `{kind: 'err', message}` naming it. `write` gets each line (without its
 * newline) instead of stderr: before `log.*()` or `event()` returns for the lines they write,
 * on a later turn for the service's call records (written on Rust's threads).
 */
export function packServiceLogs({ env = {}, write, isTTY = false } = {}) {
  const value = (name) => (typeof env[name] === 'string' ? env[name] : undefined);
  const writeLine =
    typeof write === 'function'
      ? (line) => {
          try {
            write(line);
          } catch {
            // A sink that fails must never fail the code that logged.
          }
        }
      : undefined;
  // Lines logged on this thread come back from the call that wrote them, to be written now.
  const sink = (lines) => {
    if (lines !== undefined && lines !== null) for (const line of lines) writeLine?.(line);
  };
  let logs;
  try {
    logs = native.createNativeLogs(
      {
        level: value('KINDGI_LOG_LEVEL'),
        levels: value('KINDGI_LOG_LEVELS'),
        format: value('KINDGI_LOG_FORMAT'),
        noColor: value('NO_COLOR'),
      },
      Boolean(isTTY),
      writeLine,
    );
  } catch (cause) {
    return { kind: 'err', message: cause instanceof Error ? cause.message : String(cause) };
  }
  return {
    kind: 'ok',
    problems: [],
    logs: {
      log: nativeLogger(logs, { subsystem: 'pack' }, sink),
      event(kind, message, fields = {}) {
        sink(logs.event(String(kind), String(message), recordJson(fields, 'info', RANK.trace)));
      },
    },
  };
}

/** Logs for a caller that passes none: records on stderr, at the default levels, as JSON. */
export function defaultPackServiceLogs() {
  const built = packServiceLogs({ env: {}, isTTY: false });
  if (built.kind === 'err') throw new Error(built.message);
  return built.logs;
}

/**
 * The `pack` logger of a worker thread that runs a service's pack code, over `logs`
 * (`native.sharedPackServiceLogs`): its lines go where the main thread's do.
 */
export function workerThreadPackLog(logs) {
  return nativeLogger(logs, { subsystem: 'pack' }, () => undefined);
}
