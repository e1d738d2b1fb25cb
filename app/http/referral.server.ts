// The referral cookie (decision 058): set by an affiliate's link /r/<code> for REFERRAL_DAYS, a
// later link replacing it (last click wins). Read only where nothing is cached: the checkout's
// creation, the crypto order API. Storefront pages never read or set it.
import { REFERRAL_DAYS } from "~/lib/affiliates";
import { readCookie, serializeCookie } from "./cookies.server";

const REFERRAL_COOKIE = "__Host-referral";

export const referralCookie = (code: string) => serializeCookie(REFERRAL_COOKIE, encodeURIComponent(code), REFERRAL_DAYS * 24 * 60 * 60);

/** The code the visitor's last referral link named, if it is still within its window. */
export function referralCode(request: Request): string | null {
  const raw = readCookie(request, REFERRAL_COOKIE);
  if (!raw) return null;
  try {
    const code = decodeURIComponent(raw);
    return /^[A-Za-z0-9_-]{3,24}$/.test(code) ? code : null;
  } catch {
    return null;
  }
}
