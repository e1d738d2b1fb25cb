// What staff do to an order from its page: reveal a key (audited), send the working keys again,
// revoke a key, replace one from stock, cancel a crypto order, and hand out a key by hand (a
// manual order). Each change is one conditional statement or one D1 batch, so two people clicking
// at once cannot both win, and each is audited under the order's key ("<source>:<reference>").
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { orderKey, type OrderRow } from "~/lib/orders";
import { fail, ok, type Result } from "~/lib/result";
import type { ManualOrderInput } from "~/lib/schemas/orders";
import type { Viewer } from "~/lib/viewer";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import { claimForManualOrder, claimReplacement, type DecisionTaken } from "../keys/claim.server";
import { type MailedKey, mailKeys, mailKeysStopped } from "../keys/key-mail.server";
import { revokeOneKey } from "../keys/revoke.server";
import { keysFollowAddress, manualSale, recordSale, replacementSale } from "../keys/sale.server";
import { checkLowStock } from "../keys/stock-alerts.server";
import { claimSubscriptions } from "../licences/subscriptions.server";
import { cancelCryptoOrder } from "../crypto/crypto-review.server";
import { audit, lastAuditedAt } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { backorders, cryptoOrders, manualOrders, shopifyOrders, users } from "../platform/db/schema.server";
import type { MailingDeps } from "../platform/mail.server";
import { codeOrderId } from "./order-list.server";
import { keysOfOrder, type OrderKey } from "./order-page.server";

/** Who acts, and from where (for the audit log). */
export interface Actor {
  viewer: Viewer;
  ip: string | null;
}

const mailedOrder = (order: OrderRow) => ({ to: order.email, name: order.number, orderKey: order.key });

async function keyOf(db: Db, order: OrderRow, ref: string): Promise<Result<OrderKey>> {
  const key = (await keysOfOrder(db, order)).find((k) => k.ref === ref);
  return key ? ok(key) : fail("not-found", "This order has no such key");
}

/** The whole key, for the one person who asked; the reveal is audited. */
export async function revealKey(db: Db, actor: Actor, order: OrderRow, ref: string): Promise<Result<{ ref: string; key: string }>> {
  const found = await keyOf(db, order, ref);
  if (!found.ok) return found;
  await audit(db, actor.viewer.id, "order.reveal-key", order.key, { codeId: found.value.codeId ?? ref }, actor.ip);
  return ok({ ref, key: found.value.key });
}

const RESEND_INTERVAL_MS = 60_000;

/** The order's working keys, e-mailed to the buyer again (a new message each time, at most one a minute). */
export async function resendKeys(deps: MailingDeps, actor: Actor, order: OrderRow, now = Date.now()): Promise<Result<{ count: number }>> {
  // Staff cannot flood a buyer's inbox: one resend of an order a minute, whoever asks.
  const last = await lastAuditedAt(deps.db, "order.resend", { subject: order.key }, now - RESEND_INTERVAL_MS);
  if (last !== undefined)
    return fail("rate-limited", "The keys were sent again less than a minute ago", {
      retryAfterSeconds: Math.max(1, Math.ceil((last + RESEND_INTERVAL_MS - now) / 1000)),
    });
  const working = (await keysOfOrder(deps.db, order)).filter((k) => k.revokedAt === null && k.licence?.revokedAt == null);
  if (working.length === 0) return fail("conflict", `Order ${order.number} has no working keys to send`);
  const keys: MailedKey[] = working.map((k) => ({ variantTitle: k.variantTitle, code: k.key }));
  await mailKeys(deps, mailedOrder(order), keys, "resend", `resend:${order.key}:${crypto.randomUUID()}`);
  await audit(deps.db, actor.viewer.id, "order.resend", order.key, { keys: working.length }, actor.ip);
  return ok({ count: working.length });
}

/**
 * An order whose key e-mail could not be delivered: staff correct the buyer's address (after
 * hearing from the buyer) and the working keys go to it. The keys follow the address: the order,
 * its keys, their licences and its waiting units name the corrected one, so its account can claim
 * them. Only while the order is flagged, so a working address is never redirected; audited.
 */
