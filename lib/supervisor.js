// The pack service supervisor (the engine behind `kindgi dev`). So far: `serviceEvent`, how a
// supervisor reads the lines its child writes on stderr; the rules live in Rust
// (src/supervisor/lines.rs), where the supervisor's own child handling will read them too.
import { native } from './native.js';

/**
 * One of the pack service's own lines as an event with a `kind` (a record of subsystem `pack`
 * takes its `event`; any other record is `kind: 'record'`; a bare legacy `{"kind": …}` line
 * keeps its kind), or `undefined` for the pack's own output.
 */
export function serviceEvent(line) {
  if (typeof line !== 'string') return undefined;
  const json = native.serviceEventJson(line);
  return json === null ? undefined : JSON.parse(json);
}
