// compileSchema/validate (lib/validate.js) against Ajv, the oracle, configured like the TypeScript
// package: the official JSON-Schema-Test-Suite (draft 2020-12, with optional/) and seeded
// generated schema/instance pairs, each on both sides (input: useDefaults; output: none).
// Zero disagreements allowed beyond KNOWN_GAPS (each listed in docs/known-differences.md): compile agreement
// (same refusal name and message), validity, issues (deep-equal, same key order) and
// default-filled values.
//
// More detail, every disagreement as JSON, other seeds: node scripts/validate-compat.mjs --help
// Reproduce with another seed here: VALIDATE_COMPAT_SEED=N node --test __test__/validate-differential.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFiles, loadCorpus } from './helpers/schema-corpus.mjs';
import { DEFAULT_COUNT, DEFAULT_SEED, generateCases } from './helpers/schema-generator.mjs';
import { formatDisagreement, nativeStatus, runAll } from './helpers/differential.mjs';

const SEED = process.env.VALIDATE_COMPAT_SEED === undefined ? DEFAULT_SEED : Number(process.env.VALIDATE_COMPAT_SEED);
const MIN_PAIRS = 5000;
const SHOW = 5;

/**
 * Suite cases where Ajv's own validation function throws (RangeError: it recurses forever on this
 * $dynamicRef schema), so there is no answer to compare but the throw, which native must match
 * (the handler runner rejects with it, as TypeScript's does). Anything else throwing fails the test.
 */
const KNOWN_UNJUDGED = new Set([
  'dynamicRef.json | $dynamicRef avoids the root of each schema, but scopes are still registered',
]);

/**
 * Disagreements this suite knows of and docs/known-differences.md lists, each with its reason. A disagreement
 * outside these fails the test; the counts of these are printed.
 */
/** `Invalid regular expression: /<source>/<flags>: ` of a V8 RegExp refusal (the reason after it left out). */
const regexRefusalHead = (message) => /^Invalid regular expression: \/.*\/[dgimsuvy]*: /s.exec(message ?? '')?.[0];

const KNOWN_GAPS = [
  {
    // The engine is regress, not V8: its error texts are mapped to V8's for the common cases
    // (src/js/regexp.rs, v8_error_reason); a rarer one may keep regress's words.
    // Everything before the reason must still be V8's: the same pattern and flags refused.
    reason: 'an invalid regular expression: V8\'s SyntaxError wording of the reason',
    matches: (d) =>
      d.kind === 'compile' &&
      d.ajv?.name === 'SyntaxError' &&
      d.native?.name === 'SyntaxError' &&
      regexRefusalHead(d.ajv.message) !== undefined &&
      regexRefusalHead(d.ajv.message) === regexRefusalHead(d.native.message),
  },
  {
    reason: 'Ajv overflows its stack resolving a pure $ref chain through a URN base; native compiles it',
    matches: (d) => d.kind === 'compile' && d.ajv?.name === 'RangeError' && d.native?.ok === true,
  },
];

function splitKnown(t, disagreements, label) {
  const unknown = [];
  const counts = new Map();
  for (const d of disagreements) {
    const gap = KNOWN_GAPS.find((g) => g.matches(d));
    if (gap === undefined) unknown.push(d);
    else counts.set(gap.reason, (counts.get(gap.reason) ?? 0) + 1);
  }
  for (const [reason, n] of counts) t.diagnostic(`${label}: ${n} known disagreement(s): ${reason}`);
  return unknown;
}

