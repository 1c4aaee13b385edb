/** How long SIGTERM lets in-flight calls finish, in ms. */
export declare const PACK_SERVICE_DRAIN_MS: 8000;
