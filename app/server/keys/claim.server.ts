// Claiming a key: the one place a code leaves stock for an order unit, whoever pays (a card order,
// a crypto order, a replacement, a key handed out by hand), and the one place a claim is undone. A
// code goes to exactly one unit; the database guarantees it (conditional statements, and a unique
// index on the unit: order, line, unit index), not application locks, because D1 has no
// interactive transactions (decisions 013 and 052).
import { and, eq, max, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { fail, ok, type Result } from "~/lib/result";
import { type Db, isUniqueViolation } from "../platform/db/client.server";
import { backorders, licences, manualOrders, productCodes, shopifyOrders, users } from "../platform/db/schema.server";
import { revokeCode } from "./revoke.server";
import { forgetLicenceOf, keysStopWorking } from "../licences/licence-records.server";

export interface OrderUnit {
  orderId: string;
  lineId: string;
  unitIndex: number;
  variantId: string;
  email: string;
}

export type CodeRow = typeof productCodes.$inferSelect;

/** `new`: this call claimed the code; `existing`: the unit already had it (a retry, a concurrent run). */
export type Assignment = { kind: "new"; code: CodeRow } | { kind: "existing"; code: CodeRow } | { kind: "out-of-stock" };

/** The code a unit already has, if any. */
export async function codeOfUnit(db: Db, unit: Pick<OrderUnit, "orderId" | "lineId" | "unitIndex">) {
  return db
    .select()
    .from(productCodes)
    .where(
      and(eq(productCodes.orderId, unit.orderId), eq(productCodes.orderLineId, unit.lineId), eq(productCodes.unitIndex, unit.unitIndex)),
    )
    .get();
}

/** A code of the variant that can still be handed out: unsold and never revoked. */
export const isFreeCodeOf = (variantId: unknown) =>
  sql`${productCodes.variantId} = ${variantId} and ${productCodes.isUsed} = 0 and ${productCodes.revokedAt} is null`;

/** The oldest code of the variant still in stock, still free as the statement runs: the one to hand out next. */
const isOldestFreeCode = (variantId: string) =>
  and(
    eq(
      productCodes.id,
      sql`(select ${productCodes.id} from ${productCodes} where ${isFreeCodeOf(variantId)} order by ${productCodes.id} limit 1)`,
    ),
    eq(productCodes.isUsed, false),
  );

/** The order was not cancelled (checked in the same statement that hands out or queues a unit). */
export const notCancelled = (orderId: string) =>
  sql`not exists (select 1 from ${shopifyOrders} where ${shopifyOrders.id} = ${orderId} and ${shopifyOrders.cancelledAt} is not null)`;

/** Who a claimed code goes to: the buyer's address and the unit (the order id may be computed in the statement). */
interface Holder {
  email: string | null;
  orderId: string | SQL;
  lineId: string;
  unitIndex: number;
}

/**
 * The statement every claim from stock is: the oldest free code of the variant goes to the unit,
 * while `when` (the caller's own condition, checked in the same statement) holds.
 */
const claimOldestFree = (db: Db, variantId: string, holder: Holder, now: number, when?: SQL) =>
  db
    .update(productCodes)
    .set({
      isUsed: true,
      usedAt: now,
      customerEmail: holder.email,
      orderId: holder.orderId,
      orderLineId: holder.lineId,
      unitIndex: holder.unitIndex,
    })
    .where(and(isOldestFreeCode(variantId), when))
    .returning();

/**
 * Gives one order unit the oldest available code of its variant, in one statement. A unit that
 * already has a code (a retry, or a concurrent delivery) keeps it. A unit queued as a backorder is
 * left to the queue unless `fromQueue` says this is the queue filling it.
 */
export async function claimCode(db: Db, unit: OrderUnit, { now = Date.now(), fromQueue = false } = {}): Promise<Assignment> {
  try {
    const code = await claimOldestFree(
      db,
      unit.variantId,
      unit,
      now,
      fromQueue
        ? undefined
        : and(
            sql`not exists (select 1 from ${backorders} where ${backorders.orderId} = ${unit.orderId} and ${backorders.lineItemId} = ${unit.lineId} and ${backorders.unitIndex} = ${unit.unitIndex})`,
            notCancelled(unit.orderId),
          ),
    ).get();
    if (code) return { kind: "new", code };
  } catch (error) {
    // The unique index on the unit refused a second code.
    if (!isUniqueViolation(error)) throw error;
  }
  const existing = await codeOfUnit(db, unit);
  return existing ? { kind: "existing", code: existing } : { kind: "out-of-stock" };
}

/**
 * Whether `code` can no longer be the key of a unit of `variantId`: a licence names it (a
 * reseller's key, or one sold before), it was sold, or it is stock of another plan.
 */
export async function namedCodeTaken(db: Db, code: string, variantId: string): Promise<boolean> {
  const [licence, stocked] = await Promise.all([
    db.select({ id: licences.id }).from(licences).where(eq(licences.key, code)).get(),
    db
      .select({ variantId: productCodes.variantId, isUsed: productCodes.isUsed })
      .from(productCodes)
      .where(eq(productCodes.code, code))
      .get(),
  ]);
  return Boolean(licence) || (stocked !== undefined && (stocked.isUsed || stocked.variantId !== variantId));
}

/** Whether the variant has a code in stock to claim (checked before a claim is queued). */
export async function hasCodeInStock(db: Db, variantId: string): Promise<boolean> {
  const inStock = await db
    .select({ id: productCodes.id })
    .from(productCodes)
    .where(and(eq(productCodes.variantId, variantId), eq(productCodes.isUsed, false)))
    .get();
  return inStock !== undefined;
}

/**
 * Gives a unit the code the admin typed in: a code of its variant in stock is marked sold; a code
 * the shop never stocked is recorded as sold (written and sold in one statement, so its
 * `created_at` is its `used_at`: that is how a release knows to forget it). `taken` when a
 * licence, a sale or another plan's stock has it. A unit that got its code from a run at the same
 * time keeps that one.
 */
export async function claimNamedCode(
  db: Db,
  unit: OrderUnit,
  named: { code: string; variantTitle: string },
  now: number,
): Promise<Assignment | { kind: "taken" }> {
  if (await namedCodeTaken(db, named.code, unit.variantId)) return { kind: "taken" };
  const claim = {
    isUsed: true,
    usedAt: now,
    customerEmail: unit.email,
    orderId: unit.orderId,
    orderLineId: unit.lineId,
    unitIndex: unit.unitIndex,
  };
  try {
    const code =
      (await db
        .update(productCodes)
        .set(claim)
        .where(and(eq(productCodes.variantId, unit.variantId), eq(productCodes.code, named.code), eq(productCodes.isUsed, false)))
        .returning()
        .get()) ??
      (await db
        .insert(productCodes)
        .values({ variantId: unit.variantId, variantTitle: named.variantTitle, code: named.code, createdAt: now, ...claim })
        .onConflictDoNothing({ target: productCodes.code })
        .returning()
        .get());
    return code ? { kind: "new", code } : { kind: "taken" };
  } catch (error) {
    // The unit's unique index: a run at the same time gave it its key first; this one finishes.
    if (!isUniqueViolation(error)) throw error;
    const existing = await codeOfUnit(db, unit);
    if (!existing) throw error;
    return { kind: "existing", code: existing };
  }
}

/**
 * A staff decision a replacement carries out (an approved replacement request), taken in the same
 * transaction as the key: `claim` wins it (one conditional statement), `won` says in SQL that this
 * transaction did, and `undo(nothingMoved)` gives it back when no key moved (no stock, or the key
 * was revoked meanwhile). So the decision and the key change together or not at all.
 */
export interface DecisionTaken {
  claim: BatchItem<"sqlite">;
  won: SQL;
  undo: (nothingMoved: SQL) => BatchItem<"sqlite">;
}

/**
 * Revokes a key and hands out a fresh code of the same variant as a new unit of the same order
 * line, in one transaction: the new code is claimed only while the old key still works (and the
 * `decision`, if any, was won), and the old key is revoked only if the new unit exists. So with no
 * stock nothing changes, and of two replaces of the same key only one succeeds.
 */
export async function claimReplacement(
  db: Db,
  orderId: string,
  codeId: number,
  now: number,
  decision?: DecisionTaken,
): Promise<Result<{ old: CodeRow; fresh: CodeRow }>> {
  const old = (await db.select().from(productCodes).where(eq(productCodes.id, codeId)).get())!;
  if (old.revokedAt !== null) return fail("conflict", "This key is already revoked");
  const line = old.orderLineId ?? "manual";
  const [last] = await db
    .select({ n: max(productCodes.unitIndex) })
    .from(productCodes)
    .where(and(eq(productCodes.orderId, orderId), eq(productCodes.orderLineId, line)));
  const unitIndex = (last?.n ?? -1) + 1;
  const oldStillWorks = sql`exists (select 1 from ${productCodes} where ${productCodes.id} = ${old.id} and ${productCodes.revokedAt} is null)`;
  const newUnitExists = sql`exists (select 1 from ${productCodes} where ${productCodes.orderId} = ${orderId} and ${productCodes.orderLineId} = ${line} and ${productCodes.unitIndex} = ${unitIndex})`;
  const moves = [
    claimOldestFree(
      db,
      old.variantId,
      { email: old.customerEmail, orderId, lineId: line, unitIndex },
      now,
      and(oldStillWorks, decision?.won),
    ),
    revokeCode(db, old.id, now, newUnitExists),
    ...keysStopWorking(db, orderId, now),
  ] as const;
  let claimed: CodeRow[];
  try {
    if (decision) {
      const [, fresh] = await db.batch([decision.claim, ...moves, decision.undo(sql`not ${newUnitExists}`)]);
      claimed = fresh;
    } else {
      [claimed] = await db.batch(moves);
    }
  } catch (error) {
    // Another replace on the same line took the same unit at the same moment: nothing was written.
    if (isUniqueViolation(error)) return fail("conflict", "The key was changed at the same moment; reload and try again");
    throw error;
  }
  const fresh = claimed[0];
  if (!fresh) {
    const again = await db.select({ revokedAt: productCodes.revokedAt }).from(productCodes).where(eq(productCodes.id, old.id)).get();
    if (again?.revokedAt != null) return fail("conflict", "This key is already revoked");
    return fail("conflict", `No ${old.variantTitle} codes in stock`);
  }
  return ok({ old, fresh });
}

/** A key handed out by hand: who gets it, of which variant, why, and who gave it. */
export interface ManualHandOut {
  email: string;
  variantId: string;
  variantTitle: string;
  reason: string;
  createdBy: string;
}

/**
 * A manual order ("M-<id>") and the oldest code in stock of the variant, in one transaction: the
 * order is taken back in the same transaction when there is no stock (then nothing is answered).
 * The order names the account that holds the address, if there is one.
 */
export async function claimForManualOrder(db: Db, handOut: ManualHandOut, now: number) {
  const newest = sql`(select max(${manualOrders.id}) from ${manualOrders})`;
  const [[order], [code], refused] = await db.batch([
    db
      .insert(manualOrders)
      .values({
        email: handOut.email,
        userId: sql`(select ${users.id} from ${users} where lower(${users.email}) = ${handOut.email})`,
        variantId: handOut.variantId,
        variantTitle: handOut.variantTitle,
        reason: handOut.reason,
        createdBy: handOut.createdBy,
        createdAt: now,
      })
      .returning(),
    claimOldestFree(db, handOut.variantId, { email: handOut.email, orderId: sql`'M-' || ${newest}`, lineId: "manual", unitIndex: 0 }, now),
    db
      .delete(manualOrders)
      .where(
        and(
          eq(manualOrders.id, newest),
          sql`not exists (select 1 from ${productCodes} where ${productCodes.orderId} = 'M-' || ${manualOrders.id})`,
        ),
      )
      .returning({ id: manualOrders.id }),
  ]);
  return refused.length > 0 || !order || !code ? undefined : { order, code };
}

/**
 * Undoes a claim whose order went away before it completed: a stocked code becomes available
 * again; a code that was only recorded for this order (never stocked) is forgotten.
 */
export async function releaseClaim(db: Db, codeId: number, orderId: string, recordedOnly: boolean): Promise<void> {
  const claimedBy = and(eq(productCodes.id, codeId), eq(productCodes.orderId, orderId));
  if (recordedOnly) {
    await db.delete(productCodes).where(claimedBy);
    return;
  }
  await db.batch([
    forgetLicenceOf(db, codeId, orderId),
    db
      .update(productCodes)
      .set({ isUsed: false, usedAt: null, customerEmail: null, orderId: null, orderLineId: null, unitIndex: null, revokedAt: null })
      .where(claimedBy),
  ]);
}

/**
 * Gives back the code claimed for a unit, if any: stock returns to stock; a typed-in code recorded
 * only for this unit (written and sold in one step, so never stocked) is forgotten.
 */
export async function releaseUnit(db: Db, unit: Pick<OrderUnit, "orderId" | "lineId" | "unitIndex">): Promise<void> {
  const key = await codeOfUnit(db, unit);
  if (key) await releaseClaim(db, key.id, unit.orderId, key.createdAt === key.usedAt);
}
