// The oracle for the validator's differential tests: Ajv 8 configured exactly as the TypeScript
// package configures it (ts-reference.md section 3.7): Ajv2020, strict, allErrors,
// allowUnionTypes, `useDefaults` on the input side only, and ajv-formats with its default options.
//
// A NEW Ajv instance is made for every compile (per schema and side), as the TypeScript package
// effectively does per distinct schema, so nothing (`$id`s, compiled refs) leaks between schemas.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: depending on the loader, the default import is the plugin itself or the
// module object carrying it as `.default`.
const addFormats = typeof addFormatsModule === 'function' ? addFormatsModule : addFormatsModule.default;
if (typeof addFormats !== 'function') throw new Error('ajv-formats: cannot find the plugin function');

export const SIDES = Object.freeze(['input', 'output']);

/** A fresh Ajv instance configured like the TypeScript package for `side`. */
export function makeAjv(side) {
  if (!SIDES.includes(side)) throw new TypeError(`side must be 'input' or 'output', got ${String(side)}`);
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    allowUnionTypes: true,
    ...(side === 'input' && { useDefaults: true }),
  });
  addFormats(ajv);
  return ajv;
}

/**
 * The `name` of a thrown value, as the TypeScript runner prints it (`${err.name}: ${err.message}`).
 * Ajv's MissingRefError never sets `name`, so it reads 'Error'.
 */
export function errorClassName(error) {
  if (error !== null && typeof error === 'object' && typeof error.name === 'string') return error.name;
  return typeof error;
}

// Speed: compiling Ajv's 2020-12 meta-schema validator costs ~20 ms per new instance, which would
// dominate a run of thousands of schemas. A new instance still compiles every schema, but its
// `validateSchema` (the meta-schema check Ajv runs at compile time) is delegated to a long-lived
// instance configured identically for the same side. That is exact when
// - the schema's `$schema` is absent or names one of the bundled 2020-12 meta-schemas (another
//   `$schema` might name the schema's own `$id`, which Ajv registers just before the check; and a
//   user schema cannot take a meta-schema's id without Ajv throwing first), and
// - no `$ref`/`$dynamicRef` in it can reach a meta-schema: such a ref must find the meta-schema
//   compiled the way the meta-schema check compiled it, with Ajv's meta options, i.e. WITHOUT
//   useDefaults (Ajv drops useDefaults, removeAdditional and coerceTypes for meta-schemas). Had
//   the meta-schema not been compiled yet, the ref would compile it with the instance's options
//   and, on the input side, fill the meta-schema's defaults into the data. A ref is harmless when
//   it is a fragment ('#...'), or when neither it nor any `$id` of the schema mentions
//   json-schema.org (case-insensitively) or contains a '%' (which could encode that host).
// Anything else goes the pristine way. `{ pristine: true }` never delegates (the self-check mode
// VALIDATE_COMPAT_SELF=pristine of scripts/validate-compat.mjs compares both ways).
const warm = new Map();

function warmInstance(side) {
  let entry = warm.get(side);
  if (entry === undefined) {
    const ajv = makeAjv(side);
    const metaKeys = new Set(Object.keys(ajv.schemas));
    ajv.validateSchema({}); // compiles the meta-schema validator once
    entry = { ajv, metaKeys };
    warm.set(side, entry);
  }
  return entry;
}

function canDelegateMetaCheck(schema, metaKeys) {
  if (typeof schema === 'boolean') return true;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return false;
  const meta = schema.$schema;
  return (meta === undefined || (typeof meta === 'string' && metaKeys.has(meta))) && !mayReachMetaSchema(schema);
}

const suspicious = (s) => s.includes('%') || s.toLowerCase().includes('json-schema.org');

/** Whether a `$ref`/`$dynamicRef` anywhere in `schema` might resolve to a bundled meta-schema. */
function mayReachMetaSchema(schema) {
  const refs = [];
  const ids = [];
  const walk = (value) => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(walk);
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && (key === '$ref' || key === '$dynamicRef')) refs.push(v);
      else if (typeof v === 'string' && key === '$id') ids.push(v);
      else walk(v);
    }
  };
  walk(schema);
  const external = refs.filter((r) => !r.startsWith('#'));
  return external.length > 0 && (external.some(suspicious) || ids.some(suspicious));
}

/**
 * Compiles `schema` for `side` with a new Ajv instance.
 * Returns `{ ok: true, validate(value) }`, where `validate` answers
 * `{ valid, value, issues }` (`value`: the structuredClone that was validated, default-filled on the
 * input side; `issues`: a detached copy of `validate.errors`, or `[]`), or `{ threw: { name,
 * message } }` when Ajv's validation function itself throws (a few $dynamicRef schemas make it
 * recurse forever); or `{ ok: false, name, message }` when Ajv refuses the schema.
 * Options: `pristine` (default false): let the new instance compile its own meta-schema validator.
 */
export function oracleCompile(schema, side, { pristine = false } = {}) {
  const ajv = makeAjv(side);
  if (!pristine) {
    const { ajv: metaAjv, metaKeys } = warmInstance(side);
    if (canDelegateMetaCheck(schema, metaKeys)) {
      ajv.validateSchema = function validateSchema(sch, throwOrLogError) {
        const valid = metaAjv.validateSchema(sch, throwOrLogError);
        this.errors = metaAjv.errors;
        return valid;
      };
    }
  }
  let validateFn;
  try {
    // Ajv keeps references to the schema it compiled; give it a private copy.
    validateFn = ajv.compile(structuredClone(schema));
  } catch (error) {
    return { ok: false, name: errorClassName(error), message: String(error?.message ?? error) };
  }
  return {
    ok: true,
    validate(value) {
      const data = structuredClone(value);
      let valid;
      try {
        valid = validateFn(data);
      } catch (error) {
        return { threw: { name: errorClassName(error), message: String(error?.message ?? error) } };
      }
      // Error params can point into the compiled schema (enum's allowedValues, ...): detach them.
      const issues = validateFn.errors ? structuredClone(validateFn.errors) : [];
      return { valid, value: data, issues };
    },
  };
}
