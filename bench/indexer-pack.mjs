// A generated pack for the indexer bench: `tools` JS tool modules (schemas with enums,
// formats and defaults, a handler), a few guardrails with config schemas, and a config that
// declares env. `writePack(dir, opts)` writes it; `editTool(dir, i, variant)` rewrites one tool.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function toolSource(i, { variant = 0, schemaVariant = 0 } = {}) {
  const n = String(i).padStart(4, '0');
  const extra = schemaVariant === 0 ? '' : `, note${schemaVariant}: { type: 'string', maxLength: ${100 + schemaVariant} }`;
  return `// Tool ${n}: looks up a record and says what it found.
const LIMIT = ${10 + (i % 5)};
export default {
  id: 'bench.tool${n}',
  version: '1.0.0',
  description: 'Looks up record ${n}',
  input: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 500 },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: LIMIT },
      status: { enum: ['open', 'closed', 'any'], default: 'any' },
      since: { type: 'string', format: 'date-time' }${extra}
    },
    required: ['query'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: { found: { type: 'integer' }, variant: { type: 'integer' } },
    required: ['found', 'variant'],
  },
  effects: [{ kind: 'reads', resource: 'records' }],
  mutating: false,
  handler: async (input) => ({ found: Math.min(input.limit, ${i}), variant: ${variant} }),
};
`;
}

function guardrailSource(i) {
  return `export const check = {
  id: 'bench.checks.max-len-${i}',
  evaluate: (config, trace) => ({ passed: JSON.stringify(trace?.output ?? '').length <= config.max }),
};
export default {
  id: 'bench.max-len-${i}',
  kind: 'zero-llm',
  check,
  configSchema: { type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, required: ['max'] },
  config: { max: ${1000 + i} },
  action: { 'on-violation': 'log-only' },
};
`;
}

export function writePack(dir, { tools = 400, guardrails = 10 } = {}) {
  mkdirSync(join(dir, 'tools'), { recursive: true });
  mkdirSync(join(dir, 'guardrails'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type":"module","private":true}\n');
  writeFileSync(
    join(dir, 'kindgi.config.mjs'),
    "export default { pack: { id: 'bench', version: '1.0.0' }, env: { required: ['BENCH_DB_URL'], optional: ['BENCH_LOG_LEVEL'] } };\n",
  );
  for (let i = 0; i < tools; i += 1) writeFileSync(toolPath(dir, i), toolSource(i));
  for (let i = 0; i < guardrails; i += 1) writeFileSync(join(dir, 'guardrails', `max-len-${i}.mjs`), guardrailSource(i));
}

export const toolPath = (dir, i) => join(dir, 'tools', `tool${String(i).padStart(4, '0')}.mjs`);
