// The static imports between the files of lib/: no cycle (a cycle works only while nothing it
// loads reads a binding before the other side has run), and no module imports the public
// entry `pack-service.js`, which only re-exports.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const lib = join(dirname(fileURLToPath(import.meta.url)), '..', 'lib');

/** Every `.js` file under `dir`, as paths relative to lib/. */
function sources(dir = lib) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.js') ? [relative(lib, path)] : [];
  });
}

/**
 * The relative specifiers of a module's static imports and re-exports (`import … from`,
 * `export … from`, `import '…'`), comments left out. Dynamic `import()` loads later and is
 * no part of a cycle at load.
 */
function staticImports(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = [];
  for (const match of code.matchAll(/^[ \t]*(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1/gm)) found.push(match[2]);
  for (const match of code.matchAll(/^[ \t]*import\s*(['"])([^'"]+)\1/gm)) found.push(match[2]);
  return found.filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'));
}

/** lib/'s graph: each file (relative to lib/) to the files it imports. */
function importGraph() {
  const graph = new Map();
  for (const file of sources()) {
    const source = readFileSync(join(lib, file), 'utf8');
    graph.set(file, staticImports(source).map((specifier) => relative(lib, resolve(lib, dirname(file), specifier))));
  }
  return graph;
}

/** One cycle of `graph` as a path that ends where it starts, or undefined when there is none. */
function findCycle(graph) {
  const state = new Map(); // 1: on the current path, 2: done
  const path = [];
  const visit = (node) => {
    if (state.get(node) === 2) return undefined;
    if (state.get(node) === 1) return [...path.slice(path.indexOf(node)), node];
    state.set(node, 1);
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    state.set(node, 2);
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

test('the import reader finds static imports and re-exports, and the cycle finder finds a cycle', () => {
  const source = [
    "import { a } from './a.js';",
    'import {',
    '  b,',
    "} from '../b.js';",
    "export { c } from './c.js';",
    "export * from './d.js';",
    "import './e.js';",
    "import { x } from 'node:fs';",
    "// import { f } from './f.js';",
    "const later = () => import('./g.js');",
  ].join('\n');
  assert.deepEqual(staticImports(source), ['./a.js', '../b.js', './c.js', './d.js', './e.js']);
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', []],
  ]);
  assert.deepEqual(findCycle(graph), ['a', 'b', 'c', 'a']);
  graph.set('c', ['d']);
  assert.equal(findCycle(graph), undefined);
});

test('lib/ has no import cycle', () => {
  const graph = importGraph();
  // The reader sees the graph: the public entry re-exports its parts.
  assert.ok(graph.get('pack-service.js').includes(join('pack-service', 'service.js')));
  assert.ok(graph.get('supervisor.js').includes(join('pack-service', 'config.js')));
  for (const [file, imports] of graph) {
    for (const imported of imports) assert.ok(graph.has(imported), `${file} imports ${imported}, which is not in lib/`);
  }
  const cycle = findCycle(graph);
  assert.equal(cycle, undefined, `an import cycle: ${cycle?.join(' -> ')}`);
});

test('no module in lib/ imports the public entry pack-service.js', () => {
  for (const [file, imports] of importGraph()) assert.ok(!imports.includes('pack-service.js'), `${file} imports pack-service.js`);
});
