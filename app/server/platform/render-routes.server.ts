// React Router's route objects for a document's render, made once per build (decision 138). For
// every document it derives three things from the build's route table: the route modules by id,
// the routes the render draws (each with its components and elements), and the static router's
// data routes. Each is a walk of every route of the app, about a hundred, though nothing in them
// depends on the request. The Worker's build (`renderRoutesBuiltOnce` in vite.config.ts) has the
// three ask here: the first request of a build makes them, the others share them.

interface Made {
  /** What was made from this source with the next source, per the next source. */
  next: WeakMap<object, Made>;
  /** What was made from the sources leading here, per variant. */
  values: Map<string, unknown>;
}

const made = new WeakMap<object, Made>();
/** Everything `madeOnce` made, so that what is derived from it can be made once too. */
const madeHere = new WeakSet<object>();

/**
 * What `make` makes from `sources` (objects a build keeps for its lifetime) in a variant, made the
 * first time and then answered as it is: callers must not change it. A new build brings new
 * objects, so nothing of an older build is answered; what it made goes when its objects do.
 */
export function madeOnce<T extends object>(sources: readonly [object, ...object[]], variant: string, make: () => T): T {
  let level = made;
  let entry: Made | undefined;
  for (const source of sources) {
    entry = level.get(source);
    if (!entry) level.set(source, (entry = { next: new WeakMap(), values: new Map() }));
    level = entry.next;
  }
  let value = entry!.values.get(variant) as T | undefined;
  if (!value) {
    value = make();
    madeHere.add(value);
    entry!.values.set(variant, value);
  }
  return value;
}

/**
 * What `make` derives from `source`: made once when `source` is itself something `madeOnce` made
 * (and so never changes), made afresh for anything else, as the caller's own code would.
 */
export function derivedOnce<T extends object>(source: object, variant: string, make: () => T): T {
  return madeHere.has(source) ? madeOnce([source], variant, make) : make();
}
