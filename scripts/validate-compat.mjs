#!/usr/bin/env node
// Differential check of the native JSON Schema validator (lib/validate.js) against Ajv, the
// oracle: the official JSON-Schema-Test-Suite (draft 2020-12) and seeded generated
// schema/instance pairs, on both sides (input: useDefaults; output: no defaults).
// Run `node scripts/validate-compat.mjs --help` for the options.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const HELP = `Usage: node scripts/validate-compat.mjs [options]

Compares the native validator (lib/validate.js compileSchema) with Ajv configured like the
TypeScript package (Ajv2020, strict, allErrors, allowUnionTypes, ajv-formats; useDefaults on the
input side): compile agreement (same refusals: same error name and message), validity, issues
(deep-equal, same key order) and default-filled values, for:
  - every JSON file of __test__/fixtures/json-schema-test-suite/tests/draft2020-12 (optional/ too);
  - seeded generated schema/instance pairs (about a tenth of the schemas are refused on purpose).
Every schema runs on both sides.

Options:
  --seed N           generator seed (default ${'${DEFAULT_SEED}'})
  --count N          generated schema/instance pairs, at least (default ${'${DEFAULT_COUNT}'})
  --filter TEXT      only corpus files whose path (e.g. optional/format/date.json) contains TEXT
  --corpus-only      skip the generated pairs
  --generated-only   skip the corpus
  --side SIDE        input or output only (default: both)
  --report PATH      write every disagreement (and the counts) as JSON to PATH
                     (default: validate-compat-report.json in the OS temp directory)
  --show N           print the first N disagreements (default 5)
  --self             same as VALIDATE_COMPAT_SELF=1 (see below)
  -h, --help         this text

Environment:
  VALIDATE_COMPAT_SELF=1         the "native" side is a second, independent Ajv instance behind the
                                 native contract: everything must agree; this checks the harness
                                 and the generator (useful before the native API exists, and after
                                 changes to the harness).
  VALIDATE_COMPAT_SELF=pristine  the same, and that instance also compiles its own meta-schema
                                 validator instead of sharing one (slower; checks the oracle's
                                 speed-up is exact).

