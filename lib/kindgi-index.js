// `@kindgi/handler-runtime-native/kindgi-index`: the indexer (`runIndexer`, `main`, config and
// discovery, from lib/indexer/) and the index writer. JSON.stringify hands a value to Rust,
// which sorts, indents, hashes and writes.
import { resolve } from 'node:path';
import { types } from 'node:util';
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
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const pieces = inPieces(value, canonicalListed, () => new native.CanonicalPiecesWriter());
    if (pieces) return pieces.writer.finish(pieces.rest);
  }
  return native.canonicalJsonText(Buffer.from(jsonText(value, 'The value')));
}

// A list this long is worth a native thread of its own.
const LONG_LIST = 64;
// A key JSON writes as it is: no `"`, `\`, control character or surrogate (the native side
// takes the key as UTF-8).
const PLAIN_KEY = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** canonicalJson's lists in pieces: the long ones under a plain key. */
const canonicalListed = (key, value) => Array.isArray(value) && value.length >= LONG_LIST && PLAIN_KEY.test(key);

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
  const pieces = inPieces(index, (key) => SORTED_LISTS.has(key), () => new native.IndexPiecesWriter());
  const written = pieces
    ? await pieces.writer.finish(pieces.rest, outputPath, artifactVersion, publishedAt)
    : await native.writeIndexText(Buffer.from(jsonText(index, 'The index')), outputPath, artifactVersion, publishedAt);
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

// The lists the index keeps sorted by `id` (the native writer's own list).
const SORTED_LISTS = new Set(['tools', 'guardrails', 'agents', 'flows']);
// A piece's size: the first is a few items, to start the native thread early; the others hold
// about this many characters of JSON. Small pieces are cheap to hand over: V8 flattens a
// string before napi copies it, and a flat string this small is made in V8's young generation
// (past 128 KB it goes to the large-object space, at several times the cost); and the native
// thread's tape of one stays in the CPU's cache.
const FIRST_PIECE_ITEMS = 8;
const PIECE_CHARS = 1 << 14;

/**
 * Hands `object` to a native writer from `makeWriter` in pieces, each read on a native thread
 * while JSON.stringify makes the next: the items of each list that `listed(key, value)`
 * picks a run at a time, then the other members as one object. Returns the writer and the
 * last piece, or `undefined` when no list is picked, when the pieces might not stringify as
 * the whole object would (a Proxy; a boxed primitive, which JSON.stringify writes as what it
 * holds; a `toJSON` on the object, a list or an item, which is told its key, and a piece
 * changes the key) or when making them threw; the caller then stringifies the whole object,
 * which throws what JSON.stringify throws for it.
 */
function inPieces(object, listed, makeWriter) {
  if (types.isProxy(object) || types.isBoxedPrimitive(object) || JSON.isRawJSON?.(object)) return undefined;
  if (typeof object.toJSON === 'function') return undefined;
  let writer;
  try {
    const keys = Object.keys(object);
    // Lists are picked from data properties, so a getter runs once, whichever way is taken.
    const picked = new Set(keys.filter((key) => {
      const value = Object.getOwnPropertyDescriptor(object, key)?.value;
      return listed(key, value) && plainList(value);
    }));
    if (picked.size === 0) return undefined;
    // A null prototype keeps a `__proto__` member a member, as it is in the whole text.
    const rest = Object.create(null);
    const lists = [];
    for (const key of keys) {
      const value = object[key];
      if (picked.has(key)) lists.push([key, value]);
      else rest[key] = value;
    }
    writer = makeWriter();
    let size = FIRST_PIECE_ITEMS;
    for (const [key, list] of lists) {
      if (list.length === 0) writer.items(key, '[]');
      for (let at = 0; at < list.length; ) {
        const piece = JSON.stringify(list.slice(at, at + size));
        writer.items(key, piece);
        at += size;
        // As many items as fit the size, judged by the last piece; at most twice as many.
        size = Math.max(1, Math.min(size * 2, Math.round((size * PIECE_CHARS) / piece.length)));
      }
    }
    return { writer, rest: JSON.stringify(rest) };
  } catch {
    writer?.abandon();
    return undefined;
  }
}

/** An Array whose items JSON.stringify writes the same in any array. */
function plainList(list) {
  if (!Array.isArray(list) || types.isProxy(list) || Object.getPrototypeOf(list) !== Array.prototype) return false;
  if (typeof list.toJSON === 'function') return false;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const object = (typeof item === 'object' && item !== null) || typeof item === 'function';
    if (object && types.isProxy(item)) return false;
    if ((object || typeof item === 'bigint') && typeof item.toJSON === 'function') return false;
  }
  return true;
}

export function indexHash(bytesOrPath) {
  if (typeof bytesOrPath === 'string') return native.indexHashFile(bytesOrPath);
  if (bytesOrPath instanceof Uint8Array) return native.indexHashBytes(bytesOrPath);
  throw invalidArgument(`indexHash takes bytes (a Uint8Array) or a path (a string), not ${describe(bytesOrPath)}`);
}

