// The pack service (`@kindgi/handler-runtime-native/pack-service`).

/** How long SIGTERM lets in-flight calls finish, in ms. */
export const PACK_SERVICE_DRAIN_MS = 8000;
