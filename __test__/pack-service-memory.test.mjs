// The `kindgi-pack-service` process and memory: large bodies past the cap are served, not
// refused, and under an address-space limit the process serves what the TypeScript service
// (the bench's stand-in, `bench/ts-service-steps.mjs`) serves. Peak RSS under large bodies is
// a benchmark (`npm run bench memory`), not a test.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listeningPort } from './helpers/lines.mjs';
import { packFolder, writeLocalPack } from './helpers/local-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const servers = {
  native: join(here, '..', 'bin', 'kindgi-pack-service.mjs'),
  standIn: join(here, '..', 'bench', 'ts-service-steps.mjs'),
};
const TOKEN = 'memory-token';
// A build under test elsewhere reaches the children.
const addon = process.env.NAPI_RS_NATIVE_LIBRARY_PATH ? { NAPI_RS_NATIVE_LIBRARY_PATH: process.env.NAPI_RS_NATIVE_LIBRARY_PATH } : {};

/** Starts `entry` on `index` through `sh -c` (so a `ulimit` can come first); its child and port. */
async function start(entry, index, { limit = '', env = {} } = {}) {
  const child = spawn('sh', ['-c', `${limit}exec "$@"`, 'sh', process.execPath, entry, '--index', index, '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', ...addon, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  return { child, exited, port: await listeningPort(child) };
}

async function stop(running) {
  running.child.kill('SIGKILL');
  await running.exited;
}

const call = (id, input) => JSON.stringify({ v: 2, kind: 'invoke', tool: { id }, input, ctx: { tenantId: 't-1', runId: 'run-1' } });

function post(port, body) {
  return fetch(`http://127.0.0.1:${port}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'kindgi-pack-token': TOKEN },
    body,
  }).then(async (res) => ({ status: res.status, text: await res.text() }));
}

test('a burst of large bodies past the cap is served while their uploads arrive, none refused', async () => {
  const dir = packFolder();
  const index = writeLocalPack(dir, { 'size.mjs': 'export default (input) => ({ n: input.pad.length });\n' });
  const running = await start(servers.native, index, { env: { KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '2' } });
  try {
    // Twelve 2 MiB uploads at once against a cap of 2: their heads arrive while the first
    // uploads are under way, and wait for their places instead of being refused.
    const pad = 'x'.repeat(2 * 1024 * 1024);
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(running.port, call('local.size', { pad }))));
    assert.deepEqual(
      answers.map((a) => `${a.status} ${a.text}`),
      Array(12).fill(`200 {"v":2,"kind":"result","output":{"n":${pad.length}}}`),
    );
  } finally {
    await stop(running);
  }
});

/** Opens a connection to `port` and writes `bytes` (a request, or the start of one). */
function open(port, bytes) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(bytes);
  return socket;
}

const requestHead = (body) =>
  'POST /v1/invoke HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\n' +
  `kindgi-pack-token: ${TOKEN}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;

test('a request waiting at its head for a place leaves the wait when its caller hangs up', async () => {
  const dir = packFolder();
  const ran = join(dir, 'ran');
  const index = writeLocalPack(dir, {
    'size.mjs': 'export default (input) => ({ n: input.pad.length });\n',
    'count.mjs': `import { appendFileSync } from 'node:fs';\nexport default () => { appendFileSync(${JSON.stringify(ran)}, 'x'); return {}; };\n`,
  });
  const running = await start(servers.native, index, { env: { KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '1' } });
  try {
    // An upload that arrives a few bytes at a time holds the only place: later requests wait
    // at their heads for it.
    const slowBody = call('local.size', { pad: 'x'.repeat(40) });
    const slow = open(running.port, requestHead(slowBody) + slowBody.slice(0, 10));
    const slowAnswer = new Promise((resolve) => {
      let text = '';
      slow.on('data', (chunk) => { text += chunk; });
      slow.on('close', () => resolve(text));
    });
    let sent = 10;
    const trickle = setInterval(() => {
      if (sent < slowBody.length) slow.write(slowBody.slice(sent, (sent += 5)));
      else clearInterval(trickle);
    }, 100);
    await new Promise((r) => setTimeout(r, 200));
    // One caller sends its whole request and hangs up while it waits; another stays.
    const countBody = call('local.count', {});
    const leaving = open(running.port, requestHead(countBody) + countBody);
    await new Promise((r) => setTimeout(r, 200));
    leaving.destroy();
    const staying = post(running.port, countBody);
    const stayed = await staying;
    assert.match(await slowAnswer, /"output":\{"n":40\}/);
    // The one that stayed is served (or refused `overloaded`, should the slow upload have paused
    // past a second on a loaded host); the one that left never runs, whatever came after.
    assert.ok(stayed.status === 200 || stayed.text === '{"error":"overloaded"}', JSON.stringify(stayed));
    const after = await post(running.port, call('local.size', { pad: 'x' }));
    assert.equal(after.status, 200);
    assert.equal(existsSync(ran) ? readFileSync(ran, 'utf8') : '', stayed.status === 200 ? 'x' : '');
  } finally {
    await stop(running);
  }
});

test('a request waiting for a place held by an upload that trickles in is refused overloaded, long before the upload ends', async () => {
  const dir = packFolder();
  const index = writeLocalPack(dir, { 'size.mjs': 'export default (input) => ({ n: input.pad.length });\n' });
  const running = await start(servers.native, index, { env: { KINDGI_PACK_SERVICE_MAX_CONCURRENCY: '1' } });
  try {
    // 5 bytes every 100 ms for a body of 1,600: half a minute of upload, its bytes always
    // arriving.
    const slowBody = call('local.size', { pad: 'x'.repeat(1500) });
    const slow = open(running.port, requestHead(slowBody) + slowBody.slice(0, 5));
    let sent = 5;
    let ended = false;
    const trickle = setInterval(() => {
      if (sent < slowBody.length) slow.write(slowBody.slice(sent, (sent += 5)));
      else clearInterval(trickle);
    }, 100);
    slow.on('close', () => (ended = true));
    try {
      await new Promise((r) => setTimeout(r, 300));
      // It waits for the place (the upload is arriving), then gives up as TypeScript would
      // have at once: refused, while the upload still has most of its bytes to send.
      const waiting = await post(running.port, call('local.size', { pad: 'x' }));
      assert.deepEqual(waiting, { status: 503, text: '{"error":"overloaded"}' });
      assert.equal(ended, false);
      assert.ok(sent < slowBody.length / 2, `${sent} of ${slowBody.length} bytes sent`);
    } finally {
      clearInterval(trickle);
      slow.destroy();
    }
  } finally {
    await stop(running);
  }
});

test('under a 2 GiB address-space limit, the service serves the 100 MB allocations the TypeScript service serves', { skip: process.platform !== 'linux' && 'reads a Linux address-space limit' }, async () => {
  const dir = packFolder();
  // Each call keeps 100 MB more (address space; the pages are never touched).
  const index = writeLocalPack(dir, {
    'hold.mjs': 'const held = [];\nexport default () => { held.push(new ArrayBuffer(100 * 1024 * 1024)); return { held: held.length }; };\n',
  });
  const served = async (entry) => {
    // A process that cannot start under the limit serves none (the stand-in on Node 22, whose
    // fetch compiles WebAssembly with more address space than the limit leaves).
    const running = await start(entry, index, { limit: 'ulimit -v 2097152 && ' }).catch(() => undefined);
    if (running === undefined) return 0;
    let count = 0;
    try {
      for (let i = 1; i <= 8; i += 1) {
        const answer = await post(running.port, call('local.hold', {})).catch((error) => ({ status: 0, text: String(error) }));
        if (answer.status !== 200 || answer.text !== `{"v":2,"kind":"result","output":{"held":${i}}}`) break;
        count = i;
      }
    } finally {
      await stop(running);
    }
    return count;
  };
  const standIn = await served(servers.standIn);
  const native = await served(servers.native);
  // How many fit differs between Node's lines (V8 reserves more address space on newer ones:
  // 8 on Node 20, 5 on 24); the service serves at least what the stand-in serves, and some.
  assert.ok(native >= Math.max(standIn, 1), `native served ${native} allocations, the TypeScript stand-in ${standIn}`);
});
