// Crypto orders: a member opens one from the product page (pending), pays to the shop's wallet
// and submits the transaction id (submitted); an admin checks the payment and fulfils it with a
// key (complete, through the fulfilment queue) or cancels it. Unpaid orders expire after 24 hours.
import { and, count, desc, eq, gt, isNull, lt, or } from "drizzle-orm";
import type { ChangeCoinInput, CryptoCoin, FulfilCryptoOrderInput, OpenCryptoOrderInput, SubmitPaymentInput } from "~/lib/crypto-orders";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import { assignCode, codeOfUnit, releaseCode } from "../fulfilment/stock.server";
import { randomString } from "../platform/tokens.server";
import { type Db, isUniqueViolation } from "../platform/db/client.server";
import type { JobQueue } from "../platform/job-queue.server";
import type { MailingDeps } from "../platform/mail.server";
import { cryptoOrders, licences, productCodes } from "../platform/db/schema.server";
import { mailCryptoKey } from "../fulfilment/buyer-emails.server";
import { recordSale } from "../fulfilment/licences.server";

export const PENDING_TTL_MS = 24 * 60 * 60 * 1000;
export const MAX_OPEN_ORDERS_PER_MEMBER = 5;

export type CryptoOrder = typeof cryptoOrders.$inferSelect;
export type Wallets = Pick<Env, "CRYPTO_BTC_ADDRESS" | "CRYPTO_LTC_ADDRESS">;

function walletFor(wallets: Wallets, coin: CryptoCoin): string {
  return coin === "BTC" ? wallets.CRYPTO_BTC_ADDRESS : wallets.CRYPTO_LTC_ADDRESS;
}

