// The example pack's config: its identity, and the variable its word-count tool reads.
export default {
  pack: { id: 'example', version: '1.0.0' },
  env: { optional: ['EXAMPLE_STOP_WORDS'] },
};
