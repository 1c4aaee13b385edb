// Errors this package throws: an Error with a stable `code` (see errors.d.ts).
import { native } from './native.js';

// Native owns the list (binding/errors.rs), as it owns MAX_JSON_DEPTH.
export const NATIVE_ERROR_CODES = Object.freeze(native.nativeErrorCodes());

export const MAX_JSON_DEPTH = native.maxJsonDepth();

/** An Error with `code` (and any extra own properties). */
export function nativeError(code, message, extra = {}) {
  const error = new Error(message);
  error.code = code;
  Object.assign(error, extra);
  return error;
}

export function invalidArgument(message) {
  return nativeError('invalid-argument', message);
}

/** What `typeof`-style text says a value is, for argument errors. */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function requireString(value, name) {
  if (typeof value !== 'string') throw invalidArgument(`${name} must be a string, not ${describe(value)}`);
  return value;
}

/**
 * JSON text of `value` for the native side. JSON.stringify's own failures (a BigInt, a cycle, a
 * text too large for a string) and values it writes nothing for (`undefined`, a function, a
 * symbol) are `invalid-json-value`; running out of stack in it is `value-too-deep`, as is
 * nesting past MAX_JSON_DEPTH on the native side.
 */
export function jsonText(value, name) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    // V8 reports a stack overflow as "Maximum call stack size exceeded"; other RangeErrors
    // ("Invalid string length") mean the text would be too large.
    if (cause instanceof RangeError && /call stack/i.test(cause.message)) {
      throw nativeError(
        'value-too-deep',
        `${name} is nested too deeply: JSON.stringify ran out of stack before MAX_JSON_DEPTH (${MAX_JSON_DEPTH} levels)`,
        { cause },
      );
    }
    throw nativeError('invalid-json-value', `${name} cannot be written as JSON: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  if (typeof text !== 'string') {
    throw nativeError('invalid-json-value', `${name} cannot be written as JSON: it is ${describe(value)}`);
  }
  return text;
}
