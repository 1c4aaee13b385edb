#!/usr/bin/env node
// `kindgi-pack-dev --index <index.json> [...]`: the pack served through a supervisor front and
// swapped whenever its files change (`--help` says more). Ctrl-C or SIGTERM closes it.
import { devMain, USAGE } from '../lib/pack-dev.js';

const argv = process.argv.slice(2);
const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
if (own.includes('--help') || own.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const stop = new AbortController();
for (const name of ['SIGINT', 'SIGTERM']) process.on(name, () => stop.abort());
process.exit(await devMain(argv, { signal: stop.signal }));
