// The seller API's limit per token (decision 097): Cloudflare's rate-limiting binding decides, and
// every answer states the policy and what is left in the RateLimit-Policy and RateLimit header
// fields (the IETF HTTPAPI draft's structured form). The binding tells only yes or no, so what is
// left is this Worker's own count in the current window: exact where one Worker serves a token,
// an upper bound where several do; a refusal always says none is left.

/** The quota and window of SELLER_TOKEN_LIMIT in wrangler.toml. */
export const TOKEN_QUOTA = 120;
export const TOKEN_WINDOW_SECONDS = 60;
const POLICY = `"per-token";q=${TOKEN_QUOTA};w=${TOKEN_WINDOW_SECONDS}`;

const counted = new Map<number, { window: number; calls: number }>();

/** Whether the token may make this call now, and the header fields that say where it stands. */
export async function admitToken(
  limiter: RateLimit,
  tokenId: number,
  now = Date.now(),
): Promise<{ admitted: boolean; headers: Record<string, string> }> {
  const window = Math.floor(now / (TOKEN_WINDOW_SECONDS * 1000));
  const resetSeconds = TOKEN_WINDOW_SECONDS - (Math.floor(now / 1000) % TOKEN_WINDOW_SECONDS);
  const { success } = await limiter.limit({ key: `token:${tokenId}` });
  let entry = counted.get(tokenId);
  if (!entry || entry.window !== window) {
    // A new window: what earlier windows counted is of no more use.
    if (counted.size > 10_000) counted.clear();
    entry = { window, calls: 0 };
    counted.set(tokenId, entry);
  }
  entry.calls += 1;
  const remaining = success ? Math.max(0, TOKEN_QUOTA - entry.calls) : 0;
  const headers: Record<string, string> = { "RateLimit-Policy": POLICY, RateLimit: `"per-token";r=${remaining};t=${resetSeconds}` };
  if (!success) headers["Retry-After"] = String(resetSeconds);
  return { admitted: success, headers };
}
