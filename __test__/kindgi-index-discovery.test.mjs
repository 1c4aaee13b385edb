// Discovery globs: globToRegex, globStaticPrefix, discoveryRoots, createGlobMatcher and
// TEST_FILE_REGEX, by example and by a seeded differential against a small reference written
// here from the TypeScript rules (code-unit scan, the regex escaper's character set, braces up to
// the first `}`), which also drives runIndexer's native walk and its bundle-map matching.
//
// KINDGI_RANDOM_CASES raises the number of random cases (default 2000); KINDGI_RANDOM_SEED picks
// another seed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import {
  DEFAULT_DISCOVERY,
  TEST_FILE_REGEX,
  createGlobMatcher,
  discoveryRoots,
  globStaticPrefix,
  globToRegex,
  resolveDiscovery,
  runIndexer,
} from '../index.js';
import { mulberry32 } from './helpers/canonical-reference.mjs';

const CASES = Number(process.env.KINDGI_RANDOM_CASES ?? 2000);
const SEED = Number(process.env.KINDGI_RANDOM_SEED ?? 0x6b1d6e);

// ---------------------------------------------------------------------------------------------
// The reference: the TypeScript rules, restated
// ---------------------------------------------------------------------------------------------

/** Characters the TypeScript escaper backslashes (not `*`, `?`, `/` or `,`). */
const ESCAPED = new Set(['.', '+', '^', '$', '(', ')', '|', '[', ']', '\\', '{', '}']);

function escapeText(text) {
  let out = '';
  for (let k = 0; k < text.length; k += 1) out += ESCAPED.has(text[k]) ? `\\${text[k]}` : text[k];
  return out;
}

/** The regex source the TypeScript globToRegex builds, scanning UTF-16 code units. */
function referenceSource(pattern) {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const unit = pattern[i];
    if (unit === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 3 : 2;
    } else if (unit === '*') {
      out += '[^/]*';
      i += 1;
    } else if (unit === '?') {
      out += '[^/]';
      i += 1;
    } else if (unit === '{' && pattern.indexOf('}', i) !== -1) {
      const close = pattern.indexOf('}', i);
      out += `(?:${pattern.slice(i + 1, close).split(',').map(escapeText).join('|')})`;
      i = close + 1;
    } else {
      out += escapeText(unit);
      i += 1;
    }
  }
  return `^${out}$`;
}

/** The reference RegExp, or the SyntaxError JavaScript refuses its source with. */
function referenceRegex(pattern) {
  try {
    return new RegExp(referenceSource(pattern));
  } catch (error) {
    assert.ok(error instanceof SyntaxError);
    return error;
  }
}

