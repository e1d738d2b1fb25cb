// Resellers buy keys in bulk from their balance, at the plan's price less their discount. The keys
// are made by the key module (with their licences, which stay the reseller's to look after: they
// reset their customers' PCs) and paid for through the balance's owner, in one D1 batch (a
// transaction); the balance cannot go below zero (a CHECK constraint), so two generations at once
// can never overspend.
import { and, asc, count, desc, eq, gt, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { formatUsd } from "~/lib/format";
import { planVariants } from "~/lib/plans";
import { fail, ok, type Result } from "~/lib/result";
import { discounted, type GenerateKeysInput, type KeyType, KEY_TYPES } from "~/lib/schemas/reseller";
import type { Viewer } from "~/lib/viewer";
import type { Catalogue } from "../catalogue/catalogue.server";
import { isKeyCollision, resellerKeysFor } from "../keys/sale.server";
import { licenceState } from "../licences/validation.server";
import { announceCreatedLicences } from "../licences/licence-events.server";
import { chargeBalance, ensureResellerAccount, isOverspent, ledgerOf } from "./reseller-balance.server";
import { csvStream, isoTime } from "../platform/csv.server";
import type { Db } from "../platform/db/client.server";
import { licences, resellerKeys } from "../platform/db/schema.server";

export async function resellerOverview(db: Db, userId: string) {
  const account = await ensureResellerAccount(db, userId);
  const [keys, [totals], ledger] = await Promise.all([
    db
      .select()
      .from(resellerKeys)
      .where(eq(resellerKeys.userId, userId))
      .orderBy(desc(resellerKeys.purchaseDate), desc(resellerKeys.id))
      .limit(200),
    db
      .select({ total: count(), active: sql<number>`sum(case when ${resellerKeys.status} = 'active' then 1 else 0 end)` })
      .from(resellerKeys)
      .where(eq(resellerKeys.userId, userId)),
    ledgerOf(db, userId),
  ]);
  return { account, keys, totalKeys: totals?.total ?? 0, activeKeys: totals?.active ?? 0, ledger };
}

/** What resellers sell: the main product, with per-key list prices in cents for its week and month plans. */
export async function resoldProduct(catalogue: Catalogue): Promise<{ title: string; prices: Partial<Record<KeyType, number>> }> {
  const [main] = await catalogue.listProducts({ first: 1 });
  const { weekly, monthly } = planVariants(main?.variants ?? []);
  const cents = (amount?: string) => (amount ? Math.round(Number(amount) * 100) : undefined);
  return { title: main?.title ?? "", prices: { weekly: cents(weekly?.price.amount), monthly: cents(monthly?.price.amount) } };
}

/** What a generation made, for statements that must be written in its transaction. */
export type GeneratedKeys = { keys: string[]; totalCents: number };

/**
 * Buys `quantity` keys of `keyType` from the reseller's balance. `alongside` adds statements to the
 * purchase's transaction (the seller API records its Idempotency-Key's answer there, so a purchase
 * and the record of it are written together or not at all).
 */
export async function generateKeys(
  db: Db,
  catalogue: Catalogue,
  viewer: Viewer,
  { quantity, keyType }: Pick<GenerateKeysInput, "quantity" | "keyType">,
  now = Date.now(),
  alongside: (made: GeneratedKeys) => BatchItem<"sqlite">[] = () => [],
): Promise<Result<GeneratedKeys>> {
  const product = await resoldProduct(catalogue);
  const listPrice = product.prices[keyType];
  if (!listPrice) return fail("conflict", `${KEY_TYPES[keyType]} keys are not on sale right now`);
  const account = await ensureResellerAccount(db, viewer.id, now);
  const unitCents = discounted(listPrice, account.discountRate);
  const totalCents = unitCents * quantity;
  const shortfall = fail("conflict", `Insufficient balance: ${quantity} ${KEY_TYPES[keyType]} keys cost ${formatUsd(totalCents)}.`);
  if (account.balanceCents < totalCents) return shortfall;

  for (let attempt = 0; attempt < 2; attempt++) {
    const charge = chargeBalance(db, viewer.id, totalCents, `${quantity} ${keyType}`, now);
    const made = resellerKeysFor(db, { buyer: viewer, product: product.title, keyType, unitCents }, quantity, charge.purchaseId, now);
    try {
      await db.batch([...charge.statements, ...made.statements, ...alongside({ keys: made.keys, totalCents })]);
      // Paid and written: a failure to announce them must not read as a failed purchase.
      await announceCreatedLicences(db, made.keys).catch((error: unknown) =>
        console.error("Announcing a reseller's new keys failed", error),
      );
      return ok({ keys: made.keys, totalCents });
    } catch (error) {
      // Another generation spent the balance first: the CHECK refused, nothing was written.
      if (isOverspent(error)) return shortfall;
      // A key collision: try once more with fresh keys.
      if (isKeyCollision(error) && attempt === 0) continue;
      throw error;
    }
  }
  return fail("failed", "Could not generate keys. Please try again.");
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
              : or(
                  gt(resellerKeys.purchaseDate, after.purchaseDate),
                  and(eq(resellerKeys.purchaseDate, after.purchaseDate), gt(resellerKeys.id, after.id)),
                ),
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
