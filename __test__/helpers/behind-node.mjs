// A service's `handle` mounted in Node's own HTTP server on loopback, as the TypeScript
// service is served.
import { createServer } from 'node:http';

/** Listens on a free loopback port; `stop` ends the server's connections, closes it, then stops the service. */
export async function behindNode(service) {
  const server = createServer(service.handle);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await service.stop(100);
  };
  return { port: server.address().port, stop };
}
