// The back office's view of orders: the list over every source (the order_index view), its search,
// and one order's page — lines, keys (masked), chain evidence and a timeline of everything that
// happened to it. Reading only; the actions on an order live in order-actions.server.ts.
import { and, desc, eq, gte, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { actionLabel } from "~/lib/audit";
import { maskKey } from "~/lib/licences";
import {
  type CryptoEvidence,
  decodeCursor,
  type OrderCursor,
  type OrderDetail,
  type OrderKeyView,
  type OrderRow,
  type OrderSource,
  ORDER_SOURCES,
  type TimelineEntry,
  type UndeliveredMail,
} from "~/lib/orders";
import { fail, ok, type Result } from "~/lib/result";
import { dayStart, type OrderListInput } from "~/lib/schemas/orders";
import type { OrderLine } from "../fulfilment/order-lines.server";
import { licenceState } from "../licences/validation.server";
import { chunksOf, type Db } from "../platform/db/client.server";
import { detailFields } from "./audit-log.server";
import {
  auditLog,
  backorders,
  cryptoOrders,
  licences,
  mailOutbox,
  manualOrders,
  orderIndex,
  productCodes,
  profiles,
  resellerKeys,
  resellerLedger,
  shopifyOrders,
  shopifyRefunds,
  webhookDeliveries,
} from "../platform/db/schema.server";

export const ORDER_PAGE_SIZE = 50;

/** What the list filters on, after the form's checks: dates as UTC milliseconds. */
export interface OrderFilters {
  q: string;
  source?: OrderSource;
  state?: string;
  from?: number;
  /** Exclusive: the first millisecond after the last day asked for. */
  until?: number;
}

export function orderFilters(input: Pick<OrderListInput, "q" | "source" | "state" | "from" | "to">): OrderFilters {
  return { q: input.q, source: input.source || undefined, state: input.state || undefined, from: dayStart(input.from), until: dayStart(input.to, 1) };
}

/** The view's WHERE terms for the filters other than the search: SQLite pushes each into every arm. */
function filterTerms(filters: OrderFilters): (SQL | undefined)[] {
  return [
    filters.source ? eq(orderIndex.source, filters.source) : undefined,
    filters.state ? eq(orderIndex.state, filters.state) : undefined,
    filters.from !== undefined ? gte(orderIndex.createdAt, filters.from) : undefined,
    filters.until !== undefined ? lt(orderIndex.createdAt, filters.until) : undefined,
  ];
}

/** Rows strictly after the cursor in the list's order (created_at desc, key desc). */
const afterCursor = (cursor: OrderCursor | null) =>
  cursor ? or(lt(orderIndex.createdAt, cursor.createdAt), and(eq(orderIndex.createdAt, cursor.createdAt), lt(orderIndex.key, cursor.key))) : undefined;

/** A 64-hex-digit transaction id, as wallets and explorers show one. */
const TXID = /^[0-9a-f]{64}$/i;

export type OrderReference = { source: OrderSource; reference: string; createdAt: number };

/** The order a product code was sold to, from its order_id: "M-<id>", a crypto order number, or a Shopify id. */
async function orderOfCodeOrderId(db: Db, orderId: string): Promise<OrderReference | undefined> {
  const manual = /^M-(\d{1,15})$/.exec(orderId);
  if (manual) {
    const row = await db.select({ createdAt: manualOrders.createdAt }).from(manualOrders).where(eq(manualOrders.id, Number(manual[1]))).get();
    return row && { source: "admin", reference: manual[1]!, createdAt: row.createdAt };
  }
  const [crypto, shopify] = await Promise.all([
    db.select({ createdAt: cryptoOrders.createdAt }).from(cryptoOrders).where(eq(cryptoOrders.orderNumber, orderId)).get(),
    db.select({ createdAt: shopifyOrders.receivedAt }).from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get(),
  ]);
  if (crypto) return { source: "crypto", reference: orderId, createdAt: crypto.createdAt };
  return shopify && { source: "shopify", reference: orderId, createdAt: shopify.createdAt };
}

async function resellerPurchase(db: Db, ledgerId: number | null): Promise<OrderReference | undefined> {
  if (ledgerId === null) return undefined;
  const row = await db
    .select({ createdAt: resellerLedger.createdAt })
    .from(resellerLedger)
    .where(and(eq(resellerLedger.id, ledgerId), eq(resellerLedger.kind, "purchase")))
    .get();
  return row && { source: "reseller", reference: String(ledgerId), createdAt: row.createdAt };
}

/** The orders a key belongs to: a stocked code's order, a reseller key's purchase, or a licence's. */
async function ordersOfKey(db: Db, key: string): Promise<OrderReference[]> {
  const [code, resold, licence] = await Promise.all([
    db.select({ orderId: productCodes.orderId }).from(productCodes).where(eq(productCodes.code, key)).get(),
    db.select({ purchaseId: resellerKeys.purchaseId }).from(resellerKeys).where(eq(resellerKeys.keyCode, key)).get(),
    db
      .select({ orderId: licences.orderId, purchaseId: resellerKeys.purchaseId })
      .from(licences)
      .leftJoin(resellerKeys, eq(resellerKeys.id, licences.resellerKeyId))
      .where(eq(licences.key, key))
      .get(),
  ]);
  const found = await Promise.all([
    code?.orderId ? orderOfCodeOrderId(db, code.orderId) : undefined,
    resellerPurchase(db, resold?.purchaseId ?? null),
    licence?.orderId ? orderOfCodeOrderId(db, licence.orderId) : undefined,
    resellerPurchase(db, licence?.purchaseId ?? null),
  ]);
  return found.filter((o): o is OrderReference => o !== undefined);
}

/** Orders by the number people quote: "#1001" or "1001" (Shopify), a crypto order number, "R-12", "M-3". */
async function ordersOfNumber(db: Db, q: string): Promise<OrderReference[]> {
  const reseller = /^R-(\d{1,15})$/i.exec(q);
  if (reseller) return [await resellerPurchase(db, Number(reseller[1]))].filter((o) => o !== undefined);
  const manual = /^M-(\d{1,15})$/i.exec(q);
  if (manual) return [await orderOfCodeOrderId(db, `M-${manual[1]}`)].filter((o) => o !== undefined);
  const names = q.startsWith("#") ? [q] : [`#${q}`, q];
  const [shopify, crypto] = await Promise.all([
    db
      .select({ id: shopifyOrders.id, createdAt: shopifyOrders.receivedAt })
      .from(shopifyOrders)
      .where(or(inArray(shopifyOrders.name, names), eq(shopifyOrders.id, q)))
      .limit(ORDER_PAGE_SIZE),
    db.select({ createdAt: cryptoOrders.createdAt }).from(cryptoOrders).where(eq(cryptoOrders.orderNumber, q.toUpperCase())).get(),
  ]);
  return [
    ...shopify.map((o) => ({ source: "shopify" as const, reference: o.id, createdAt: o.createdAt })),
    ...(crypto ? [{ source: "crypto" as const, reference: q.toUpperCase(), createdAt: crypto.createdAt }] : []),
  ];
}

/** Crypto orders a payment paid: the typed-in transaction id, or one the chain showed (payments JSON). */
async function ordersOfTransaction(db: Db, txid: string): Promise<OrderReference[]> {
  const lower = txid.toLowerCase();
  const rows = await db
    .select({ orderNumber: cryptoOrders.orderNumber, createdAt: cryptoOrders.createdAt })
    .from(cryptoOrders)
    .where(or(eq(cryptoOrders.transactionId, txid), eq(cryptoOrders.transactionId, lower), sql`instr(${cryptoOrders.payments}, ${lower}) > 0`))
    .limit(ORDER_PAGE_SIZE);
  return rows.map((o) => ({ source: "crypto", reference: o.orderNumber, createdAt: o.createdAt }));
}

/** The orders a search names, when it names them one by one (key, transaction id, number); null for an e-mail. */
async function searchedOrders(db: Db, q: string): Promise<OrderReference[] | null> {
  if (q === "" || q.includes("@")) return null;
  if (TXID.test(q)) return ordersOfTransaction(db, q);
  const byKey = await ordersOfKey(db, q);
  return byKey.length > 0 ? byKey : ordersOfNumber(db, q);
}

/**
 * The created_at at or above which the next page surely lies, for an unsearched list: each
 * source's (page + 1)-th newest row, read from its own index; the newest of those bounds leaves at
 * least a page and one row above it. Without it SQLite would sort every row of every arm.
 */
async function pageFloor(db: Db, filters: OrderFilters, cursor: OrderCursor | null, size: number): Promise<number | undefined> {
  const range = (column: SQLiteColumn) =>
    and(
      cursor ? lt(column, cursor.createdAt) : undefined,
      filters.from !== undefined ? gte(column, filters.from) : undefined,
      filters.until !== undefined ? lt(column, filters.until) : undefined,
    );
  const sources = filters.source ? [filters.source] : ORDER_SOURCES;
  const nth = (source: OrderSource) => {
    switch (source) {
      case "shopify":
        return db.select({ at: shopifyOrders.receivedAt }).from(shopifyOrders).where(range(shopifyOrders.receivedAt)).orderBy(desc(shopifyOrders.receivedAt)).limit(1).offset(size).get();
      case "crypto":
        return db.select({ at: cryptoOrders.createdAt }).from(cryptoOrders).where(range(cryptoOrders.createdAt)).orderBy(desc(cryptoOrders.createdAt)).limit(1).offset(size).get();
      case "reseller":
        return db
          .select({ at: resellerLedger.createdAt })
          .from(resellerLedger)
          .where(and(eq(resellerLedger.kind, "purchase"), range(resellerLedger.createdAt)))
          .orderBy(desc(resellerLedger.createdAt))
          .limit(1)
          .offset(size)
          .get();
      case "admin":
        return db.select({ at: manualOrders.createdAt }).from(manualOrders).where(range(manualOrders.createdAt)).orderBy(desc(manualOrders.createdAt)).limit(1).offset(size).get();
    }
  };
  const bounds = (await Promise.all(sources.map(nth))).flatMap((row) => (row ? [row.at] : []));
  return bounds.length > 0 ? Math.max(...bounds) : undefined;
}

const rowColumns = {
  key: orderIndex.key,
  source: orderIndex.source,
  reference: orderIndex.reference,
  number: orderIndex.number,
  email: orderIndex.email,
  state: orderIndex.state,
  totalCents: orderIndex.totalCents,
  currency: orderIndex.currency,
  method: orderIndex.method,
  createdAt: orderIndex.createdAt,
};

const newestFirst = (a: OrderRow, b: OrderRow) => b.createdAt - a.createdAt || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);

