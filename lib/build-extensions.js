// `@kindgi/handler-runtime-native/build-extensions`: the parts of a TypeScript pack's image
// (`image` in `kindgi.config.*`) beyond installing its dependencies. Data only, as in
// TypeScript: nothing is checked or run here; `kindgi build` reads, checks and renders it.

/** An app's own extension: returned as given (the type is the check). */
export function defineBuildExtension(extension) {
  return extension;
}

/**
 * Prisma's generated client in the image: the schema (and config file, when the app has one)
 * copied in, and `prisma generate` run after the install with whichever of the two names the
 * schema. A fresh, unfrozen object on every call.
 */
export function prisma(options) {
  // `config` read first: `prisma()` throws TypeScript's TypeError, naming `config`.
  const config = options.config;
  const schema = options.schema;
  const hasConfig = config !== undefined;
  return {
    name: 'prisma',
    contextFiles: hasConfig ? [schema, config] : [schema],
    postInstall: [
      { bin: 'prisma', args: hasConfig ? ['generate', '--config', config] : ['generate', '--schema', schema] },
    ],
  };
}
