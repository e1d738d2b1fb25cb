// Renewals paid from a balance (decisions 090 and 091): a member renews (or upgrades) their licence
// from their reseller balance, topped up from their available affiliate commission when it is short;
// a reseller extends a key they sold at their reseller price; and auto-renewal does the same a day
// before a licence ends. The money and the extension are one D1 transaction, and a payment is taken
// once per request (a form's one-time id) or, for auto-renewal, once per expiry: a doubled cron
// finds the claim taken and moves nothing.
import { and, eq, gt, isNull, lte, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { formatDate, formatUsd } from "~/lib/format";
import { maskKey } from "~/lib/licences";
import { type LicencePlan, PLAN_DURATION_MS } from "~/lib/plans";
import { AUTO_RENEW_BEFORE_MS } from "~/lib/renewals";
import { fail, ok, type Result } from "~/lib/result";
import { discounted } from "~/lib/schemas/reseller";
import type { Viewer } from "~/lib/viewer";
import type { Catalogue } from "../catalogue/catalogue.server";
import { renewalByClaim, type RenewalRow } from "../licences/licence-renewals.server";
import type { Db } from "../platform/db/client.server";
import { bound, builtOnce, read } from "../platform/db/reads.server";
import { autoRenewals, licences, resellerAccounts } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import {
  commissionToBalance,
  openBalance,
  payFromBalance,
  purchaseIdOf,
  renewalReference,
  spendableOf,
} from "../resellers/reseller-balance.server";
import { applyRenewal, mailRenewed } from "./apply-renewal.server";
import { type LicenceRow, ownedLicence, priceFor } from "./renewal-terms.server";

/** Who pays from their balance: the account, its address (the licence's owner) and its reseller discount for keys they sold. */
type Payer = Pick<Viewer, "id" | "email">;

export interface BalanceRenewal {
  licenceId: number;
  plan: LicencePlan;
  /** What pays once: the form's one-time id, or for auto-renewal the licence's expiry. */
  claimKey: string;
  auto?: boolean;
}

/** What it costs the payer: the plan's price (an upgrade's quote), at their reseller price for a key they bought as a reseller. */
async function costFor(db: Db, catalogue: Catalogue, payer: Payer, licence: LicenceRow, plan: LicencePlan, now: number) {
  const price = await priceFor(catalogue, licence, plan, now);
  if (!price.ok) return price;
  if (price.value.offer.currency !== "USD") return fail("unavailable", "Balances pay only for plans priced in US dollars");
  const account = licence.resellerKeyId
    ? await db.select({ rate: resellerAccounts.discountRate }).from(resellerAccounts).where(eq(resellerAccounts.userId, payer.id)).get()
    : undefined;
  return ok({ ...price.value, cents: account ? discounted(price.value.priceCents, account.rate) : price.value.priceCents });
}

/**
 * Renews (or upgrades) the payer's licence from their balance: the reseller balance, and the
 * affiliate commission they may withdraw for what it lacks. Refused, moving nothing, when both
 * together fall short; a repeated request (the same claim) is answered with what it did before.
 */
export async function renewFromBalance(
  deps: MailingDeps,
  catalogue: Catalogue,
  payer: Payer,
  renewal: BalanceRenewal,
  now = Date.now(),
): Promise<Result<{ row: RenewalRow; cents: number; fresh: boolean }>> {
  const { db } = deps;
  const licence = await ownedLicence(db, renewal.licenceId, payer.email);
  if (!licence) return fail("not-found", "No such licence on your account");
  // The same request again (a double click, a retried form, a second cron): what it did the first time.
  const done = await renewalByClaim(db, renewal.claimKey);
  if (done) return ok({ row: done, cents: done.priceCents, fresh: false });
  const cost = await costFor(db, catalogue, payer, licence, renewal.plan, now);
  if (!cost.ok) return cost;
  const { cents, offer } = cost.value;
  await openBalance(db, payer.id, now);
  const { balanceCents, commissionCents } = await spendableOf(db, payer.id, now);
  const shortfall = Math.max(0, cents - balanceCents);
  if (shortfall > commissionCents) {
    const have = formatUsd(balanceCents + commissionCents);
    return fail("conflict", `Insufficient balance: this costs ${formatUsd(cents)}, and you have ${have}.`, { field: "balance" });
  }
  const reference = renewalReference(renewal.claimKey);
  const renewed = await applyRenewal(
    db,
    {
      claimKey: renewal.claimKey,
      licenceId: licence.id,
      payer: payer.email,
      paid: { product: offer.productTitle, plan: offer.plan, variantTitle: offer.variantTitle },
      method: "balance",
      auto: renewal.auto,
      orderKey: sql<string>`'reseller:' || ${purchaseIdOf(reference)}`,
      priceCents: cents,
      currency: "USD",
      paidAt: now,
    },
    (ours) => {
      const payment = payFromBalance(db, payer.id, cents, reference, ours, now);
      // What the reseller balance lacks comes from available commission, withdrawn into it first.
      const topUp = shortfall > 0 ? commissionToBalance(db, payer.id, shortfall, `${reference}:commission`, now, ours) : [];
      return { statements: [...topUp, ...payment.statements], paid: payment.paid };
    },
  );
  if (!renewed.ok)
    return fail("conflict", "Your balance changed meanwhile and no longer covers it: nothing was taken.", { field: "balance" });
  if (renewed.value.fresh) await mailRenewed(deps, renewed.value.row);
  return ok({ ...renewed.value, cents });
}

/**
 * A reseller extends a key they sold by its own plan's term, from their balance at their reseller
 * price (decision 090): the key's licence is theirs, so the balance path's owner rule holds.
 */
export async function extendSoldKey(
  deps: MailingDeps,
  catalogue: Catalogue,
  reseller: Payer,
  licenceId: number,
  request: string,
  now = Date.now(),
): Promise<Result<{ row: RenewalRow; cents: number; fresh: boolean }>> {
  const licence = await ownedLicence(deps.db, licenceId, reseller.email);
  if (!licence?.resellerKeyId) return fail("not-found", "No such key in your panel");
  return renewFromBalance(deps, catalogue, reseller, { licenceId, plan: licence.plan, claimKey: `balance:${request}:${licenceId}` }, now);
}

/** Turns auto-renewal of the member's licence on or off. On needs a balance (reseller or commission) to pay from. */
export async function setAutoRenew(
  db: Db,
  viewer: Viewer,
  licenceId: number,
  on: boolean,
  now = Date.now(),
): Promise<Result<{ on: boolean }>> {
  const licence = await ownedLicence(db, licenceId, viewer.email);
  if (!licence) return fail("not-found", "No such licence on your account");
  if (!on) {
    await db.delete(autoRenewals).where(and(eq(autoRenewals.licenceId, licence.id), eq(autoRenewals.userId, viewer.id)));
    return ok({ on });
  }
  if (PLAN_DURATION_MS[licence.plan] === null) return fail("conflict", "A lifetime licence never ends: there is nothing to renew");
  if (licence.revokedAt !== null || licence.bannedAt !== null)
    return fail("conflict", "This licence no longer works: it cannot be renewed");
  const { balanceCents, commissionCents } = await spendableOf(db, viewer.id, now);
  if (balanceCents + commissionCents <= 0)
    return fail("conflict", "Auto-renew pays from your reseller or commission balance: top it up first.");
  await db
    .insert(autoRenewals)
    .values({ licenceId: licence.id, userId: viewer.id, createdAt: now })
    .onConflictDoUpdate({ target: autoRenewals.licenceId, set: { userId: viewer.id } });
  return ok({ on });
}

/** Which of the member's licences renew automatically, as a read the page sends with its others in one batch. */
const autoRenewedQuery = builtOnce((db) =>
  db
    .select({ id: autoRenewals.licenceId })
    .from(autoRenewals)
    .where(eq(autoRenewals.userId, sql.placeholder("userId")))
    .prepare(),
);

export function autoRenewedRead(db: Db, userId: string) {
  return read([bound(autoRenewedQuery(db), { userId })], ([rows]) => new Set(rows.map((row) => row.id)));
}

/** At most this many auto-renewals per cron run; the next run takes the rest. */
const AUTO_RENEWALS_PER_RUN = 100;

/**
 * The cron: every licence with auto-renewal on that ends within a day is renewed from its owner's
 * balance, once per expiry (the claim names it, so a doubled cron pays once). A balance that falls
 * short is not touched: the owner gets one e-mail saying so, for that expiry.
 */
export async function runAutoRenewals(
  deps: MailingDeps,
  catalogue: Catalogue,
  now = Date.now(),
): Promise<{ renewed: number; refused: number }> {
  const { db } = deps;
  const due = await db
    .select({ licence: licences, userId: autoRenewals.userId })
    .from(autoRenewals)
    .innerJoin(licences, eq(licences.id, autoRenewals.licenceId))
    .where(
      and(
        isNull(licences.revokedAt),
        isNull(licences.bannedAt),
        isNull(licences.pausedAt),
        gt(licences.expiresAt, now),
        lte(licences.expiresAt, now + AUTO_RENEW_BEFORE_MS),
      ),
    )
    .limit(AUTO_RENEWALS_PER_RUN);
  let renewed = 0;
  let refused = 0;
  for (const { licence, userId } of due) {
    const owner = { id: userId, email: licence.ownerEmail };
    const claimKey = `auto:${licence.id}:${licence.expiresAt}`;
    const result = await renewFromBalance(deps, catalogue, owner, { licenceId: licence.id, plan: licence.plan, claimKey, auto: true }, now);
    if (result.ok) {
      if (result.value.fresh) renewed++;
      continue;
    }
    refused++;
    await mailAutoRenewRefused(deps, licence, result.problem.message);
  }
  return { renewed, refused };
}

/** The owner hears that auto-renewal could not pay, once per expiry. */
async function mailAutoRenewRefused(deps: MailingDeps, licence: LicenceRow, why: string): Promise<void> {
  const ends = formatDate(licence.expiresAt!);
  const text = [
    `Auto-renew could not renew your ${licence.product} licence ${maskKey(licence.key)}, which ends on ${ends} (UTC).`,
    why,
    "Top up your balance, or renew it by card or crypto from your dashboard's Subscriptions page, before it ends.",
  ];
  await sendMail(
    deps,
    {
      to: licence.ownerEmail,
      subject: `Your ${BRAND} licence could not be renewed automatically`,
      text: text.join("\n\n"),
      html: text.map((line) => `<p>${escapeHtml(line)}</p>`).join(""),
      dedupeKey: `auto-renew-refused:${licence.id}:${licence.expiresAt}`,
    },
    { later: true },
  );
}
