// Orders become keys here. A paid order's every unit gets a code (or waits in the backorder queue);
// the buyer gets one e-mail with all the keys. Every step is safe to repeat: Shopify retries
// deliveries and sends several topics per order.
import { eq, sql } from "drizzle-orm";
import { codeLabel } from "~/lib/plans";
import { shopifyOrders, shopifyOrderVariants } from "../platform/db/schema.server";
import type { Db } from "../platform/db/client.server";
import type { MailingDeps } from "../platform/mail.server";
import { mailBackorderAlert } from "../keys/stock-mail.server";
import { backorderUnit, fillBackorders, type FilledBackorder } from "./backorders.server";
import { claimCode, codeOfUnit, type OrderUnit } from "../keys/claim.server";
import type { RenewalRow } from "../licences/licence-renewals.server";
import { mailRenewed } from "../renewals/apply-renewal.server";
import { renewOrderUnit } from "../renewals/order-renewals.server";
import { mailBackorderFilled, mailOrderKeys } from "../keys/key-mail.server";
import type { RevokedKey } from "../keys/revoke.server";
import { recordSale, saleOf } from "../keys/sale.server";
import type { Order } from "./incoming-order.server";
import { type OrderLine, storedLine } from "../platform/db/stored-orders.server";
import { applyWaitingRefunds } from "./refunds.server";
import { checkLowStock } from "../keys/stock-alerts.server";

export type FulfilmentOutcome = {
  assigned: number;
  /** Units that extended the licence the cart named instead of taking a key (decision 090). */
  renewed: RenewalRow[];
  backordered: number;
  skippedLines: number;
  /** The order's refunds applied now, each with the keys it revoked. */
  refunded: { refundId: string; revoked: RevokedKey[]; takenBack: RenewalRow[] }[];
};

/** The order as stored after a body: cancelled (for good), and the address its keys go to. */
export type RecordedOrder = { stale: true } | { stale: false; cancelled: boolean; email: string };

/**
 * Stores what an order body says, unless the order already holds a newer body's state (by the
 * signed `updated_at`): then nothing changes and the body is `stale`. Paid and cancelled, once
 * recorded, stay: refunds and cancellations find a paid order whichever body said so first. The
 * address stays the one first stored (staff may have corrected it). A paid body marks the order
 * not fully handed out until `fulfilOrder` has run for it.
 */
export async function recordOrder(db: Db, order: Order, now = Date.now()): Promise<RecordedOrder> {
  const upsert = db
    .insert(shopifyOrders)
    .values({
      id: order.id,
      name: order.name,
      email: order.email,
      financialStatus: order.financialStatus,
      currency: order.currency,
      totalPrice: order.totalPrice,
      lineItems: JSON.stringify(order.lines),
      receivedAt: now,
      paidAt: order.paid ? now : null,
      cancelledAt: order.cancelled ? now : null,
      sourceUpdatedAt: order.updatedAt,
      cartToken: order.cartToken,
      country: order.country ?? null,
      browserIp: order.browserIp ?? null,
      renewsLicenceId: order.renewsLicence,
    })
    .onConflictDoUpdate({
      target: shopifyOrders.id,
      set: {
        financialStatus: order.financialStatus,
        totalPrice: order.totalPrice,
        lineItems: JSON.stringify(order.lines),
        paidAt: sql`coalesce(${shopifyOrders.paidAt}, ${order.paid ? now : null})`,
        cancelledAt: sql`coalesce(${shopifyOrders.cancelledAt}, ${order.cancelled ? now : null})`,
        sourceUpdatedAt: order.updatedAt,
        cartToken: sql`coalesce(${shopifyOrders.cartToken}, ${order.cartToken})`,
        country: sql`coalesce(${shopifyOrders.country}, ${order.country ?? null})`,
        browserIp: sql`coalesce(${shopifyOrders.browserIp}, ${order.browserIp ?? null})`,
        renewsLicenceId: sql`coalesce(${shopifyOrders.renewsLicenceId}, ${order.renewsLicence})`,
        ...(order.paid ? { fulfilledAt: null } : {}),
      },
      setWhere: sql`coalesce(${shopifyOrders.sourceUpdatedAt}, 0) <= ${order.updatedAt}`,
    })
    .returning({ cancelledAt: shopifyOrders.cancelledAt, email: shopifyOrders.email });
  // The order's variants are rewritten from the row as stored, in the same transaction: a stale
  // body changed nothing and rewrites the same, an edited one drops the variants it no longer has.
  const [[stored]] = await db.batch([
    upsert,
    db.delete(shopifyOrderVariants).where(eq(shopifyOrderVariants.orderId, order.id)),
    db
      .insert(shopifyOrderVariants)
      .select(
        sql`select o.id, json_extract(line.value, '$.variantId'), o.paid_at from ${shopifyOrders} o, json_each(o.line_items) line
          where o.id = ${order.id} and o.paid_at is not null and json_extract(line.value, '$.variantId') is not null`,
      )
      .onConflictDoNothing(),
  ]);
  return stored ? { stale: false, cancelled: stored.cancelledAt !== null, email: stored.email } : { stale: true };
}

