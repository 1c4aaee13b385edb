import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PackEnvCheck, PackEnvFilter } from './pack-env.js';
import type { PackErrorCode, PackErrorMessage } from './protocol.js';
import type { Index } from './kindgi-index.js';

export {
  createPackServiceSupervisor,
  serviceEvent,
  BootFailure,
  PackRelay,
  PackRelayCall,
  PackRelayOutcome,
  PackServiceSupervisor,
  PackServiceSupervisorEvent,
  PackServiceSupervisorOptions,
} from './supervisor.js';
export { main } from './pack-service-main.js';

/** How long SIGTERM lets in-flight calls finish, in ms. */
export declare const PACK_SERVICE_DRAIN_MS: 8000;

/** The pack service process's settings (see `readPackServiceConfig`). */
export interface PackServiceConfig {
  readonly indexPath: string;
  readonly moduleRoot: string;
  /** A build's bundle map (source path → bundle path under `moduleRoot`). */
  readonly bundleMapPath?: string;
  readonly token: string;
  /**
   * The TCP port to listen on; 0 picks a free one. (From JavaScript, `startPackService` also
   * takes what Node's `server.listen` takes: absent or `null` for any free port, a numeric string.)
   */
  readonly port: number;
  /** The listen address. Absent: every interface. */
  readonly host?: string;
  readonly maxConcurrency?: number;
  /** `KINDGI_PACK_SERVICE_STALL_MS`: see `PackServiceOptions.stallMs`. */
  readonly stallMs?: number;
  /**
   * `KINDGI_PACK_SERVICE_WORKERS` (present only when set): how many JS threads run pack code,
   * `auto` or 1 to 256; `startPackService` listens with it (see `NativePackService.listen`).
   */
  readonly workers?: number | 'auto';
  readonly envCheck?: PackEnvCheck;
  readonly envFilter?: PackEnvFilter;
  /** `KINDGI_PACK_TENANT_ID` (protocol 2.7.0): the one tenant this service serves. */
  readonly tenantId?: string;
}

/**
 * Reads the process configuration from arguments (`--index`, `--module-root`, `--bundle-map`,
 * `--host`; the first occurrence wins) and environment (`KINDGI_PACK_INDEX`,
 * `KINDGI_PACK_SERVICE_TOKEN`, `PORT`, `KINDGI_PACK_SERVICE_MAX_CONCURRENCY`,
 * `KINDGI_PACK_ENV_CHECK`, `KINDGI_PACK_ENV_FILTER`), listing every problem.
 */
export declare function readPackServiceConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
):
  | { readonly kind: 'ok'; readonly value: PackServiceConfig }
  | { readonly kind: 'err'; readonly problems: readonly string[] };

/** What the service's `logger` receives. */
export type PackServiceLogEvent =
  | {
      readonly kind: 'call';
      readonly target: 'tool' | 'check';
      readonly id: string;
      readonly durationMs: number;
      readonly outcome: 'ok' | PackErrorCode;
    }
  | {
      /** A handler ignored its abort signal and settled after its call had been answered. */
      readonly kind: 'handler-finished-late';
      readonly target: 'tool' | 'check';
      readonly id: string;
      readonly afterMs: number;
    }
  | {
      /** Required env names the process lacks, reported once at creation. */
      readonly kind: 'missing-env';
      readonly check: PackEnvCheck;
      readonly names: readonly string[];
    };

/** How a record is written: the fields its message already states (renderers leave them out). */
export interface PackServiceLogOptions {
  readonly inMessage?: readonly string[];
}

export type PackServiceLogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** A record's fields (`@kindgi/log`'s `LogFields`). */
export type PackServiceLogFields = Readonly<Record<string, unknown>>;

/**
 * `@kindgi/log`'s `Logger`, member for member: what `ctx.log` is, what `packServiceLogs` gives,
 * and what the `log` option takes.
 */
export interface PackServiceLogger {
  error(message: string, fields?: PackServiceLogFields, options?: PackServiceLogOptions): void;
  warn(message: string, fields?: PackServiceLogFields, options?: PackServiceLogOptions): void;
  info(message: string, fields?: PackServiceLogFields, options?: PackServiceLogOptions): void;
  debug(message: string, fields?: PackServiceLogFields, options?: PackServiceLogOptions): void;
  trace(message: string, fields?: PackServiceLogFields, options?: PackServiceLogOptions): void;
  /** A logger whose records all carry `bindings` (a `subsystem` among them replaces its parent's). */
  child(bindings: PackServiceLogFields): PackServiceLogger;
  /** Whether a record at `level` would be written: skip building costly fields when it would not. */
  isLevelEnabled(level: PackServiceLogLevel): boolean;
}

/** The lifecycle records, written whatever the levels. */
export type PackServiceEventKind =
  | 'listening'
  | 'boot-failed'
  | 'config-invalid'
  | 'draining'
  | 'stopped'
  | 'js-stalled'
  | 'js-resumed';
export declare const PACK_SERVICE_EVENTS: readonly PackServiceEventKind[];

/** The pack service's records: `log` for calls and `ctx.log`, `event` for the lifecycle. */
export interface PackServiceLogs {
  readonly log: PackServiceLogger;
  event(kind: PackServiceEventKind, message: string, fields?: PackServiceLogFields): void;
}

/**
 * Records written from Rust, on stderr unless `write` is given (lines written from Rust
 * threads reach `write` asynchronously). Levels from `KINDGI_LOG_LEVEL` and
 * `KINDGI_LOG_LEVELS`, format from `KINDGI_LOG_FORMAT` (`auto`: pretty only when `isTTY`).
 */
