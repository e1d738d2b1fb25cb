// Components fetched when first needed. A chunk that does not arrive (a dropped connection, or a
// page opened before a deploy asking for a file that is gone) must not take the page down with it:
// the page is loaded afresh once, as React Router does for a route's module, and only a second
// failure reaches the error boundary.
import { type ComponentType, lazy, use } from "react";

const RELOADED = "lazy-chunk-reloaded";

/** `load()`, reloading the page once if its chunk fails. */
export async function loadedOnce<T>(load: () => Promise<T>): Promise<T> {
  try {
    const loaded = await load();
    if (typeof window !== "undefined") sessionStorage.removeItem(RELOADED);
    return loaded;
  } catch (error) {
    if (typeof window === "undefined" || sessionStorage.getItem(RELOADED)) throw error;
    sessionStorage.setItem(RELOADED, "1");
    window.location.reload();
    // Nothing to draw meanwhile: the page is on its way again.
    return new Promise<never>(() => undefined);
  }
}

/** `React.lazy` for a component fetched on demand, reloading the page once if its chunk fails. */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>) {
  return lazy(async () => ({ default: await loadedOnce(load) }));
}

/**
 * A module fetched once: `preload()` starts fetching it, `useLoaded()` (in a component) gives it at
 * once when it is there and suspends until it is.
 */
export function fetchedOnce<T>(load: () => Promise<T>) {
  let loaded: T | undefined;
  let loading: Promise<T> | undefined;
  const preload = () => (loading ??= loadedOnce(load).then((value) => (loaded = value)));
  function useLoaded(): T {
    return loaded ?? use(preload());
  }
  return { preload, useLoaded };
}
