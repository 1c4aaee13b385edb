// A child process's output, line by line, for the tests that read what a process writes.
import { createInterface } from 'node:readline';

/** Calls `onLine` with each line `stream` carries (decoded as UTF-8, split as readline does). */
export function onLines(stream, onLine) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
}

/** The port of the `listening` line a pack service process writes on stderr; rejects if it exits first. */
export function listeningPort(child) {
  return new Promise((resolve, reject) => {
    onLines(child.stderr, (text) => {
      if (!text.startsWith('{')) return;
      try {
        const line = JSON.parse(text);
        if (line.kind === 'listening') resolve(line.port);
      } catch {
        // Not one of the service's lines.
      }
    });
    child.on('exit', (code, signal) => reject(new Error(`the process exited (${signal ?? code}) before listening`)));
  });
}
