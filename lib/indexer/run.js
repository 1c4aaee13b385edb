// `runIndexer`: config, discovery (Rust), the modules imported here concurrently, each read into
// a record, then the entries built, checked, sorted and written (Rust). The index, the report
// and the order of its errors are those of one-by-one imports: records keep discovery order.
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { native } from '../native.js';
import { resolvePackEnv } from '../pack-env.js';
import { classifyModule } from './classify.js';
import { defaultImportModule, loadConfig, packLanguage, resolveDiscovery } from './config.js';
import { globToRegex } from './discovery.js';
import { err, indexerError, ok, serializeCause, stringifyError } from './errors.js';
import { loadZodConverter } from './zod.js';

/** Imports in flight at once: enough to overlap the loader's file reads with evaluation. */
export const IMPORT_CONCURRENCY = 16;

/** Runs `task` over `items` with at most `limit` at once; results in `items` order. */
async function mapBounded(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const at = next;
      next += 1;
      results[at] = await task(items[at], at);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Runs the indexer. Never rejects for a pack's fault: every failure is an `IndexerError`. */
export async function runIndexer(opts) {
  return (await indexPack(opts)).outcome;
}

/**
 * `runIndexer` with the knobs the dev loop and the bench use: `cache` (a Map kept between runs:
 * a file whose module path and mtime are unchanged is not imported again), `concurrency`, and
 * the stages' times in milliseconds.
 */
export async function indexPack(opts, { cache, concurrency = IMPORT_CONCURRENCY } = {}) {
  const stages = {};
  let mark = performance.now();
  const lap = (name) => {
    const now = performance.now();
    stages[name] = (stages[name] ?? 0) + (now - mark);
    mark = now;
  };
  let relPaths = [];
  const done = (outcome) => ({ outcome, stages, files: relPaths });

  const packDir = resolve(opts.packDir);
  const userImport = opts.importModule;
  const configResult = await loadConfig(packDir, opts.configPath, userImport ?? defaultImportModule);
  if (configResult.kind === 'err') return done(configResult);
  const config = configResult.value;
  const refusal = native.languageRefusal(packDir, packLanguage(config));
  if (refusal !== null) return done(err(indexerError(refusal)));
  const env = resolvePackEnv(config.env);
  if (env.kind === 'err') return done(err(indexerError(native.configEnvRefusal(env.message))));

  const discovery = resolveDiscovery(config.discovery);
  const patterns = ['tools', 'guardrails', 'agents', 'flows'].map((kind) => {
    const pattern = discovery[kind];
    if (typeof pattern !== 'string') {
      throw new TypeError(`The config's discovery.${kind} must be a glob pattern (a string), not ${pattern === null ? 'null' : typeof pattern}`);
    }
    // A pattern JavaScript's RegExp refuses throws here, as it does in TypeScript.
    globToRegex(pattern);
    return pattern;
  });
  const bundleMap = opts.bundleMap;
  const moduleRoot = resolve(opts.moduleRoot ?? packDir);
  // The map's keys as TypeScript reads them (Object.keys, which throws for null), each with its
  // bundle when that is a string.
  const sources = bundleMap === undefined ? undefined : Object.keys(bundleMap);
  const discovered = await native.discoverPackFiles(
    packDir,
    patterns,
    sources,
    sources?.map((source) => (typeof bundleMap[source] === 'string' ? bundleMap[source] : null)),
    moduleRoot,
  );
  if (discovered.error !== undefined) return done(err(indexerError(discovered.error)));
  lap('discover');
  relPaths = discovered.files.map((file) => file.relPath);

  const files = discovered.files.map((file) => {
    const bundle = bundleMap?.[file.relPath];
    const absPath = bundle !== undefined ? resolve(moduleRoot, bundle) : join(packDir, file.relPath);
    return { ...file, fileUrl: pathToFileURL(absPath).href, key: `${absPath}\0${file.mtimeMs}\0${file.expectedKind}` };
  });
  const importOne = async (file) => {
    const cached = cache?.get(file.relPath);
    if (cached !== undefined && cached.key === file.key && userImport === undefined) return cached;
    try {
      const module = userImport !== undefined ? await userImport(file.fileUrl) : await defaultImportModule(file.fileUrl, file.mtimeMs);
      return { key: file.key, module };
    } catch (cause) {
      return { key: file.key, failed: cause };
    }
  };
  const imported = await mapBounded(files, concurrency, importOne);
  lap('import');

  const causes = [];
  const records = files.map((file, at) => {
    const entry = imported[at];
    let record = entry.record;
    if (record === undefined) {
      const own = [];
      record =
        'failed' in entry
          ? { outcome: 'import-failed', error: stringifyError(entry.failed), cause: own.push(serializeCause(entry.failed)) - 1 }
          : classifyModule(entry.module, file.expectedKind ?? undefined, loadZodConverter, own);
      entry.record = record;
      entry.causes = own;
      // A module that failed to import is imported again next time.
      if (cache !== undefined && !('failed' in entry)) cache.set(file.relPath, entry);
    }
    return withCauses(record, entry.causes, causes, file);
  });
  if (cache !== undefined) {
    const present = new Set(files.map((f) => f.relPath));
    for (const relPath of cache.keys()) if (!present.has(relPath)) cache.delete(relPath);
  }
  let request;
  try {
    request = JSON.stringify({ packId: config.pack.id, packVersion: config.pack.version, env: env.value, files: records });
  } catch {
    request = JSON.stringify({
      packId: config.pack.id,
      packVersion: config.pack.version,
      env: env.value,
      files: records.map(writable),
    });
  }
  lap('convert');

  const outputPath = opts.outputPath !== undefined ? resolve(opts.outputPath) : join(packDir, 'index.json');
  const assembled = await native.assembleIndex(request, outputPath, opts.artifactVersion, opts.publishedAt);
  stages.validate = assembled.validateMs;
  stages.write = assembled.writeMs;
  if (assembled.error !== undefined) return done(err(indexerError(assembled.error, causes)));
  const body = JSON.parse(assembled.report);
  return done(
    ok({
      packId: body.packId,
      packVersion: body.packVersion,
      artifactVersion: body.artifactVersion,
      publishedAt: body.publishedAt,
      counts: body.counts,
      outputPath,
      fileErrors: body.fileErrors.map((error) => indexerError(error, causes)),
      warnings: body.warnings,
    }),
  );
}

/** The record with its causes renumbered into the run's `causes`. */
function withCauses(record, own, causes, file) {
  const base = causes.length;
  causes.push(...own);
  const shift = (value) => (typeof value === 'number' ? value + base : value);
  const out = { ...record, relPath: file.relPath, expectedKind: file.expectedKind ?? null };
  if ('cause' in record) out.cause = shift(record.cause);
  if (record.converted !== undefined) {
    out.converted = {};
    for (const [target, converted] of Object.entries(record.converted)) {
      out.converted[target] =
        converted.error === undefined ? converted : { field: converted.field, error: { ...converted.error, cause: shift(converted.error.cause) } };
    }
  }
  return out;
}

/** A record JSON.stringify can write: one that it cannot (a BigInt, a cycle) is refused alone. */
function writable(record) {
  try {
    JSON.stringify(record);
    return record;
  } catch (cause) {
    return { relPath: record.relPath, expectedKind: record.expectedKind, outcome: 'unwritable', error: stringifyError(cause) };
  }
}