function diagnoseCounts(t, label, stats) {
  for (const side of ['input', 'output']) {
    const s = stats[side];
    t.diagnostic(
      `${label} ${side}: ${s.schemas} schemas (Ajv compiled ${s.ajvCompiled}, refused ${s.ajvRefused}; compile agree ${s.compileAgree}), `
        + `${s.instances} instances compared (agree ${s.instancesAgree}), ${s.unjudged} unjudged; `
        + `disagreements: ${Object.entries(s.byKind).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
  }
}

function assertNoDisagreements(disagreements, label) {
  if (disagreements.length === 0) return;
  const shown = disagreements.slice(0, SHOW).map((d) => formatDisagreement(d, { maxChars: 600 })).join('\n\n');
  assert.fail(`${label}: ${disagreements.length} disagreement(s) with Ajv; the first ${Math.min(SHOW, disagreements.length)}:\n\n${shown}\n\n`
    + '(all of them: node scripts/validate-compat.mjs --report <file>)');
}

test('the validator API under test loads', (t) => {
  t.diagnostic(`side under test: ${nativeStatus.available ? nativeStatus.label : nativeStatus.reason}`);
  assert.ok(nativeStatus.available, nativeStatus.reason);
});

test('JSON-Schema-Test-Suite draft2020-12, both sides: no disagreement with Ajv', (t) => {
  const files = corpusFiles();
  const corpus = loadCorpus();
  const tests = corpus.reduce((n, e) => n + e.tests.length, 0);
  t.diagnostic(`corpus: ${files.length} files, ${corpus.length} schemas, ${tests} tests (each on both sides)`);
  assert.ok(files.length > 0 && corpus.length > 0, 'the corpus is empty');

  const { stats, disagreements, unjudged, ms } = runAll({ corpus });
  diagnoseCounts(t, 'corpus', stats.corpus);
  t.diagnostic(`corpus run: ${ms} ms`);

  const unexpected = unjudged.filter((u) => !KNOWN_UNJUDGED.has(`${u.file} | ${u.group}`));
  assert.deepEqual(unexpected.map((u) => `${u.side}: ${u.file} | ${u.group} | ${u.test}: Ajv threw ${u.ajv.threw.name}`), [],
    'Ajv threw while validating an unexpected corpus case');
  const known = unjudged.filter((u) => KNOWN_UNJUDGED.has(`${u.file} | ${u.group}`));
  assert.ok(known.length > 0, 'the known throwing cases ran');
  for (const u of known) {
    assert.deepEqual(u.native?.threw && { name: u.native.threw.name, message: u.native.threw.message }, u.ajv.threw,
      `${u.side}: ${u.file} | ${u.group} | ${u.test}: native throws as Ajv does`);
  }
  assertNoDisagreements(splitKnown(t, disagreements, 'corpus'), 'corpus');
  for (const side of ['input', 'output']) assert.ok(stats.corpus[side].instances > 0, `no corpus instance compared on the ${side} side`);
});

test(`generated schema/instance pairs (seed ${SEED}), both sides: no disagreement with Ajv`, (t) => {
  assert.ok(Number.isInteger(SEED) && SEED >= 0, `VALIDATE_COMPAT_SEED must be a non-negative integer, got ${process.env.VALIDATE_COMPAT_SEED}`);
  const { cases, pairs } = generateCases({ seed: SEED, count: Math.max(DEFAULT_COUNT, MIN_PAIRS) });
  t.diagnostic(`generated: seed ${SEED}, ${cases.length} schemas, ${pairs} schema/instance pairs (each on both sides)`);

  const { stats, disagreements, unjudged, ms } = runAll({ generated: cases });
  diagnoseCounts(t, 'generated', stats.generated);
  t.diagnostic(`generated run: ${ms} ms`);

  assert.deepEqual(unjudged.map((u) => `${u.side}: ${u.id}: Ajv threw ${u.ajv.threw.name}`), [], 'Ajv threw while validating a generated case');
  assertNoDisagreements(splitKnown(t, disagreements, 'generated'), `generated (seed ${SEED})`);
  for (const side of ['input', 'output']) {
    const s = stats.generated[side];
    assert.ok(s.instances >= MIN_PAIRS, `only ${s.instances} generated pairs compared on the ${side} side (want >= ${MIN_PAIRS})`);
    assert.ok(s.ajvRefused > 0 && s.ajvCompiled > s.ajvRefused, `${side} side: unexpected compile/refuse split ${s.ajvCompiled}/${s.ajvRefused}`);
  }
});
