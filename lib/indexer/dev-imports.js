// Which files pack code imports in the dev loop's indexer process, through module hooks:
// `module.registerHooks()` (Node 22.15 and later), whose hooks run on this thread as each import
// resolves; where Node lacks it, `module.register()`, whose hooks run on the loader's thread and
// report over a port. Node 26 deprecates `module.register()` (DEP0205) and warns on its first
// call, so it is used only where there is no other way.
import module from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { isPackImport } from './dev-import-hooks.js';

/**
 * Calls `onImport(url)` for each file pack code imports from now on. Returns `reported()`, which
 * resolves once every import resolved so far has been reported.
 */
export function watchPackImports(onImport) {
  if (typeof module.registerHooks === 'function') {
    module.registerHooks({
      resolve(specifier, context, nextResolve) {
        const resolved = nextResolve(specifier, context);
        if (isPackImport(context.parentURL, resolved.url)) onImport(resolved.url);
        return resolved;
      },
    });
    return { reported: () => Promise.resolve() };
  }
  const { port1, port2 } = new MessageChannel();
  let flushed;
  port1.on('message', (message) => {
    if (message.url !== undefined) onImport(message.url);
    else flushed?.();
  });
  port1.unref();
  module.register('./dev-import-hooks.js', { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
  return {
    reported: () =>
      new Promise((resolve) => {
        flushed = resolve;
        port1.postMessage('flush');
      }),
  };
}
