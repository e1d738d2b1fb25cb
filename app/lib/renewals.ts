// Renewals that keep the key (decisions 090 and 091), as the browser and the server both read them:
// the cart attribute that names the licence a payment renews, the upgrade's arithmetic (stated on
// the page before payment, and charged), and the words of a licence's history.
import { type LicencePlan, PLAN_DURATION_MS, PLAN_NAME } from "./plans";
import { DAY_MS } from "./time";

/** The cart attribute that carries the licence a card payment renews to the order webhook (hidden at Shopify's checkout: it starts with "_"). */
export const RENEWAL_ATTRIBUTE = "_renews_licence";

/** The reminders' default schedule: days before the end, most distant first. */
export const DEFAULT_REMINDER_DAYS = [3, 1];

/** How long after its end a licence still gets the one reminder that it ended. */
export const ENDED_REMINDER_DAYS = 7;

/** Auto-renewal takes the price from the balance this long before the licence ends. */
export const AUTO_RENEW_BEFORE_MS = DAY_MS;

/** A licence as the upgrade's arithmetic needs it. */
export interface QuotedLicence {
  plan: LicencePlan;
  activatedAt: number | null;
  expiresAt: number | null;
}

/** What an upgrade costs and why: the new plan's price less the unused whole days of the current one. */
export interface UpgradeQuote {
  targetPlan: LicencePlan;
  targetCents: number;
  currentCents: number;
  /** Whole days of the current plan not used yet (all of them for a key never used). */
  unusedDays: number;
  termDays: number;
  creditCents: number;
  priceCents: number;
}

/**
 * The upgrade's price: the new plan's price less the unused value of the current one, pro rata by
 * whole days left (a part of a day is not credited), never below zero. A licence past its expiry has
 * nothing unused; a key never used has all its days.
 */
export function upgradeQuote(
  licence: QuotedLicence,
  prices: { currentCents: number; targetCents: number },
  targetPlan: LicencePlan,
  now: number,
): UpgradeQuote {
  const term = PLAN_DURATION_MS[licence.plan] ?? 0;
  const termDays = Math.round(term / DAY_MS);
  const left = licence.activatedAt === null || licence.expiresAt === null ? term : Math.max(0, licence.expiresAt - now);
  const unusedDays = Math.min(termDays, Math.floor(left / DAY_MS));
  const creditCents = termDays === 0 ? 0 : Math.min(prices.currentCents, Math.round((prices.currentCents * unusedDays) / termDays));
  return {
    targetPlan,
    targetCents: prices.targetCents,
    currentCents: prices.currentCents,
    unusedDays,
    termDays,
    creditCents,
    priceCents: Math.max(0, prices.targetCents - creditCents),
  };
}

/** The arithmetic in words, as the page states it before payment and the checkout's credit line names it. */
export function creditLabel(quote: Pick<UpgradeQuote, "unusedDays" | "termDays">, plan: LicencePlan): string {
  return `Unused time of your ${PLAN_NAME[plan]} plan (${quote.unusedDays} of ${quote.termDays} days)`;
}

/** A renewal's new expiry: the plan's term from the expiry while the licence runs, from now once it has ended. */
export function renewedExpiry(
  licence: { plan: LicencePlan; expiresAt: number | null; pausedAt?: number | null },
  now: number,
): number | null {
  const term = PLAN_DURATION_MS[licence.plan];
  if (term === null || licence.expiresAt === null) return null;
  const from = licence.pausedAt != null || licence.expiresAt > now ? licence.expiresAt : now;
  return from + term;
}

/** One entry of a licence's history, as the customer page lists it. */
export interface LicenceHistoryEntry {
  kind: "bought" | "renewal" | "upgrade";
  at: number;
  plan: LicencePlan;
  fromPlan: LicencePlan | null;
  expiresAt: number | null;
  priceCents: number | null;
  currency: string | null;
  method: string | null;
  auto: boolean;
  refundedAt: number | null;
  order: { key: string; source: string; reference: string; name: string } | null;
}
