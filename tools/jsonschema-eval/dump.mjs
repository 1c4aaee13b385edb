// Writes the corpora of the validator's differential suites with Ajv's verdicts, for the
// jsonschema crate evaluation (`src/main.rs` beside this file reads it):
// - the JSON Schema Test Suite (draft 2020-12 with optional/), as __test__/helpers loads it;
// - the generated schema/instance pairs of validate-differential.test.mjs (its default seed);
// - format vectors: every ajv-formats format over the suite's format strings and seeded
//   generated strings (numbers for the number formats);
// - pattern vectors: ECMAScript regex features (Ajv compiles patterns with the `u` flag) over
//   strings where engines tend to differ (Unicode classes, astral characters, line ends).
// Each schema is compiled by the Ajv oracle of the differential suite (Ajv configured as the
// TypeScript package configures it) on both sides. Values are taken through JSON text first, so
// Ajv judges exactly the value the Rust side reads.
//
//   node tools/jsonschema-eval/dump.mjs [out.json]   (default: cases.json beside this file)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { oracleCompile, SIDES } from '../../__test__/helpers/ajv-oracle.mjs';
import { loadCorpus } from '../../__test__/helpers/schema-corpus.mjs';
import { DEFAULT_SEED, DEFAULT_COUNT, generateCases, mulberry32 } from '../../__test__/helpers/schema-generator.mjs';
import formatsModule from 'ajv-formats/dist/formats.js';

const out = process.argv[2] ?? fileURLToPath(new URL('cases.json', import.meta.url));
const viaJson = (value) => JSON.parse(JSON.stringify(value) ?? 'null');

/** The schema paths of Ajv's issues, each once, in order: what makes the value invalid. */
const issuePaths = (issues) => [...new Set(issues.map((issue) => issue.schemaPath))];

/** Ajv's answers for `schema` over `values` on one side. */
function judge(schema, values, side) {
  const compiled = oracleCompile(schema, side);
  if (!compiled.ok) return { ok: false, error: `${compiled.name}: ${compiled.message}` };
  const verdicts = values.map((value) => {
    const r = compiled.validate(value);
    if (r.threw) return { threw: `${r.threw.name}: ${r.threw.message}` };
    return r.valid ? { valid: true } : { valid: false, paths: issuePaths(r.issues) };
  });
  return { ok: true, verdicts };
}

function judgeCase(schema, values) {
  return Object.fromEntries(SIDES.map((side) => [side, judge(schema, values, side)]));
}

const corpus = loadCorpus().map((entry) => {
  const schema = viaJson(entry.schema);
  const values = entry.tests.map((t) => viaJson(t.data));
  return {
    name: `${entry.file} | ${entry.group}`,
    schema,
    values,
    descriptions: entry.tests.map((t) => t.description),
    ajv: judgeCase(schema, values),
  };
});

const generated = generateCases({ seed: DEFAULT_SEED, count: Math.max(DEFAULT_COUNT, 5000) }).cases.map((c) => {
  const schema = viaJson(c.schema);
  const values = c.values.map(viaJson);
  return { name: `${c.id} (${c.tag})`, schema, values, ajv: judgeCase(schema, values) };
});

/** Every string the suite's format tests hold, and seeded strings built from format-like pieces. */
function formatStrings() {
  const strings = new Set();
  for (const entry of loadCorpus({ filter: 'format' })) {
    for (const t of entry.tests) if (typeof t.data === 'string') strings.add(t.data);
  }
  const pieces = [
    '2020-01-01', '2019-02-29', 'T', 't', ' ', '23:59:60', '12:00:00', '.5', 'Z', 'z', '+01:30', '-24:00', 'P1Y2M', 'T1H', 'W',
    'a', 'user', '@', 'example.com', '.', '-', 'xn--', '_', 'http://', 'https://', 'urn:', 'mailto:', '/', '?q=1', '#f',
    '%41', '%zz', '[', ']', '::', '1', '255', '256', '192.168.0.1', '::ffff:', '{x}', '{+y}', '~0', '~1', '0/', '123e4567',
    '-e89b-12d3-a456-', '426614174000', 'QQ==', '=', '\u0662', '\u00e9', '\u2028', '\u{1f600}', '\t', '\\', '"',
  ];
  const random = mulberry32(7);
  const below = (n) => Math.floor(random() * n);
  for (let i = 0; i < 600; i++) {
    let s = '';
    for (let n = 1 + below(5); n > 0; n--) s += pieces[below(pieces.length)];
    strings.add(s);
  }
  return [...strings];
}

const NUMBERS = [
  0, 1, -1, 1.5, -0.25, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53),
  2 ** 63, 3.4028234663852886e38, 3.5e38, 1e308, -1e308, 5e-324, 1e-7, 100, 1e21,
];

const { fullFormats } = formatsModule;
const strings = formatStrings();
const formats = Object.entries(fullFormats).map(([format, definition]) => {
  const kind = typeof definition === 'object' && definition.type === 'number' ? 'number' : 'string';
  const values = kind === 'number' ? NUMBERS : strings;
  const compiled = oracleCompile({ type: kind, format }, 'output');
  if (!compiled.ok) throw new Error(`Ajv refuses format ${format}: ${compiled.message}`);
  return { format, kind, values, ajv: values.map((value) => compiled.validate(value).valid) };
});

const PATTERNS = [
  '^\\d+$', '^\\D$', '^\\w+$', '^\\W$', '^\\s+$', '^\\S+$', '\\bfoo\\b', '^\\p{L}+$', '^\\p{Lu}', '^.$', '^.{2}$',
  '^[^a]$', '^(?<year>\\d{4})$', '^(a|ab)(c|bcd)(d*)$', '(?=a)a', '(?<=a)b', '(a)\\1', '[\\s\\S]', '^\\uD83D\\uDE00$',
  '^\\u{1F600}$', '^[😀-😂]$', 'a$', '^a', '^\\x41$', '\\cA', '^[\\d-z]+$', '\\a', '^\\/$', '^[\\w-]+$', '(?i)a',
  '^\\P{L}$', 'a{2,}', '^$', '\\u00e9', '^[\\u0000-\\u007f]*$',
];
const PATTERN_STRINGS = [
  '', '123', '\u0662', 'é', 'É', 'abc', 'a_b', 'a-b', ' ', '\u00a0', '\ufeff', '\u2028', '\t', 'foo bar', 'foobar', '😀', '😁',
  'x😀', 'aa', 'abcd', 'A', 'a\n', '\na', '\n', 'ab', 'ba', '1999', '-', 'z', '/', '\u0001', 'ı', 'ſ', 'K',
];
const patterns = PATTERNS.map((pattern) => {
  const schema = { type: 'string', pattern };
  return { name: `pattern ${JSON.stringify(pattern)}`, schema, values: PATTERN_STRINGS, ajv: judgeCase(schema, PATTERN_STRINGS) };
});

writeFileSync(out, JSON.stringify({ seed: DEFAULT_SEED, corpus, generated, formats, patterns }));
const count = (cases) => cases.reduce((n, c) => n + c.values.length, 0);
console.log(
  `wrote ${out}: corpus ${corpus.length} schemas / ${count(corpus)} values, generated ${generated.length} / ${count(generated)}, `
    + `formats ${formats.length} / ${count(formats)}, patterns ${patterns.length} / ${count(patterns)}`,
);
