// What only JavaScript can read off an imported module: its default export, whether it is a
// `Result`, which primitive its shape is (a `handler` function, say), its Zod schemas converted
// and the check implementations it ships. The rest of the rules run in Rust on the record this
// returns.
import { PRIMITIVE_FIELDS } from './constants.js';
import { isZodSchema, toJsonSchema } from './zod.js';

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

const isPromptRef = (value) =>
  isObject(value) && typeof value.prompt === 'string' && typeof value.version === 'string';

/** The primitive a default export's shape says it is, or `undefined`. */
export function detectKind(value) {
  if (value === null || typeof value !== 'object') return undefined;
  if (typeof value.handler === 'function' && ('input' in value || 'inputZod' in value)) return 'tool';
  if (isObject(value.action) && 'on-violation' in value.action && 'kind' in value) return 'guardrail';
  if ((typeof value.instructions === 'string' || isPromptRef(value.instructions)) && Array.isArray(value.tools)) {
    return 'agent';
  }
  if (Array.isArray(value.nodes) && Array.isArray(value.edges)) return 'flow';
  return undefined;
}

function resultErrorMessage(error) {
  if (error === null || typeof error !== 'object') return String(error);
  return typeof error.message === 'string' ? error.message : JSON.stringify(error);
}

function pick(value, names) {
  const out = {};
  for (const name of names) out[name] = value[name];
  return out;
}

/**
 * A record of the file for Rust (see src/indexer/request.rs). Values that must stay JavaScript
 * values (errors, thrown causes) go in `causes`, the record holding their index.
 * `zodConverter()` gives the converter (`loadZodConverter`, which looks for zod once, and only
 * when a module holds a Zod schema).
 */
export function classifyModule(module, expectedKind, zodConverter, causes) {
  const cause = (value) => causes.push(value) - 1;
  const defaultExport = module !== null && typeof module === 'object' ? module.default : undefined;
  if (defaultExport === undefined) return { outcome: 'no-default-export' };
  if (defaultExport !== null && typeof defaultExport === 'object') {
    if (defaultExport.kind === 'err' && 'error' in defaultExport) {
      const error = defaultExport.error;
      return { outcome: 'result-error', message: resultErrorMessage(error), cause: cause(error) };
    }
  }
  const unwrapped =
    defaultExport !== null && typeof defaultExport === 'object' && defaultExport.kind === 'ok' && 'value' in defaultExport
      ? defaultExport.value
      : defaultExport;
  const kind = detectKind(unwrapped);
  if (kind === undefined) return { outcome: 'ambiguous' };
  // A file in the wrong folder is refused before anything is built from it.
  if (expectedKind !== undefined && expectedKind !== kind) return { outcome: 'primitive', kind, fields: {} };
  const record = { outcome: 'primitive', kind };
  const convert = (target, field, schema, side) => {
    const converted = toJsonSchema(schema, zodConverter(), side);
    record.converted ??= {};
    record.converted[target] =
      converted.kind === 'ok'
        ? { field, schema: converted.value }
        : { field, error: { message: converted.error.message, cause: cause(converted.error.cause) } };
  };
  if (kind === 'flow') {
    record.fields = unwrapped;
  } else {
    record.fields = pick(unwrapped, PRIMITIVE_FIELDS[kind]);
  }
  if (kind === 'tool') {
    for (const [side, zodField] of [['input', 'inputZod'], ['output', 'outputZod']]) {
      // `inputZod` first; else `input` itself when it holds a Zod schema.
      if (isZodSchema(unwrapped[zodField])) convert(side, zodField, unwrapped[zodField], side);
      else if (isZodSchema(unwrapped[side])) convert(side, side, unwrapped[side], side);
      // The converted schema fills the slot: the Zod object itself never crosses (JSON may
      // not even hold it: a recursive schema, a BigInt default).
      if (record.converted?.[side] !== undefined) delete record.fields[side];
    }
  }
  if (kind === 'guardrail') {
    const check = isObject(unwrapped.check) ? unwrapped.check : undefined;
    const configZod = isZodSchema(unwrapped.configZod)
      ? unwrapped.configZod
      : check !== undefined && isZodSchema(check.configZod)
        ? check.configZod
        : undefined;
    if (configZod !== undefined) convert('configSchema', 'configSchema', configZod, 'input');
    // A config JSON has no text for (a function) is still a config that is not an object.
    if (['function', 'symbol', 'bigint'].includes(typeof record.fields.config)) record.fields.config = null;
    record.check = check !== undefined ? pick(check, PRIMITIVE_FIELDS.check) : unwrapped.check;
    record.shippedChecks = shippedChecks(unwrapped, module);
  }
  return record;
}

/**
 * Ids of the check implementations a guardrail's module ships: its own `check`, then every
 * export, when it is an object with a string `id` and an `evaluate` function.
 */
function shippedChecks(guardrail, module) {
  const candidates = [guardrail.check, ...Object.values(module)];
  return candidates
    .filter((c) => isObject(c) && typeof c.id === 'string' && typeof c.evaluate === 'function')
    .map((c) => c.id);
}