/** The order_index row of one order, found through its own table's index (source, reference and time pushed into the arm). */
function indexRow(db: Db, order: OrderReference, terms: (SQL | undefined)[] = []) {
  return db
    .select(rowColumns)
    .from(orderIndex)
    .where(and(eq(orderIndex.source, order.source), eq(orderIndex.reference, order.reference), eq(orderIndex.createdAt, order.createdAt), ...terms))
    .get();
}

export interface OrderPage {
  rows: OrderRow[];
  /** The cursor of the next (older) page, or null on the last page. */
  next: OrderCursor | null;
}

/** Which of `orders` (by key) are flagged: their e-mail to the buyer's address could not be delivered. */
export async function undeliveredOrders(db: Db, orders: Pick<OrderRow, "key" | "email">[]): Promise<string[]> {
  return [...(await undeliveredMail(db, orders)).keys()];
}

/**
 * The newest undeliverable e-mail of each order (by its key), to the address the order holds now:
 * once staff correct the address, the old failure no longer flags the order.
 */
async function undeliveredMail(db: Db, orders: Pick<OrderRow, "key" | "email">[]): Promise<Map<string, UndeliveredMail>> {
  const failed = new Map<string, UndeliveredMail>();
  // One parameter an order and one for the status: chunks of fifty keep under D1's limit.
  for (const group of chunksOf(orders, 2)) {
    const rows = await db
      .select({ orderKey: mailOutbox.orderKey, to: mailOutbox.toAddress, error: mailOutbox.lastError, at: mailOutbox.createdAt })
      .from(mailOutbox)
      .where(and(inArray(mailOutbox.orderKey, group.map((o) => o.key)), eq(mailOutbox.status, "failed")))
      .orderBy(desc(mailOutbox.createdAt));
    for (const row of rows) {
      const order = group.find((o) => o.key === row.orderKey);
      if (order && row.orderKey && !failed.has(row.orderKey) && row.to.toLowerCase() === order.email.toLowerCase()) failed.set(row.orderKey, { to: row.to, error: row.error, at: row.at });
    }
  }
  return failed;
}

