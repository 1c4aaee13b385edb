// How every JS suite starts a pack service on loopback: createPackService over a fixture pack,
// prewarmed, and served by Rust (`listen`), by Node's own HTTP server with `service.handle` (the
// transport the TypeScript service has), or by both at once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { createPackService } from '../../lib/pack-service.js';

/** A service's `handle` in a node:http server on a free loopback port; `stop` ends the server's connections, closes it, then stops the service. */
export async function behindNode(service) {
  const server = createServer(service.handle);
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await service.stop(100);
  };
  return { port: server.address().port, stop };
}

/**
 * The service of the pack in `packRoot` (its index.json, unless `index` is given; its modules
 * resolved under it), with `token` and the other createPackService `options`. `events`, an
 * array, gets what the service's `logger` hears. `prewarm: false` leaves it cold. `transport`:
 * `listen` or `handle` (`port` is where it is served) or `both` (`hyperPort` and `nodePort`).
 */
export async function startService({ packRoot, index, token, events, transport = 'listen', prewarm = true, ...options }) {
  const service = createPackService({
    index: index ?? JSON.parse(readFileSync(join(packRoot, 'index.json'), 'utf8')),
    resolveModule: (modulePath) => resolve(packRoot, modulePath),
    token,
    env: {},
    ...(events !== undefined && { logger: (event) => events.push(event) }),
    ...options,
  });
  if (prewarm) assert.deepEqual(await service.prewarm(), []);
  if (transport === 'handle') return { service, ...(await behindNode(service)) };
  const hyperPort = await service.listen(0, '127.0.0.1');
  if (transport === 'listen') return { service, port: hyperPort, stop: () => service.stop(100) };
  const node = await behindNode(service);
  return { service, hyperPort, nodePort: node.port, stop: node.stop };
}
