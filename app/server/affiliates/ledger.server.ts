// The affiliate ledger, written only here (decision 060): a commission when a referred order is
// paid, held for HOLD_DAYS; its void when the order is refunded, cancelled or its key revoked
// within the hold; withdrawals to the reseller balance and crypto payouts. Rows are never edited
// in amount; pending and available are sums over them, by when each row becomes available.
import { and, desc, eq, gt, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { HOLD_MS } from "~/lib/affiliates";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { affiliateLedger, affiliates } from "../platform/db/schema.server";
import { type Affiliate, referrer } from "./programme.server";

/** A paid order as a commission sees it: which order, what was paid, who bought, when. */
export interface PaidOrder {
  /** "shopify:<id>" or "crypto:<number>", as the order list names it. */
  orderKey: string;
  paidCents: number;
  currency: string;
  buyer: { id?: string | null; email: string };
  paidAt: number;
}

/**
 * Records the commission of a paid order referred by `by` (a card order's code, a crypto order's
 * affiliate): the affiliate's rate of what was paid, once per order, held for HOLD_DAYS. Nothing
 * for the affiliate's own purchase, an affiliate no longer approved, or money not in US dollars
 * (the reseller balance it is withdrawn to is in dollars).
 */
export async function recordCommission(db: Db, by: { code: string } | { id: string } | null, order: PaidOrder): Promise<boolean> {
  if (!by || order.currency !== "USD") return false;
  const affiliate = await referrer(db, by, order.buyer);
  if (!affiliate) return false;
  const amountCents = Math.floor((order.paidCents * affiliate.commissionRate) / 100);
  if (amountCents <= 0) return false;
  const recorded = await db
    .insert(affiliateLedger)
    .values({
      affiliateId: affiliate.userId,
      kind: "commission",
      amountCents,
      availableAt: order.paidAt + HOLD_MS,
      orderKey: order.orderKey,
      orderCents: order.paidCents,
      buyerEmail: order.buyer.email,
      createdAt: order.paidAt,
    })
    .onConflictDoNothing()
    .returning({ id: affiliateLedger.id });
  return recorded.length === 1;
}

/** What is left of a commission row after its voids so far (a partial refund voids only its share). */
const unvoided = sql<number>`(${affiliateLedger.amountCents} + coalesce((select sum(v.amount_cents) from affiliate_ledger v where v.kind = 'void' and v.order_key = ${affiliateLedger.orderKey}), 0))`;

/**
 * Voids of the commission of an order (a card order's id, or a crypto order's number) while it is
 * still held, when `when` holds: a statement for the batch that refunds, cancels or revokes, so
 * both happen together. `share` of the commission (what a partial refund gave back of the order,
 * from 0 to 1), never more than is left of it; without one, all that is left. Each void is unique
 * by its reference (the commission's id, with the refund's for a share), so it happens once,
 * whoever repeats it.
 */
export const voidCommissionOf = (
  db: Db,
  orderId: string,
  now: number,
  when?: SQL,
  part?: { refundId: string; share: number } | { disputeId: string },
) =>
  db
    .insert(affiliateLedger)
    .select(
      db
        .select({
          // Every column, in the table's order (the id is the table's own).
          id: sql<number>`null`.as("id"),
          affiliateId: affiliateLedger.affiliateId,
          kind: sql<"void">`'void'`.as("kind"),
          amountCents: (part && "share" in part && part.share < 1
            ? sql<number>`-min(cast(round(${affiliateLedger.amountCents} * ${part.share}) as integer), ${unvoided})`
            : sql<number>`-${unvoided}`
          ).as("amount_cents"),
          availableAt: affiliateLedger.availableAt,
          orderKey: affiliateLedger.orderKey,
          orderCents: sql<null>`null`.as("order_cents"),
          buyerEmail: affiliateLedger.buyerEmail,
          reference: (part
            ? "disputeId" in part
              ? sql<string>`cast(${affiliateLedger.id} as text) || ':dispute:' || ${part.disputeId}`
              : sql<string>`cast(${affiliateLedger.id} as text) || ':refund:' || ${part.refundId}`
            : sql<string>`cast(${affiliateLedger.id} as text)`
          ).as("reference"),
          payoutAddress: sql<null>`null`.as("payout_address"),
          payoutTransaction: sql<null>`null`.as("payout_transaction"),
          paidAt: sql<null>`null`.as("paid_at"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(affiliateLedger)
        .where(
          and(
            eq(affiliateLedger.kind, "commission"),
            inArray(affiliateLedger.orderKey, [`shopify:${orderId}`, `crypto:${orderId}`]),
            gt(affiliateLedger.availableAt, now),
            sql`${unvoided} > 0`,
            when,
          ),
        ),
    )
    .onConflictDoNothing();

/**
 * A payment dispute won: what its void took from a commission is given back, once (a void row of the
 * opposite sign, referenced `<commission>:dispute-won:<dispute>`), while `when` holds. The money
 * becomes available when the commission would have.
 */
export const restoreDisputedCommission = (db: Db, disputeId: string, now: number, when?: SQL) =>
  db
    .insert(affiliateLedger)
    .select(
      db
        .select({
          id: sql<number>`null`.as("id"),
          affiliateId: affiliateLedger.affiliateId,
          kind: sql<"void">`'void'`.as("kind"),
          amountCents: sql<number>`-${affiliateLedger.amountCents}`.as("amount_cents"),
          availableAt: affiliateLedger.availableAt,
          orderKey: affiliateLedger.orderKey,
          orderCents: sql<null>`null`.as("order_cents"),
          buyerEmail: affiliateLedger.buyerEmail,
          reference: sql<string>`replace(${affiliateLedger.reference}, ':dispute:', ':dispute-won:')`.as("reference"),
          payoutAddress: sql<null>`null`.as("payout_address"),
          payoutTransaction: sql<null>`null`.as("payout_transaction"),
          paidAt: sql<null>`null`.as("paid_at"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(affiliateLedger)
        .where(and(eq(affiliateLedger.kind, "void"), sql`${affiliateLedger.reference} like ${`%:dispute:${disputeId}`}`, when)),
    )
    .onConflictDoNothing()
    .returning({ amountCents: affiliateLedger.amountCents });

/** The commission an order earned, for a dispute: who earned it, how much is left of it, and whether it is still held. */
export async function commissionOfOrder(db: Db, orderId: string) {
  return db
    .select({
      id: affiliateLedger.id,
      affiliateId: affiliateLedger.affiliateId,
      // Written with the table named in full: in a plain select drizzle leaves the columns of
      // `unvoided` unqualified, and the subquery's own alias would then match every void.
      left: sql<number>`("affiliate_ledger"."amount_cents" + coalesce((select sum(v.amount_cents) from affiliate_ledger v where v.kind = 'void' and v.order_key = "affiliate_ledger"."order_key"), 0))`,
      availableAt: affiliateLedger.availableAt,
    })
    .from(affiliateLedger)
    .where(and(eq(affiliateLedger.kind, "commission"), inArray(affiliateLedger.orderKey, [`shopify:${orderId}`, `crypto:${orderId}`])))
    .get();
}

/** What the affiliate may withdraw at `now`: every row that is available by then. */
const availableSql = (affiliateId: string, now: number) =>
  sql<number>`(select coalesce(sum(${affiliateLedger.amountCents}), 0) from ${affiliateLedger} where ${affiliateLedger.affiliateId} = ${affiliateId} and ${affiliateLedger.availableAt} <= ${now})`;

/** An affiliate's pending, available and paid-out money, and the payouts still to be sent. */
export async function balancesOf(db: Db, affiliateId: string, now = Date.now()) {
  const row = await db
    .select({
      pending: sql<number>`coalesce(sum(case when ${affiliateLedger.availableAt} > ${now} then ${affiliateLedger.amountCents} else 0 end), 0)`,
      available: sql<number>`coalesce(sum(case when ${affiliateLedger.availableAt} <= ${now} then ${affiliateLedger.amountCents} else 0 end), 0)`,
      paidOut: sql<number>`coalesce(-sum(case when ${affiliateLedger.kind} = 'withdrawal' or (${affiliateLedger.kind} = 'payout' and ${affiliateLedger.paidAt} is not null) then ${affiliateLedger.amountCents} else 0 end), 0)`,
      requested: sql<number>`coalesce(-sum(case when ${affiliateLedger.kind} = 'payout' and ${affiliateLedger.paidAt} is null then ${affiliateLedger.amountCents} else 0 end), 0)`,
    })
    .from(affiliateLedger)
    .where(eq(affiliateLedger.affiliateId, affiliateId))
    .get();
  return { pending: row?.pending ?? 0, available: row?.available ?? 0, paidOut: row?.paidOut ?? 0, requested: row?.requested ?? 0 };
}

/**
 * Money leaving the available balance (a withdrawal or a payout), as a statement: the row is
 * written only while the affiliate still has `cents` available, checked in the statement itself,
 * so two sent at once cannot both take the same money; a request id used before writes nothing.
 */
export function takeAvailable(
  db: Db,
  affiliateId: string,
  move: { kind: "withdrawal" | "payout"; cents: number; request: string; address?: string },
  now: number,
  when?: SQL,
) {
  return db
    .insert(affiliateLedger)
    .select(
      db
        .select({
          id: sql<number>`null`.as("id"),
          affiliateId: affiliates.userId,
          kind: sql<"withdrawal" | "payout">`${move.kind}`.as("kind"),
          amountCents: sql<number>`${-move.cents}`.as("amount_cents"),
          availableAt: sql<number>`${now}`.as("available_at"),
          orderKey: sql<null>`null`.as("order_key"),
          orderCents: sql<null>`null`.as("order_cents"),
          buyerEmail: sql<null>`null`.as("buyer_email"),
          reference: sql<string>`${move.request}`.as("reference"),
          payoutAddress: sql<string | null>`${move.address ?? null}`.as("payout_address"),
          payoutTransaction: sql<null>`null`.as("payout_transaction"),
          paidAt: sql<null>`null`.as("paid_at"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(affiliates)
        .where(
          and(eq(affiliates.userId, affiliateId), sql`${move.cents} > 0`, sql`${availableSql(affiliateId, now)} >= ${move.cents}`, when),
        ),
    )
    .onConflictDoNothing()
    .returning({ id: affiliateLedger.id });
}

/** An affiliate who may move money: approved or paused (a paused affiliate keeps what they earned). */
export async function earningAffiliate(db: Db, userId: string): Promise<Result<Affiliate>> {
  const affiliate = await db
    .select()
    .from(affiliates)
    .where(and(eq(affiliates.userId, userId), inArray(affiliates.status, ["approved", "paused"])))
    .get();
  return affiliate ? ok(affiliate) : fail("not-found", "You are not an affiliate");
}

/** A crypto payout of available commission, above the minimum; staff send it and mark it paid. */
export async function requestPayout(
  db: Db,
  viewer: Viewer,
  input: { amount: number; address: string; request: string },
  now = Date.now(),
): Promise<Result<{ cents: number }>> {
  const affiliate = await earningAffiliate(db, viewer.id);
  if (!affiliate.ok) return affiliate;
  const [taken] = await db.batch([
    takeAvailable(db, viewer.id, { kind: "payout", cents: input.amount, request: input.request, address: input.address }, now),
  ]);
  if (taken.length === 0) return fail("conflict", "You do not have that much commission available", { field: "amount" });
  return ok({ cents: input.amount });
}

/** Staff: a requested payout was sent, by this transaction; once. */
export async function markPayoutPaid(
  db: Db,
  staff: Viewer,
  payoutId: number,
  transaction: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result> {
  const paid = await db
    .update(affiliateLedger)
    .set({ payoutTransaction: transaction.toLowerCase(), paidAt: now })
    .where(and(eq(affiliateLedger.id, payoutId), eq(affiliateLedger.kind, "payout"), isNull(affiliateLedger.paidAt)))
    .returning({ affiliateId: affiliateLedger.affiliateId, amountCents: affiliateLedger.amountCents })
    .get();
  if (!paid) return fail("conflict", "This payout is already marked paid, or does not exist");
  await audit(db, staff.id, "affiliate.payout-paid", paid.affiliateId, { payoutId, cents: -paid.amountCents, transaction }, ip);
  return ok();
}

/** An affiliate's ledger, newest first. */
export function affiliateLedgerOf(db: Db, affiliateId: string, limit = 50) {
  return db
    .select()
    .from(affiliateLedger)
    .where(eq(affiliateLedger.affiliateId, affiliateId))
    .orderBy(desc(affiliateLedger.createdAt), desc(affiliateLedger.id))
    .limit(limit);
}

/**
 * A deleted account's purchases in other affiliates' ledgers (decision 099): the commission rows
 * stay, as money moved, but name the buyer by the account's pseudonym.
 */
export const buyerOfDeletedAccount = (db: Db, account: { email: string; pseudonym: string }) =>
  db
    .update(affiliateLedger)
    .set({ buyerEmail: account.pseudonym })
    .where(sql`lower(${affiliateLedger.buyerEmail}) = lower(${account.email})`);
