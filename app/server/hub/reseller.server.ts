// Resellers buy keys in bulk from their balance, at the plan's price less their discount. Keys are
// generated on the server from the CSPRNG; paying for them and creating them (with their licences,
// which stay the reseller's to look after: they reset their customers' PCs) is one D1 batch (a
// transaction), and the balance cannot go below zero (a CHECK constraint), so two generations at
// once can never overspend.
import { and, asc, count, desc, eq, gt, or, sql } from "drizzle-orm";
import { formatUsd } from "~/lib/format";
import { planVariants } from "~/lib/plans";
import { fail, ok, type Result } from "~/lib/result";
import { can } from "~/lib/roles";
import { type CreditInput, discounted, type GenerateKeysInput, type KeyType, KEY_TYPES } from "~/lib/schemas/reseller";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Catalogue } from "../catalogue/catalogue.server";
import { randomString } from "../platform/tokens.server";
import { chunksOf, type Db, isUniqueViolation } from "../platform/db/client.server";
import { licences, resellerAccounts, resellerKeys, resellerLedger, users } from "../platform/db/schema.server";
import { licenceRows } from "../fulfilment/licences.server";
import { licenceState } from "../licences/validation.server";
import { csvStream, isoTime } from "../platform/csv.server";

export const DEFAULT_DISCOUNT_RATE = 50;

/** The member's reseller account, opened on first use. */
export async function ensureResellerAccount(db: Db, userId: string, now = Date.now()) {
  await db.insert(resellerAccounts).values({ userId, balanceCents: 0, discountRate: DEFAULT_DISCOUNT_RATE, createdAt: now }).onConflictDoNothing();
  return (await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, userId)).get())!;
}

export async function resellerOverview(db: Db, userId: string) {
  const account = await ensureResellerAccount(db, userId);
  const [keys, [totals], ledger] = await Promise.all([
    db.select().from(resellerKeys).where(eq(resellerKeys.userId, userId)).orderBy(desc(resellerKeys.purchaseDate), desc(resellerKeys.id)).limit(200),
    db
      .select({ total: count(), active: sql<number>`sum(case when ${resellerKeys.status} = 'active' then 1 else 0 end)` })
      .from(resellerKeys)
      .where(eq(resellerKeys.userId, userId)),
    ledgerOf(db, userId),
  ]);
  return { account, keys, totalKeys: totals?.total ?? 0, activeKeys: totals?.active ?? 0, ledger };
}

/** The newest changes to a reseller's balance: top-ups, credits and purchases. */
function ledgerOf(db: Db, userId: string, limit = 20) {
  return db
    .select({ id: resellerLedger.id, kind: resellerLedger.kind, amountCents: resellerLedger.amountCents, reference: resellerLedger.reference, createdAt: resellerLedger.createdAt })
    .from(resellerLedger)
    .where(eq(resellerLedger.userId, userId))
    .orderBy(desc(resellerLedger.createdAt), desc(resellerLedger.id))
    .limit(limit);
}

/** Staff: a member's reseller balance (null when they never opened the panel) and its ledger. Opens nothing. */
export async function resellerBalanceOf(db: Db, userId: string) {
  const [account, ledger] = await Promise.all([
    db.select({ balanceCents: resellerAccounts.balanceCents, discountRate: resellerAccounts.discountRate }).from(resellerAccounts).where(eq(resellerAccounts.userId, userId)).get(),
    ledgerOf(db, userId),
  ]);
  return { account: account ?? null, ledger };
}

/** What resellers sell: the main product, with per-key list prices in cents for its week and month plans. */
export async function resoldProduct(catalogue: Catalogue): Promise<{ title: string; prices: Partial<Record<KeyType, number>> }> {
  const [main] = await catalogue.listProducts({ first: 1 });
  const { weekly, monthly } = planVariants(main?.variants ?? []);
  const cents = (amount?: string) => (amount ? Math.round(Number(amount) * 100) : undefined);
  return { title: main?.title ?? "", prices: { weekly: cents(weekly?.price.amount), monthly: cents(monthly?.price.amount) } };
}

export function newKeyCode(): string {
  return `KEY-${randomString(8)}-${randomString(8)}`;
}

function isConstraint(error: unknown, name: string): boolean {
  return String(error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : error).includes(name);
}

