// Revoking keys: a key stops working (its licence answers REVOKED, its subscription ends) for a
// cancellation, a refund's units, a replacement or a decision by the shop's staff. Each revocation
// is one statement written here; it runs in its caller's D1 batch (beside a refund's claim, the
// order's backorders) followed by the licences domain's `keysStopWorking`, so a key, its licence
// and its subscription change in one transaction. Every statement is repeatable: a retry completes what a crash left.
import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { voidCommissionOf } from "../affiliates/ledger.server";
import type { Db } from "../platform/db/client.server";
import { productCodes } from "../platform/db/schema.server";
import { keysStopWorking, revokeLicenceByKey } from "../licences/licence-records.server";

/** A key a refund or cancellation revoked, as the buyer's e-mail names it (if they were ever sent it). */
export interface RevokedKey {
  code: string;
  variantTitle: string;
  customerEmail: string | null;
  mailedAt: number | null;
}
const revokedKey = {
  code: productCodes.code,
  variantTitle: productCodes.variantTitle,
  customerEmail: productCodes.customerEmail,
  mailedAt: productCodes.mailedAt,
};

/** Every key of the order that still works (a cancellation). */
export const revokeOrderKeys = (db: Db, orderId: string, now: number) =>
  db
    .update(productCodes)
    .set({ revokedAt: now })
    .where(and(eq(productCodes.orderId, orderId), isNull(productCodes.revokedAt)))
    .returning(revokedKey);

/**
 * A refund's delivered keys of one line: its newest units that still work, `count` of them (an SQL
 * expression, evaluated in the statement), only while the refund is `claimed` for this run.
 */
export const revokeRefundedKeys = (db: Db, line: { orderId: string; lineId: string; count: SQL }, claimed: SQL, now: number) =>
  db
    .update(productCodes)
    .set({ revokedAt: now })
    .where(
      and(
        claimed,
        sql`${productCodes.id} in (select ${productCodes.id} from ${productCodes} where ${productCodes.orderId} = ${line.orderId} and ${productCodes.orderLineId} = ${line.lineId} and ${productCodes.revokedAt} is null order by ${productCodes.unitIndex} desc limit ${line.count})`,
      ),
    )
    .returning(revokedKey);

/** One key, if it still works and `when` holds (checked in the same statement). */
export const revokeCode = (db: Db, codeId: number, now: number, when?: SQL) =>
  db
    .update(productCodes)
    .set({ revokedAt: now })
    .where(and(eq(productCodes.id, codeId), isNull(productCodes.revokedAt), when));

/**
 * One key revoked by the shop's staff; false when it was revoked already. A stocked code goes with
 * its licence, its subscription and a held affiliate commission on its order, in one transaction; a reseller's key (no code, no order of codes)
 * is its licence.
 */
export async function revokeOneKey(
  db: Db,
  key: { codeId: number | null; key: string },
  orderId: string | null,
  now: number,
): Promise<boolean> {
  if (key.codeId !== null && orderId !== null) {
    const [revoked] = await db.batch([
      revokeCode(db, key.codeId, now, eq(productCodes.orderId, orderId)).returning({ id: productCodes.id }),
      ...keysStopWorking(db, orderId, now),
      // The order's affiliate commission, while still held: a revoked sale earns nothing.
      voidCommissionOf(db, orderId, now),
    ]);
    return revoked.length === 1;
  }
  return (await revokeLicenceByKey(db, key.key, now)).length === 1;
}

/**
 * A deleted account's keys, for the deletion's batch (decision 099): the ones sold to its address
 * are revoked beside their licences, and every code's buyer reads as the account's pseudonym, so
 * the sale stays in the books without the address.
 */
export const codesOfDeletedAccount = (db: Db, account: { email: string; pseudonym: string }, now: number) =>
  db
    .update(productCodes)
    .set({ revokedAt: sql`coalesce(${productCodes.revokedAt}, ${now})`, customerEmail: account.pseudonym })
    .where(sql`lower(${productCodes.customerEmail}) = lower(${account.email})`);
