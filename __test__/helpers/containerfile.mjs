// deploy/Containerfile, read and laid out without a container runtime: the instructions by
// stage, and a folder per stage holding what the image's filesystem would, so a test can start
// the service from the image's WORKDIR with its CMD and ENV. Only the instructions the
// Containerfile uses are understood; any other one fails the test, so the Containerfile cannot
// grow a step the test does not mirror.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';

/** The stages of a Containerfile: `{ image, name, instructions: [{ keyword, rest }] }`, continuation lines joined, comments dropped. */
export function parseContainerfile(text) {
  const stages = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    // A comment line is dropped, also in the middle of a continued instruction.
    if (/^\s*#/.test(line)) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full === '') continue;
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(full);
    if (keyword.toUpperCase() === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      assert.ok(from, `FROM ${rest}: not an image with an optional stage name`);
      stages.push({ image: from[1], name: from[2], instructions: [] });
      continue;
    }
    assert.ok(stages.length > 0, `${keyword} before the first FROM`);
    stages.at(-1).instructions.push({ keyword: keyword.toUpperCase(), rest });
  }
  assert.equal(pending, '', 'the Containerfile ends in a continued line');
  return stages;
}

/** The argv of an exec-form (JSON array) instruction; fails on the shell form. */
export function execForm({ keyword, rest }) {
  assert.ok(rest.startsWith('['), `${keyword} ${rest}: not the exec form (a JSON array)`);
  const argv = JSON.parse(rest);
  assert.ok(Array.isArray(argv) && argv.length > 0 && argv.every((a) => typeof a === 'string'), `${keyword}: not an array of strings`);
  return argv;
}

/** The variables one ENV instruction sets (`A=1 B="two words"`, or the old `ENV A value`). */
export function envAssignments(rest) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest)) {
    const [, name, value] = /^(\S+)\s+(.*)$/.exec(rest);
    return { [name]: value };
  }
  const vars = {};
  const pair = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)\s*/gy;
  let match;
  let end = 0;
  while ((match = pair.exec(rest)) !== null) {
    const [, name, raw] = match;
    vars[name] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw.startsWith("'") ? raw.slice(1, -1) : raw;
    end = pair.lastIndex;
  }
  assert.equal(end, rest.length, `ENV ${rest}: cannot read past ${JSON.stringify(rest.slice(end))}`);
  return vars;
}

/** `.dockerignore` patterns (one a line, `#` comments): each names entries at the context's root, `*` matching any run of characters. */
export function ignoreMatcher(text) {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  for (const p of patterns) assert.ok(!p.includes('/') && !p.startsWith('!'), `.dockerignore pattern ${p}: only root names and * are mirrored`);
  const regexes = patterns.map((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`));
  return (name) => regexes.some((r) => r.test(name));
}

/**
 * Lays out every stage of `stages` under `root` (a folder per stage: `<root>/<stage name or
 * "final">`), from the build context `context` less what `ignored` names, and returns the last
 * stage: `{ image, workdir, env, user, expose, stopSignal, cmd, runs }` with `workdir` the
 * folder standing for its WORKDIR. `install(dir, omitDev)` stands for `npm ci` in `dir`.
 */
export function layOutImage(stages, { root, context, ignored, install }) {
  const laid = new Map();
  let last;
  for (const [i, stage] of stages.entries()) {
    const fs = join(root, stage.name ?? (i === stages.length - 1 ? 'final' : `stage-${i}`));
    mkdirSync(fs, { recursive: true });
    const state = { image: stage.image, fs, workdirPath: '/', env: {}, user: undefined, expose: [], stopSignal: undefined, cmd: undefined, runs: [] };
    const here = () => join(fs, state.workdirPath);
    for (const instruction of stage.instructions) {
      const { keyword, rest } = instruction;
      switch (keyword) {
        case 'WORKDIR':
          assert.ok(isAbsolute(rest), `WORKDIR ${rest}: not absolute`);
          state.workdirPath = rest;
          mkdirSync(here(), { recursive: true });
          break;
        case 'ENV':
          Object.assign(state.env, envAssignments(rest));
          break;
        case 'COPY':
          copy(rest, { here: here(), context, ignored, laid });
          break;
        case 'RUN':
          state.runs.push(rest);
          run(instruction, here(), install, state.env);
          break;
        case 'USER':
          state.user = rest;
          break;
        case 'EXPOSE':
          state.expose.push(...rest.split(/\s+/));
          break;
        case 'STOPSIGNAL':
          state.stopSignal = rest;
          break;
        case 'CMD':
          state.cmd = execForm(instruction);
          break;
        default:
          assert.fail(`the test does not mirror ${keyword} (${rest}): teach __test__/helpers/containerfile.mjs what it does`);
      }
    }
    if (stage.name !== undefined) laid.set(stage.name, state);
    last = state;
  }
  return { ...last, workdir: join(last.fs, last.workdirPath) };
}

function copy(rest, { here, context, ignored, laid }) {
  const words = rest.split(/\s+/);
  let from;
  while (words[0].startsWith('--')) {
    const flag = words.shift();
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
    else assert.fail(`COPY ${flag}: not mirrored`);
  }
  assert.ok(words.length >= 2, `COPY ${rest}: a source and a destination`);
  const dest = words.pop();
  const destDir = dest === '.' || dest.endsWith('/');
  const target = join(here, dest);
  for (const source of words) {
    if (from !== undefined) {
      const stage = laid.get(from);
      assert.ok(stage, `COPY --from=${from}: no earlier stage of that name`);
      // A source from another stage is a path in that stage's filesystem.
      const path = join(stage.fs, isAbsolute(source) ? source : join('/', source));
      assert.ok(existsSync(path), `COPY --from=${from} ${source}: the stage has no such file`);
      place(path, destDir ? join(target, basename(path)) : target);
    } else if (source === '.') {
      assert.ok(destDir, `COPY . ${dest}: into a folder`);
      for (const entry of readdirSync(context)) {
        if (!ignored(entry)) place(join(context, entry), join(target, entry));
      }
    } else {
      assert.ok(!ignored(source), `COPY ${source}: .dockerignore leaves it out of the context`);
      const path = join(context, source);
      assert.ok(existsSync(path), `COPY ${source}: the build context has no such file`);
      place(path, destDir ? join(target, basename(source)) : target);
    }
  }
}

function place(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: statSync(from).isDirectory() });
}

function run(instruction, cwd, install, env) {
  const { rest } = instruction;
  const npmCi = /^npm ci( --omit=dev)?( && npm cache clean --force)?$/.exec(rest);
  if (npmCi) {
    install(cwd, npmCi[1] !== undefined);
    return;
  }
  const argv = execForm(instruction);
  assert.equal(argv[0], 'node', `RUN ${rest}: only node commands are run by the test`);
  const result = spawnSync(process.execPath, argv.slice(1), { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  assert.equal(result.status, 0, `RUN ${rest} failed:\n${result.stdout}${result.stderr}`);
}
