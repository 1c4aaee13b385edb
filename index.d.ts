// Types of @kindgi/handler-runtime-native's root entry (`.`).
// The same names and shapes as @kindgi/handler-runtime, plus the native extras
// (`canonicalJson`, `writeIndex`, `indexHash`, `idempotencyKey`).

export * from './lib/protocol.js';
export * from './lib/pack-env.js';
// `readBundleMap` stays on the ./kindgi-index subpath only, as in TypeScript.
export {
  MAX_JSON_DEPTH,
  INDEX_ENVELOPE_VERSION,
  KERNEL_PAYLOAD_VERSION,
  IndexEnvelopeVersion,
  PrimitiveKind,
  IndexedTool,
  IndexedGuardrail,
  IndexedAgent,
  IndexedFlow,
  Index,
  canonicalJson,
  WriteIndexOptions,
  WriteIndexResult,
  writeIndex,
  indexHash,
} from './lib/kindgi-index.js';
export * from './lib/validate.js';
export {
  runHandler,
  runCheck,
  HandlerContext,
  HandlerError,
  HandlerErrorCode,
  HandlerFn,
  HandlerModule,
  CheckModule,
  RunHandlerOptions,
  RunCheckOptions,
  ToolInvocationSpec,
  CheckInvocationSpec,
  Result,
} from './lib/handler-runner.js';
export { PACK_SERVICE_DRAIN_MS, readPackServiceConfig, PackServiceConfig } from './lib/pack-service.js';
export { NATIVE_ERROR_CODES, NativeError, NativeErrorCode } from './lib/errors.js';
