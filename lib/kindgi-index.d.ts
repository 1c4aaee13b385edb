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
  /**
   * The guardrail names a built-in check (`checkId`, or its own id) without shipping a check
   * of its own: `checkModulePath` is only its file.
   */
  readonly checkBuiltIn?: true;
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

// ---------------------------------------------------------------------------------------------
// The indexer: config, discovery, `runIndexer` and the `kindgi-index` command.
// ---------------------------------------------------------------------------------------------

/** A Result, as `@kindgi/types` has it. */
export type IndexerResult<T, E> = { readonly kind: 'ok'; readonly value: T } | { readonly kind: 'err'; readonly error: E };

/** Discovery glob patterns by primitive kind. */
export interface DiscoveryConfig {
  readonly tools?: string;
  readonly guardrails?: string;
  readonly agents?: string;
  readonly flows?: string;
}

/** A JVM pack's language (its config is `kindgi.config.json`). */
export type JvmLanguage = 'java' | 'scala';
/** The language of a pack's code: which indexer reads it and which pack service runs it. */
export type PackLanguage = 'node' | 'python' | JvmLanguage;

/** A provider preset's settings, as `kindgi dev` takes them from a pack's config. */
export interface KindgiPresetSettingValues {
  readonly project: string;
  readonly resourceName: string;
  readonly deployments: Readonly<Record<string, string>>;
  readonly region: string;
}

/** Each preset's own settings, by preset name. */
export declare const PRESET_DECLARATION_SETTINGS: {
  readonly anthropic: readonly [];
  readonly 'azure-openai': readonly ['resourceName', 'deployments'];
  readonly bedrock: readonly ['region'];
  readonly gemini: readonly ['project'];
  readonly 'gemini-api': readonly [];
  readonly groq: readonly [];
  readonly openai: readonly [];
  readonly openrouter: readonly [];
};

export type KindgiPresetName = keyof typeof PRESET_DECLARATION_SETTINGS;

/** What any preset declaration may choose. */
export interface KindgiPresetChoices {
  /** Only these of the preset's models. Default: all. */
  readonly models?: readonly string[];
  /** The secret holding the API key, in place of the preset's own. */
  readonly secret?: string;
  /** Each model's output cap, in place of the preset's. */
  readonly maxOutputTokens?: number;
}

/** A preset by name, with its own settings required and every other preset's refused. */
export type KindgiPresetDeclaration = {
  [P in KindgiPresetName]: KindgiPresetChoices & { readonly preset: P } & {
    readonly [S in (typeof PRESET_DECLARATION_SETTINGS)[P][number]]: KindgiPresetSettingValues[S];
  } & {
    readonly [S in Exclude<keyof KindgiPresetSettingValues, (typeof PRESET_DECLARATION_SETTINGS)[P][number]>]?: never;
  };
}[KindgiPresetName];

/** One provider in `KindgiConfig.providers`: a preset, or a full registration body. */
export type KindgiProviderDeclaration = KindgiPresetDeclaration | { readonly spec: Readonly<Record<string, unknown>> };

/** What the indexer reads of a pack's config; other fields pass through untouched. */
export interface KindgiConfig {
  readonly pack: { readonly id: string; readonly version: string; readonly description?: string };
  readonly discovery?: DiscoveryConfig;
  /** Absent in `kindgi.config.*`: `node`; a `pyproject.toml` table: `python`. */
  readonly language?: PackLanguage;
  readonly env?: import('./pack-env.js').PackEnvConfig;
  /** The project the pack belongs to under `kindgi dev`. */
  readonly project?: string;
  /** Model providers `kindgi dev` registers for the project. */
  readonly providers?: readonly KindgiProviderDeclaration[];
  readonly [k: string]: unknown;
}

export interface KindgiConfigFile {
  readonly path: string;
  /** `module`: a `kindgi.config.*`; `pyproject`: a `[tool.kindgi]` table; `json`: `kindgi.config.json`. */
  readonly format: 'module' | 'pyproject' | 'json';
  /** Another config beside a `kindgi.config.json` (loading such a pack is `config-invalid`). */
  readonly conflictsWith?: string;
}

export interface LoadKindgiConfigOptions {
  /** Explicit config path (absolute or cwd-relative); skips the lookup. */
  readonly configPath?: string;
  /** Replaces the cache-busted dynamic `import()` of a config module. */
  readonly importModule?: (fileUrl: string) => Promise<unknown>;
}

export type IndexerErrorCode =
  | 'config-not-found'
  | 'config-parse-failed'
  | 'config-invalid'
  | 'discovery-empty'
  | 'file-import-failed'
  | 'no-default-export'
  | 'kind-mismatch'
  | 'ambiguous-kind'
  | 'zod-conversion-failed'
  | 'manifest-validation-failed'
  | 'output-write-failed'
  | 'language-mismatch'
  | 'reserved-check-id';

