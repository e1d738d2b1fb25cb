// Deleting stock codes in bulk (decision 104): a variant's unsold codes, or the listed ones among
// them, previewed first (how many, the first few), deleted exactly as previewed, and put back
// unsold by an undo within the hour. Only codes never sold are ever deleted.
import { and, asc, count, eq, sql } from "drizzle-orm";
import { type BulkPreview, PREVIEW_SAMPLE } from "~/lib/bulk-changes";
import { counted } from "~/lib/format";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import {
  claimApply,
  changeOf,
  claimUndo,
  holds,
  MAX_BULK_ROWS,
  openPreview,
  recordOutcome,
  recordPreview,
  targetField,
  targetObjects,
  targetsOf,
  undoRefusal,
} from "../platform/bulk-changes.server";
import type { Db } from "../platform/db/client.server";
import { productCodes } from "../platform/db/schema.server";
import { parseCodeLines } from "./stock.server";

/** What a bulk deletion asks for: a variant's unsold codes, or only the listed ones among them. */
export interface StockDeletionScope {
  variantId: string;
  /** One code per line; empty means every unsold code of the variant. */
  codes: string;
}

/** An unsold code as the preview captures it: everything needed to put it back as it was. */
interface StockedRow {
  id: number;
  variantId: string;
  variantTitle: string;
  code: string;
  createdAt: number;
}

/** The unsold codes the scope names, oldest first: the one query the preview and the deletion both run. */
async function deletableCodes(db: Db, scope: StockDeletionScope): Promise<Result<StockedRow[]>> {
  const { codes } = parseCodeLines(scope.codes);
  if (codes.length > MAX_BULK_ROWS) return fail("invalid", `List at most ${MAX_BULK_ROWS} codes at a time`, { field: "codes" });
  const listed = codes.length > 0 ? sql`${productCodes.code} in (select value from json_each(${JSON.stringify(codes)}))` : undefined;
  const rows = await db
    .select({
      id: productCodes.id,
      variantId: productCodes.variantId,
      variantTitle: productCodes.variantTitle,
      code: productCodes.code,
      createdAt: productCodes.createdAt,
    })
    .from(productCodes)
    .where(and(eq(productCodes.variantId, scope.variantId), eq(productCodes.isUsed, false), listed))
    .orderBy(asc(productCodes.id))
    .limit(MAX_BULK_ROWS + 1);
  if (rows.length > MAX_BULK_ROWS) {
    return fail("invalid", `More than ${MAX_BULK_ROWS} codes would go: list the codes to delete, at most ${MAX_BULK_ROWS} at a time`, {
      field: "codes",
    });
  }
  if (rows.length === 0) return fail("conflict", "No unsold code of this variant matches: nothing to delete");
  return ok(rows);
}

const sameRows = (a: { id: number }[], b: { id: number }[]) => a.length === b.length && a.every((row, i) => row.id === b[i]!.id);

/** Which codes a bulk deletion would take out of stock, recorded so the deletion takes exactly those. */
export async function previewStockDeletion(
  db: Db,
  admin: Viewer,
  scope: StockDeletionScope,
  now = Date.now(),
): Promise<Result<BulkPreview>> {
  const rows = await deletableCodes(db, scope);
  if (!rows.ok) return rows;
  const token = await recordPreview(db, { kind: "stock-delete", actorId: admin.id, scope: { ...scope }, targets: rows.value }, now);
  return ok({
    token,
    kind: "stock-delete",
    count: rows.value.length,
    sample: rows.value.slice(0, PREVIEW_SAMPLE).map((row) => row.code),
    summary: `${counted(rows.value.length, "unsold code")} of ${rows.value[0]!.variantTitle} leave the stock; for an hour, Undo puts them back.`,
  });
}

/**
 * Deletes the codes a preview captured, once, if they are still exactly what the preview's query
 * finds: a code sold or added since refuses the deletion (preview again). Answers the variant, for
 * its low-stock check.
 */
