// The pack service's logs: `@kindgi/log` records on stderr (or a given `write`), formatted,
// redacted and written in Rust (src/log/). A logger here is a facade with `@kindgi/log`'s
// methods: it checks the level, turns Errors and BigInts into JSON, and hands the record over.
// The service writes its own call records in Rust, without calling into JavaScript.
import { native } from './native.js';

const RANK = Object.freeze({ trace: 10, debug: 20, info: 30, warn: 40, error: 50 });

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

/**
 * An object of fields or bindings as JSON text: an Error among its own values, and whatever
 * `err` holds, is serialised (`err` with its stack at error level, or when debug is on), a
 * BigInt becomes its digits.
 * What JSON cannot hold (a cycle) gives no text: logging never throws.
 */
function recordJson(fields, level, threshold) {
  if (fields === null || typeof fields !== 'object') return undefined;
  try {
    return JSON.stringify(fields, function replace(key, value) {
      if (typeof value === 'bigint') return value.toString();
      if (this === fields && (value instanceof Error || key === 'err')) {
        const withStack = level === 'error' || (key === 'err' && RANK.debug >= threshold);
        return serializeError(value, withStack);
      }
      return value;
    });
  } catch {
    return undefined;
  }
}

/**
 * A `@kindgi/log` Logger whose records are written by `logs` (a NativeLogs) with `bindings`;
 * `sink` writes the lines a call hands back (those meant for a caller's `write`).
 */
function nativeLogger(logs, bindings, sink) {
  const subsystem =
    typeof bindings.subsystem === 'string' && bindings.subsystem !== '' ? bindings.subsystem : 'root';
  const threshold = logs.threshold(subsystem);
  let boundJson;
  const write = (level) => (message, fields, how) => {
    if (RANK[level] < threshold) return;
    boundJson ??= recordJson(bindings, level, threshold) ?? '{}';
    const inMessage = Array.isArray(how?.inMessage) ? how.inMessage.filter((k) => typeof k === 'string') : undefined;
    sink(logs.write(boundJson, level, String(message), recordJson(fields, level, threshold), inMessage));
  };
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
  return Object.freeze(logger);
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
export const PACK_SERVICE_EVENTS = Object.freeze(['listening', 'boot-failed', 'config-invalid', 'draining', 'stopped']);

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
      isTTY === true,
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
