// Pack config: `loadKindgiConfig`, `findKindgiConfig` and the language and discovery helpers.
// Rust finds and reads the data formats (TOML, JSON) and runs the checks; a config module is
// imported here.
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { native } from '../native.js';
import {
  DEFAULT_DISCOVERY,
  DEFAULT_JAVA_DISCOVERY,
  DEFAULT_PYTHON_DISCOVERY,
  DEFAULT_SCALA_DISCOVERY,
  JVM_LANGUAGES,
  NON_FINITE_MARKER,
} from './constants.js';
import { err, indexerError, ok, serializeCause, stringifyError } from './errors.js';

/** The language of a loaded config's pack code. */
export function packLanguage(config) {
  return config.language ?? 'node';
}

export function isJvmLanguage(language) {
  return JVM_LANGUAGES.includes(language);
}

const LANGUAGE_DISCOVERY = {
  python: DEFAULT_PYTHON_DISCOVERY,
  java: DEFAULT_JAVA_DISCOVERY,
  scala: DEFAULT_SCALA_DISCOVERY,
};

/** A config's discovery patterns with the language's defaults filled in. */
export function resolveDiscovery(discovery, language = 'node') {
  const defaults = Object.hasOwn(LANGUAGE_DISCOVERY, language) ? LANGUAGE_DISCOVERY[language] : DEFAULT_DISCOVERY;
  return { ...defaults, ...(discovery ?? {}) };
}

/**
 * Where a pack's config lives: `{ path, format }` (`module`, `pyproject` or `json`), with
 * `conflictsWith` when a `kindgi.config.json` has another config beside it; `undefined` when
 * there is none.
 */
export async function findKindgiConfig(packDir) {
  const found = await native.findKindgiConfig(packDir);
  if (found === 'null') return undefined;
  const { name, format, conflictsWith } = JSON.parse(found);
  return { path: join(packDir, name), format, ...(conflictsWith !== undefined && { conflictsWith: join(packDir, conflictsWith) }) };
}

// Node 20.19 and later load an ES module with `require()`: synchronously, without the
// asynchronous loader's file round trips, which makes a cold index of many small modules
// markedly faster (see docs/benchmarks.md, Indexer). Only `.mjs` files (ES modules whatever
// their package says), and only a file's first version: the `require` cache has no `?v=`.
const requireModule = createRequire(import.meta.url);
const CAN_REQUIRE_ESM = process.features?.require_module === true;
/** Each `.mjs` file required, with the `mtimeMs` it had then. */
const required = new Map();

/**
 * The cache-busting dynamic import: Node keys its module cache by URL, so an edited file (a
 * newer mtime) loads anew in a long-lived process while an unchanged one stays cached. As in
 * TypeScript, a failed import is tried once more without the version.
 */
export async function defaultImportModule(fileUrl, mtimeMs) {
  let path;
  try {
    path = fileURLToPath(fileUrl);
    const version = mtimeMs ?? (await stat(path)).mtimeMs;
    if (CAN_REQUIRE_ESM && path.endsWith('.mjs') && (required.get(path) ?? version) === version) {
      try {
        const module = requireModule(path);
        required.set(path, version);
        return module;
      } catch (error) {
        // A module with a top-level await is imported (require refuses it before it runs).
        if (error?.code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error;
      }
    }
    return await import(`${fileUrl}?v=${version}`);
  } catch (error) {
    // The URL without a version is the required module's: an edit that fails is that failure.
    if (required.has(path)) throw error;
    return await import(fileUrl);
  }
}

/** Loads and checks a pack's config. Never rejects. */
export async function loadKindgiConfig(packDir, options = {}) {
  return loadConfig(resolve(packDir), options.configPath, options.importModule ?? defaultImportModule);
}

export async function loadConfig(packDir, explicitPath, importModule) {
  const located = JSON.parse(
    await native.locateKindgiConfig(packDir, explicitPath === undefined ? undefined : resolve(explicitPath)),
  );
  if (located.error !== undefined) return err(indexerError(located.error));
  const { path, format } = located.file;
  let record;
  if (format === 'module') {
    const imported = await importConfigModule(path, importModule);
    if (imported.kind === 'err') return imported;
    record = imported.value;
  } else if (format === 'json') {
    const read = await readJsonConfig(path);
    if (read.kind === 'err') return read;
    record = read.value;
  } else {
    const read = JSON.parse(await native.readPyprojectConfig(path), tomlValue);
    if (read.error !== undefined) return err(indexerError(read.error));
    record = read.record;
  }
  const checked = JSON.parse(native.checkKindgiConfig(JSON.stringify(checkedFields(record)), path, format));
  if (checked.error !== undefined) return err(indexerError(checked.error));
  return ok(checked.filled ? { ...record, language: checked.language } : record);
}

/** What the checks read: `pack` (only its type and its two strings) and `language`. */
function checkedFields(record) {
  const { pack, language } = record;
  const text = (value) => (typeof value === 'string' ? value : null);
  return {
    pack: typeof pack === 'object' && pack !== null ? { id: text(pack.id), version: text(pack.version) } : null,
    ...(language !== undefined && { language: text(language) }),
  };
}

const NON_FINITE = { inf: Infinity, '-inf': -Infinity, nan: NaN };

/** A JSON.parse reviver: the marker Rust writes for a TOML `inf`, `-inf` or `nan`, as that number. */
function tomlValue(_key, value) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === NON_FINITE_MARKER) return NON_FINITE[value[NON_FINITE_MARKER]];
  }
  return value;
}

/**
 * A `kindgi.config.json`, read and parsed as JavaScript reads it: Node's words for a file that
 * cannot be read, JSON.parse's for one that does not parse, and its numbers.
 */
async function readJsonConfig(filePath) {
  let value;
  try {
    value = JSON.parse(await readFile(filePath, 'utf8'));
  } catch (cause) {
    return parseFailed(filePath, `Failed to read ${filePath}: ${stringifyError(cause)}`, cause);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return parseFailed(filePath, `Config file ${filePath}: the file must hold a JSON object`);
  }
  return ok(value);
}

function parseFailed(filePath, message, cause) {
  return err({
    code: 'config-parse-failed',
    message,
    filePath,
    ...(cause !== undefined && { cause: serializeCause(cause) }),
  });
}

async function importConfigModule(filePath, importModule) {
  let module;
  try {
    module = await importModule(pathToFileURL(filePath).href);
  } catch (cause) {
    return parseFailed(filePath, `Failed to import ${filePath}: ${stringifyError(cause)}`, cause);
  }
  const config = module !== null && typeof module === 'object' ? module.default : undefined;
  if (config === undefined || typeof config !== 'object' || config === null) {
    return parseFailed(filePath, `Config file ${filePath} has no default export (or it is not an object)`);
  }
  return ok(config);
}
