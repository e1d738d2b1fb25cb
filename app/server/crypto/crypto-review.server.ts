// The admin's review of crypto orders (decision 032): the queue of orders a person has to look
// at, and what the admin decides there. Fulfilling checks what the admin can still correct and
// queues the settlement (crypto-settlement.server), the one way keys leave the shop (decision 031);
// cancelling gives back a key a broken run had claimed; an overpayment dealt with leaves the queue.
// Each decision is one conditional statement, taken before anything else (decision 083).
import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, notExists, notInArray, or, sql } from "drizzle-orm";
import type { FulfilCryptoOrderInput } from "~/lib/crypto-orders";
import { orderKey } from "~/lib/orders";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { hasCodeInStock, namedCodeTaken, releaseUnit } from "../keys/claim.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { auditLog, cryptoOrders, resellerLedger, users } from "../platform/db/schema.server";
import type { JobQueue } from "../platform/job-registry.server";
import { ADMIN_FULFILLABLE, type CryptoOrder } from "./crypto-orders.server";
import { cryptoUnit } from "./crypto-settlement.server";

/** The admin's queue: orders a person has to look at, the longest waiting first (at most 200 at a time). */
export function ordersNeedingReview(db: Db) {
  return db
    .select()
    .from(cryptoOrders)
    .where(or(isNotNull(cryptoOrders.review), eq(cryptoOrders.status, "submitted")))
    .orderBy(asc(cryptoOrders.updatedAt))
    .limit(200);
}

const DECIDED: Record<string, string> = {
  "crypto-order.fulfil": "fulfilled",
  "crypto-order.cancel": "cancelled",
  "crypto-order.resolve": "marked as handled",
};

/** The latest staff decision on an order after `since`, and who took it (from the audit log, where every decision is written). */
async function lastDecision(db: Db, order: CryptoOrder, since: number) {
  return db
    .select({ action: auditLog.action, by: users.email })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.actorUserId))
    .where(
      and(
        eq(auditLog.subject, orderKey("crypto", order.orderNumber)),
        inArray(auditLog.action, Object.keys(DECIDED)),
        gte(auditLog.createdAt, since),
      ),
    )
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .get();
}

/** The answer to a decision that came second: who decided first, if staff did; else what stands in the way. */
async function refused(db: Db, order: CryptoOrder, since: number, otherwise: string): Promise<Result<never>> {
  const first = await lastDecision(db, order, since);
  if (first)
    return fail("conflict", `Order ${order.orderNumber} was already ${DECIDED[first.action]} by ${first.by ?? "another member of staff"}`);
  return fail("conflict", otherwise);
}

const notAwaiting = (order: CryptoOrder) => `Order ${order.orderNumber} is ${order.status}, not awaiting fulfilment`;

/**
 * Admin: fulfils an order the chain did not settle (a typed-in transaction id from before on-chain
 * checks, an underpaid or late payment the admin accepts) with a typed-in key or the next in stock;
 * a top-up is credited. What the admin can still correct is checked now; the key itself is handed
 * out and e-mailed by the job queue, the one way keys leave the shop (decision 031).
 */
