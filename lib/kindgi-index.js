// The index writer (`@kindgi/handler-runtime-native/kindgi-index`). JSON.stringify hands the
// value to Rust, which sorts, indents, hashes and writes.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, invalidArgument, jsonText, nativeError } from './errors.js';
import { native } from './native.js';

export { MAX_JSON_DEPTH } from './errors.js';

export const INDEX_ENVELOPE_VERSION = 1;
export const KERNEL_PAYLOAD_VERSION = 1;

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
  const text = jsonText(index, 'The index');
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

/**
 * The bundle map at `file` (`kindgi build` writes `dist/bundle-map.json`): a JSON object of
 * source path → bundle path, every bundle path a non-empty string. Never rejects.
 */
export async function readBundleMap(file) {
  let map;
  try {
    map = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    const words = cause instanceof Error ? `${cause.name}: ${cause.message}` : `Error: ${String(cause)}`;
    return { kind: 'err', message: `Cannot read the bundle map ${file}: ${words}` };
  }
  const valid =
    map !== null &&
    typeof map === 'object' &&
    !Array.isArray(map) &&
    Object.values(map).every((target) => typeof target === 'string' && target !== '');
  return valid
    ? { kind: 'ok', value: map }
    : { kind: 'err', message: `The bundle map ${file} must be a JSON object of source path → bundle path.` };
}
