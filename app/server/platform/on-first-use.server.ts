// Code loaded on first use (decision 107): a module a cold start does not need is imported by the
// first call that does, and kept, so later calls neither import it again nor wait on a promise
// another request started.

/** `load` (a dynamic import) run once per isolate, on the first call; later calls answer what it loaded. */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: T | undefined;
  return async () => (loaded ??= await load());
}
