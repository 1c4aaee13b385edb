import type { PackServiceLogger } from './pack-service.js';

/** The tenant and run a handler serves, its resolved needs, and (from the pack service) its abort signal and logger. */
export interface HandlerContext {
  readonly tenantId: string;
  readonly runId: string;
  readonly projectId?: string;
  readonly orgId?: string;
  readonly requestId?: string;
  readonly env?: Readonly<Record<string, unknown>>;
  readonly secrets?: Readonly<Record<string, unknown>>;
  readonly config?: Readonly<Record<string, unknown>>;
  readonly settings?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Protocol 2.6.0: the call's idempotency key, passed through from the wire. */
  readonly idempotencyKey?: string;
  /** Never on the wire; the pack service adds it: aborted on the call's deadline or its caller's leaving. */
  readonly abortSignal?: AbortSignal;
  /** Never on the wire; the pack service adds it: a `@kindgi/log` logger bound to the call. */
  readonly log?: PackServiceLogger;
}

export interface ToolInvocationSpec {
  readonly id: string;
  readonly modulePath: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema: Readonly<Record<string, unknown>>;
}

export interface CheckInvocationSpec {
  readonly id: string;
  readonly modulePath: string;
  readonly configSchema?: Readonly<Record<string, unknown>>;
}

export type HandlerErrorCode =
  | 'input-validation-failed'
  | 'output-validation-failed'
  | 'handler-import-failed'
  | 'handler-shape-invalid'
  | 'handler-throw'
  | 'check-shape-invalid';

export interface HandlerError {
  readonly code: HandlerErrorCode;
  readonly message: string;
  readonly toolId?: string;
  readonly cause?: unknown;
  /** Ajv's issues (`ValidationIssue`), or `{instancePath, message}` from a Zod input schema. */
  readonly issues?: readonly unknown[];
}

export type Result<T, E> = { readonly kind: 'ok'; readonly value: T } | { readonly kind: 'err'; readonly error: E };

export type HandlerFn = (input: unknown, ctx: HandlerContext) => unknown | Promise<unknown>;
export type HandlerModule =
  | HandlerFn
  | { readonly default: HandlerFn }
  | { readonly handler: HandlerFn }
  | { readonly run: HandlerFn };

type CheckEvaluate = (...args: unknown[]) => unknown | Promise<unknown>;
/** A check module: `{evaluate}`, or `default` / `check` holding one (or the function itself). */
export type CheckModule =
  | { readonly evaluate: CheckEvaluate }
  | { readonly default: { readonly evaluate: CheckEvaluate } | CheckEvaluate }
  | { readonly check: { readonly evaluate: CheckEvaluate } | CheckEvaluate };

export interface RunHandlerOptions {
  readonly tool: ToolInvocationSpec;
  readonly input: unknown;
  readonly ctx: HandlerContext;
  /** Replaces the default import (an absolute path imports as a `file:` URL). */
  readonly importHandler?: (modulePath: string) => HandlerModule | Promise<HandlerModule>;
}

export interface RunCheckOptions {
  readonly check: CheckInvocationSpec;
  readonly config: Readonly<Record<string, unknown>>;
  readonly trace: unknown;
  readonly abortSignal?: AbortSignal;
  readonly importCheck?: (modulePath: string) => CheckModule | Promise<CheckModule>;
}

/**
 * Runs one tool call: input checked (defaults filled), handler called, output checked. Every
 * failure is a `HandlerError`, except where TypeScript's runner rejects too: an input
 * `structuredClone` refuses, a validation that throws (a getter the schema reads throws, or
 * the schema recurses on the value forever: `RangeError: Maximum call stack size exceeded`),
 * a Zod input schema that throws, or a module whose `handler` / `inputZod` getter throws.
 */
export declare function runHandler(options: RunHandlerOptions): Promise<Result<unknown, HandlerError>>;

/**
 * Runs one guardrail check: config checked as sent, `evaluate(config, trace, { abortSignal? })`.
 * Every failure is a `HandlerError`, except a config validation that throws (as for `runHandler`).
 */
export declare function runCheck(options: RunCheckOptions): Promise<Result<unknown, HandlerError>>;

/** A throw as the wire carries it: `{ name, message, stack }` for an Error, JSON-safe otherwise. */
export declare function serializeCause(cause: unknown): unknown;
