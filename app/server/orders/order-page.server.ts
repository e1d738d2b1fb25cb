// One order's page in the back office: its lines, its keys (masked, with their licences' state),
// its units waiting for stock, its chain evidence and a timeline of everything that happened to it.
// Reading only; the actions on an order live in order-actions.server.ts.
import { RISK_REASON_LABEL, type RiskReason } from "~/lib/fraud";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { actionLabel } from "~/lib/audit";
import { maskKey } from "~/lib/licences";
import type { CryptoEvidence, OrderDetail, OrderKeyView, OrderRisk, OrderRow, OrderSource, TimelineEntry } from "~/lib/orders";
import { fail, ok, type Result } from "~/lib/result";
import type { OrderLine } from "../platform/db/stored-orders.server";
import { licenceState } from "../licences/validation.server";
import type { Db } from "../platform/db/client.server";
import {
  auditLog,
  backorders,
  cryptoOrders,
  licences,
  mailOutbox,
  manualOrders,
  productCodes,
  profiles,
  resellerKeys,
  resellerLedger,
  shopifyOrders,
  shopifyRefunds,
  webhookDeliveries,
} from "../platform/db/schema.server";
import { detailFields } from "../audit/audit-log.server";
import { codeOrderId, findOrder, undeliveredMail } from "./order-list.server";

/** Every key of an order, with the facts the actions need (the whole key stays on the server). */
export async function keysOfOrder(db: Db, order: Pick<OrderRow, "source" | "reference">) {
  const orderId = codeOrderId(order.source, order.reference);
  if (orderId === null) {
    return db
      .select({
        ref: sql<string>`'r' || ${resellerKeys.id}`,
        codeId: sql<number | null>`null`,
        key: resellerKeys.keyCode,
        variantTitle: resellerKeys.keyType,
        revokedAt: licences.revokedAt,
        licence: licences,
      })
      .from(resellerKeys)
      .leftJoin(licences, eq(licences.resellerKeyId, resellerKeys.id))
      .where(eq(resellerKeys.purchaseId, Number(order.reference)))
      .orderBy(resellerKeys.purchaseDate);
  }
  return db
    .select({
      ref: sql<string>`'c' || ${productCodes.id}`,
      codeId: productCodes.id,
      key: productCodes.code,
      variantTitle: productCodes.variantTitle,
      revokedAt: productCodes.revokedAt,
      licence: licences,
    })
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
    ...keys.map((k): OrderKeyView => ({
      ref: k.ref,
      masked: maskKey(k.key),
      variantTitle: k.codeId === null ? `Reseller key (${k.variantTitle})` : k.variantTitle,
      state: k.revokedAt === null ? "delivered" : "revoked",
      licence: k.licence
        ? {
            state: licenceState(k.licence, now),
            activatedAt: k.licence.activatedAt,
            expiresAt: k.licence.expiresAt,
            pcBound: k.licence.hwid !== null,
          }
        : null,
      replaceable: k.codeId !== null,
    })),
    ...waiting.map((b): OrderKeyView => ({
      ref: `b${b.id}`,
      masked: "—",
      variantTitle: b.variantTitle,
      state: "backordered",
      licence: null,
      replaceable: false,
    })),
  ];
}

