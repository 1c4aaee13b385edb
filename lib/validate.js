// JSON Schema validation with Ajv's answers (see validate.d.ts). Compiling and validating run
// in Rust; values cross as JSON text.
import { types } from 'node:util';
import { describe, invalidArgument, jsonText, nativeError } from './errors.js';
import { native } from './native.js';
import { fastJudge, fastValidator } from './validate-fast.js';

/**
 * Validators by side and schema text, as TypeScript keys them: a schema edited in place is a
 * new key, so a hot reload takes effect. The oldest goes past the native cache's size.
 */
const byText = new Map();
const MAX_CACHED = native.validatorCacheSize();

/**
 * By side, for each schema object compiled more than once: its key in `byText`, the validator
 * and the shape of its text. A schema whose reading matches that shape would give the same
 * text, so it needs no JSON.stringify (see `unchangedSince`).
 */
const bySchema = { input: new WeakMap(), output: new WeakMap() };

/** An object's shape: its keys in order and each member's shape. */
class ObjectShape {
  constructor(keys, members) {
    this.keys = keys;
    this.members = members;
  }
}

/** An array's shape: each item's shape. */
class ArrayShape {
  constructor(items) {
    this.items = items;
  }
}

/** The shape of a value JSON.parse made (a JSON scalar is its own shape). */
function shapeOf(value) {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return new ArrayShape(value.map(shapeOf));
  const keys = Object.keys(value);
  return new ObjectShape(keys, keys.map((key) => shapeOf(value[key])));
}

/**
 * Whether JSON.stringify would write `value` as the text `shape` was taken from. It reads what
 * JSON.stringify reads, in its order (each object's `toJSON`, an array's length and items, an
 * object's own enumerable keys and then its members), so a getter or Proxy sees the same reads
 * when the schema is unchanged; it stops at the first difference (JSON.stringify then reads
 * the schema again) and answers false where a read throws or it runs out of stack.
 */
function unchangedSince(value, shape) {
  try {
    return sameAs(value, shape);
  } catch {
    return false;
  }
}

function sameAs(value, shape) {
  if (typeof shape !== 'object' || shape === null) return value === shape;
  if (typeof value !== 'object' || value === null || typeof value.toJSON === 'function') return false;
  // JSON.stringify writes a boxed primitive (or a raw JSON object) as what it holds, not as an
  // object with its keys.
  if (types.isBoxedPrimitive(value) || JSON.isRawJSON?.(value)) return false;
  if (shape instanceof ArrayShape) {
    if (!Array.isArray(value)) return false;
    const items = shape.items;
    if (value.length !== items.length) return false;
    for (let i = 0; i < items.length; i++) if (!sameAs(value[i], items[i])) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const expected = shape.keys;
  if (keys.length !== expected.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== expected[i]) return false;
  const members = shape.members;
  for (let i = 0; i < keys.length; i++) if (!sameAs(value[keys[i]], members[i])) return false;
  return true;
}

/** The key of a marker (see src/validate/value.rs): a JavaScript value JSON has no form for. */
const MARKER = '\u0000js';

/** The first letter of each answer of `validateJson` (src/binding/validate.rs). */
const ANSWER = Object.freeze(native.validationAnswerTags());

/** Whether the last `valueText` had to write something other than what JSON.stringify writes. */
let rewrote = false;

/**
 * What the members the last `valueText` could not read threw (getters), by the index their
 * `throws` marker carries: Ajv throws the same when its code reads one.
 */
let thrown = [];

/**
 * `JSON.stringify` replacer that writes what Ajv sees rather than what JSON.stringify would:
 * `undefined`, `NaN`, `±Infinity`, BigInts, functions and symbols become markers (so an
 * `undefined` member is still a key, and a BigInt is still not a string), and an object with
 * `toJSON` (a Date) or a boxed primitive is its own enumerable properties, as Ajv reads it.
 */
function markJsValues(key, value) {
  const raw = this[key];
  const marker = jsMarker(raw);
  if (marker !== undefined) {
    rewrote = true;
    return marker;
  }
  // `raw !== value`: toJSON made something else of it. A boxed primitive has no toJSON, and
  // JSON.stringify would unbox it after this replacer: it too is copied as an object.
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && (raw !== value || isBoxed(raw))) {
    rewrote = true;
    return { ...raw };
  }
  return value;
}

