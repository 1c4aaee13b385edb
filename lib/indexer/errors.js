// What the indexer's error objects hold beyond JSON: their causes, kept JavaScript-side by
// reference while the rest crosses to Rust and back as JSON.

/** `<Name>: <message>` for an Error, `String(value)` otherwise. */
export function stringifyError(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** A thrown value as the report carries it: an Error's name, message and stack; else itself. */
export function serializeCause(error) {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  if (error === undefined) return null;
  if (error === null || ['string', 'number', 'boolean'].includes(typeof error)) return error;
  try {
    JSON.stringify(error);
    return error;
  } catch {
    return String(error);
  }
}

/** An indexer error from Rust's JSON, its `cause` (an index into `causes`) put back. */
export function indexerError(json, causes = []) {
  const error = typeof json === 'string' ? JSON.parse(json) : json;
  if (typeof error.cause === 'number') error.cause = causes[error.cause];
  return error;
}

export const err = (error) => ({ kind: 'err', error });
export const ok = (value) => ({ kind: 'ok', value });
