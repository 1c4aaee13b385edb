// createPackService: the service. HTTP, routing, admission, deadlines and cancellation run in
// Rust (src/service/); pack code runs here, started by the native dispatcher and ended with
// `settle`, never by returning a Promise to Rust (see docs/design.md, *Calling pack code*).
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { describe, invalidArgument, nativeError } from '../errors.js';
import { describeMessage, describeThrow, parseWithZod, resolveHandler, resolveInputZod, runCheck, serializeCause } from '../handler-runner.js';
import { nativeLoggerParts } from '../log-records.js';
import { native } from '../native.js';
import { missingPackEnv } from '../pack-env.js';
import { runnerMessage } from '../runner-messages.js';
import { compileSchema, fillDefaults, markedJson, passesFast, readThrow } from '../validate.js';
import { keepCallbacks, weakCallbacks } from '../weak-callbacks.js';
import { CallState, handlerContext } from './call-context.js';
import { PACK_SERVICE_DRAIN_MS, pinnedTenant } from './config.js';
import { nodeHandler } from './node-handler.js';
import { startWorkerThreads } from './workers.js';

// The core's defaults (src/service/core.rs), read once.
const {
  maxConcurrency: DEFAULT_MAX_CONCURRENCY,
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
  stallMs: DEFAULT_STALL_MS,
} = native.serviceDefaults();

/** Each service's native object, for the process's SIGTERM (`nativeServiceOf`). */
const natives = new WeakMap();

/** The native object behind a service `createPackService` made. */
export function nativeServiceOf(service) {
  return natives.get(service);
}

const noop = () => undefined;

/** A logger that writes nothing: `ctx.log` when the service has no `log` (`@kindgi/log`'s). */
const noopLogger = {
  error: noop,
  warn: noop,
  info: noop,
  debug: noop,
  trace: noop,
  child: () => noopLogger,
  isLevelEnabled: () => false,
};

const describeCause = describeMessage;

/** A grace period as TypeScript's drain reads it: anything but a number ends it at once. */
const graceOf = (ms) => (typeof ms === 'number' ? ms : 0);

/** A limit as TypeScript compares against it: any number from 0 up, Infinity for none. */
function limit(value, name, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw invalidArgument(`${name} must be a number from 0 up (Infinity for no limit), not ${describe(value)}`);
  }
  return value;
}

/**
 * How many JS threads `workers` asks for (`listen`'s option and the process's
 * KINDGI_PACK_SERVICE_WORKERS, whose rule is Rust's): undefined is 1.
 */
export function workerCount(workers, name) {
  if (workers === undefined) return 1;
  if (typeof workers !== 'number' && typeof workers !== 'string') {
    throw invalidArgument(`${name} must be auto or a whole number, not ${describe(workers)}`);
  }
  const read = native.packServiceWorkers(String(workers), availableParallelism());
  if (read.refusal !== undefined) throw invalidArgument(`${name} ${read.refusal}, not ${describe(workers)}`);
  return read.workers;
}

