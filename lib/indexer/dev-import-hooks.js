// Module hooks of the dev loop's indexer process: each file a pack module imports (a helper, or
// another primitive) is reported to the process, which tells the loop. A change to such a file
// needs a fresh process: Node imports a module once, and its importers hold it.
//
// `isPackImport` is the rule; `dev-imports.js` installs it with `module.registerHooks()` where
// Node has it, and otherwise with `module.register()`, which loads this file on the loader's
// thread and calls `initialize` and `resolve` there.

// This package's own files import each other; only imports made by pack code count.
const PACKAGE_ROOT = new URL('../../', import.meta.url).href;

/** Whether resolving to `url` from `parentURL` is an import pack code made of a file. */
export function isPackImport(parentURL, url) {
  return parentURL?.startsWith('file:') === true && !parentURL.startsWith(PACKAGE_ROOT) && url.startsWith('file:');
}

let port;

export function initialize(data) {
  port = data.port;
  // A flush request is answered after every report posted before it.
  port.on('message', () => port.postMessage({ flushed: true }));
  port.unref();
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (isPackImport(context.parentURL, resolved.url)) port.postMessage({ url: resolved.url });
  return resolved;
}
