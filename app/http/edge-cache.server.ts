// Public pages are the same bytes for every visitor, so the Worker keeps them: in the isolate's
// memory for the hottest pages, and in the Cache API for everything else and for other isolates.
// A page opts in by answering with PUBLIC_CACHE_CONTROL; everything else passes straight through.
// Within max-age a copy is served as is; within stale-while-revalidate the stale copy is served
// and a fresh one rendered in the background.
import type { HeadersFunction } from "react-router";

export const PAGE_MAX_AGE = 60;
export const PAGE_STALE_WHILE_REVALIDATE = 600;
export const PUBLIC_CACHE_CONTROL = `public, max-age=${PAGE_MAX_AGE}, stale-while-revalidate=${PAGE_STALE_WHILE_REVALIDATE}`;

// Bookkeeping headers on Cache API copies, and those a served copy is given afresh (lower case, as
// Headers iterates them).
const STORED_AT = "x-edge-stored-at";
const ORIGINAL_CACHE_CONTROL = "x-edge-cache-control";
const INTERNAL_HEADERS = [STORED_AT, ORIGINAL_CACHE_CONTROL, "cache-control", "age", "x-cache"];
const MEMORY_MAX_ENTRIES = 200;
const MEMORY_MAX_BYTES = 16 * 1024 * 1024;

/**
 * A route module's `headers` export for pages that are the same for everyone. The Worker keeps
 * error answers and answers to non-GET requests private whatever this says.
 */
export const publicPageHeaders: HeadersFunction = () => ({ "Cache-Control": PUBLIC_CACHE_CONTROL });

/**
 * The public Cache-Control of a page whose content changes by itself at `changesAt` (a sale that
 * ends): no copy, fresh or stale, is kept past that moment.
 */
export function publicCacheControlUntil(changesAt: number | null, now = Date.now()): string {
  const left = changesAt === null ? Infinity : Math.floor((changesAt - now) / 1000);
  if (left >= PAGE_MAX_AGE + PAGE_STALE_WHILE_REVALIDATE) return PUBLIC_CACHE_CONTROL;
  const maxAge = Math.max(1, Math.min(PAGE_MAX_AGE, left));
  return `public, max-age=${maxAge}, stale-while-revalidate=${Math.max(0, left - maxAge)}`;
}

/** A route module's `headers` export for public pages whose loader chose the Cache-Control (with `publicCacheControlUntil`). */
export const loaderCacheHeaders: HeadersFunction = ({ loaderHeaders }) => ({
  "Cache-Control": loaderHeaders.get("Cache-Control") ?? PUBLIC_CACHE_CONTROL,
});

interface StoredPage {
  body: Uint8Array<ArrayBuffer>;
  status: number;
  headers: [string, string][];
  cacheControl: string;
  /** `cacheControl`'s lifetimes in seconds, read once when the copy is kept, not at every hit. */
  maxAge: number;
  swr: number;
  storedAt: number;
}

// Least recently used first (a Map keeps insertion order; a hit re-inserts).
const memory = new Map<string, StoredPage>();
let memoryBytes = 0;

// When each page was last purged here. A render that began before the purge may still be on its
// way into the cache (stored in the background); its copy is older than the change and is
// neither stored nor served.
const purgedAt = new Map<string, number>();
const PURGE_MEMORY_ENTRIES = 1000;

function isOlderThanPurge(url: string, renderedAt: number) {
  const purged = purgedAt.get(url);
  return purged !== undefined && renderedAt <= purged;
}

function forget(url: string) {
  const old = memory.get(url);
  if (!old) return;
  memoryBytes -= old.body.byteLength;
  memory.delete(url);
}

function remember(url: string, page: StoredPage) {
  forget(url);
  memory.set(url, page);
  memoryBytes += page.body.byteLength;
  for (const oldest of memory.keys()) {
    if (memory.size <= MEMORY_MAX_ENTRIES && memoryBytes <= MEMORY_MAX_BYTES) break;
    forget(oldest);
  }
}

function directives(cacheControl: string | null) {
  const value = cacheControl ?? "";
  const seconds = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(value)?.[1] ?? 0);
  return { isPublic: /(^|,)\s*public\s*(,|$)/.test(value), maxAge: seconds("max-age"), swr: seconds("stale-while-revalidate") };
}

function isStorable(response: Response): boolean {
  const { isPublic, maxAge } = directives(response.headers.get("Cache-Control"));
  return response.status === 200 && isPublic && maxAge > 0 && !response.headers.has("Set-Cookie");
}