/** What the buyer may see of an order (no internal ids, no other member's data). */
export function cryptoOrderView(order: CryptoOrder) {
  return {
    orderNumber: order.orderNumber,
    status: order.status,
    coin: order.cryptoType,
    walletAddress: order.walletAddress,
    amountCents: order.amountCents,
    productTitle: order.productTitle,
    variantTitle: order.variantTitle,
    transactionId: order.transactionId,
    productCode: order.status === "complete" ? order.productCode : null,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

/** `CRYPTO-` and twelve characters from the CSPRNG: about 62 bits, not guessable. */
export function newOrderNumber(): string {
  return `CRYPTO-${randomString(12)}`;
}

/**
 * Opens a pending order for the variant at the catalogue's price. Opening the dialog again for the
 * same plan reuses the member's open order instead of piling up new ones.
 */
export async function openCryptoOrder(
  db: Db,
  wallets: Wallets,
  catalogue: Catalogue,
  viewer: Viewer,
  { variantId, coin }: OpenCryptoOrderInput,
  now = Date.now(),
): Promise<Result<CryptoOrder>> {
  const wallet = walletFor(wallets, coin);
  if (!wallet) return fail("unavailable", `${coin} payments are not available right now`);
  const match = (await allVariants(catalogue)).find((v) => v.variant.id === variantId);
  if (!match) return fail("not-found", "This plan is not for sale");
  if (!match.variant.availableForSale) return fail("conflict", "This plan is sold out");

  const open = and(eq(cryptoOrders.userId, viewer.id), eq(cryptoOrders.status, "pending"), isNull(cryptoOrders.transactionId), gt(cryptoOrders.createdAt, now - PENDING_TTL_MS));
  const reusable = await db.select().from(cryptoOrders).where(and(open, eq(cryptoOrders.variantId, variantId))).get();
  if (reusable) {
    const updated = await db
      .update(cryptoOrders)
      .set({ cryptoType: coin, walletAddress: wallet, updatedAt: now })
      .where(and(eq(cryptoOrders.id, reusable.id), eq(cryptoOrders.status, "pending")))
      .returning()
      .get();
    return ok(updated ?? reusable);
  }
  const [openCount] = await db.select({ n: count() }).from(cryptoOrders).where(open);
  if ((openCount?.n ?? 0) >= MAX_OPEN_ORDERS_PER_MEMBER) {
    return fail("rate-limited", "You have too many unpaid crypto orders. Pay or wait for one to expire first.");
  }
  const order = await db
    .insert(cryptoOrders)
    .values({
      id: crypto.randomUUID(),
      orderNumber: newOrderNumber(),
      userId: viewer.id,
      status: "pending",
      productTitle: match.product.title,
      variantTitle: match.variant.title,
      variantId,
      customerEmail: viewer.email,
      amountCents: Math.round(Number(match.variant.price.amount) * 100),
      currency: match.variant.price.currencyCode,
      cryptoType: coin,
      walletAddress: wallet,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  return ok(order);
}

/** The order behind a number, if the viewer may see it: its owner, or an admin. */
export async function findOrderFor(db: Db, viewer: Viewer, orderNumber: string): Promise<Result<CryptoOrder>> {
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderNumber)).get();
  // Someone else's order answers exactly like a missing one.
  if (!order || (order.userId !== viewer.id && !viewer.isAdmin)) return fail("not-found", "No order found with this order number");
  return ok(order);
}

export async function changeCoin(db: Db, wallets: Wallets, viewer: Viewer, { orderNumber, coin }: ChangeCoinInput, now = Date.now()): Promise<Result<CryptoOrder>> {
  const found = await findOrderFor(db, viewer, orderNumber);
  if (!found.ok) return found;
  const wallet = walletFor(wallets, coin);
  if (!wallet) return fail("unavailable", `${coin} payments are not available right now`);
  const updated = await db
    .update(cryptoOrders)
    .set({ cryptoType: coin, walletAddress: wallet, updatedAt: now })
    .where(and(eq(cryptoOrders.id, found.value.id), eq(cryptoOrders.userId, viewer.id), eq(cryptoOrders.status, "pending")))
    .returning()
    .get();
  return updated ? ok(updated) : fail("conflict", "The coin can only be changed before payment is submitted");
}

/** The buyer says they paid: pending -> submitted, with the transaction id. */
export async function submitTransaction(db: Db, viewer: Viewer, { orderNumber, transactionId }: SubmitPaymentInput, now = Date.now()): Promise<Result<CryptoOrder>> {
  const found = await findOrderFor(db, viewer, orderNumber);
  if (!found.ok) return found;
  const tx = transactionId.toLowerCase();
  let updated: CryptoOrder | undefined;
  try {
    updated = await db
      .update(cryptoOrders)
      .set({ status: "submitted", transactionId: tx, updatedAt: now })
      .where(and(eq(cryptoOrders.id, found.value.id), eq(cryptoOrders.userId, viewer.id), eq(cryptoOrders.status, "pending")))
      .returning()
      .get();
  } catch (error) {
    // The unique index on open orders' transaction IDs: one payment cannot pay for two orders.
    // The clash is recorded, so an admin asked "that payment is mine" can see both claims.
    if (!isUniqueViolation(error)) throw error;
    await audit(db, viewer.id, "crypto-order.transaction-clash", found.value.orderNumber, { transactionId: tx });
    return fail("conflict", "This transaction ID was already submitted for another order. If the payment is yours, contact support with your order number.");
  }
  return updated ? ok(updated) : fail("conflict", "Payment for this order was already submitted");
}

export function submittedOrders(db: Db) {
  return db.select().from(cryptoOrders).where(eq(cryptoOrders.status, "submitted")).orderBy(desc(cryptoOrders.createdAt)).limit(200);
}

export function ordersOf(db: Db, userId: string) {
  return db.select().from(cryptoOrders).where(eq(cryptoOrders.userId, userId)).orderBy(desc(cryptoOrders.createdAt)).limit(20);
}

/** The queue message that hands out a crypto order's key: the admin's typed-in one, or the next in stock. */
export interface CryptoOrderJob {
  kind: "crypto-order";
  orderNumber: string;
  code: string | null;
}

/**
 * Whether `code` can no longer be the key of an order for `variantId`: a licence names it (a
 * reseller's key, or one sold before), it was sold, or it is stock of another plan.
 */
async function codeTaken(db: Db, code: string, variantId: string): Promise<boolean> {
  const [licence, stocked] = await Promise.all([
    db.select({ id: licences.id }).from(licences).where(eq(licences.key, code)).get(),
    db.select({ variantId: productCodes.variantId, isUsed: productCodes.isUsed }).from(productCodes).where(eq(productCodes.code, code)).get(),
  ]);
  return Boolean(licence) || (stocked !== undefined && (stocked.isUsed || stocked.variantId !== variantId));
}

const notAwaiting = (order: CryptoOrder) => fail("conflict", `Order ${order.orderNumber} is ${order.status}, not awaiting fulfilment`);

/**
 * Admin: fulfils a submitted order with a typed-in key or the next one in stock. What the admin
 * can still correct is checked now (the order awaits fulfilment, the typed key is free, stock has a
 * key for the plan); the key itself is handed out and e-mailed by the fulfilment queue, the one
 * way keys leave the shop (decision 031). Records who asked.
 */
export async function fulfilCryptoOrder(
  deps: { db: Db; queue: JobQueue<CryptoOrderJob> },
  admin: Viewer,
  input: FulfilCryptoOrderInput,
): Promise<Result<CryptoOrder>> {
  const { db } = deps;
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, input.orderId)).get();
  if (!order) return fail("not-found", "Unknown order");
  if (order.status !== "submitted") return notAwaiting(order);
  if (input.source === "stock") {
    const inStock = await db
      .select({ id: productCodes.id })
      .from(productCodes)
      .where(and(eq(productCodes.variantId, order.variantId), eq(productCodes.isUsed, false)))
      .get();
    if (!inStock) return fail("conflict", `No codes in stock for ${order.productTitle} - ${order.variantTitle}`);
  } else if (await codeTaken(db, input.code, order.variantId)) {
    return fail("conflict", "This code has already been sold", { field: "code" });
  }
  try {
    await deps.queue.send({ kind: "crypto-order", orderNumber: order.orderNumber, code: input.source === "manual" ? input.code : null });
  } catch (error) {
    console.error("Could not queue a crypto order's fulfilment:", error);
    return fail("unavailable", "The fulfilment queue is not available right now; please try again in a moment");
  }
  await audit(db, admin.id, "crypto-order.fulfil", order.orderNumber, { source: input.source });
  return ok(order);
}

