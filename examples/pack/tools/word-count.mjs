// example.word-count: counts the words of a text, and its most frequent ones. Words listed in
// the optional EXAMPLE_STOP_WORDS (comma-separated) are left out of the top list.
export default {
  id: 'example.word-count',
  description: 'Counts the words of a text and lists the most frequent ones.',
  input: {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 1000000 },
      top: { type: 'integer', minimum: 0, maximum: 50, default: 3 },
    },
    required: ['text'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: {
      words: { type: 'integer', minimum: 0 },
      top: {
        type: 'array',
        items: {
          type: 'object',
          properties: { word: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
          required: ['word', 'count'],
          additionalProperties: false,
        },
      },
    },
    required: ['words', 'top'],
    additionalProperties: false,
  },
  handler: ({ text, top }) => {
    const stop = new Set((process.env.EXAMPLE_STOP_WORDS ?? '').split(',').map((w) => w.trim().toLowerCase()).filter(Boolean));
    const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
    const counts = new Map();
    for (const word of words) if (!stop.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return { words: words.length, top: ranked.slice(0, top).map(([word, count]) => ({ word, count })) };
  },
};
