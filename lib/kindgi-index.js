// `@kindgi/handler-runtime-native/kindgi-index`: the indexer (`runIndexer`, `main`, config and
// discovery, from lib/indexer/) and the index writer. JSON.stringify hands a value to Rust,
// which sorts, indents, hashes and writes.
import { resolve } from 'node:path';
import { describe, invalidArgument, jsonText, nativeError } from './errors.js';
import { native } from './native.js';

export { MAX_JSON_DEPTH } from './errors.js';
export {
  INDEX_ENVELOPE_VERSION,
  KERNEL_PAYLOAD_VERSION,
  DEFAULT_DISCOVERY,
  DEFAULT_PYTHON_DISCOVERY,
  DEFAULT_JAVA_DISCOVERY,
  DEFAULT_SCALA_DISCOVERY,
  KINDGI_CONFIG_FILENAMES,
  KINDGI_JSON_CONFIG_FILENAME,
  PYPROJECT_FILENAME,
  RESERVED_CHECK_IDS,
  PRESET_DECLARATION_SETTINGS,
} from './indexer/constants.js';
export { TEST_FILE_REGEX, globToRegex, globStaticPrefix, discoveryRoots, createGlobMatcher } from './indexer/discovery.js';
export { findKindgiConfig, loadKindgiConfig, packLanguage, isJvmLanguage, resolveDiscovery } from './indexer/config.js';
export { runIndexer } from './indexer/run.js';
export { main, HELP_TEXT } from './indexer/cli.js';
export { readBundleMap } from './indexer/bundle-map.js';

export function canonicalJson(value) {
  return native.canonicalJsonText(Buffer.from(jsonText(value, 'The value')));
}

function optionalString(options, name) {
  const value = options[name];
  if (value !== undefined && typeof value !== 'string') {
    throw invalidArgument(`options.${name} must be a string, not ${describe(value)}`);
  }
  return value;
}

export async function writeIndex(index, outputPath, options = {}) {
  if (index === null || typeof index !== 'object' || Array.isArray(index)) {
    throw invalidArgument(`index must be an object, not ${describe(index)}`);
  }
  if (typeof outputPath !== 'string' || outputPath === '') {
    throw invalidArgument(`outputPath must be a non-empty string, not ${describe(outputPath)}`);
  }
  // As `runIndexer` resolves it: `link/../index.json` is the cwd's, not the link target's
  // parent's, and `out/` names a file.
  outputPath = resolve(outputPath);
  if (options === null || typeof options !== 'object') {
    throw invalidArgument(`options must be an object, not ${describe(options)}`);
  }
  const artifactVersion = optionalString(options, 'artifactVersion');
  const publishedAt = optionalString(options, 'publishedAt');
  const text = Buffer.from(jsonText(index, 'The index'));
  const written = await native.writeIndexText(text, outputPath, artifactVersion, publishedAt);
  if (written.errorCode !== undefined) {
    const extra = written.errorCode === 'output-write-failed' ? { filePath: outputPath } : {};
    throw nativeError(written.errorCode, written.errorMessage, extra);
  }
  return {
    outputPath,
    artifactVersion: written.artifactVersion,
    publishedAt: written.publishedAt,
    indexHash: written.indexHash,
    bytes: written.bytes,
  };
}

export function indexHash(bytesOrPath) {
  if (typeof bytesOrPath === 'string') return native.indexHashFile(bytesOrPath);
  if (bytesOrPath instanceof Uint8Array) return native.indexHashBytes(bytesOrPath);
  throw invalidArgument(`indexHash takes bytes (a Uint8Array) or a path (a string), not ${describe(bytesOrPath)}`);
}

