// Key stock: codes coming into stock (the admin's, or the demo's), an unsold one deleted, and the
// lists of codes Manage Codes shows (in stock, sold). Handing codes out is claim.server's job.
import { and, count, desc, eq, gte, inArray } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { MAX_CODE_LENGTH } from "~/lib/codes";
import { MAX_CODES_PER_SUBMISSION } from "~/lib/schemas/stock";
import { chunksOf, type Db } from "../platform/db/client.server";
import { licences, productCodes } from "../platform/db/schema.server";
import { orderName } from "../platform/db/stored-orders.server";

const LIST_LIMIT = 500;

/** What one submission added, and what it skipped: repeats within it, and codes stored before. */
export type AddedCodes = { added: number; duplicatesInInput: number; alreadyStored: number };

/** Splits the admin's text into codes: one per line, trimmed, blanks dropped, duplicates removed. */
export function parseCodeLines(text: string): { codes: string[]; duplicatesInInput: number } {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const codes = [...new Set(lines)];
  return { codes, duplicatesInInput: lines.length - codes.length };
}

/** Stores the new codes of the admin's text for a variant; at least one must be new. */
export async function addCodes(
  db: Db,
  variant: { id: string; title: string },
  text: string,
  now = Date.now(),
): Promise<Result<AddedCodes>> {
  const { codes, duplicatesInInput } = parseCodeLines(text);
  if (codes.length === 0) return fail("invalid", "No valid codes found", { field: "codes" });
  if (codes.length > MAX_CODES_PER_SUBMISSION) {
    return fail("invalid", `Add at most ${MAX_CODES_PER_SUBMISSION} codes at a time`, { field: "codes" });
  }
  if (codes.some((c) => c.length > MAX_CODE_LENGTH)) {
    return fail("invalid", `Codes must be at most ${MAX_CODE_LENGTH} characters`, { field: "codes" });
  }
  // Insert what is new; the unique index on codes skips what is already stored, even if another
  // admin adds the same codes at the same moment. A code is a licence key, so one that a reseller's
  // generated key already holds is skipped too.
  let added = 0;
  // Five bound parameters per row (variant, title, code, is_used, created_at).
  for (const group of chunksOf(codes, 5)) {
    const taken = new Set((await db.select({ key: licences.key }).from(licences).where(inArray(licences.key, group))).map((l) => l.key));
    const fresh = group.filter((code) => !taken.has(code));
    if (fresh.length === 0) continue;
    added += await storeCodes(
      db,
      fresh.map((code) => ({ variantId: variant.id, variantTitle: variant.title, code, createdAt: now })),
    );
  }
  if (added === 0) return fail("conflict", `All ${codes.length} codes already exist in the database`);
  return ok({ added, duplicatesInInput, alreadyStored: codes.length - added });
}

/** A code coming into stock. */
export type StockedCode = Pick<typeof productCodes.$inferInsert, "variantId" | "variantTitle" | "code" | "createdAt">;

/**
 * Puts codes into stock in one statement (five bound parameters a row: callers cut the rows with
 * `chunksOf(codes, 5)`); a code already stored is skipped. Answers how many were new.
 */
export async function storeCodes(db: Db, codes: StockedCode[]): Promise<number> {
  const rows = await db.insert(productCodes).values(codes).onConflictDoNothing().returning({ id: productCodes.id });
  return rows.length;
}

/** Deletes one code that is still in stock (a sold code is never deleted); answers with its variant. */
export async function deleteAvailableCode(db: Db, id: number): Promise<Result<{ id: string; title: string }>> {
  const [deleted] = await db
    .delete(productCodes)
    .where(and(eq(productCodes.id, id), eq(productCodes.isUsed, false)))
    .returning({ id: productCodes.variantId, title: productCodes.variantTitle });
  return deleted ? ok(deleted) : fail("conflict", "Only available codes can be deleted");
}

export async function availableCodes(db: Db, variantId?: string) {
  const where = and(eq(productCodes.isUsed, false), variantId ? eq(productCodes.variantId, variantId) : undefined);
  const [rows, [total]] = await Promise.all([
    db
      .select({ id: productCodes.id, code: productCodes.code, variantId: productCodes.variantId, variantTitle: productCodes.variantTitle })
      .from(productCodes)
      .where(where)
      .orderBy(desc(productCodes.id))
      .limit(LIST_LIMIT),
    db.select({ n: count() }).from(productCodes).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function soldCodes(db: Db, { variantId, since }: { variantId?: string; since?: number }) {
  const where = and(
    eq(productCodes.isUsed, true),
    variantId ? eq(productCodes.variantId, variantId) : undefined,
    since !== undefined ? gte(productCodes.usedAt, since) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: productCodes.id,
        code: productCodes.code,
        variantTitle: productCodes.variantTitle,
        customerEmail: productCodes.customerEmail,
        orderId: productCodes.orderId,
        orderName: orderName(productCodes.orderId),
        usedAt: productCodes.usedAt,
        revokedAt: productCodes.revokedAt,
      })
      .from(productCodes)
      .where(where)
      .orderBy(desc(productCodes.usedAt), desc(productCodes.id))
      .limit(LIST_LIMIT),
    db.select({ n: count() }).from(productCodes).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