const units = (order: Order, line: OrderLine): OrderUnit[] =>
  Array.from({ length: line.quantity }, (_, unitIndex) => ({
    orderId: order.id,
    lineId: line.id,
    unitIndex,
    variantId: line.variantId!,
    email: order.email,
  }));

/**
 * Hands out a key for every unit of a paid order, applies its waiting refunds, and mails every key
 * not mailed yet (units a later body added included), all at most once.
 */
export async function fulfilOrder(deps: MailingDeps, order: Order, now = Date.now()): Promise<FulfilmentOutcome> {
  const { db } = deps;
  const outcome: FulfilmentOutcome = { assigned: 0, renewed: [], backordered: 0, skippedLines: 0, refunded: [] };
  let newBackorders = 0;
  for (const line of order.lines) {
    if (!line.variantId) {
      outcome.skippedLines++;
      continue;
    }
    for (const unit of units(order, line)) {
      // A unit that extends the named licence takes no key (one that already has a key keeps it).
      if (order.renewsLicence !== null && !(await codeOfUnit(db, unit))) {
        const renewed = await renewOrderUnit(db, order, line, unit.unitIndex, now);
        if (renewed.ok) {
          outcome.renewed.push(renewed.value.row);
          continue;
        }
      }
      const assignment = await claimCode(db, unit, { now });
      if (assignment.kind === "out-of-stock") {
        if (await backorderUnit(db, unit, codeLabel(line.title, line.variantTitle), now)) newBackorders++;
        outcome.backordered++;
        continue;
      }
      if (assignment.kind === "new") outcome.assigned++;
      // Also for a unit that already had its key: a retry finishes what an interrupted run began.
      await recordSale(db, { email: order.email }, saleOf(order, line, assignment.code, assignment.code.usedAt ?? now));
    }
  }
  // Every unit has its key (or waits for stock): refunds may apply now. Marked before the waiting
  // refunds are read, so a refund stored meanwhile is applied either here or by its own delivery.
  await db.update(shopifyOrders).set({ fulfilledAt: now }).where(eq(shopifyOrders.id, order.id));
  // Before the mail: a unit refunded in the same body is never sent.
  outcome.refunded = await applyWaitingRefunds(db, order.id, now);
  await mailOrderKeys(deps, order, now);
  for (const row of outcome.renewed) await mailRenewed(deps, row);
  if (newBackorders > 0) await mailBackorderAlert(deps, order, newBackorders);
  // Once per variant, after all its units: a shortage alerts once per order, not once per key.
  const variants = new Map(
    order.lines.flatMap((line) => (line.variantId ? [[line.variantId, codeLabel(line.title, line.variantTitle)] as const] : [])),
  );
  for (const [id, title] of variants) await checkLowStock(deps, { id, title }, now);
  return outcome;
}

/** After new stock arrives: fill waiting units of that variant in order and mail each key. */
export async function fillBackordersAndNotify(deps: MailingDeps, variantId: string, now = Date.now()): Promise<FilledBackorder[]> {
  const filled = await fillBackorders(deps.db, variantId, now);
  for (const { backorder, code } of filled) {
    const order = await deps.db.select().from(shopifyOrders).where(eq(shopifyOrders.id, backorder.orderId)).get();
    const line = order ? storedLine(order, backorder.lineItemId) : undefined;
    if (order && line) await recordSale(deps.db, { email: backorder.customerEmail }, saleOf(order, line, code, now));
    await mailBackorderFilled(deps, backorder, order?.name ?? backorder.orderId, code, now);
  }
  return filled;
}
