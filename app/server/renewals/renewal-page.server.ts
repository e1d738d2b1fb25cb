// What the member's renewal page shows of one licence (decision 090): the licence, what renewing
// costs and until when it then runs, each upgrade with its arithmetic, what their balance can pay,
// and whether it renews itself.
import { eq } from "drizzle-orm";
import { maskKey } from "~/lib/licences";
import { type LicencePlan, PLAN_NAME } from "~/lib/plans";
import { renewedExpiry, type UpgradeQuote } from "~/lib/renewals";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import type { Catalogue } from "../catalogue/catalogue.server";
import { licenceState } from "../licences/validation.server";
import type { Db } from "../platform/db/client.server";
import { autoRenewals } from "../platform/db/schema.server";
import { spendableOf } from "../resellers/reseller-balance.server";
import { ownedLicence, renewalOptions } from "./renewal-terms.server";

export interface RenewalPage {
  licence: {
    id: number;
    key: string;
    product: string;
    plan: LicencePlan;
    planName: string;
    state: ReturnType<typeof licenceState>;
    expiresAt: number | null;
  };
  renewal: { plan: LicencePlan; variantTitle: string; priceCents: number; currency: string; newExpiry: number | null } | null;
  upgrades: { plan: LicencePlan; planName: string; variantTitle: string; currency: string; quote: UpgradeQuote }[];
  balance: { balanceCents: number; commissionCents: number };
  autoRenew: boolean;
}

export async function renewalPage(
  db: Db,
  catalogue: Catalogue,
  viewer: Viewer,
  licenceId: number,
  now = Date.now(),
): Promise<Result<RenewalPage>> {
  const licence = await ownedLicence(db, licenceId, viewer.email);
  if (!licence) return fail("not-found", "No such licence on your account");
  const [options, balance, auto] = await Promise.all([
    renewalOptions(catalogue, licence, now),
    spendableOf(db, viewer.id, now),
    db.select({ id: autoRenewals.licenceId }).from(autoRenewals).where(eq(autoRenewals.licenceId, licence.id)).get(),
  ]);
  return ok({
    licence: {
      id: licence.id,
      key: maskKey(licence.key),
      product: licence.product,
      plan: licence.plan,
      planName: PLAN_NAME[licence.plan],
      state: licenceState(licence, now),
      expiresAt: licence.expiresAt,
    },
    renewal: options.renewal
      ? {
          plan: options.renewal.plan,
          variantTitle: options.renewal.variantTitle,
          priceCents: options.renewal.priceCents,
          currency: options.renewal.currency,
          newExpiry: renewedExpiry(licence, now),
        }
      : null,
    upgrades: options.upgrades.map((o) => ({
      plan: o.plan,
      planName: PLAN_NAME[o.plan],
      variantTitle: o.variantTitle,
      currency: o.currency,
      quote: o.quote,
    })),
    balance,
    autoRenew: auto !== undefined,
  });
}
