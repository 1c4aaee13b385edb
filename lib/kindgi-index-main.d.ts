// `@kindgi/handler-runtime-native/kindgi-index-main`: runs `kindgi-index` on import with the
// process's arguments and sets `process.exitCode`. It exports nothing.
export {};
