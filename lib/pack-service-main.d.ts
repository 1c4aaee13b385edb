export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig, PackServiceConfig } from './pack-service.js';
