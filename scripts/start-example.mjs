// `npm start`: serves the example pack (the test fixture pack) on PORT (default 8080) with a
// development token, and prints how to call it.
import { fileURLToPath } from 'node:url';
import { main } from '../lib/pack-service-main.js';

const token = process.env.KINDGI_PACK_SERVICE_TOKEN ?? 'dev-token';
const port = process.env.PORT ?? '8080';
const index = fileURLToPath(new URL('../__test__/fixtures/js-pack/index.json', import.meta.url));
process.stdout.write(
  [
    `Serving the example pack (${index}) on port ${port}. Try:`,
    `  curl -s localhost:${port}/v1/info -H 'kindgi-pack-token: ${token}'`,
    `  curl -s localhost:${port}/v1/invoke -H 'kindgi-pack-token: ${token}' -H 'content-type: application/json' \\`,
    `    -d '{"v":2,"kind":"invoke","tool":{"id":"fixture.echo"},"input":{"text":"hi"},"ctx":{"tenantId":"t","runId":"r"}}'`,
    'Stop with Ctrl-C (or SIGTERM to drain).',
    '',
  ].join('\n'),
);
process.exit(await main(['--index', index], { ...process.env, KINDGI_PACK_SERVICE_TOKEN: token, PORT: port, KINDGI_PACK_ENV_FILTER: 'off' }));
