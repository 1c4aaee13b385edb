// The handler runner: one tool call or one guardrail check, in this process, never throwing.
// Schemas are compiled and checked in Rust (./validate.js); what must be JavaScript stays here:
// importing the module, finding the handler, Zod, calling it.
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runnerMessage } from './runner-messages.js';
import { compileSchema, validateClone, validateReading } from './validate.js';

// Reading what pack code threw can throw again (a getter, a Proxy trap, a value `String()`
// refuses); the functions below stand in this text then, as a throw here would escape a
// call's promise and end the process.
const UNREADABLE = 'a thrown value that cannot be read';

/** `Name: message` for an Error, else `String(value)`. */
export function describeThrow(cause) {
  try {
    return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  } catch {
    return UNREADABLE;
  }
}

/** An Error's message, else `String(value)`. */
export function describeMessage(cause) {
  try {
    return cause instanceof Error ? String(cause.message) : String(cause);
  } catch {
    return UNREADABLE;
  }
}

/** A throw as the wire carries it: `{name, message, stack}` for an Error, JSON-safe otherwise. */
export function serializeCause(cause) {
  try {
    if (cause instanceof Error) return { name: cause.name, message: cause.message, stack: cause.stack };
    if (cause === undefined) return null;
    if (cause === null || ['string', 'number', 'boolean'].includes(typeof cause)) return cause;
    JSON.stringify(cause);
    return cause;
  } catch {
    return describeThrow(cause);
  }
}

/** An absolute path imports as a `file:` URL (so `#` and spaces survive); anything else as given. */
function importPath(modulePath) {
  return import(isAbsolute(modulePath) ? pathToFileURL(modulePath).href : modulePath);
}

const fail = (code, message, extra) => ({ kind: 'err', error: { code, message, ...extra } });

function isZodSchema(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof value._zod === 'object' &&
    value._zod !== null &&
    typeof value['~standard'] === 'object' &&
    value['~standard'] !== null
  );
}

export function resolveHandler(module) {
  if (typeof module === 'function') return module;
  if (module === null || typeof module !== 'object') return undefined;
  for (const candidate of [module.default, module.handler, module.run]) {
    if (candidate === undefined || candidate === null) continue;
    if (typeof candidate === 'function') return candidate;
    // A `defineTool` export: the callable is one level in.
    if (typeof candidate === 'object') {
      if (typeof candidate.handler === 'function') return candidate.handler;
      if (typeof candidate.run === 'function') return candidate.run;
    }
  }
  return undefined;
}

export function resolveInputZod(module) {
  if (module === null || typeof module !== 'object') return undefined;
  for (const candidate of [module.default, module.handler, module.run]) {
    if (candidate === null || typeof candidate !== 'object') continue;
    if (isZodSchema(candidate.inputZod)) return candidate.inputZod;
  }
  return undefined;
}

/** Zod's Standard Schema `validate`: `{value}` or `{issues}`. */
export async function parseWithZod(schema, value) {
  const result = await schema['~standard'].validate(value);
  if (result.issues !== undefined) {
    return {
      ok: false,
      issues: result.issues.map((issue) => ({
        instancePath: (issue.path ?? []).map((segment) => `/${String(segment?.key ?? segment)}`).join(''),
        message: issue.message,
      })),
    };
  }
  return { ok: true, value: result.value };
}

function compileOrFail(schema, side, code, refused, toolId) {
  try {
    return { validator: compileSchema(schema, side) };
  } catch (cause) {
    return {
      failure: fail(code, runnerMessage(refused, { id: toolId, thrown: describeThrow(cause) }), {
        toolId,
        cause: serializeCause(cause),
      }),
    };
  }
}

