// @kindgi/handler-runtime-native: the root entry.
export * from './lib/protocol.js';
export * from './lib/pack-env.js';
// `readBundleMap` stays on the ./kindgi-index subpath only, as in TypeScript.
export { MAX_JSON_DEPTH, INDEX_ENVELOPE_VERSION, KERNEL_PAYLOAD_VERSION, canonicalJson, writeIndex, indexHash } from './lib/kindgi-index.js';
export { compileSchema } from './lib/validate.js';
export { runHandler, runCheck } from './lib/handler-runner.js';
export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig } from './lib/pack-service.js';
export { NATIVE_ERROR_CODES } from './lib/errors.js';
