// Discovery globs (`globToRegex` and friends). The pattern → regex rule lives in Rust
// (src/indexer/glob.rs); these wrap it in JavaScript RegExps.
import { native } from '../native.js';
import { TEST_FILE_PATTERN } from './constants.js';

/** Test and spec files sit next to primitives and are never primitives. */
export const TEST_FILE_REGEX = new RegExp(TEST_FILE_PATTERN);

/** A discovery pattern as an anchored RegExp over `/`-separated relative paths. */
export function globToRegex(pattern) {
  return new RegExp(native.globRegexSource(pattern));
}

/** The directory before a pattern's first wildcard segment (`''`: the pack root). */
export function globStaticPrefix(pattern) {
  return native.globStaticPrefix(pattern);
}

/** The folders to walk or watch for `patterns`, none inside another (`['']`: the pack root). */
export function discoveryRoots(patterns) {
  return native.discoveryRoots([...patterns]);
}

/** `(relPath) => true` when the path matches a pattern and is not a test file. */
export function createGlobMatcher(patterns) {
  const regexes = patterns.map(globToRegex);
  return (relPath) => !TEST_FILE_REGEX.test(relPath) && regexes.some((regex) => regex.test(relPath));
}
