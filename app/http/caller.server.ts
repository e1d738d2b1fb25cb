// The request, read once into the plain `Caller` that domain code takes, and the domain's token
// changes written back as cookies. Every cookie the shop sets is HttpOnly, Secure, SameSite=Lax
// and host-only (`__Host-`), under one name per token.
import { type BrowserToken, type Caller, keepToken, type TokenChange } from "~/server/platform/caller.server";
import { clientAddress, countryOf, placeOf } from "./client-address.server";
import { clearCookie, cookiesOf, serializeCookie } from "./cookies.server";

export { clientAddress };

const COOKIE_OF: Record<BrowserToken, string> = {
  session: "__Host-session",
  challenge: "__Host-2fa",
  ceremony: "__Host-webauthn",
  verify: "__Host-verify",
  reset: "__Host-reset",
  discordState: "__Host-discord-state",
  discordVerifier: "__Host-discord-verifier",
  discordMode: "__Host-discord-mode",
};

const callers = new WeakMap<Request, Caller>();

/** Who sent `request`, read once per request. */
export function callerOf(request: Request): Caller {
  let caller = callers.get(request);
  if (!caller) {
    const cookies = cookiesOf(request);
    const tokens: Caller["tokens"] = {};
    for (const [token, name] of Object.entries(COOKIE_OF) as [BrowserToken, string][]) {
      const value = cookies.get(name);
      if (value) tokens[token] = value;
    }
    let place: string | null | undefined;
    caller = {
      ip: clientAddress(request),
      origin: new URL(request.url).origin,
      userAgent: request.headers.get("User-Agent")?.slice(0, 200) ?? null,
      country: countryOf(request),
      // Read when a session or a check records it, not for every request.
      get place() {
        if (place === undefined) place = placeOf(request);
        return place;
      },
      tokens,
    };
    callers.set(request, caller);
  }
  return caller;
}

/** The Set-Cookie header that carries a token change to the browser. */
export function tokenCookie({ token, value, seconds }: TokenChange): string {
  return value === null ? clearCookie(COOKIE_OF[token]) : serializeCookie(COOKIE_OF[token], value, seconds);
}

/**
 * The cookie that carries a mailed link's token (verification, password reset) from the address
 * the link opened to the form that uses it, for as long as the link works: the token leaves the
 * address bar, the history and every Referer at once.
 */
export function linkTokenCookie(token: "verify" | "reset", value: string, expiresAt: number, now = Date.now()): string {
  return tokenCookie(keepToken(token, value, (expiresAt - now) / 1000));
}

/** Headers that carry every change to the browser, in order. */
export function tokenHeaders(changes: TokenChange[], headers = new Headers()): Headers {
  for (const change of changes) headers.append("Set-Cookie", tokenCookie(change));
  return headers;
}
