// The backorder queue: a paid unit that found no code waits here, and is filled oldest first when
// stock arrives, by the same claim every other unit gets (keys/claim.server). Queueing a unit is one
// statement that checks the unit has no code and its order is not cancelled.
import { and, asc, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { backorders, productCodes } from "../platform/db/schema.server";
import { claimCode, type CodeRow, notCancelled, type OrderUnit, releaseClaim } from "../keys/claim.server";
import { orderName } from "../platform/db/stored-orders.server";

const LIST_LIMIT = 500;

/** Queues a unit that found no stock, unless it has a code or is queued already. */
export async function backorderUnit(db: Db, unit: OrderUnit, variantTitle: string, now = Date.now()): Promise<boolean> {
  const inserted = await db.run(sql`
    insert into ${backorders} (order_id, line_item_id, unit_index, variant_id, variant_title, customer_email, created_at)
    select ${unit.orderId}, ${unit.lineId}, ${unit.unitIndex}, ${unit.variantId}, ${variantTitle}, ${unit.email}, ${now}
    where not exists (select 1 from ${productCodes} where ${productCodes.orderId} = ${unit.orderId} and ${productCodes.orderLineId} = ${unit.lineId} and ${productCodes.unitIndex} = ${unit.unitIndex})
      and ${notCancelled(unit.orderId)}
    on conflict (order_id, line_item_id, unit_index) do nothing`);
  return inserted.meta.changes === 1;
}

export type FilledBackorder = { backorder: typeof backorders.$inferSelect; code: CodeRow };

/** Fills open backorders of a variant, oldest first, while codes last. */
export async function fillBackorders(db: Db, variantId: string, now = Date.now()): Promise<FilledBackorder[]> {
  const open = await db
    .select()
    .from(backorders)
    .where(and(eq(backorders.variantId, variantId), isNull(backorders.filledAt), isNull(backorders.cancelledAt)))
    .orderBy(asc(backorders.id))
    .limit(200);
  const filled: FilledBackorder[] = [];
  for (const backorder of open) {
    const unit = {
      orderId: backorder.orderId,
      lineId: backorder.lineItemId,
      unitIndex: backorder.unitIndex,
      variantId,
      email: backorder.customerEmail,
    };
    const assignment = await claimCode(db, unit, { now, fromQueue: true });
    if (assignment.kind === "out-of-stock") break; // the rest keep waiting, in order
    const { code } = assignment;
    const marked = await db
      .update(backorders)
      .set({ filledAt: now, productCodeId: code.id })
      .where(and(eq(backorders.id, backorder.id), isNull(backorders.filledAt), isNull(backorders.cancelledAt)))
      .returning()
      .get();
    if (marked) {
      // Whoever marks the unit filled reports it (and mails it), even if a concurrent filler
      // claimed the code: exactly one of them gets here.
      filled.push({ backorder: marked, code });
    } else if (assignment.kind === "new") {
      // The order was cancelled (or refunded) while the code was being claimed: it goes back.
      const current = await db
        .select({ cancelledAt: backorders.cancelledAt })
        .from(backorders)
        .where(eq(backorders.id, backorder.id))
        .get();
      if (current?.cancelledAt) await releaseClaim(db, code.id, backorder.orderId, false);
    }
  }
  return filled;
}

/** The units waiting for stock, oldest first: Manage Codes' backorder list. */
export async function openBackorders(db: Db) {
  return db
    .select({ ...getTableColumns(backorders), orderName: orderName(backorders.orderId) })
    .from(backorders)
    .where(and(isNull(backorders.filledAt), isNull(backorders.cancelledAt)))
    .orderBy(asc(backorders.id))
    .limit(LIST_LIMIT);
}
