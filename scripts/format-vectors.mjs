#!/usr/bin/env node
// Rebuilds the expected answers of the format test vectors (src/validate/formats/fixtures/) from
// the installed ajv-formats, which is the oracle the Rust formats must agree with.
//
// The fixtures hold the inputs and, next to each, what ajv-formats answers for it; this script
// keeps the inputs and computes the answers again. To add a case, add its input with any answer
// and run the script. `--check` writes nothing and fails when a fixture is not what it would write.
//
//   node scripts/format-vectors.mjs [--check]
//
// `compare` of time and date-time reads a string without a UTC offset as local time: the answers
// are computed in UTC, the zone the Rust port assumes.
//
// `regex` is `new RegExp(str)`, whose syntax differs between Node's lines: `recorded.json` keeps
// the line the answers were recorded on and what its V8 answered for the core's syntax probes,
// and the Rust test checks the `regex` answers in that syntax. On a line of another syntax,
// `--check` reports the `regex` rows that line answers otherwise (the node suite holds every
// line to its own ajv-formats, __test__/validate-fast.test.mjs).
process.env.TZ = 'UTC';

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { native, runRegexpProbe } from '../lib/native.js';

const require = createRequire(import.meta.url);
const { fullFormats } = require('ajv-formats/dist/formats.js');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = path.join(root, 'src', 'validate', 'formats', 'fixtures');
// The answers of a number, in this order.
const NUMBER_FORMATS = ['int32', 'int64', 'float', 'double'];

/** What Ajv's `format` keyword answers for `data` with the format definition `format`. */
function passes(format, data) {
  if (format === true) return true;
  const check = format instanceof RegExp || typeof format === 'function' ? format : format.validate;
  return check instanceof RegExp ? check.test(data) : Boolean(check(data));
}

/** The sign of `compare(a, b)`, or null where ajv-formats answers undefined. */
function compareSign(format, a, b) {
  const result = format.compare(a, b);
  if (typeof result !== 'number' || Number.isNaN(result)) return null;
  return Math.sign(result) + 0;
}

function known(name) {
  if (!Object.hasOwn(fullFormats, name)) throw new Error(`unknown format ${JSON.stringify(name)}`);
  return fullFormats[name];
}

/** A JSON object of arrays, one array entry a line. */
function writeLists(lists) {
  const names = Object.keys(lists);
  const parts = names.map((name, i) => {
    const rows = lists[name].map((row) => `    ${row}`).join(',\n');
    return `  ${JSON.stringify(name)}: [\n${rows}\n  ]${i + 1 < names.length ? ',' : ''}`;
  });
  return `{\n${parts.join('\n')}\n}\n`;
}

const text = (value) => JSON.stringify(value);

const build = {
  'validate.json': (vectors) => {
    const lists = {};
    for (const [name, rows] of Object.entries(vectors)) {
      const format = known(name);
      lists[name] = rows.map(([, input]) => `[${passes(format, input)}, ${text(input)}]`);
    }
    return writeLists(lists);
  },
  'compare.json': (vectors) => {
    const lists = {};
    for (const [name, rows] of Object.entries(vectors)) {
      const format = known(name);
      lists[name] = rows.map(
        ([a, b]) => `[${text(a)}, ${text(b)}, ${text(compareSign(format, a, b))}]`,
      );
    }
    return writeLists(lists);
  },
  'numbers.json': (vectors) => {
    const rows = vectors.numbers.map(([number]) => {
      const value = JSON.parse(number);
      const answers = NUMBER_FORMATS.map((name) => passes(known(name), value));
      return `[${text(number)}, [${answers.join(', ')}]]`;
    });
    return writeLists({ numbers: rows });
  },
};

build['recorded.json'] = () => {
  const regexpProbes = Object.fromEntries(native.regexpSyntaxProbes().map((probe) => [probe.source, runRegexpProbe(probe)]));
  return `${JSON.stringify({ node: Number(process.versions.node.split('.')[0]), regexpProbes }, null, 2)}\n`;
};

const check = process.argv.includes('--check');
let stale = 0;
for (const [file, rebuild] of Object.entries(build)) {
  const at = path.join(fixtures, file);
  const before = readFileSync(at, 'utf8');
  const after = rebuild(JSON.parse(before));
  if (after === before) continue;
  if (check) {
    stale += 1;
    console.error(`${path.relative(root, at)} differs from what ajv-formats answers`);
  } else {
    writeFileSync(at, after);
    console.log(`wrote ${path.relative(root, at)}`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
