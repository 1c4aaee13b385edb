// Docs that compile: every js / javascript / mjs / ts / typescript block of README.md and
// docs/*.md, type-checked by one `tsc --strict` run against the published `.d.ts` files. Each
// block is a module in a temporary project whose node_modules holds this package under its
// name, so a block imports it as a user does. JavaScript blocks are checked as JavaScript
// (`checkJs`, types from JSDoc); a block marked `<!-- illustrative: why -->` on the line before
// it is skipped.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packFolder } from './helpers/local-pack.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { name: packageName } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The file extension each checked language is written with. */
const EXTENSIONS = { js: 'mjs', javascript: 'mjs', mjs: 'mjs', ts: 'ts', typescript: 'ts' };
const MARKER = /^<!--\s*illustrative\b:?\s*(.*?)\s*-->$/;

/**
 * The fenced code blocks of a markdown text: `{ lang, code, line, skip }`, where `line` is the
 * 1-based line of the opening fence and `skip` the marker's reason (`''` for a marker without
 * one), or `undefined` when the block is not marked.
 */
export function codeBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let previous = '';
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (open === null) {
      if (lines[i].trim() !== '') previous = lines[i].trim();
      continue;
    }
    const [, indent, fence, lang] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j += 1) {
      const trimmed = lines[j].trim();
      if (trimmed.startsWith(fence[0].repeat(fence.length)) && trimmed.replaceAll(fence[0], '') === '') break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    const marker = MARKER.exec(previous);
    blocks.push({ lang: lang.toLowerCase(), code: `${body.join('\n')}\n`, line: i + 1, skip: marker === null ? undefined : marker[1] });
    previous = '';
    i = j;
  }
  return blocks;
}

/** README.md and every markdown file under docs/, as paths relative to the package root. */
function documents() {
  const docs = readdirSync(join(root, 'docs'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => `docs/${entry.name}`)
    .sort();
  return ['README.md', ...docs];
}

/** A project in which `import … from '<this package>'` resolves to this folder, as installed. */
function project() {
  const dir = packFolder('kindgi-docs-check-');
  mkdirSync(join(dir, 'node_modules', ...packageName.split('/').slice(0, -1)), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules', ...packageName.split('/')), 'junction');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'docs-check', private: true, type: 'module' }));
  // The compiler options of __test__/tsconfig.json (the published types as a caller sees them),
  // with JavaScript checked too. The `.d.ts` files themselves are checked by that tsconfig
  // (`skipLibCheck: false`); here only the blocks are, which keeps this one run to seconds.
  const { compilerOptions } = JSON.parse(readFileSync(join(root, '__test__', 'tsconfig.json'), 'utf8'));
  const options = {
    ...compilerOptions,
    allowJs: true,
    checkJs: true,
    moduleDetection: 'force',
    typeRoots: [join(root, 'node_modules', '@types')],
    skipLibCheck: true,
  };
  return { dir, options };
}

test('codeBlocks reads fences, their languages, indentation and markers', () => {
  const text = [
    'Intro',
    '```js',
    'a();',
    '```',
    '<!-- illustrative: a fragment -->',
    '',
    '~~~ts',
    'let b = 1;',
    '~~~',
    '- a list item:',
    '  ```typescript',
    '  const c = 2;',
    '  ```',
    '<!-- illustrative -->',
    '```mjs',
    '```',
    '````text',
    '```js',
    '````',
  ].join('\n');
  assert.deepEqual(codeBlocks(text), [
    { lang: 'js', code: 'a();\n', line: 2, skip: undefined },
    { lang: 'ts', code: 'let b = 1;\n', line: 7, skip: 'a fragment' },
    { lang: 'typescript', code: 'const c = 2;\n', line: 11, skip: undefined },
    { lang: 'mjs', code: '\n', line: 15, skip: '' },
    { lang: 'text', code: '```js\n', line: 17, skip: undefined },
  ]);
});

test('every JS and TS block in README.md and docs/ type-checks under tsc --strict', (t) => {
  const { dir, options } = project();
  const files = [];
  /** Where each written file's lines come from: file name → [document, line of the fence]. */
  const origins = new Map();
  const problems = [];
  let skipped = 0;
  for (const document of documents()) {
    for (const block of codeBlocks(readFileSync(join(root, document), 'utf8'))) {
      const extension = EXTENSIONS[block.lang];
      if (extension === undefined) continue;
      if (block.skip !== undefined) {
        if (block.skip === '') problems.push(`${document}:${block.line}: an illustrative block must say why`);
        skipped += 1;
        continue;
      }
      const file = `${document.replace(/[/.]/g, '_')}_L${block.line}.${extension}`;
      writeFileSync(join(dir, file), block.code);
      files.push(file);
      origins.set(file, [document, block.line]);
    }
  }
  t.diagnostic(`${files.length} blocks checked, ${skipped} illustrative blocks skipped`);
  assert.deepEqual(problems, []);
  assert.ok(files.length > 0, 'no code blocks found');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files }, null, 2));

  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
    cwd: dir,
    encoding: 'utf8',
  });
  // `file(line,col): error …` → `document:line: error …`, the line counted in the document.
  const errors = `${run.stdout}${run.stderr}`.replace(/^([^\s(]+)\((\d+),(\d+)\)/gm, (whole, file, line, column) => {
    const origin = origins.get(file);
    return origin === undefined ? whole : `${origin[0]}:${origin[1] + Number(line)}:${column}`;
  });
  assert.equal(run.status, 0, `tsc found errors in the docs' code blocks:\n${errors}`);
});
