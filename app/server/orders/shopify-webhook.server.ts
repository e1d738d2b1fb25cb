// Shopify order webhooks, the request's half (decisions 031, 067): the signature is checked, the
// signed body queued, and the answer goes back at once; the job queue's consumer records the delivery
// once (a retry carries the same id, and the first body stays) and applies it
// (shopify-consumer.server). Also
// the deliveries' bookkeeping: stuck ones queued again, the admin's list, an order on its way.
// Unsigned deliveries change nothing but an audit entry.
import { and, desc, eq, inArray, lt, notInArray, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { audit, lastAuditedAt } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { bound, builtOnce, read } from "../platform/db/reads.server";
import { failedJobs, webhookDeliveries } from "../platform/db/schema.server";
import { INLINE_BODY_BYTES, type JobQueue } from "../platform/job-registry.server";
import { verifyWebhookSignature } from "../platform/shopify-hmac.server";
import { sha256Hex } from "../platform/tokens.server";
import { orderName } from "../platform/db/stored-orders.server";

/** Topics routed to the consumer. What a delivery does is decided by its signed body, not its topic. */
export const HANDLED_TOPICS = [
  "orders/create",
  "orders/updated",
  "orders/paid",
  "orders/cancelled",
  "refunds/create",
  "disputes/create",
  "disputes/update",
] as const;

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
export async function auditRejectedDelivery(
  db: Db,
  { ip, topic: claimed }: DeliveryClaims,
  reason: string,
  now = Date.now(),
): Promise<void> {
  // Anyone can send these: one entry per sender a minute, so they cannot flood the log.
  if ((await lastAuditedAt(db, "webhook.rejected", { ip }, now - REJECTION_AUDIT_WINDOW_MS)) !== undefined) return;
  const topic = claimed.replace(/[^\w/.-]/g, "").slice(0, 60);
  await audit(db, null, "webhook.rejected", "shopify-webhook", { reason, topic }, ip);
}

/** Outcomes after which a delivery is done with: never queued or applied again. */
export const FINISHED_OUTCOMES = ["processed", "ignored", "rejected"];

interface DeliveryRecord {
  id: string;
  topic: string;
  receivedAt: number;
}

/**
 * Records a delivery with its body, once: a retry carries the same id. Returns the delivery as
 * stored while it is still unhandled (newly recorded, still queued, or failing), with the body
 * that was kept; nothing for a handled one, which is never applied again.
 */
export async function recordDelivery(db: Db, record: DeliveryRecord, payload: string) {
  return (
    db
      .insert(webhookDeliveries)
      .values({ ...record, outcome: "queued", payload })
      // The first body stays: only the body is signed, not the id, so a different signed body sent
      // under a pending delivery's id must not replace it.
      .onConflictDoUpdate({
        target: webhookDeliveries.id,
        set: { payload: sql`coalesce(${webhookDeliveries.payload}, excluded.payload)` },
        setWhere: notInArray(webhookDeliveries.outcome, FINISHED_OUTCOMES),
      })
      .returning()
      .get()
  );
}

/**
 * The request path of a delivery (decisions 031, 067): check the signature and make the delivery
 * durable with one write, then answer. The write is the queue message carrying the signed body;
 * the consumer records the delivery, drops a retry of a handled one, and applies it. Only when the
 * message cannot carry the body, or the queue refuses it, is the delivery written to D1 here (and
 * the cron queues again what the queue did not take). `unauthenticated` for a bad signature;
 * `unavailable` when the queue could not take it (Shopify retries, and the retry queues it again).
 */
export async function receiveShopifyWebhook(
  deps: { db: Db; queue: JobQueue<"shopify-delivery"> },
  secret: string,
  delivery: WebhookDelivery,
  now = Date.now(),
): Promise<Result<DeliveryOutcome>> {
  const { body, topic } = delivery;
  const { db, queue } = deps;
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
  if (body.byteLength <= INLINE_BODY_BYTES) {
    try {
      await queue.send({ kind: "shopify-delivery", deliveryId, delivered: { topic: record.topic, receivedAt: now, payload: text } });
      return ok("queued");
    } catch (error) {
      console.error("Could not queue a webhook delivery:", error);
    }
    // Kept for the cron to queue again; Shopify is told to retry too.
    return (await recordDelivery(db, record, text)) !== undefined
      ? fail("unavailable", "Could not queue the delivery; please retry")
      : ok("already-processed");
  }
  // A seen delivery is queued again only while it is unhandled: its first message may be lost.
  if ((await recordDelivery(db, record, text)) === undefined) return ok("already-processed");
  try {
    await queue.send({ kind: "shopify-delivery", deliveryId });
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
export async function requeueStuckDeliveries(deps: { db: Db; queue: JobQueue<"shopify-delivery"> }, now = Date.now()): Promise<number> {
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

const orderOnItsWayQuery = builtOnce((db) =>
  db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.buyerEmail, sql.placeholder("email")),
        inArray(webhookDeliveries.outcome, ["queued", "error"]),
        inArray(webhookDeliveries.topic, ["orders/create", "orders/updated", "orders/paid"]),
      ),
    )
    .limit(1)
    .prepare(),
);

/**
 * Whether an order for `email` is accepted but its keys are not handed out yet: a delivery still
 * with the queue (or being retried) whose order names that address. A read not yet run: the page
 * sends it with its other reads in one batch.
 */
export function orderOnItsWayRead(db: Db, email: string) {
  return read([bound(orderOnItsWayQuery(db), { email: email.toLowerCase() })], ([rows]) => rows.length > 0);
}

/** The latest deliveries with their outcome, for the admin's webhook card. */
export function latestDeliveries(db: Db, limit = 10) {
  return db
    .select({
      id: webhookDeliveries.id,
      topic: webhookDeliveries.topic,
      outcome: webhookDeliveries.outcome,
      detail: webhookDeliveries.detail,
      orderId: webhookDeliveries.orderId,
      orderName: orderName(webhookDeliveries.orderId),
      receivedAt: webhookDeliveries.receivedAt,
    })
    .from(webhookDeliveries)
    .orderBy(desc(webhookDeliveries.receivedAt))
    .limit(limit);
}
