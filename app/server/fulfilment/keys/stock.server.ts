// Key stock: adding codes, listing them, and handing them out. A code goes to exactly one order
// unit; that is guaranteed by the database (conditional updates and a unique index on the unit),
// not by application locks, because D1 has no interactive transactions.
import { and, asc, count, desc, eq, getTableColumns, gte, inArray, isNull, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { MAX_CODE_LENGTH, MAX_CODES_PER_SUBMISSION } from "~/lib/schemas/stock";
import { chunksOf, type Db, isUniqueViolation } from "../platform/db/client.server";
import { backorders, licences, productCodes, shopifyOrders } from "../platform/db/schema.server";
import { forgetLicenceOf } from "./licences.server";
import { orderName } from "./order-lines.server";

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
export async function addCodes(db: Db, variant: { id: string; title: string }, text: string, now = Date.now()): Promise<Result<AddedCodes>> {
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
    const rows = await db
      .insert(productCodes)
      .values(fresh.map((code) => ({ variantId: variant.id, variantTitle: variant.title, code, createdAt: now })))
      .onConflictDoNothing()
      .returning({ id: productCodes.id });
    added += rows.length;
  }
  if (added === 0) return fail("conflict", `All ${codes.length} codes already exist in the database`);
  return ok({ added, duplicatesInInput, alreadyStored: codes.length - added });
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

export interface OrderUnit {
  orderId: string;
  lineId: string;
  unitIndex: number;
  variantId: string;
  email: string;
}

type CodeRow = typeof productCodes.$inferSelect;

/** `new`: this call claimed the code; `existing`: the unit already had it (a retry, a concurrent run). */
export type Assignment = { kind: "new"; code: CodeRow } | { kind: "existing"; code: CodeRow } | { kind: "out-of-stock" };

/** The code a unit already has, if any. */
export async function codeOfUnit(db: Db, unit: OrderUnit) {
  return db
    .select()
    .from(productCodes)
    .where(and(eq(productCodes.orderId, unit.orderId), eq(productCodes.orderLineId, unit.lineId), eq(productCodes.unitIndex, unit.unitIndex)))
    .get();
}

/** The oldest code of the variant still in stock, still free as the statement runs: the one to hand out next. */
/** A code of the variant that can still be handed out: unsold and never revoked. */
export const isFreeCodeOf = (variantId: unknown) =>
  sql`${productCodes.variantId} = ${variantId} and ${productCodes.isUsed} = 0 and ${productCodes.revokedAt} is null`;

export const isOldestFreeCode = (variantId: string) =>
  and(
    eq(productCodes.id, sql`(select ${productCodes.id} from ${productCodes} where ${isFreeCodeOf(variantId)} order by ${productCodes.id} limit 1)`),
    eq(productCodes.isUsed, false),
  );

/** The order was not cancelled (checked in the same statement that hands out or queues a unit). */
const notCancelled = (orderId: string) =>
  sql`not exists (select 1 from ${shopifyOrders} where ${shopifyOrders.id} = ${orderId} and ${shopifyOrders.cancelledAt} is not null)`;

/**
 * Gives one order unit the oldest available code of its variant, in one statement. A unit that
 * already has a code (a retry, or a concurrent delivery) keeps it. A unit queued as a backorder is
 * left to the queue unless `fromQueue` says this is the queue filling it.
 */
export async function assignCode(db: Db, unit: OrderUnit, { now = Date.now(), fromQueue = false } = {}): Promise<Assignment> {
  try {
    const code = await db
      .update(productCodes)
      .set({
        isUsed: true,
        usedAt: now,
        customerEmail: unit.email,
        orderId: unit.orderId,
        orderLineId: unit.lineId,
        unitIndex: unit.unitIndex,
      })
      .where(
        and(
          isOldestFreeCode(unit.variantId),
          fromQueue
            ? undefined
            : and(
                sql`not exists (select 1 from ${backorders} where ${backorders.orderId} = ${unit.orderId} and ${backorders.lineItemId} = ${unit.lineId} and ${backorders.unitIndex} = ${unit.unitIndex})`,
                notCancelled(unit.orderId),
              ),
        ),
      )
      .returning()
      .get();
    if (code) return { kind: "new", code };
  } catch (error) {
    // The unique index on the unit refused a second code.
    if (!isUniqueViolation(error)) throw error;
  }
  const existing = await codeOfUnit(db, unit);
  return existing ? { kind: "existing", code: existing } : { kind: "out-of-stock" };
}

/**
 * Undoes a claim whose order went away before it completed: a stocked code becomes available
 * again; a code that was only recorded for this order (never stocked) is forgotten.
 */
export async function releaseCode(db: Db, codeId: number, orderId: string, recordedOnly: boolean): Promise<void> {
  const claimedBy = and(eq(productCodes.id, codeId), eq(productCodes.orderId, orderId));
  if (recordedOnly) {
    await db.delete(productCodes).where(claimedBy);
    return;
  }
  await db.batch([
    forgetLicenceOf(db, codeId, orderId),
    db
      .update(productCodes)
      .set({ isUsed: false, usedAt: null, customerEmail: null, orderId: null, orderLineId: null, unitIndex: null, revokedAt: null })
      .where(claimedBy),
  ]);
}

/** Queues a unit that found no stock, unless it has a code or is queued already. */
export async function backorderUnit(db: Db, unit: OrderUnit, variantTitle: string, now = Date.now()): Promise<boolean> {
  const inserted = await db.run(sql`
    insert into ${backorders} (order_id, line_item_id, unit_index, variant_id, variant_title, customer_email, created_at)
    select ${unit.orderId}, ${unit.lineId}, ${unit.unitIndex}, ${unit.variantId}, ${variantTitle}, ${unit.email}, ${now}
    where not exists (select 1 from ${productCodes} where ${productCodes.orderId} = ${unit.orderId} and ${productCodes.orderLineId} = ${unit.lineId} and ${productCodes.unitIndex} = ${unit.unitIndex})
      and ${notCancelled(unit.orderId)}
    on conflict (order_id, line_item_id, unit_index) do nothing`);
  return inserted.meta.changes === 1;
}

export type FilledBackorder = { backorder: typeof backorders.$inferSelect; code: CodeRow };

/** Fills open backorders of a variant, oldest first, while codes last. */
export async function fillBackorders(db: Db, variantId: string, now = Date.now()): Promise<FilledBackorder[]> {
  const open = await db
    .select()
    .from(backorders)
    .where(and(eq(backorders.variantId, variantId), isNull(backorders.filledAt), isNull(backorders.cancelledAt)))
    .orderBy(asc(backorders.id))
    .limit(200);
  const filled: FilledBackorder[] = [];
  for (const backorder of open) {
    const unit = { orderId: backorder.orderId, lineId: backorder.lineItemId, unitIndex: backorder.unitIndex, variantId, email: backorder.customerEmail };
    const assignment = await assignCode(db, unit, { now, fromQueue: true });
    if (assignment.kind === "out-of-stock") break; // the rest keep waiting, in order
    const { code } = assignment;
    const marked = await db
      .update(backorders)
      .set({ filledAt: now, productCodeId: code.id })
      .where(and(eq(backorders.id, backorder.id), isNull(backorders.filledAt), isNull(backorders.cancelledAt)))
      .returning()
      .get();
    if (marked) {
      // Whoever marks the unit filled reports it (and mails it), even if a concurrent filler
      // claimed the code: exactly one of them gets here.
      filled.push({ backorder: marked, code });
    } else if (assignment.kind === "new") {
      // The order was cancelled (or refunded) while the code was being claimed: it goes back.
      const current = await db.select({ cancelledAt: backorders.cancelledAt }).from(backorders).where(eq(backorders.id, backorder.id)).get();
      if (current?.cancelledAt) await releaseCode(db, code.id, backorder.orderId, false);
    }
  }
  return filled;
}

export async function openBackorders(db: Db) {
  return db
    .select({ ...getTableColumns(backorders), orderName: orderName(backorders.orderId) })
    .from(backorders)
    .where(and(isNull(backorders.filledAt), isNull(backorders.cancelledAt)))
    .orderBy(asc(backorders.id))
    .limit(LIST_LIMIT);
}
