/**
 * One of the pack service's own stderr lines as an event with a `kind`: a record of subsystem
 * `pack` takes its `event` as `kind`, any other `@kindgi/log` record is `kind: 'record'`, a
 * bare legacy line keeps its `kind` when it is one the service wrote. `undefined` for the
 * pack's own output.
 */
export declare function serviceEvent(
  line: string,
): (Record<string, unknown> & { readonly kind: string }) | undefined;
