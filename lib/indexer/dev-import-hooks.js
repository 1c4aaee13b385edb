// Module hooks of the dev loop's indexer process: each file a pack module imports (a helper, or
// another primitive) is reported to the process's main thread, which tells the loop. A change
// to such a file needs a fresh process: Node imports a module once, and its importers hold it.

// This package's own files import each other; only imports made by pack code count.
const PACKAGE_ROOT = new URL('../../', import.meta.url).href;
let port;

export function initialize(data) {
  port = data.port;
  // A flush request is answered after every report posted before it.
  port.on('message', () => port.postMessage({ flushed: true }));
  port.unref();
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const parent = context.parentURL;
  if (parent?.startsWith('file:') && !parent.startsWith(PACKAGE_ROOT) && resolved.url.startsWith('file:')) {
    port.postMessage({ url: resolved.url });
  }
  return resolved;
}
