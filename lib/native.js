// The compiled addon, loaded through the loader `napi build` generates (binding.cjs).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const native = require('../binding.cjs');
