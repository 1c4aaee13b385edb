// Types of `@kindgi/handler-runtime-native/build-extensions`: `image` in a TypeScript pack's
// `kindgi.config.*`, the same shapes as `@kindgi/handler-runtime/build-extensions`.

/** A package's bin, run through the app's package manager (`pnpm exec`, `npx --no`, `yarn`). */
export interface BuildStep {
  readonly bin: string;
  readonly args?: readonly string[];
}

export interface BuildExtension {
  readonly name: string;
  /** Files the steps read, relative to the pack folder: copied into the install stage at the same paths. */
  readonly contextFiles?: readonly string[];
  /** Debian packages the image needs. */
  readonly systemPackages?: readonly string[];
  /** Steps after the install and before the prune to production (dev dependencies are there), run in the pack folder. */
  readonly postInstall?: readonly BuildStep[];
  /** Env for the build steps and the indexer stage: non-secret placeholders, never in the final image. */
  readonly buildEnv?: Readonly<Record<string, string>>;
}

/** `image` in `kindgi.config.*` (a TypeScript pack). */
export interface ImageConfig {
  /** Debian packages the image needs. */
  readonly systemPackages?: readonly string[];
  readonly extensions?: readonly BuildExtension[];
  /** Env for the build steps, over the extensions' own. */
  readonly buildEnv?: Readonly<Record<string, string>>;
}

/** An app's own extension, returned as given: the type checks its shape. */
export declare function defineBuildExtension(extension: BuildExtension): BuildExtension;

export interface PrismaExtensionOptions {
  /** The Prisma schema, relative to the pack folder. */
  readonly schema: string;
  /** The Prisma config file (`prisma.config.ts`), when the app has one; it names the schema. */
  readonly config?: string;
}

/**
 * Prisma's generated client in the image (the image installs with scripts off, so the app's
 * own `postinstall: prisma generate` does not run): copies `schema` (and `config`) in and runs
 * `prisma generate --config <config>`, else `--schema <schema>`, after the install.
 */
export declare function prisma(options: PrismaExtensionOptions): BuildExtension;
