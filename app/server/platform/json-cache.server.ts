// A value kept in the Worker's cache (the Cache API) for a while, under a key the caller derives.
// The Cache API stores HTTP responses, so this adapter is the one place in app/server that builds one.

/** `load()`'s value, from the cache named `name` while it is younger than `ttlSeconds`. */
export async function cachedJson<T>(name: string, key: string, ttlSeconds: number, load: () => Promise<T>): Promise<T> {
  const cache = await caches.open(name);
  const hit = await cache.match(key);
  if (hit) return (await hit.json()) as T;
  const value = await load();
  await cache.put(
    key,
    new Response(JSON.stringify(value), {
      headers: { "Content-Type": "application/json", "Cache-Control": `public, max-age=${ttlSeconds}` },
    }),
  );
  return value;
}
