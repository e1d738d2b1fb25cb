// The one rule of which payment may extend which licence (decision 090), asked by every door:
// the card order's webhook, the crypto order (when opened and when paid), a balance payment, the
// reseller panel and the hub's renewal page. A payment for the licence's own plan renews it; one for
// a longer plan of the same product upgrades it; anything else is an ordinary purchase, with the
// reason it extended nothing.
import { and, eq, sql } from "drizzle-orm";
import { type LicencePlan, PLAN_DURATION_MS, PLAN_NAME, planOf } from "~/lib/plans";
import { type QuotedLicence, type UpgradeQuote, upgradeQuote } from "~/lib/renewals";
import { fail, ok, type Result } from "~/lib/result";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import { PLAN_RANK } from "../licences/licence-renewals.server";
import { licenceState } from "../licences/validation.server";
import type { Db } from "../platform/db/client.server";
import { licences } from "../platform/db/schema.server";

export type LicenceRow = typeof licences.$inferSelect;
export type RenewalKind = "renewal" | "upgrade";

export const licenceById = (db: Db, id: number) => db.select().from(licences).where(eq(licences.id, id)).get();

/** The licence `id` if `email` owns it (both sides folded, as the owner index serves). */
export const ownedLicence = (db: Db, id: number, email: string) =>
  db
    .select()
    .from(licences)
    .where(and(eq(licences.id, id), sql`lower(${licences.ownerEmail}) = lower(${email})`))
    .get();

/**
 * What a payment for `paid` (a plan of a product) would do to the licence the payer named: renew
 * it, upgrade it, or nothing, with the reason recorded on the order (the caller says what happened instead). `payer` is the address the
 * payment came from (a card order's, a crypto order's buyer, the account paying from its balance).
 */
export function renewalKindOf(
  licence: LicenceRow | undefined,
  payer: string,
  paid: { product: string; plan: LicencePlan },
  now: number,
): Result<RenewalKind> {
  if (!licence || licence.ownerEmail.toLowerCase() !== payer.toLowerCase())
    return fail("forbidden", "The licence named is not the payer's");
  const state = licenceState(licence, now);
  if (state === "revoked") return fail("conflict", "The licence named was revoked or refunded");
  if (state === "banned") return fail("conflict", "The licence named is banned");
  // A key the shop's fraud rules hold (an open dispute, shared-key detection) takes no more time until staff or the dispute free it.
  if (state === "suspended") return fail("conflict", "The licence named is suspended");
  if (licence.product !== paid.product)
    return fail("conflict", `The plan paid for is of another product than the licence (${licence.product})`);
  if (licence.plan === paid.plan) {
    if (PLAN_DURATION_MS[licence.plan] === null) return fail("conflict", "A lifetime licence has nothing to extend");
    if (licence.activatedAt === null) return fail("conflict", "The licence named was never used, so its time has not started");
    return ok("renewal");
  }
  if (PLAN_RANK[paid.plan] > PLAN_RANK[licence.plan]) {
    if (state === "paused") return fail("conflict", "The licence named is paused");
    return ok("upgrade");
  }
  return fail("conflict", `The plan paid for (${PLAN_NAME[paid.plan]}) is shorter than the licence's`);
}

/** A plan of a product as the catalogue sells it: the variant, and its price in cents. */
export interface PlanOffer {
  variantId: string;
  productId: string;
  productTitle: string;
  variantTitle: string;
  plan: LicencePlan;
  priceCents: number;
  currency: string;
  availableForSale: boolean;
}

/** Every plan the catalogue sells for `product` (by title, as licences name it), shortest first. */
export async function plansOfProduct(catalogue: Catalogue, product: string): Promise<PlanOffer[]> {
  const offers = (await allVariants(catalogue))
    .filter(({ product: p }) => p.title === product)
    .map(({ product: p, variant }) => ({
      variantId: variant.id,
      productId: p.id,
      productTitle: p.title,
      variantTitle: variant.title,
      plan: planOf(variant.title),
      priceCents: Math.round(Number(variant.price.amount) * 100),
      currency: variant.price.currencyCode,
      availableForSale: variant.availableForSale,
    }));
  // One offer per plan: the first variant the catalogue lists for it.
  const seen = new Set<LicencePlan>();
  return offers.filter((o) => !seen.has(o.plan) && seen.add(o.plan)).sort((a, b) => PLAN_RANK[a.plan] - PLAN_RANK[b.plan]);
}

/** What the owner may buy for a licence now: its renewal (same plan) and its upgrades, each with its price. */
export interface RenewalOptions {
  licence: LicenceRow;
  renewal: PlanOffer | null;
  upgrades: (PlanOffer & { quote: UpgradeQuote })[];
}

/** The plans the owner of `licence` may pay for, priced (an upgrade less the unused time, decision 090). */
export async function renewalOptions(catalogue: Catalogue, licence: LicenceRow, now: number): Promise<RenewalOptions> {
  const offers = (await plansOfProduct(catalogue, licence.product)).filter((o) => o.availableForSale);
  const current = offers.find((o) => o.plan === licence.plan) ?? null;
  const renewable = renewalKindOf(licence, licence.ownerEmail, { product: licence.product, plan: licence.plan }, now);
  const upgrades = offers
    .filter(
      (o) =>
        PLAN_RANK[o.plan] > PLAN_RANK[licence.plan] &&
        renewalKindOf(licence, licence.ownerEmail, { product: o.productTitle, plan: o.plan }, now).ok,
    )
    .map((o) => ({ ...o, quote: quoteFor(licence, current, o, now) }));
  return { licence, renewal: renewable.ok && current ? current : null, upgrades };
}

/** The upgrade's price for `target`, crediting the current plan at its catalogue price (nothing when the catalogue no longer sells it). */
export function quoteFor(licence: QuotedLicence, current: PlanOffer | null, target: PlanOffer, now: number): UpgradeQuote {
  return upgradeQuote(licence, { currentCents: current?.priceCents ?? 0, targetCents: target.priceCents }, target.plan, now);
}

/**
 * What the owner pays to move `licence` to `plan` now: its renewal at the plan's price, or its
 * upgrade at the quote. Refused when the licence cannot take it or the catalogue does not sell it.
 */
export async function priceFor(
  catalogue: Catalogue,
  licence: LicenceRow,
  plan: LicencePlan,
  now: number,
): Promise<Result<{ kind: RenewalKind; offer: PlanOffer; priceCents: number; quote: UpgradeQuote | null }>> {
  const options = await renewalOptions(catalogue, licence, now);
  if (options.renewal && options.renewal.plan === plan)
    return ok({ kind: "renewal", offer: options.renewal, priceCents: options.renewal.priceCents, quote: null });
  const upgrade = options.upgrades.find((o) => o.plan === plan);
  if (upgrade) return ok({ kind: "upgrade", offer: upgrade, priceCents: upgrade.quote.priceCents, quote: upgrade.quote });
  const kind = renewalKindOf(licence, licence.ownerEmail, { product: licence.product, plan }, now);
  if (!kind.ok) return fail("conflict", kind.problem.message);
  return fail("conflict", `${PLAN_NAME[plan]} plans of ${licence.product} are not on sale right now`);
}
