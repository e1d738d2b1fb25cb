// Orders become keys here. A paid order's every unit gets a code (or waits in the backorder queue);
// the buyer gets one e-mail with all the keys; a cancelled or refunded order's keys are revoked.
// Every step is safe to repeat: Shopify retries deliveries and sends several topics per order.
import { and, eq, isNull, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { variantGid } from "~/lib/catalogue";
import { assignCode, backorderUnit, fillBackorders, type FilledBackorder, type OrderUnit } from "./stock.server";
import type { Db } from "../platform/db/client.server";
import { backorders, productCodes, shopifyOrders, shopifyRefunds, userRoles, userSubscriptions, users } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import { type MailConfig, sendMail } from "../platform/mail.server";
import { subscribeBuyer, subscribeUser, type SubscriptionSource } from "./subscriptions.server";

export interface FulfilmentDeps {
  db: Db;
  mail: MailConfig;
  waitUntil: (promise: Promise<unknown>) => void;
}

export interface OrderLine {
  id: string;
  /** Canonical variant GID, or null for a custom line with no variant. */
  variantId: string | null;
  quantity: number;
  title: string;
  variantTitle: string;
  price: string;
}

export interface Order {
  id: string;
  name: string;
  email: string;
  currency: string;
  financialStatus: string | null;
  totalPrice: string | null;
  cancelled: boolean;
  lines: OrderLine[];
}

export type FulfilmentOutcome = { assigned: number; backordered: number; skippedLines: number };

/** Stores (or updates) what Shopify told us about an order; says whether it was cancelled. */
export async function recordOrder(db: Db, order: Order, paid: boolean, now = Date.now()): Promise<{ cancelled: boolean }> {
  const stored = await db
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
      paidAt: paid ? now : null,
    })
    .onConflictDoUpdate({
      target: shopifyOrders.id,
      set: {
        financialStatus: order.financialStatus,
        lineItems: JSON.stringify(order.lines),
        paidAt: sql`coalesce(${shopifyOrders.paidAt}, ${paid ? now : null})`,
      },
    })
    .returning({ cancelledAt: shopifyOrders.cancelledAt })
    .get();
  return { cancelled: Boolean(stored?.cancelledAt) };
}

const units = (order: Order, line: OrderLine): OrderUnit[] =>
  Array.from({ length: line.quantity }, (_, unitIndex) => ({
    orderId: order.id,
    lineId: line.id,
    unitIndex,
    variantId: line.variantId!,
    email: order.email,
  }));

