// The pack service (`@kindgi/handler-runtime-native/pack-service`): its public entry, which only
// re-exports. The parts live in ./pack-service/: the process configuration (config.js), what a
// handler sees of its call (call-context.js), the service (service.js), the node:http listener
// (node-handler.js) and the boot sequence (boot.js). No module of this package imports this
// entry: each imports the part it needs.
export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig } from './pack-service/config.js';
export { createPackService } from './pack-service/service.js';
export { startPackService } from './pack-service/boot.js';
export { PACK_SERVICE_EVENTS, defaultPackServiceLogs, packServiceLogs } from './log-records.js';
export { createPackServiceSupervisor, serviceEvent } from './supervisor.js';
export { main } from './pack-service-main.js';
