// The reseller balance and its ledger, written only here: money moves as a ledger row, with its
// change to the balance in the same D1 transaction, and the balance cannot go below zero (a CHECK
// constraint). A crypto top-up, a staff credit, affiliate commission withdrawn to the balance and a
// purchase of keys each come through here; the reseller panel (hub), the affiliate dashboard and
// crypto settlement call it (decisions 052 and 060).
import { and, desc, eq, lt, ne, isNotNull, type SQL, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { can } from "~/lib/roles";
import type { CreditInput } from "~/lib/schemas/reseller";
import type { Viewer } from "~/lib/viewer";
import { balancesOf, earningAffiliate, takeAvailable } from "../affiliates/ledger.server";
import { audit } from "../platform/audit.server";
import { type Db, isUniqueViolation, refusedBy } from "../platform/db/client.server";
import { read } from "../platform/db/reads.server";
import { affiliateLedger, cryptoOrders, resellerAccounts, resellerLedger, users } from "../platform/db/schema.server";

export const DEFAULT_DISCOUNT_RATE = 50;

/** Opens the member's reseller account, if it is not open yet. */
const openAccount = (db: Db, userId: string, now: number) =>
  db
    .insert(resellerAccounts)
    .values({ userId, balanceCents: 0, discountRate: DEFAULT_DISCOUNT_RATE, createdAt: now })
    .onConflictDoNothing();

/** The member's reseller account, opened on first use. */
export async function ensureResellerAccount(db: Db, userId: string, now = Date.now()) {
  await openAccount(db, userId, now);
  return (await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, userId)).get())!;
}

const LEDGER_ENTRY = {
  id: resellerLedger.id,
  kind: resellerLedger.kind,
  amountCents: resellerLedger.amountCents,
  reference: resellerLedger.reference,
  createdAt: resellerLedger.createdAt,
};

/** The newest changes to a reseller's balance: top-ups, credits and purchases. */
export function ledgerOf(db: Db, userId: string, limit = 20) {
  return db
    .select(LEDGER_ENTRY)
    .from(resellerLedger)
    .where(eq(resellerLedger.userId, userId))
    .orderBy(desc(resellerLedger.createdAt), desc(resellerLedger.id))
    .limit(limit);
}

/** A page of the reseller's ledger, newest first, before the entry `beforeId` (the seller API's cursor). */
export function ledgerPage(db: Db, userId: string, beforeId: number | null, limit: number) {
  return db
    .select(LEDGER_ENTRY)
    .from(resellerLedger)
    .where(and(eq(resellerLedger.userId, userId), beforeId === null ? undefined : lt(resellerLedger.id, beforeId)))
    .orderBy(desc(resellerLedger.id))
    .limit(limit);
}

/** Staff: a member's reseller balance (null when they never opened the panel) and its ledger. Opens nothing. */
export function resellerBalanceRead(db: Db, userId: string) {
  return read(
    [
      db
        .select({ balanceCents: resellerAccounts.balanceCents, discountRate: resellerAccounts.discountRate })
        .from(resellerAccounts)
        .where(eq(resellerAccounts.userId, userId))
        .limit(1),
      ledgerOf(db, userId),
    ],
    ([[account], ledger]) => ({ account: account ?? null, ledger }),
  );
}

/**
 * Credits a paid crypto top-up to the buyer's reseller balance. The ledger entry and the balance
 * change are one transaction, and the balance only moves when the entry is new: never twice.
 */
