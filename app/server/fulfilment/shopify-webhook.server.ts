// Shopify order webhooks in two halves. The request checks the signature, records the delivery
// (recognising repeats) and queues it; the queue consumer parses the payload and hands it to
// fulfilment. Shopify signs the body only, so the body alone decides what happens: its own state
// (paid, cancelled, refunds, lines), applied only if it is not older than what the order already
// holds. Unsigned deliveries change nothing; malformed ones are recorded as rejected so the admin
// can see them; a failure is retried by the queue (every step is idempotent).
import { and, desc, eq, getTableColumns, inArray, lt, notInArray, sql } from "drizzle-orm";
import * as v from "valibot";
import { orderKey } from "~/lib/orders";
import { variantLabel } from "~/lib/plans";
import { fail, ok, type Result } from "~/lib/result";
import { audit, lastAuditedAt } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { failedJobs, shopifyOrders, webhookDeliveries } from "../platform/db/schema.server";
import { errorText, type JobQueue } from "../platform/job-queue.server";
import type { MailingDeps } from "../platform/mail.server";
import { sha256Hex } from "../platform/tokens.server";
import { lineVariant, type Order, orderName } from "./order-lines.server";
import { fulfilOrder, recordOrder } from "./orders.server";
import { mailKeysStopped } from "./buyer-emails.server";
import { cancelOrder, recordRefund, type RevokedKey, storeRefund } from "./refunds.server";
import { verifyWebhookSignature } from "../platform/shopify-hmac.server";

const id = v.pipe(
  v.union([v.pipe(v.number(), v.integer(), v.minValue(1)), v.pipe(v.string(), v.regex(/^\d{1,20}$/))]),
  v.transform(String),
);
const money = v.pipe(v.union([v.string(), v.number()]), v.transform(String), v.regex(/^\d+(\.\d+)?$/, "Invalid amount"));
const maybeText = v.optional(v.nullable(v.string()));

const lineItemSchema = v.object({
  id,
  variant_id: v.optional(v.nullable(v.union([v.number(), v.string()]))),
  quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)),
  title: v.pipe(v.string(), v.maxLength(500)),
  variant_title: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
  price: money,
});

const refundLinesSchema = v.optional(v.array(v.object({ line_item_id: id, quantity: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000)) })), []);

const refundSchema = v.object({ id, order_id: id, refund_line_items: refundLinesSchema });

const orderSchema = v.object({
  id,
  name: v.optional(v.string()),
  email: maybeText,
  contact_email: maybeText,
  customer: v.optional(v.nullable(v.object({ email: maybeText }))),
  financial_status: v.optional(v.nullable(v.string())),
  currency: v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, "Invalid currency")),
  total_price: v.optional(money),
  cancelled_at: v.optional(v.nullable(v.string())),
  updated_at: v.optional(v.nullable(v.string())),
  cart_token: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200)))),
  line_items: v.pipe(v.array(lineItemSchema), v.maxLength(250)),
  refunds: v.optional(v.array(v.object({ id, refund_line_items: refundLinesSchema })), []),
});

/** Financial states of an order whose payment was captured (a refund starts from a payment). */
const PAID_STATES = ["paid", "partially_refunded", "refunded"];

/** Topics routed to the consumer. What a delivery does is decided by its signed body, not its topic. */
export const HANDLED_TOPICS = ["orders/create", "orders/updated", "orders/paid", "orders/cancelled", "refunds/create"] as const;

/** What became of a delivery that was accepted. */
export type DeliveryOutcome = "queued" | "already-processed" | "ignored";

function parse<T extends v.GenericSchema>(schema: T, json: unknown): Result<v.InferOutput<T>> {
  const result = v.safeParse(schema, json);
  if (result.success) return ok(result.output);
  const issue = result.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join(".") ?? "payload";
  return fail("invalid", `${path}: ${issue.message}`);
}

/**
 * The buyer's address as the order gives it, never refused for its form: Shopify checked it, and
 * a paid order gets its keys whatever its address looks like (mail that cannot be delivered flags
 * the order for staff instead). "" when the order names none.
 */
function buyerAddress(raw: v.InferOutput<typeof orderSchema>): string {
  const given = [raw.email, raw.contact_email, raw.customer?.email].map((e) => e?.trim() ?? "").find((e) => e !== "");
  return (given ?? "").toLowerCase().slice(0, 320);
}

function toOrder(raw: v.InferOutput<typeof orderSchema>): Order {
  const updatedAt = raw.updated_at ? Date.parse(raw.updated_at) : Number.NaN;
  return {
    id: raw.id,
    name: raw.name ?? `#${raw.id}`,
    email: buyerAddress(raw),
    currency: raw.currency,
    financialStatus: raw.financial_status ?? null,
    totalPrice: raw.total_price ?? null,
    paid: PAID_STATES.includes(raw.financial_status ?? ""),
    cancelled: Boolean(raw.cancelled_at),
    updatedAt: Number.isFinite(updatedAt) ? updatedAt : 0,
    cartToken: raw.cart_token || null,
    lines: raw.line_items.map((line) => ({
      id: line.id,
      variantId: lineVariant(line.variant_id),
      quantity: line.quantity,
      title: line.title,
      variantTitle: variantLabel(line.variant_title || "Default Title"),
      price: line.price,
    })),
    refunds: raw.refunds.map((refund) => ({ id: refund.id, lines: refundLines(refund.refund_line_items) })),
  };
}