/** A page of the order list, newest first, after `cursor` (an opaque string from a previous page). */
export async function listOrders(db: Db, filters: OrderFilters, cursorText = "", size = ORDER_PAGE_SIZE): Promise<Result<OrderPage>> {
  const cursor = cursorText ? decodeCursor(cursorText) : null;
  if (cursorText && !cursor) return fail("invalid", "This link to a page of orders is broken", { field: "cursor" });
  const page = (rows: OrderRow[]): OrderPage => {
    const shown = rows.slice(0, size);
    const last = shown.at(-1);
    return { rows: shown, next: rows.length > size && last ? { createdAt: last.createdAt, key: last.key } : null };
  };
  const named = await searchedOrders(db, filters.q);
  if (named) {
    const rows = await Promise.all(named.map((order) => indexRow(db, order, [...filterTerms(filters), afterCursor(cursor)])));
    const unique = [...new Map(rows.flatMap((row) => (row ? [[row.key, row] as const] : []))).values()];
    return ok(page(unique.sort(newestFirst)));
  }
  const searched = filters.q !== "";
  const floor = searched || filters.state ? undefined : await pageFloor(db, filters, cursor, size);
  const rows = await db
    .select(rowColumns)
    .from(orderIndex)
    .where(
      and(
        ...filterTerms(filters),
        searched ? eq(orderIndex.emailKey, filters.q.toLowerCase()) : undefined,
        afterCursor(cursor),
        floor !== undefined ? gte(orderIndex.createdAt, floor) : undefined,
      ),
    )
    .orderBy(desc(orderIndex.createdAt), desc(orderIndex.key))
    .limit(size + 1);
  return ok(page(rows));
}

