// The official JSON-Schema-Test-Suite (draft 2020-12, including `optional/`), vendored under
// `__test__/fixtures/json-schema-test-suite/` (see its SOURCE.txt) so a clean clone tests alone.
//
// Only the tests are loaded. The suite's `remotes/` is NOT registered with Ajv (the TypeScript
// package registers no extra schemas), so refs to remote URLs fail to compile on both sides.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root: two levels up from `__test__/helpers/`. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SUITE_DIR = path.join(REPO_ROOT, '__test__', 'fixtures', 'json-schema-test-suite');
export const CORPUS_DIR = path.join(SUITE_DIR, 'tests', 'draft2020-12');

/** Every `.json` file under `dir`, recursively, as sorted '/'-separated paths relative to `dir`. */
function listJsonFiles(dir, prefix = '') {
  const out = [];
  const entries = readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listJsonFiles(dir, rel));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(rel);
  }
  return out;
}

/** The corpus file list (relative paths such as `ref.json`, `optional/format/date.json`). */
export function corpusFiles({ filter } = {}) {
  if (!existsSync(CORPUS_DIR)) {
    throw new Error(`JSON-Schema-Test-Suite not found at ${CORPUS_DIR} (it is vendored in the repository)`);
  }
  const files = listJsonFiles(CORPUS_DIR);
  return filter ? files.filter((file) => file.includes(filter)) : files;
}

/**
 * Yields one entry per test group of every corpus file:
 * `{ file, group, schema, tests: [{ description, data, valid }] }` (`valid` is the suite's own
 * expectation, kept for information only: the harness compares with Ajv, not with the suite).
 * `filter`: keep only files whose relative path contains this substring.
 */
export function* corpusCases({ filter } = {}) {
  for (const file of corpusFiles({ filter })) {
    const groups = JSON.parse(readFileSync(path.join(CORPUS_DIR, file), 'utf8'));
    if (!Array.isArray(groups)) throw new Error(`${file}: expected an array of test groups`);
    for (const group of groups) {
      yield {
        file,
        group: group.description,
        schema: group.schema,
        tests: group.tests.map(({ description, data, valid }) => ({ description, data, valid })),
      };
    }
  }
}

/** The whole (filtered) corpus as an array. */
export const loadCorpus = (options) => [...corpusCases(options)];
