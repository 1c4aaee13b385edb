// runHandler and runCheck with their default importers (checklist items 99-100, HR): absolute
// paths and `file:` URLs, through the public root entry.
//
// Ajv 8 (configured exactly as section 3.7 says, __test__/helpers/runner-fixtures.mjs) is the
// oracle for every expected issue list and every compile failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runHandler, runCheck } from '../index.js';
import { tool, ctx, moduleDir } from './helpers/runner-fixtures.mjs';

// ---------------------------------------------------------------------------------------------
// HR: default importers (0.1.6)
// ---------------------------------------------------------------------------------------------

const TOOL_MODULE = `export default function echo(input, ctx) {
  return { echoed: input.message + ' for ' + ctx.tenantId };
}
`;
const CHECK_MODULE = `export const check = {
  evaluate: (config, trace, bindings) => ({ passed: trace.output === 'ok', config, bindings: Object.keys(bindings) }),
};
`;

test('HR 99 an absolute path with "#" and a space loads, for both a handler and a check', async () => {
  const dir = await moduleDir();
  assert.ok(dir.includes(' ') && dir.includes('#'));
  const toolPath = join(dir, 'echo #tool.mjs');
  const checkPath = join(dir, 'cites check.mjs');
  await writeFile(toolPath, TOOL_MODULE, 'utf8');
  await writeFile(checkPath, CHECK_MODULE, 'utf8');

  const outcome = await runHandler({ tool: tool({ modulePath: toolPath }), input: { message: 'hi' }, ctx: ctx() });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { echoed: 'hi for tenant-1' } });

  const checked = await runCheck({ check: { id: 'test.cites', modulePath: checkPath }, config: { n: 1 }, trace: { output: 'ok' } });
  assert.deepStrictEqual(checked, { kind: 'ok', value: { passed: true, config: { n: 1 }, bindings: [] } });
});

test('HR 99 a missing absolute path → handler-import-failed naming the path as given', async () => {
  const dir = await moduleDir();
  const missing = join(dir, 'no such #module.mjs');
  const outcome = await runHandler({ tool: tool({ modulePath: missing }), input: { message: 'hi' }, ctx: ctx() });
  assert.equal(outcome.kind, 'err');
  assert.equal(outcome.error.code, 'handler-import-failed');
  assert.equal(outcome.error.toolId, 'test.echo');
  assert.ok(outcome.error.message.startsWith(`Failed to import handler module '${missing}': Error: `), outcome.error.message);
  assert.equal(outcome.error.cause.name, 'Error');
  assert.equal(outcome.error.message, `Failed to import handler module '${missing}': Error: ${outcome.error.cause.message}`);

  const checked = await runCheck({ check: { id: 'test.cites', modulePath: missing }, config: {}, trace: {} });
  assert.equal(checked.kind, 'err');
  assert.equal(checked.error.code, 'handler-import-failed');
  assert.ok(checked.error.message.startsWith(`Failed to import check module '${missing}': Error: `), checked.error.message);
});

test('HR 100 a file: URL is imported as given, for a handler and a check', async () => {
  const dir = await moduleDir();
  const toolPath = join(dir, 'url tool #2.mjs');
  const checkPath = join(dir, 'url check #2.mjs');
  await writeFile(toolPath, TOOL_MODULE, 'utf8');
  await writeFile(checkPath, CHECK_MODULE, 'utf8');
  const toolUrl = pathToFileURL(toolPath).href;
  const checkUrl = pathToFileURL(checkPath).href;
  assert.ok(toolUrl.startsWith('file:') && toolUrl.includes('%23') && toolUrl.includes('%20'));

  const outcome = await runHandler({ tool: tool({ modulePath: toolUrl }), input: { message: 'yo' }, ctx: ctx({ tenantId: 't2' }) });
  assert.deepStrictEqual(outcome, { kind: 'ok', value: { echoed: 'yo for t2' } });

  const signal = new AbortController().signal;
  const checked = await runCheck({ check: { id: 'test.cites', modulePath: checkUrl }, config: {}, trace: { output: 'no' }, abortSignal: signal });
  assert.deepStrictEqual(checked, { kind: 'ok', value: { passed: false, config: {}, bindings: ['abortSignal'] } });

  // A file: URL that names nothing fails with the URL, as given, in the message.
  const missingUrl = pathToFileURL(join(dir, 'gone #3.mjs')).href;
  const missing = await runHandler({ tool: tool({ modulePath: missingUrl }), input: { message: 'yo' }, ctx: ctx() });
  assert.equal(missing.kind, 'err');
  assert.equal(missing.error.code, 'handler-import-failed');
  assert.ok(missing.error.message.startsWith(`Failed to import handler module '${missingUrl}': Error: `), missing.error.message);
});
