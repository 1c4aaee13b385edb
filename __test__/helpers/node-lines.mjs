// The Nodes a test spawns commands with: this process's own, and each line pinned in
// scripts/node-lines.mjs that is installed (`.ci/run` installs them all, and there a missing
// line fails the test rather than skip it).
import { findNodeLines } from '../../scripts/node-lines.mjs';

/** `{ nodes: [{ version, node }], missing }`: each Node once, by version; `missing` says what is not installed. */
export function nodeLines() {
  const { found, missing } = findNodeLines();
  const nodes = [{ version: process.versions.node, node: process.execPath }];
  for (const line of found) if (!nodes.some((n) => n.version === line.version)) nodes.push({ version: line.version, node: line.node });
  const why = missing.length === 0 ? undefined : `Node ${missing.map((l) => l.version).join(', ')} not installed: run \`node scripts/node-lines.mjs\``;
  return { nodes, missing: why };
}