export interface IndexerError {
  readonly code: IndexerErrorCode;
  readonly message: string;
  readonly filePath?: string;
  readonly field?: string;
  readonly cause?: unknown;
}

export type IndexerWarningCode = 'check-id-unprefixed';

export interface IndexerWarning {
  readonly code: IndexerWarningCode;
  readonly message: string;
  readonly filePath?: string;
  readonly field?: string;
}

export interface IndexerReport {
  readonly packId: string;
  readonly packVersion: string;
  readonly artifactVersion: string;
  readonly publishedAt: string;
  readonly counts: {
    readonly tools: number;
    readonly guardrails: number;
    readonly agents: number;
    readonly flows: number;
  };
  readonly outputPath: string;
  /** Per-file errors: each file's primitive is left out, the rest indexed. */
  readonly fileErrors: readonly IndexerError[];
  /** What the index was written with but the author should hear of. */
  readonly warnings: readonly IndexerWarning[];
}

export interface RunIndexerOptions {
  /** The pack's root: the folder holding its config. */
  readonly packDir: string;
  /** Explicit config file; default: looked up at `packDir`. */
  readonly configPath?: string;
  /** Default `<packDir>/index.json`. */
  readonly outputPath?: string;
  /** Default `YYYYMMDD.N` (UTC), N counting up from the file at `outputPath`. */
  readonly artifactVersion?: string;
  /** Default now, ISO 8601 UTC with milliseconds. */
  readonly publishedAt?: string;
  /** Index a build: each source path (as the index records it) → its bundle under `moduleRoot`. */
  readonly bundleMap?: Readonly<Record<string, string>>;
  /** Where `bundleMap`'s bundles are. Default `packDir`. */
  readonly moduleRoot?: string;
  /** Replaces the cache-busted dynamic `import()` of each module. */
  readonly importModule?: (fileUrl: string) => Promise<unknown>;
}

export declare const DEFAULT_DISCOVERY: Required<DiscoveryConfig>;
export declare const DEFAULT_PYTHON_DISCOVERY: Required<DiscoveryConfig>;
export declare const DEFAULT_JAVA_DISCOVERY: Required<DiscoveryConfig>;
export declare const DEFAULT_SCALA_DISCOVERY: Required<DiscoveryConfig>;
/** Config module names looked up at a pack root, in order. */
export declare const KINDGI_CONFIG_FILENAMES: readonly string[];
export declare const KINDGI_JSON_CONFIG_FILENAME: 'kindgi.config.json';
export declare const PYPROJECT_FILENAME: 'pyproject.toml';
/** Check ids the runtime implements itself: a pack cannot ship a check under one. */
export declare const RESERVED_CHECK_IDS: readonly string[];
/** Test and spec files, never primitives. */
export declare const TEST_FILE_REGEX: RegExp;

export declare function packLanguage(config: KindgiConfig): PackLanguage;
export declare function isJvmLanguage(language: string): language is JvmLanguage;
export declare function resolveDiscovery(discovery: DiscoveryConfig | undefined, language?: PackLanguage): Required<DiscoveryConfig>;
export declare function findKindgiConfig(packDir: string): Promise<KindgiConfigFile | undefined>;
/** Loads and checks a pack's config. Never rejects. */
export declare function loadKindgiConfig(
  packDir: string,
  options?: LoadKindgiConfigOptions,
): Promise<IndexerResult<KindgiConfig, IndexerError>>;

/** A discovery pattern (`**`, `*`, `?`, `{a,b}`) as an anchored RegExp over relative paths. */
export declare function globToRegex(pattern: string): RegExp;
/** The directory before a pattern's first wildcard segment (`''`: the pack root). */
export declare function globStaticPrefix(pattern: string): string;
/** The folders to walk or watch for the patterns (`['']`: the pack root). */
export declare function discoveryRoots(patterns: readonly string[]): readonly string[];
/** `(relPath) => true` when the path matches a pattern and is not a test file. */
export declare function createGlobMatcher(patterns: readonly string[]): (relPath: string) => boolean;

/** Indexes a pack and writes its `index.json`. Never rejects for the pack's fault. */
export declare function runIndexer(opts: RunIndexerOptions): Promise<IndexerResult<IndexerReport, IndexerError>>;

/** The `kindgi-index` command; resolves with its exit code. */
export declare function main(argv: readonly string[]): Promise<number>;
/** `kindgi-index --help`. */
export declare const HELP_TEXT: string;
