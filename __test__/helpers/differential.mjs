// The differential harness: runs a schema and its instances through the oracle (Ajv, configured
// like the TypeScript package) and through the native validator, and reports every disagreement.
//
// The native API under test (lib/validate.js):
//   compileSchema(schema, side) -> validator, or throws an Error with code 'schema-compile-failed',
//     `name` = Ajv's error class name and `message` = Ajv's message;
//   validator.validate(value) -> { valid: true, value } | { valid: false, issues } (never throws).
//
// Set VALIDATE_COMPAT_SELF=1 to replace the native side by a second, independent Ajv instance
// behind the same contract (VALIDATE_COMPAT_SELF=pristine: that stand-in also compiles its own
// meta-schema validator): every case must then agree, which checks the harness itself.
import { isDeepStrictEqual } from 'node:util';
import { errorClassName, oracleCompile } from './ajv-oracle.mjs';

export const KINDS = Object.freeze(['compile', 'validity', 'issues', 'defaults']);
const NATIVE_MODULE = new URL('../../lib/validate.js', import.meta.url);

/** The native side's contract, played by Ajv itself (for checking the harness). */
export function ajvStandIn({ pristine = false } = {}) {
  return {
    compileSchema(schema, side) {
      const compiled = oracleCompile(schema, side, { pristine });
      if (!compiled.ok) {
        const error = new Error(compiled.message);
        error.code = 'schema-compile-failed';
        error.name = compiled.name;
        throw error;
      }
      return {
        validate(value) {
          const r = compiled.validate(value);
          if (r.threw) throw Object.assign(new Error(r.threw.message), { name: r.threw.name });
          return r.valid ? { valid: true, value: r.value } : { valid: false, issues: r.issues };
        },
      };
    },
  };
}

/**
 * Loads the side under test. Returns `{ available: true, label, api }` or
 * `{ available: false, reason }` ("native API not available: ...").
 * `self`: undefined (read VALIDATE_COMPAT_SELF), false, true, or 'pristine'.
 */
export async function loadNative({ self = process.env.VALIDATE_COMPAT_SELF } = {}) {
  const mode = self === true || self === '1' || self === 'true' ? 'self' : self === 'pristine' ? 'pristine' : null;
  if (mode) {
    return {
      available: true,
      label: `Ajv stand-in (VALIDATE_COMPAT_SELF=${mode === 'self' ? '1' : 'pristine'}), NOT the native validator`,
      api: ajvStandIn({ pristine: mode === 'pristine' }),
    };
  }
  let mod;
  try {
    mod = await import(NATIVE_MODULE.href);
  } catch (error) {
    return { available: false, reason: `native API not available: importing lib/validate.js failed: ${errorClassName(error)}: ${error?.message ?? error}` };
  }
  if (typeof mod.compileSchema !== 'function') {
    return { available: false, reason: 'native API not available: lib/validate.js does not export compileSchema()' };
  }
  return { available: true, label: 'native (lib/validate.js)', api: { compileSchema: mod.compileSchema } };
}

const describeThrown = (error) => ({
  threw: {
    name: errorClassName(error),
    ...(error?.code !== undefined && { code: error.code }),
    message: String(error?.message ?? error),
  },
});

