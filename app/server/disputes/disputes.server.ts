// Payment disputes (decision 092). Shopify's dispute bodies (disputes/create, disputes/update) are
// recorded here, and the order follows the dispute's outcome as we keep it: open suspends the
// order's licences (their answers say SUSPENDED, with a reason the program can show), voids the
// affiliate commission while it is held and holds, from the affiliate's reseller balance, commission
// already released; won lifts the suspension and gives the commission and the hold back; lost is for
// the orders domain to revoke the keys as a refund does. The outcome only moves forward (open, then
// won or lost for good), and every effect is a conditional statement that checks the outcome as
// stored, so retries, replays and deliveries in any order end in the same state. Each effect that
// changed something is audited.
import { desc, eq, inArray, sql } from "drizzle-orm";
import { ANSWER_REASON } from "~/lib/fraud";
import { commissionOfOrder, restoreDisputedCommission, voidCommissionOf } from "../affiliates/ledger.server";
import { liftOrderSuspension, suspendOrderLicences } from "../licences/licence-records.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { disputes } from "../platform/db/schema.server";
import { holdForDispute, releaseDisputeHold } from "../resellers/reseller-balance.server";

export type DisputeOutcome = (typeof disputes.$inferSelect)["outcome"];

/** A dispute body as Shopify signs it, in our terms. */
export interface DisputeBody {
  id: string;
  orderId: string;
  type: string;
  reason: string | null;
  status: string;
  amount: string | null;
  currency: string | null;
  evidenceDueBy: number | null;
  initiatedAt: number | null;
}

/**
 * Shopify's dispute statuses, as the order follows them: needs_response and under_review are open;
 * won is won; lost, accepted (the shop gave in) and charge_refunded (the charge was refunded) are
 * lost. An unknown status counts as open: the keys stay suspended until Shopify says how it ended.
 */
export function outcomeOf(status: string): DisputeOutcome {
  if (status === "won") return "won";
  if (["lost", "accepted", "charge_refunded"].includes(status)) return "lost";
  return "open";
}

// Audited under the order (its page's timeline shows the dispute), naming the dispute.
const orderSubject = (orderId: string) => `shopify:${orderId}`;
const suspendedBy = (disputeId: string) => `dispute:${disputeId}`;
/** The dispute's outcome as stored is `outcome`: the condition every effect is written under. */
const disputeIs = (disputeId: string, outcome: DisputeOutcome) =>
  sql`exists (select 1 from ${disputes} where ${disputes.id} = ${disputeId} and ${disputes.outcome} = ${outcome})`;

/**
 * Records a dispute body: new, or a change to an open one (its status, deadline, type). A settled
 * dispute is never changed again: a late or replayed body of an earlier state changes nothing.
 * Returns the dispute as stored, which is what the order follows.
 */
async function recordDispute(db: Db, body: DisputeBody, now: number) {
  const outcome = outcomeOf(body.status);
  const before = await db
    .select({ outcome: disputes.outcome, status: disputes.status })
    .from(disputes)
    .where(eq(disputes.id, body.id))
    .get();
  const values = {
    orderId: body.orderId,
    type: body.type,
    reason: body.reason,
    status: body.status,
    outcome,
    amount: body.amount,
    currency: body.currency,
    evidenceDueBy: body.evidenceDueBy,
    initiatedAt: body.initiatedAt,
    settledAt: outcome === "open" ? null : now,
  };
  const [changed] = await db
    .insert(disputes)
    .values({ id: body.id, receivedAt: now, ...values })
    .onConflictDoUpdate({
      target: disputes.id,
      set: values,
      // Open only, and only when the body says something new: a retry writes nothing.
      setWhere: sql`${disputes.outcome} = 'open' and (${disputes.status} <> excluded.status or ${disputes.evidenceDueBy} is not excluded.evidence_due_by or ${disputes.type} <> excluded.type)`,
    })
    .returning();
  if (changed) {
    const action = changed.outcome !== "open" ? `dispute.${changed.outcome}` : before ? "dispute.updated" : "dispute.opened";
    await audit(db, null, action, orderSubject(body.orderId), {
      dispute: body.id,
      status: body.status,
      reason: body.reason,
      type: body.type,
    });
  }
  return (await db.select().from(disputes).where(eq(disputes.id, body.id)).get())!;
}