export async function deleteStockAsPreviewed(
  db: Db,
  admin: Viewer,
  token: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ deleted: number; variant: { id: string; title: string } }>> {
  const preview = await openPreview(db, token, "stock-delete", admin.id, now);
  if (!preview.ok) return preview;
  const previewed = targetsOf<StockedRow>(preview.value);
  const current = await deletableCodes(db, preview.value.scope as unknown as StockDeletionScope);
  if (!current.ok || !sameRows(previewed, current.value)) {
    return fail("conflict", "The stock changed since the preview (a code was sold, added or deleted): preview again");
  }
  const claim = crypto.randomUUID();
  const [claimed, deleted] = await db.batch([
    claimApply(db, token, claim, now),
    db
      .delete(productCodes)
      .where(and(sql`${productCodes.id} in ${targetField(token, "$.id")}`, eq(productCodes.isUsed, false), holds(token, claim)))
      .returning({ id: productCodes.id }),
  ]);
  if (claimed.length === 0) return fail("conflict", "This change was already confirmed");
  const variant = { id: previewed[0]!.variantId, title: previewed[0]!.variantTitle };
  await recordOutcome(db, token, { deleted: deleted.length });
  await audit(
    db,
    admin.id,
    "stock.bulk-delete",
    `bulk:${token}`,
    { variant: variant.title, codes: deleted.length, sample: previewed.slice(0, PREVIEW_SAMPLE).map((row) => row.code) },
    ip,
  );
  return ok({ deleted: deleted.length, variant });
}

/**
 * Puts a bulk deletion's codes back in stock, unsold, with their ids, once and within the hour. A
 * code stocked again since (by its text) stays as it is and is counted as skipped.
 */
export async function undoStockDeletion(
  db: Db,
  admin: Viewer,
  token: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ restored: number; skipped: number; variant: { id: string; title: string } }>> {
  const claim = crypto.randomUUID();
  const [claimed] = await db.batch([
    claimUndo(db, token, "stock-delete", admin.id, claim, now),
    // Back as they were stocked, ids included; a code stocked again since (same text) is left as it is.
    db
      .insert(productCodes)
      .select((qb) =>
        qb
          .select({
            id: sql<number>`json_extract(value, '$.id')`.as("id"),
            variantId: sql<string>`json_extract(value, '$.variantId')`.as("variant_id"),
            variantTitle: sql<string>`json_extract(value, '$.variantTitle')`.as("variant_title"),
            code: sql<string>`json_extract(value, '$.code')`.as("code"),
            isUsed: sql<boolean>`0`.as("is_used"),
            // Never sold: nothing of a sale to put back (every column, in the table's order).
            usedAt: sql<null>`null`.as("used_at"),
            customerEmail: sql<null>`null`.as("customer_email"),
            orderId: sql<null>`null`.as("order_id"),
            orderLineId: sql<null>`null`.as("order_line_id"),
            unitIndex: sql<null>`null`.as("unit_index"),
            revokedAt: sql<null>`null`.as("revoked_at"),
            mailedAt: sql<null>`null`.as("mailed_at"),
            createdAt: sql<number>`json_extract(value, '$.createdAt')`.as("created_at"),
          })
          .from(targetObjects(token))
          .where(holds(token, claim)),
      )
      .onConflictDoNothing(),
  ]);
  if (claimed.length === 0) return undoRefusal(db, token, "stock-delete", now);
  const rows = targetsOf<StockedRow>((await changeOf(db, token))!);
  const [back] = await db
    .select({ n: count() })
    .from(productCodes)
    .where(sql`${productCodes.id} in ${targetField(token, "$.id")}`);
  const restored = back?.n ?? 0;
  const skipped = rows.length - restored;
  await recordOutcome(db, token, { restored, skipped });
  const variant = { id: rows[0]!.variantId, title: rows[0]!.variantTitle };
  await audit(db, admin.id, "stock.bulk-delete.undo", `bulk:${token}`, { variant: variant.title, restored, skipped }, ip);
  return ok({ restored, skipped, variant });
}
