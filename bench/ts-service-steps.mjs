// A stand-in for the TypeScript pack service, for `npm run bench service` only. It is NOT the
// `@kindgi/handler-runtime` package (that package is not installed here, and none of its code is
// in this file): it was written for this repository from the TypeScript service's documented
// per-call steps, so that the bench can put a TypeScript column next to the native one. It does
// on node:http, in the TypeScript service's order, what that service does for each call:
//
//   route and method, the token (compared with timingSafeEqual), readiness, the concurrency cap
//   and the content type; the in-flight count; the body read as text under the size limit;
//   JSON.parse; the request's shape (envelope, kind, tool or check reference, ctx); the tool by
//   id and version; an AbortController with a deadline timer and a `close` listener; the call's
//   logger bindings; then the runner: the input validator found by its side and schema text in
//   a first-in-first-out Map of 512, a structuredClone of the input validated by Ajv (which
//   fills defaults), the module by a dynamic import of its file URL on every call (Node's
//   module cache answers), the handler resolved and called, raced against the abort, the output
//   validator found the same way and Ajv's output check; then the answer, JSON.stringify'd, with
//   the duration and artifact-version headers, and the call's record.
//
// Ajv is set up as the TypeScript package sets it up: Ajv2020, strict, allErrors,
// allowUnionTypes, ajv-formats, and useDefaults on the input side, a fresh Ajv per schema.
//
// What it leaves out (docs/benchmarks.md says so too): records go to a logger that writes
// nothing (the TypeScript service writes an `@kindgi/log` JSON line on stderr per call, as the
// native service does); no env filter or bundle map; `listening` is its one stderr line; Zod
// input schemas are parsed through their standard-schema `validate`, not `@kindgi/schema`.
//
// Usage: KINDGI_PACK_SERVICE_TOKEN=… PORT=0 node bench/ts-service-steps.mjs --index <index.json>
// [--module-root <dir>] [--host <address>]
import { timingSafeEqual, randomBytes } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import http from 'node:http';
import { dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule.default ?? addFormatsModule;

const MAX_CONCURRENCY_DEFAULT = 32;
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS_DEFAULT = 120_000;
const VALIDATOR_CACHE_SIZE = 512;

// ---------------------------------------------------------------------------------------------
// The runner's validators: one Ajv per side and schema, found by the schema's text.

const validators = new Map();

function validatorFor(schema, side) {
  const key = `${side}:${JSON.stringify(schema)}`;
  const known = validators.get(key);
  if (known !== undefined) return known;
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, ...(side === 'input' && { useDefaults: true }) });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  if (validators.size >= VALIDATOR_CACHE_SIZE) validators.delete(validators.keys().next().value);
  validators.set(key, validate);
  return validate;
}

const errorText = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** A thrown value as the wire carries it. */
function causeOf(e) {
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack };
  if (e === undefined) return null;
  if (e === null || ['string', 'number', 'boolean'].includes(typeof e)) return e;
  try {
    JSON.stringify(e);
    return e;
  } catch {
    return String(e);
  }
}

const failed = (code, message, extra) => ({ ok: false, error: { code, message, ...extra } });

/** The handler a module exports: itself, or default / handler / run, one level into an object. */
function handlerIn(mod) {
  if (typeof mod === 'function') return mod;
  if (typeof mod !== 'object' || mod === null) return undefined;
  for (const candidate of [mod.default, mod.handler, mod.run]) {
    if (candidate === undefined || candidate === null) continue;
    if (typeof candidate === 'function') return candidate;
    if (typeof candidate === 'object') {
      if (typeof candidate.handler === 'function') return candidate.handler;
      if (typeof candidate.run === 'function') return candidate.run;
    }
  }
  return undefined;
}

/** A `defineTool` export's Zod input schema, found by its shape. */
function zodInputIn(mod) {
  if (typeof mod !== 'object' || mod === null) return undefined;
  for (const candidate of [mod.default, mod.handler, mod.run]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const z = candidate.inputZod;
    if (typeof z === 'object' && z !== null && typeof z._zod === 'object' && z['~standard'] !== undefined) return z;
  }
  return undefined;
}

