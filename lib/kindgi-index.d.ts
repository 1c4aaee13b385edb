export { NativeError, NativeErrorCode, MAX_JSON_DEPTH } from './errors.js';

/** The envelope version of `index.json`. */
export declare const INDEX_ENVELOPE_VERSION: 1;
/** The version of the flow payload inside the index. */
export declare const KERNEL_PAYLOAD_VERSION: 1;

/** The `index.json` envelope (wire shape in `pack-index.schema.json`). */
export interface Index {
  readonly v: 1;
  readonly packId: string;
  readonly packVersion: string;
  readonly artifactVersion: string;
  readonly publishedAt: string;
  readonly tools: readonly ({ readonly id: string } & Readonly<Record<string, unknown>>)[];
  readonly guardrails: readonly ({ readonly id: string } & Readonly<Record<string, unknown>>)[];
  readonly agents: readonly ({ readonly id: string } & Readonly<Record<string, unknown>>)[];
  readonly flows: readonly ({ readonly id: string } & Readonly<Record<string, unknown>>)[];
  readonly env?: { readonly required: readonly string[]; readonly optional: readonly string[] };
}

/**
 * The exact text the TypeScript indexer writes for `value`:
 * `JSON.stringify(canonicalize(value), null, 2) + '\n'`, with keys sorted at every level.
 * Throws `invalid-json-value` for a value JSON cannot hold and `value-too-deep` past `MAX_JSON_DEPTH`.
 */
export declare function canonicalJson(value: unknown): string;

export interface WriteIndexOptions {
  /** Pin the build (default: the index's own, else `YYYYMMDD.N`, UTC, N counting up from the file at `outputPath`). */
  readonly artifactVersion?: string;
  /** Pin the build time (default: the index's own, else now, ISO 8601 UTC with milliseconds). */
  readonly publishedAt?: string;
}

export interface WriteIndexResult {
  readonly outputPath: string;
  readonly artifactVersion: string;
  readonly publishedAt: string;
  /** `sha256:` and the hex SHA-256 of the bytes written. */
  readonly indexHash: string;
  /** How many bytes were written. */
  readonly bytes: number;
}

/**
 * Write `index` to `outputPath` as the TypeScript indexer does: the four lists sorted by `id`
 * (stable, code-unit order), canonical JSON, written to `<outputPath>.tmp-<pid>-<ms>` and renamed
 * into place (the folder is created). The canonical text is built and written off the JS thread.
 * Rejects with `output-write-failed` (its `filePath` is `outputPath`) when the file cannot be
 * written; no temporary file is left behind.
 */
export declare function writeIndex(
  index: Index | Readonly<Record<string, unknown>>,
  outputPath: string,
  options?: WriteIndexOptions,
): Promise<WriteIndexResult>;

/**
 * `sha256:` and the hex SHA-256 of the exact bytes: of the given bytes, or of the file at a path.
 * Throws `index-read-failed` when the file cannot be read.
 */
export declare function indexHash(bytesOrPath: Uint8Array | string): string;

/**
 * The bundle map at `file` (`kindgi build` writes `dist/bundle-map.json`): a JSON object of
 * source path → bundle path, each a non-empty string. Never rejects: a file that cannot be read
 * or parsed, or another shape, is `{kind: 'err', message}` naming the file.
 */
export declare function readBundleMap(
  file: string,
): Promise<
  | { readonly kind: 'ok'; readonly value: Readonly<Record<string, string>> }
  | { readonly kind: 'err'; readonly message: string }
>;
