// Members' subscriptions: one per key sold to the member's verified e-mail address. The expiry is
// the key's licence's: none until the key is activated (it already counts as active, so the buyer
// can download the loader that activates it), then 24 hours, 7 days or 30 days from activation,
// and none for lifetime.
import { and, desc, eq, isNotNull, isNull, lte, sql } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { bound, builtOnce, read } from "../platform/db/reads.server";
import { licences, productCodes, shopifyOrders, userSubscriptions, users } from "../platform/db/schema.server";
import { type OrderLine, orderName, storedLine } from "../platform/db/stored-orders.server";

export interface SubscriptionSource {
  codeId: number;
  productTitle: string;
  variantTitle: string;
  priceAmount: string;
  priceCurrency: string;
  purchasedAt: number;
  orderId: string;
}

/** What a subscription records of the order line its key was sold for. */
export function subscriptionSource(
  order: { id: string; currency: string },
  line: OrderLine,
  codeId: number,
  purchasedAt: number,
): SubscriptionSource {
  return {
    codeId,
    productTitle: line.title,
    variantTitle: line.variantTitle,
    priceAmount: line.price,
    priceCurrency: order.currency,
    purchasedAt,
    orderId: order.id,
  };
}

/** Creates the subscription for a sold key, once, if the buyer has a verified account. */
export async function subscribeBuyer(db: Db, email: string, source: SubscriptionSource): Promise<void> {
  const account = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.email}) = ${email.toLowerCase()}`, isNotNull(users.emailVerifiedAt)))
    .get();
  if (!account) return;
  await subscribeUser(db, account.id, source);
}

export async function subscribeUser(db: Db, userId: string, source: SubscriptionSource): Promise<void> {
  await db
    .insert(userSubscriptions)
    .values({
      id: crypto.randomUUID(),
      userId,
      // A refund or cancellation may have revoked the key before its subscription was written.
      status: sql`case when exists (select 1 from ${productCodes} where ${productCodes.id} = ${source.codeId} and ${productCodes.revokedAt} is not null) then 'revoked' else 'active' end`,
      productTitle: source.productTitle,
      variantTitle: source.variantTitle,
      priceAmount: source.priceAmount,
      priceCurrency: source.priceCurrency,
      purchaseDate: source.purchasedAt,
      expiryDate: sql`(select ${licences.expiresAt} from ${licences} where ${licences.productCodeId} = ${source.codeId})`,
      productCodeId: source.codeId,
      orderId: source.orderId,
    })
    .onConflictDoNothing({ target: userSubscriptions.productCodeId });
}

/**
 * Keys bought with an e-mail address before its account existed (or was verified) become that
 * account's subscriptions once the address is verified.
 */
export async function claimSubscriptions(db: Db, userId: string, email: string): Promise<number> {
  const unclaimed = await db
    .select({ codeId: productCodes.id, orderId: productCodes.orderId, lineId: productCodes.orderLineId, usedAt: productCodes.usedAt })
    .from(productCodes)
    .leftJoin(userSubscriptions, eq(userSubscriptions.productCodeId, productCodes.id))
    .where(
      and(
        sql`lower(${productCodes.customerEmail}) = ${email.toLowerCase()}`,
        eq(productCodes.isUsed, true),
        isNull(productCodes.revokedAt),
        isNull(userSubscriptions.id),
      ),
    );
  let claimed = 0;
  for (const code of unclaimed) {
    if (!code.orderId) continue;
    const order = await db.select().from(shopifyOrders).where(eq(shopifyOrders.id, code.orderId)).get();
    const line = order ? storedLine(order, code.lineId) : undefined;
    if (!order || !line) continue;
    await subscribeUser(db, userId, subscriptionSource(order, line, code.codeId, code.usedAt ?? order.receivedAt));
    claimed++;
  }
  return claimed;
}

/** A subscription whose key staff paused: its time stands still, so it does not run out meanwhile. */
const keyPaused = sql`exists (select 1 from ${licences} where ${licences.productCodeId} = ${userSubscriptions.productCodeId} and ${licences.pausedAt} is not null)`;

/** Cron: active subscriptions whose expiry has passed become expired (a paused key's do not). */
export async function expireSubscriptions(db: Db, now = Date.now()): Promise<number> {
  const rows = await db
    .update(userSubscriptions)
    .set({ status: "expired" })
    .where(
      and(
        eq(userSubscriptions.status, "active"),
        isNotNull(userSubscriptions.expiryDate),
        lte(userSubscriptions.expiryDate, now),
        sql`not ${keyPaused}`,
      ),
    )
    .returning({ id: userSubscriptions.id });
  return rows.length;
}

/** A member's subscriptions, the newest purchase first, as a statement not yet run. */
// Built once per database: the hub's subscriptions page reads it at every visit.
const subscriptionsQuery = builtOnce((db) =>
  db
    .select({
      id: userSubscriptions.id,
      status: userSubscriptions.status,
      productTitle: userSubscriptions.productTitle,
      variantTitle: userSubscriptions.variantTitle,
      priceAmount: userSubscriptions.priceAmount,
      priceCurrency: userSubscriptions.priceCurrency,
      purchaseDate: userSubscriptions.purchaseDate,
      expiryDate: userSubscriptions.expiryDate,
      code: productCodes.code,
      orderId: userSubscriptions.orderId,
      orderName: orderName(userSubscriptions.orderId),
    })
    .from(userSubscriptions)
    .leftJoin(productCodes, eq(productCodes.id, userSubscriptions.productCodeId))
    .where(eq(userSubscriptions.userId, sql.placeholder("userId")))
    .orderBy(desc(userSubscriptions.purchaseDate))
    .prepare(),
);

/** A member's subscriptions, as a read not yet run, for a page that sends it with other reads in one batch. */
export function subscriptionsRead(db: Db, userId: string) {
  return read([bound(subscriptionsQuery(db), { userId })], ([rows]) => rows);
}