async function runTool({ tool, input, ctx, importModule }) {
  let checkInput;
  try {
    checkInput = validatorFor(tool.inputSchema, 'input');
  } catch (e) {
    return failed('input-validation-failed', `Tool "${tool.id}" input schema failed to compile: ${errorText(e)}`, { cause: causeOf(e) });
  }
  const copy = structuredClone(input);
  if (!checkInput(copy)) {
    return failed('input-validation-failed', `Tool "${tool.id}" input failed validation`, { issues: checkInput.errors ?? [] });
  }
  let mod;
  try {
    mod = await importModule(tool.modulePath);
  } catch (e) {
    return failed('handler-import-failed', `Failed to import handler module '${tool.modulePath}': ${errorText(e)}`, { cause: causeOf(e) });
  }
  const handler = handlerIn(mod);
  const zod = zodInputIn(mod);
  if (handler === undefined) {
    return failed('handler-shape-invalid', `Handler module '${tool.modulePath}' does not export a handler function (looked for default / handler / run)`);
  }
  let value = copy;
  if (zod !== undefined) {
    const parsed = await zod['~standard'].validate(copy);
    if (parsed.issues) {
      const issues = parsed.issues.map((i) => ({ instancePath: (i.path ?? []).map((p) => `/${String(typeof p === 'object' ? p.key : p)}`).join(''), message: i.message }));
      return failed('input-validation-failed', `Tool "${tool.id}" input failed validation`, { issues });
    }
    value = parsed.value;
  }
  let output;
  try {
    output = await handler(value, ctx);
  } catch (e) {
    return failed('handler-throw', `Handler for tool "${tool.id}" threw: ${errorText(e)}`, { cause: causeOf(e) });
  }
  let checkOutput;
  try {
    checkOutput = validatorFor(tool.outputSchema, 'output');
  } catch (e) {
    return failed('output-validation-failed', `Tool "${tool.id}" output schema failed to compile: ${errorText(e)}`, { cause: causeOf(e) });
  }
  if (!checkOutput(output)) {
    return failed('output-validation-failed', `Tool "${tool.id}" handler produced output that failed validation`, { issues: checkOutput.errors ?? [] });
  }
  return { ok: true, value: output };
}

async function runGuardrailCheck({ check, config, trace, signal, importModule }) {
  if (check.configSchema !== undefined) {
    let checkConfig;
    try {
      checkConfig = validatorFor(check.configSchema, 'output');
    } catch (e) {
      return failed('input-validation-failed', `Check "${check.id}" config schema failed to compile: ${errorText(e)}`, { cause: causeOf(e) });
    }
    if (!checkConfig(config)) {
      const issues = checkConfig.errors ?? [];
      const first = issues[0];
      const where = first === undefined ? '' : `${first.instancePath === '' ? '' : ` at ${first.instancePath}`}: ${first.message ?? 'invalid'}`;
      return failed('input-validation-failed', `Check "${check.id}" config failed validation${where}`, { issues });
    }
  }
  let mod;
  try {
    mod = await importModule(check.modulePath);
  } catch (e) {
    return failed('handler-import-failed', `Failed to import check module '${check.modulePath}': ${errorText(e)}`, { cause: causeOf(e) });
  }
  let evaluate;
  for (const candidate of [mod?.evaluate, mod?.default, mod?.check]) {
    if (candidate === undefined || candidate === null) continue;
    if (typeof candidate === 'function') evaluate = candidate;
    else if (typeof candidate.evaluate === 'function') evaluate = candidate.evaluate;
    if (evaluate !== undefined) break;
  }
  if (evaluate === undefined) {
    return failed('check-shape-invalid', `Check module '${check.modulePath}' does not export a check with .evaluate() (looked for default / check / bare export with evaluate)`);
  }
  try {
    return { ok: true, value: await evaluate(config, trace, signal === undefined ? {} : { abortSignal: signal }) };
  } catch (e) {
    return failed('handler-throw', `Check "${check.id}" evaluate() threw: ${errorText(e)}`, { cause: causeOf(e) });
  }
}

