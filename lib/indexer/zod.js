// Zod → JSON Schema for the indexer, answering as `@kindgi/schema` does (`isZodSchema`,
// `loadZodConverterSync`, `toJSONSchemaSync`): the same detection, the same way of finding the
// optional `zod` peer, the same options to `z.toJSONSchema`, the same result and messages.
//
// Nothing here imports zod. The converter is `toJSONSchema` from whichever `zod` a CommonJS
// `require` finds from this file's own location (the way `@kindgi/schema` resolves it from its
// own), or from the location a caller names.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';

const CONVERSION_CODE = 'invalid-zod-conversion';

const MISSING_ZOD_MESSAGE =
  'Zod schema passed but the `zod` peer dependency is not installed. ' +
  'Install `zod` (>=4.0.0) or author with a JSON Schema object.';

/**
 * A Zod v4 schema, told by shape alone: an object with a `_zod` that is of type `object` and a
 * `~standard`, own or inherited (zod puts `~standard` on the prototype).
 */
export function isZodSchema(value) {
  if (value === null || typeof value !== 'object') return false;
  return '_zod' in value && '~standard' in value && typeof value._zod === 'object';
}

// Resolution base → converter, or `undefined` when no usable zod was found there. A base is looked
// up once per process, its answer kept even when it is "none", as `@kindgi/schema` keeps its one.
const converters = new Map();

/** The file a `require` for zod is made from: this module, or the file / directory `from` names. */
function requireBase(from) {
  if (from === undefined) return import.meta.url;
  if (from instanceof URL) return from.href;
  if (typeof from !== 'string' || from === '') {
    throw new TypeError('loadZodConverter: `from` must be a path or a file: URL');
  }
  if (from.startsWith('file:')) return from;
  const absolute = isAbsolute(from) ? from : resolve(from);
  let directory = /[\\/]$/.test(absolute);
  if (!directory) {
    try {
      directory = statSync(absolute).isDirectory();
    } catch {
      directory = false;
    }
  }
  // createRequire takes a file; a module in the directory resolves from the directory.
  return directory ? join(absolute, 'noop.js') : absolute;
}

/**
 * `z.toJSONSchema` of the `zod` a `require('zod')` finds, or `undefined` when there is none, it
 * fails to load, or it has no `toJSONSchema` (zod 3). Synchronous, cached per location.
 *
 * `from` (optional): where to resolve from, a directory, a file path or a `file:` URL; default
 * this module, so the zod found is the one installed alongside this package.
 */
export function loadZodConverter(from) {
  const base = requireBase(from);
  if (converters.has(base)) return converters.get(base);
  let converter;
  try {
    const zod = createRequire(base)('zod');
    converter = typeof zod.toJSONSchema === 'function' ? zod.toJSONSchema : undefined;
  } catch {
    converter = undefined;
  }
  converters.set(base, converter);
  return converter;
}

/** Forget every cached `loadZodConverter` answer (the next call looks again). */
export function resetZodConverterCache() {
  converters.clear();
}

function conversionFailure(message, cause) {
  return { kind: 'err', error: { code: CONVERSION_CODE, message, cause } };
}

/**
 * The JSON Schema wire form of `schema` for one side (`'input'`: what a caller sends, defaults
 * optional; `'output'`: what parsing yields). Anything that is not a Zod schema comes back as it
 * is. A Zod schema goes through `converter(schema, { io: side })`, its answer returned untouched
 * (`$schema` included). Never throws for a conversion failure: `{kind: 'err', error}`.
 */
export function toJsonSchema(schema, converter, side) {
  if (!isZodSchema(schema)) return { kind: 'ok', value: schema };
  if (converter === undefined) {
    return conversionFailure(MISSING_ZOD_MESSAGE, new Error('zod peer dep not installed'));
  }
  try {
    return { kind: 'ok', value: converter(schema, { io: side }) };
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return conversionFailure(`z.toJSONSchema() failed: ${reason}`, cause);
  }
}