const entry = (
  at: number | null,
  kind: TimelineEntry["kind"],
  title: string,
  detail: string | null = null,
  actor: string | null = null,
): TimelineEntry[] => (at === null ? [] : [{ at, kind, title, detail, actor }]);

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
    order.source === "shopify"
      ? db
          .select()
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.orderId, order.reference))
          .orderBy(desc(webhookDeliveries.receivedAt))
          .limit(200)
      : [],
    order.source === "shopify" ? db.select().from(shopifyRefunds).where(eq(shopifyRefunds.orderId, order.reference)) : [],
    orderId === null ? [] : db.select().from(backorders).where(eq(backorders.orderId, orderId)),
    order.source === "shopify" ? db.select().from(shopifyOrders).where(eq(shopifyOrders.id, order.reference)).get() : undefined,
    order.source === "crypto" ? db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, order.reference)).get() : undefined,
  ]);
  const entries: TimelineEntry[] = [
    ...entry(order.createdAt, "order", "Order placed"),
    ...mails.flatMap((m) =>
      entry(m.sentAt ?? m.createdAt, "mail", `E-mail ${m.status}: ${m.subject}`, m.status === "failed" ? m.lastError : `to ${m.toAddress}`),
    ),
    ...audits.map((a) => ({
      at: a.createdAt,
      kind: "audit" as const,
      title: actionLabel(a.action),
      detail:
        detailFields(a.detail)
          .map(([key, value]) => `${key}: ${value}`)
          .join(" · ") || null,
      actor: a.actor ?? "deleted account",
    })),
    ...deliveries.map((d) => ({
      at: d.receivedAt,
      kind: "webhook" as const,
      title: `Webhook ${d.topic}: ${d.outcome}`,
      detail: d.detail,
      actor: null,
    })),
    ...refunds.flatMap((r) => [
      ...entry(r.receivedAt, "refund", "Refund received", `Refund ${r.id}`),
      ...entry(r.appliedAt, "refund", "Refund applied", `Refund ${r.id}`),
    ]),
    ...waits.flatMap((b) => [
      ...entry(b.createdAt, "backorder", "Waiting for stock", `${b.variantTitle}, unit ${b.unitIndex + 1}`),
      ...entry(b.filledAt, "backorder", "Backorder filled", b.variantTitle),
      ...entry(b.cancelledAt, "backorder", "Backorder cancelled", b.variantTitle),
    ]),
    ...(shopify
      ? [
          ...entry(shopify.paidAt, "order", "Paid"),
          ...entry(shopify.cancelledAt, "order", "Cancelled"),
          ...entry(shopify.refundedAt, "refund", "Refunded"),
        ]
      : []),
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
  const [keys, timeline, undelivered] = await Promise.all([
    keyViews(db, order, now),
    timelineOf(db, order),
    order.undelivered ? undeliveredMail(db, order) : undefined,
  ]);
  const detail: OrderDetail = {
    order,
    lines: [],
    crypto: null,
    reason: null,
    keys,
    timeline,
    cancellable: false,
    undelivered: undelivered ?? null,
    risk: null,
  };
  if (source === "shopify") {
    detail.risk = await orderRisk(db, reference);
    const row = await db
      .select({ lineItems: shopifyOrders.lineItems, currency: shopifyOrders.currency })
      .from(shopifyOrders)
      .where(eq(shopifyOrders.id, reference))
      .get();
    detail.lines = (JSON.parse(row?.lineItems ?? "[]") as OrderLine[]).map((l) => ({
      title: `${l.title} - ${l.variantTitle}`,
      quantity: l.quantity,
      price: { amount: l.price, currencyCode: row!.currency },
    }));
  } else if (source === "crypto") {
    const c = (await db.select().from(cryptoOrders).where(eq(cryptoOrders.orderNumber, reference)).get())!;
    detail.lines = [
      {
        title: c.purpose === "top-up" ? "Reseller balance top-up" : `${c.productTitle} - ${c.variantTitle}`,
        quantity: 1,
        price: { amount: (c.amountCents / 100).toFixed(2), currencyCode: c.currency },
      },
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
      updatedAt: c.updatedAt,
    };
    detail.cancellable = c.status !== "complete" && c.status !== "cancelled";
  } else if (source === "reseller") {
    const l = await db
      .select({ reference: resellerLedger.reference })
      .from(resellerLedger)
      .where(eq(resellerLedger.id, Number(reference)))
      .get();
    detail.lines = [{ title: `Reseller keys (${l?.reference ?? "purchase"})`, quantity: keys.length, price: null }];
  } else {
    const m = (await db
      .select()
      .from(manualOrders)
      .where(eq(manualOrders.id, Number(reference)))
      .get())!;
    detail.lines = [{ title: m.variantTitle, quantity: 1, price: null }];
    detail.reason = m.reason;
  }
  return ok(detail);
}

/**
 * A card order's risk as its page shows it: the reasons found when it was paid, and a key of it used
 * from another country than the order's (its last check's place), judged now.
 */
async function orderRisk(db: Db, orderId: string): Promise<OrderRisk | null> {
  const row = await db
    .select({
      riskReasons: shopifyOrders.riskReasons,
      heldAt: shopifyOrders.heldAt,
      releasedAt: shopifyOrders.releasedAt,
      country: shopifyOrders.country,
    })
    .from(shopifyOrders)
    .where(eq(shopifyOrders.id, orderId))
    .get();
  if (!row) return null;
  const reasons = new Set(row.riskReasons ? (JSON.parse(row.riskReasons) as RiskReason[]) : []);
  if (row.country) {
    const places = await db.select({ place: licences.lastCheckPlace }).from(licences).where(eq(licences.orderId, orderId));
    const usedFrom = places.flatMap(({ place }) => (place ? [place.slice(-2).toUpperCase()] : []));
    if (usedFrom.some((country) => country !== row.country)) reasons.add("country-mismatch");
  }
  return {
    reasons: [...reasons].map((code) => ({ code, label: RISK_REASON_LABEL[code] ?? code })),
    heldAt: row.heldAt,
    releasedAt: row.releasedAt,
    country: row.country,
  };
}
