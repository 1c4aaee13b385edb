// @kindgi/handler-runtime-native: the root entry.
export * from './lib/protocol.js';
export * from './lib/pack-env.js';
// `readBundleMap`, `main` and `HELP_TEXT` stay on the ./kindgi-index subpath, as in TypeScript
// (the root has `main` as `kindgiIndexMain` and `HELP_TEXT` as `KINDGI_INDEX_HELP_TEXT`).
export {
  MAX_JSON_DEPTH,
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
  TEST_FILE_REGEX,
  globToRegex,
  globStaticPrefix,
  discoveryRoots,
  createGlobMatcher,
  findKindgiConfig,
  loadKindgiConfig,
  packLanguage,
  isJvmLanguage,
  resolveDiscovery,
  runIndexer,
  main as kindgiIndexMain,
  HELP_TEXT as KINDGI_INDEX_HELP_TEXT,
  canonicalJson,
  writeIndex,
  indexHash,
} from './lib/kindgi-index.js';
export { compileSchema } from './lib/validate.js';
export { runHandler, runCheck } from './lib/handler-runner.js';
export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig } from './lib/pack-service/config.js';
export { NATIVE_ERROR_CODES } from './lib/errors.js';