function sourceFor(order: { id: string; currency: string }, line: OrderLine, codeId: number, purchasedAt: number): SubscriptionSource {
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

/** Hands out a key for every unit of a paid order and mails them, all at most once. */
export async function fulfilOrder(deps: FulfilmentDeps, order: Order, now = Date.now()): Promise<FulfilmentOutcome> {
  const { db } = deps;
  const outcome: FulfilmentOutcome = { assigned: 0, backordered: 0, skippedLines: 0 };
  let newBackorders = 0;
  for (const line of order.lines) {
    if (!line.variantId) {
      outcome.skippedLines++;
      continue;
    }
    for (const unit of units(order, line)) {
      const assignment = await assignCode(db, unit, { now });
      if (assignment.kind === "new") {
        outcome.assigned++;
        await subscribeBuyer(db, order.email, sourceFor(order, line, assignment.code.id, now));
      } else if (assignment.kind === "out-of-stock") {
        if (await backorderUnit(db, unit, `${line.title} - ${line.variantTitle}`, now)) newBackorders++;
        outcome.backordered++;
      }
    }
  }
  await applyWaitingRefunds(db, order.id, now);
  await mailOrderKeys(deps, order);
  if (newBackorders > 0) await alertAdminsOfBackorder(deps, order, newBackorders);
  return outcome;
}

async function mailOrderKeys(deps: FulfilmentDeps, order: Order): Promise<void> {
  const { db } = deps;
  const codes = await db
    .select({ code: productCodes.code, variantTitle: productCodes.variantTitle, revokedAt: productCodes.revokedAt })
    .from(productCodes)
    .where(eq(productCodes.orderId, order.id));
  const [waiting] = await db
    .select({ n: sql<number>`count(*)` })
    .from(backorders)
    .where(and(eq(backorders.orderId, order.id), isNull(backorders.filledAt), isNull(backorders.cancelledAt)));
  const pending = waiting?.n ?? 0;
  const keys = codes.filter((c) => !c.revokedAt);
  if (keys.length === 0 && pending === 0) return;
  const pendingLine =
    pending > 0 ? `${pending} more key${pending === 1 ? "" : "s"} will follow by e-mail as soon as ${pending === 1 ? "it is" : "they are"} in stock.` : "";
  const closing = "Download the loader from your dashboard and activate it with your key. Each key works on one PC.";
  const text = [`Thank you for your order ${order.name}.`, ""];
  if (keys.length > 0) text.push("Your product keys:", ...keys.map((k) => `${k.variantTitle}: ${k.code}`), "");
  if (pendingLine) text.push(pendingLine, "");
  text.push(closing);
  await sendMail(db, deps.mail, deps.waitUntil, {
    to: order.email,
    subject: `Your ${BRAND} ${keys.length === 1 ? "key" : "keys"} — order ${order.name}`,
    text: text.join("\n"),
    html: `<p>Thank you for your order ${escapeHtml(order.name)}.</p>${
      keys.length > 0
        ? `<p>Your product keys:</p><ul>${keys.map((k) => `<li>${escapeHtml(k.variantTitle)}: <code>${escapeHtml(k.code)}</code></li>`).join("")}</ul>`
        : ""
    }${pendingLine ? `<p>${escapeHtml(pendingLine)}</p>` : ""}<p>${closing}</p>`,
    dedupeKey: `order-keys:${order.id}`,
  });
}

async function adminEmails(db: Db): Promise<string[]> {
  const rows = await db.select({ email: users.email }).from(users).innerJoin(userRoles, eq(userRoles.userId, users.id)).where(eq(userRoles.role, "admin"));
  return rows.map((r) => r.email);
}

async function alertAdminsOfBackorder(deps: FulfilmentDeps, order: Order, count: number): Promise<void> {
  for (const to of await adminEmails(deps.db)) {
    await sendMail(deps.db, deps.mail, deps.waitUntil, {
      to,
      subject: `Backorder: order ${order.name} is waiting for ${count} key${count === 1 ? "" : "s"}`,
      text: `Order ${order.name} (${order.email}) was paid but ${count} key${count === 1 ? "" : "s"} could not be handed out: the stock ran out.\nAdd codes in Manage Codes; waiting orders are filled first-in-first-out and the keys e-mailed automatically.`,
      dedupeKey: `backorder-alert:${order.id}:${to}`,
    });
  }
}

/** After new stock arrives: fill waiting units of that variant in order and mail each key. */
export async function fillBackordersAndNotify(deps: FulfilmentDeps, variantId: string, now = Date.now()): Promise<FilledBackorder[]> {
  const filled = await fillBackorders(deps.db, variantId, now);
  for (const { backorder, code } of filled) {
    const order = await deps.db.select().from(shopifyOrders).where(eq(shopifyOrders.id, backorder.orderId)).get();
    const line = order ? (JSON.parse(order.lineItems) as OrderLine[]).find((l) => l.id === backorder.lineItemId) : undefined;
    if (order && line) await subscribeBuyer(deps.db, backorder.customerEmail, sourceFor(order, line, code.id, now));
    const name = order?.name ?? backorder.orderId;
    await sendMail(deps.db, deps.mail, deps.waitUntil, {
      to: backorder.customerEmail,
      subject: `Your ${BRAND} key is ready — order ${name}`,
      text: `Good news: the key you were waiting for from order ${name} is in stock.\n\n${code.variantTitle}: ${code.code}\n\nDownload the loader from your dashboard and activate it with your key.`,
      html: `<p>Good news: the key you were waiting for from order ${escapeHtml(name)} is in stock.</p><p>${escapeHtml(code.variantTitle)}: <code>${escapeHtml(code.code)}</code></p><p>Download the loader from your dashboard and activate it with your key.</p>`,
      dedupeKey: `backorder-filled:${backorder.id}`,
    });
  }
  return filled;
}

/** Ends the subscriptions of the order's revoked keys. Repeatable: a retry finishes what a crash left. */
const endRevokedSubscriptions = (db: Db, orderId: string) =>
  db
    .update(userSubscriptions)
    .set({ status: "revoked" })
    .where(
      and(
        sql`${userSubscriptions.status} <> 'revoked'`,
        sql`${userSubscriptions.productCodeId} in (select ${productCodes.id} from ${productCodes} where ${productCodes.orderId} = ${orderId} and ${productCodes.revokedAt} is not null)`,
      ),
    );

/**
 * orders/cancelled: every key of the order is revoked and its waiting units leave the queue, in
 * one transaction. The order is marked cancelled first, even if we never saw it, so a late
 * orders/paid (or one still running) hands out nothing more.
 */
export async function cancelOrder(db: Db, orderId: string, now = Date.now()): Promise<number> {
  const [, revoked] = await db.batch([
    db
      .insert(shopifyOrders)
      .values({ id: orderId, email: "", currency: "", lineItems: "[]", receivedAt: now, cancelledAt: now })
      .onConflictDoUpdate({ target: shopifyOrders.id, set: { cancelledAt: now } }),
    db.update(productCodes).set({ revokedAt: now }).where(and(eq(productCodes.orderId, orderId), isNull(productCodes.revokedAt))).returning({ id: productCodes.id }),
    db
      .update(backorders)
      .set({ cancelledAt: now })
      .where(and(eq(backorders.orderId, orderId), isNull(backorders.filledAt), isNull(backorders.cancelledAt))),
    endRevokedSubscriptions(db, orderId),
  ]);
  return revoked.length;
}

export interface RefundedLine {
  lineId: string;
  quantity: number;
}

export type RefundOutcome = { state: "applied"; revoked: number; cancelled: number } | { state: "waiting-for-payment" } | { state: "already-applied" };

/**
 * refunds/create: recorded once by its id, then applied once. Only the refunded units go: units
 * still waiting for stock first, then delivered keys, newest unit first. A refund without line
 * items (an amount or shipping only) revokes nothing. A refund for an order not paid here yet
 * waits and is applied right after that order's keys are handed out.
 */
export async function recordRefund(db: Db, refundId: string, orderId: string, lines: RefundedLine[], now = Date.now()): Promise<RefundOutcome> {
  await db
    .insert(shopifyRefunds)
    .values({ id: refundId, orderId, lineItems: JSON.stringify(lines.filter((l) => l.quantity > 0)), receivedAt: now })
    .onConflictDoNothing();
  const order = await db.select({ paidAt: shopifyOrders.paidAt }).from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get();
  if (!order?.paidAt) return { state: "waiting-for-payment" };
  return applyRefund(db, refundId, now);
}

async function applyRefund(db: Db, refundId: string, now: number): Promise<RefundOutcome> {
  const refund = await db.select().from(shopifyRefunds).where(eq(shopifyRefunds.id, refundId)).get();
  if (!refund || refund.appliedAt) return { state: "already-applied" };
  const { orderId } = refund;
  const lines = JSON.parse(refund.lineItems) as RefundedLine[];
  // Every statement below acts only if the first one claimed the refund for this run, and D1 runs
  // a batch as one transaction: the refund is applied entirely, exactly once, or not at all.
  const token = crypto.randomUUID();
  const claimed = sql`exists (select 1 from ${shopifyRefunds} where ${shopifyRefunds.id} = ${refundId} and ${shopifyRefunds.claimToken} = ${token})`;
  const perLine = lines.flatMap(({ lineId, quantity }) => {
    const waiting = sql`(select count(*) from ${backorders} where ${backorders.orderId} = ${orderId} and ${backorders.lineItemId} = ${lineId} and ${backorders.filledAt} is null and ${backorders.cancelledAt} is null)`;
    return [
      // Delivered keys, for what the waiting units do not cover (counted before they are cancelled).
      db
        .update(productCodes)
        .set({ revokedAt: now })
        .where(
          and(
            claimed,
            sql`${productCodes.id} in (select ${productCodes.id} from ${productCodes} where ${productCodes.orderId} = ${orderId} and ${productCodes.orderLineId} = ${lineId} and ${productCodes.revokedAt} is null order by ${productCodes.unitIndex} desc limit max(0, ${quantity} - ${waiting}))`,
          ),
        )
        .returning({ id: productCodes.id }),
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
    db.update(shopifyRefunds).set({ claimToken: token, appliedAt: now }).where(and(eq(shopifyRefunds.id, refundId), isNull(shopifyRefunds.appliedAt))),
    ...perLine,
    endRevokedSubscriptions(db, orderId),
    db.update(shopifyOrders).set({ refundedAt: now }).where(and(eq(shopifyOrders.id, orderId), claimed, sql`${lines.length} > 0`)),
  ]);
  const changed = results.slice(0, perLine.length) as { id: number }[][];
  return {
    state: "applied",
    revoked: changed.filter((_, i) => i % 2 === 0).reduce((n, rows) => n + rows.length, 0),
    cancelled: changed.filter((_, i) => i % 2 === 1).reduce((n, rows) => n + rows.length, 0),
  };
}

/** Refunds that arrived before their order was paid, applied once its keys are handed out. */
async function applyWaitingRefunds(db: Db, orderId: string, now: number): Promise<void> {
  const waiting = await db
    .select({ id: shopifyRefunds.id })
    .from(shopifyRefunds)
    .where(and(eq(shopifyRefunds.orderId, orderId), isNull(shopifyRefunds.appliedAt)));
  for (const { id } of waiting) await applyRefund(db, id, now);
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
    const line = order ? (JSON.parse(order.lineItems) as OrderLine[]).find((l) => l.id === code.lineId) : undefined;
    if (!order || !line) continue;
    await subscribeUser(db, userId, sourceFor(order, line, code.codeId, code.usedAt ?? order.receivedAt));
    claimed++;
  }
  return claimed;
}

/** Turns Shopify's numeric variant id into our canonical GID. */
export function lineVariant(variantId: number | string | null | undefined): string | null {
  if (variantId === null || variantId === undefined || variantId === "") return null;
  const text = String(variantId);
  return /^\d+$/.test(text) ? variantGid(text) : text.startsWith("gid://shopify/ProductVariant/") ? text : null;
}
