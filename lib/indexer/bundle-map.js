// `readBundleMap`: the bundle map `kindgi build` writes, read for `kindgi-index --bundle-map`.
import { readFile } from 'node:fs/promises';
import { stringifyError } from './errors.js';

/**
 * The bundle map at `file` (`kindgi build` writes `dist/bundle-map.json`): a JSON object of
 * source path → bundle path, every bundle path a non-empty string. Never rejects.
 */
export async function readBundleMap(file) {
  let map;
  try {
    map = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    return { kind: 'err', message: `Cannot read the bundle map ${file}: ${stringifyError(cause)}` };
  }
  const valid =
    map !== null &&
    typeof map === 'object' &&
    !Array.isArray(map) &&
    Object.values(map).every((target) => typeof target === 'string' && target !== '');
  return valid
    ? { kind: 'ok', value: map }
    : { kind: 'err', message: `The bundle map ${file} must be a JSON object of source path → bundle path.` };
}
