// What a handler sees of its call: the context it gets (its abort signal, and `secrets` and
// `log` out of sight) and the call's state on the JS side.

/**
 * One call on the JS side: its abort, and what its handler context keeps out of sight. The
 * AbortController is made only when pack code asks for the signal (making one costs more than
 * the rest of a call); an abort that came first is applied to it then.
 */
export class CallState {
  constructor(bindings, logFor) {
    this.aborted = false;
    this.reason = undefined;
    this.controller = undefined;
    this.bindings = bindings;
    this.logFor = logFor;
    this.log = undefined;
    this.secrets = undefined;
  }

  get signal() {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/** Lets a subclass stamp its private fields onto an object it did not make. */
class Stamped {
  constructor(target) {
    return target;
  }
}

/**
 * Each handler context's call, in a private field stamped onto the context. Private fields are
 * invisible to reflection and spreading, as a WeakMap entry is, but cost V8 no ephemeron work
 * at every scavenge (docs/design.md, *Calling pack code*).
 */
class ContextCall extends Stamped {
  #call;

  constructor(ctx, call) {
    super(ctx);
    this.#call = call;
  }

  static of(ctx) {
    return typeof ctx === 'object' && ctx !== null && #call in ctx ? ctx.#call : undefined;
  }
}

// One getter per property for every context, so V8 gives contexts of one shape one hidden class.
const ABORT_SIGNAL = {
  get() {
    return ContextCall.of(this)?.signal;
  },
  enumerable: true,
};
const SECRETS = {
  get() {
    return ContextCall.of(this)?.secrets;
  },
  enumerable: false,
};
const LOG = {
  get() {
    const call = ContextCall.of(this);
    if (call === undefined) return undefined;
    call.log ??= call.logFor(call.bindings);
    return call.log;
  },
  enumerable: false,
};

/**
 * The context a handler gets: the wire context and its abort signal, with `secrets` and
 * `log` present but not enumerable, so spreading or serialising it shows neither.
 */
export function handlerContext(wire, call) {
  const { secrets, ...ctx } = wire;
  Object.defineProperty(ctx, 'abortSignal', ABORT_SIGNAL);
  if (secrets !== undefined) {
    call.secrets = secrets;
    Object.defineProperty(ctx, 'secrets', SECRETS);
  }
  Object.defineProperty(ctx, 'log', LOG);
  new ContextCall(ctx, call); // stamps ctx
  return ctx;
}
