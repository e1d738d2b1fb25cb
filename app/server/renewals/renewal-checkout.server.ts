// The card path of a renewal (decision 090): a checkout of one unit of the licence's plan (or of the
// plan it moves up to) whose cart names the licence, so the paid order's webhook extends that
// licence instead of handing out a key. An upgrade's checkout charges the quote: the new plan less
// the unused time, through a Shopify draft order (or the demo checkout) with that credit.
import { creditLabel, RENEWAL_ATTRIBUTE } from "~/lib/renewals";
import type { LicencePlan } from "~/lib/plans";
import { fail, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import type { Catalogue, ShopifyConfig } from "../catalogue/catalogue.server";
import { createLicenceCheckout } from "../catalogue/checkout.server";
import type { AdminConfig } from "../catalogue/shopify-admin.server";
import type { Db } from "../platform/db/client.server";
import { ownedLicence, priceFor } from "./renewal-terms.server";
import { type RenewLinkParameters, verifyRenewLink } from "../licences/renew-links.server";
import type { LicenceSigner } from "../licences/signing.server";

export interface RenewalCheckoutDeps {
  db: Db;
  catalogue: Catalogue;
  config: ShopifyConfig & AdminConfig;
  origin: string;
  fetcher?: typeof fetch;
}

/** Where the member pays by card to move their licence to `plan` (its own: a renewal; a longer one: an upgrade). */
export async function renewalCheckout(
  deps: RenewalCheckoutDeps,
  viewer: Pick<Viewer, "id" | "email">,
  { licenceId, plan }: { licenceId: number; plan: LicencePlan },
  now = Date.now(),
): Promise<Result<{ checkoutUrl: string; cartId: string }>> {
  const licence = await ownedLicence(deps.db, licenceId, viewer.email);
  if (!licence) return fail("not-found", "No such licence on your account");
  const price = await priceFor(deps.catalogue, licence, plan, now);
  if (!price.ok) return price;
  const { offer, quote } = price.value;
  const credit = quote && quote.creditCents > 0 ? { cents: quote.creditCents, label: creditLabel(quote, licence.plan) } : null;
  return createLicenceCheckout(
    { ...deps, admin: deps.config },
    offer.variantId,
    viewer,
    [{ key: RENEWAL_ATTRIBUTE, value: String(licence.id) }],
    credit,
  );
}

/**
 * A one-click renewal link (a reminder's, the program's): if it is the shop's, for this licence and
 * unexpired, the checkout of the plan it names; the owner is signed in by then (the hub's guard
 * asked them first), and only the owner gets a checkout.
 */
export async function checkoutFromLink(
  deps: RenewalCheckoutDeps,
  signer: LicenceSigner | null,
  viewer: Pick<Viewer, "id" | "email">,
  licenceId: number,
  link: RenewLinkParameters,
  now = Date.now(),
): Promise<Result<{ checkoutUrl: string; cartId: string }>> {
  if (!signer) return fail("unavailable", "Renewal links are not available right now: renew below");
  const verified = await verifyRenewLink(signer, licenceId, link, now);
  if (!verified.ok) return verified;
  return renewalCheckout(deps, viewer, { licenceId, plan: verified.value.plan }, now);
}
