/**
 * The stable `code` of every Error this package throws for API misuse or a failed write.
 * Protocol outcomes are never thrown: they are `PackErrorMessage`s.
 */
export type NativeErrorCode =
  /** An argument has the wrong type or shape (the message names it). */
  | 'invalid-argument'
  /** A value JSON cannot hold: a BigInt, a cycle, or `undefined` / a function / a symbol where a value is needed. */
  | 'invalid-json-value'
  /** A value nested deeper than `MAX_JSON_DEPTH` levels. */
  | 'value-too-deep'
  /** `writeIndex` could not write its file (the message names the path and the cause). */
  | 'output-write-failed'
  /** `indexHash` could not read the file it was given. */
  | 'index-read-failed';

/** An Error thrown by this package, with a stable `code`. */
export interface NativeError extends Error {
  readonly code: NativeErrorCode;
}

/** Every `NativeErrorCode`, in the order above. */
export declare const NATIVE_ERROR_CODES: readonly NativeErrorCode[];

/** The deepest nesting `canonicalJson` and `writeIndex` accept (the TypeScript writer overflows its stack first). */
export declare const MAX_JSON_DEPTH: number;