/** "ABCD…WXYZ": enough of a key to tell keys apart, never the key itself. */
/** The order_id a source's product codes (and backorders, licences) carry; null for a reseller purchase. */
export function codeOrderId(source: OrderSource, reference: string): string | null {
  return source === "reseller" ? null : source === "admin" ? `M-${reference}` : reference;
}

/** An order's row in the index, found through its own table. */
export async function findOrder(db: Db, source: OrderSource, reference: string): Promise<OrderRow | undefined> {
  let createdAt: number | undefined;
  if (source === "shopify") createdAt = (await db.select({ at: shopifyOrders.receivedAt }).from(shopifyOrders).where(eq(shopifyOrders.id, reference)).get())?.at;
  else if (source === "crypto") createdAt = (await db.select({ at: cryptoOrders.createdAt }).from(cryptoOrders).where(eq(cryptoOrders.orderNumber, reference)).get())?.at;
  else if (!/^\d{1,15}$/.test(reference)) return undefined;
  else if (source === "reseller") createdAt = (await resellerPurchase(db, Number(reference)))?.createdAt;
  else createdAt = (await db.select({ at: manualOrders.createdAt }).from(manualOrders).where(eq(manualOrders.id, Number(reference))).get())?.at;
  return createdAt === undefined ? undefined : indexRow(db, { source, reference, createdAt });
}

