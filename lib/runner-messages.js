// The handler runner's failure messages: Rust owns the words (src/service/runner_messages.rs);
// the templates are read from native once and filled here, so what pack code threw (lone
// surrogates included) is never formatted across the boundary.
import { native } from './native.js';

const TEMPLATES = Object.freeze(Object.fromEntries(native.runnerMessages().map(({ name, template }) => [name, template])));

/** The message `name` with its `{slot}`s filled from `values`, in one pass. */
export function runnerMessage(name, values) {
  return TEMPLATES[name].replace(/\{(\w+)\}/g, (slot, key) => (Object.hasOwn(values, key) ? values[key] : slot));
}
