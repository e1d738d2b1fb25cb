// Cancellations and refunds: the keys they cover are revoked (their licences answer REVOKED), their
// waiting units leave the backorder queue and a held affiliate commission is voided, each change
// once, in one D1 transaction, whatever order Shopify's topics arrive in. The revocations themselves are the key module's statements.
import { and, eq, isNull, sql } from "drizzle-orm";
import { voidCommissionOf } from "../affiliates/ledger.server";
import type { Db } from "../platform/db/client.server";
import { backorders, shopifyOrders, shopifyRefunds } from "../platform/db/schema.server";
import { type RevokedKey, revokeOrderKeys, revokeRefundedKeys } from "../keys/revoke.server";
import { keysStopWorking } from "../licences/licence-records.server";
import type { RenewalRow } from "../licences/licence-renewals.server";
import { renewalsTakenBack, takeBackCancelled, takeBackRefunded } from "../renewals/order-renewals.server";

/**
 * A cancelled order (its signed body says so; the order row is already marked cancelled, so a
 * paid body still running hands out nothing more): every key is revoked and the waiting units
 * leave the queue, in one transaction.
 */
export async function cancelOrder(db: Db, orderId: string, now = Date.now()): Promise<{ revoked: RevokedKey[]; takenBack: RenewalRow[] }> {
  const claim = crypto.randomUUID();
  const [revoked] = await db.batch([
    revokeOrderKeys(db, orderId, now),
    // The time its renewals added goes too (decision 090).
    ...takeBackCancelled(db, orderId, claim, now),
    db
      .update(backorders)
      .set({ cancelledAt: now })
      .where(and(eq(backorders.orderId, orderId), isNull(backorders.filledAt), isNull(backorders.cancelledAt))),
    ...keysStopWorking(db, orderId, now),
    // An affiliate's commission on it, while still held.
    voidCommissionOf(db, orderId, now),
  ]);
  return { revoked, takenBack: await renewalsTakenBack(db, claim) };
}

export interface RefundedLine {
  lineId: string;
  quantity: number;
}

export type RefundOutcome =
  | { state: "applied"; revoked: RevokedKey[]; cancelled: number; takenBack: RenewalRow[] }
  | { state: "waiting-for-payment" }
  | { state: "already-applied" };

/** Keeps a refund, once by its id, for `applyRefund`: a refund body, or one listed in an order body. */
export async function storeRefund(db: Db, refundId: string, orderId: string, lines: RefundedLine[], now = Date.now()): Promise<void> {
  await db
    .insert(shopifyRefunds)
    .values({ id: refundId, orderId, lineItems: JSON.stringify(lines.filter((l) => l.quantity > 0)), receivedAt: now })
    .onConflictDoNothing();
}

/**
 * A refund body: stored once by its id, then applied once. Only the refunded units go: units
 * still waiting for stock first, then delivered keys, newest unit first. A refund without line
 * items (an amount or shipping only) revokes nothing. A refund for an order whose units are not
 * all handed out yet (not paid here, or being handed out right now) waits, and is applied right
 * after they are.
 */
export async function recordRefund(
  db: Db,
  refundId: string,
  orderId: string,
  lines: RefundedLine[],
  now = Date.now(),
): Promise<RefundOutcome> {
  await storeRefund(db, refundId, orderId, lines, now);
  const order = await db.select({ fulfilledAt: shopifyOrders.fulfilledAt }).from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get();
  if (!order?.fulfilledAt) return { state: "waiting-for-payment" };
  return applyRefund(db, refundId, now);
}

