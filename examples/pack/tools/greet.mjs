// example.greet: a greeting in one of three languages. The input schema fills `language` with
// its default before the handler runs; `ctx.log` writes a record tied to the call.
const GREETINGS = { en: 'Hello', fr: 'Bonjour', de: 'Hallo' };

export default {
  id: 'example.greet',
  description: 'Greets someone by name, in English, French or German.',
  input: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      language: { enum: ['en', 'fr', 'de'], default: 'en' },
    },
    required: ['name'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: { greeting: { type: 'string' } },
    required: ['greeting'],
    additionalProperties: false,
  },
  handler: ({ name, language }, ctx) => {
    ctx.log.info('greeting', { language });
    return { greeting: `${GREETINGS[language]}, ${name}!` };
  },
};