export declare function packServiceLogs(input?: {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly write?: (line: string) => void;
  readonly isTTY?: boolean;
}):
  | { readonly kind: 'ok'; readonly logs: PackServiceLogs; readonly problems: readonly string[] }
  | { readonly kind: 'err'; readonly message: string };

/** Records on stderr at the default levels, as JSON. */
export declare function defaultPackServiceLogs(): PackServiceLogs;

export interface PackServiceOptions {
  /** The pack's parsed `index.json`. */
  readonly index: Index | Readonly<Record<string, unknown>>;
  /** Where an index entry's `modulePath` lives on this host (an absolute path). */
  readonly resolveModule: (modulePath: string) => string;
  /** Callers send it in the `kindgi-pack-token` header. */
  readonly token: string;
  /** Calls in flight before 503 `overloaded` (0 refuses every call, Infinity none). Default 32. */
  readonly maxConcurrency?: number;
  /** Largest accepted body (Infinity for no limit). Default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** Deadline when a call sends no valid `kindgi-timeout-ms`. Default 120000. */
  readonly defaultTimeoutMs?: number;
  /** Hears of every call, late handler and missing env name, whether or not `log` is set. */
  readonly logger?: (event: PackServiceLogEvent) => void;
  /**
   * Call records and `ctx.log`. A logger from `packServiceLogs` is written in Rust; any other
   * `@kindgi/log` Logger is called from JavaScript. Default: writes nothing.
   */
  readonly log?: PackServiceLogger;
  /** Checked once, at creation, against the index's `env.required`. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `strict` (default): not ready while a required name is missing. `warn`: serve anyway. */
  readonly envCheck?: PackEnvCheck;
  /** Test seam: how a module is loaded from its absolute path. Default: `import()`. */
  readonly importModule?: (absolutePath: string) => Promise<unknown>;
  /** Protocol 2.7.0: the one tenant this service serves (421 for any other). */
  readonly tenantId?: string;
  /** Protocol 2.7.0: `sha256:<hex>` of the index file, reported by `/v1/info`. */
  readonly indexHash?: string;
  /**
   * While the service listens: how long pack code may hold the JS thread (no turn taken)
   * before `/healthz` answers 503, in ms (0 never). Default 10000. `/readyz` and new calls
   * answer 503 past one second whatever this is.
   */
  readonly stallMs?: number;
}

export interface PackService {
  /** A node:http request listener over the same Rust core, for a caller's own server. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Imports every tool and check module; returns the ones that failed. Ready when none did. */
  prewarm(): Promise<readonly PackErrorMessage[]>;
  /** Stops taking calls (for good) and waits up to `graceMs` for the ones in flight. */
  drain(graceMs: number): Promise<void>;
  inFlight(): number;
  ready(): boolean;
}

/** What `createPackService` returns: the TypeScript `PackService`, and a server of its own. */
export interface NativePackService extends PackService {
  /**
   * Serves from Rust on `host:port` (port 0 picks one; no host: every interface, as Node's
   * `server.listen`); resolves with the bound port. Rejects with code `listen-failed`.
   * `workers` (`auto`, or 1 to 256; default 1) runs pack code on that many JS threads: the
   * main thread and `workers - 1` worker threads, each importing every module before the
   * listener opens (a failure rejects with `listen-failed` and `problems`).
   */
  listen(port: number, host?: string, options?: { readonly workers?: number | 'auto' }): Promise<number>;
  /** Drains for up to `graceMs` (default 8000), closes every connection and releases the JS callbacks so the process can exit. */
  stop(graceMs?: number): Promise<void>;
  /**
   * Calls whose pack code has not settled yet, answered or not (a handler that ignored its
   * abort runs on), with calls queued for the JS thread. A call answered by its deadline or
   * its caller's leaving whose pack code can never settle (a promise nobody resolves) is
   * dropped from this count once JavaScript collects it.
   */
  unsettledCalls(): number;
}

/** The pack service: HTTP, admission, deadlines and validation in Rust; pack code in JS. */
export declare function createPackService(options: PackServiceOptions): NativePackService;

export interface RunningPackService {
  readonly service: NativePackService;
  /** The bound port. */
  readonly port: number;
  /** Drains for up to `graceMs` (default 8000), then closes every connection. */
  stop(graceMs?: number): Promise<void>;
}

/** What `startPackService` reports to a function logger, besides the service's own events. */
export type PackServiceStartEvent =
  | PackServiceLogEvent
  | { readonly kind: 'listening'; readonly port: number; readonly packId: string; readonly artifactVersion: string }
  | { readonly kind: 'env-dropped'; readonly names: readonly string[] };

/**
 * Boots the service from a `PackServiceConfig`: reads the index, the bundle map, checks every
 * module exists, applies the env filter, prewarms, listens. Every problem is collected.
 * `logs`: where records go (default: stderr at the default levels); a function instead gets
 * the events, and no records are written.
 */
export declare function startPackService(
  config: PackServiceConfig,
  logs?: PackServiceLogs | ((event: PackServiceStartEvent) => void),
  /** Native extension: `importModule` as `createPackService` takes it. */
  options?: { readonly importModule?: (absolutePath: string) => Promise<unknown> },
): Promise<
  | { readonly kind: 'ok'; readonly value: RunningPackService }
  | { readonly kind: 'err'; readonly problems: readonly string[] }
>;
