// example.countdown: waits `seconds`, one tick a second, and stops as soon as the call's
// abort signal fires: its deadline (`kindgi-timeout-ms`) passed, or its caller hung up. A
// handler that honours the signal frees its slot at once; the service answers for it.
export default {
  id: 'example.countdown',
  description: 'Counts down from `seconds` to zero, a tick a second; stops when the call is aborted.',
  input: {
    type: 'object',
    properties: { seconds: { type: 'integer', minimum: 0, maximum: 60 } },
    required: ['seconds'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    properties: { ticks: { type: 'integer', minimum: 0 } },
    required: ['ticks'],
    additionalProperties: false,
  },
  handler: async ({ seconds }, ctx) => {
    const signal = ctx.abortSignal;
    for (let tick = 0; tick < seconds; tick += 1) {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(done, 1000);
        signal.addEventListener('abort', stop, { once: true });
        function done() {
          signal.removeEventListener('abort', stop);
          resolve();
        }
        function stop() {
          clearTimeout(timer);
          reject(signal.reason);
        }
        if (signal.aborted) stop();
      });
    }
    return { ticks: seconds };
  },
};
