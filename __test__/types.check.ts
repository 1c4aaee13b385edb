// Type-checked by `tsc -p __test__/tsconfig.json` (CI): the public types as a caller uses them.
import {
  canonicalJson,
  idempotencyKey,
  indexHash,
  missingPackEnv,
  packError,
  parsePackEnvCheck,
  parsePackRequest,
  resolvePackEnv,
  undeclaredPackEnv,
  writeIndex,
  PACK_HEADERS,
  PACK_SERVICE_DRAIN_MS,
  type PackErrorMessage,
  type PackRequest,
  type WriteIndexResult,
} from '../index.js';
import { parsePackResponse, PACK_PROTOCOL_VERSION, type ParseOutcome } from '../lib/protocol.js';
import { INDEX_ENVELOPE_VERSION, readBundleMap, type Index, type NativeError } from '../lib/kindgi-index.js';

const outcome: ParseOutcome<PackRequest> = parsePackRequest({});
if (outcome.kind === 'err') {
  const error: PackErrorMessage = outcome.error;
  const code: 'malformed-message' | string = error.code;
  void code;
}
const response = parsePackResponse({ v: PACK_PROTOCOL_VERSION, kind: 'result', output: 1 });
void response;
const error: PackErrorMessage = packError('cancelled', 'x was cancelled', { toolId: 'x' });
const header: 'kindgi-pack-token' = PACK_HEADERS.token;
const drain: 8000 = PACK_SERVICE_DRAIN_MS;
const key: string = idempotencyKey('run', 'step', 'tool', 'call');
const text: string = canonicalJson({ a: 1 });
const hash: string = indexHash(new Uint8Array([1]));
const env = resolvePackEnv({ required: ['A'] });
if (env.kind === 'ok' && env.value !== undefined) {
  const missing: readonly string[] = missingPackEnv(env.value, { A: '' });
  const dropped: string[] = undeclaredPackEnv(env.value, { B: 'x' });
  void missing;
  void dropped;
}
const check = parsePackEnvCheck(undefined);
const index: Index = {
  v: INDEX_ENVELOPE_VERSION,
  packId: 'p',
  packVersion: '1',
  artifactVersion: '1',
  publishedAt: 'now',
  tools: [],
  guardrails: [],
  agents: [],
  flows: [],
};
const written: Promise<WriteIndexResult> = writeIndex(index, 'index.json', { publishedAt: 'now' });
written.catch((e: NativeError) => e.code);
void [error, header, drain, key, text, hash, check];

import { compileSchema, runHandler, runCheck, type ValidationOutcome, type HandlerError } from '../index.js';
const compiled = compileSchema({ type: 'string' }, 'output');
const verdict: ValidationOutcome = compiled.validate('x');
if (!verdict.valid) void verdict.issues[0]?.schemaPath;
const ran = runHandler({
  tool: { id: 't', modulePath: '/m.mjs', inputSchema: {}, outputSchema: {} },
  input: {},
  ctx: { tenantId: 't', runId: 'r' },
});
ran.then((outcome) => {
  if (outcome.kind === 'err') {
    const failure: HandlerError = outcome.error;
    void failure.code;
  }
});
void runCheck({ check: { id: 'c', modulePath: '/c.mjs' }, config: {}, trace: {} });

import { readPackServiceConfig, type PackServiceConfig } from '../index.js';
import { readPackServiceConfig as fromMain } from '../lib/pack-service-main.js';
const config = readPackServiceConfig(['--index', 'index.json'], { KINDGI_PACK_SERVICE_TOKEN: 't' });
if (config.kind === 'ok') {
  const settings: PackServiceConfig = config.value;
  void settings.port;
} else {
  void config.problems.length;
}
void fromMain;

// The pack service.
import { createPackService, type PackService, type PackServiceLogEvent } from '../lib/pack-service.js';
const events: PackServiceLogEvent[] = [];
const service = createPackService({
  index: {},
  resolveModule: (p: string) => p,
  token: 't',
  tenantId: 'tenant',
  logger: (e) => {
    if (e.kind === 'call') events.push(e);
  },
});
const bound: Promise<number> = service.listen(0, '127.0.0.1');
const stopped: Promise<void> = service.stop();
void bound;
void stopped;
import { createServer } from 'node:http';
const ownServer = createServer(service.handle);
void ownServer;

