/** An Ajv error object, as Ajv reports it. */
export interface ValidationIssue {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message: string;
  /** Set on issues found while checking a property name (`propertyNames`). */
  readonly propertyName?: string;
}

export type ValidationOutcome =
  | { readonly valid: true; readonly value: unknown }
  | { readonly valid: false; readonly issues: readonly ValidationIssue[] };

export interface CompiledSchema {
  /**
   * Validates `value`. On the input side a valid value comes back as a copy with the schema's
   * defaults filled in (the caller's value is untouched); on the output side as given.
   */
  validate(value: unknown): ValidationOutcome;
}

/**
 * Compiles a draft 2020-12 JSON Schema as `@kindgi/handler-runtime` compiles it with Ajv (strict,
 * allErrors, allowUnionTypes, ajv-formats; `useDefaults` on the input side). A schema Ajv refuses
 * throws an Error with `code` `'schema-compile-failed'`, Ajv's error class as `name` and Ajv's
 * message. Compiled validators are cached by schema.
 */
export declare function compileSchema(
  schema: Readonly<Record<string, unknown>> | boolean,
  side: 'input' | 'output',
): CompiledSchema;
