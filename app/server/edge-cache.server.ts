import type { HeadersFunction } from "react-router";
// Public pages are the same bytes for every visitor, so the Worker keeps them in the Cache API.
// A page opts in by answering with PUBLIC_CACHE_CONTROL; everything else passes straight through.
// Within max-age a copy is served as is; within stale-while-revalidate the stale copy is served
// and a fresh one rendered in the background.

export const PAGE_MAX_AGE = 60;
export const PAGE_STALE_WHILE_REVALIDATE = 600;
export const PUBLIC_CACHE_CONTROL = `public, max-age=${PAGE_MAX_AGE}, stale-while-revalidate=${PAGE_STALE_WHILE_REVALIDATE}`;

const STORED_AT = "X-Edge-Stored-At";
const ORIGINAL_CACHE_CONTROL = "X-Edge-Cache-Control";

/**
 * A route module's `headers` export for pages that are the same for everyone. The Worker keeps
 * error answers and answers to non-GET requests private whatever this says.
 */
export const publicPageHeaders: HeadersFunction = () => ({ "Cache-Control": PUBLIC_CACHE_CONTROL });

function directives(cacheControl: string | null) {
  const value = cacheControl ?? "";
  const seconds = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(value)?.[1] ?? 0);
  return { isPublic: /(^|,)\s*public\s*(,|$)/.test(value), maxAge: seconds("max-age"), swr: seconds("stale-while-revalidate") };
}

function isStorable(response: Response): boolean {
  const { isPublic, maxAge } = directives(response.headers.get("Cache-Control"));
  return response.status === 200 && isPublic && maxAge > 0 && !response.headers.has("Set-Cookie");
}

function cacheKey(request: Request): Request {
  return new Request(new URL(request.url).toString(), { method: "GET" });
}

async function store(cache: Cache, key: Request, response: Response, now: number): Promise<void> {
  const original = response.headers.get("Cache-Control")!;
  const { maxAge, swr } = directives(original);
  const headers = new Headers(response.headers);
  headers.set(STORED_AT, String(now));
  headers.set(ORIGINAL_CACHE_CONTROL, original);
  // The Cache API must keep the copy for the stale window as well.
  headers.set("Cache-Control", `public, max-age=${maxAge + swr}`);
  await cache.put(key, new Response(response.body, { status: response.status, headers }));
}

function fromCache(hit: Response, age: number, state: "HIT" | "STALE"): Response {
  const headers = new Headers(hit.headers);
  headers.set("Cache-Control", headers.get(ORIGINAL_CACHE_CONTROL) ?? PUBLIC_CACHE_CONTROL);
  headers.delete(ORIGINAL_CACHE_CONTROL);
  headers.delete(STORED_AT);
  headers.set("Age", String(Math.max(0, Math.floor(age / 1000))));
  headers.set("X-Cache", state);
  return new Response(hit.body, { status: hit.status, headers });
}

export async function serveWithEdgeCache(
  request: Request,
  ctx: ExecutionContext,
  render: () => Promise<Response>,
  now = Date.now(),
): Promise<Response> {
  if (request.method !== "GET") return render();
  const cache = await caches.open("pages");
  const key = cacheKey(request);
  const hit = await cache.match(key);
  if (hit) {
    const age = now - Number(hit.headers.get(STORED_AT));
    const { maxAge, swr } = directives(hit.headers.get(ORIGINAL_CACHE_CONTROL));
    if (age <= maxAge * 1000) return fromCache(hit, age, "HIT");
    if (age <= (maxAge + swr) * 1000) {
      ctx.waitUntil(
        render().then((fresh) => (isStorable(fresh) ? store(cache, key, fresh, Date.now()) : undefined)),
      );
      return fromCache(hit, age, "STALE");
    }
  }
  const response = await render();
  if (!isStorable(response)) return response;
  ctx.waitUntil(store(cache, key, response.clone(), now));
  const headers = new Headers(response.headers);
  headers.set("X-Cache", "MISS");
  return new Response(response.body, { status: response.status, headers });
}

/** Drops cached copies of pages whose content just changed (in this location's cache). */
export async function purgePages(origin: string, paths: string[]): Promise<void> {
  const cache = await caches.open("pages");
  await Promise.all(paths.map((path) => cache.delete(new Request(`${origin}${path}`))));
}
