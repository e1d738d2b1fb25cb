// Where a request comes from, read from what Cloudflare added to it: the address, its network, the
// country and the place. Apart from the cookies and sessions of \`caller.server\`, so that the licence
// API, which has neither, loads only this at a cold start (decision 116).
/**
 * Roughly where a request comes from, as Cloudflare located it ("Berlin, DE"), when it did. The
 * runtime builds `request.cf` from its serialised form when it is first read, which costs more than
 * a licence check's own work: callers read it only when they keep the place.
 */
export function placeOf(request: Request): string | null {
  const cf = (request as { cf?: { city?: unknown; country?: unknown } }).cf;
  const parts = [cf?.city, cf?.country].filter((part): part is string => typeof part === "string" && part !== "");
  return parts.length > 0 ? parts.join(", ").slice(0, 100) : null;
}

/**
 * The client's country as Cloudflare located it (its CF-IPCountry header, two letters), or null: a
 * header, so reading it costs nothing next to `request.cf`. "XX" and "T1" (unknown, Tor) count as none.
 */
export function countryOf(request: Request): string | null {
  const country = request.headers.get("CF-IPCountry")?.toUpperCase() ?? "";
  return /^[A-Z]{2}$/.test(country) && country !== "XX" && country !== "T1" ? country : null;
}

/** The client's address as Cloudflare saw it ("local" in tests and scripts that name none). */
export function clientAddress(request: Request): string {
  return request.headers.get("CF-Connecting-IP") ?? "local";
}

/**
 * What the per-client limit counts: an IPv4 address, or an IPv6 address's /64 (one subscriber's
 * network, which hands its holder more addresses than any limit could count one by one).
 */
export function clientNetwork(address: string): string {
  if (!address.includes(":")) return address;
  const [head = "", tail] = address.split("::");
  const groups = head ? head.split(":") : [];
  if (tail !== undefined) {
    const rest = tail ? tail.split(":") : [];
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - rest.length)).fill("0"), ...rest);
  }
  return `${groups
    .slice(0, 4)
    .map((group) => (Number.parseInt(group, 16) || 0).toString(16))
    .join(":")}::/64`;
}