/** The marker for a value JSON has no form for (`undefined`, a function, a symbol, a BigInt, a non-finite number), else `undefined`. */
function jsMarker(value) {
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
    case 'bigint':
      return { [MARKER]: typeof value };
    case 'number':
      return Number.isFinite(value) ? undefined : { [MARKER]: String(value) };
    default:
      return undefined;
  }
}

/** A Number, String or Boolean object: JSON writes its primitive, Ajv sees an object. */
function isBoxed(value) {
  return value instanceof Number || value instanceof String || value instanceof Boolean;
}

function valueText(value) {
  rewrote = false;
  thrown = [];
  try {
    return JSON.stringify(value, markJsValues);
  } catch (cause) {
    // A cycle, or too deep: what is left is the same error jsonText gives.
    if (cause instanceof RangeError || (cause instanceof TypeError && /circular/i.test(cause.message))) {
      return jsonText(value, 'The value');
    }
    // A toJSON that threw, which Ajv never calls, or a getter that threw, which Ajv may never
    // read: the value as Ajv reads it.
    rewrote = true;
    return markedWithoutToJson(value, []);
  }
}

/**
 * `holder[key]` as JSON text for the validator; a read that throws (a getter) is a `throws`
 * marker, which throws in Rust only where Ajv's code would read it.
 */
function markedMember(holder, key, within) {
  let member;
  try {
    member = holder[key];
  } catch (cause) {
    thrown.push(cause);
    return JSON.stringify({ [MARKER]: 'throws', i: thrown.length - 1 });
  }
  return markedWithoutToJson(member, within);
}

/**
 * The text `JSON.stringify(value, markJsValues)` gives, without calling any `toJSON` (an
 * object with one is its own enumerable properties, as that replacer makes it). `within` holds
 * the objects being written, to find a cycle.
 */
function markedWithoutToJson(value, within) {
  if (typeof value !== 'object' || value === null) return JSON.stringify(jsMarker(value) ?? value);
  if (within.includes(value)) return jsonText(value, 'The value');
  within.push(value);
  let text;
  if (Array.isArray(value)) {
    text = `[${Array.from({ length: value.length }, (_, i) => markedMember(value, i, within)).join(',')}]`;
  } else {
    // An object with toJSON, or a boxed primitive, is its own enumerable properties here too.
    text = `{${Object.keys(value).map((key) => `${JSON.stringify(key)}:${markedMember(value, key, within)}`).join(',')}}`;
  }
  within.pop();
  return text;
}

/** Deeper than this, `isPlainJson` leaves the value to the replacer (which finds cycles). */
const PLAIN_DEPTH = 64;

/**
 * Whether `JSON.stringify(value)` writes exactly what the validator must see: nothing in it is
 * `undefined`, a function, a symbol, a BigInt, a non-finite number, a boxed primitive or an
 * object with `toJSON`. A plain loop, much cheaper than a replacer called for every value.
 */
function isPlainJson(value, depth = 0) {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= PLAIN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      if (!isPlainJson(value[i], depth + 1)) return false;
    }
    return true;
  }
  if (typeof value.toJSON === 'function' || isBoxed(value)) {
    return false;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && !isPlainJson(value[key], depth + 1)) return false;
  }
  return true;
}

/**
 * `value` as the validator reads it (JSON text with what JSON cannot hold marked), and whether
 * that text is also exactly what `JSON.stringify(value)` writes. Throws as `jsonText` does
 * for a value JSON cannot hold at all (a cycle).
 */
