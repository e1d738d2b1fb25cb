// Minimal cookie reading and writing. Every cookie we set is HttpOnly, Secure and SameSite=Lax.

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("Cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function serializeCookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; Secure; SameSite=Lax`;
}

export function clearCookie(name: string): string {
  return serializeCookie(name, "", 0);
}

/**
 * A cookie that carries a mailed link's token from the address the link opened to the form that
 * uses it, for as long as the link works: the token leaves the address bar, the history and every
 * Referer at once.
 */
export function linkTokenCookie(name: string) {
  return {
    set: (token: string, expiresAt: number, now = Date.now()) => serializeCookie(name, token, (expiresAt - now) / 1000),
    read: (request: Request) => readCookie(request, name),
    clear: () => clearCookie(name),
  };
}