/** `v` with every -0 replaced by 0 (what JSON makes of it). */
function withoutNegativeZero(v) {
  if (Object.is(v, -0)) return 0;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(withoutNegativeZero);
  const out = Object.create(Object.getPrototypeOf(v));
  for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: withoutNegativeZero(v[k]), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Same issues: deep-equal (util.isDeepStrictEqual: same keys, values, prototypes) and the same
 * JSON text (so the same key order too). One deliberate allowance: -0 equals 0. Ajv copies schema
 * values into params (enum's allowedValues, const's allowedValue...), so a schema holding -0
 * (JSON.parse('-0') is -0) gives params holding -0, while the native side receives the schema as
 * JSON text, where -0 does not exist (and issues travel on as JSON anyway).
 */
export function sameIssues(a, b) {
  return isDeepStrictEqual(withoutNegativeZero(a), withoutNegativeZero(b)) && JSON.stringify(a) === JSON.stringify(b);
}

/** The JSON text of a value, or a marker when it has none. */
function jsonText(v) {
  try {
    const s = JSON.stringify(v);
    return s === undefined ? '<undefined>' : s;
  } catch (error) {
    return `<not JSON: ${error.message}>`;
  }
}

/**
 * Compares one schema and its instances on one side.
 * `native`: the `api` of loadNative() (default: the module's default side under test, loaded at
 * import time). `context`: extra fields copied into every record (file, group, id...).
 * Returns {
 *   side, compile: { agree, ajv: {ok, name?, message?}, native: {ok, name?, message?, threw?} },
 *   instances (compared), agreeing, unjudged (Ajv threw while validating: no answer to compare),
 *   disagreements: [{ kind, side, ...context, schema, value?, valueIndex?, detail, ajv, native }]
 * }.
 */
export function compareCase(schema, values, side, native = defaultNative(), context = {}) {
  const result = { side, compile: null, instances: 0, agreeing: 0, unjudged: [], disagreements: [] };
  const disagree = (kind, fields) => result.disagreements.push({ kind, side, ...context, schema, ...fields });

  const oracle = oracleCompile(schema, side);
  const ajvCompile = oracle.ok ? { ok: true } : { ok: false, name: oracle.name, message: oracle.message };
  let validator = null;
  let nativeCompile;
  try {
    validator = native.compileSchema(structuredClone(schema), side);
    nativeCompile = validator && typeof validator.validate === 'function'
      ? { ok: true }
      : { ok: false, threw: { name: 'TypeError', message: 'compileSchema() did not return a validator' } };
    if (!nativeCompile.ok) validator = null;
  } catch (error) {
    nativeCompile = error?.code === 'schema-compile-failed'
      ? { ok: false, name: error.name, message: error.message }
      : { ok: false, ...describeThrown(error) };
  }
  const compileAgree = ajvCompile.ok
    ? nativeCompile.ok
    : !nativeCompile.ok && !nativeCompile.threw && nativeCompile.name === ajvCompile.name && nativeCompile.message === ajvCompile.message;
  result.compile = { agree: compileAgree, ajv: ajvCompile, native: nativeCompile };
  if (!compileAgree) {
    const detail = ajvCompile.ok
      ? 'Ajv compiles the schema, native refuses it'
      : nativeCompile.ok
        ? 'Ajv refuses the schema, native compiles it'
        : nativeCompile.threw
          ? 'native threw something other than a schema-compile-failed error'
          : 'both refuse, with a different error name or message';
    disagree('compile', { detail, ajv: ajvCompile, native: nativeCompile });
    return result;
  }
  if (!ajvCompile.ok) return result;

  values.forEach((value, valueIndex) => {
    const a = oracle.validate(value);
    const input = structuredClone(value);
    const inputText = jsonText(input);
    let n;
    try {
      n = validator.validate(input);
    } catch (error) {
      n = describeThrown(error);
    }
    if (a.threw) {
      result.unjudged.push({ side, ...context, schema, value, valueIndex, ajv: a, native: n });
      return;
    }
    result.instances++;
    const record = (kind, detail, extra = {}) => disagree(kind, { value, valueIndex, detail, ajv: a, native: n, ...extra });
    if (n === null || typeof n !== 'object' || n.threw || typeof n.valid !== 'boolean') {
      record('validity', n?.threw ? 'native validate() threw' : 'native validate() did not return {valid: boolean, ...}');
      return;
    }
    if (n.valid !== a.valid) {
      record('validity', `Ajv says ${a.valid ? 'valid' : 'invalid'}, native says ${n.valid ? 'valid' : 'invalid'}`);
      return;
    }
    if (jsonText(input) !== inputText) {
      record('defaults', 'native modified the value it was given (it must work on a copy)', { nativeArgumentAfter: input });
      return;
    }
    if (!a.valid) {
      if (!sameIssues(n.issues, a.issues)) {
        record('issues', describeIssueDifference(a.issues, n.issues));
        return;
      }
    } else if (jsonText(n.value) !== jsonText(a.value)) {
      record('defaults', side === 'input'
        ? 'the default-filled values differ'
        : 'the returned value differs from the value given (output side: no defaults)');
      return;
    }
    result.agreeing++;
  });
  return result;
}

/** A one-line description of where two issue lists first differ. */
export function describeIssueDifference(ajvIssues, nativeIssues) {
  if (!Array.isArray(nativeIssues)) return `native issues is not an array (${jsonText(nativeIssues)})`;
  if (ajvIssues.length !== nativeIssues.length) {
    return `Ajv reports ${ajvIssues.length} issue(s), native ${nativeIssues.length}`;
  }
  for (let i = 0; i < ajvIssues.length; i++) {
    if (!sameIssues(ajvIssues[i], nativeIssues[i])) {
      const a = ajvIssues[i];
      const n = nativeIssues[i] ?? {};
      const keys = [...new Set([...Object.keys(a), ...Object.keys(n)])];
      const differing = keys.filter((k) => !sameIssues(a[k], n[k]));
      const what = differing.length > 0 ? `field(s) ${differing.join(', ')}` : 'key order or undefined-valued keys';
      return `issue #${i} differs in ${what}`;
    }
  }
  return 'issues differ';
}

/** The keyword a disagreement is about, for the summary tables. */
export function disagreementKeyword(d) {
  if (d.kind === 'compile') {
    const m = /keyword "([^"]+)"|unknown keyword: "([^"]+)"|"([a-zA-Z$]+)"/.exec(d.ajv.message ?? d.native.message ?? '');
    return m ? `compile:${m[1] ?? m[2] ?? m[3]}` : 'compile';
  }
  if (d.kind === 'issues') {
    const a = d.ajv.issues ?? [];
    const n = Array.isArray(d.native.issues) ? d.native.issues : [];
    for (let i = 0; i < Math.max(a.length, n.length); i++) {
      if (!sameIssues(a[i], n[i])) return (a[i] ?? n[i])?.keyword ?? 'issues';
    }
    return 'issues';
  }
  if (d.kind === 'validity') return (d.ajv.issues ?? [])[0]?.keyword ?? (d.native.issues ?? [])[0]?.keyword ?? 'validity';
  return d.kind;
}

/** A readable, bounded rendering of one disagreement. */
export function formatDisagreement(d, { maxChars = 1600 } = {}) {
  const cut = (s) => (s.length > maxChars ? `${s.slice(0, maxChars)}… (${s.length} chars)` : s);
  const where = d.file ? `${d.file} | ${d.group}${d.test ? ` | ${d.test}` : ''}` : d.id ?? '';
  const lines = [`[${d.kind}] ${d.side} side: ${where}`, `  ${d.detail}`, `  schema: ${cut(jsonText(d.schema))}`];
  if ('value' in d) lines.push(`  value:  ${cut(jsonText(d.value))}`);
  lines.push(`  ajv:    ${cut(jsonText(d.ajv))}`, `  native: ${cut(jsonText(d.native))}`);
  return lines.join('\n');
}

/** The default side under test, loaded once at import (honours VALIDATE_COMPAT_SELF). */
export const nativeStatus = await loadNative();
function defaultNative() {
  if (!nativeStatus.available) throw new Error(nativeStatus.reason);
  return nativeStatus.api;
}

/**
 * Runs the corpus and/or generated cases on both sides and aggregates the results.
 * `corpus`: entries of schema-corpus.mjs; `generated`: cases of schema-generator.mjs.
 * Returns { sides: {input, output: stats}, disagreements, unjudged, ms }.
 */
export function runAll({ corpus = [], generated = [], native = defaultNative(), sides = ['input', 'output'] } = {}) {
  const started = Date.now();
  const blank = () => ({
    schemas: 0, ajvCompiled: 0, ajvRefused: 0, compileAgree: 0, instances: 0, instancesAgree: 0, unjudged: 0,
    byKind: Object.fromEntries(KINDS.map((k) => [k, 0])),
  });
  const stats = { corpus: {}, generated: {} };
  const disagreements = [];
  const unjudged = [];
  for (const side of sides) {
    stats.corpus[side] = blank();
    stats.generated[side] = blank();
    const add = (bucket, r) => {
      bucket.schemas++;
      if (r.compile.ajv.ok) bucket.ajvCompiled++;
      else bucket.ajvRefused++;
      if (r.compile.agree) bucket.compileAgree++;
      bucket.instances += r.instances;
      bucket.instancesAgree += r.agreeing;
      bucket.unjudged += r.unjudged.length;
      for (const d of r.disagreements) bucket.byKind[d.kind]++;
      disagreements.push(...r.disagreements);
      unjudged.push(...r.unjudged);
    };
    for (const entry of corpus) {
      const r = compareCase(entry.schema, entry.tests.map((t) => t.data), side, native, {
        source: 'corpus', file: entry.file, group: entry.group,
      });
      for (const d of r.disagreements) if ('valueIndex' in d) d.test = entry.tests[d.valueIndex].description;
      for (const u of r.unjudged) u.test = entry.tests[u.valueIndex].description;
      add(stats.corpus[side], r);
    }
    for (const c of generated) {
      add(stats.generated[side], compareCase(c.schema, c.values, side, native, { source: 'generated', id: c.id, tag: c.tag }));
    }
  }
  return { stats, disagreements, unjudged, ms: Date.now() - started };
}
