// Crypto orders: a member opens one from the product page (pending), pays to the shop's wallet
// and submits the transaction id (submitted); an admin checks the payment and fulfils it with a
// key (complete) or cancels it. Unpaid orders expire after 24 hours.
import { and, count, desc, eq, gt, isNull, lt, or } from "drizzle-orm";
import * as v from "valibot";
import { isVariantGid } from "~/lib/catalogue";
import { type CryptoCoin, coinSchema, orderNumberSchema, transactionIdSchema } from "~/lib/crypto-orders";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import { assignCode, releaseCode } from "../fulfilment/stock.server";
import { randomString } from "../platform/tokens.server";
import { type Db, isUniqueViolation } from "../platform/db/client.server";
import type { MailingDeps } from "../platform/mail.server";
import { cryptoOrders, productCodes } from "../platform/db/schema.server";
import { mailCryptoKey } from "../fulfilment/buyer-emails.server";
import { subscribeUser } from "../fulfilment/subscriptions.server";

export const PENDING_TTL_MS = 24 * 60 * 60 * 1000;
export const MAX_OPEN_ORDERS_PER_MEMBER = 5;

export type CryptoOrder = typeof cryptoOrders.$inferSelect;
export type Wallets = Pick<Env, "CRYPTO_BTC_ADDRESS" | "CRYPTO_LTC_ADDRESS">;
type Result<T> = { ok: true; value: T } | { ok: false; message: string; status: number };

const fail = (message: string, status = 400) => ({ ok: false as const, message, status });

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

export type CryptoOrderView = ReturnType<typeof cryptoOrderView>;

/** `CRYPTO-` and twelve characters from the CSPRNG: about 62 bits, not guessable. */
export function newOrderNumber(): string {
  return `CRYPTO-${randomString(12)}`;
}

const createSchema = v.object({
  variantId: v.pipe(v.optional(v.string(), ""), v.check(isVariantGid, "Choose a plan first")),
  coin: coinSchema,
});

/**
 * Opens a pending order for the variant at the catalogue's price. Opening the dialog again for the
 * same plan reuses the member's open order instead of piling up new ones.
 */
export async function openCryptoOrder(
  db: Db,
  wallets: Wallets,
  catalogue: Catalogue,
  viewer: Viewer,
  input: unknown,
  now = Date.now(),
): Promise<Result<CryptoOrder>> {
  const parsed = v.safeParse(createSchema, input);
  if (!parsed.success) return fail(parsed.issues[0].message);
  const { variantId, coin } = parsed.output;
  const wallet = walletFor(wallets, coin);
  if (!wallet) return fail(`${coin} payments are not available right now`, 503);
  const match = (await allVariants(catalogue)).find((v) => v.variant.id === variantId);
  if (!match) return fail("This plan is not for sale", 404);
  if (!match.variant.availableForSale) return fail("This plan is sold out", 409);

  const open = and(eq(cryptoOrders.userId, viewer.id), eq(cryptoOrders.status, "pending"), isNull(cryptoOrders.transactionId), gt(cryptoOrders.createdAt, now - PENDING_TTL_MS));
  const reusable = await db.select().from(cryptoOrders).where(and(open, eq(cryptoOrders.variantId, variantId))).get();
  if (reusable) {
    const updated = await db
      .update(cryptoOrders)
      .set({ cryptoType: coin, walletAddress: wallet, updatedAt: now })
      .where(and(eq(cryptoOrders.id, reusable.id), eq(cryptoOrders.status, "pending")))
      .returning()
      .get();
    return { ok: true, value: updated ?? reusable };
  }
  const [openCount] = await db.select({ n: count() }).from(cryptoOrders).where(open);
  if ((openCount?.n ?? 0) >= MAX_OPEN_ORDERS_PER_MEMBER) {
    return fail("You have too many unpaid crypto orders. Pay or wait for one to expire first.", 429);
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
  return { ok: true, value: order };
}

/** The order behind a number, if the viewer may see it: its owner, or an admin. */
export async function findOrderFor(db: Db, viewer: Viewer, orderNumber: unknown): Promise<Result<CryptoOrder>> {
  const parsed = v.safeParse(orderNumberSchema, orderNumber);
  if (!parsed.success) return fail(parsed.issues[0].message);
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, parsed.output)).get();
  // Someone else's order answers exactly like a missing one.
  if (!order || (order.userId !== viewer.id && !viewer.isAdmin)) return fail("No order found with this order number", 404);
  return { ok: true, value: order };
}

