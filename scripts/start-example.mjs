// `npm start`: serves the example pack (examples/pack) on PORT (default 8080) with a
// development token, and prints how to call it.
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { main } from '../lib/pack-service-main.js';

/** A port free now, for PORT=0: the printed calls must name the port the service gets. */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject).listen(0, () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(String(port)));
    });
  });
}

const token = process.env.KINDGI_PACK_SERVICE_TOKEN ?? 'dev-token';
const asked = process.env.PORT ?? '8080';
const port = Number(asked) === 0 ? await freePort() : asked;
const index = fileURLToPath(new URL('../examples/pack/index.json', import.meta.url));
const call = (message, headers = '') =>
  [
    `  curl -s localhost:${port}/v1/invoke -H 'kindgi-pack-token: ${token}' -H 'content-type: application/json'${headers} \\`,
    `    -d '${JSON.stringify({ v: 2, ...message })}'`,
  ].join('\n');
const ctx = { tenantId: 't', runId: 'r' };
process.stdout.write(
  [
    `Serving the example pack (${index}) on port ${port}. Try:`,
    `  curl -s localhost:${port}/v1/info -H 'kindgi-pack-token: ${token}'`,
    call({ kind: 'invoke', tool: { id: 'example.greet' }, input: { name: 'Ada', language: 'fr' }, ctx }),
    call({ kind: 'invoke', tool: { id: 'example.word-count' }, input: { text: 'the cat and the hat' }, ctx }),
    '  A deadline of 1.5 s on a 5 s countdown (the answer is deadline-exceeded):',
    call({ kind: 'invoke', tool: { id: 'example.countdown' }, input: { seconds: 5 }, ctx }, " -H 'kindgi-timeout-ms: 1500'"),
    '  The guardrail check:',
    call({ kind: 'check-invoke', check: { id: 'example.checks.no-shouting' }, config: { maxUpperRatio: 0.5 }, trace: { runId: 'r', output: 'WHY ARE WE SHOUTING' } }),
    'Stop with Ctrl-C (or SIGTERM to drain).',
    '',
  ].join('\n'),
);
process.exit(await main(['--index', index], { ...process.env, KINDGI_PACK_SERVICE_TOKEN: token, PORT: port, KINDGI_PACK_ENV_FILTER: 'off' }));