async function applyRefund(db: Db, refundId: string, now: number): Promise<RefundOutcome> {
  const refund = await db.select().from(shopifyRefunds).where(eq(shopifyRefunds.id, refundId)).get();
  if (!refund || refund.appliedAt) return { state: "already-applied" };
  const { orderId } = refund;
  const lines = JSON.parse(refund.lineItems) as RefundedLine[];
  const share = await refundedShare(db, orderId, lines);
  // Every statement below acts only if the first one claimed the refund for this run, and D1 runs
  // a batch as one transaction: the refund is applied entirely, exactly once, or not at all.
  const token = crypto.randomUUID();
  const claimed = sql`exists (select 1 from ${shopifyRefunds} where ${shopifyRefunds.id} = ${refundId} and ${shopifyRefunds.claimToken} = ${token})`;
  const perLine = lines.flatMap(({ lineId, quantity }) => {
    const waiting = sql`(select count(*) from ${backorders} where ${backorders.orderId} = ${orderId} and ${backorders.lineItemId} = ${lineId} and ${backorders.filledAt} is null and ${backorders.cancelledAt} is null)`;
    return [
      // Delivered keys, for what the waiting units do not cover (counted before they are cancelled).
      revokeRefundedKeys(db, { orderId, lineId, count: sql`max(0, ${quantity} - ${waiting})` }, claimed, now),
      db
        .update(backorders)
        .set({ cancelledAt: now })
        .where(
          and(
            claimed,
            sql`${backorders.id} in (select ${backorders.id} from ${backorders} where ${backorders.orderId} = ${orderId} and ${backorders.lineItemId} = ${lineId} and ${backorders.filledAt} is null and ${backorders.cancelledAt} is null order by ${backorders.unitIndex} desc limit ${quantity})`,
          ),
        )
        .returning({ id: backorders.id }),
    ];
  });
  const [, ...results] = await db.batch([
    db
      .update(shopifyRefunds)
      .set({ claimToken: token, appliedAt: now })
      .where(and(eq(shopifyRefunds.id, refundId), isNull(shopifyRefunds.appliedAt))),
    ...perLine,
    // Units that renewed a licence gave it time, not a key: the refund takes that time back (decision 090).
    ...takeBackRefunded(db, orderId, lines, token, now, claimed),
    ...keysStopWorking(db, orderId, now),
    db
      .update(shopifyOrders)
      .set({ refundedAt: now })
      .where(and(eq(shopifyOrders.id, orderId), claimed, sql`${lines.length} > 0`)),
    // A refund of units voids the affiliate's commission on the order while it is still held: the
    // refunded units' share of it.
    voidCommissionOf(db, orderId, now, and(claimed, sql`${lines.length} > 0`), { refundId, share }),
  ]);
  const changed = results.slice(0, perLine.length) as unknown[][];
  return {
    state: "applied",
    revoked: changed.filter((_, i) => i % 2 === 0).flat() as RevokedKey[],
    cancelled: changed.filter((_, i) => i % 2 === 1).reduce((n, rows) => n + rows.length, 0),
    takenBack: await renewalsTakenBack(db, token),
  };
}

/** What share of the order's value (its lines' price times quantity) the refunded units are, at most all of it. */
async function refundedShare(db: Db, orderId: string, refunded: RefundedLine[]): Promise<number> {
  const order = await db.select({ lineItems: shopifyOrders.lineItems }).from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get();
  const lines = JSON.parse(order?.lineItems ?? "[]") as { id: string | number; quantity: number; price: string }[];
  const value = (line: { quantity: number; price: string }, quantity = line.quantity) => quantity * Number(line.price);
  const total = lines.reduce((sum, line) => sum + value(line), 0);
  const back = refunded.reduce((sum, r) => {
    const line = lines.find((l) => String(l.id) === String(r.lineId));
    return line ? sum + value(line, Math.min(r.quantity, line.quantity)) : sum;
  }, 0);
  return total > 0 && Number.isFinite(back / total) ? Math.min(1, back / total) : 1;
}

/**
 * Refunds stored but not applied (they arrived before the order was paid, or came listed in an
 * order body), applied once its keys are handed out: what each one revoked.
 */
export async function applyWaitingRefunds(
  db: Db,
  orderId: string,
  now: number,
): Promise<{ refundId: string; revoked: RevokedKey[]; takenBack: RenewalRow[] }[]> {
  const waiting = await db
    .select({ id: shopifyRefunds.id })
    .from(shopifyRefunds)
    .where(and(eq(shopifyRefunds.orderId, orderId), isNull(shopifyRefunds.appliedAt)));
  const applied = [];
  for (const { id } of waiting) {
    const outcome = await applyRefund(db, id, now);
    if (outcome.state === "applied") applied.push({ refundId: id, revoked: outcome.revoked, takenBack: outcome.takenBack });
  }
  return applied;
}
