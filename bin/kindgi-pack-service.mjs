#!/usr/bin/env node
// The pack service process: `kindgi-pack-service --index <index.json> [--module-root <dir>]
// [--bundle-map <file>] [--host <address>]`, configured by KINDGI_PACK_SERVICE_TOKEN, PORT and
// the other variables the README lists.
import { main } from '../lib/pack-service-main.js';

process.exit(await main());