// ---------------------------------------------------------------------------------------------
// Messages.

const errorMessage = (code, message, extra = {}) => ({ v: 2, kind: 'error', code, message, ...extra });
const isObject = (x) => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The request's shape, or the error message that refuses it. */
function readRequest(m) {
  if (!isObject(m)) return { refused: errorMessage('malformed-message', 'Message must be a JSON object') };
  if (m.v !== 2) return { refused: errorMessage('unknown-protocol-version', `Expected protocol v2, got ${JSON.stringify(m.v)}`) };
  if (m.kind === 'invoke') {
    const { tool, ctx } = m;
    if (!isObject(tool) || typeof tool.id !== 'string' || tool.id === '') return { refused: errorMessage('malformed-message', '`tool.id` is required') };
    if (tool.version !== undefined && typeof tool.version !== 'string') return { refused: errorMessage('malformed-message', '`tool.version` must be a string') };
    if (!isObject(ctx) || typeof ctx.tenantId !== 'string' || typeof ctx.runId !== 'string') {
      return { refused: errorMessage('malformed-message', '`ctx` needs string `tenantId` and `runId`') };
    }
    return { message: m };
  }
  if (m.kind === 'check-invoke') {
    const { check } = m;
    if (!isObject(check) || typeof check.id !== 'string' || check.id === '') return { refused: errorMessage('malformed-message', '`check.id` is required') };
    if (!isObject(m.config)) return { refused: errorMessage('malformed-message', '`config` must be an object') };
    return { message: m };
  }
  return { refused: errorMessage('unexpected-message-kind', `Unknown request kind ${JSON.stringify(m.kind)}`) };
}

// ---------------------------------------------------------------------------------------------
// Records: a logger that writes nothing, called where the TypeScript service calls its logger.

const silent = { child: () => silent, info() {}, warn() {}, error() {}, debug() {} };

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The caller's trace id and a new span, when a usable `traceparent` came. */
function traceOf(header) {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== 'string') return {};
  const m = TRACEPARENT.exec(raw.trim());
  if (m === null || m[1] === 'ff' || (m[1] === '00' && raw.trim().length !== 55)) return {};
  if (/^0+$/.test(m[2]) || /^0+$/.test(m[3])) return {};
  return { traceId: m[2], spanId: randomBytes(8).toString('hex') };
}

function idsOf(ctx) {
  const ids = {};
  if (ctx === undefined) return ids;
  for (const name of ['tenantId', 'projectId', 'orgId', 'runId', 'requestId']) {
    if (typeof ctx[name] === 'string' && ctx[name] !== '') ids[name] = ctx[name];
  }
  return ids;
}

// ---------------------------------------------------------------------------------------------
// The service.

function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

const busy = (error, extra) => ({ status: 503, body: { error, ...extra }, headers: { 'retry-after': '1' } });

/** The body as text, or undefined when it is over `limit` bytes (the rest is still read). */
function bodyText(req, limit) {
  return new Promise((done, fail) => {
    const parts = [];
    let bytes = 0;
    let over = false;
    req.on('data', (chunk) => {
      bytes += chunk.length;
      if (bytes > limit) over = true;
      if (!over) parts.push(chunk);
    });
    req.on('end', () => done(over ? undefined : Buffer.concat(parts).toString('utf8')));
    req.on('error', fail);
  });
}

function deadlineOf(raw) {
  if (typeof raw !== 'string') return undefined;
  const ms = Number(raw);
  return Number.isInteger(ms) && ms > 0 ? ms : undefined;
}

/** Settles with the error message for an aborted call, once its signal aborts. */
function whenAborted(signal, id, target) {
  return new Promise((settle) => {
    const answer = () => {
      const ids = target === 'tool' ? { toolId: id } : { checkId: id };
      settle(
        signal.reason === 'deadline-exceeded'
          ? errorMessage('deadline-exceeded', `${id} passed its deadline`, ids)
          : errorMessage('cancelled', `${id} was cancelled`, ids),
      );
    };
    if (signal.aborted) answer();
    else signal.addEventListener('abort', answer, { once: true });
  });
}

