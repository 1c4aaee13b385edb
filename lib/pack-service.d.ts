import type { PackEnvCheck, PackEnvFilter } from './pack-env.js';

/** How long SIGTERM lets in-flight calls finish, in ms. */
export declare const PACK_SERVICE_DRAIN_MS: 8000;

/** The pack service process's settings (see `readPackServiceConfig`). */
export interface PackServiceConfig {
  readonly indexPath: string;
  readonly moduleRoot: string;
  /** A build's bundle map (source path → bundle path under `moduleRoot`). */
  readonly bundleMapPath?: string;
  readonly token: string;
  readonly port: number;
  /** The listen address. Absent: every interface. */
  readonly host?: string;
  readonly maxConcurrency?: number;
  readonly envCheck?: PackEnvCheck;
  readonly envFilter?: PackEnvFilter;
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
