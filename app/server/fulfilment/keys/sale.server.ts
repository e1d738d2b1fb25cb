// Every key handed out becomes a licence here, whoever paid for it: the shop's own orders, crypto
// orders, admin fulfilment and reseller generation all end in `recordSale` or `licenceRows`.
// Checking, activating, resetting and banning licences is the licences domain's job.
import { and, eq, isNull, sql } from "drizzle-orm";
import { type LicencePlan, planOf } from "~/lib/plans";
import type { Db } from "../platform/db/client.server";
import { licences, productCodes } from "../platform/db/schema.server";
import type { OrderLine } from "./order-lines.server";
import { type SubscriptionSource, subscribeBuyer, subscribeUser, subscriptionSource } from "./subscriptions.server";

/** A stocked code sold to a buyer: what its licence and subscription record. */
export interface Sale extends SubscriptionSource {
  code: string;
}

/** What an order line's unit sold: the key, and the line it was sold on. */
export function saleOf(order: { id: string; currency: string }, line: OrderLine, code: { id: number; code: string }, soldAt: number): Sale {
  return { ...subscriptionSource(order, line, code.id, soldAt), code: code.code };
}

/**
 * Records a sold key: its licence (once, whoever asks again) and, when the buyer has an account,
 * their subscription. `userId` names the account when the order was placed signed in; otherwise
 * the e-mail's verified account gets it (or claims it on verification).
 */
export async function recordSale(db: Db, buyer: { email: string; userId?: string }, sale: Sale): Promise<void> {
  await db
    .insert(licences)
    .values({
      key: sale.code,
      product: sale.productTitle,
      plan: planOf(sale.variantTitle),
      ownerEmail: buyer.email,
      productCodeId: sale.codeId,
      orderId: sale.orderId,
      createdAt: sale.purchasedAt,
      // A refund or cancellation may have revoked the code before its licence was written.
      revokedAt: sql`(select ${productCodes.revokedAt} from ${productCodes} where ${productCodes.id} = ${sale.codeId})`,
    })
    // Recording the same sale again changes nothing; a key that names another licence is an error.
    .onConflictDoNothing({ target: licences.productCodeId });
  if (buyer.userId) await subscribeUser(db, buyer.userId, sale);
  else await subscribeBuyer(db, buyer.email, sale);
}

/** Licence rows for keys a reseller generated (inserted in the same batch as the keys). */
export function licenceRows(keys: { id: string; keyCode: string }[], owner: { email: string; product: string; plan: LicencePlan }, now: number) {
  return keys.map((key) => ({ key: key.keyCode, product: owner.product, plan: owner.plan, ownerEmail: owner.email, resellerKeyId: key.id, createdAt: now }));
}

/** The licences of an order's revoked keys stop working. Repeatable, like the revocation itself. */
export const revokeLicencesOfOrder = (db: Db, orderId: string, now: number) =>
  db
    .update(licences)
    .set({ revokedAt: now })
    .where(
      and(
        isNull(licences.revokedAt),
        sql`${licences.productCodeId} in (select ${productCodes.id} from ${productCodes} where ${productCodes.orderId} = ${orderId} and ${productCodes.revokedAt} is not null)`,
      ),
    );

/** A code going back into stock from an order was never really sold: its licence goes too. */
export const forgetLicenceOf = (db: Db, codeId: number, orderId: string) =>
  db.delete(licences).where(and(eq(licences.productCodeId, codeId), eq(licences.orderId, orderId)));
