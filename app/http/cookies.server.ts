// Minimal cookie reading and writing. Every cookie we set is HttpOnly, Secure and SameSite=Lax.

/** Every cookie the request carries, by name (the first of a name wins, as browsers send the most specific first). */
export function cookiesOf(request: Request): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of request.headers.get("Cookie")?.split(";") ?? []) {
    const eq = part.indexOf("=");
    const name = eq === -1 ? "" : part.slice(0, eq).trim();
    if (name && !cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

export function readCookie(request: Request, name: string): string | null {
  return cookiesOf(request).get(name) ?? null;
}

export function serializeCookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; Secure; SameSite=Lax`;
}

export function clearCookie(name: string): string {
  return serializeCookie(name, "", 0);
}