function createService({ index, moduleRoot, token, maxConcurrency }) {
  const log = silent;
  const onEvent = () => undefined;
  const expected = Buffer.from(token);
  const importModule = (path) => import(pathToFileURL(path).href);
  const modulePath = (p) => (isAbsolute(p) ? p : resolve(moduleRoot, p));
  const keyOf = (id, version) => (version === undefined ? id : `${id}@${version}`);

  const tools = new Map(index.tools.map((t) => [keyOf(t.id, t.version), t]));
  const toolVersions = new Map();
  for (const t of index.tools) toolVersions.set(t.id, [...(toolVersions.get(t.id) ?? []), t]);
  const checks = new Map((index.guardrails ?? []).map((g) => [g.checkId ?? g.id, g]));
  const missingEnv = (index.env?.required ?? []).filter((name) => process.env[name] === undefined || process.env[name] === '');

  let inFlight = 0;
  let ready = false;
  let draining = false;

  const unready = () => {
    if (draining) return busy('draining');
    if (missingEnv.length > 0) return busy('missing env', { missingEnv });
    if (!ready) return busy('not ready');
    return undefined;
  };

  const tokenOk = (req) => {
    const got = req.headers['kindgi-pack-token'];
    if (typeof got !== 'string') return false;
    const bytes = Buffer.from(got);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };

  async function prewarm() {
    const problems = [];
    const paths = [...[...tools.values()].map((t) => [t.id, t.modulePath]), ...[...checks].map(([id, g]) => [id, g.checkModulePath])];
    for (const [id, p] of paths) {
      try {
        await importModule(modulePath(p));
      } catch (e) {
        problems.push(`${id}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    ready = problems.length === 0;
    return problems;
  }

  function pickTool(ref) {
    const versions = toolVersions.get(ref.id) ?? [];
    if (versions.length === 0) return { refused: errorMessage('tool-not-in-pack', `This pack has no tool "${ref.id}"`, { toolId: ref.id }) };
    const have = versions.map((t) => t.version ?? 'unversioned').join(', ');
    const tool = ref.version === undefined ? (versions.length === 1 ? versions[0] : undefined) : tools.get(keyOf(ref.id, ref.version));
    if (tool !== undefined) return { tool };
    const why =
      ref.version === undefined
        ? `Tool "${ref.id}" has several versions in this pack (${have}); the caller named none`
        : `Tool "${ref.id}" is ${have} in this pack; the caller asked for ${ref.version}`;
    return { refused: errorMessage('tool-version-mismatch', why, { toolId: ref.id }) };
  }

  /** The handler's context: the wire's fields and the signal; `secrets` and `log` not enumerable. */
  function contextFor(wire, signal, callLog) {
    const { secrets, ...fields } = wire;
    const ctx = { ...fields, abortSignal: signal };
    if (secrets !== undefined) Object.defineProperty(ctx, 'secrets', { value: secrets, enumerable: false });
    Object.defineProperty(ctx, 'log', { value: callLog, enumerable: false });
    return ctx;
  }

  const asError = (error, ids) =>
    errorMessage(error.code, error.message, {
      ...ids,
      ...(error.cause !== undefined && { cause: error.cause }),
      ...(error.issues !== undefined && { issues: error.issues }),
    });

  function invokeTool(message, signal, callLog) {
    const picked = pickTool(message.tool);
    if (picked.refused) return Promise.resolve(picked.refused);
    const { tool } = picked;
    return runTool({
      tool: { id: tool.id, modulePath: modulePath(tool.modulePath), inputSchema: tool.input, outputSchema: tool.output },
      input: message.input,
      ctx: contextFor(message.ctx, signal, callLog),
      importModule,
    }).then((r) => (r.ok ? { v: 2, kind: 'result', output: r.value } : asError(r.error, { toolId: tool.id })));
  }

  function invokeCheck(message, signal) {
    const g = checks.get(message.check.id);
    if (g === undefined) return Promise.resolve(errorMessage('check-not-in-pack', `This pack has no check "${message.check.id}"`, { checkId: message.check.id }));
    return runGuardrailCheck({
      check: { id: message.check.id, modulePath: modulePath(g.checkModulePath), ...(g.configSchema !== undefined && { configSchema: g.configSchema }) },
      config: message.config,
      trace: message.trace,
      signal,
      importModule,
    }).then((r) => (r.ok ? { v: 2, kind: 'check-result', result: r.value } : asError(r.error, { checkId: message.check.id })));
  }

  async function answer(req, res, text) {
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      return errorMessage('malformed-message', 'Request body is not valid JSON');
    }
    const read = readRequest(json);
    if (read.refused) return read.refused;
    const { message } = read;
    const isTool = message.kind === 'invoke';
    const target = isTool ? 'tool' : 'check';
    const id = isTool ? message.tool.id : message.check.id;

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort('deadline-exceeded'), deadlineOf(req.headers['kindgi-timeout-ms']) ?? TIMEOUT_MS_DEFAULT);
    res.on('close', () => {
      if (!res.writableEnded) controller.abort('cancelled');
    });

    const began = Date.now();
    const callLog = log.child({ ...idsOf(isTool ? message.ctx : undefined), ...traceOf(req.headers.traceparent), target, ...(isTool ? { toolId: id } : { checkId: id }) });
    const work = isTool ? invokeTool(message, controller.signal, callLog.child({ subsystem: `pack.${target}` })) : invokeCheck(message, controller.signal);
    const outcome = await Promise.race([work, whenAborted(controller.signal, id, target)]);
    clearTimeout(timer);
    if (controller.signal.aborted) {
      void work.then(() => {
        const afterMs = Date.now() - began;
        onEvent({ kind: 'handler-finished-late', target, id, afterMs });
        callLog.warn(`${target} ${id} finished ${afterMs} ms after its call ended`, { event: 'handler-finished-late', kind: 'handler-finished-late', afterMs });
      });
    }
    const durationMs = Date.now() - began;
    const result = outcome.kind === 'error' ? outcome.code : 'ok';
    onEvent({ kind: 'call', target, id, durationMs, outcome: result });
    callLog[result === 'ok' ? 'info' : 'warn'](
      `${target} ${id} ${result} ${durationMs}ms`,
      { event: 'call', kind: 'call', id, outcome: result, durationMs },
      { inMessage: ['target', 'id', 'outcome', 'durationMs'] },
    );
    return outcome;
  }

  async function invoke(req, res) {
    const refused = unready() ?? (inFlight >= maxConcurrency ? busy('overloaded') : undefined);
    if (refused) return send(res, refused.status, refused.body, refused.headers);
    if (!(req.headers['content-type'] ?? '').includes('application/json')) {
      return send(res, 415, { error: 'Content-Type must be application/json' });
    }
    inFlight += 1;
    const admitted = Date.now();
    try {
      const text = await bodyText(req, MAX_BODY_BYTES);
      const response = text === undefined ? undefined : await answer(req, res, text);
      if (res.writableEnded || res.destroyed) return;
      if (response === undefined) send(res, 413, { error: 'Request body too large' });
      else send(res, 200, response, { 'kindgi-duration-ms': String(Date.now() - admitted), 'kindgi-artifact-version': index.artifactVersion });
    } finally {
      inFlight -= 1;
    }
  }

  const routes = {
    '/v1/invoke': { method: 'POST', auth: true },
    '/v1/info': { method: 'GET', auth: true },
    '/healthz': { method: 'GET', auth: false },
    '/readyz': { method: 'GET', auth: false },
  };

  function handle(req, res) {
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    const route = routes[path];
    if (route === undefined) return send(res, 404, { error: `No route ${url}` });
    if (req.method !== route.method) return send(res, 405, { error: `Use ${route.method}` });
    if (route.auth && !tokenOk(req)) return send(res, 401, { error: 'Bad pack token' });
    if (path === '/healthz') return send(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const r = unready() ?? { status: 200, body: { status: 'ready' } };
      return send(res, r.status, r.body, r.headers);
    }
    if (path === '/v1/info') {
      return send(res, 200, {
        protocol: 2,
        packId: index.packId,
        packVersion: index.packVersion,
        artifactVersion: index.artifactVersion,
        tools: [...tools.values()].map((t) => ({ id: t.id, ...(t.version && { version: t.version }) })),
        checks: [...checks.keys()],
        missingEnv,
      });
    }
    invoke(req, res).catch((e) => {
      if (!res.writableEnded) send(res, 500, { error: e instanceof Error ? e.message : String(e) });
    });
  }

  async function drain(graceMs) {
    draining = true;
    const until = Date.now() + graceMs;
    while (inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  }

  return { handle, prewarm, drain };
}

// ---------------------------------------------------------------------------------------------
// The process.

function line(level, message, fields) {
  const severity = { info: 'INFO', error: 'ERROR' }[level];
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, severity, subsystem: 'pack', message, ...fields })}\n`);
}

async function main(argv) {
  const arg = (name) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const indexPath = resolve(arg('--index') ?? process.env.KINDGI_PACK_INDEX ?? '/app/index.json');
  const moduleRoot = resolve(arg('--module-root') ?? dirname(indexPath));
  const host = arg('--host');
  const token = (process.env.KINDGI_PACK_SERVICE_TOKEN ?? '').trim();
  const port = Number(process.env.PORT ?? '8080');
  const maxConcurrency = Number(process.env.KINDGI_PACK_SERVICE_MAX_CONCURRENCY ?? MAX_CONCURRENCY_DEFAULT);
  const problems = [];
  if (!/^[\x21-\x7e]+$/.test(token)) problems.push('KINDGI_PACK_SERVICE_TOKEN is required (printable ASCII, no spaces)');
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) problems.push('KINDGI_PACK_SERVICE_MAX_CONCURRENCY must be a positive integer');
  if (problems.length > 0) {
    line('error', 'The pack service configuration is invalid', { problems, event: 'config-invalid', kind: 'config-invalid' });
    return 1;
  }
  delete process.env.KINDGI_PACK_SERVICE_TOKEN;

  let index;
  try {
    index = JSON.parse(await readFile(indexPath, 'utf8'));
    if (index.v !== 1) throw new Error(`Index envelope v${String(index.v)} is not v1`);
    const paths = [...index.tools.map((t) => t.modulePath), ...(index.guardrails ?? []).map((g) => g.checkModulePath)];
    const missing = [];
    for (const p of paths) await access(isAbsolute(p) ? p : resolve(moduleRoot, p)).catch(() => missing.push(`Missing module: ${p}`));
    if (missing.length > 0) throw new Error(missing.join('; '));
  } catch (e) {
    line('error', 'The pack service failed to boot', { problems: [e.message], event: 'boot-failed', kind: 'boot-failed' });
    return 1;
  }
  const service = createService({ index, moduleRoot, token, maxConcurrency });
  const failures = await service.prewarm();
  if (failures.length > 0) {
    line('error', 'The pack service failed to boot', { problems: failures, event: 'boot-failed', kind: 'boot-failed' });
    return 1;
  }
  const server = http.createServer(service.handle);
  await new Promise((listening) => server.listen(port, host, listening));
  const bound = server.address().port;
  line('info', `Listening on port ${bound}`, { port: bound, packId: index.packId, artifactVersion: index.artifactVersion, event: 'listening', kind: 'listening' });

  await new Promise((stop) => process.once('SIGTERM', stop));
  line('info', 'Draining: finishing the calls in flight', { event: 'draining', kind: 'draining' });
  await service.drain(8000);
  server.close();
  server.closeAllConnections();
  line('info', 'Stopped', { event: 'stopped', kind: 'stopped' });
  return 0;
}

process.exit(await main(process.argv.slice(2)));
