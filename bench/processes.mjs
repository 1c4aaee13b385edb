// Bench targets as processes: boot to `listening`, one call on a fresh connection, memory and
// CPU from /proc. Shared by the service and memory sections.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The pack token every bench target is started with. */
export const TOKEN = 'bench-token';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Spawns a target (`command`, with `env` added to the bench's own) and hands the child to
 * `onSpawn`; resolves once it wrote its `listening` line on stderr.
 */
export function launch(target, onSpawn) {
  const start = process.hrtime.bigint();
  const child = spawn(target.command[0], target.command.slice(1), {
    cwd: root,
    env: { PATH: process.env.PATH, KINDGI_PACK_SERVICE_TOKEN: TOKEN, PORT: '0', ...target.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  onSpawn(child);
  const exited = new Promise((r) => child.once('exit', (code, signal) => r(code ?? signal)));
  let buffered = '';
  let seen = false;
  const listening = new Promise((resolveListening, reject) => {
    const timer = setTimeout(() => reject(new Error(`${target.name}: no listening line within 60 s`)), 60_000);
    child.stderr.on('data', (chunk) => {
      // After `listening`, records (the Python peer writes one per call) are read and dropped.
      if (seen) return;
      buffered += chunk;
      let at;
      while ((at = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        let record;
        try {
          record = JSON.parse(line);
        } catch {
          continue;
        }
        if (record.kind === 'listening') {
          seen = true;
          clearTimeout(timer);
          const listenedAt = process.hrtime.bigint();
          resolveListening({ port: record.port, bootMs: Number(listenedAt - start) / 1e6, listenedAt });
          return;
        }
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${target.name} exited (${code}) before listening: ${buffered.trim().slice(-400)}`));
    });
  });
  return listening.then((seen) => ({ child, exited, ...seen }));
}

export async function stop(running) {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const done = await Promise.race([running.exited.then(() => true), sleep(10_000).then(() => false)]);
  if (!done) {
    running.child.kill('SIGKILL');
    await running.exited;
  }
}

/**
 * One request on a fresh connection: ms from `since` (default: now, before connecting) to the
 * whole answer, status, body. Rejects when the connection fails or closes before the whole
 * answer, or after `timeoutMs` without a byte.
 */
export function call(port, request, since = process.hrtime.bigint(), timeoutMs = 30_000) {
  return new Promise((resolveCall, reject) => {
    const start = since;
    const socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
    const chunks = [];
    let size = 0;
    let want = -1;
    let headLength = 0;
    let done = false;
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('call timed out')));
    socket.on('connect', () => socket.write(request));
    socket.on('error', reject);
    socket.on('close', () => done || reject(new Error('the connection closed before the whole answer')));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      size += chunk.length;
      if (want < 0) {
        // Joined only until the head is in: a large answer is joined once, at its end.
        const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        chunks.length = 0;
        chunks.push(all);
        const end = all.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = all.subarray(0, end).toString('latin1');
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        if (!length) return socket.destroy(new Error(`answer without content-length: ${head}`));
        headLength = end + 4;
        want = headLength + Number(length[1]);
      }
      if (size >= want) {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        const all = Buffer.concat(chunks);
        done = true;
        socket.destroy();
        resolveCall({ ms, status: Number(all.subarray(9, 12).toString()), body: all.subarray(headLength, want) });
      }
    });
  });
}

/** VmRSS, VmHWM (peak RSS) and VmSize (virtual size) in MB, from /proc (Linux). */
export function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024, vsz: kb('VmSize') / 1024 };
  } catch {
    return { rss: NaN, hwm: NaN, vsz: NaN };
  }
}

/** The process's user + system CPU time in ms (Linux; USER_HZ is 100 there). */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}
