// How licences come to be and stop, as the key path needs it: a sold code's licence, a reseller's
// keys' licences, a code gone back into stock, an order's new address, revoked keys. The licences
// domain writes the `licences` and `user_subscriptions` tables and nobody else does (lint holds
// it); the key path calls these and runs the statements in its own batches, so a key, its licence
// and its subscription change in one transaction.
import { and, eq, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import type { LicencePlan } from "~/lib/plans";
import { entitlementsOfPlan } from "../catalogue/entitlements.server";
import { chunksOf, type Db } from "../platform/db/client.server";
import { licenceRenewals, licences, productCodes, userSubscriptions } from "../platform/db/schema.server";

/** What a sold code's licence records. */
export interface SoldLicence {
  key: string;
  product: string;
  plan: LicencePlan;
  ownerEmail: string;
  codeId: number;
  orderId: string;
  soldAt: number;
  /** The code this one replaces: its licence's entitlements carry over, whatever the plan includes now. */
  replacesCodeId?: number;
}

/** A sold code's licence, once: recording the same sale again changes nothing. */
export const recordLicence = (db: Db, sold: SoldLicence) =>
  db
    .insert(licences)
    .values({
      key: sold.key,
      product: sold.product,
      plan: sold.plan,
      // What the plan includes at the sale is what was bought (decision 054); a replacement keeps the old key's.
      entitlements:
        sold.replacesCodeId === undefined
          ? entitlementsOfPlan(sold.plan)
          : sql<
              string[]
            >`coalesce((select ${licences.entitlements} from ${licences} where ${licences.productCodeId} = ${sold.replacesCodeId}), ${entitlementsOfPlan(sold.plan)})`,
      ownerEmail: sold.ownerEmail,
      productCodeId: sold.codeId,
      orderId: sold.orderId,
      createdAt: sold.soldAt,
      // A refund or cancellation may have revoked the code before its licence was written.
      revokedAt: sql`(select ${productCodes.revokedAt} from ${productCodes} where ${productCodes.id} = ${sold.codeId})`,
    })
    // A key that names another licence is an error; the same sale again is nothing.
    .onConflictDoNothing({ target: licences.productCodeId });

/** The licences of keys a reseller bought, as statements for the purchase's batch (seven bound parameters a row). */
export const resellerLicences = (
  db: Db,
  keys: { key: string; resellerKeyId: string }[],
  owner: { email: string; product: string; plan: LicencePlan },
  now: number,
) =>
  chunksOf(
    keys.map(({ key, resellerKeyId }) => ({
      key,
      product: owner.product,
      plan: owner.plan,
      ownerEmail: owner.email,
      resellerKeyId,
      createdAt: now,
      entitlements: entitlementsOfPlan(owner.plan),
    })),
    7,
  ).map((group) => db.insert(licences).values(group));

/** A code going back into stock from an order was never really sold: its licence goes too. */
export const forgetLicenceOf = (db: Db, codeId: number, orderId: string) =>
  db.delete(licences).where(and(eq(licences.productCodeId, codeId), eq(licences.orderId, orderId)));

/** Staff corrected an order's address: its licences name the new owner. */
export const licencesFollowAddress = (db: Db, orderId: string, email: string) =>
  db.update(licences).set({ ownerEmail: email }).where(eq(licences.orderId, orderId));

/** The order's codes revoked so far. */
const revokedCodesOf = (orderId: string) =>
  sql`(select ${productCodes.id} from ${productCodes} where ${productCodes.orderId} = ${orderId} and ${productCodes.revokedAt} is not null)`;

/**
 * What follows every revocation of an order's keys, in the same batch: their subscriptions end and
 * their licences stop. They look at all the order's revoked keys, so a retry completes them.
 */
export const keysStopWorking = (db: Db, orderId: string, now: number) =>
  [
    db
      .update(userSubscriptions)
      .set({ status: "revoked" })
      .where(and(sql`${userSubscriptions.status} <> 'revoked'`, sql`${userSubscriptions.productCodeId} in ${revokedCodesOf(orderId)}`)),
    db
      .update(licences)
      .set({ revokedAt: now })
      .where(and(isNull(licences.revokedAt), sql`${licences.productCodeId} in ${revokedCodesOf(orderId)}`)),
  ] as const;

/** A licence with no code of its own (a reseller's key) revoked; empty when it was revoked already. */
export const revokeLicenceByKey = (db: Db, key: string, now: number, when?: SQL) =>
  db
    .update(licences)
    .set({ revokedAt: now })
    .where(and(eq(licences.key, key), isNull(licences.revokedAt), when))
    .returning({ id: licences.id });

/**
 * A Shopify order's licences: those it sold, and those whose time it paid for as a renewal or an
 * upgrade not taken back since. A disputed renewal payment is the licence's current time, so the
 * dispute holds that licence as it would a key the order sold.
 */
const licencesOfOrder = (db: Db, orderId: string) =>
  or(
    eq(licences.orderId, orderId),
    inArray(
      licences.id,
      db
        .select({ id: licenceRenewals.licenceId })
        .from(licenceRenewals)
        .where(and(eq(licenceRenewals.orderKey, `shopify:${orderId}`), isNull(licenceRenewals.refundedAt))),
    ),
  );

/** A Shopify order's licences, sold or renewed by it: what a dispute's evidence shows. */
export const orderLicences = (db: Db, orderId: string) =>
  db.select().from(licences).where(licencesOfOrder(db, orderId)).orderBy(licences.id);

/**
 * An order's licences suspended by the shop's fraud rules (decision 092): every licence of the order
 * (sold or renewed by it) that still works and is not suspended already answers SUSPENDED with
 * `reason`, marked as `by`'s ("dispute:<id>"), only while `when` holds (checked in the statement).
 * Its clock keeps running.
 */
export const suspendOrderLicences = (db: Db, orderId: string, by: string, reason: string, now: number, when?: SQL) =>
  db
    .update(licences)
    .set({ suspendedAt: now, suspendedBy: by, suspendReason: reason })
    .where(and(licencesOfOrder(db, orderId), isNull(licences.suspendedAt), isNull(licences.revokedAt), when))
    .returning({ id: licences.id, key: licences.key, ownerEmail: licences.ownerEmail });

/** The suspension `by` placed on an order's licences lifted, only while `when` holds. */
export const liftOrderSuspension = (db: Db, orderId: string, by: string, when?: SQL) =>
  db
    .update(licences)
    .set({ suspendedAt: null, suspendedBy: null, suspendReason: null })
    .where(and(licencesOfOrder(db, orderId), eq(licences.suspendedBy, by), when))
    .returning({ id: licences.id, key: licences.key, ownerEmail: licences.ownerEmail });

/**
 * The licences a deleted account bought for its own use (not a reseller's keys, which belong to
 * whoever the reseller gave them): what the account's last e-mail says stops working.
 */
export const licencesEndingWithAccount = (db: Db, email: string) =>
  db
    .select({ key: licences.key, product: licences.product, plan: licences.plan })
    .from(licences)
    .where(and(sql`lower(${licences.ownerEmail}) = lower(${email})`, isNull(licences.revokedAt), isNull(licences.resellerKeyId)))
    .orderBy(licences.id);

/**
 * A deleted account's licences, as statements for the deletion's batch (decision 099): its own keys
 * stop (REVOKED), its subscriptions end, and every licence it owned, a reseller's keys included,
 * names the account's pseudonym instead of its address.
 */
export const licencesOfDeletedAccount = (db: Db, account: { userId: string; email: string; pseudonym: string }, now: number) =>
  [
    db
      .update(licences)
      .set({ revokedAt: now })
      .where(and(sql`lower(${licences.ownerEmail}) = lower(${account.email})`, isNull(licences.revokedAt), isNull(licences.resellerKeyId))),
    db
      .update(userSubscriptions)
      .set({ status: "revoked" })
      .where(and(eq(userSubscriptions.userId, account.userId), eq(userSubscriptions.status, "active"))),
    db
      .update(licences)
      .set({ ownerEmail: account.pseudonym })
      .where(sql`lower(${licences.ownerEmail}) = lower(${account.email})`),
  ] as const;