function referencePrefix(pattern) {
  const segments = pattern.split('/');
  const firstWild = segments.findIndex((segment) => /[*?{[]/.test(segment));
  const dirs = firstWild === -1 ? segments.slice(0, -1) : segments.slice(0, firstWild);
  return dirs.filter((segment) => segment !== '' && segment !== '.').join('/');
}

function referenceRoots(patterns) {
  const prefixes = [...new Set(patterns.map(referencePrefix))].sort();
  return prefixes.filter((p) => !prefixes.some((other) => other !== p && (other === '' || p.startsWith(`${other}/`))));
}

const isTestFile = (relPath) => /\.(test|spec)\.(ts|js|mjs|cjs)$/.test(relPath);
const byCodeUnit = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------------------------------------
// Random patterns and paths
// ---------------------------------------------------------------------------------------------

const PATTERN_PIECES = [
  '*', '*', '**', '**/', '**/', '?', '/', '/', 'a', 'b', 'c', 'ab', '.', 'tools', 'x.mjs', '.mjs', '.ts',
  '{a,b}', '{a*,b}', '{,a}', '{a}', '{mjs,ts}', '{a?,b.}', '{?,a}', '{', '}', ',', '{a,', '+', '^', '$', '(', ')', '|',
  '[', ']', '\\', '-', ' ', 'é', '日', '😀', '𝒳', '\uFF5E', '\n', '\u2028',
];
const PATH_PIECES = [
  'a', 'b', 'c', 'ab', '/', '/', '/', '.', 'x.mjs', '.mjs', '.ts', 'tools', '-', ' ', 'é', '日', '😀', '𝒳',
  '\uFF5E', '\n', '\u2028', '{', '}', ',', '*', '?', '+', '(', ')', '[', '$', '.test.ts', '.spec.mjs',
];
const FILLERS = ['', 'a', 'ab', 'é😀', 'x.y', '日'];
const ONE_UNIT = ['q', 'é', '.', '-', '日', '\uFF5E'];
const SEGMENTS = ['', 'a/', 'a/b/', 'é/😀/'];

function pick(random, list) {
  return list[Math.floor(random() * list.length)];
}

function randomPattern(random) {
  const length = 1 + Math.floor(random() * 7);
  let out = '';
  for (let k = 0; k < length; k += 1) out += pick(random, PATTERN_PIECES);
  return out;
}

function randomPath(random) {
  const length = 1 + Math.floor(random() * 8);
  let out = '';
  for (let k = 0; k < length; k += 1) out += pick(random, PATH_PIECES);
  return out;
}

/** A path the pattern is meant to match: each wildcard filled in, one option of each brace. */
function instantiate(random, pattern) {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const unit = pattern[i];
    if (unit === '*' && pattern[i + 1] === '*') {
      if (pattern[i + 2] === '/') {
        out += pick(random, SEGMENTS);
        i += 3;
      } else {
        out += pick(random, ['', 'a', 'a/b', 'é/x.mjs']);
        i += 2;
      }
    } else if (unit === '*') {
      out += pick(random, FILLERS);
      i += 1;
    } else if (unit === '?') {
      out += pick(random, ONE_UNIT);
      i += 1;
    } else if (unit === '{' && pattern.indexOf('}', i) !== -1) {
      const close = pattern.indexOf('}', i);
      out += pick(random, pattern.slice(i + 1, close).split(','));
      i = close + 1;
    } else {
      out += unit;
      i += 1;
    }
  }
  return out;
}

function caseList() {
  const random = mulberry32(SEED);
  const cases = [];
  for (let n = 0; n < CASES; n += 1) {
    const pattern = randomPattern(random);
    const paths = [];
    for (let k = 0; k < 6; k += 1) paths.push(instantiate(random, pattern));
    for (let k = 0; k < 4; k += 1) paths.push(randomPath(random));
    cases.push({ pattern, paths });
  }
  return cases;
}

const show = (value) => JSON.stringify(value);

// ---------------------------------------------------------------------------------------------
// By example
// ---------------------------------------------------------------------------------------------

describe('globToRegex', () => {
  test('what the default and custom patterns match', () => {
    const table = [
      ['tools/**/*.{ts,js,mjs}', 'tools/echo/index.ts', true],
      ['tools/**/*.{ts,js,mjs}', 'tools/index.mjs', true],
      ['tools/**/*.{ts,js,mjs}', 'tools/a/b/c/d.js', true],
      ['tools/**/*.{ts,js,mjs}', 'tools/echo/index.json', false],
      ['tools/**/*.{ts,js,mjs}', 'tools/echo.cjs', false],
      ['tools/**/*.{ts,js,mjs}', 'src/tools/echo.ts', false],
      ['kindgi/tools/**/*.ts', 'kindgi/tools/a/b.ts', true],
      ['kindgi/tools/**/*.ts', 'tools/a.ts', false],
      ['*.tool.ts', 'x.tool.ts', true],
      ['*.tool.ts', 'dir/x.tool.ts', false],
      ['*.tool.ts', 'xtool.ts', false],
      ['a?c.ts', 'abc.ts', true],
      ['a?c.ts', 'a/c.ts', false],
      ['a?c.ts', 'ac.ts', false],
      ['src/**', 'src/a/b/c', true],
      ['src/**', 'src/', true],
      ['src/**', 'src', false],
      ['**/x.ts', 'x.ts', true],
      ['**/x.ts', 'a/b/x.ts', true],
      ['a{b', 'a{b', true],
      ['x.{a*,b}', 'x.aaa', true],
      ['x.{a*,b}', 'x.', true],
      ['x.{a*,b}', 'x.b', true],
      ['f(1)+[2].$', 'f(1)+[2].$', true],
      ['a.b', 'axb', false],
    ];
    for (const [pattern, relPath, matches] of table) {
      assert.equal(globToRegex(pattern).test(relPath), matches, `${pattern} ~ ${relPath}`);
    }
  });

  test('the RegExp: the TypeScript source, no flags', () => {
    // Raw sources, as the TypeScript globToRegex hands them to `new RegExp`.
    const table = [
      ['tools/**/*.{ts,js,mjs}', String.raw`^tools/(?:.*/)?[^/]*\.(?:ts|js|mjs)$`],
      ['a/**', '^a/.*$'],
      ['a?b', '^a[^/]b$'],
      ['a{b', String.raw`^a\{b$`],
      ['{a.b,(c)}', String.raw`^(?:a\.b|\(c\))$`],
      ['x+y[1]^$|\\', String.raw`^x\+y\[1\]\^\$\|\\$`],
      ['{a*,b?}', '^(?:a*|b?)$'],
      ['}{', String.raw`^\}\{$`],
      ['a,b', '^a,b$'],
      ['', '^$'],
    ];
    for (const [pattern, raw] of table) {
      const regex = globToRegex(pattern);
      assert.ok(regex instanceof RegExp);
      assert.equal(regex.flags, '');
      assert.equal(regex.source, new RegExp(raw).source, pattern);
    }
  });

  test('a brace option JavaScript cannot compile throws a SyntaxError', () => {
    for (const pattern of ['{*}', 'a{?}', '{*a,b}', 'x/{a,*}']) {
      assert.throws(() => globToRegex(pattern), SyntaxError, pattern);
    }
  });

  test('`?` is one UTF-16 code unit, so an astral character takes two', () => {
    assert.equal(globToRegex('a?.js').test('a😀.js'), false);
    assert.equal(globToRegex('a??.js').test('a😀.js'), true);
    assert.equal(globToRegex('a?.js').test('aé.js'), true);
  });

  test('`**` and `*` stop at line terminators as `.` does; `[^/]` does not', () => {
    assert.equal(globToRegex('a/**').test('a/b\nc'), false);
    assert.equal(globToRegex('a/*').test('a/b\nc'), true);
    assert.equal(globToRegex('a/**').test('a/b\u2028c'), false);
  });

  test('lone surrogates in a pattern are kept as they are', () => {
    const pattern = 'a\uD800b/\uDC00*';
    assert.equal(globToRegex(pattern).source, new RegExp(referenceSource(pattern)).source);
    assert.equal(globToRegex(pattern).test('a\uD800b/\uDC00x'), true);
  });
});

describe('globStaticPrefix and discoveryRoots', () => {
  test('the folder before the first wildcard segment', () => {
    const table = [
      ['tools/**/*.{ts,js,mjs}', 'tools'],
      ['kindgi/tools/**/*.ts', 'kindgi/tools'],
      ['./kindgi/agents/*.ts', 'kindgi/agents'],
      ['**/*.tool.ts', ''],
      ['src/tools/index.ts', 'src/tools'],
      ['index.ts', ''],
      ['a//b/./c/*.ts', 'a/b/c'],
      ['a/[b]/c.ts', 'a'],
      ['a/b{/c.ts', 'a'],
      ['a/b?/c.ts', 'a'],
      ['/abs/x.ts', 'abs'],
      ['', ''],
    ];
    for (const [pattern, prefix] of table) assert.equal(globStaticPrefix(pattern), prefix, pattern);
  });

  test('the folders to walk: unique, sorted, none inside another', () => {
    assert.deepEqual(discoveryRoots(Object.values(DEFAULT_DISCOVERY)), ['agents', 'flows', 'guardrails', 'tools']);
    assert.deepEqual(
      discoveryRoots(['kindgi/tools/**/*.ts', 'kindgi/guardrails/**/*.ts', 'kindgi/agents/**/*.ts', 'kindgi/flows/**/*.ts']),
      ['kindgi/agents', 'kindgi/flows', 'kindgi/guardrails', 'kindgi/tools'],
    );
    assert.deepEqual(discoveryRoots(['kindgi/**/*.ts', 'kindgi/tools/**/*.ts']), ['kindgi']);
    assert.deepEqual(discoveryRoots(['**/*.tool.ts', 'kindgi/tools/*.ts']), ['']);
    assert.deepEqual(discoveryRoots(['tools/**', 'toolsy/*.ts', 'tools/sub/*.ts']), ['tools', 'toolsy']);
    assert.deepEqual(discoveryRoots([]), []);
    // Code-unit order: an astral character (a surrogate pair) sorts before U+FF5E.
    assert.deepEqual(discoveryRoots(['\uFF5E/a*', '😀/b*', 'a/*']), ['a', '😀', '\uFF5E']);
  });

  test('discoveryRoots takes any iterable of patterns and returns a plain array', () => {
    const roots = discoveryRoots(new Set(['tools/*.ts', 'agents/*.ts']));
    assert.ok(Array.isArray(roots));
    assert.deepEqual(roots, ['agents', 'tools']);
  });
});

describe('createGlobMatcher and TEST_FILE_REGEX', () => {
  test('TEST_FILE_REGEX is the TypeScript one', () => {
    assert.ok(TEST_FILE_REGEX instanceof RegExp);
    assert.equal(TEST_FILE_REGEX.source, '\\.(test|spec)\\.(ts|js|mjs|cjs)$');
    assert.equal(TEST_FILE_REGEX.flags, '');
    for (const [name, isTest] of [
      ['a.test.ts', true],
      ['a.spec.cjs', true],
      ['dir/a.test.mjs', true],
      ['a.test.tsx', false],
      ['test.ts', false],
      ['a.tests.ts', false],
      ['a.test.ts.bak', false],
    ]) {
      assert.equal(TEST_FILE_REGEX.test(name), isTest, name);
    }
  });

  test('any pattern matches, never a test or spec file', () => {
    const matches = createGlobMatcher(['kindgi/tools/**/*.ts', 'kindgi/agents/**/*.ts']);
    assert.equal(matches('kindgi/tools/echo/index.ts'), true);
    assert.equal(matches('kindgi/agents/a.ts'), true);
    assert.equal(matches('kindgi/tools/echo/index.test.ts'), false);
    assert.equal(matches('kindgi/agents/a.spec.ts'), false);
    assert.equal(matches('index.json'), false);
    assert.equal(matches('tools/echo/index.ts'), false);
    assert.equal(createGlobMatcher([])('anything.ts'), false);
  });

  test('a matcher over a pattern JavaScript cannot compile throws when made', () => {
    assert.throws(() => createGlobMatcher(['tools/*.ts', '{*}']), SyntaxError);
  });

  test('resolveDiscovery feeds the matcher', () => {
    const matches = createGlobMatcher(Object.values(resolveDiscovery({ tools: 'kindgi/tools/**/*.ts' })));
    assert.equal(matches('kindgi/tools/a.ts'), true);
    assert.equal(matches('tools/a.ts'), false);
    assert.equal(matches('agents/a.mjs'), true);
  });
});

describe('runIndexer discovery with characters beyond ASCII in the pattern', () => {
  /** The relPaths runIndexer discovers for a tools pattern (each file has no default export). */
  async function discoveredBy(t, files, pattern, bundleMap) {
    const base = await mkdtemp(path.join(os.tmpdir(), 'kindgi-discovery-literal-'));
    t.after(() => rm(base, { recursive: true, force: true }));
    const dir = path.join(base, 'pack');
    for (const rel of files) {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), '');
    }
    await mkdir(dir, { recursive: true });
    const configPath = path.join(base, 'kindgi.config.mjs');
    await writeFile(configPath, '');
    const outcome = await runIndexer({
      packDir: dir,
      configPath,
      outputPath: path.join(base, 'index.json'),
      artifactVersion: 'x',
      publishedAt: '2026-01-01T00:00:00.000Z',
      ...(bundleMap !== undefined && { bundleMap }),
      importModule: async (url) =>
        url === pathToFileURL(configPath).href
          ? { default: { pack: { id: 'p', version: '1' }, discovery: { tools: pattern, guardrails: 'n/x', agents: 'n/x', flows: 'n/x' } } }
          : {},
    });
    if (outcome.kind === 'err') return outcome.error.code;
    return outcome.value.fileErrors.map((e) => e.filePath);
  }

  const files = ['ab/é.mjs', 'ab/𝒳.mjs', 'ab/😀x.mjs', 'ab/日.mjs'];
  for (const [pattern, expected] of [
    ['ab/é.mjs', ['ab/é.mjs']],
    ['ab/日.mjs', ['ab/日.mjs']],
    ['ab/𝒳.mjs', ['ab/𝒳.mjs']],
    ['ab/😀*.mjs', ['ab/😀x.mjs']],
    ['ab/{😀x,𝒳}.mjs', ['ab/𝒳.mjs', 'ab/😀x.mjs']],
    ['ab/??.mjs', ['ab/𝒳.mjs']],
  ]) {
    test(`the walk and a bundle map find what the RegExp matches: ${pattern}`, async (t) => {
      assert.deepEqual(files.filter((f) => globToRegex(pattern).test(f)).sort(byCodeUnit), expected);
      assert.deepEqual(await discoveredBy(t, files, pattern), expected, 'walk');
      const bundleMap = Object.fromEntries(files.map((f) => [f, 'bundle.mjs']));
      assert.deepEqual(await discoveredBy(t, [], pattern, bundleMap), expected, 'bundle map');
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Randomized differential
// ---------------------------------------------------------------------------------------------

describe(`random patterns and paths (${CASES} cases, seed ${SEED})`, () => {
  const cases = caseList();

  test('the generator makes what it should: invalid patterns, astral characters, unbalanced braces, matches', (t) => {
    if (cases.length < 200) {
      t.skip('too few cases to judge the mix');
      return;
    }
    let invalid = 0;
    let astral = 0;
    let unbalanced = 0;
    let matched = 0;
    for (const { pattern, paths } of cases) {
      const regex = referenceRegex(pattern);
      if (regex instanceof Error) invalid += 1;
      else if (paths.some((p) => regex.test(p))) matched += 1;
      if (/[\uD800-\uDBFF]/.test(pattern)) astral += 1;
      if (pattern.includes('{') && !pattern.slice(pattern.indexOf('{')).includes('}')) unbalanced += 1;
    }
    const share = (n) => n / cases.length;
    assert.ok(share(invalid) > 0.005 && share(invalid) < 0.5, `invalid ${invalid}`);
    assert.ok(share(astral) > 0.05, `astral ${astral}`);
    assert.ok(share(unbalanced) > 0.01, `unbalanced ${unbalanced}`);
    assert.ok(share(matched) > 0.3, `matched ${matched}`);
  });

  test('globToRegex gives the reference source, or throws where the reference cannot compile', () => {
    const mismatches = [];
    for (const { pattern } of cases) {
      const expected = referenceRegex(pattern);
      let actual;
      try {
        actual = globToRegex(pattern);
      } catch (error) {
        actual = error;
      }
      if (expected instanceof Error) {
        if (!(actual instanceof SyntaxError)) mismatches.push({ pattern, expected: 'SyntaxError', actual: String(actual) });
      } else if (!(actual instanceof RegExp) || actual.source !== expected.source || actual.flags !== '') {
        mismatches.push({ pattern, expected: expected.source, actual: actual instanceof RegExp ? actual.source : String(actual) });
      }
      if (mismatches.length >= 5) break;
    }
    assert.deepEqual(mismatches, [], show(mismatches));
  });

  test('globStaticPrefix and discoveryRoots give the reference answers', () => {
    const mismatches = [];
    for (let n = 0; n < cases.length; n += 1) {
      const { pattern } = cases[n];
      if (globStaticPrefix(pattern) !== referencePrefix(pattern)) {
        mismatches.push({ pattern, expected: referencePrefix(pattern), actual: globStaticPrefix(pattern) });
      }
      const patterns = [pattern, cases[(n + 1) % cases.length].pattern, cases[(n + 7) % cases.length].pattern];
      const roots = discoveryRoots(patterns);
      if (show(roots) !== show(referenceRoots(patterns))) mismatches.push({ patterns, expected: referenceRoots(patterns), actual: roots });
      if (mismatches.length >= 5) break;
    }
    assert.deepEqual(mismatches, [], show(mismatches));
  });

  test('createGlobMatcher agrees with the reference RegExp and the test-file rule', () => {
    const mismatches = [];
    let positives = 0;
    for (let n = 0; n < cases.length; n += 1) {
      const { pattern, paths } = cases[n];
      const other = cases[(n + 3) % cases.length].pattern;
      const patterns = [pattern, other];
      const regexes = patterns.map(referenceRegex);
      if (regexes.some((r) => r instanceof Error)) continue;
      const matches = createGlobMatcher(patterns);
      for (const relPath of paths) {
        const expected = !isTestFile(relPath) && regexes.some((r) => r.test(relPath));
        if (expected) positives += 1;
        if (matches(relPath) !== expected) mismatches.push({ patterns, relPath, expected });
      }
      if (mismatches.length >= 5) break;
    }
    assert.deepEqual(mismatches, [], show(mismatches));
    assert.ok(positives > cases.length / 2, `${positives} matching paths`);
  });

  describe('the native discovery agrees with the JavaScript RegExp', () => {
    const NONE = '__no_such_folder__/x';
    let base;
    let dir;
    let configPath;
    let tree;

    before(async () => {
      // The pack folder holds the tree alone: the config and the index live beside it.
      base = await mkdtemp(path.join(os.tmpdir(), 'kindgi-discovery-'));
      dir = path.join(base, 'pack');
      configPath = path.join(base, 'kindgi.config.mjs');
      await mkdir(dir);
      await writeFile(configPath, '');
      // A fixed tree: names from the same alphabet, hidden entries, node_modules, test files.
      const random = mulberry32(SEED ^ 0x5eed);
      const names = ['a', 'b', 'ab', 'x.mjs', 'a.ts', 'é', '日', '😀', '𝒳', '\uFF5E', 'tools', 'a b', 'a\nb', '{a,b}', 'a*', 'a?', '(x)', '$', '.ts', 'a.test.ts', 'b.spec.mjs', '.hidden', 'node_modules'];
      const files = new Set();
      while (files.size < 120) {
        const depth = 1 + Math.floor(random() * 4);
        const segments = [];
        for (let k = 0; k < depth; k += 1) segments.push(pick(random, names));
        files.add(segments.join('/'));
      }
      // A name cannot be both a folder and a file: drop files that are another's folder.
      tree = [...files].filter((f) => ![...files].some((g) => g.startsWith(`${f}/`)));
      for (const rel of tree) {
        const abs = path.join(dir, ...rel.split('/'));
        await mkdir(path.dirname(abs), { recursive: true });
        await writeFile(abs, '');
      }
    });
    after(() => rm(base, { recursive: true, force: true }));

    const run = (pattern, bundleMap) =>
      runIndexer({
        packDir: dir,
        configPath,
        outputPath: path.join(base, 'out', 'index.json'),
        artifactVersion: 'x',
        publishedAt: '2026-01-01T00:00:00.000Z',
        ...(bundleMap !== undefined && { bundleMap }),
        importModule: async (url) => {
          if (url === pathToFileURL(configPath).href) {
            return { default: { pack: { id: 'p', version: '1' }, discovery: { tools: pattern, guardrails: NONE, agents: NONE, flows: NONE } } };
          }
          return {};
        },
      });

    /** The relPaths a run discovered: each has no default export, so each is a file error. */
    async function discovered(pattern, bundleMap) {
      let outcome;
      try {
        outcome = await run(pattern, bundleMap);
      } catch (error) {
        return error instanceof SyntaxError ? 'SyntaxError' : `threw ${error}`;
      }
      if (outcome.kind === 'err') return outcome.error.code === 'discovery-empty' ? [] : `${outcome.error.code}: ${outcome.error.message}`;
      assert.ok(outcome.value.fileErrors.every((e) => e.code === 'no-default-export'));
      return outcome.value.fileErrors.map((e) => e.filePath);
    }

    /** What the TypeScript walk finds: under the static prefix, no hidden or node_modules entry. */
    function walkExpected(pattern) {
      const regex = referenceRegex(pattern);
      if (regex instanceof Error) return 'SyntaxError';
      const prefix = referencePrefix(pattern);
      return tree
        .filter((rel) => {
          if (prefix !== '' && !rel.startsWith(`${prefix}/`)) return false;
          const below = (prefix === '' ? rel : rel.slice(prefix.length + 1)).split('/');
          if (below.some((s) => s.startsWith('.') || s === 'node_modules')) return false;
          return regex.test(rel) && !isTestFile(rel);
        })
        .sort(byCodeUnit);
    }

    /** Patterns meant for the tree: the random ones, and ones instantiated over its names. */
    function walkPatterns() {
      const random = mulberry32(SEED ^ 0xa1c);
      const patterns = [];
      for (let n = 0; n < Math.max(40, CASES / 10); n += 1) {
        const base = pick(random, tree);
        const segments = base.split('/').map((segment) => {
          const r = random();
          if (r < 0.25) return '*';
          if (r < 0.35) return '**';
          if (r < 0.45) return segment.length > 0 ? `${segment.slice(0, -1)}?` : segment;
          if (r < 0.55) return `{${segment},zz}`;
          return segment;
        });
        patterns.push(segments.join('/'));
        patterns.push(cases[n % cases.length].pattern);
      }
      return patterns.filter((p) => !referencePrefix(p).split('/').includes('..'));
    }

    test('the walk of a real folder', async () => {
      assert.ok(tree.length > 40, `${tree.length} files`);
      const mismatches = [];
      let found = 0;
      for (const pattern of walkPatterns()) {
        const expected = walkExpected(pattern);
        const actual = await discovered(pattern);
        if (Array.isArray(expected)) found += expected.length;
        if (show(actual) !== show(expected)) mismatches.push({ pattern, expected, actual });
        if (mismatches.length >= 3) break;
      }
      assert.deepEqual(mismatches, [], show(mismatches));
      assert.ok(found > 50, `${found} files found in all`);
    });

    test('the keys of a bundle map', async () => {
      const mismatches = [];
      let found = 0;
      const step = Math.max(1, Math.floor(CASES / 300));
      let runs = 0;
      for (let n = 0; n < cases.length; n += step) {
        runs += 1;
        const { pattern, paths } = cases[n];
        const keys = [...new Set(paths)].filter((p) => p !== '__proto__' && !p.startsWith(NONE.slice(0, 5)));
        const bundleMap = Object.fromEntries(keys.map((key) => [key, 'bundle.mjs']));
        const regex = referenceRegex(pattern);
        const expected = regex instanceof Error ? 'SyntaxError' : keys.filter((k) => regex.test(k) && !isTestFile(k)).sort(byCodeUnit);
        const actual = await discovered(pattern, bundleMap);
        if (Array.isArray(expected)) found += expected.length;
        if (show(actual) !== show(expected)) mismatches.push({ pattern, keys, expected, actual });
        if (mismatches.length >= 3) break;
      }
      assert.deepEqual(mismatches, [], show(mismatches));
      assert.ok(found > runs, `${found} keys matched in ${runs} runs`);
    });
  });
});
