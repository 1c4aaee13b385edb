// Pack protocol v2 (`@kindgi/handler-runtime-native/protocol`). The checks run in Rust, on the
// value in place; this layer only shapes the TypeScript API's result objects.
import { invalidArgument, describe, requireString } from './errors.js';
import { native } from './native.js';

export const PACK_PROTOCOL_VERSION = 2;

export const PACK_ERROR_CODES = Object.freeze(native.packErrorCodes());

const ERROR_CODES = new Set(PACK_ERROR_CODES);

export const PACK_HEADERS = Object.freeze(Object.fromEntries(native.packHeaders()));

export const IDEMPOTENCY_KEY_NAMESPACE = native.idempotencyKeyNamespace();

export function packError(code, message, extra = {}) {
  if (!ERROR_CODES.has(code)) {
    throw invalidArgument(`code must be one of the pack protocol's error codes, not ${JSON.stringify(code) ?? describe(code)}`);
  }
  requireString(message, 'message');
  if (extra === null || typeof extra !== 'object' || Array.isArray(extra)) {
    throw invalidArgument(`extra must be an object, not ${describe(extra)}`);
  }
  return { v: PACK_PROTOCOL_VERSION, kind: 'error', code, message, ...extra };
}

function outcome(value, refusal) {
  return refusal === null
    ? { kind: 'ok', value }
    : { kind: 'err', error: packError(refusal.code, refusal.message) };
}

export function parsePackRequest(value) {
  return outcome(value, native.checkPackRequest(value));
}

export function parsePackResponse(value) {
  return outcome(value, native.checkPackResponse(value));
}

export function idempotencyKey(runId, stepScope, toolId, modelCallId) {
  requireString(runId, 'runId');
  requireString(stepScope, 'stepScope');
  requireString(toolId, 'toolId');
  if (modelCallId === undefined || modelCallId === null) return native.idempotencyKey(runId, stepScope, toolId);
  return native.idempotencyKey(runId, stepScope, toolId, requireString(modelCallId, 'modelCallId'));
}
