/**
 * The stable `code` of every Error this package throws for API misuse or a failed write.
 * Protocol outcomes are never thrown: they are `PackErrorMessage`s.
 */
export type NativeErrorCode =
  /** An argument has the wrong type or shape (the message names it). */
  | 'invalid-argument'
  /** A value JSON cannot hold: a BigInt, a cycle, or `undefined` / a function / a symbol where a value is needed. */
  | 'invalid-json-value'
  /** A value nested deeper than `MAX_JSON_DEPTH` levels, or deeper than `JSON.stringify`'s stack allows. */
  | 'value-too-deep'
  /** `writeIndex` could not write its file (the message names the path and the cause). */
  | 'output-write-failed'
  /** `indexHash` could not read the file it was given. */
  | 'index-read-failed'
  /** `compileSchema` refused a schema Ajv refuses; `name` and `message` are Ajv's. */
  | 'schema-compile-failed'
  /** `listen` could not open or serve its port (the message names why). */
  | 'listen-failed';

/** An Error thrown by this package, with a stable `code`. */
export interface NativeError extends Error {
  readonly code: NativeErrorCode;
}

/** Every `NativeErrorCode`, in the order above. */
export declare const NATIVE_ERROR_CODES: readonly NativeErrorCode[];

/**
 * The deepest nesting the native writer accepts (5,000). From a JavaScript value, `JSON.stringify`
 * runs first and, on Node's default stack, gives up at about 4,100 levels: as deep as the
 * TypeScript writer goes (about 4,100 levels of objects, 2,600 of arrays). Either way the error
 * is `value-too-deep`.
 */
export declare const MAX_JSON_DEPTH: number;
