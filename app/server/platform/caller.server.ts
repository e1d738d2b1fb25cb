// Who is asking, as the HTTP edge saw the request (app/http/caller.server.ts builds it): plain
// values, so domain code never reads a request, a header or a cookie, and tests can name a caller
// without building one.

/** The tokens the shop keeps in a browser, by what they prove. The edge decides how they travel. */
export type BrowserToken = "session" | "challenge" | "ceremony" | "verify" | "reset" | "discordState" | "discordVerifier" | "discordMode";

export interface Caller {
  /** The client's address ("local" when the edge names none): throttles and the audit log. */
  ip: string;
  /** The site's own origin as the request reached it: links in e-mails lead back here. */
  origin: string;
  userAgent: string | null;
  /** The client's country (two letters) as the edge located it, when it did: the blocklist's. */
  country?: string | null;
  /** Roughly where the request came from ("Berlin, DE"), when the edge located it. */
  place: string | null;
  /** The shop's tokens this browser sent. */
  tokens: Partial<Record<BrowserToken, string>>;
}

/** A token the browser is to keep for `seconds`, or (value null) to forget. */
export interface TokenChange {
  token: BrowserToken;
  value: string | null;
  seconds: number;
}

export const keepToken = (token: BrowserToken, value: string, seconds: number): TokenChange => ({
  token,
  value,
  seconds: Math.max(0, Math.floor(seconds)),
});
export const forgetToken = (token: BrowserToken): TokenChange => ({ token, value: null, seconds: 0 });
