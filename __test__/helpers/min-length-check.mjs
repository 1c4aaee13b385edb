// The sample guardrail of the TypeScript check-config suite (CC 71-73), with a stand-in for
// `defineCheck`: its evaluate fills its own schema's default (minLength 5) and refuses a config
// that does not fit, in defineCheck's words. The package's own compileSchema does the checking.

export const MIN_LENGTH_ID = 'pack.checks.min-length';
export const FIT_TEXT = "the guardrail's config doesn't fit its configSchema at /minLength";

/** The module's source, importing compileSchema from `rootUrl` (the package's root entry). */
export function minLengthModule(rootUrl) {
  return `import { compileSchema } from ${JSON.stringify(rootUrl)};
const configSchema = {
  type: 'object',
  properties: { minLength: { type: 'integer', minimum: 0, default: 5 } },
  additionalProperties: false,
};
const resolver = compileSchema(configSchema, 'input');
async function evaluate(config, trace) {
  const checked = resolver.validate(config ?? {});
  if (!checked.valid) {
    const first = checked.issues[0];
    const at = first.instancePath === '' ? '' : ' at ' + first.instancePath;
    throw new Error('Check "${MIN_LENGTH_ID}": the guardrail\\'s config doesn\\'t fit its configSchema' + at + ': ' + (first.message ?? 'invalid'));
  }
  const resolved = checked.value;
  const text = typeof trace.output === 'string' ? trace.output.trim() : '';
  if (text.length < resolved.minLength) return { passed: false, reason: 'shorter than ' + resolved.minLength };
  return { passed: true };
}
export const check = { id: '${MIN_LENGTH_ID}', kind: 'zero-llm', configSchema, evaluate };
export default { id: 'pack.min-length', check };
`;
}