/** Every key of an order, with the facts the actions need (the whole key stays on the server). */
export async function keysOfOrder(db: Db, order: Pick<OrderRow, "source" | "reference">) {
  const orderId = codeOrderId(order.source, order.reference);
  if (orderId === null) {
    return db
      .select({ ref: sql<string>`'r' || ${resellerKeys.id}`, codeId: sql<number | null>`null`, key: resellerKeys.keyCode, variantTitle: resellerKeys.keyType, revokedAt: licences.revokedAt, licence: licences })
      .from(resellerKeys)
      .leftJoin(licences, eq(licences.resellerKeyId, resellerKeys.id))
      .where(eq(resellerKeys.purchaseId, Number(order.reference)))
      .orderBy(resellerKeys.purchaseDate);
  }
  return db
    .select({ ref: sql<string>`'c' || ${productCodes.id}`, codeId: productCodes.id, key: productCodes.code, variantTitle: productCodes.variantTitle, revokedAt: productCodes.revokedAt, licence: licences })
    .from(productCodes)
    .leftJoin(licences, eq(licences.productCodeId, productCodes.id))
    .where(eq(productCodes.orderId, orderId))
    .orderBy(productCodes.orderLineId, productCodes.unitIndex);
}
export type OrderKey = Awaited<ReturnType<typeof keysOfOrder>>[number];

async function keyViews(db: Db, order: OrderRow, now: number): Promise<OrderKeyView[]> {
  const orderId = codeOrderId(order.source, order.reference);
  const [keys, waiting] = await Promise.all([
    keysOfOrder(db, order),
    orderId === null
      ? []
      : db
          .select({ id: backorders.id, variantTitle: backorders.variantTitle })
          .from(backorders)
          .where(and(eq(backorders.orderId, orderId), isNull(backorders.filledAt), isNull(backorders.cancelledAt))),
  ]);
  return [
    ...keys.map(
      (k): OrderKeyView => ({
        ref: k.ref,
        masked: maskKey(k.key),
        variantTitle: k.codeId === null ? `Reseller key (${k.variantTitle})` : k.variantTitle,
        state: k.revokedAt === null ? "delivered" : "revoked",
        licence: k.licence ? { state: licenceState(k.licence, now), activatedAt: k.licence.activatedAt, expiresAt: k.licence.expiresAt, pcBound: k.licence.hwid !== null } : null,
        replaceable: k.codeId !== null,
      }),
    ),
    ...waiting.map((b): OrderKeyView => ({ ref: `b${b.id}`, masked: "—", variantTitle: b.variantTitle, state: "backordered", licence: null, replaceable: false })),
  ];
}

const entry = (at: number | null, kind: TimelineEntry["kind"], title: string, detail: string | null = null, actor: string | null = null): TimelineEntry[] =>
  at === null ? [] : [{ at, kind, title, detail, actor }];

async function timelineOf(db: Db, order: OrderRow): Promise<TimelineEntry[]> {
  const orderId = codeOrderId(order.source, order.reference);
  const [mails, audits, deliveries, refunds, waits, shopify, crypto] = await Promise.all([
    db.select().from(mailOutbox).where(eq(mailOutbox.orderKey, order.key)).orderBy(desc(mailOutbox.createdAt)).limit(200),
    db
      .select({ action: auditLog.action, detail: auditLog.detail, createdAt: auditLog.createdAt, actor: profiles.username })
      .from(auditLog)
      .leftJoin(profiles, eq(profiles.id, auditLog.actorUserId))
      .where(eq(auditLog.subject, order.key))
      .orderBy(desc(auditLog.createdAt))
      .limit(200),
    order.source === "shopify" ? db.select().from(webhookDeliveries).where(eq(webhookDeliveries.orderId, order.reference)).orderBy(desc(webhookDeliveries.receivedAt)).limit(200) : [],
    order.source === "shopify" ? db.select().from(shopifyRefunds).where(eq(shopifyRefunds.orderId, order.reference)) : [],
    orderId === null ? [] : db.select().from(backorders).where(eq(backorders.orderId, orderId)),
    order.source === "shopify" ? db.select().from(shopifyOrders).where(eq(shopifyOrders.id, order.reference)).get() : undefined,
    order.source === "crypto" ? db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, order.reference)).get() : undefined,
  ]);
  const entries: TimelineEntry[] = [
    ...entry(order.createdAt, "order", "Order placed"),
    ...mails.flatMap((m) => entry(m.sentAt ?? m.createdAt, "mail", `E-mail ${m.status}: ${m.subject}`, m.status === "failed" ? m.lastError : `to ${m.toAddress}`)),
    ...audits.map((a) => ({
      at: a.createdAt,
      kind: "audit" as const,
      title: actionLabel(a.action),
      detail: detailFields(a.detail).map(([key, value]) => `${key}: ${value}`).join(" · ") || null,
      actor: a.actor ?? "deleted account",
    })),
    ...deliveries.map((d) => ({ at: d.receivedAt, kind: "webhook" as const, title: `Webhook ${d.topic}: ${d.outcome}`, detail: d.detail, actor: null })),
    ...refunds.flatMap((r) => [
      ...entry(r.receivedAt, "refund", "Refund received", `Refund ${r.id}`),
      ...entry(r.appliedAt, "refund", "Refund applied", `Refund ${r.id}`),
    ]),
    ...waits.flatMap((b) => [
      ...entry(b.createdAt, "backorder", "Waiting for stock", `${b.variantTitle}, unit ${b.unitIndex + 1}`),
      ...entry(b.filledAt, "backorder", "Backorder filled", b.variantTitle),
      ...entry(b.cancelledAt, "backorder", "Backorder cancelled", b.variantTitle),
    ]),
    ...(shopify ? [...entry(shopify.paidAt, "order", "Paid"), ...entry(shopify.cancelledAt, "order", "Cancelled"), ...entry(shopify.refundedAt, "refund", "Refunded")] : []),
    ...(crypto
      ? [
          ...entry(crypto.firstSeenAt, "crypto", "Payment first seen on chain"),
          ...entry(crypto.paidAt, "crypto", "Paid"),
          ...entry(crypto.updatedAt, "crypto", `State: ${crypto.status}`, crypto.review ? `Review: ${crypto.review}` : null),
        ]
      : []),
  ];
  return entries.sort((a, b) => b.at - a.at);
}