/** The one unit a crypto order buys: its key is claimed against it, so it has at most one. */
const unitOf = (order: CryptoOrder) => ({ orderId: order.orderNumber, lineId: "crypto", unitIndex: 0, variantId: order.variantId, email: order.customerEmail });

/**
 * A cancelled order gives back a key claimed for it: stock returns to stock; a typed-in key that
 * was only recorded for this order (written and sold in one step, so never stocked) is forgotten.
 */
async function releaseKeyOf(db: Db, order: CryptoOrder): Promise<void> {
  const key = await codeOfUnit(db, unitOf(order));
  if (key) await releaseCode(db, key.id, order.orderNumber, key.createdAt === key.usedAt);
}

/**
 * The fulfilment queue's half: completes a submitted order with a key (the one named, or the next
 * in stock for its plan), marks that key sold, records its licence and e-mails it. Safe to run
 * twice or after an interrupted run: a unit keeps the key it was given, a completed order only
 * gets what it still lacks (licence, e-mail), a cancelled one gives back any key claimed for it.
 * Throws when the key cannot be handed out now (no stock, the named key is taken), so the queue
 * retries and, in the end, shows the admin why.
 */
export async function settleCryptoOrder(deps: MailingDeps, job: CryptoOrderJob, now = Date.now()): Promise<void> {
  const { db } = deps;
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, job.orderNumber)).get();
  if (!order) throw new Error(`Crypto order ${job.orderNumber} does not exist`);
  const unit = unitOf(order);
  if (order.status === "complete") {
    const key = await codeOfUnit(db, unit);
    if (key) await deliverCryptoKey(deps, order, key, key.usedAt ?? now);
    return;
  }
  if (order.status === "cancelled") return releaseKeyOf(db, order);
  if (order.status !== "submitted") return;

  let key = await codeOfUnit(db, unit);
  try {
    if (key) {
      // An earlier run gave the unit its key; this one finishes the job.
    } else if (job.code === null) {
      const assignment = await assignCode(db, unit, { now });
      if (assignment.kind === "out-of-stock") throw new Error(`No codes in stock for ${order.productTitle} - ${order.variantTitle}`);
      key = assignment.code;
    } else {
      const taken = () => new Error(`The code typed in for order ${order.orderNumber} has already been sold`);
      if (await codeTaken(db, job.code, order.variantId)) throw taken();
      const claim = { isUsed: true, usedAt: now, customerEmail: order.customerEmail, orderId: order.orderNumber, orderLineId: "crypto", unitIndex: 0 };
      // A typed code from stock is marked sold; a code we never stocked is recorded as sold.
      key =
        (await db
          .update(productCodes)
          .set(claim)
          .where(and(eq(productCodes.variantId, order.variantId), eq(productCodes.code, job.code), eq(productCodes.isUsed, false)))
          .returning()
          .get()) ??
        (await db
          .insert(productCodes)
          .values({ variantId: order.variantId, variantTitle: `${order.productTitle} - ${order.variantTitle}`, code: job.code, createdAt: now, ...claim })
          .onConflictDoNothing({ target: productCodes.code })
          .returning()
          .get());
      if (!key) throw taken();
    }
  } catch (error) {
    // The unit's unique index: a run at the same time gave it its key first; this one finishes.
    if (!isUniqueViolation(error)) throw error;
    key = await codeOfUnit(db, unit);
    if (!key) throw error;
  }

  const completed = await db
    .update(cryptoOrders)
    .set({ status: "complete", productCode: key.code, updatedAt: now })
    .where(and(eq(cryptoOrders.id, order.id), eq(cryptoOrders.status, "submitted")))
    .returning()
    .get();
  if (completed) return deliverCryptoKey(deps, completed, key, now);
  // Cancelled while the key was being claimed: the key goes back. (Completed by a run at the same
  // time: that run delivers it.)
  const current = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get();
  if (current?.status === "cancelled") await releaseKeyOf(db, current);
}

