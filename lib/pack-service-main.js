// `@kindgi/handler-runtime-native/pack-service-main`: the process entry's module. So far it
// exports what the TypeScript one exports for callers: the configuration reader and the drain
// budget. Running as the process entry arrives with the pack service.
export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig } from './pack-service.js';
