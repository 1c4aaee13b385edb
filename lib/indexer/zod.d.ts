/** A JSON Schema object (Draft 2020-12), as the index carries it. */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/** A Zod v4 schema, by shape: no import of zod is needed to name one. */
export interface ZodLikeSchema {
  readonly _zod: unknown;
  readonly '~standard': unknown;
}

/** What a JSON Schema describes: `input`, what a caller may send; `output`, what parsing yields. */
export type SchemaSide = 'input' | 'output';

/** `z.toJSONSchema`, as `loadZodConverter` finds it. */
export type ZodConverter = (
  schema: ZodLikeSchema,
  params?: { readonly io?: SchemaSide },
) => JsonSchemaObject;

/** Why a Zod schema could not be converted. */
export interface ZodConversionError {
  readonly code: 'invalid-zod-conversion';
  /**
   * `z.toJSONSchema() failed: <zod's message>`, or, when no converter was given, the
   * missing-peer-dependency message `@kindgi/schema` gives.
   */
  readonly message: string;
  /** What zod threw; `Error('zod peer dep not installed')` when no converter was given. */
  readonly cause: unknown;
}

export type ZodConversionResult =
  | { readonly kind: 'ok'; readonly value: JsonSchemaObject }
  | { readonly kind: 'err'; readonly error: ZodConversionError };

/** Whether `value` is a Zod v4 schema (an object with an object-typed `_zod` and a `~standard`). */
export declare function isZodSchema(value: unknown): value is ZodLikeSchema;

/**
 * `toJSONSchema` of the `zod` that `require('zod')` finds from `from` (a directory, a file path
 * or a `file:` URL; default: this module's own location), or `undefined` when none is found, it
 * fails to load, or it has no `toJSONSchema`. Cached per location for the life of the process.
 */
export declare function loadZodConverter(from?: string | URL): ZodConverter | undefined;

/** Drop the answers `loadZodConverter` has cached. */
export declare function resetZodConverterCache(): void;

/**
 * A schema's JSON Schema for `side`: a Zod schema through `converter(schema, { io: side })`,
 * anything else as it is. Never throws on a failed conversion.
 */
export declare function toJsonSchema(
  schema: JsonSchemaObject | ZodLikeSchema,
  converter: ZodConverter | undefined,
  side: SchemaSide,
): ZodConversionResult;