export function markedJson(value) {
  if (plain(value)) return { text: JSON.stringify(value), exact: true, thrown: [] };
  const text = valueText(value);
  return { text, exact: !rewrote, thrown };
}

/** `isPlainJson`, false where reading the value throws (a getter). */
function plain(value) {
  try {
    return isPlainJson(value);
  } catch {
    return false;
  }
}

/**
 * Whether Ajv's validate, run on the value `marked` (from `markedJson`) holds, would read a
 * member whose reading throws: `{ cause }`, what it throws then; else `undefined`, also when
 * `schema` does not compile (which is answered before validation).
 */
export function readThrow(schema, side, marked) {
  if (marked.thrown.length === 0) return undefined;
  let validator;
  try {
    validator = compileSchema(schema, side);
  } catch {
    return undefined;
  }
  const result = validator[JUDGE](marked.text, marked.thrown);
  return result.kind === 'threw' ? { cause: result.cause } : undefined;
}

/**
 * Fills the defaults the native validator reports (`[pointer, key, value]`, in the order it
 * filled them) into `root`, the caller's own copy of the value it judged.
 */
export function fillDefaults(root, defaults) {
  for (const [pointer, key, value] of defaults) at(root, pointer)[key] = value;
}

/** Follows a JSON pointer into `root`. */
function at(root, pointer) {
  let target = root;
  if (pointer === '') return target;
  for (const raw of pointer.slice(1).split('/')) {
    target = target[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return target;
}

/** A validator's answer for marked text, with what Ajv's code threw reading it. */
const JUDGE = Symbol('judge');

/** A validator's fast-path answer (see validate-fast.js), or `undefined`. */
const FAST = Symbol('fast');
const HAS_FAST = Symbol('has fast');

class Validator {
  #native;
  /**
   * The fast path's answers (see fastJudge): `#judge` on the value as given (on the input side,
   * on a copy, as the TypeScript runner validates one), `#judgeCopy` on a copy.
   */
  #judge;
  #judgeCopy;

  constructor(nativeValidator, side) {
    this.#native = nativeValidator;
    const fast = fastValidator(nativeValidator);
    if (fast !== undefined) {
      this.#judgeCopy = fastJudge(fast, true);
      this.#judge = side === 'input' ? this.#judgeCopy : fastJudge(fast, false);
    }
  }

  get [HAS_FAST]() {
    return this.#judge !== undefined;
  }

  [FAST](value, cloned) {
    if (this.#judge === undefined) return undefined;
    return cloned ? this.#judgeCopy(value) : this.#judge(value);
  }

  validate(value) {
    const judge = this.#judge;
    if (judge !== undefined) {
      const fast = judge(value);
      if (fast !== undefined) return fast;
    }
    const result = nativeReading(this, value, false);
    // Ajv's code read a member whose getter throws: Ajv's validate throws the same.
    if (result.threw) throw result.cause;
    return result;
  }

  [JUDGE](text, reads) {
    const result = this.#native.validateJson(text);
    if (result === null) return { kind: 'valid' };
    // Ajv's generated code overflows the stack on a schema that recurses on a value forever:
    // its validate throws this, as it throws what a getter it reads throws.
    if (result === ANSWER.recursed) return { kind: 'threw', cause: new RangeError('Maximum call stack size exceeded') };
    const parsed = JSON.parse(result.slice(1));
    if (result[0] === ANSWER.threw) return { kind: 'threw', cause: reads[parsed] };
    if (result[0] === ANSWER.invalid) return { kind: 'invalid', issues: parsed };
    return { kind: 'defaults', defaults: parsed };
  }
}

/**
 * `validator.validate(value)`, but `{ threw: true, cause }` where Ajv's validate would throw
 * `cause` (its code read a member whose getter throws, or it recursed forever), for a caller
 * that must tell that throw from the validator's own (a value that cannot cross, such as a
 * cycle). `owned`: `value` is the caller's own copy, and the defaults go into it, not a clone.
 */
export function validateReading(validator, value, owned = false) {
  if (!owned) {
    const fast = validator[FAST](value, false);
    if (fast !== undefined) return fast;
  }
  return nativeReading(validator, value, owned);
}

/**
 * For the tests: whether the schema has a fast path, its answer (`undefined` where it leaves
 * the value to the native validator) and the native validator's, apart.
 */
export function answersApart(validator, value, { cloned = false } = {}) {
  return {
    hasFast: validator[HAS_FAST],
    fast: validator[FAST](value, cloned),
    native: nativeReading(validator, cloned ? structuredClone(value) : value, cloned),
  };
}

function nativeReading(validator, value, owned) {
  const text = valueText(value);
  const judged = validator[JUDGE](text, thrown);
  switch (judged.kind) {
    case 'threw':
      return { threw: true, cause: judged.cause };
    case 'valid':
      return { valid: true, value };
    case 'invalid':
      return { valid: false, issues: judged.issues };
    default:
      break;
  }
  // Valid on the input side: the defaults go into a structured clone, as the TypeScript
  // runner validates `structuredClone(input)`.
  const copy = owned ? value : structuredClone(value);
  if (judged.defaults.length > 0 && (copy === null || typeof copy !== 'object')) return { valid: true, value: copy };
  fillDefaults(copy, judged.defaults);
  return { valid: true, value: copy };
}

/**
 * Whether the fast path (the function the native compiler wrote for the schema) finds `value`
 * valid on the output side; `false` also where it cannot tell (the native validator judges).
 */
export function passesFast(validator, value) {
  return validator[FAST](value, false) !== undefined;
}

/**
 * For a runner that validates `structuredClone(value)`: that clone, valid, with its defaults
 * filled, when the fast path can tell; else `undefined` (the runner clones and validates).
 */
export function validateClone(validator, value) {
  return validator[FAST](value, true);
}

export function compileSchema(schema, side) {
  if (side !== 'input' && side !== 'output') {
    throw invalidArgument(`side must be 'input' or 'output', not ${JSON.stringify(side) ?? describe(side)}`);
  }
  // What JSON has no text for is refused as Ajv refuses any schema that is not an object or a
  // boolean (`null` and numbers reach the native compiler, which says the same).
  if (['undefined', 'function', 'symbol', 'bigint'].includes(typeof schema)) {
    throw nativeError('schema-compile-failed', 'schema must be object or boolean');
  }
  const reused = typeof schema === 'object' && schema !== null ? bySchema[side] : undefined;
  const last = reused?.get(schema);
  if (last !== undefined && last.shape !== undefined && byText.get(last.key) === last.validator && unchangedSince(schema, last.shape)) {
    return last.validator;
  }
  const text = jsonText(schema, 'The schema');
  const key = `${side}:${text}`;
  const validator = byText.get(key) ?? compileText(text, side, key);
  if (reused !== undefined) {
    // The shape is taken from the second call on with the same text: a schema made afresh for
    // each call never pays for it.
    const shape = last?.key === key ? (last.shape ?? shapeOf(JSON.parse(text))) : undefined;
    reused.set(schema, { key, validator, shape });
  }
  return validator;
}

function compileText(text, side, key) {
  let compiled;
  try {
    compiled = native.compileSchemaJson(text, side);
  } catch (error) {
    if (error?.code !== 'schema-compile-failed') throw error;
    const newline = error.message.indexOf('\n');
    const failure = nativeError('schema-compile-failed', error.message.slice(newline + 1));
    failure.name = error.message.slice(0, newline);
    throw failure;
  }
  const validator = new Validator(compiled, side);
  if (byText.size >= MAX_CACHED) byText.delete(byText.keys().next().value);
  byText.set(key, validator);
  return validator;
}