export async function creditTopUp(db: Db, order: typeof cryptoOrders.$inferSelect, now: number): Promise<void> {
  await openAccount(db, order.userId, now);
  const credited = sql`exists (select 1 from ${resellerLedger} where ${resellerLedger.kind} = 'top-up' and ${resellerLedger.reference} = ${order.orderNumber})`;
  // Checked inside the transaction: an admin's cancel that lands after the order was read wins.
  const stillPaid = and(eq(cryptoOrders.id, order.id), ne(cryptoOrders.status, "cancelled"), isNotNull(cryptoOrders.paidAt));
  await db.batch([
    db
      .update(resellerAccounts)
      .set({ balanceCents: sql`${resellerAccounts.balanceCents} + ${order.amountCents}` })
      .where(
        and(
          eq(resellerAccounts.userId, order.userId),
          sql`not ${credited}`,
          sql`exists (select 1 from ${cryptoOrders} where ${stillPaid})`,
        ),
      ),
    db
      .insert(resellerLedger)
      .select(
        db
          .select({
            // Every column, in the table's order (the id is the table's own).
            id: sql<number>`null`.as("id"),
            userId: cryptoOrders.userId,
            kind: sql<"top-up">`'top-up'`.as("kind"),
            amountCents: cryptoOrders.amountCents,
            reference: cryptoOrders.orderNumber,
            createdAt: sql<number>`${now}`.as("created_at"),
          })
          .from(cryptoOrders)
          .where(stillPaid),
      )
      .onConflictDoNothing(),
  ]);
}

/** Admin: credits a member's reseller balance (opening it if need be), in the ledger and the audit log. */
export async function creditBalance(
  db: Db,
  admin: Viewer,
  userId: string,
  { amount, request }: Pick<CreditInput, "amount" | "request">,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ balanceCents: number }>> {
  if (!can(admin.role, "balances.credit")) return fail("forbidden", "You don't have permission to credit balances");
  const member = await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).get();
  if (!member) return fail("not-found", "No such member");
  await ensureResellerAccount(db, member.id, now);
  let updated: { balanceCents: number } | undefined;
  try {
    // One transaction: the ledger row's unique request id refuses a second send, balance and all.
    [[updated]] = await db.batch([
      db
        .update(resellerAccounts)
        .set({ balanceCents: sql`${resellerAccounts.balanceCents} + ${amount}` })
        .where(eq(resellerAccounts.userId, member.id))
        .returning({ balanceCents: resellerAccounts.balanceCents }),
      db.insert(resellerLedger).values({ userId: member.id, kind: "credit", amountCents: amount, reference: request, createdAt: now }),
    ]);
  } catch (error) {
    if (isUniqueViolation(error)) return fail("conflict", "This credit was already made; the balance was credited once");
    throw error;
  }
  await audit(db, admin.id, "reseller.credit", member.id, { amountCents: amount, balanceCents: updated!.balanceCents }, ip);
  return ok({ balanceCents: updated!.balanceCents });
}

/**
 * A purchase paid from the balance: the debit and its ledger row, as statements for the purchase's
 * batch (whatever was bought is written in the same transaction), and the ledger row's id as SQL
 * for the rows that belong to it. The batch fails as a whole when the balance would go below zero
 * (`isOverspent`).
 */
export function chargeBalance(db: Db, userId: string, cents: number, reference: string, now: number) {
  const statements = [
    db
      .update(resellerAccounts)
      .set({ balanceCents: sql`${resellerAccounts.balanceCents} - ${cents}` })
      .where(eq(resellerAccounts.userId, userId)),
    db.insert(resellerLedger).values({ userId, kind: "purchase", amountCents: -cents, reference, createdAt: now }),
  ] as const;
  // The ledger row inserted just before, in the same transaction: the purchase the rows belong to.
  const purchaseId = sql<number>`(select max(${resellerLedger.id}) from ${resellerLedger} where ${resellerLedger.userId} = ${userId} and ${resellerLedger.kind} = 'purchase')`;
  return { statements, purchaseId };
}

/** A ledger reference that names a renewal paid from the balance (decision 090). */
export const renewalReference = (claimKey: string) => `renewal:${claimKey}`;

/** Whether the ledger holds the purchase `reference` names: the renewal was paid. */
export const purchaseMade = (reference: string) =>
  sql`exists (select 1 from ${resellerLedger} where ${resellerLedger.kind} = 'purchase' and ${resellerLedger.reference} = ${reference})`;

/**
 * A payment from the balance that must not fail its batch (a renewal's, which also records what
 * it bought): the purchase row is written only while `when` holds and the balance still covers
 * it (checked in the statement), and the balance moves only with that row. `purchaseMade` says in
 * SQL whether it was paid (`purchaseIdOf` names its ledger row, the reseller order it is).
 */