/** Buys `quantity` keys of `keyType` from the reseller's balance. */
export async function generateKeys(
  db: Db,
  catalogue: Catalogue,
  viewer: Viewer,
  { quantity, keyType }: Pick<GenerateKeysInput, "quantity" | "keyType">,
  now = Date.now(),
): Promise<Result<{ keys: string[]; totalCents: number }>> {
  const product = await resoldProduct(catalogue);
  const listPrice = product.prices[keyType];
  if (!listPrice) return fail("conflict", `${KEY_TYPES[keyType]} keys are not on sale right now`);
  const account = await ensureResellerAccount(db, viewer.id, now);
  const unitCents = discounted(listPrice, account.discountRate);
  const totalCents = unitCents * quantity;
  const shortfall = fail("conflict", `Insufficient balance: ${quantity} ${KEY_TYPES[keyType]} keys cost ${formatUsd(totalCents)}.`);
  if (account.balanceCents < totalCents) return shortfall;

  for (let attempt = 0; attempt < 2; attempt++) {
    const keys = Array.from({ length: quantity }, newKeyCode);
    try {
      const rows = keys.map((keyCode, i) => ({ id: crypto.randomUUID(), userId: viewer.id, keyCode, keyType, status: "active" as const, priceCents: unitCents, purchaseDate: now + i }));
      // The ledger row inserted just before, in the same transaction: the purchase the keys belong to.
      const purchaseId = sql<number>`(select max(${resellerLedger.id}) from ${resellerLedger} where ${resellerLedger.userId} = ${viewer.id} and ${resellerLedger.kind} = 'purchase')`;
      await db.batch([
        db
          .update(resellerAccounts)
          .set({ balanceCents: sql`${resellerAccounts.balanceCents} - ${totalCents}` })
          .where(eq(resellerAccounts.userId, viewer.id)),
        db.insert(resellerLedger).values({ userId: viewer.id, kind: "purchase", amountCents: -totalCents, reference: `${quantity} ${keyType}`, createdAt: now }),
        // Eight bound parameters per key row, six per licence; one transaction for all of it.
        ...chunksOf(rows, 8).map((group) => db.insert(resellerKeys).values(group.map((row) => ({ ...row, purchaseId })))),
        ...chunksOf(licenceRows(rows, { email: viewer.email, product: product.title, plan: keyType }, now), 6).map((group) => db.insert(licences).values(group)),
      ]);
      return ok({ keys, totalCents });
    } catch (error) {
      // Another generation spent the balance first: the CHECK refused, nothing was written.
      if (isConstraint(error, "reseller_balance_non_negative")) return shortfall;
      // A key collision (about one in 10^24, or a stocked code the same): try once more with fresh keys.
      if ((isConstraint(error, "reseller_keys.key_code") || isConstraint(error, "licences.key")) && attempt === 0) continue;
      throw error;
    }
  }
  return fail("failed", "Could not generate keys. Please try again.");
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

const KEY_EXPORT_HEADER = ["key", "type", "status", "licence", "pc bound", "activated at", "expires at", "purchased at"];

/**
 * Every key the reseller generated, oldest first, as CSV: what the panel's list shows, for all of
 * them (the list shows the newest 200). Streamed a page at a time.
 */
export function exportResellerKeys(db: Db, userId: string, now = Date.now(), pageSize = 1000): ReadableStream<Uint8Array> {
  return csvStream(
    KEY_EXPORT_HEADER,
    async (after: { purchaseDate: number; id: string } | null) => {
      const rows = await db
        .select({ key: resellerKeys, licence: licences })
        .from(resellerKeys)
        .leftJoin(licences, eq(licences.resellerKeyId, resellerKeys.id))
        .where(
          and(
            eq(resellerKeys.userId, userId),
            after === null
              ? undefined
              : or(gt(resellerKeys.purchaseDate, after.purchaseDate), and(eq(resellerKeys.purchaseDate, after.purchaseDate), gt(resellerKeys.id, after.id))),
          ),
        )
        .orderBy(asc(resellerKeys.purchaseDate), asc(resellerKeys.id))
        .limit(pageSize);
      const last = rows.at(-1)?.key;
      return { rows, next: rows.length === pageSize && last ? { purchaseDate: last.purchaseDate, id: last.id } : null };
    },
    ({ key, licence }) => [
      key.keyCode,
      KEY_TYPES[key.keyType],
      key.status,
      licence ? licenceState(licence, now) : null,
      licence ? (licence.hwid === null ? "no" : "yes") : null,
      isoTime(licence?.activatedAt ?? null),
      isoTime(licence?.expiresAt ?? null),
      isoTime(key.purchaseDate),
    ],
  );
}
