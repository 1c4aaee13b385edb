/** A pack's declared process environment, as `index.json` carries it. */
export interface PackEnvDeclaration {
  /** Names the pack service needs, set and non-empty, to be ready. Sorted. */
  readonly required: readonly string[];
  /** Names the pack reads when present. Sorted. */
  readonly optional: readonly string[];
}

/** `env` in `kindgi.config`, as the author writes it. */
export interface PackEnvConfig {
  readonly required?: readonly string[];
  readonly optional?: readonly string[];
}

export type PackEnvResult =
  | { readonly kind: 'ok'; readonly value: PackEnvDeclaration | undefined }
  | { readonly kind: 'err'; readonly message: string };

/** How the pack service treats missing required names (`KINDGI_PACK_ENV_CHECK`). */
export type PackEnvCheck = 'strict' | 'warn';

/** Whether the pack service drops undeclared variables (`KINDGI_PACK_ENV_FILTER`). */
export type PackEnvFilter = 'on' | 'off';

export type Env = Readonly<Record<string, string | undefined>>;

/** A process environment variable name. */
export declare const PACK_ENV_NAME: RegExp;
/** The prefix of the names that configure Kindgi itself; never a pack's. */
export declare const RESERVED_ENV_PREFIX: 'KINDGI_';
/** The variable that sets `PackEnvCheck`. */
export declare const PACK_ENV_CHECK_VAR: 'KINDGI_PACK_ENV_CHECK';
/** The variable that sets `PackEnvFilter`. */
export declare const PACK_ENV_FILTER_VAR: 'KINDGI_PACK_ENV_FILTER';
/** The platform's own variables, which the env filter keeps. */
export declare const PLATFORM_ENV_NAMES: readonly string[];
/** Prefixes of the platform's own variables, which the env filter keeps (`KINDGI_` is kept too). */
export declare const PLATFORM_ENV_PREFIXES: readonly string[];

/**
 * Validate a config's `env` and normalize it to what the index carries: both lists, sorted by
 * code unit; `undefined` when nothing is declared. Never throws.
 */
export declare function resolvePackEnv(env: unknown): PackEnvResult;

/** The required names `environment` lacks (unset or `''`), in the declaration's order. */
export declare function missingPackEnv(
  declaration: PackEnvDeclaration | undefined,
  environment: Env,
): readonly string[];

/** `KINDGI_PACK_ENV_CHECK`'s value; unset or empty is `strict`. */
export declare function parsePackEnvCheck(
  raw: string | undefined,
):
  | { readonly kind: 'ok'; readonly value: PackEnvCheck }
  | { readonly kind: 'err'; readonly message: string };

/** `KINDGI_PACK_ENV_FILTER`'s value; unset or empty is `on`. */
export declare function parsePackEnvFilter(
  raw: string | undefined,
):
  | { readonly kind: 'ok'; readonly value: PackEnvFilter }
  | { readonly kind: 'err'; readonly message: string };

/**
 * The names in `environment` the pack service drops before pack code loads, sorted by code unit:
 * every name not declared, not `KINDGI_*`, not in `PLATFORM_ENV_NAMES` and not starting with one
 * of `PLATFORM_ENV_PREFIXES`.
 */
export declare function undeclaredPackEnv(
  declaration: PackEnvDeclaration | undefined,
  environment: Env,
): string[];