export async function changeCoin(db: Db, wallets: Wallets, viewer: Viewer, orderNumber: unknown, coinInput: unknown, now = Date.now()): Promise<Result<CryptoOrder>> {
  const found = await findOrderFor(db, viewer, orderNumber);
  if (!found.ok) return found;
  const coin = v.safeParse(coinSchema, coinInput);
  if (!coin.success) return fail(coin.issues[0].message);
  const wallet = walletFor(wallets, coin.output);
  if (!wallet) return fail(`${coin.output} payments are not available right now`, 503);
  const updated = await db
    .update(cryptoOrders)
    .set({ cryptoType: coin.output, walletAddress: wallet, updatedAt: now })
    .where(and(eq(cryptoOrders.id, found.value.id), eq(cryptoOrders.userId, viewer.id), eq(cryptoOrders.status, "pending")))
    .returning()
    .get();
  return updated ? { ok: true, value: updated } : fail("The coin can only be changed before payment is submitted", 409);
}

/** The buyer says they paid: pending -> submitted, with the transaction id. */
export async function submitTransaction(db: Db, viewer: Viewer, orderNumber: unknown, txInput: unknown, now = Date.now()): Promise<Result<CryptoOrder>> {
  const found = await findOrderFor(db, viewer, orderNumber);
  if (!found.ok) return found;
  const tx = v.safeParse(transactionIdSchema, txInput);
  if (!tx.success) return fail(tx.issues[0].message);
  let updated: CryptoOrder | undefined;
  try {
    updated = await db
      .update(cryptoOrders)
      .set({ status: "submitted", transactionId: tx.output.toLowerCase(), updatedAt: now })
      .where(and(eq(cryptoOrders.id, found.value.id), eq(cryptoOrders.userId, viewer.id), eq(cryptoOrders.status, "pending")))
      .returning()
      .get();
  } catch (error) {
    // The unique index on open orders' transaction IDs: one payment cannot pay for two orders.
    // The clash is recorded, so an admin asked "that payment is mine" can see both claims.
    if (!isUniqueViolation(error)) throw error;
    await audit(db, viewer.id, "crypto-order.transaction-clash", found.value.orderNumber, { transactionId: tx.output.toLowerCase() });
    return fail("This transaction ID was already submitted for another order. If the payment is yours, contact support with your order number.", 409);
  }
  return updated ? { ok: true, value: updated } : fail("Payment for this order was already submitted", 409);
}

export function submittedOrders(db: Db) {
  return db.select().from(cryptoOrders).where(eq(cryptoOrders.status, "submitted")).orderBy(desc(cryptoOrders.createdAt)).limit(200);
}

export function ordersOf(db: Db, userId: string) {
  return db.select().from(cryptoOrders).where(eq(cryptoOrders.userId, userId)).orderBy(desc(cryptoOrders.createdAt)).limit(20);
}

const fulfilSchema = v.object({
  orderId: v.pipe(v.optional(v.string(), ""), v.uuid("Unknown order")),
  code: v.pipe(v.optional(v.string(), ""), v.trim(), v.maxLength(200, "Codes must be at most 200 characters")),
  source: v.optional(v.picklist(["manual", "stock"]), "manual"),
});

/**
 * Admin: completes a submitted order with a key — one typed in, or the next one in stock for the
 * order's plan — marks that key sold, e-mails it and records who did it.
 */
