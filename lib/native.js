// The compiled addon, loaded through the loader `napi build` generates (binding.cjs).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const native = require('../binding.cjs');

/** A probe of native's: whether this V8 compiles the pattern and, given a subject, matches it. */
export function runRegexpProbe({ source, flags, subject }) {
  try {
    const regex = new RegExp(source, flags);
    return subject === null || subject === undefined || regex.test(subject);
  } catch {
    return false;
  }
}

// The core follows this V8's RegExp syntax, which differs between Node's lines: native names the
// probes that tell the lines apart, and this V8 answers them (src/js/regexp/syntax.rs).
native.useRegexpSyntax(native.regexpSyntaxProbes().map(runRegexpProbe));
