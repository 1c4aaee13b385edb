// example.no-shouting: a zero-LLM guardrail. Its check passes when at most
// `config.maxUpperRatio` of the letters in the trace's output are capitals. The check is a
// named export, where the pack service finds `evaluate`; the default export is the guardrail.
export const check = {
  id: 'example.checks.no-shouting',
  evaluate: (config, trace) => {
    const text = typeof trace?.output === 'string' ? trace.output : JSON.stringify(trace?.output ?? '');
    const letters = text.match(/\p{L}/gu) ?? [];
    const upper = letters.filter((c) => c !== c.toLowerCase()).length;
    const ratio = letters.length === 0 ? 0 : upper / letters.length;
    const attributes = { letters: letters.length, upper };
    return ratio <= config.maxUpperRatio
      ? { passed: true, attributes }
      : { passed: false, reason: `${Math.round(ratio * 100)}% of the letters are capitals`, attributes };
  },
};

export default {
  id: 'example.no-shouting',
  name: 'The answer does not shout',
  kind: 'zero-llm',
  check,
  configSchema: {
    type: 'object',
    properties: { maxUpperRatio: { type: 'number', minimum: 0, maximum: 1 } },
    required: ['maxUpperRatio'],
    additionalProperties: false,
  },
  config: { maxUpperRatio: 0.5 },
  action: { 'on-violation': 'log-only' },
  severity: 'warn',
};
