// A child process's output, line by line, for the tests that read what a process writes.
import { createInterface } from 'node:readline';

/** Calls `onLine` with each line `stream` carries (decoded as UTF-8, split as readline does). */
export function onLines(stream, onLine) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
}
