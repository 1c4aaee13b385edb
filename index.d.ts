// Types of @kindgi/handler-runtime-native's root entry (`.`).
// The same names and shapes as @kindgi/handler-runtime, plus the native extras
// (`canonicalJson`, `writeIndex`, `indexHash`, `idempotencyKey`).

export * from './lib/protocol.js';
export * from './lib/pack-env.js';
export * from './lib/kindgi-index.js';
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