/** `Promise.withResolvers()`, which Node 20 lacks. */
function withResolvers() {
  let resolve;
  const promise = new Promise((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A runner failure as a protocol error, with the service's ids (the runner's are dropped). */
function fromHandlerError(error, ids) {
  return {
    v: 2,
    kind: 'error',
    code: error.code,
    message: error.message,
    ...ids,
    ...(error.cause !== undefined && { cause: error.cause }),
    ...(error.issues !== undefined && { issues: error.issues }),
  };
}

/** Whether an aborted handler ended because of its abort rather than ignoring it. */
function honouredAbort(call, response) {
  if (!call.aborted || response.kind !== 'error' || response.code !== 'handler-throw') return false;
  const cause = response.cause;
  try {
    return cause === call.reason || (cause !== null && typeof cause === 'object' && cause.name === 'AbortError');
  } catch {
    // A `name` getter that throws: not an AbortError.
    return false;
  }
}

/**
 * What the Rust catalog reads of the index: the envelope's fields and, of each tool and
 * guardrail, what keys it and what Rust checks. The rest (agents, descriptions, config
 * schemas, which JavaScript checks) stays here, so nothing there can fail the boot: the
 * TypeScript service reads only what it uses.
 */
function servedIndex(index) {
  const entries = (list, pick) =>
    Array.isArray(list) ? list.map((e) => (e !== null && typeof e === 'object' && !Array.isArray(e) ? pick(e) : e)) : list;
  return {
    v: index.v,
    packId: index.packId,
    packVersion: index.packVersion,
    artifactVersion: index.artifactVersion,
    tools: entries(index.tools, (t) => ({ id: t.id, version: t.version, modulePath: t.modulePath, input: t.input, output: t.output })),
    guardrails: entries(index.guardrails, (g) => ({ id: g.id, checkId: g.checkId, checkModulePath: g.checkModulePath })),
  };
}

export function createPackService(options) {
  return packService(options, undefined);
}

/**
 * A worker thread's part of the service shared as `shared` by the main thread
 * (`shareWithThreads`): the same pack code, its calls dispatched to this thread. Only
 * `prewarm` is offered; HTTP, admission and records are the main thread's.
 */
export function attachPackServiceThread(options, shared) {
  return packService(options, shared);
}

/** The service (`shared` undefined) or, on a worker thread, its part (see above). */
function packService(options, shared) {
  if (options === null || typeof options !== 'object') {
    throw invalidArgument(`options must be an object, not ${describe(options)}`);
  }
  const { index, resolveModule } = options;
  if (index === null || typeof index !== 'object' || Array.isArray(index)) {
    throw invalidArgument(`options.index must be the parsed index.json, not ${describe(index)}`);
  }
  if (typeof resolveModule !== 'function') {
    throw invalidArgument(`options.resolveModule must be a function, not ${describe(resolveModule)}`);
  }
  if (typeof options.token !== 'string') {
    throw invalidArgument(`options.token must be a string, not ${describe(options.token)}`);
  }
  if (options.envCheck !== undefined && options.envCheck !== 'strict' && options.envCheck !== 'warn') {
    const shown = typeof options.envCheck === 'string' ? JSON.stringify(options.envCheck) : describe(options.envCheck);
    throw invalidArgument(`options.envCheck must be 'strict' or 'warn', not ${shown}`);
  }
  for (const name of ['tenantId', 'indexHash']) {
    if (options[name] !== undefined && typeof options[name] !== 'string') {
      throw invalidArgument(`options.${name} must be a string, not ${describe(options[name])}`);
    }
  }
  // As readPackServiceConfig reads KINDGI_PACK_TENANT_ID: trimmed, blank is no pin (a pin
  // to '' answered 421 to every call), and one no header can carry is refused.
  const pinned = options.tenantId === undefined ? {} : pinnedTenant(options.tenantId, 'options.tenantId');
  if (pinned.problem !== undefined) throw invalidArgument(pinned.problem);
  const tenantId = pinned.tenant;
  const logger = options.logger ?? noop;
  const log = options.log ?? noopLogger;
  // A logger from packServiceLogs is written by Rust, call records included; any other logger
  // is called here, with each call's bindings from Rust.
  const nativeLog = nativeLoggerParts(log);
  const jsLog = nativeLog === undefined && log !== noopLogger ? log : undefined;
  /** `ctx.log` of a call with these bindings (JSON text from Rust; subsystem `pack.tool`). */
  const toolLog = (bindings) =>
    bindings === '' ? log : log.child({ ...JSON.parse(bindings), subsystem: 'pack.tool' });
  const importModule = options.importModule ?? ((p) => import(pathToFileURL(p).href));
  const envCheck = options.envCheck ?? 'strict';
  const missingEnv = missingPackEnv(index.env, options.env ?? process.env);
  // Said once, by the main thread.
  if (missingEnv.length > 0 && shared === undefined) {
    logger({ kind: 'missing-env', check: envCheck, names: missingEnv });
    log.warn(
      `The pack's env.required ${missingEnv.length === 1 ? 'name has' : 'names have'} no value: ${missingEnv.join(', ')}`,
      { event: 'missing-env', kind: 'missing-env', check: envCheck, names: missingEnv },
    );
  }

  /** The calls JS is running, by the id Rust gave them. */
  const calls = new Map();

  // Modules by their index position, imported once by prewarm (ES modules are cached by Node
  // anyway; this skips resolving the path and the import's promise on every call).
  const toolModules = new Map();
  const checkModules = new Map();

  /** A tool's or check's module: the prewarmed one, else imported now. */
  function moduleAt(modules, position, modulePath) {
    if (modules.has(position)) return modules.get(position);
    return Promise.resolve(modulePath).then((p) => importModule(resolveModule(p))).then((module) => {
      modules.set(position, module);
      return module;
    });
  }

  /**
   * Each tool's output validator, compiled once (the native cache holds the same one), or
   * `null` where its schema does not compile (Rust answers that call).
   */
  const outputValidators = new Map();

  function outputValidator(tool) {
    let validator = outputValidators.get(tool);
    if (validator === undefined) {
      try {
        validator = compileSchema(tool.output, 'output');
      } catch {
        validator = null;
      }
      outputValidators.set(tool, validator);
    }
    return validator;
  }

  const toolError = (tool, code, message, extra = {}) => ({
    v: 2,
    kind: 'error',
    code,
    message,
    toolId: tool.id,
    ...extra,
  });

  /**
   * Runs a tool's handler. Rust has checked the input (and filled its defaults); the output is
   * checked in `settleOutput`. What is left is JavaScript's part of the TypeScript runner, in
   * its order: the module, its handler, its Zod input schema, the call. Settles the call itself.
   */
  function callTool(id, position, message, defaults, call) {
    const tool = index.tools[position];
    // The input as the body holds it, with the defaults Rust filled when it checked it.
    const { input } = message;
    if (defaults !== '') fillDefaults(input, JSON.parse(defaults));
    const ctx = handlerContext(message.ctx, call);
    const module = moduleAt(toolModules, position, tool.modulePath);
    if (module instanceof Promise) {
      module.then(
        (loaded) => runToolModule(id, tool, loaded, input, ctx, call),
        (cause) =>
          settle(id, call, toolError(tool, 'handler-import-failed', runnerMessage('handlerImportFailed', { path: resolveModule(tool.modulePath), thrown: describeThrow(cause) }), { cause: serializeCause(cause) })),
      ).catch((cause) => fail(id, cause));
      return;
    }
    runToolModule(id, tool, module, input, ctx, call);
  }

  function runToolModule(id, tool, module, input, ctx, call) {
    // Both read before either is judged, as in TypeScript: a getter that throws escapes.
    const handler = resolveHandler(module);
    const inputZod = resolveInputZod(module);
    if (handler === undefined) {
      const where = resolveModule(tool.modulePath);
      settle(id, call, toolError(tool, 'handler-shape-invalid', runnerMessage('handlerShapeInvalid', { path: where })));
      return;
    }
    if (inputZod === undefined) {
      runToolHandler(id, tool, handler, input, ctx, call);
      return;
    }
    parseWithZod(inputZod, input).then((parsed) => {
      if (parsed.ok) {
        runToolHandler(id, tool, handler, parsed.value, ctx, call);
      } else {
        settle(id, call, toolError(tool, 'input-validation-failed', runnerMessage('toolInputInvalid', { id: tool.id }), { issues: parsed.issues }));
      }
    }).catch((cause) => fail(id, cause));
  }

  function runToolHandler(id, tool, handler, input, ctx, call) {
    const threw = (cause) =>
      settle(id, call, toolError(tool, 'handler-throw', runnerMessage('handlerThrew', { id: tool.id, thrown: describeThrow(cause) }), { cause: serializeCause(cause) }));
    let output;
    try {
      output = handler(input, ctx);
    } catch (cause) {
      threw(cause);
      return;
    }
    // A plain value is answered at once; anything else is awaited, as `await` would.
    if (output !== null && (typeof output === 'object' || typeof output === 'function')) {
      Promise.resolve(output).then((value) => settleOutput(id, tool, call, value), threw).catch((cause) => fail(id, cause));
    } else {
      settleOutput(id, tool, call, output);
    }
  }

  /**
   * Answers a tool's output. Where the output schema's fast path finds it valid, the answer is
   * written here, as TypeScript writes it after Ajv passed it; otherwise the output goes to
   * Rust, which checks it against the schema.
   */
  function settleOutput(id, tool, call, output) {
    const validator = outputValidator(tool);
    if (validator !== null && passesFast(validator, output)) {
      calls.delete(id);
      let text;
      try {
        text = JSON.stringify({ v: 2, kind: 'result', output });
      } catch (cause) {
        // What JSON.stringify refuses where the schema let it through (a BigInt, a cycle, a
        // toJSON, getter or Proxy trap that throws, a value too deep): the service's 500, the
        // call recorded as `ok`, as in TypeScript.
        service.settle(id, '', 'ok', false, describeCause(cause));
        return;
      }
      service.settle(id, text, 'ok', false, undefined);
      return;
    }
    let marked;
    try {
      marked = markedJson(output);
    } catch (cause) {
      // A cycle: the runner's answer for output JSON cannot hold (`toolOutputUnreadable`).
      settle(id, call, toolError(tool, 'output-validation-failed', runnerMessage('toolOutputUnreadable', { id: tool.id, thrown: describeThrow(cause) }), { cause: serializeCause(cause) }));
      return;
    }
    // A getter that throws: where Ajv reads it, TypeScript's runner rejects with what it threw
    // and the service answers 500 with its message; elsewhere JSON.stringify throws below.
    const threw = readThrow(tool.output, 'output', marked);
    if (threw !== undefined) {
      fail(id, threw.cause);
      return;
    }
    calls.delete(id);
    if (marked.exact) {
      service.settleOutput(id, marked.text, undefined, undefined);
      return;
    }
    // JSON writes this output differently than the schema judges it (`undefined`, `NaN`, a
    // Date): the answer is what JSON.stringify makes of the whole message, as in TypeScript.
    try {
      service.settleOutput(id, marked.text, JSON.stringify({ v: 2, kind: 'result', output }), undefined);
    } catch (cause) {
      service.settleOutput(id, marked.text, undefined, describeCause(cause));
    }
  }

  function callCheck(position, message, call) {
    const guardrail = index.guardrails[position];
    const id = message.check.id;
    return runCheck({
      check: {
        id,
        modulePath: resolveModule(guardrail.checkModulePath),
        ...(guardrail.configSchema !== undefined && { configSchema: guardrail.configSchema }),
      },
      config: message.config,
      trace: message.trace,
      abortSignal: call.signal,
      importCheck: () => moduleAt(checkModules, position, guardrail.checkModulePath),
    }).then((r) =>
      r.kind === 'ok' ? { v: 2, kind: 'check-result', result: r.value } : fromHandlerError(r.error, { checkId: id }),
    );
  }

  /** The native object calls are settled through: the service's, or this worker thread's. */
  let service;

  // Everything below runs inside a threadsafe-function call or a promise callback: it must
  // never throw, since a throw there is an uncaught exception for the whole process.
  function settle(id, call, response) {
    calls.delete(id);
    const outcome = response.kind === 'error' ? response.code : 'ok';
    let text;
    try {
      text = JSON.stringify(response);
    } catch (cause) {
      // What JSON cannot hold (a BigInt in a check's result or a thrown error's fields): the
      // service's 500, recorded with the outcome first, as in TypeScript.
      service.settle(id, '', outcome, false, describeCause(cause));
      return;
    }
    service.settle(id, text, outcome, honouredAbort(call, response), undefined);
  }

  /** What the TypeScript runner throws escapes its service's call: a 500, and no call record. */
  function fail(id, cause) {
    calls.delete(id);
    service.escape(id, describeCause(cause));
  }

  // Resolves when the warm-up call (id 0, no pack code) has gone through the whole JS path.
  let warmedUp;
  const WARM_UP_TOOL = { id: 'warm-up' };

  function dispatch(id, position, request, defaults, bindings, target) {
    // The call ended (its deadline, its caller gone) while it waited for this thread: Rust
    // has answered it, and its pack code never starts.
    if (target === 'skip') return;
    // A call's abort (`request` is its reason), in the same queue as the calls: it is taken
    // before any call admitted after it.
    if (target === 'abort') {
      abort(id, request);
      return;
    }
    const call = new CallState(bindings, toolLog);
    calls.set(id, call);
    try {
      const message = JSON.parse(request);
      if (target === 'warm') {
        runToolHandler(id, WARM_UP_TOOL, (input) => input, message.input, handlerContext(message.ctx, call), call);
        warmedUp?.resolve();
        return;
      }
      if (target === 'tool') {
        callTool(id, position, message, defaults, call);
        return;
      }
      callCheck(position, message, call).then(
        (response) => settle(id, call, response),
        (cause) => fail(id, cause),
      );
    } catch (cause) {
      fail(id, cause);
    }
  }

  // A call answered before its pack code settled (its deadline, its caller gone) leaves the
  // call map: once nothing holds its state (pack code that will never settle, a promise
  // nobody resolves), Rust forgets what it kept for the settle, as such a promise is
  // collected in TypeScript. Pack code still running holds its context, and so its state.
  const forgotten = new FinalizationRegistry((id) => service.forget(id));

  function abort(id, reason) {
    const call = calls.get(id);
    if (call === undefined) return;
    call.abort(reason);
    calls.delete(id);
    forgotten.register(call, id);
  }

  function event(json) {
    // `record` is the level and message native writes for this event: a JS `log` writes the same.
    const { bindings, record, ...e } = JSON.parse(json);
    try {
      logger(e);
    } catch {
      // A throwing logger must not take the process down; the event is lost.
    }
    if (jsLog === undefined || bindings === undefined) return;
    try {
      const callLog = jsLog.child(bindings);
      if (e.kind === 'call') {
        callLog[record.level](
          record.message,
          { event: 'call', kind: 'call', id: e.id, outcome: e.outcome, durationMs: e.durationMs },
          { inMessage: ['target', 'id', 'outcome', 'durationMs'] },
        );
      } else if (e.kind === 'handler-finished-late') {
        callLog[record.level](record.message, {
          event: 'handler-finished-late',
          kind: 'handler-finished-late',
          afterMs: e.afterMs,
        });
      }
    } catch {
      // Nor a throwing log.
    }
  }

  const callbacks = { dispatch, event };
  if (shared !== undefined) {
    const thread = native.attachPackServiceThread(shared, ...weakCallbacks(callbacks, 'dispatch'));
    keepCallbacks(thread, callbacks);
    // Held by the thread's object, which its worker holds: calls are settled through it.
    service = thread;
    // `native` holds the thread's part, and through it the callbacks, for whoever holds this.
    return { prewarm, thread: thread.thread, native: thread };
  }
  // Checked before the other limits, as it always was.
  const maxBodyBytes = limit(options.maxBodyBytes, 'options.maxBodyBytes', DEFAULT_MAX_BODY_BYTES);
  service = native.createNativePackService(
    {
      indexJson: JSON.stringify(servedIndex(index)),
      token: options.token,
      ...(tenantId !== undefined && { tenant: tenantId }),
      maxConcurrency: limit(options.maxConcurrency, 'options.maxConcurrency', DEFAULT_MAX_CONCURRENCY),
      maxBodyBytes,
      defaultTimeoutMs: limit(options.defaultTimeoutMs, 'options.defaultTimeoutMs', DEFAULT_TIMEOUT_MS),
      envCheck,
      missingEnv: [...missingEnv],
      ...(options.indexHash !== undefined && { indexHash: options.indexHash }),
      reportEvents: options.logger !== undefined || jsLog !== undefined,
      shareCallBindings: nativeLog !== undefined || jsLog !== undefined,
      ...(nativeLog !== undefined && { logBindings: nativeLog.bindingsJson }),
      stallMs: limit(options.stallMs, 'options.stallMs', DEFAULT_STALL_MS),
    },
    ...weakCallbacks(callbacks, 'dispatch', 'event'),
    nativeLog?.logs,
  );
  // The callbacks live as long as the native service: every function here holds it.
  keepCallbacks(service, callbacks);

  async function prewarm() {
    const failures = [];
    // The distinct tools and checks as the Rust catalog keys them (last entry wins), in order.
    // Ids as the index holds them (Rust's hold a lone surrogate as a stand-in).
    const targets = service.prewarmTargets().map(({ target, position }) => {
      if (target === 'tool') {
        const { id, modulePath } = index.tools[position];
        return { ids: { toolId: id }, id, position, modules: toolModules, modulePath };
      }
      const guardrail = index.guardrails[position];
      const id = guardrail.checkId ?? guardrail.id;
      return { ids: { checkId: id }, id, position, modules: checkModules, modulePath: guardrail.checkModulePath };
    });
    // Tool schemas were compiled in Rust when the service was made; a check's config schema is
    // checked here, so it is compiled now. One that does not compile is reported by every call
    // that uses it, as in TypeScript.
    for (const { ids, position } of targets) {
      const schema = ids.checkId !== undefined ? index.guardrails[position].configSchema : undefined;
      if (schema === undefined) continue;
      try {
        compileSchema(schema, 'output');
      } catch {
        // Answered per call as `input-validation-failed`.
      }
    }
    for (const target of targets) {
      try {
        target.modules.set(target.position, await importModule(resolveModule(target.modulePath)));
      } catch (cause) {
        target.modules.delete(target.position);
        failures.push({
          v: 2,
          kind: 'error',
          code: 'handler-import-failed',
          message: `${target.id}: ${describeCause(cause)}`,
          ...target.ids,
        });
      }
    }
    if (failures.length === 0) {
      // One call through the dispatcher before the first real one (see warmUp in Rust).
      warmedUp = withResolvers();
      const sample = { v: 2, kind: 'invoke', tool: { id: 'warm-up' }, input: { text: 'warm' }, ctx: { tenantId: 'warm-up', runId: 'warm-up' } };
      const warming = setInterval(noop, 2 ** 31 - 1);
      try {
        if (service.warmUp(JSON.stringify(sample))) await warmedUp.promise;
      } finally {
        clearInterval(warming);
      }
      warmedUp = undefined;
    }
    // Warm once every thread is: the boot waits for the worker threads.
    if (shared === undefined) service.setWarm(failures.length === 0);
    return failures;
  }

  /** A node:http request listener over the same Rust core (for callers with their own server). */
  const handle = nodeHandler(service);
  let listening;
  /** The worker threads, while listening with `workers` above 1. */
  let pool;

  /**
   * Starts `count - 1` worker threads that import the pack's modules (as resolved here) and
   * waits until each has loaded every one; throws with the first failing thread's `problems`.
   */
  async function startPool(count) {
    const started = startWorkerThreads({
      count: count - 1,
      shared: service.shareWithThreads(),
      index,
      resolveModule,
      logBindings: nativeLog === undefined ? {} : JSON.parse(nativeLog.bindingsJson),
    });
    const problems = await started.booted;
    if (problems.length > 0) {
      await started.stop();
      // `listen-failed`, as any listen that does not open; `problems` lists each one.
      throw nativeError('listen-failed', problems.join('\n'), { problems });
    }
    return started;
  }

  const api = {
    handle,
    prewarm,
    async drain(graceMs) {
      service.stopTakingCalls();
      return service.drain(graceOf(graceMs));
    },
    inFlight: () => service.inFlight(),
    unsettledCalls: () => service.unsettledCalls(),
    ready: () => service.ready(),
    /**
     * Serves from Rust (hyper) on `host:port`; resolves with the bound port. With
     * `{ workers }` above 1, pack code runs on that many JS threads.
     */
    async listen(port, host, listenOptions) {
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw invalidArgument(`port must be a whole number from 0 to 65535, not ${describe(port)}`);
      }
      if (host !== undefined && host !== null && typeof host !== 'string') {
        throw invalidArgument(`host must be a string, not ${describe(host)}`);
      }
      const workers = workerCount(listenOptions?.workers, 'workers');
      // Every thread has loaded every module before the listener opens.
      if (workers > 1 && pool === undefined) pool = await startPool(workers);
      // No host ('' and null too): every interface, IPv6 and IPv4, as Node's server.listen(port).
      const outcome = await service.listen(host || undefined, port);
      // The code is native's: `listen-failed`, whatever the cause.
      if (outcome.error !== undefined) {
        await pool?.stop();
        pool = undefined;
        throw nativeError(outcome.error.code, outcome.error.message);
      }
      pool?.serve();
      // The native side holds no reference on the event loop: like a listening node:http
      // server, a listening service keeps the process alive until stop().
      // The timer also holds the service (and so its callbacks, which Rust reaches weakly).
      listening ??= setInterval(() => void service, 2 ** 31 - 1);
      return outcome.port;
    },
    /** Drains for up to `graceMs`, closes every connection and lets the process exit. */
    async stop(graceMs = PACK_SERVICE_DRAIN_MS) {
      // A warm-up still queued when the functions are released is never delivered.
      warmedUp?.resolve();
      service.stopTakingCalls();
      try {
        return await service.stop(graceOf(graceMs));
      } finally {
        clearInterval(listening);
        listening = undefined;
        await pool?.stop();
        pool = undefined;
      }
    },
  };
  natives.set(api, service);
  return api;
}
