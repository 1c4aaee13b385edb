// Callbacks handed to Rust, held weakly. A native object's threadsafe functions hold what they
// are given for as long as the object lives, and the callbacks use that object: held strongly,
// the two would keep each other for good, since GC cannot see through the native side. So
// Rust gets trampolines that reach the callbacks through a WeakRef, and the callbacks are kept
// as long as their native object: whatever holds the object (its owner, a listening timer)
// holds them, and an object its owner drops is collected with them.

const kept = new WeakMap();

/** One trampoline for each of `names`, calling that member of `callbacks` while it lives. */
export function weakCallbacks(callbacks, ...names) {
  const ref = new WeakRef(callbacks);
  return names.map((name) => (...args) => ref.deref()?.[name](...args));
}

/** Keeps `callbacks` alive for as long as `owner`, the native object they serve. */
export function keepCallbacks(owner, callbacks) {
  kept.set(owner, callbacks);
}
