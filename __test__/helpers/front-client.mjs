// A caller of a supervisor's front, for the tests that run one.

/** `get(path)` and `invoke(tool, input, headers)` against `front`, with `token`. */
export function frontClient(front, token) {
  const answer = async (res) => ({ status: res.status, headers: res.headers, text: await res.text() });
  return {
    get: async (path) => answer(await fetch(`${front.url}${path}`, { headers: { 'kindgi-pack-token': token } })),
    invoke: async (tool, input = {}, headers = {}) =>
      answer(
        await fetch(`${front.url}/v1/invoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'kindgi-pack-token': token, ...headers },
          body: JSON.stringify({ v: 2, kind: 'invoke', tool: { id: tool }, input, ctx: { tenantId: 't', runId: 'r' } }),
        }),
      ),
  };
}
