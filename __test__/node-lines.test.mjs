// Each command on each of Node's supported lines, as a process: nothing it prints is a warning
// of Node's (a deprecation, an experimental feature), whatever the line. The lines are this
// process's Node and those scripts/node-lines.mjs installs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { nodeLines } from './helpers/node-lines.mjs';
import { packFolder } from './helpers/local-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const example = join(root, 'examples', 'pack');
const bin = (name) => join(root, 'bin', `${name}.mjs`);
const TOKEN = 'lines-token';
/** Node's own warnings: `(node:1234) [DEP0205] DeprecationWarning: …`, `… ExperimentalWarning: …`. */
const WARNING = /\b\w*Warning:/;

const { nodes, missing } = nodeLines();

test('the lines are installed where CI runs', { skip: process.env.CI ? false : (missing ?? false) }, () => {
  assert.equal(missing, undefined);
});

/**
 * Runs `node <args>` with `env`; once `ready(text)` holds for what it printed so far, `then(text)`
 * runs and the process gets SIGTERM. Resolves with everything it printed, at its exit (20 s at most).
 */
function run(node, args, { env = {}, ready, then = async () => {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let acting = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not end within 20 s; it printed:\n${text}`));
    }, 20_000);
    const read = (chunk) => {
      text += chunk;
      if (ready === undefined || acting || !ready(text)) return;
      acting = true;
      then(text).then(
        () => child.kill('SIGTERM'),
        (error) => {
          child.kill('SIGKILL');
          reject(error);
        },
      );
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, text });
    });
  });
}

/** The first JSON line of `text` whose `kind` is `kind`. */
const event = (text, kind) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .find((line) => line.kind === kind);

async function greet(url, token) {
  const res = await fetch(`${url}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': token },
    body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: 'example.greet' }, input: { name: 'Ada' }, ctx: { tenantId: 't', runId: 'r' } }),
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
}

/** A copy of the example pack, with `index.json` and a dev index folder of its own. */
function examplePack() {
  const dir = packFolder('kindgi-lines-');
  cpSync(example, dir, { recursive: true });
  mkdirSync(join(dir, '.kindgi'), { recursive: true });
  return dir;
}

/** What each command does on a line: a run that loads and exercises everything it has. */
const COMMANDS = {
  'kindgi-index --pack-dir': (node) => {
    const dir = examplePack();
    return run(node, [bin('kindgi-index'), '--pack-dir', dir, '--output', join(dir, '.kindgi', 'out.json'), '--strict']);
  },
  'kindgi-pack-service --index': (node) =>
    run(node, [bin('kindgi-pack-service'), '--index', join(examplePack(), 'index.json'), '--host', '127.0.0.1'], {
      env: { KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0' },
      ready: (text) => event(text, 'listening') !== undefined,
      then: (text) => greet(`http://127.0.0.1:${event(text, 'listening').port}`, TOKEN),
    }),
  'kindgi-pack-dev --pack-dir': (node) =>
    run(node, [bin('kindgi-pack-dev'), '--json', '--pack-dir', examplePack()], {
      ready: (text) => event(text, 'started') !== undefined,
      then: (text) => greet(event(text, 'front').url, event(text, 'front').token),
    }),
  'kindgi-pack-dev --index': (node) =>
    run(node, [bin('kindgi-pack-dev'), '--json', '--index', join(examplePack(), 'index.json')], {
      ready: (text) => event(text, 'started') !== undefined,
      then: (text) => greet(event(text, 'front').url, event(text, 'front').token),
    }),
};

for (const { version, node } of nodes) {
  test(`Node ${version}: no command prints a warning`, { timeout: 120_000 }, async () => {
    for (const [command, start] of Object.entries(COMMANDS)) {
      const { code, signal, text } = await start(node);
      assert.ok(code === 0 || signal === 'SIGTERM', `${command} on Node ${version} ended ${signal ?? code}:\n${text}`);
      assert.doesNotMatch(text, WARNING, `${command} on Node ${version} printed a warning`);
      for (const flag of ['--help']) {
        const help = await run(node, [bin(command.split(' ')[0]), flag]);
        assert.equal(help.code, 0, `${command.split(' ')[0]} ${flag} on Node ${version}:\n${help.text}`);
        assert.doesNotMatch(help.text, WARNING, `${command.split(' ')[0]} ${flag} on Node ${version} printed a warning`);
      }
    }
  });
}