export function payFromBalance(db: Db, userId: string, cents: number, reference: string, when: SQL, now: number) {
  const paid = purchaseMade(reference);
  const statements = [
    db.insert(resellerLedger).select(
      db
        .select({
          id: sql<number>`null`.as("id"),
          userId: resellerAccounts.userId,
          kind: sql<"purchase">`'purchase'`.as("kind"),
          amountCents: sql<number>`${-cents}`.as("amount_cents"),
          reference: sql<string>`${reference}`.as("reference"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(resellerAccounts)
        .where(and(eq(resellerAccounts.userId, userId), sql`${resellerAccounts.balanceCents} >= ${cents}`, when, sql`not ${paid}`)),
    ),
    db
      .update(resellerAccounts)
      .set({ balanceCents: sql`${resellerAccounts.balanceCents} - ${cents}` })
      .where(and(eq(resellerAccounts.userId, userId), when, paid)),
  ] as const;
  return { statements, paid };
}

/** The ledger id of the purchase `reference` names (SQL, null until it is written): the reseller order it is. */
export const purchaseIdOf = (reference: string) =>
  sql<number>`(select ${resellerLedger.id} from ${resellerLedger} where ${resellerLedger.kind} = 'purchase' and ${resellerLedger.reference} = ${reference})`;

/** Another purchase spent the balance first: the CHECK refused the debit, and nothing was written. */
export const isOverspent = (error: unknown) => refusedBy(error, "reseller_balance_non_negative");

/**
 * An affiliate withdraws all their available commission to their reseller balance, to spend on
 * keys. One transaction: the affiliate ledger's withdrawal row is written only while that much is
 * still available (checked in the statement), and the balance grows by exactly that row, once, only
 * if it was written. Two withdrawals at once move the money once.
 */
export async function withdrawCommission(db: Db, viewer: Viewer, request: string, now = Date.now()): Promise<Result<{ cents: number }>> {
  const affiliate = await earningAffiliate(db, viewer.id);
  if (!affiliate.ok) return affiliate;
  const { available } = await balancesOf(db, viewer.id, now);
  if (available <= 0) return fail("conflict", "No commission is available to withdraw yet");
  await openAccount(db, viewer.id, now);
  const [moved] = await db.batch(commissionToBalance(db, viewer.id, available, request, now));
  if (moved.length === 0) return fail("conflict", "This commission was already withdrawn");
  return ok({ cents: available });
}

/**
 * The statements that move `cents` of available commission to the reseller balance under the
 * one-time `request` id, while `when` holds: the affiliate ledger's withdrawal row is written only
 * while that much is available, and the balance grows by exactly that row, once. The first
 * statement returns the withdrawal row when it was written. The account must be open.
 */
export function commissionToBalance(db: Db, userId: string, cents: number, request: string, now: number, when?: SQL) {
  const withdrawal = and(
    eq(affiliateLedger.kind, "withdrawal"),
    eq(affiliateLedger.reference, request),
    eq(affiliateLedger.affiliateId, userId),
  );
  const taken = sql`(select -${affiliateLedger.amountCents} from ${affiliateLedger} where ${withdrawal})`;
  const credited = sql`exists (select 1 from ${resellerLedger} where ${resellerLedger.kind} = 'commission' and ${resellerLedger.reference} = ${request})`;
  return [
    takeAvailable(db, userId, { kind: "withdrawal", cents, request }, now, when),
    db
      .update(resellerAccounts)
      .set({ balanceCents: sql`${resellerAccounts.balanceCents} + ${taken}` })
      .where(and(eq(resellerAccounts.userId, userId), sql`${taken} is not null`, sql`not ${credited}`)),
    db
      .insert(resellerLedger)
      .select(
        db
          .select({
            id: sql<number>`null`.as("id"),
            userId: affiliateLedger.affiliateId,
            kind: sql<"commission">`'commission'`.as("kind"),
            amountCents: sql<number>`-${affiliateLedger.amountCents}`.as("amount_cents"),
            reference: affiliateLedger.reference,
            createdAt: sql<number>`${now}`.as("created_at"),
          })
          .from(affiliateLedger)
          .where(withdrawal),
      )
      .onConflictDoNothing(),
  ] as const;
}

/** The member's reseller balance and the commission they may move into it now (zero when they are no affiliate). */
export async function spendableOf(db: Db, userId: string, now = Date.now()) {
  const [account, affiliate] = await Promise.all([
    db.select({ balanceCents: resellerAccounts.balanceCents }).from(resellerAccounts).where(eq(resellerAccounts.userId, userId)).get(),
    earningAffiliate(db, userId),
  ]);
  const commission = affiliate.ok ? (await balancesOf(db, userId, now)).available : 0;
  return { balanceCents: account?.balanceCents ?? 0, commissionCents: Math.max(0, commission) };
}

/** Opens the member's reseller account for a payment from it (nothing when it is open). */
export const openBalance = (db: Db, userId: string, now: number) => openAccount(db, userId, now);

/**
 * A payment dispute on an order whose affiliate commission was already released (and may be in the
 * affiliate's reseller balance): that much of the balance is held until the dispute is settled, at
 * most what the balance holds, once per dispute (decision 092). The ledger row and the balance
 * change are one transaction. Returns the cents held now (0 when held before, or nothing to hold).
 */
export async function holdForDispute(db: Db, userId: string, disputeId: string, cents: number, now: number, when: SQL): Promise<number> {
  const [held] = await db.batch([
    db
      .insert(resellerLedger)
      .select(
        db
          .select({
            id: sql<number>`null`.as("id"),
            userId: resellerAccounts.userId,
            kind: sql<"dispute-hold">`'dispute-hold'`.as("kind"),
            amountCents: sql<number>`-min(${resellerAccounts.balanceCents}, ${cents})`.as("amount_cents"),
            reference: sql<string>`${disputeId}`.as("reference"),
            createdAt: sql<number>`${now}`.as("created_at"),
          })
          .from(resellerAccounts)
          .where(and(eq(resellerAccounts.userId, userId), sql`${resellerAccounts.balanceCents} > 0`, sql`${cents} > 0`, when)),
      )
      .onConflictDoNothing()
      .returning({ amountCents: resellerLedger.amountCents }),
    db
      .update(resellerAccounts)
      .set({ balanceCents: sql`${resellerAccounts.balanceCents} + ${disputeRow("dispute-hold", disputeId)}` })
      .where(and(eq(resellerAccounts.userId, userId), justWritten)),
  ]);
  return -(held[0]?.amountCents ?? 0);
}

/** A dispute won: what it held goes back to the balance, once. Returns the cents released now. */
export async function releaseDisputeHold(db: Db, disputeId: string, now: number, when: SQL): Promise<number> {
  const hold = and(eq(resellerLedger.kind, "dispute-hold"), eq(resellerLedger.reference, disputeId));
  const [released] = await db.batch([
    db
      .insert(resellerLedger)
      .select(
        db
          .select({
            id: sql<number>`null`.as("id"),
            userId: resellerLedger.userId,
            kind: sql<"dispute-release">`'dispute-release'`.as("kind"),
            amountCents: sql<number>`-${resellerLedger.amountCents}`.as("amount_cents"),
            reference: resellerLedger.reference,
            createdAt: sql<number>`${now}`.as("created_at"),
          })
          .from(resellerLedger)
          .where(and(hold, when)),
      )
      .onConflictDoNothing()
      .returning({ userId: resellerLedger.userId, amountCents: resellerLedger.amountCents }),
    db
      .update(resellerAccounts)
      .set({ balanceCents: sql`${resellerAccounts.balanceCents} + ${disputeRow("dispute-release", disputeId)}` })
      .where(and(sql`${resellerAccounts.userId} = (select ${resellerLedger.userId} from ${resellerLedger} where ${hold})`, justWritten)),
  ]);
  return released[0]?.amountCents ?? 0;
}

/** The amount of the dispute's ledger row of `kind`. */
const disputeRow = (kind: "dispute-hold" | "dispute-release", disputeId: string) =>
  sql<number>`(select ${resellerLedger.amountCents} from ${resellerLedger} where ${resellerLedger.kind} = ${kind} and ${resellerLedger.reference} = ${disputeId})`;

/**
 * In the statement right after a ledger row's insert in the same batch: whether that insert wrote
 * the row (SQLite's changes() counts the last statement's rows; a conflict wrote none), so the
 * balance moves only with the row, once, however often the dispute is applied.
 */
const justWritten = sql`changes() = 1`;
