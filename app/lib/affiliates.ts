// The affiliate programme's rules that the browser shows and the server enforces (decisions
// 058-060): how long a referral lasts, how long a commission is held, the payout minimum.
import { DAY_MS } from "./time";

/** A referral link's cookie lasts this long; a later link replaces it (last click wins). */
export const REFERRAL_DAYS = 30;
/** A commission waits this long before it can be withdrawn; a refund or cancellation within it voids it. */
export const HOLD_DAYS = 30;
export const HOLD_MS = HOLD_DAYS * DAY_MS;
/** An affiliate's states: applied, approved, declined, or paused by staff. */
export const AFFILIATE_STATES = ["pending", "approved", "declined", "paused"] as const;
export type AffiliateState = (typeof AFFILIATE_STATES)[number];
export const DEFAULT_COMMISSION_RATE = 20;
export const DEFAULT_DISCOUNT_RATE = 10;
/** The smallest crypto payout staff send (a withdrawal to the reseller balance has none). */
export const MIN_PAYOUT_CENTS = 5_000;
/** The cart attribute that carries the referral through Shopify's checkout to the order webhook. */
export const REFERRAL_ATTRIBUTE = "affiliate";

/** A referred buyer as the affiliate sees them: "j***@e***.com". */
export function maskEmail(email: string): string {
  const [name = "", domain = ""] = email.split("@");
  const dot = domain.lastIndexOf(".");
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : "";
  return `${name.slice(0, 1)}***@${host.slice(0, 1)}***${tld}`;
}
