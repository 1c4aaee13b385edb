// The compiled addon, loaded through the loader `napi build` generates (binding.cjs).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const native = require('../binding.cjs');

/**
 * A probe of native's: whether this V8 compiles the pattern (and, given a subject, matches it);
 * or, given a refusal, whether it throws with a message ending in those words.
 */
export function runRegexpProbe({ source, flags, subject, refusal }) {
  let regex;
  try {
    regex = new RegExp(source, flags);
  } catch (error) {
    return typeof refusal === 'string' && error.message.endsWith(refusal);
  }
  return typeof refusal !== 'string' && (typeof subject !== 'string' || regex.test(subject));
}

// The core follows this V8's RegExp syntax, which differs between Node's lines: native names the
// probes that tell the lines apart, and this V8 answers them (src/js/regexp/syntax.rs).
native.useRegexpSyntax(native.regexpSyntaxProbes().map(runRegexpProbe));
