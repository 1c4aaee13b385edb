#!/usr/bin/env node
// `kindgi-index --pack-dir <dir> [...]`: writes a pack's index.json (`--help` says more).
import '../lib/kindgi-index-main.js';
