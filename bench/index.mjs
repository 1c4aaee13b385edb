// `npm run bench [section …]`: every benchmark of the package, reported as ratios against a
// baseline measured in the same run. Sections: index-writer, validate, service, workers, memory,
// supervisor, indexer.
import { machine } from './lib.mjs';

const sections = {
  'index-writer': () => import('./index-writer.mjs'),
  validate: () => import('./validate.mjs'),
  service: () => import('./service.mjs'),
  workers: () => import('./workers.mjs'),
  memory: () => import('./memory.mjs'),
  supervisor: () => import('./supervisor.mjs'),
  indexer: () => import('./indexer.mjs'),
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const unknown = wanted.filter((name) => !(name in sections));
if (unknown.length > 0) {
  console.error(`Unknown section(s): ${unknown.join(', ')}. Sections: ${Object.keys(sections).join(', ')}`);
  process.exit(2);
}

const facts = machine();
console.log(`# @kindgi/handler-runtime-native benchmarks`);
console.log(`node ${facts.node}, ${facts.cpus} CPUs, load average ${facts.load.toFixed(2)} at start, ${rounds} rounds\n`);
for (const name of wanted.length > 0 ? wanted : Object.keys(sections)) {
  const { run } = await sections[name]();
  const result = await run({ rounds });
  console.log(`## ${result.title}\n\n${result.text}\n`);
}
console.log(`load average ${machine().load.toFixed(2)} at the end`);