import {
  createPackServiceSupervisor,
  serviceEvent,
  type PackRelayOutcome,
  type PackServiceSupervisorEvent,
} from '../lib/pack-service.js';
const supervisor = createPackServiceSupervisor({
  command: [process.execPath, 'bin/kindgi-pack-service.mjs'],
  moduleRoot: '.',
  // Values are passed as Node's spawn passes them: an undefined one is left out.
  env: async () => ({ PATH: process.env.PATH }),
  onEvent: (event: PackServiceSupervisorEvent) => void event.kind,
  onLog: (line: string, stream: 'stdout' | 'stderr') => void [line, stream],
});
const supervised: Promise<{ readonly url: string; readonly port: number }> = supervisor.listen();
const relayed: Promise<PackRelayOutcome> = supervisor.relay.forward({ route: 'info', tenantId: 't', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
const kind: string | undefined = serviceEvent('{}')?.kind;
// An event built the TypeScript way (its `log` event has no `line`).
const tsLogEvent: PackServiceSupervisorEvent = { kind: 'log', event: { kind: 'listening', port: 1 } };
void [supervised, relayed, kind, tsLogEvent];

// readBundleMap never rejects: a map, or a message.
async function bundleMapShape(): Promise<string> {
  const read = await readBundleMap('dist/bundle-map.json');
  return read.kind === 'ok' ? (read.value['tools/a.ts'] ?? '') : read.message;
}
void bundleMapShape;

// What a TypeScript caller of @kindgi/handler-runtime writes still type-checks after the swap.
import { NATIVE_ERROR_CODES, type HandlerContext, type PackCallContext, type IndexedTool } from '../index.js';
import { main as mainFromSubpath } from '../lib/pack-service.js';
// The TypeScript PackService: our service is one, and a caller's own fake still is.
const asPlain: PackService = service;
const fake: PackService = {
  handle: () => undefined,
  prewarm: async () => [],
  drain: async () => undefined,
  inFlight: () => 0,
  ready: () => true,
};
// A typed index goes to createPackService; its entries are typed.
const typedIndex = JSON.parse('{}') as Index;
const modulePaths: string[] = typedIndex.tools.map((tool: IndexedTool) => tool.modulePath);
void createPackService({ index: typedIndex, resolveModule: (p: string) => p, token: 't' });
// A wire ctx is a HandlerContext; ctx.log is a logger.
declare const wireCtx: PackCallContext;
const handlerCtx: HandlerContext = wireCtx;
handlerCtx.log?.info('looked up', { n: 1 });
// The TypeScript supervisor's test seam is accepted.
void createPackServiceSupervisor({ command: ['node'], moduleRoot: '.', env: async () => ({}), nextTurn: (fn: () => void) => fn() });
// Native extensions: a held spare, and a start that does not use it.
const spared = createPackServiceSupervisor({ command: ['node'], moduleRoot: '.', env: async () => ({}), spare: true });
void spared.start('index.json', { fresh: true });
const codes: readonly string[] = NATIVE_ERROR_CODES;
const exitCode: Promise<number> = mainFromSubpath([], {});
void [asPlain, fake, modulePaths, codes, exitCode];

// ---------------------------------------------------------------------------------------------
// The types a @kindgi/handler-runtime caller already holds, copied by shape (`@kindgi/log`'s
// Logger, packages/log/src/types.ts; `@kindgi/flow`'s FlowOutputSpec, packages/flow/src/types.ts;
// handler-runtime's index types, src/kindgi-index.ts): each assigns to ours and back.
type TsLogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';
type TsLogFields = Readonly<Record<string, unknown>>;
interface TsLogOptions {
  readonly inMessage?: readonly string[];
}
interface TsLogger {
  error(message: string, fields?: TsLogFields, options?: TsLogOptions): void;
  warn(message: string, fields?: TsLogFields, options?: TsLogOptions): void;
  info(message: string, fields?: TsLogFields, options?: TsLogOptions): void;
  debug(message: string, fields?: TsLogFields, options?: TsLogOptions): void;
  trace(message: string, fields?: TsLogFields, options?: TsLogOptions): void;
  child(bindings: TsLogFields): TsLogger;
  isLevelEnabled(level: TsLogLevel): boolean;
}
interface TsPackServiceLogs {
  readonly log: TsLogger;
  event(kind: 'listening' | 'boot-failed' | 'config-invalid' | 'draining' | 'stopped', message: string, fields?: TsLogFields): void;
}
interface TsLiteralOperand {
  readonly literal: unknown;
}
interface TsPathOperand {
  readonly path: string;
}
type TsMapping = Readonly<Record<string, TsLiteralOperand | TsPathOperand>>;
interface TsFlowOutputSpec {
  readonly mapping: TsMapping;
  readonly schema?: Readonly<Record<string, unknown>>;
}
interface TsIndexedTool {
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
  readonly spec?: Readonly<Record<string, unknown>>;
  readonly mutating?: boolean;
  readonly modulePath: string;
}
interface TsIndexedGuardrail {
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
interface TsIndexedAgent {
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
  readonly memory?: Readonly<Record<string, unknown>>;
  readonly modulePath: string;
}
interface TsIndexedFlow {
  readonly id: string;
  readonly version: string;
  readonly name?: string;
  readonly description?: string;
  readonly nodes: readonly unknown[];
  readonly edges: readonly unknown[];
  readonly maxParallelism?: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly output?: TsFlowOutputSpec;
  readonly kernelPayloadVersion: number;
  readonly modulePath: string;
}
interface TsIndex {
  readonly v: 1;
  readonly packId: string;
  readonly packVersion: string;
  readonly artifactVersion: string;
  readonly publishedAt: string;
  readonly tools: readonly TsIndexedTool[];
  readonly guardrails: readonly TsIndexedGuardrail[];
  readonly agents: readonly TsIndexedAgent[];
  readonly flows: readonly TsIndexedFlow[];
  readonly env?: { readonly required: readonly string[]; readonly optional: readonly string[] };
}

import type { PackServiceLogger, PackServiceLogs } from '../lib/pack-service.js';
import { packServiceLogs } from '../lib/pack-service.js';
import type { IndexedAgent, IndexedFlow, IndexedGuardrail, FlowOutputSpec } from '../lib/kindgi-index.js';
type Both<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const mutual: [
  Both<TsLogger, PackServiceLogger>,
  Both<TsPackServiceLogs, PackServiceLogs>,
  Both<TsFlowOutputSpec, FlowOutputSpec>,
  Both<TsIndexedTool, IndexedTool>,
  Both<TsIndexedGuardrail, IndexedGuardrail>,
  Both<TsIndexedAgent, IndexedAgent>,
  Both<TsIndexedFlow, IndexedFlow>,
  Both<TsIndex, Index>,
] = [true, true, true, true, true, true, true, true];

// ctx.log is @kindgi/log's Logger: isLevelEnabled is there to call.
const costly = (_input: unknown, ctx: HandlerContext): unknown => {
  if (ctx.log?.isLevelEnabled('debug')) ctx.log.debug('costly', { n: 1 }, { inMessage: ['n'] });
  const asTs: TsLogger | undefined = ctx.log;
  return asTs;
};
declare const tsLogger: TsLogger;
void createPackService({ index: typedIndex, resolveModule: (p: string) => p, token: 't', log: tsLogger });
const built = packServiceLogs({ env: {} });
if (built.kind === 'ok') {
  const asTsLogs: TsPackServiceLogs = built.logs;
  const enabled: boolean = built.logs.log.child({ a: 1 }).isLevelEnabled('trace');
  void [asTsLogs, enabled];
}

// An index runIndexer typed goes to createPackService and writeIndex, and ours goes back.
declare const tsIndex: TsIndex;
void createPackService({ index: tsIndex, resolveModule: (p: string) => p, token: 't' });
void writeIndex(tsIndex, 'index.json');
const backToTs: TsIndex = typedIndex;
const agentWithMemory: IndexedAgent = {
  id: 'a',
  version: '1.0.0',
  name: 'A',
  instructions: 'x',
  capabilities: [],
  tools: [],
  memory: { instructionTypes: ['fact'] },
  modulePath: 'agents/a.ts',
};
declare const someFlow: IndexedFlow;
const mapped: TsMapping | undefined = someFlow.output?.mapping;
const operand = someFlow.output?.mapping['answer'];
const operandPath: string | undefined = operand !== undefined && 'path' in operand ? operand.path : undefined;
void [mutual, costly, backToTs, agentWithMemory, mapped, operandPath];

// ./build-extensions: `image` in kindgi.config, the shapes of TypeScript's src/build-extensions.ts.
import {
  defineBuildExtension,
  prisma,
  type BuildExtension,
  type BuildStep,
  type ImageConfig,
  type PrismaExtensionOptions,
} from '../lib/build-extensions.js';
interface TsBuildStep {
  readonly bin: string;
  readonly args?: readonly string[];
}
interface TsBuildExtension {
  readonly name: string;
  readonly contextFiles?: readonly string[];
  readonly systemPackages?: readonly string[];
  readonly postInstall?: readonly TsBuildStep[];
  readonly buildEnv?: Readonly<Record<string, string>>;
}
interface TsImageConfig {
  readonly systemPackages?: readonly string[];
  readonly extensions?: readonly TsBuildExtension[];
  readonly buildEnv?: Readonly<Record<string, string>>;
}
interface TsPrismaExtensionOptions {
  readonly schema: string;
  readonly config?: string;
}
const buildShapes: [
  Both<TsBuildStep, BuildStep>,
  Both<TsBuildExtension, BuildExtension>,
  Both<TsImageConfig, ImageConfig>,
  Both<TsPrismaExtensionOptions, PrismaExtensionOptions>,
  Both<(options: TsPrismaExtensionOptions) => TsBuildExtension, typeof prisma>,
  Both<(extension: TsBuildExtension) => TsBuildExtension, typeof defineBuildExtension>,
] = [true, true, true, true, true, true];
const image: ImageConfig = {
  systemPackages: ['tesseract-ocr'],
  extensions: [
    prisma({ schema: 'prisma/schema.prisma', config: 'prisma.config.ts' }),
    defineBuildExtension({ name: 'patch-package', contextFiles: ['patches/a.patch'], postInstall: [{ bin: 'patch-package' }] }),
  ],
  buildEnv: { DATABASE_URL: 'postgresql://build-placeholder' },
};
void [buildShapes, image];

// What the Kindgi CLI (`kindgi dev`) imports from @kindgi/handler-runtime, here from the root.
import {
  runIndexer,
  DEFAULT_DISCOVERY,
  PACK_ENV_CHECK_VAR,
  createGlobMatcher,
  discoveryRoots,
  findKindgiConfig,
  loadKindgiConfig,
  isJvmLanguage,
  packLanguage,
  resolveDiscovery,
  RESERVED_CHECK_IDS,
  PRESET_DECLARATION_SETTINGS,
  KINDGI_JSON_CONFIG_FILENAME,
  KINDGI_INDEX_HELP_TEXT,
  kindgiIndexMain,
  type IndexerReport,
  type IndexerWarning,
  type KindgiConfig,
  type KindgiPresetDeclaration,
} from '../index.js';
import { main as indexMain, HELP_TEXT } from '../lib/kindgi-index.js';

async function indexThenServe(packDir: string): Promise<number> {
  const outcome = await runIndexer({ packDir, outputPath: `${packDir}/.kindgi/index.json`, publishedAt: 'x' });
  if (outcome.kind === 'err') return outcome.error.code.length;
  const report: IndexerReport = outcome.value;
  const warnings: readonly IndexerWarning[] = report.warnings;
  const matches = createGlobMatcher(Object.values(DEFAULT_DISCOVERY));
  const roots: readonly string[] = discoveryRoots(Object.values(resolveDiscovery(undefined, 'python')));
  const found = await findKindgiConfig(packDir);
  const format: 'module' | 'pyproject' | 'json' | undefined = found?.format;
  const loaded = await loadKindgiConfig(packDir);
  if (loaded.kind === 'ok') {
    const config: KindgiConfig = loaded.value;
    const jvm: boolean = isJvmLanguage(packLanguage(config));
    void jvm;
  }
  const preset: KindgiPresetDeclaration = { preset: 'bedrock', region: 'us-east-2' };
  // @ts-expect-error: bedrock's declaration takes no `project` (gemini's setting).
  const wrong: KindgiPresetDeclaration = { preset: 'bedrock', region: 'x', project: 'p' };
  void [warnings, matches('tools/a.ts'), roots, format, preset, wrong, PACK_ENV_CHECK_VAR, createPackServiceSupervisor];
  void [RESERVED_CHECK_IDS, PRESET_DECLARATION_SETTINGS.gemini, KINDGI_JSON_CONFIG_FILENAME, KINDGI_INDEX_HELP_TEXT, HELP_TEXT];
  return (await kindgiIndexMain(['--help'])) + (await indexMain(['--version']));
}
void indexThenServe;