Exit status: 0 when everything agrees; 1 on any disagreement or when the native API is not
available; 2 on bad arguments.
Cases where Ajv itself throws while validating (it recurses forever on one $dynamicRef schema of
the suite) have no answer to compare: they are listed as "unjudged" and do not fail the run.`;

function usageError(message) {
  console.error(`validate-compat: ${message}\nRun with --help for the options.`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      seed: { type: 'string' },
      count: { type: 'string' },
      filter: { type: 'string' },
      'corpus-only': { type: 'boolean', default: false },
      'generated-only': { type: 'boolean', default: false },
      side: { type: 'string' },
      report: { type: 'string' },
      show: { type: 'string' },
      self: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  }).values;
} catch (error) {
  usageError(error.message);
}

// Imported after argument parsing so that --help works even when a helper cannot load.
const { DEFAULT_COUNT, DEFAULT_SEED, generateCases } = await import('../__test__/helpers/schema-generator.mjs');
if (args.help) {
  console.log(HELP.replace('${DEFAULT_SEED}', String(DEFAULT_SEED)).replace('${DEFAULT_COUNT}', String(DEFAULT_COUNT)));
  process.exit(0);
}
if (args.self) process.env.VALIDATE_COMPAT_SELF ||= '1';

const intArg = (name, fallback, min) => {
  if (args[name] === undefined) return fallback;
  if (!/^\d+$/.test(args[name]) || Number(args[name]) < min) usageError(`--${name} must be an integer >= ${min}, got ${JSON.stringify(args[name])}`);
  return Number(args[name]);
};
const seed = intArg('seed', DEFAULT_SEED, 0);
const count = intArg('count', DEFAULT_COUNT, 0);
const show = intArg('show', 5, 0);
if (args.seed !== undefined && seed > 0xffffffff) usageError('--seed must fit in 32 bits');
if (args['corpus-only'] && args['generated-only']) usageError('--corpus-only and --generated-only exclude each other');
if (args.side !== undefined && args.side !== 'input' && args.side !== 'output') usageError(`--side must be input or output, got ${JSON.stringify(args.side)}`);
const sides = args.side ? [args.side] : ['input', 'output'];
const reportPath = path.resolve(args.report ?? path.join(os.tmpdir(), 'validate-compat-report.json'));

const { corpusCases, corpusFiles, CORPUS_DIR } = await import('../__test__/helpers/schema-corpus.mjs');
const { disagreementKeyword, formatDisagreement, nativeStatus, runAll, KINDS } = await import('../__test__/helpers/differential.mjs');

if (!nativeStatus.available) {
  console.error(`validate-compat: ${nativeStatus.reason}`);
  console.error('(run with VALIDATE_COMPAT_SELF=1 to check the harness against Ajv itself)');
  process.exit(1);
}

const t0 = Date.now();
let corpus = [];
let files = [];
if (!args['generated-only']) {
  files = corpusFiles({ filter: args.filter });
  if (files.length === 0) usageError(`--filter ${JSON.stringify(args.filter)} matches no corpus file`);
  corpus = [...corpusCases({ filter: args.filter })];
}
const generation = args['corpus-only'] ? null : generateCases({ seed, count });
const generated = generation ? generation.cases : [];

console.log(`validate-compat: side under test: ${nativeStatus.label}`);
if (!args['generated-only']) {
  const tests = corpus.reduce((n, e) => n + e.tests.length, 0);
  console.log(`corpus: ${path.relative(process.cwd(), CORPUS_DIR) || CORPUS_DIR}: ${files.length} files, ${corpus.length} schemas, ${tests} tests${args.filter ? ` (filter ${JSON.stringify(args.filter)})` : ''}`);
}
if (generation) console.log(`generated: seed ${seed}, ${generated.length} schemas, ${generation.pairs} schema/instance pairs (--count ${count})`);

const { stats, disagreements, unjudged } = runAll({ corpus, generated, sides });

// ---- summary -------------------------------------------------------------------------------
const table = (header, rows) => {
  const widths = header.map((h, i) => Math.max(String(h).length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
};
console.log('');
const rows = [];
for (const source of ['corpus', 'generated']) {
  if ((source === 'corpus' && args['generated-only']) || (source === 'generated' && args['corpus-only'])) continue;
  for (const side of sides) {
    const s = stats[source][side];
    rows.push([`${source} ${side}`, s.schemas, s.ajvCompiled, s.ajvRefused, `${s.compileAgree}/${s.schemas}`, s.instances, `${s.instancesAgree}/${s.instances}`, s.unjudged,
      ...KINDS.map((k) => s.byKind[k])]);
  }
}
table(['', 'schemas', 'Ajv compiled', 'Ajv refused', 'compile agree', 'instances', 'instances agree', 'unjudged', ...KINDS], rows);

const countBy = (list, keyOf) => {
  const m = new Map();
  for (const d of list) m.set(keyOf(d), (m.get(keyOf(d)) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
};
if (disagreements.length > 0) {
  console.log('');
  console.log('disagreements by corpus file / generator tag:');
  table(['where', 'count'], countBy(disagreements, (d) => (d.source === 'corpus' ? d.file : `generated:${d.tag}`)).slice(0, 30));
  console.log('');
  console.log('disagreements by keyword:');
  table(['keyword', 'count'], countBy(disagreements, disagreementKeyword).slice(0, 30));
  console.log('');
  console.log(`first ${Math.min(show, disagreements.length)} of ${disagreements.length} disagreement(s):`);
  for (const d of disagreements.slice(0, show)) console.log(`${formatDisagreement(d)}\n`);
}
if (unjudged.length > 0) {
  console.log('');
  console.log(`unjudged (Ajv threw while validating, no answer to compare): ${unjudged.length}`);
  for (const [where, n] of countBy(unjudged, (u) => (u.source === 'corpus' ? `${u.file} | ${u.group}` : u.id))) {
    console.log(`  ${n} x ${where}`);
  }
}

const report = {
  tool: 'scripts/validate-compat.mjs',
  sideUnderTest: nativeStatus.label,
  createdAt: new Date().toISOString(),
  options: { seed, count, filter: args.filter ?? null, sides, corpus: !args['generated-only'], generated: !args['corpus-only'] },
  stats,
  disagreementCount: disagreements.length,
  disagreements,
  unjudged,
};
writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
const seconds = ((Date.now() - t0) / 1000).toFixed(1);
console.log('');
console.log(`report: ${reportPath}`);
if (disagreements.length === 0) {
  console.log(`OK: everything agrees (${seconds} s)`);
  process.exit(0);
}
console.log(`FAIL: ${disagreements.length} disagreement(s) (${seconds} s)`);
process.exit(1);
