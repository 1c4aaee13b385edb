// The in-process fast path of validation. For a schema whose every keyword it can write, the
// native compiler writes a JavaScript function (src/validate/fast_js/) that judges the value
// where it is, as Ajv's generated code does, instead of handing it to Rust as JSON text. That
// function says only "valid" (filling defaults as it goes) or "not sure": an invalid value,
// and any value it cannot judge exactly as the native validator does, goes to the native
// validator, which also writes the issues.
import { types } from 'node:util';
import { formatter } from './validate-formats.js';

const { isProxy } = types;

/** Thrown by the helpers for a value the fast path leaves to the native validator. */
const UNSURE = Symbol('unsure');

const OBJECT_PROTOTYPE = Object.prototype;
const ARRAY_PROTOTYPE = Array.prototype;

/** The kinds of `kind` (the same bits as fast_js/), and the integer bit of `uniqueScalars`. */
const NUMBER = 4;
const ARRAY = 16;
const OBJECT = 32;
const INTEGER = 64;

/**
 * A value's JSON kind, one bit each (null 1, boolean 2, number 4, string 8, array 16, object
 * 32); throws UNSURE for what JSON has no form for (undefined, a function, a symbol, a BigInt, a
 * non-finite number) and for objects other than plain ones and arrays (a Date, a class
 * instance, a boxed primitive, one without a prototype), which the native validator reads as
 * Ajv does.
 */
function kind(value) {
  switch (typeof value) {
    case 'string':
      return 8;
    case 'number':
      if (value - value === 0) return NUMBER;
      break;
    case 'boolean':
      return 2;
    case 'object': {
      if (value === null) return 1;
      const prototype = Object.getPrototypeOf(value);
      if (Array.isArray(value)) {
        if (prototype === ARRAY_PROTOTYPE) return ARRAY;
      } else if (prototype === OBJECT_PROTOTYPE) {
        return OBJECT;
      }
      break;
    }
    default:
      break;
  }
  throw UNSURE;
}

/** Whether a value is an object (not an array); throws UNSURE for one other than a plain object. */
function object(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  // One without a prototype lacks the names (`toString`, …) the native validator reads as
  // present, as Ajv reads them on an ordinary object: left to it.
  if (prototype === OBJECT_PROTOTYPE) return true;
  throw UNSURE;
}

/** Whether a value is an array; throws UNSURE for one of another prototype. */
function array(value) {
  if (!Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) === ARRAY_PROTOTYPE) return true;
  throw UNSURE;
}

/** fast-deep-equal on JSON values, as Ajv's `const`, `enum` and `uniqueItems` compare. */
function equal(a, b) {
  const kindA = kind(a);
  if (kindA !== kind(b)) return false;
  if (kindA === ARRAY) {
    if (a.length !== b.length) return false;
    for (let i = a.length; i-- > 0; ) if (!equal(a[i], b[i])) return false;
    return true;
  }
  if (kindA === OBJECT) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) if (!Object.hasOwn(b, key)) return false;
    for (let i = keys.length; i-- > 0; ) if (!equal(a[keys[i]], b[keys[i]])) return false;
    return true;
  }
  return a === b;
}

/** `uniqueItems` of any items: no two equal. */
function unique(items) {
  for (let i = items.length; i-- > 1; ) {
    for (let j = i; j-- > 0; ) if (equal(items[i], items[j])) return false;
  }
  return true;
}

/** `uniqueItems` where the items' types are scalars (`types`, kind bits): no two the same. */
function uniqueScalars(items, types) {
  if (items.length < 2) return true;
  const seen = new Set();
  for (let i = items.length; i-- > 0; ) {
    const item = items[i];
    const itemKind = kind(item);
    if ((itemKind & types) === 0 && !(itemKind === NUMBER && types & INTEGER && item % 1 === 0)) continue;
    if (seen.has(item)) return false;
    seen.add(item);
  }
  return true;
}

/** True for a string without a lone surrogate; throws UNSURE for one (the native validator reads it as a stand-in). */
function wellFormed(text) {
  if (text.isWellFormed()) return true;
  throw UNSURE;
}

/** Ajv's `ucs2length`: a string's length with a surrogate pair counted once. */
function ucs2(text) {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    count++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return count;
}

const HELPERS = Object.freeze({ kind, object, array, equal, unique, uniqueScalars, ucs2, formatter, wellFormed });

/**
 * The validating function for a native validator, or `undefined` where it has none. It
 * answers true (valid, its defaults filled in) or false (not valid, or not sure), and throws
 * for a value it leaves to the native validator.
 */
export function fastValidator(nativeValidator) {
  const body = nativeValidator.fastJs();
  if (body === null) return undefined;
  let validate;
  try {
    validate = new Function('H', body)(HELPERS);
  } catch {
    // A pattern this V8 refuses to compile: the native validator answers for the schema.
    return undefined;
  }
  return validate;
}

/** `validate`'s answer for a value as given: `{ valid: true, value }`, or `undefined`. */
const JUDGE_SOURCE = `return function judge(value) {
  try {
    return validate(value) ? { valid: true, value } : undefined;
  } catch {
    return undefined;
  }
};`;

/** `validate`'s answer for a copy of the value, made as `structuredClone` makes it. */
const JUDGE_COPY_SOURCE = `return function judgeCopy(value) {
  try {
    const copy = plainClone(value);
    return validate(copy) ? { valid: true, value: copy } : undefined;
  } catch {
    return undefined;
  }
};`;

/**
 * The answer of `validate` for a value, or `undefined` where the native validator must give
 * it: on the value itself, or with `copy`, on what `structuredClone` makes of it (the input
 * side: the defaults go into the copy, and the caller's value is never changed). Each schema
 * gets functions of its own (V8 keeps feedback per function), so the call to its `validate`
 * stays monomorphic and optimizes as soon as a call to one of Ajv's functions does.
 */
export function fastJudge(validate, copy) {
  return new Function('validate', 'plainClone', copy ? JUDGE_COPY_SOURCE : JUDGE_SOURCE)(validate, plainClone);
}

/**
 * What `structuredClone(value)` makes of a value of plain objects, arrays and JSON scalars
 * (also `undefined`, non-finite numbers and BigInts, which it copies as they are); throws
 * UNSURE for anything else (a function, a Date, a hole, an object reached twice), which
 * structuredClone must copy.
 */
export function plainClone(value) {
  // An enumerable member on Object.prototype would be a member of every copy (for-in reads it).
  for (const inherited in EMPTY) throw UNSURE;
  return copyOf(value, new Set());
}

const EMPTY = Object.freeze({});

function copyOf(value, seen) {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') throw UNSURE;
    return value;
  }
  // structuredClone refuses a Proxy (DataCloneError).
  if (seen.has(value) || isProxy(value)) throw UNSURE;
  seen.add(value);
  const prototype = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== ARRAY_PROTOTYPE) throw UNSURE;
    const length = value.length;
    const copy = new Array(length);
    for (let i = 0; i < length; i++) {
      const item = value[i];
      if (item === undefined && !(i in value)) throw UNSURE;
      copy[i] = copyOf(item, seen);
    }
    return copy;
  }
  if (prototype !== OBJECT_PROTOTYPE && prototype !== null) throw UNSURE;
  const copy = {};
  for (const key in value) {
    const member = copyOf(value[key], seen);
    // Assigned, a member named __proto__ would set the copy's prototype: it is defined.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: member, writable: true, enumerable: true, configurable: true });
    else copy[key] = member;
  }
  return copy;
}