const refundLines = (lines: v.InferOutput<typeof refundLinesSchema>) => lines.map((l) => ({ lineId: l.line_item_id, quantity: l.quantity }));

/**
 * The buyer hears which of the keys they were sent a refund or cancellation stopped (once: the
 * dedupe key names the event). A key revoked before it was ever mailed is not news to them.
 */
async function mailStoppedKeys(deps: MailingDeps, orderId: string, revoked: RevokedKey[], why: string, dedupeKey: string): Promise<void> {
  const told = revoked.filter((k) => k.mailedAt !== null);
  const to = told.find((k) => k.customerEmail)?.customerEmail;
  if (!to) return;
  const order = await deps.db.select({ name: shopifyOrders.name }).from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get();
  await mailKeysStopped(deps, { to, name: order?.name ?? orderId, orderKey: orderKey("shopify", orderId) }, told, why, dedupeKey);
}

type Applied = { outcome: "processed" | "ignored"; detail: string; orderId: string } | { rejected: string };

/** A refund body (recognised by its shape): stored once, applied once the order is paid. */
async function applyRefundBody(deps: MailingDeps, json: unknown): Promise<Applied> {
  const refund = parse(refundSchema, json);
  if (!refund.ok) return { rejected: refund.problem.message };
  const { id: refundId, order_id: orderId } = refund.value;
  const result = await recordRefund(deps.db, refundId, orderId, refundLines(refund.value.refund_line_items));
  if (result.state === "applied") await mailStoppedKeys(deps, orderId, result.revoked, "the order was refunded", `keys-stopped:refund:${refundId}`);
  const detail =
    result.state === "applied"
      ? `Refund: ${result.revoked.length} key(s) revoked, ${result.cancelled} waiting unit(s) cancelled`
      : result.state === "already-applied"
        ? "Refund was already applied"
        : "Refund recorded: it is applied once the order is paid";
  return { outcome: "processed", detail, orderId };
}

/**
 * An order body: what it says of the order (paid, cancelled, refunds, lines) is applied, unless a
 * newer body of the same order was applied before. The topic it came under plays no part: only
 * the body is signed (decision 043).
 */
