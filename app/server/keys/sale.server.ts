// A key handed out is a sale: its licence (once) and, when the buyer has an account, their
// subscription. What each way of paying records of a sale is built here, once: a card order's
// line, a crypto order, a manual order, a replacement (the sale of the key it replaces), and the
// keys a reseller buys, made here with their licences. Checking, activating, resetting and
// banning licences is the licences domain's job.
import { eq, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { OrderRow } from "~/lib/orders";
import { planOf } from "~/lib/plans";
import type { KeyType } from "~/lib/schemas/reseller";
import { chunksOf, type Db, refusedBy } from "../platform/db/client.server";
import { cryptoOrders, licences, manualOrders, productCodes, resellerKeys, shopifyOrders } from "../platform/db/schema.server";
import { randomString } from "../platform/tokens.server";
import { type OrderLine, storedLine } from "../platform/db/stored-orders.server";
import { type SubscriptionSource, subscribeBuyer, subscribeUser, subscriptionSource } from "../licences/subscriptions.server";
import { licencesFollowAddress, recordLicence, resellerLicences } from "../licences/licence-records.server";
import { emitLicenceEvent } from "../licences/licence-events.server";

/** A stocked code sold to a buyer: what its licence and subscription record. */
export interface Sale extends SubscriptionSource {
  code: string;
  /** The key this one replaces: its licence's entitlements carry over, whatever the plan includes now. */
  replacesCodeId?: number;
}

type SoldCode = { id: number; code: string };

/** What an order line's unit sold: the key, and the line it was sold on. */
export function saleOf(order: { id: string; currency: string }, line: OrderLine, code: SoldCode, soldAt: number): Sale {
  return { ...subscriptionSource(order, line, code.id, soldAt), code: code.code };
}

/** What a crypto order's key sold: the plan it was opened for, at the price it was quoted. */
export function cryptoSale(
  order: Pick<typeof cryptoOrders.$inferSelect, "orderNumber" | "productTitle" | "variantTitle" | "amountCents" | "currency">,
  code: SoldCode,
  soldAt: number,
): Sale {
  return {
    codeId: code.id,
    code: code.code,
    productTitle: order.productTitle,
    variantTitle: order.variantTitle,
    priceAmount: (order.amountCents / 100).toFixed(2),
    priceCurrency: order.currency,
    purchasedAt: soldAt,
    orderId: order.orderNumber,
  };
}

/** What a key handed out by hand sold: the plan, for nothing. */
export function manualSale(
  order: { orderId: string; productTitle: string; variantTitle: string; currency: string },
  code: SoldCode,
  soldAt: number,
): Sale {
  const { orderId, productTitle, variantTitle, currency } = order;
  return {
    codeId: code.id,
    code: code.code,
    productTitle,
    variantTitle,
    priceAmount: "0.00",
    priceCurrency: currency,
    purchasedAt: soldAt,
    orderId,
  };
}

/** What the new key of a replacement records as its sale: the line the old key was sold on, and the account it went to. */
export async function replacementSale(
  db: Db,
  order: Pick<OrderRow, "source" | "reference" | "currency">,
  old: typeof productCodes.$inferSelect,
  code: SoldCode,
  now: number,
): Promise<{ sale: Sale; userId?: string }> {
  const { sale, userId } = await replacementSaleOf(db, order, old, code, now);
  return { sale: { ...sale, replacesCodeId: old.id }, userId };
}

async function replacementSaleOf(
  db: Db,
  order: Pick<OrderRow, "source" | "reference" | "currency">,
  old: typeof productCodes.$inferSelect,
  code: SoldCode,
  now: number,
): Promise<{ sale: Sale; userId?: string }> {
  const orderId = old.orderId!;
  if (order.source === "shopify") {
    const stored = await db.select().from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get();
    const line = stored ? storedLine(stored, old.orderLineId) : undefined;
    if (stored && line) return { sale: saleOf(stored, line, code, now) };
  }
  if (order.source === "crypto") {
    const c = await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderId)).get();
    if (c) return { sale: cryptoSale(c, code, now), userId: c.userId };
  }
  // A manual order (or a line no longer stored): the old key's licence names the product.
  const licence = await db.select({ product: licences.product }).from(licences).where(eq(licences.productCodeId, old.id)).get();
  const product = licence?.product ?? old.variantTitle;
  const variantTitle = old.variantTitle.startsWith(`${product} - `) ? old.variantTitle.slice(product.length + 3) : old.variantTitle;
  const manual =
    order.source === "admin"
      ? await db
          .select({ userId: manualOrders.userId })
          .from(manualOrders)
          .where(eq(manualOrders.id, Number(order.reference)))
          .get()
      : undefined;
  return {
    sale: manualSale({ orderId, productTitle: product, variantTitle, currency: order.currency }, code, now),
    userId: manual?.userId ?? undefined,
  };
}

