// Seeded random requests against the fixture pack's JavaScript handlers over loopback: the
// whole path (hyper, the core, the dispatcher into JS, settle) takes odd requests, odd inputs,
// deadlines that fire and callers that leave, both served by Rust and behind `handle`, and every request gets an HTTP answer or a close,
// every 200 is a protocol message, and no call keeps its slot. KINDGI_RANDOM_CASES runs more.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startService } from './helpers/service.mjs';
import { randomCases, send, sendRandomRequests } from './helpers/random-requests.mjs';

const TOKEN = 'random-token';
const packDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'js-pack');
const echo = '{"v":2,"kind":"invoke","tool":{"id":"fixture.echo"},"input":{"text":"hi"},"ctx":{"tenantId":"t","runId":"r"}}';

/** The service on loopback: served by Rust (`listen`) or by node:http with `service.handle`. */
const serve = (transport) => startService({ packRoot: packDir, token: TOKEN, maxConcurrency: 24, transport });

for (const transport of ['listen', 'handle']) {
  test(`random requests through the JavaScript handlers get answers and lose no call (${transport})`, async () => {
    const { service, port, stop } = await serve(transport);
    try {
      const cases = randomCases(600);
      const statuses = await sendRandomRequests(port, TOKEN, cases, 0x6b696e646769);
      console.log(`${transport}: answers by status (0: closed or left):`, JSON.stringify([...statuses]));
      assert.ok((statuses.get(200) ?? 0) > cases / 3, 'most requests are calls that run');
      // Every call the service took has given its slot back (callers that left cancelled theirs).
      for (let i = 0; i < 500 && service.inFlight() > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(service.inFlight(), 0);
      const request = `POST /v1/invoke HTTP/1.1\r\nhost: x\r\nkindgi-pack-token: ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${echo.length}\r\n\r\n${echo}`;
      const after = await send(port, { bytes: Buffer.from(request), leaves: false });
      assert.equal(after?.body, '{"v":2,"kind":"result","output":{"text":"hi","n":1}}');
    } finally {
      await stop();
    }
  });
}