export async function fulfilCryptoOrder(deps: MailingDeps, admin: Viewer, input: unknown, now = Date.now()): Promise<Result<CryptoOrder>> {
  const parsed = v.safeParse(fulfilSchema, input);
  if (!parsed.success) return fail(parsed.issues[0].message);
  const { orderId, code: typed, source } = parsed.output;
  if (source === "manual" && !typed) return fail("Please enter a product code");
  const { db } = deps;
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, orderId)).get();
  if (!order) return fail("Unknown order", 404);
  if (order.status !== "submitted") return fail(`Order ${order.orderNumber} is ${order.status}, not awaiting fulfilment`, 409);

  const unit = { orderId: order.orderNumber, lineId: "crypto", unitIndex: 0, variantId: order.variantId, email: order.customerEmail };
  const claim = { isUsed: true, usedAt: now, customerEmail: order.customerEmail, orderId: order.orderNumber, orderLineId: "crypto", unitIndex: 0 };
  // What this call claimed, so it can be handed back if the order is cancelled meanwhile.
  let key: { id: number; code: string };
  let claimed: "from-stock" | "recorded" | "earlier" = "from-stock";
  try {
    if (source === "stock") {
      const assignment = await assignCode(db, unit, { now });
      if (assignment.kind === "out-of-stock") return fail(`No codes in stock for ${order.productTitle} - ${order.variantTitle}`, 409);
      if (assignment.kind === "existing") claimed = "earlier";
      key = assignment.code;
    } else {
      // A typed code from stock is marked sold; a code we never stocked is recorded as sold.
      const stocked = await db
        .update(productCodes)
        .set(claim)
        .where(and(eq(productCodes.variantId, order.variantId), eq(productCodes.code, typed), eq(productCodes.isUsed, false)))
        .returning({ id: productCodes.id, code: productCodes.code })
        .get();
      if (stocked) key = stocked;
      else {
        const inserted = await db
          .insert(productCodes)
          .values({ variantId: order.variantId, variantTitle: `${order.productTitle} - ${order.variantTitle}`, code: typed, createdAt: now, ...claim })
          .onConflictDoNothing({ target: [productCodes.variantId, productCodes.code] })
          .returning({ id: productCodes.id, code: productCodes.code })
          .get();
        if (!inserted) return fail("This code has already been sold", 409);
        key = inserted;
        claimed = "recorded";
      }
    }
  } catch (error) {
    if (isUniqueViolation(error)) return fail(`Order ${order.orderNumber} was already fulfilled`, 409);
    throw error;
  }

  const completed = await db
    .update(cryptoOrders)
    .set({ status: "complete", productCode: key.code, updatedAt: now })
    .where(and(eq(cryptoOrders.id, order.id), eq(cryptoOrders.status, "submitted")))
    .returning()
    .get();
  if (!completed) {
    // Cancelled while the key was being claimed: the key goes back (a typed-in one is forgotten).
    if (claimed !== "earlier") await releaseCode(db, key.id, order.orderNumber, claimed === "recorded");
    const current = await db.select({ status: cryptoOrders.status }).from(cryptoOrders).where(eq(cryptoOrders.id, order.id)).get();
    return fail(`Order ${order.orderNumber} is ${current?.status ?? "gone"}, not awaiting fulfilment`, 409);
  }

  await subscribeUser(db, order.userId, {
    codeId: key.id,
    productTitle: order.productTitle,
    variantTitle: order.variantTitle,
    priceAmount: (order.amountCents / 100).toFixed(2),
    priceCurrency: order.currency,
    purchasedAt: now,
    orderId: order.orderNumber,
  });
  await mailCryptoKey(deps, order, key.code);
  await audit(db, admin.id, "crypto-order.fulfil", order.orderNumber, { codeId: key.id, source });
  return { ok: true, value: completed };
}

export async function cancelCryptoOrder(db: Db, admin: Viewer, orderId: unknown, now = Date.now()): Promise<Result<CryptoOrder>> {
  const id = v.safeParse(v.pipe(v.string(), v.uuid()), orderId);
  if (!id.success) return fail("Unknown order", 404);
  const cancelled = await db
    .update(cryptoOrders)
    .set({ status: "cancelled", updatedAt: now })
    .where(and(eq(cryptoOrders.id, id.output), or(eq(cryptoOrders.status, "pending"), eq(cryptoOrders.status, "submitted"))))
    .returning()
    .get();
  if (!cancelled) return fail("Only pending or submitted orders can be cancelled", 409);
  await audit(db, admin.id, "crypto-order.cancel", cancelled.orderNumber);
  return { ok: true, value: cancelled };
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