/**
 * Records a sold key: its licence (once, whoever asks again) and, when the buyer has an account,
 * their subscription. `userId` names the account when the order was placed signed in; otherwise
 * the e-mail's verified account gets it (or claims it on verification).
 */
export async function recordSale(db: Db, buyer: { email: string; userId?: string }, sale: Sale): Promise<void> {
  const [created] = await recordLicence(db, {
    key: sale.code,
    product: sale.productTitle,
    plan: planOf(sale.variantTitle),
    ownerEmail: buyer.email,
    codeId: sale.codeId,
    orderId: sale.orderId,
    soldAt: sale.purchasedAt,
    replacesCodeId: sale.replacesCodeId,
  }).returning();
  if (created) await emitLicenceEvent(db, "licence.created", created, created.createdAt);
  if (buyer.userId) await subscribeUser(db, buyer.userId, sale);
  else await subscribeBuyer(db, buyer.email, sale);
}

/**
 * Staff corrected an order's address: its keys and their licences name the new one (statements for
 * the correction's batch, beside the order and its waiting units).
 */
export const keysFollowAddress = (db: Db, orderId: string, email: string) =>
  [
    db.update(productCodes).set({ customerEmail: email }).where(eq(productCodes.orderId, orderId)),
    licencesFollowAddress(db, orderId, email),
  ] as const;

/** A reseller's key: generated on the server from the CSPRNG. */
export function newKeyCode(): string {
  return `KEY-${randomString(8)}-${randomString(8)}`;
}

/** What a reseller buys keys as: who, of which type and product, at what price each. */
export interface ResellerPurchase {
  buyer: { id: string; email: string };
  product: string;
  keyType: KeyType;
  unitCents: number;
}

/**
 * `quantity` new reseller keys with their licences (which stay the reseller's to look after: they
 * reset their customers' PCs), as statements for the purchase's batch; `purchaseId` names the
 * ledger row that the same batch writes.
 */
export function resellerKeysFor(
  db: Db,
  purchase: ResellerPurchase,
  quantity: number,
  purchaseId: SQL<number>,
  now: number,
): { keys: string[]; statements: BatchItem<"sqlite">[] } {
  const { buyer, product, keyType, unitCents } = purchase;
  const keys = Array.from({ length: quantity }, newKeyCode);
  const rows = keys.map((keyCode, i) => ({
    id: crypto.randomUUID(),
    userId: buyer.id,
    keyCode,
    keyType,
    status: "active" as const,
    priceCents: unitCents,
    purchaseDate: now + i,
  }));
  return {
    keys,
    statements: [
      // Eight bound parameters per key row; one transaction for the keys and their licences.
      ...chunksOf(rows, 8).map((group) => db.insert(resellerKeys).values(group.map((row) => ({ ...row, purchaseId })))),
      ...resellerLicences(
        db,
        rows.map((row) => ({ key: row.keyCode, resellerKeyId: row.id })),
        { email: buyer.email, product, plan: keyType },
        now,
      ),
    ],
  };
}

/** A generated key collided with a stored one (about one in 10^24, or a stocked code the same): nothing was written. */
export const isKeyCollision = (error: unknown) => refusedBy(error, "reseller_keys.key_code") || refusedBy(error, "licences.key");