/**
 * What an open dispute does, each step only while it is still open: the order's licences suspended,
 * the held commission voided, released commission held from the affiliate's reseller balance.
 */
async function whileOpen(db: Db, disputeId: string, orderId: string, now: number) {
  const open = disputeIs(disputeId, "open");
  const suspended = await suspendOrderLicences(db, orderId, suspendedBy(disputeId), ANSWER_REASON.dispute, now, open);
  if (suspended.length > 0)
    await audit(db, null, "dispute.licences-suspended", orderSubject(orderId), { dispute: disputeId, keys: suspended.length });
  const commission = await commissionOfOrder(db, orderId);
  if (!commission || commission.left <= 0) return;
  if (commission.availableAt > now) {
    const voided = await voidCommissionOf(db, orderId, now, open, { disputeId }).returning({ amountCents: sql<number>`amount_cents` });
    if (voided.length > 0)
      await audit(db, null, "dispute.commission-voided", orderSubject(orderId), { dispute: disputeId, cents: -voided[0]!.amountCents });
  } else {
    const held = await holdForDispute(db, commission.affiliateId, disputeId, commission.left, now, open);
    if (held > 0)
      await audit(db, null, "dispute.balance-held", orderSubject(orderId), {
        dispute: disputeId,
        affiliate: commission.affiliateId,
        cents: held,
      });
  }
}

/** What a won dispute does: everything the open dispute did, undone, once. */
async function whenWon(db: Db, disputeId: string, orderId: string, now: number) {
  const won = disputeIs(disputeId, "won");
  const restored = await liftOrderSuspension(db, orderId, suspendedBy(disputeId), won);
  if (restored.length > 0)
    await audit(db, null, "dispute.licences-restored", orderSubject(orderId), { dispute: disputeId, keys: restored.length });
  const commission = await restoreDisputedCommission(db, disputeId, now, won);
  if (commission.length > 0)
    await audit(db, null, "dispute.commission-restored", orderSubject(orderId), { dispute: disputeId, cents: commission[0]!.amountCents });
  const released = await releaseDisputeHold(db, disputeId, now, won);
  if (released > 0) await audit(db, null, "dispute.balance-released", orderSubject(orderId), { dispute: disputeId, cents: released });
}

/**
 * Applies a dispute body: records it, then brings the order in line with the dispute as stored.
 * Returns the outcome the order now follows; for `lost` the caller revokes the order's keys (as a
 * refund does), which is also safe to repeat.
 */
export async function applyDispute(db: Db, body: DisputeBody, now = Date.now()): Promise<DisputeOutcome> {
  const stored = await recordDispute(db, body, now);
  await followDispute(db, stored, now);
  return stored.outcome;
}

async function followDispute(db: Db, dispute: typeof disputes.$inferSelect, now: number) {
  if (dispute.outcome === "open") await whileOpen(db, dispute.id, dispute.orderId, now);
  else if (dispute.outcome === "won") await whenWon(db, dispute.id, dispute.orderId, now);
  else {
    // A lost dispute's keys are revoked by the caller; the suspension marks go with it.
    await liftOrderSuspension(db, dispute.orderId, suspendedBy(dispute.id), disputeIs(dispute.id, "lost"));
  }
}

/**
 * An order's disputes applied again: keys handed out after a dispute arrived (its delivery overtook
 * the paid order's) are suspended too. A lost dispute's id, for the caller to revoke the keys.
 */
export async function followOrderDisputes(db: Db, orderId: string, now = Date.now()): Promise<{ lost: string | null }> {
  const rows = await db.select().from(disputes).where(eq(disputes.orderId, orderId));
  for (const row of rows) await followDispute(db, row, now);
  return { lost: rows.find((row) => row.outcome === "lost")?.id ?? null };
}

/** The Disputes page: open disputes by their evidence deadline, then the latest settled ones. */
export async function listDisputes(db: Db) {
  const [open, settled] = await Promise.all([
    db
      .select()
      .from(disputes)
      .where(eq(disputes.outcome, "open"))
      .orderBy(sql`${disputes.evidenceDueBy} is null`, disputes.evidenceDueBy)
      .limit(200),
    db
      .select()
      .from(disputes)
      .where(inArray(disputes.outcome, ["won", "lost"]))
      .orderBy(desc(disputes.settledAt))
      .limit(20),
  ]);
  return { open, settled };
}