export async function runHandler(options) {
  const { tool, input, ctx } = options;
  const importHandler = options.importHandler ?? importPath;

  const input_ = compileOrFail(tool.inputSchema, 'input', 'input-validation-failed', 'toolInputSchemaRefused', tool.id);
  if (input_.failure) return input_.failure;
  // TypeScript validates a structured clone, made outside any try: what the clone refuses (a
  // function, a getter that throws) rejects, as does what Ajv's validate throws (below).
  // The fast path gives the same clone, valid, when it can tell (see validate-fast.js).
  let checked = validateClone(input_.validator, input);
  if (checked === undefined) {
    const copy = structuredClone(input);
    try {
      checked = validateReading(input_.validator, copy, true);
    } catch (cause) {
      // A value JSON cannot hold (a cycle): refused here (see docs/known-differences.md).
      return fail('input-validation-failed', runnerMessage('toolInputUnreadable', { id: tool.id, thrown: describeThrow(cause) }), {
        toolId: tool.id,
        cause: serializeCause(cause),
      });
    }
  }
  if (checked.threw) throw checked.cause;
  if (!checked.valid) {
    return fail('input-validation-failed', runnerMessage('toolInputInvalid', { id: tool.id }), {
      toolId: tool.id,
      issues: checked.issues,
    });
  }
  const candidate = checked.value;

  let module;
  try {
    module = await importHandler(tool.modulePath);
  } catch (cause) {
    return fail('handler-import-failed', runnerMessage('handlerImportFailed', { path: tool.modulePath, thrown: describeThrow(cause) }), {
      toolId: tool.id,
      cause: serializeCause(cause),
    });
  }

  const handler = resolveHandler(module);
  const inputZod = resolveInputZod(module);
  if (handler === undefined) {
    return fail('handler-shape-invalid', runnerMessage('handlerShapeInvalid', { path: tool.modulePath }), { toolId: tool.id });
  }

  let prepared = candidate;
  if (inputZod !== undefined) {
    const parsed = await parseWithZod(inputZod, candidate);
    if (!parsed.ok) {
      return fail('input-validation-failed', runnerMessage('toolInputInvalid', { id: tool.id }), {
        toolId: tool.id,
        issues: parsed.issues,
      });
    }
    prepared = parsed.value;
  }

  let output;
  try {
    output = await handler(prepared, ctx);
  } catch (cause) {
    return fail('handler-throw', runnerMessage('handlerThrew', { id: tool.id, thrown: describeThrow(cause) }), {
      toolId: tool.id,
      cause: serializeCause(cause),
    });
  }

  const output_ = compileOrFail(tool.outputSchema, 'output', 'output-validation-failed', 'toolOutputSchemaRefused', tool.id);
  if (output_.failure) return output_.failure;
  let produced;
  try {
    produced = validateReading(output_.validator, output);
  } catch (cause) {
    // A value JSON cannot hold (a BigInt, a cycle): refused here rather than when the answer
    // is written (see docs/known-differences.md).
    return fail('output-validation-failed', runnerMessage('toolOutputUnreadable', { id: tool.id, thrown: describeThrow(cause) }), {
      toolId: tool.id,
      cause: serializeCause(cause),
    });
  }
  // Ajv read a member whose getter throws, or recursed forever: its validate throws, and so
  // TypeScript's runHandler rejects (its service answers 500 with the message).
  if (produced.threw) throw produced.cause;
  if (!produced.valid) {
    return fail('output-validation-failed', runnerMessage('toolOutputInvalid', { id: tool.id }), {
      toolId: tool.id,
      issues: produced.issues,
    });
  }
  return { kind: 'ok', value: output };
}

function resolveCheckEvaluate(module) {
  if (module === null || (typeof module !== 'object' && typeof module !== 'function')) return undefined;
  for (const candidate of [module.evaluate, module.default, module.check]) {
    if (candidate === undefined || candidate === null) continue;
    if (typeof candidate === 'function') return candidate;
    if (typeof candidate.evaluate === 'function') return candidate.evaluate;
  }
  return undefined;
}

/** ` at /path: message` for the first issue, for a message read without its issues. */
function describeFirstIssue(issues) {
  const first = issues[0];
  if (first === undefined) return '';
  return `${first.instancePath === '' ? '' : ` at ${first.instancePath}`}: ${first.message ?? 'invalid'}`;
}

export async function runCheck(options) {
  const { check, config, trace } = options;
  const importCheck = options.importCheck ?? importPath;

  if (check.configSchema !== undefined) {
    // Checked as sent: the output side fills no defaults.
    const compiled = compileOrFail(check.configSchema, 'output', 'input-validation-failed', 'checkConfigSchemaRefused', check.id);
    if (compiled.failure) return compiled.failure;
    let checked;
    try {
      checked = validateReading(compiled.validator, config);
    } catch (cause) {
      return fail('input-validation-failed', runnerMessage('checkConfigUnreadable', { id: check.id, thrown: describeThrow(cause) }), {
        toolId: check.id,
        cause: serializeCause(cause),
      });
    }
    // As for a tool's output (a getter Ajv reads, a schema that recurses forever): Ajv's
    // validate throws, and TypeScript's runCheck rejects.
    if (checked.threw) throw checked.cause;
    if (!checked.valid) {
      return fail('input-validation-failed', runnerMessage('checkConfigInvalid', { id: check.id, issue: describeFirstIssue(checked.issues) }), {
        toolId: check.id,
        issues: checked.issues,
      });
    }
  }

  let module;
  try {
    module = await importCheck(check.modulePath);
  } catch (cause) {
    return fail('handler-import-failed', runnerMessage('checkImportFailed', { path: check.modulePath, thrown: describeThrow(cause) }), {
      toolId: check.id,
      cause: serializeCause(cause),
    });
  }

  const evaluate = resolveCheckEvaluate(module);
  if (evaluate === undefined) {
    return fail('check-shape-invalid', runnerMessage('checkShapeInvalid', { path: check.modulePath }), { toolId: check.id });
  }

  let result;
  try {
    result = await evaluate(config, trace, options.abortSignal !== undefined ? { abortSignal: options.abortSignal } : {});
  } catch (cause) {
    return fail('handler-throw', runnerMessage('checkThrew', { id: check.id, thrown: describeThrow(cause) }), {
      toolId: check.id,
      cause: serializeCause(cause),
    });
  }
  return { kind: 'ok', value: result };
}
