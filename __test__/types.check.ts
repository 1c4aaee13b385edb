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
  env: async () => ({}),
  onEvent: (event: PackServiceSupervisorEvent) => void event.kind,
  onLog: (line: string, stream: 'stdout' | 'stderr') => void [line, stream],
});
const supervised: Promise<{ readonly url: string; readonly port: number }> = supervisor.listen();
const relayed: Promise<PackRelayOutcome> = supervisor.relay.forward({ route: 'info', tenantId: 't', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
const kind: string | undefined = serviceEvent('{}')?.kind;
void [supervised, relayed, kind];

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
const codes: readonly string[] = NATIVE_ERROR_CODES;
const exitCode: Promise<number> = mainFromSubpath([], {});
void [asPlain, fake, modulePaths, codes, exitCode];
