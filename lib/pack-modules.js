// What a pack service reads of its pack before it serves: the index, the bundle map, where
// each module path resolves, and how a module is imported. `startPackService` boots from it,
// and a held spare (`lib/pack-service-main.js`) loads ahead with it.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeMessage } from './handler-runner.js';
import { defaultImportModule } from './indexer/config.js';
import { readBundleMap } from './indexer/bundle-map.js';

/**
 * The index at `config.indexPath` (parsed, and its bytes) and `resolveModule(modulePath)`,
 * through `config.bundleMapPath` when there is one; `{ kind: 'err', problems }` otherwise.
 */
export async function loadPackIndex(config) {
  const failed = (problems) => ({ kind: 'err', problems });
  let bytes;
  let index;
  try {
    bytes = await readFile(config.indexPath);
    index = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    return failed([`Cannot read the pack index: ${describeMessage(cause)}`]);
  }
  if (index?.v !== 1) return failed([`Index envelope v${String(index?.v)} is not v1`]);

  let bundles = {};
  if (config.bundleMapPath !== undefined) {
    const read = await readBundleMap(config.bundleMapPath);
    if (read.kind === 'err') return failed([read.message]);
    bundles = read.value;
  }
  const resolveModule = (modulePath) => {
    const target = Object.hasOwn(bundles, modulePath) ? bundles[modulePath] : modulePath;
    return isAbsolute(target) ? target : resolve(config.moduleRoot, target);
  };
  return { kind: 'ok', value: { bytes, index, resolveModule } };
}

/** The module paths the service imports: each tool's `modulePath`, then each guardrail's `checkModulePath`, as the index holds them. */
export function packModulePaths(index) {
  return [
    ...(Array.isArray(index.tools) ? index.tools : []).map((t) => t?.modulePath),
    ...(Array.isArray(index.guardrails) ? index.guardrails : []).map((g) => g?.checkModulePath),
  ];
}

/** What `versionedImport` imported, by versioned URL. */
const imported = new Map();

/**
 * Imports the module at `absolutePath` by its URL with `?v=<mtimeMs>`, as the indexer's
 * default import does: in a process that imported it already, an unchanged file is the module
 * it has (straight from here, not through the loader again), and a changed one is imported
 * anew.
 */
export function versionedImport(absolutePath) {
  const href = pathToFileURL(absolutePath).href;
  const mtimeMs = statSync(absolutePath, { throwIfNoEntry: false })?.mtimeMs;
  const key = `${href}?v=${mtimeMs}`;
  let module = imported.get(key);
  if (module === undefined) {
    module = defaultImportModule(href, mtimeMs);
    imported.set(key, module);
    // A failure is the loader's to answer again next time.
    module.catch(() => imported.delete(key));
  }
  return module;
}