async function store(cache: () => Promise<Cache>, url: string, response: Response, now: number): Promise<void> {
  const cacheControl = response.headers.get("Cache-Control")!;
  const { maxAge, swr } = directives(cacheControl);
  const page: StoredPage = {
    body: new Uint8Array(await response.arrayBuffer()),
    status: response.status,
    headers: [...response.headers].filter(([name]) => !INTERNAL_HEADERS.includes(name)),
    cacheControl,
    maxAge,
    swr,
    storedAt: now,
  };
  // Checked after the body is read, with nothing awaited before it is remembered.
  if (isOlderThanPurge(url, now)) return;
  remember(url, page);
  const headers = new Headers(page.headers);
  headers.set(STORED_AT, String(now));
  headers.set(ORIGINAL_CACHE_CONTROL, cacheControl);
  // The Cache API must keep the copy for the stale window as well.
  headers.set("Cache-Control", `public, max-age=${maxAge + swr}`);
  await (await cache()).put(url, new Response(page.body, { status: page.status, headers }));
}

async function lookup(cache: () => Promise<Cache>, url: string): Promise<StoredPage | null> {
  const inMemory = memory.get(url);
  if (inMemory && !isOlderThanPurge(url, inMemory.storedAt)) {
    remember(url, inMemory);
    return inMemory;
  }
  const hit = await (await cache()).match(url);
  if (!hit) return null;
  const cacheControl = hit.headers.get(ORIGINAL_CACHE_CONTROL) ?? PUBLIC_CACHE_CONTROL;
  const { maxAge, swr } = directives(cacheControl);
  const page: StoredPage = {
    body: new Uint8Array(await hit.arrayBuffer()),
    status: hit.status,
    headers: [...hit.headers].filter(([name]) => !INTERNAL_HEADERS.includes(name)),
    cacheControl,
    maxAge,
    swr,
    storedAt: Number(hit.headers.get(STORED_AT)),
  };
  if (isOlderThanPurge(url, page.storedAt)) return null;
  remember(url, page);
  return page;
}

function respond(page: StoredPage, age: number, state: "HIT" | "STALE"): Response {
  // The kept headers carry no Cache-Control, Age or X-Cache of their own (INTERNAL_HEADERS).
  const headers: [string, string][] = [
    ...page.headers,
    ["Cache-Control", page.cacheControl],
    ["Age", String(Math.max(0, Math.floor(age / 1000)))],
    ["X-Cache", state],
  ];
  return new Response(page.body, { status: page.status, headers });
}

export async function serveWithEdgeCache(
  request: Request,
  ctx: ExecutionContext,
  render: () => Promise<Response>,
  now = Date.now(),
): Promise<Response> {
  if (request.method !== "GET") return render();
  // Opened only when the isolate's memory does not have the page: a hit in memory costs no call.
  let opened: Promise<Cache> | undefined;
  const cache = () => (opened ??= caches.open("pages"));
  const url = new URL(request.url).toString();
  const page = await lookup(cache, url);
  if (page) {
    const age = now - page.storedAt;
    const { maxAge, swr } = page;
    if (age <= maxAge * 1000) return respond(page, age, "HIT");
    if (age <= (maxAge + swr) * 1000) {
      const renderedAt = Date.now();
      ctx.waitUntil(render().then((fresh) => (isStorable(fresh) ? store(cache, url, fresh, renderedAt) : undefined)));
      return respond(page, age, "STALE");
    }
  }
  const response = await render();
  if (!isStorable(response)) return response;
  ctx.waitUntil(store(cache, url, response.clone(), now));
  const headers = new Headers(response.headers);
  headers.set("X-Cache", "MISS");
  return new Response(response.body, { status: response.status, headers });
}

/** A page's paths in the cache: its document and the data its client-side navigations fetch. */
export const pageAndData = (path: string) => [path, `${path}.data`];

/** Drops cached copies of pages whose content just changed (in this location's cache). */
export async function purgePages(origin: string, paths: string[]): Promise<void> {
  const now = Date.now();
  const cache = await caches.open("pages");
  await Promise.all(
    paths.map((path) => {
      const url = new URL(path, origin).toString();
      purgedAt.delete(url);
      purgedAt.set(url, now);
      if (purgedAt.size > PURGE_MEMORY_ENTRIES) purgedAt.delete(purgedAt.keys().next().value!);
      forget(url);
      return cache.delete(url);
    }),
  );
}
