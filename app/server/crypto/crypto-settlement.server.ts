// Settling a paid crypto order, in the job queue (decisions 031 and 032): a key order's key
// is claimed, recorded and mailed through the key module, the same path as every other sale; a
// top-up is credited through the reseller balance's owner. Each step is repeatable, so a run that
// broke halfway, or two at once, end the same.
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { codeLabel, planOf } from "~/lib/plans";
import { orderKey } from "~/lib/orders";
import { applyRenewal, mailRenewed, noteRenewalRefused } from "../renewals/apply-renewal.server";
import { recordCommission } from "../affiliates/ledger.server";
import { claimCode, claimNamedCode, codeOfUnit, type OrderUnit, releaseUnit } from "../keys/claim.server";
import { mailCryptoKey } from "../keys/key-mail.server";
import { cryptoSale, recordSale } from "../keys/sale.server";
import { checkLowStock } from "../keys/stock-alerts.server";
import type { Db } from "../platform/db/client.server";
import { cryptoOrders } from "../platform/db/schema.server";
import type { JobOf } from "../platform/job-registry.server";
import type { MailingDeps } from "../platform/mail.server";
import { type CryptoOrder, SETTLEABLE } from "./crypto-orders.server";
import { creditTopUp } from "../resellers/reseller-balance.server";

/** The one unit a crypto order buys: its key is claimed against it, so it has at most one. */
export const cryptoUnit = (order: CryptoOrder): OrderUnit => ({
  orderId: order.orderNumber,
  lineId: "crypto",
  unitIndex: 0,
  variantId: order.variantId,
  email: order.customerEmail,
});

/**
 * The job queue's half: completes a paid order. A key order gets a key (the one named, or
 * the next in stock for its plan), marked sold, recorded as the buyer's licence and e-mailed; a
 * top-up is credited to the reseller balance. Safe to run twice or after an interrupted run: a
 * unit keeps the key it was given, a top-up is credited once (its ledger entry is unique), a
 * completed order only gets what it still lacks (licence, e-mail), a cancelled one gives back any
 * key claimed for it. Throws when the key cannot be handed out now (no stock, the named key is
 * taken), so the queue retries and, in the end, shows the admin why.
 */
export async function settleCryptoOrder(deps: MailingDeps, job: JobOf<"crypto-order">, now = Date.now()): Promise<void> {
  const { db } = deps;
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, job.orderNumber)).get();
  if (!order) throw new Error(`Crypto order ${job.orderNumber} does not exist`);
  if (order.purpose === "top-up") return settleTopUp(db, order, now);
  const unit = cryptoUnit(order);
  if (order.status === "complete") {
    const key = await codeOfUnit(db, unit);
    if (key) await deliverCryptoKey(deps, order, key, key.usedAt ?? now);
    else if (order.renewsLicenceId !== null) await settleRenewal(deps, order, now);
    return;
  }
  if (order.status === "cancelled") return releaseUnit(db, unit);
  if (order.paidAt === null) return;

  // An earlier run may have given the unit its key; then this one finishes the job.
  let key = await codeOfUnit(db, unit);
  // An order that names a licence extends it instead (decision 090), unless the admin typed a key
  // for it or the licence can no longer take it: then it gets a key like any order.
  if (!key && job.code === null && order.renewsLicenceId !== null && (await settleRenewal(deps, order, now))) return;
  if (!key) {
    const claimed =
      job.code === null
        ? await claimCode(db, unit, { now })
        : await claimNamedCode(db, unit, { code: job.code, variantTitle: codeLabel(order.productTitle, order.variantTitle) }, now);
    if (claimed.kind === "out-of-stock") throw new Error(`No codes in stock for ${order.productTitle} - ${order.variantTitle}`);
    if (claimed.kind === "taken") throw new Error(`The code typed in for order ${order.orderNumber} has already been sold`);
    key = claimed.code;
  }

  const completed = await completeOrder(db, order, key.code, now);
  if (completed) {
    await checkLowStock(deps, { id: order.variantId, title: `${order.productTitle} - ${order.variantTitle}` }, now);
    return deliverCryptoKey(deps, completed, key, now);
  }
  // Cancelled while the key was being claimed: the key goes back. (Completed by a run at the same
  // time: that run delivers it.)
  const current = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get();
  if (current?.status === "cancelled") await releaseUnit(db, cryptoUnit(current));
}

/**
 * A paid order that names a licence extends it (once: the order's number is the claim), completes,
 * earns its affiliate's commission and tells the buyer until when. False when the licence cannot
 * take it: the reason is recorded on the order, and the caller hands out a key instead.
 */
async function settleRenewal(deps: MailingDeps, order: CryptoOrder, now: number): Promise<boolean> {
  const { db } = deps;
  const key = orderKey("crypto", order.orderNumber);
  const renewed = await applyRenewal(db, {
    claimKey: key,
    licenceId: order.renewsLicenceId!,
    payer: order.customerEmail,
    paid: { product: order.productTitle, plan: planOf(order.variantTitle), variantTitle: order.variantTitle },
    method: order.cryptoType,
    orderKey: key,
    priceCents: order.amountCents,
    currency: order.currency,
    paidAt: order.paidAt ?? now,
  });
  if (!renewed.ok) {
    await noteRenewalRefused(db, key, order.renewsLicenceId!, renewed.problem.message);
    return false;
  }
  if (order.status !== "complete") await completeOrder(db, order, null, now);
  const paid = {
    orderKey: key,
    paidCents: order.amountCents,
    currency: order.currency,
    buyer: { id: order.userId, email: order.customerEmail },
  };
  await recordCommission(db, order.referredBy ? { id: order.referredBy } : null, { ...paid, paidAt: order.paidAt ?? now });
  await mailRenewed(deps, renewed.value.row, key);
  return true;
}

/** paid -> complete, once: only from a state a paid order can be in. */
function completeOrder(db: Db, order: CryptoOrder, productCode: string | null, now: number) {
  return db
    .update(cryptoOrders)
    .set({ status: "complete", productCode, updatedAt: now })
    .where(and(eq(cryptoOrders.id, order.id), inArray(cryptoOrders.status, SETTLEABLE), isNotNull(cryptoOrders.paidAt)))
    .returning()
    .get();
}

/** A paid top-up is credited to the buyer's reseller balance (once, whoever runs it), and the order completes. */
async function settleTopUp(db: Db, order: CryptoOrder, now: number): Promise<void> {
  if (order.paidAt === null || order.status === "cancelled") return;
  await creditTopUp(db, order, now);
  if (order.status !== "complete") await completeOrder(db, order, null, now);
}

/**
 * A completed order's key becomes the buyer's licence and subscription, and is e-mailed (once); the
 * affiliate who referred it earns their commission on what was paid (once).
 */
async function deliverCryptoKey(deps: MailingDeps, order: CryptoOrder, key: { id: number; code: string }, purchasedAt: number) {
  await recordSale(deps.db, { email: order.customerEmail, userId: order.userId }, cryptoSale(order, key, purchasedAt));
  const buyer = { id: order.userId, email: order.customerEmail };
  const paid = {
    orderKey: `crypto:${order.orderNumber}`,
    paidCents: order.amountCents,
    currency: order.currency,
    buyer,
    paidAt: order.paidAt ?? purchasedAt,
  };
  await recordCommission(deps.db, order.referredBy ? { id: order.referredBy } : null, paid);
  await mailCryptoKey(deps, order, key.code);
}