export async function correctBuyerEmail(
  deps: MailingDeps,
  actor: Actor,
  order: OrderRow,
  email: string,
  now = Date.now(),
): Promise<Result<{ count: number }>> {
  const { db } = deps;
  if (order.source !== "shopify") return fail("conflict", "Only a card order's address is corrected here");
  if (email === order.email.toLowerCase()) return fail("invalid", "That is the address the e-mail failed to reach", { field: "email" });
  if (!order.undelivered)
    return fail("conflict", `The e-mail to ${order.email || "the buyer"} was not refused: there is nothing to correct`);
  // An address an account has proven is its owner's: their keys are not moved away from it.
  const proven = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.email}) = lower(${order.email})`, isNotNull(users.emailVerifiedAt)))
    .get();
  if (proven) return fail("conflict", `${order.email} belongs to a verified member's account: its keys stay with that account`);
  await db.batch([
    db.update(shopifyOrders).set({ email }).where(eq(shopifyOrders.id, order.reference)),
    ...keysFollowAddress(db, order.reference, email),
    db
      .update(backorders)
      .set({ customerEmail: email })
      .where(and(eq(backorders.orderId, order.reference), isNull(backorders.filledAt))),
  ]);
  await audit(db, actor.viewer.id, "order.correct-email", order.key, { from: order.email, to: email }, actor.ip);
  // The corrected address's account (if it proved the address) now holds the keys.
  const owner = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.email}) = ${email}`, isNotNull(users.emailVerifiedAt)))
    .get();
  if (owner) await claimSubscriptions(db, owner.id, email);
  const resent = await resendKeys(deps, actor, { ...order, email }, now);
  return resent.ok ? resent : ok({ count: 0 });
}

/** A key stops working (its licence answers REVOKED); the buyer is told which key, and why. */
export async function revokeKey(
  deps: MailingDeps,
  actor: Actor,
  order: OrderRow,
  ref: string,
  reason: string,
  now = Date.now(),
): Promise<Result<{ variantTitle: string }>> {
  const { db } = deps;
  const found = await keyOf(db, order, ref);
  if (!found.ok) return found;
  const key = found.value;
  const done = await revokeOneKey(db, key, codeOrderId(order.source, order.reference), now);
  if (!done) return fail("conflict", "This key is already revoked");
  await audit(db, actor.viewer.id, "order.revoke-key", order.key, { codeId: key.codeId ?? ref, reason }, actor.ip);
  await mailKeysStopped(
    deps,
    mailedOrder(order),
    [{ variantTitle: key.variantTitle, code: key.key }],
    reason,
    `keys-stopped:revoke:${order.key}:${ref}`,
  );
  return ok({ variantTitle: key.variantTitle });
}

/**
 * Replaces a key: a fresh code of the same variant as a new unit of the same order line, and the
 * old key revoked, in one transaction (`claimReplacement`: with no stock nothing changes, and of
 * two replaces of the same key only one succeeds). The new key is sold on the old one's line and
 * mailed. A staff `decision` the replacement carries out is won in the same transaction.
 */
export async function replaceKey(
  deps: MailingDeps,
  actor: Actor,
  order: OrderRow,
  ref: string,
  reason: string,
  now = Date.now(),
  decision?: DecisionTaken,
): Promise<Result<{ variantTitle: string }>> {
  const { db } = deps;
  const found = await keyOf(db, order, ref);
  if (!found.ok) return found;
  const orderId = codeOrderId(order.source, order.reference);
  if (found.value.codeId === null || orderId === null) return fail("conflict", "A reseller's key can be revoked, not replaced");
  if (order.state === "cancelled") return fail("conflict", `Order ${order.number} is cancelled`);
  const replaced = await claimReplacement(db, orderId, found.value.codeId, now, decision);
  if (!replaced.ok) return replaced;
  const { old, fresh } = replaced.value;
  // The keys have moved: the new key's licence and its e-mail come first, so that nothing after
  // them (the stock alert) can leave the member with a revoked key and no working one.
  const { sale, userId } = await replacementSale(db, order, old, fresh, now);
  await recordSale(db, { email: old.customerEmail ?? order.email, userId }, sale);
  // Marked as mailed with the message: a later order body must not mail it again as a new key.
  await mailKeys(
    deps,
    mailedOrder(order),
    [{ id: fresh.id, variantTitle: fresh.variantTitle, code: fresh.code }],
    "replacement",
    `replacement:${fresh.id}`,
  );
  await audit(db, actor.viewer.id, "order.replace-key", order.key, { codeId: old.id, newCodeId: fresh.id, reason }, actor.ip);
  await checkLowStock(deps, { id: old.variantId, title: old.variantTitle }, now).catch((error: unknown) =>
    console.error(`Low-stock check after replacing a key of ${order.key} failed:`, error),
  );
  return ok({ variantTitle: old.variantTitle });
}

/** Cancels a crypto order that is not complete, as the page showed it (the payments domain's rule), audited under the order. */
export async function cancelOrderFromPage(db: Db, actor: Actor, order: OrderRow, input: { reason: string; seen: number }): Promise<Result> {
  if (order.source !== "crypto") return fail("conflict", "Only crypto orders are cancelled here; Shopify orders are cancelled in Shopify");
  const row = await db.select({ id: cryptoOrders.id }).from(cryptoOrders).where(eq(cryptoOrders.orderNumber, order.reference)).get();
  if (!row) return fail("not-found", "No such order");
  const cancelled = await cancelCryptoOrder(db, actor.viewer, row.id, { reason: input.reason, seen: input.seen, ip: actor.ip });
  return cancelled.ok ? ok() : cancelled;
}

/**
 * A key handed out by hand: a manual order ("M-<id>") and the oldest code in stock of the variant,
 * in one transaction (the order is taken back in the same transaction when there is no stock). The
 * key becomes the buyer's licence and subscription and is e-mailed.
 */
export async function createManualOrder(
  deps: MailingDeps,
  catalogue: Catalogue,
  actor: Actor,
  input: ManualOrderInput,
  now = Date.now(),
): Promise<Result<{ reference: string }>> {
  const { db } = deps;
  const variant = (await allVariants(catalogue)).find((v) => v.variant.id === input.variantId);
  if (!variant) return fail("invalid", "Please choose a variant", { field: "variantId" });
  const claimed = await claimForManualOrder(
    db,
    { email: input.email, variantId: variant.variant.id, variantTitle: variant.title, reason: input.reason, createdBy: actor.viewer.id },
    now,
  );
  if (!claimed) return fail("conflict", `No ${variant.title} codes in stock`);
  const { order, code } = claimed;
  await checkLowStock(deps, { id: variant.variant.id, title: variant.title }, now);
  const orderId = `M-${order.id}`;
  const sale = manualSale(
    { orderId, productTitle: variant.product.title, variantTitle: variant.variant.title, currency: "USD" },
    code,
    now,
  );
  await recordSale(db, { email: input.email, userId: order.userId ?? undefined }, sale);
  const key = orderKey("admin", order.id);
  await audit(
    db,
    actor.viewer.id,
    "order.manual",
    key,
    { email: input.email, variantId: variant.variant.id, codeId: code.id, reason: input.reason },
    actor.ip,
  );
  await mailKeys(
    deps,
    { to: input.email, name: orderId, orderKey: key },
    [{ variantTitle: code.variantTitle, code: code.code }],
    "manual",
    `manual-key:${order.id}`,
  );
  return ok({ reference: String(order.id) });
}

/**
 * A deleted account's card and hand-made orders and its backorders, for the deletion's batch
 * (decision 099): kept for accounting, with the account's pseudonym where the address was.
 */
export const ordersOfDeletedAccount = (db: Db, account: { userId: string; email: string; pseudonym: string }) =>
  [
    db
      .update(shopifyOrders)
      .set({ email: account.pseudonym })
      .where(sql`lower(${shopifyOrders.email}) = lower(${account.email})`),
    db
      .update(backorders)
      .set({ customerEmail: account.pseudonym })
      .where(sql`lower(${backorders.customerEmail}) = lower(${account.email})`),
    db
      .update(manualOrders)
      .set({ email: account.pseudonym })
      .where(sql`${manualOrders.userId} = ${account.userId} or lower(${manualOrders.email}) = lower(${account.email})`),
  ] as const;
