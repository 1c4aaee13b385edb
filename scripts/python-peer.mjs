// The Python peer: the Python SDK's own pack service (`python -m kindgi.pack serve`, kindgi
// 0.1.10) in a venv of this repository's (`.python-peer`), for the benchmark and for the tests
// that run it as a supervisor's child. `node scripts/python-peer.mjs` makes the venv and
// installs kindgi, and fails if it cannot (CI runs it); with `--if-possible` (`npm test` runs
// it so) it says why and exits 0. The tests only look for the peer, and skip without it.
//
// PYTHON (python3) is the interpreter the venv is made with.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KINDGI_PY = '0.1.10';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const venv = join(root, '.python-peer');
const python = join(venv, 'bin', 'python');

const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const lastLine = (result) => (result.error?.message ?? result.stderr ?? '').trim().split('\n').pop();
const installed = () => existsSync(python) && run(python, ['-c', 'import importlib.metadata as m; print(m.version("kindgi"))']).stdout?.trim() === KINDGI_PY;

/** The venv's python when kindgi is installed in it, or why not. Installs nothing. */
export function findPythonPeer() {
  return installed() ? { python } : { why: `the Python peer is not installed: run \`node scripts/python-peer.mjs\`` };
}

/** The venv's python with kindgi installed, making the venv first if needed; or why not. */
export function installPythonPeer(log = () => {}) {
  if (installed()) return { python };
  if (!existsSync(python)) {
    const base = process.env.PYTHON ?? 'python3';
    log(`${base} -m venv .python-peer`);
    const made = run(base, ['-m', 'venv', venv]);
    if (made.status !== 0) return { why: `could not create a venv with ${base}: ${lastLine(made)}` };
  }
  log(`pip install kindgi==${KINDGI_PY} into .python-peer`);
  const pip = run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `kindgi==${KINDGI_PY}`]);
  if (pip.status !== 0) return { why: `pip install kindgi==${KINDGI_PY} failed: ${lastLine(pip)}` };
  return installed() ? { python } : { why: `kindgi ${KINDGI_PY} is not importable from .python-peer` };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const peer = installPythonPeer((line) => process.stderr.write(`[python-peer] ${line}\n`));
  if (peer.why) {
    const optional = process.argv.includes('--if-possible');
    process.stderr.write(`[python-peer] ${peer.why}${optional ? '; its tests will be skipped' : ''}\n`);
    process.exit(optional ? 0 : 1);
  }
  process.stdout.write(`${peer.python}\n`);
}