/** Everything the order page shows; not-found for an order that does not exist. */
export async function orderDetail(db: Db, source: OrderSource, reference: string, now = Date.now()): Promise<Result<OrderDetail>> {
  const order = await findOrder(db, source, reference);
  if (!order) return fail("not-found", "No such order");
  const [keys, timeline, undelivered] = await Promise.all([keyViews(db, order, now), timelineOf(db, order), undeliveredMail(db, [order])]);
  const detail: OrderDetail = { order, lines: [], crypto: null, reason: null, keys, timeline, cancellable: false, undelivered: undelivered.get(order.key) ?? null };
  if (source === "shopify") {
    const row = await db.select({ lineItems: shopifyOrders.lineItems, currency: shopifyOrders.currency }).from(shopifyOrders).where(eq(shopifyOrders.id, reference)).get();
    detail.lines = (JSON.parse(row?.lineItems ?? "[]") as OrderLine[]).map((l) => ({
      title: `${l.title} - ${l.variantTitle}`,
      quantity: l.quantity,
      price: { amount: l.price, currencyCode: row!.currency },
    }));
  } else if (source === "crypto") {
    const c = (await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, reference)).get())!;
    detail.lines = [
      { title: c.purpose === "top-up" ? "Reseller balance top-up" : `${c.productTitle} - ${c.variantTitle}`, quantity: 1, price: { amount: (c.amountCents / 100).toFixed(2), currencyCode: c.currency } },
    ];
    detail.crypto = {
      coin: c.cryptoType,
      status: c.status,
      review: c.review,
      amountUnits: c.amountUnits,
      receivedUnits: c.receivedUnits,
      confirmations: c.confirmations,
      walletAddress: c.walletAddress,
      transactionId: c.transactionId,
      payments: JSON.parse(c.payments) as CryptoEvidence["payments"],
    };
    detail.cancellable = c.status !== "complete" && c.status !== "cancelled";
  } else if (source === "reseller") {
    const l = await db.select({ reference: resellerLedger.reference }).from(resellerLedger).where(eq(resellerLedger.id, Number(reference))).get();
    detail.lines = [{ title: `Reseller keys (${l?.reference ?? "purchase"})`, quantity: keys.length, price: null }];
  } else {
    const m = (await db.select().from(manualOrders).where(eq(manualOrders.id, Number(reference))).get())!;
    detail.lines = [{ title: m.variantTitle, quantity: 1, price: null }];
    detail.reason = m.reason;
  }
  return ok(detail);
}
