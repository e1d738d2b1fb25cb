// Shopify order webhooks, the request's half (decision 031): the signature is checked, the
// delivery recorded once (a retry carries the same id, and the first body stays) and queued, and
// the answer goes back at once; the fulfilment queue applies it (shopify-consumer.server). Also
// the deliveries' bookkeeping: stuck ones queued again, the admin's list, an order on its way.
// Unsigned deliveries change nothing but an audit entry.
import { and, desc, eq, getTableColumns, inArray, lt, notInArray, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { audit, lastAuditedAt } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { failedJobs, webhookDeliveries } from "../platform/db/schema.server";
import type { JobQueue } from "../platform/job-queue.server";
import { verifyWebhookSignature } from "../platform/shopify-hmac.server";
import { sha256Hex } from "../platform/tokens.server";
import { orderName } from "./order-lines.server";

/** Topics routed to the consumer. What a delivery does is decided by its signed body, not its topic. */
export const HANDLED_TOPICS = ["orders/create", "orders/updated", "orders/paid", "orders/cancelled", "refunds/create"] as const;

/** What became of a delivery that was accepted. */
export type DeliveryOutcome = "queued" | "already-processed" | "ignored";

/**
 * The largest delivery read (decision 026). An order or refund payload is a few kilobytes plus a
 * few per line item, so a body near a megabyte is not an order of ours: it is refused unread.
 */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

/** What a delivery's sender claimed, read by the edge from its headers; only the body is signed. */
export interface DeliveryClaims {
  /** X-Shopify-Topic: which event Shopify says this is. */
  topic: string;
  /** X-Shopify-Hmac-Sha256: the body's signature. */
  hmac: string | null;
  /** X-Shopify-Webhook-Id: Shopify's name for the delivery, the same on every retry. */
  webhookId: string | null;
  /** The sender's address. */
  ip: string | null;
}

export interface WebhookDelivery extends DeliveryClaims {
  body: ArrayBuffer;
}

const REJECTION_AUDIT_WINDOW_MS = 60_000;

/**
 * Writes a refused delivery (bad signature, body over the cap) to the audit log, under one fixed
 * subject, with the topic it claimed (untrusted: cleaned and cut short) and the sender's address;
 * at most once a minute per address. Nothing else is kept.
 */
export async function auditRejectedDelivery(db: Db, { ip, topic: claimed }: DeliveryClaims, reason: string, now = Date.now()): Promise<void> {
  // Anyone can send these: one entry per sender a minute, so they cannot flood the log.
  if ((await lastAuditedAt(db, "webhook.rejected", { ip }, now - REJECTION_AUDIT_WINDOW_MS)) !== undefined) return;
  const topic = claimed.replace(/[^\w/.-]/g, "").slice(0, 60);
  await audit(db, null, "webhook.rejected", "shopify-webhook", { reason, topic }, ip);
}

/** The queue message for one recorded delivery: the consumer reads its body from the row. */
export interface ShopifyDeliveryJob {
  kind: "shopify-delivery";
  deliveryId: string;
}

/** Outcomes after which a delivery is done with: never queued or applied again. */
export const FINISHED_OUTCOMES = ["processed", "ignored", "rejected"];

/**
 * The request path of a delivery (decision 031): check the signature, record the delivery once
 * (a retry carries the same id), queue it and answer. Nothing is parsed or applied here, so the
 * answer never waits for fulfilment. `unauthenticated` for a bad signature; `unavailable` when the
 * queue could not take it (Shopify retries, and the retry queues it again).
 */
export async function receiveShopifyWebhook(
  deps: { db: Db; queue: JobQueue<ShopifyDeliveryJob> },
  secret: string,
  delivery: WebhookDelivery,
  now = Date.now(),
): Promise<Result<DeliveryOutcome>> {
  const { body, topic } = delivery;
  const { db } = deps;
  if (!(await verifyWebhookSignature(body, delivery.hmac, secret))) {
    await auditRejectedDelivery(db, delivery, "Invalid signature");
    return fail("unauthenticated", "Invalid signature");
  }
  const text = new TextDecoder().decode(body);
  // Shopify names every delivery; a retry carries the same name.
  const deliveryId = delivery.webhookId?.slice(0, 100) || `body:${await sha256Hex(`${topic}\n${text}`)}`;
  const record = { id: deliveryId, topic: topic.slice(0, 100), receivedAt: now };

  if (!(HANDLED_TOPICS as readonly string[]).includes(topic)) {
    await db
      .insert(webhookDeliveries)
      .values({ ...record, outcome: "ignored", detail: `Topic "${topic || "(none)"}" is not handled` })
      .onConflictDoNothing();
    return ok("ignored");
  }
  // A delivery seen before is queued again only while it is unhandled (still queued, or failing):
  // its first message may never have been sent.
  const unhandled = await db
    .insert(webhookDeliveries)
    .values({ ...record, outcome: "queued", payload: text })
    // The first body stays: only the body is signed, not the id, so a different signed body sent
    // under a pending delivery's id must not replace it.
    .onConflictDoUpdate({
      target: webhookDeliveries.id,
      set: { payload: sql`coalesce(${webhookDeliveries.payload}, excluded.payload)` },
      setWhere: notInArray(webhookDeliveries.outcome, FINISHED_OUTCOMES),
    })
    .returning({ id: webhookDeliveries.id })
    .get();
  if (!unhandled) return ok("already-processed");
  try {
    await deps.queue.send({ kind: "shopify-delivery", deliveryId });
  } catch (error) {
    console.error("Could not queue a webhook delivery:", error);
    return fail("unavailable", "Could not queue the delivery; please retry");
  }
  return ok("queued");
}

/** How long a delivery may stay queued before the cron trigger queues it again. */
export const STUCK_DELIVERY_MS = 10 * 60 * 1000;

/**
 * Cron: queues again every delivery still waiting for the queue after ten minutes. Its message was
 * lost (the queue refused it after the row was written, and nobody retried), or a backlog is that
 * long; either way a second message is harmless, since a handled delivery is skipped.
 */
export async function requeueStuckDeliveries(deps: { db: Db; queue: JobQueue<ShopifyDeliveryJob> }, now = Date.now()): Promise<number> {
  const stuck = await deps.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.outcome, "queued"),
        lt(webhookDeliveries.receivedAt, now - STUCK_DELIVERY_MS),
        // One the queue is already retrying (or gave up on, for the admin to retry) is not sent again.
        sql`not exists (select 1 from ${failedJobs} where ${failedJobs.id} = 'shopify:' || ${webhookDeliveries.id})`,
      ),
    )
    .orderBy(webhookDeliveries.receivedAt)
    .limit(100);
  for (const { id } of stuck) await deps.queue.send({ kind: "shopify-delivery", deliveryId: id });
  return stuck.length;
}

/**
 * Whether an order for `email` is accepted but its keys are not handed out yet: a delivery still
 * with the queue (or being retried) whose order names that address.
 */
export async function orderOnItsWay(db: Db, email: string): Promise<boolean> {
  const payload = webhookDeliveries.payload;
  const buyer = sql`case when json_valid(${payload}) then lower(coalesce(json_extract(${payload}, '$.email'), json_extract(${payload}, '$.contact_email'), json_extract(${payload}, '$.customer.email'))) end`;
  const row = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.outcome, ["queued", "error"]), inArray(webhookDeliveries.topic, ["orders/create", "orders/updated", "orders/paid"]), sql`${buyer} = ${email.toLowerCase()}`))
    .get();
  return row !== undefined;
}

/** The latest deliveries with their outcome, for the admin's webhook card. */
export function latestDeliveries(db: Db, limit = 10) {
  return db
    .select({ ...getTableColumns(webhookDeliveries), orderName: orderName(webhookDeliveries.orderId) })
    .from(webhookDeliveries)
    .orderBy(desc(webhookDeliveries.receivedAt))
    .limit(limit);
}
