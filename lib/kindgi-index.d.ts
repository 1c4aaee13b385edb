import type { PackEnvDeclaration } from './pack-env.js';

export { NativeError, NativeErrorCode, MAX_JSON_DEPTH } from './errors.js';

/** The envelope version of `index.json`. */
export declare const INDEX_ENVELOPE_VERSION: 1;
/** The version of the flow payload inside the index. */
export declare const KERNEL_PAYLOAD_VERSION: 1;

export type IndexEnvelopeVersion = typeof INDEX_ENVELOPE_VERSION;

export type PrimitiveKind = 'tool' | 'guardrail' | 'agent' | 'flow';

/** A tool as `index.json` lists it. */
export interface IndexedTool {
  readonly id: string;
  readonly description?: string;
  readonly version?: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly output: Readonly<Record<string, unknown>>;
  readonly effects?: readonly Readonly<Record<string, unknown>>[];
  readonly needs?: readonly Readonly<Record<string, unknown>>[];
  readonly needsSpec?: Readonly<Record<string, unknown>>;
  readonly sandbox?: string;
  readonly limits?: Readonly<Record<string, unknown>>;
  readonly network?: Readonly<Record<string, unknown>>;
  /** A declarative tool's spec, which the runtime runs itself. */
  readonly spec?: Readonly<Record<string, unknown>>;
  /** `false`: read-only. Absent: it may change something. */
  readonly mutating?: boolean;
  readonly modulePath: string;
}

/** A guardrail as `index.json` lists it. */
export interface IndexedGuardrail {
  readonly id: string;
  readonly name?: string;
  readonly kind: string;
  readonly action: Readonly<Record<string, unknown>>;
  readonly severity?: string;
  readonly scope?: Readonly<Record<string, unknown>>;
  readonly checkModulePath: string;
  readonly checkId?: string;
  readonly configSchema?: Readonly<Record<string, unknown>>;
  readonly config?: Readonly<Record<string, unknown>>;
  readonly sandbox?: string;
  readonly limits?: Readonly<Record<string, unknown>>;
  readonly network?: Readonly<Record<string, unknown>>;
}

/** An agent as `index.json` lists it. */
export interface IndexedAgent {
  readonly id: string;
  readonly version: string;
  readonly name: string;
  readonly instructions: string | { readonly prompt: string; readonly version: string };
  readonly capabilities: readonly unknown[];
  readonly tools: readonly { readonly id: string; readonly version: string }[];
  readonly retrieval?: readonly unknown[];
  readonly guardrails?: readonly string[];
  readonly settings?: readonly { readonly id: string; readonly version: string }[];
  readonly modelSettings?: { readonly id: string; readonly version: string };
  readonly budget?: Readonly<Record<string, unknown>>;
  readonly parameters?: readonly unknown[];
  readonly preferredProvider?: string;
  readonly preferredModel?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly conversationPolicy?: Readonly<Record<string, unknown>>;
  readonly output?: Readonly<Record<string, unknown>>;
  readonly toolErrors?: Readonly<Record<string, unknown>>;
  /** How the agent uses what it retrieves (`{ instructionTypes? }`). */
  readonly memory?: Readonly<Record<string, unknown>>;
  readonly modulePath: string;
}

/**
 * One value of a flow mapping (`@kindgi/flow`'s `Operand`): a `{ literal }`, or a `{ path }`
 * rooted at `runInput`, `state` or `nodeOutputs.<nodeId>`.
 */
export type FlowOperand = { readonly literal: unknown } | { readonly path: string };

/** `@kindgi/flow`'s `Mapping`: each key of the object it builds, and where its value comes from. */
export type FlowMapping = Readonly<Record<string, FlowOperand>>;

/**
 * A flow's declared output (`@kindgi/flow`'s `FlowOutputSpec`, flow schema 1.8.0): the object
 * `mapping` builds from the finished run, checked against `schema` (JSON Schema) when given.
 */
export interface FlowOutputSpec {
  readonly mapping: FlowMapping;
  readonly schema?: Readonly<Record<string, unknown>>;
}

/** A flow as `index.json` lists it. */
export interface IndexedFlow {
  readonly id: string;
  readonly version: string;
  readonly name?: string;
  readonly description?: string;
  readonly nodes: readonly unknown[];
  readonly edges: readonly unknown[];
  readonly maxParallelism?: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** The flow's declared output (flow schema 1.8.0). */
  readonly output?: FlowOutputSpec;
  readonly kernelPayloadVersion: number;
  readonly modulePath: string;
}

/** The `index.json` envelope (wire shape in `pack-index.schema.json`). */
export interface Index {
  readonly v: IndexEnvelopeVersion;
  readonly packId: string;
  readonly packVersion: string;
  readonly artifactVersion: string;
  readonly publishedAt: string;
  readonly tools: readonly IndexedTool[];
  readonly guardrails: readonly IndexedGuardrail[];
  readonly agents: readonly IndexedAgent[];
  readonly flows: readonly IndexedFlow[];
  readonly env?: PackEnvDeclaration;
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