async function applyOrderBody(deps: MailingDeps, json: unknown): Promise<Applied> {
  const raw = parse(orderSchema, json);
  if (!raw.ok) return { rejected: raw.problem.message };
  const { db } = deps;
  const body = toOrder(raw.value);
  const recorded = await recordOrder(db, body);
  if (recorded.stale) {
    const when = body.updatedAt ? new Date(body.updatedAt).toISOString() : "none";
    return { outcome: "ignored", detail: `Older than the order's state already applied (updated_at ${when}): nothing changed`, orderId: body.id };
  }
  // The keys go to the address the order holds: the first body's, or the one staff corrected.
  const order = { ...body, email: recorded.email };
  // Kept before anything is handed out: a unit this body says was refunded is never mailed.
  for (const refund of order.refunds) await storeRefund(db, refund.id, order.id, refund.lines);
  if (recorded.cancelled) {
    const revoked = await cancelOrder(db, order.id);
    await mailStoppedKeys(deps, order.id, revoked, "the order was cancelled", `keys-stopped:cancel:${order.id}`);
    return { outcome: "processed", detail: revoked.length > 0 ? `Cancelled: ${revoked.length} key(s) revoked` : "Order is cancelled: nothing handed out", orderId: order.id };
  }
  // This body's own word: units an edit added are handed out only once the order is paid again.
  if (!order.paid) return { outcome: "processed", detail: `Not paid yet (${order.financialStatus ?? "unknown"}): waiting for the payment`, orderId: order.id };
  const result = await fulfilOrder(deps, order);
  for (const { refundId, revoked } of result.refunded) await mailStoppedKeys(deps, order.id, revoked, "the order was refunded", `keys-stopped:refund:${refundId}`);
  const detail = [
    `${result.assigned} key(s) handed out`,
    result.backordered ? `${result.backordered} backordered` : "",
    result.skippedLines ? `${result.skippedLines} line(s) without a variant skipped` : "",
    result.refunded.length ? `${result.refunded.reduce((n, r) => n + r.revoked.length, 0)} key(s) revoked by refunds` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return { outcome: "processed", detail, orderId: order.id };
}

/** What a body names itself in Shopify's Admin API, where it says (every webhook body does): "Order", "Refund"… */
function kindOf(body: object): string | null {
  const gid = "admin_graphql_api_id" in body && typeof body.admin_graphql_api_id === "string" ? body.admin_graphql_api_id : "";
  return /^gid:\/\/shopify\/(\w+)\//.exec(gid)?.[1] ?? null;
}

/**
 * An order body carries line items; a refund body names its order. A body that names itself as
 * something else (a draft order, a transaction) is not one, whatever its fields.
 */
function applyDelivery(deps: MailingDeps, json: unknown): Promise<Applied> {
  const body = json !== null && typeof json === "object" && !Array.isArray(json) ? json : {};
  const kind = kindOf(body);
  if ("line_items" in body && (kind === null || kind === "Order")) return applyOrderBody(deps, json);
  if ("order_id" in body && !("line_items" in body) && (kind === null || kind === "Refund")) return applyRefundBody(deps, json);
  return Promise.resolve({ rejected: "payload: neither an order (line_items) nor a refund (order_id)" });
}

/**
 * The largest delivery read (decision 026). An order or refund payload is a few kilobytes plus a
 * few per line item, so a body near a megabyte is not an order of ours: it is refused unread.
 */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

export interface WebhookDelivery {
  body: ArrayBuffer;
  headers: Headers;
}

const REJECTION_AUDIT_WINDOW_MS = 60_000;

/**
 * Writes a refused delivery (bad signature, body over the cap) to the audit log, under one fixed
 * subject, with the topic it claimed (untrusted: cleaned and cut short) and the sender's address;
 * at most once a minute per address. Nothing else is kept.
 */
export async function auditRejectedDelivery(db: Db, headers: Headers, reason: string, now = Date.now()): Promise<void> {
  const ip = headers.get("CF-Connecting-IP");
  // Anyone can send these: one entry per sender a minute, so they cannot flood the log.
  if ((await lastAuditedAt(db, "webhook.rejected", { ip }, now - REJECTION_AUDIT_WINDOW_MS)) !== undefined) return;
  const topic = (headers.get("X-Shopify-Topic") ?? "").replace(/[^\w/.-]/g, "").slice(0, 60);
  await audit(db, null, "webhook.rejected", "shopify-webhook", { reason, topic }, ip);
}

/** The queue message for one recorded delivery: the consumer reads its body from the row. */
export interface ShopifyDeliveryJob {
  kind: "shopify-delivery";
  deliveryId: string;
}

const FINISHED = ["processed", "ignored", "rejected"];

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
  const { body, headers } = delivery;
  const { db } = deps;
  const topic = headers.get("X-Shopify-Topic") ?? "";
  if (!(await verifyWebhookSignature(body, headers.get("X-Shopify-Hmac-Sha256"), secret))) {
    await auditRejectedDelivery(db, headers, "Invalid signature");
    return fail("unauthenticated", "Invalid signature");
  }
  const text = new TextDecoder().decode(body);
  // Shopify names every delivery; a retry carries the same name.
  const deliveryId = headers.get("X-Shopify-Webhook-Id")?.slice(0, 100) || `body:${await sha256Hex(`${topic}\n${text}`)}`;
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
      setWhere: notInArray(webhookDeliveries.outcome, FINISHED),
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
 * The consumer's half: applies one recorded delivery and notes its outcome. A delivery handled
 * before is left alone; a payload we cannot read is rejected for good; a failure is noted on the
 * delivery and thrown, so the queue retries it (every step of applying it is idempotent).
 */
export async function processDelivery(deps: MailingDeps, deliveryId: string): Promise<void> {
  const { db } = deps;
  const delivery = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  // Only a delivery we recorded is ever queued: not finding it means the write is not visible
  // yet, so this is worth retrying.
  if (!delivery) throw new Error(`Webhook delivery ${deliveryId} is not recorded`);
  if (FINISHED.includes(delivery.outcome)) return;
  // A copy of this job that ran at the same time may have finished it: its outcome stands.
  const finish = (outcome: string, detail: string, orderId?: string) =>
    db
      .update(webhookDeliveries)
      .set({ outcome, detail: detail.slice(0, 500), orderId: orderId ?? null, ...(FINISHED.includes(outcome) ? { payload: null } : {}) })
      .where(and(eq(webhookDeliveries.id, deliveryId), notInArray(webhookDeliveries.outcome, FINISHED)));

  // Only a delivery recorded before bodies were kept lacks one; Shopify's next retry stores it.
  if (delivery.payload === null) throw new Error(`Webhook delivery ${deliveryId} has no stored body yet`);
  let json: unknown;
  try {
    json = JSON.parse(delivery.payload);
  } catch {
    await finish("rejected", "Body is not JSON");
    return;
  }
  try {
    const result = await applyDelivery(deps, json);
    if ("rejected" in result) await finish("rejected", result.rejected);
    else await finish(result.outcome, result.detail, result.orderId);
  } catch (error) {
    await finish("error", errorText(error));
    throw error;
  }
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