/** A completed order's key becomes the buyer's licence and subscription, and is e-mailed (once). */
async function deliverCryptoKey(deps: MailingDeps, order: CryptoOrder, key: { id: number; code: string }, purchasedAt: number) {
  await recordSale(deps.db, { email: order.customerEmail, userId: order.userId }, {
    codeId: key.id,
    code: key.code,
    productTitle: order.productTitle,
    variantTitle: order.variantTitle,
    priceAmount: (order.amountCents / 100).toFixed(2),
    priceCurrency: order.currency,
    purchasedAt,
    orderId: order.orderNumber,
  });
  await mailCryptoKey(deps, order, key.code);
}

export async function cancelCryptoOrder(db: Db, admin: Viewer, orderId: string, now = Date.now()): Promise<Result<CryptoOrder>> {
  const cancelled = await db
    .update(cryptoOrders)
    .set({ status: "cancelled", updatedAt: now })
    .where(and(eq(cryptoOrders.id, orderId), or(eq(cryptoOrders.status, "pending"), eq(cryptoOrders.status, "submitted"))))
    .returning()
    .get();
  if (!cancelled) return fail("conflict", "Only pending or submitted orders can be cancelled");
  // A fulfilment that broke halfway may have claimed a key already.
  await releaseKeyOf(db, cancelled);
  await audit(db, admin.id, "crypto-order.cancel", cancelled.orderNumber);
  return ok(cancelled);
}

/** Cron: pending orders nobody paid within 24 hours are cancelled. */
export async function expireUnpaidCryptoOrders(db: Db, now = Date.now()): Promise<number> {
  const expired = await db
    .update(cryptoOrders)
    .set({ status: "cancelled", updatedAt: now })
    .where(and(eq(cryptoOrders.status, "pending"), isNull(cryptoOrders.transactionId), lt(cryptoOrders.createdAt, now - PENDING_TTL_MS)))
    .returning({ id: cryptoOrders.id });
  return expired.length;
}