export async function fulfilCryptoOrder(
  deps: { db: Db; queue: JobQueue<"crypto-order"> },
  admin: Viewer,
  input: FulfilCryptoOrderInput,
  now = Date.now(),
): Promise<Result<CryptoOrder>> {
  const { db } = deps;
  const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, input.orderId)).get();
  if (!order) return fail("not-found", "Unknown order");
  const awaiting =
    (ADMIN_FULFILLABLE as readonly string[]).includes(order.status) &&
    order.paidAt === null &&
    (order.status === "submitted" || order.review !== null);
  if (!awaiting) return refused(db, order, order.createdAt, notAwaiting(order));
  if (order.purpose === "top-up") {
    if (input.source === "manual")
      return fail("invalid", "A top-up is credited to the balance; it takes no product code", { field: "code" });
  } else if (input.source === "stock") {
    if (!(await hasCodeInStock(db, order.variantId)))
      return fail("conflict", `No codes in stock for ${order.productTitle} - ${order.variantTitle}`);
  } else if (await namedCodeTaken(db, input.code, order.variantId)) {
    return fail("conflict", "This code has already been sold", { field: "code" });
  }
  // Marked paid by the admin's decision, in one conditional step: a second click, or the chain
  // watcher at the same moment, finds it taken.
  const marked = await db
    .update(cryptoOrders)
    .set({ paidAt: now, review: null, updatedAt: now })
    .where(and(eq(cryptoOrders.id, order.id), eq(cryptoOrders.status, order.status), isNull(cryptoOrders.paidAt)))
    .returning()
    .get();
  if (!marked) return refused(db, order, order.createdAt, notAwaiting(order));
  try {
    await deps.queue.send({ kind: "crypto-order", orderNumber: order.orderNumber, code: input.source === "manual" ? input.code : null });
  } catch (error) {
    console.error("Could not queue a crypto order's fulfilment:", error);
    await db
      .update(cryptoOrders)
      .set({ paidAt: null, review: order.review, updatedAt: now })
      .where(and(eq(cryptoOrders.id, order.id), eq(cryptoOrders.paidAt, now)));
    return fail("unavailable", "The fulfilment queue is not available right now; please try again in a moment");
  }
  await audit(db, admin.id, "crypto-order.fulfil", orderKey("crypto", order.orderNumber), {
    source: input.source,
    status: order.status,
    review: order.review,
  });
  return ok(marked);
}

/**
 * Admin: closes an order that will not be settled (refunded outside the shop, or abandoned), as it
 * was when the admin's page showed it (`seen`, its last change): an order another admin has
 * fulfilled since, or the chain has moved, is not cancelled on a stale view (decision 083). One
 * audit entry, under the order, with the reason when the admin gave one.
 */
export async function cancelCryptoOrder(
  db: Db,
  admin: Viewer,
  orderId: string,
  why: { seen: number; reason?: string; ip?: string | null },
  now = Date.now(),
): Promise<Result<CryptoOrder>> {
  const cancelled = await db
    .update(cryptoOrders)
    .set({ status: "cancelled", review: null, updatedAt: now })
    .where(
      and(
        eq(cryptoOrders.id, orderId),
        notInArray(cryptoOrders.status, ["complete", "cancelled"]),
        eq(cryptoOrders.updatedAt, why.seen),
        // A top-up credited to the balance is settled, even in the moment before it reads complete.
        notExists(
          db
            .select({ one: sql`1` })
            .from(resellerLedger)
            .where(and(eq(resellerLedger.kind, "top-up"), eq(resellerLedger.reference, cryptoOrders.orderNumber))),
        ),
      ),
    )
    .returning()
    .get();
  if (!cancelled) {
    const order = await db.select().from(cryptoOrders).where(eq(cryptoOrders.id, orderId)).get();
    if (!order || order.status === "complete" || order.status === "cancelled") {
      return order
        ? refused(db, order, why.seen, "Completed or cancelled orders cannot be cancelled")
        : fail("conflict", "Completed or cancelled orders cannot be cancelled");
    }
    return refused(
      db,
      order,
      why.seen,
      `Order ${order.orderNumber} changed since the page showed it (it is now ${order.status}): reload to see it`,
    );
  }
  // A fulfilment that broke halfway may have claimed a key already.
  await releaseUnit(db, cryptoUnit(cancelled));
  await audit(
    db,
    admin.id,
    "crypto-order.cancel",
    orderKey("crypto", cancelled.orderNumber),
    why.reason ? { reason: why.reason } : {},
    why.ip ?? null,
  );
  return ok(cancelled);
}

/** Admin: an overpaid order was settled and the difference dealt with; it leaves the queue. */
export async function resolveCryptoOrder(db: Db, admin: Viewer, orderId: string, now = Date.now()): Promise<Result<CryptoOrder>> {
  const resolved = await db
    .update(cryptoOrders)
    .set({ review: null, updatedAt: now })
    .where(and(eq(cryptoOrders.id, orderId), eq(cryptoOrders.status, "complete"), eq(cryptoOrders.review, "overpaid")))
    .returning()
    .get();
  if (!resolved) return fail("conflict", "Only a completed, overpaid order can be marked as handled");
  await audit(db, admin.id, "crypto-order.resolve", orderKey("crypto", resolved.orderNumber), {
    receivedUnits: resolved.receivedUnits,
    amountUnits: resolved.amountUnits,
  });
  return ok(resolved);
}
