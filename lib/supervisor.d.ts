/**
 * One of the pack service's own stderr lines as an event with a `kind`: a record of subsystem
 * `pack` takes its `event` as `kind`, any other `@kindgi/log` record is `kind: 'record'`, a
 * bare legacy line keeps its `kind` when it is one the service wrote. `undefined` for the
 * pack's own output.
 */
export declare function serviceEvent(
  line: string,
): (Record<string, unknown> & { readonly kind: string }) | undefined;

export interface PackServiceSupervisorOptions {
  /** The child's argv (the supervisor appends `--index`, `--module-root`, `--host`), or a function giving it before every start. */
  readonly command: readonly [string, ...string[]] | (() => readonly [string, ...string[]] | Promise<readonly [string, ...string[]]>);
  /** Where the index's module paths resolve: the pack folder. */
  readonly moduleRoot: string;
  /**
   * The child's whole environment, read at every start. Values are passed as Node's `spawn`
   * passes them: `undefined` ones left out (so `PATH: process.env.PATH` is fine).
   */
  readonly env: () => Promise<Readonly<Record<string, string | undefined>>>;
  /** Where the front listens. Default `127.0.0.1`. */
  readonly host?: string;
  /** The front's port. Default 0: any free port, fixed while the front listens. */
  readonly port?: number;
  /** The token callers send; at least 32 URL-safe base64 characters. Default: a new random one. */
  readonly token?: string;
  readonly onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
  readonly onEvent?: (event: PackServiceSupervisorEvent) => void;
  /** Default 60000. */
  readonly bootTimeoutMs?: number;
  /** How long a retiring child may drain before SIGKILL. Default 10000. */
  readonly stopGraceMs?: number;
  /** Restarts of a child that exits on its own within 60 s before giving up. Default 3. */
  readonly maxRestarts?: number;
  /** The first restart's delay; each further one in the window doubles it. Default 500. */
  readonly restartDelayMs?: number;
  /** Largest body the front accepts. Default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** The child's working folder. */
  readonly cwd?: string;
  /**
   * Native extension: after each boot, spawn the next child ahead and hold it (it loads what it
   * can, then waits for a line on stdin); a `start()` whose command, arguments, environment and
   * folder are the same releases it instead of spawning. For this package's pack service,
   * which knows the hold; a child that listens while held is never used, and no spare follows.
   * Default false.
   */
  readonly spare?: boolean;
  /**
   * Test seam, as in TypeScript: the turns a child killed by SIGINT or SIGHUP waits before it
   * is judged a crash (a terminal's Ctrl+C reaches the owner too, whose `beginClose()` may
   * come first). At such an exit `nextTurn(fn)` is called, and `fn` calls it again; the second
   * `fn` judges the exit and raises `exited` then `restarting` (or `gave-up`) before it
   * returns. Without it the wait is 100 ms (docs/known-differences.md). Not a function: throws.
   */
  readonly nextTurn?: (fn: () => void) => void;
}

export type PackServiceSupervisorEvent =
  | { readonly kind: 'started'; readonly port: number; readonly indexPath: string }
  | { readonly kind: 'boot-failed'; readonly problems: readonly string[] }
  | { readonly kind: 'exited'; readonly code: number | null; readonly signal: string | null }
  | { readonly kind: 'restarting'; readonly attempt: number }
  | { readonly kind: 'gave-up'; readonly attempts: number }
  | {
      readonly kind: 'log';
      readonly event: Readonly<Record<string, unknown>>;
      /** The line as the child wrote it: always set here; optional, as TypeScript's event has none. */
      readonly line?: string;
    };

export interface BootFailure {
  readonly problems: readonly string[];
}

export interface PackRelayCall {
  readonly route: 'invoke' | 'info';
  readonly body?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly runId?: string;
  readonly requestId?: string;
  readonly protocol?: string;
  readonly traceparent?: string;
  /** Sent as `kindgi-tenant-id` (protocol 2.7.0): a child pinned to a tenant needs it. */
  readonly tenantId?: string;
}

export type PackRelayOutcome =
  | { readonly kind: 'answer'; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string }
  | { readonly kind: 'unavailable'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'cancelled' };

export interface PackRelay {
  readonly serving: () => boolean;
  forward(call: PackRelayCall): Promise<PackRelayOutcome>;
}

export interface PackServiceSupervisor {
  readonly token: string;
  readonly relay: PackRelay;
  /**
   * Opens the front (idempotent). Rejects as Node's `server.listen` does: `code` `EADDRINUSE`,
   * `EACCES`, … with `errno`, `syscall`, `address` and `port` (`ENOTFOUND` and `hostname` for a
   * host that does not resolve).
   */
  listen(): Promise<{ readonly url: string; readonly port: number }>;
  /** `fresh` (native extension): a new process even when a spare is held, for a change it cannot see. */
  start(
    indexPath: string,
    options?: { readonly fresh?: boolean },
  ): Promise<{ readonly kind: 'ok'; readonly value: { readonly port: number } } | { readonly kind: 'err'; readonly error: BootFailure }>;
  stop(): Promise<void>;
  beginClose(): void;
  close(): Promise<void>;
}

/** The supervisor behind `kindgi dev`, in Rust: a front on one address and token, children swapped behind it. */
export declare function createPackServiceSupervisor(options: PackServiceSupervisorOptions): PackServiceSupervisor;
