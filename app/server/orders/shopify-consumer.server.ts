// The job queue's half of a Shopify delivery (decision 031): the recorded body is read
// (shopify-payloads.server) and applied to its order — recorded unless older than the state the
// order already holds, refunds stored, keys handed out, revoked or mailed — and the delivery's
// outcome noted. A failure is noted and thrown, so the queue retries it: every step is idempotent.
import { and, eq, notInArray } from "drizzle-orm";
import { recordCommission } from "../affiliates/ledger.server";
import { webhookDeliveries } from "../platform/db/schema.server";
import { errorText } from "../platform/job-queue.server";
import type { MailingDeps } from "../platform/mail.server";
import { mailRevokedKeys } from "../keys/key-mail.server";
import type { Order } from "./incoming-order.server";
import { fulfilOrder, recordOrder } from "./fulfil-order.server";
import { cancelOrder, recordRefund, type RefundedLine, storeRefund } from "./refunds.server";
import { readShopifyBody } from "./shopify-payloads.server";
import { mailTakenBack } from "../renewals/order-renewals.server";
import { applyDispute, type DisputeBody, followOrderDisputes } from "../disputes/disputes.server";
import { audit } from "../platform/audit.server";
import { shopifyOrders } from "../platform/db/schema.server";
import type { OrderLine } from "../platform/db/stored-orders.server";
import { heldForReview, releaseHeldOrder } from "./order-risk.server";
import type { Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import type { JobOf } from "../platform/job-registry.server";
import { FINISHED_OUTCOMES, recordDelivery } from "./shopify-webhook.server";

type Applied = { outcome: "processed" | "ignored"; detail: string; orderId: string } | { rejected: string };

/** A refund body (recognised by its shape): stored once, applied once the order is paid. */
async function applyRefundBody(deps: MailingDeps, refund: { refundId: string; orderId: string; lines: RefundedLine[] }): Promise<Applied> {
  const { refundId, orderId } = refund;
  const result = await recordRefund(deps.db, refundId, orderId, refund.lines);
  if (result.state === "applied") {
    await mailRevokedKeys(deps, orderId, result.revoked, "the order was refunded", `keys-stopped:refund:${refundId}`);
    await mailTakenBack(deps, result.takenBack);
  }
  const detail =
    result.state === "applied"
      ? `Refund: ${result.revoked.length} key(s) revoked, ${result.cancelled} waiting unit(s) cancelled${result.takenBack.length ? `, ${result.takenBack.length} renewal(s) taken back` : ""}`
      : result.state === "already-applied"
        ? "Refund was already applied"
        : "Refund recorded: it is applied once the order is paid";
  return { outcome: "processed", detail, orderId };
}

/**
 * A dispute's loss costs the order what a refund of everything would: its keys revoked (their
 * licences answer REVOKED), waiting units cancelled, the time its renewals added taken back, the
 * buyer told. Safe to repeat.
 */
async function revokeForLostDispute(deps: MailingDeps, orderId: string, disputeId: string) {
  const { revoked, takenBack } = await cancelOrder(deps.db, orderId);
  if (revoked.length > 0 || takenBack.length > 0)
    await audit(deps.db, null, "dispute.keys-revoked", `shopify:${orderId}`, {
      dispute: disputeId,
      keys: revoked.length,
      renewals: takenBack.length,
    });
  await mailRevokedKeys(deps, orderId, revoked, "the payment was disputed and the dispute was lost", `keys-stopped:dispute:${disputeId}`);
  await mailTakenBack(deps, takenBack);
  return revoked;
}

/** A dispute body (recognised by its shape): the order's licences follow the dispute (decision 092). */
async function applyDisputeBody(deps: MailingDeps, dispute: DisputeBody): Promise<Applied> {
  const outcome = await applyDispute(deps.db, dispute);
  const orderId = dispute.orderId;
  if (outcome === "lost") {
    const revoked = await revokeForLostDispute(deps, orderId, dispute.id);
    return { outcome: "processed", detail: `Dispute lost: ${revoked.length} key(s) revoked`, orderId };
  }
  const detail =
    outcome === "open" ? `Dispute open (${dispute.status}): the order's keys are suspended` : "Dispute won: the order's keys work again";
  return { outcome: "processed", detail, orderId };
}

/**
 * An order body: what it says of the order (paid, cancelled, refunds, lines) is applied, unless a
 * newer body of the same order was applied before. The topic it came under plays no part: only
 * the body is signed (decision 043).
 */
async function applyOrderBody(deps: MailingDeps, body: Order): Promise<Applied> {
  const { db } = deps;
  const recorded = await recordOrder(db, body);
  if (recorded.stale) {
    const when = body.updatedAt ? new Date(body.updatedAt).toISOString() : "none";
    return {
      outcome: "ignored",
      detail: `Older than the order's state already applied (updated_at ${when}): nothing changed`,
      orderId: body.id,
    };
  }
  // The keys go to the address the order holds: the first body's, or the one staff corrected.
  const order = { ...body, email: recorded.email };
  // Kept before anything is handed out: a unit this body says was refunded is never mailed.
  for (const refund of order.refunds) await storeRefund(db, refund.id, order.id, refund.lines);
  if (recorded.cancelled) {
    const { revoked, takenBack } = await cancelOrder(db, order.id);
    await mailRevokedKeys(deps, order.id, revoked, "the order was cancelled", `keys-stopped:cancel:${order.id}`);
    await mailTakenBack(deps, takenBack);
    return {
      outcome: "processed",
      detail:
        revoked.length + takenBack.length > 0
          ? `Cancelled: ${revoked.length} key(s) revoked, ${takenBack.length} renewal(s) taken back`
          : "Order is cancelled: nothing handed out",
      orderId: order.id,
    };
  }
  // This body's own word: units an edit added are handed out only once the order is paid again.
  if (!order.paid)
    return {
      outcome: "processed",
      detail: `Not paid yet (${order.financialStatus ?? "unknown"}): waiting for the payment`,
      orderId: order.id,
    };
  // Before the keys: a refund this body carries is applied while handing them out, and voids it.
  const paidCents = Math.round(Number(order.totalPrice ?? 0) * 100);
  const orderKey = `shopify:${order.id}`;
  await recordCommission(db, order.referral ? { code: order.referral } : null, {
    orderKey,
    paidCents,
    currency: order.currency,
    buyer: { email: order.email },
    paidAt: Date.now(),
  });
  // A blocked buyer (or, while staff hold them, a risky order) waits for staff instead (decision 093).
  const review = await heldForReview(db, order);
  if (review.held)
    return {
      outcome: "processed",
      detail: `Held for review (${review.reasons.join(", ")}): no keys until staff release it`,
      orderId: order.id,
    };
  const result = await handOutKeys(deps, order);
  const detail = [
    `${result.assigned} key(s) handed out`,
    result.renewed.length ? `${result.renewed.length} unit(s) renewed a licence` : "",
    result.backordered ? `${result.backordered} backordered` : "",
    result.skippedLines ? `${result.skippedLines} line(s) without a variant skipped` : "",
    result.refunded.length ? `${result.refunded.reduce((n, r) => n + r.revoked.length, 0)} key(s) revoked by refunds` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return { outcome: "processed", detail, orderId: order.id };
}

/**
 * A paid order's keys handed out and mailed, its waiting refunds applied, then its disputes
 * followed: a dispute that arrived before the keys existed suspends (or, lost, revokes) them too.
 */
async function handOutKeys(deps: MailingDeps, order: Order) {
  const result = await fulfilOrder(deps, order);
  for (const { refundId, revoked, takenBack } of result.refunded) {
    await mailRevokedKeys(deps, order.id, revoked, "the order was refunded", `keys-stopped:refund:${refundId}`);
    await mailTakenBack(deps, takenBack);
  }
  const disputed = await followOrderDisputes(deps.db, order.id);
  if (disputed.lost !== null) await revokeForLostDispute(deps, order.id, disputed.lost);
  return result;
}

/**
 * Staff release an order held for review: the one who claims the release (order-risk.server) hands
 * its keys out now, as the paid body would have, from the order as stored.
 */
export async function releaseOrder(
  deps: MailingDeps,
  actor: { viewer: Viewer; ip: string | null },
  orderId: string,
): Promise<Result<{ assigned: number }>> {
  const released = await releaseHeldOrder(deps.db, actor, orderId);
  if (!released.ok) return released;
  const row = await deps.db.select().from(shopifyOrders).where(eq(shopifyOrders.id, orderId)).get();
  if (!row || row.paidAt === null || row.cancelledAt !== null) return { ok: true, value: { assigned: 0 } };
  const result = await handOutKeys(deps, storedOrder(row));
  return { ok: true, value: { assigned: result.assigned } };
}

function storedOrder(row: typeof shopifyOrders.$inferSelect): Order {
  return {
    id: row.id,
    name: row.name ?? `#${row.id}`,
    email: row.email,
    currency: row.currency,
    financialStatus: row.financialStatus,
    totalPrice: row.totalPrice,
    paid: true,
    cancelled: false,
    updatedAt: row.sourceUpdatedAt ?? 0,
    cartToken: row.cartToken,
    referral: null,
    country: row.country,
    browserIp: row.browserIp,
    renewsLicence: row.renewsLicenceId,
    lines: JSON.parse(row.lineItems) as OrderLine[],
    refunds: [],
  };
}

async function applyDelivery(deps: MailingDeps, json: unknown): Promise<Applied> {
  const body = readShopifyBody(json);
  switch (body.kind) {
    case "order":
      return applyOrderBody(deps, body.order);
    case "refund":
      return applyRefundBody(deps, body);
    case "dispute":
      return applyDisputeBody(deps, body.dispute);
    case "rejected":
      return { rejected: body.reason };
  }
}

/**
 * The consumer's half: records a delivery that came with its body (once: a retry carries the same
 * id), applies it and notes its outcome. A delivery handled before is left alone; a payload we
 * cannot read is rejected for good; a failure is noted on the delivery and thrown, so the queue
 * retries it (every step of applying it is idempotent).
 */
export async function processDelivery(deps: MailingDeps, job: Omit<JobOf<"shopify-delivery">, "kind">): Promise<{ orderId?: string }> {
  const { db } = deps;
  const { deliveryId, delivered } = job;
  // A body that came with the job is recorded, and the row as stored is what is applied; a job
  // naming only its id reads the body the request (or the cron) recorded.
  const delivery = delivered
    ? await recordDelivery(db, { id: deliveryId, topic: delivered.topic, receivedAt: delivered.receivedAt }, delivered.payload)
    : await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  if (!delivery) {
    if (delivered) return {};
    // Only a delivery we recorded is ever queued: not finding it means the write is not visible
    // yet, so this is worth retrying.
    throw new Error(`Webhook delivery ${deliveryId} is not recorded`);
  }
  if (FINISHED_OUTCOMES.includes(delivery.outcome)) return {};
  // A copy of this job that ran at the same time may have finished it: its outcome stands.
  const finish = (outcome: string, detail: string, orderId?: string) =>
    db
      .update(webhookDeliveries)
      .set({
        outcome,
        detail: detail.slice(0, 500),
        orderId: orderId ?? null,
        ...(FINISHED_OUTCOMES.includes(outcome) ? { payload: null } : {}),
      })
      .where(and(eq(webhookDeliveries.id, deliveryId), notInArray(webhookDeliveries.outcome, FINISHED_OUTCOMES)));

  // Only a delivery recorded before bodies were kept lacks one; Shopify's next retry stores it.
  if (delivery.payload === null) throw new Error(`Webhook delivery ${deliveryId} has no stored body yet`);
  let json: unknown;
  try {
    json = JSON.parse(delivery.payload);
  } catch {
    await finish("rejected", "Body is not JSON");
    return {};
  }
  try {
    const result = await applyDelivery(deps, json);
    if ("rejected" in result) {
      await finish("rejected", result.rejected);
      return {};
    }
    await finish(result.outcome, result.detail, result.orderId);
    return { orderId: result.orderId };
  } catch (error) {
    await finish("error", errorText(error));
    throw error;
  }
}
