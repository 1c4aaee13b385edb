// Packs written by a test: each module `<name>.mjs` in a folder is the tool `local.<name>`,
// with open input and output, in an index whose artifact version is 20260930.1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const open = { type: 'object', additionalProperties: true };

const folders = [];
// The folders go with the test process (children that still hold a file in one are gone by then).
process.once('exit', () => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** A new temporary folder (for a pack, an index, a script), removed when the test process exits. */
export function packFolder(prefix = 'kindgi-local-pack-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

/** Writes `modules` (file name → source) into `dir` and an index naming them; its path. */
export function writeLocalPack(dir, modules, indexName = 'index.json') {
  for (const [file, source] of Object.entries(modules)) writeFileSync(join(dir, file), source);
  const tools = Object.keys(modules).map((file) => ({
    id: `local.${file.replace(/\.mjs$/, '')}`,
    version: '1.0.0',
    input: open,
    output: open,
    modulePath: file,
  }));
  const index = {
    v: 1, packId: 'local', packVersion: '0.1.0', artifactVersion: '20260930.1',
    publishedAt: '2026-09-30T00:00:00.000Z', tools, guardrails: [], agents: [], flows: [],
  };
  const path = join(dir, indexName);
  writeFileSync(path, JSON.stringify(index));
  return path;
}

/** Tools the tests share: a process's pid and the names in its environment. */
export const PID_TOOL = 'export default () => ({ pid: process.pid });\n';
export const ENV_NAMES_TOOL = 'export default () => ({ names: Object.keys(process.env).sort() });\n';

/** The body of a call to `local.<name>` with an empty input. */
export const localCall = (name) =>
  JSON.stringify({ v: 2, kind: 'invoke', tool: { id: `local.${name}` }, input: {}, ctx: { tenantId: 't-1', runId: 'run-1' } });
