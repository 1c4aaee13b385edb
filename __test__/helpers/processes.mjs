// Which processes are alive, for the tests that prove a supervisor leaves no child behind, and
// what they are: a spare started held, a process that listens.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { native } from '../../lib/native.js';
import { until } from './until.mjs';

/** The pids of live processes whose command line names `marker` (the pack's folder). */
export function processesNaming(marker) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (cmdline.includes(marker) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Whether the process was started held, as a supervisor's spare is: its environment as it began holds the hold variable. */
export function startedHeld(pid) {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${native.PACK_SERVICE_HOLD_VAR}=1`);
  } catch {
    return false;
  }
}

/** A process naming `marker` that was started held and is none of `not` (the serving child, earlier spares), once there is one. */
export async function spareNaming(marker, not) {
  const find = () => processesNaming(marker).find((pid) => startedHeld(pid) && !not.includes(pid));
  await until(() => find() !== undefined, 'a spare');
  return find();
}

/** Whether the process holds a TCP socket that listens. */
export function listensOnTcp(pid) {
  const sockets = new Set();
  let fds = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode !== undefined) sockets.add(inode);
    } catch {
      // Closed while we looked.
    }
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    // Columns: sl, local, remote, state (0A is LISTEN), queues, timer, retransmits, uid, timeout, inode.
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && sockets.has(fields[9])) return true;
    }
  }
  return false;
}
