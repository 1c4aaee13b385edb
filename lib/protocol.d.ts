/** Wire version of every v2 message. */
export declare const PACK_PROTOCOL_VERSION: 2;
export type PackProtocolVersion = typeof PACK_PROTOCOL_VERSION;

/** Per-call context a handler receives (serializable; no functions). */
export interface PackCallContext {
  readonly tenantId: string;
  /** The kernel run this call belongs to. */
  readonly runId: string;
  /** The run's project, set by the runtime from the run (protocol 2.3.0). */
  readonly projectId?: string;
  /** That project's org, when it has one (protocol 2.3.0). */
  readonly orgId?: string;
  /** The individual call, e.g. the model's tool-call id. */
  readonly requestId?: string;
  /** The call's idempotency key, a UUID v5 (protocol 2.6.0); see `idempotencyKey`. */
  readonly idempotencyKey?: string;
  /** The env values the tool declares (`needsSpec.env`), resolved for this call (protocol 2.5.0). */
  readonly env?: Readonly<Record<string, unknown>>;
  readonly secrets?: Readonly<Record<string, unknown>>;
  /** Reserved: no runtime sends it yet. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** The calling agent version's settings blocks' values, by block id (protocol 2.4.0). */
  readonly settings?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface ToolRef {
  readonly id: string;
  /** When set, the pack service refuses a different indexed version. */
  readonly version?: string;
}

export interface CheckRef {
  /** Guardrail check id (the indexed guardrail's `checkId`, else its `id`). */
  readonly id: string;
}

export interface ToolInvokeMessage {
  readonly v: PackProtocolVersion;
  readonly kind: 'invoke';
  readonly tool: ToolRef;
  readonly input: unknown;
  readonly ctx: PackCallContext;
}

export interface CheckInvokeMessage {
  readonly v: PackProtocolVersion;
  readonly kind: 'check-invoke';
  readonly check: CheckRef;
  readonly config: Readonly<Record<string, unknown>>;
  readonly trace: unknown;
}

export interface ToolResultMessage {
  readonly v: PackProtocolVersion;
  readonly kind: 'result';
  readonly output: unknown;
}

export interface CheckResultMessage {
  readonly v: PackProtocolVersion;
  readonly kind: 'check-result';
  readonly result: unknown;
}

export type PackErrorCode =
  | 'input-validation-failed'
  | 'output-validation-failed'
  | 'handler-import-failed'
  | 'handler-shape-invalid'
  | 'handler-throw'
  | 'check-shape-invalid'
  | 'malformed-message'
  | 'unknown-protocol-version'
  | 'unexpected-message-kind'
  | 'tool-not-in-pack'
  | 'check-not-in-pack'
  | 'tool-version-mismatch'
  | 'deadline-exceeded'
  | 'cancelled';

/** The 14 `PackErrorCode`s, in the protocol's order. */
export declare const PACK_ERROR_CODES: readonly PackErrorCode[];

export interface PackErrorMessage {
  readonly v: PackProtocolVersion;
  readonly kind: 'error';
  readonly code: PackErrorCode;
  readonly message: string;
  readonly toolId?: string;
  readonly checkId?: string;
  readonly cause?: unknown;
  /** Schema-validation issues (Ajv-shaped), for the validation codes. */
  readonly issues?: readonly unknown[];
}

export type PackRequest = ToolInvokeMessage | CheckInvokeMessage;
export type PackResponse = ToolResultMessage | CheckResultMessage | PackErrorMessage;

export type ParseOutcome<T> =
  | { readonly kind: 'ok'; readonly value: T }
  | { readonly kind: 'err'; readonly error: PackErrorMessage };

/**
 * An error message: keys `v, kind, code, message`, then `extra`'s own keys in their order.
 * Throws `invalid-argument` when `code` is not a `PackErrorCode` or `message` is not a string.
 */
export declare function packError(
  code: PackErrorCode,
  message: string,
  extra?: Omit<Partial<PackErrorMessage>, 'v' | 'kind' | 'code' | 'message'>,
): PackErrorMessage;

/** Check a decoded request body; `value` on success is the very object given. */
export declare function parsePackRequest(value: unknown): ParseOutcome<PackRequest>;

/** Check a decoded response body; `value` on success is the very object given. */
export declare function parsePackResponse(value: unknown): ParseOutcome<PackResponse>;

/** HTTP headers of the v2 transport. `Authorization` is deliberately not used. */
export declare const PACK_HEADERS: {
  readonly protocol: 'kindgi-protocol';
  readonly token: 'kindgi-pack-token';
  /** Relative deadline for the call, in milliseconds. */
  readonly timeoutMs: 'kindgi-timeout-ms';
  readonly runId: 'kindgi-run-id';
  readonly requestId: 'kindgi-request-id';
  readonly artifactVersion: 'kindgi-artifact-version';
  readonly durationMs: 'kindgi-duration-ms';
  /** W3C Trace Context of the run (protocol 2.4.1). */
  readonly traceparent: 'traceparent';
  /** The tenant the call is for (protocol 2.7.0). */
  readonly tenantId: 'kindgi-tenant-id';
};

/** The namespace of every `idempotencyKey` (protocol 2.6.0). */
export declare const IDEMPOTENCY_KEY_NAMESPACE: 'a70d5bff-e713-4322-b2ea-9d5c4926a861';

/**
 * A call's idempotency key (protocol 2.6.0): the UUID v5 under `IDEMPOTENCY_KEY_NAMESPACE` of the
 * UTF-8 bytes of `JSON.stringify([runId, stepScope, toolId, modelCallId?])`. `modelCallId` is left
 * out when `undefined` or `null`.
 */
export declare function idempotencyKey(
  runId: string,
  stepScope: string,
  toolId: string,
  modelCallId?: string | null,
): string;
