// Low-stock alerts (decision 037): an admin sets, per variant, the number of available codes at
// which the admins are warned. Every path that takes codes out of stock (or puts them back) calls
// `checkLowStock`, whose one conditional statement arms or re-arms the variant's alert, so each
// shortage mails every admin once however many sales race through it.
import { and, asc, count, eq, isNull, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { allVariants, type Catalogue } from "../catalogue/catalogue.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { backorders, productCodes, stockAlerts } from "../platform/db/schema.server";
import type { MailingDeps } from "../platform/mail.server";
import { mailLowStockAlert } from "./stock-mail.server";
import { isFreeCodeOf } from "./claim.server";

/** Codes of a variant that can still be handed out (the rule every hand-out picks by). */
const availableOf = (variantId: unknown) => sql<number>`(select count(*) from ${productCodes} where ${isFreeCodeOf(variantId)})`;

/**
 * After codes of a variant were handed out or stocked: at or below its threshold and not yet
 * alerted, the alert is armed (and every admin mailed, once); above it again, the alert is cleared
 * so the next shortage mails again. One statement: of two sales at once only one arms it.
 */
export async function checkLowStock(deps: MailingDeps, variant: { id: string; title: string }, now = Date.now()): Promise<void> {
  const available = availableOf(stockAlerts.variantId);
  const changed = await deps.db
    .update(stockAlerts)
    .set({ alertedAt: sql`case when ${stockAlerts.alertedAt} is null then ${now} else null end` })
    .where(
      and(
        eq(stockAlerts.variantId, variant.id),
        sql`((${stockAlerts.alertedAt} is null and ${stockAlerts.threshold} >= ${available}) or (${stockAlerts.alertedAt} is not null and ${stockAlerts.threshold} < ${available}))`,
      ),
    )
    .returning({ alertedAt: stockAlerts.alertedAt, threshold: stockAlerts.threshold, available })
    .get();
  if (changed?.alertedAt != null) {
    await mailLowStockAlert(deps, { ...variant, threshold: changed.threshold, available: changed.available, alertedAt: changed.alertedAt });
  }
}

/** Stock of every variant that has codes, a threshold or orders waiting: what Manage Codes and Sales show. */
export interface StockLevel {
  variantId: string;
  title: string;
  available: number;
  threshold: number | null;
  /** Order units paid for and waiting for a code of this variant. */
  waiting: number;
  low: boolean;
}

async function levelRows(db: Db) {
  const [stocked, thresholds, waiting] = await Promise.all([
    db
      .select({ variantId: productCodes.variantId, title: sql<string>`max(${productCodes.variantTitle})`, available: count() })
      .from(productCodes)
      .where(and(eq(productCodes.isUsed, false), isNull(productCodes.revokedAt)))
      .groupBy(productCodes.variantId),
    db.select().from(stockAlerts),
    db
      .select({ variantId: backorders.variantId, title: sql<string>`max(${backorders.variantTitle})`, waiting: count() })
      .from(backorders)
      .where(and(isNull(backorders.filledAt), isNull(backorders.cancelledAt)))
      .groupBy(backorders.variantId),
  ]);
  return { stocked, thresholds, waiting };
}

/**
 * Every variant's stock: the catalogue's variants (titles from there) and any variant the shop
 * holds codes, a threshold or backorders for. Low means at or below the threshold, or waited for.
 */
export async function stockLevels(db: Db, variants: { id: string; title: string }[]): Promise<StockLevel[]> {
  const { stocked, thresholds, waiting } = await levelRows(db);
  const levels = new Map<string, StockLevel>();
  const level = (variantId: string, title: string | null) => {
    let row = levels.get(variantId);
    if (!row) {
      row = { variantId, title: title ?? variantId, available: 0, threshold: null, waiting: 0, low: false };
      levels.set(variantId, row);
    }
    return row;
  };
  for (const v of variants) level(v.id, v.title);
  for (const s of stocked) level(s.variantId, s.title).available = s.available;
  for (const w of waiting) level(w.variantId, w.title).waiting = w.waiting;
  for (const t of thresholds) level(t.variantId, null).threshold = t.threshold;
  for (const row of levels.values()) row.low = row.waiting > 0 || (row.threshold !== null && row.available <= row.threshold);
  return [...levels.values()].sort((a, b) => a.title.localeCompare(b.title));
}

/**
 * Only the variants that need stock, for the dashboard's warning: at or below their threshold, or
 * with orders waiting. Reads thresholds and open backorders only (both small), never all stock.
 */
export async function lowStock(db: Db): Promise<StockLevel[]> {
  const available = availableOf(stockAlerts.variantId);
  const [belowThreshold, waiting] = await Promise.all([
    db
      .select({
        variantId: stockAlerts.variantId,
        title: sql<
          string | null
        >`(select ${productCodes.variantTitle} from ${productCodes} where ${productCodes.variantId} = ${stockAlerts.variantId} limit 1)`,
        threshold: stockAlerts.threshold,
        available,
      })
      .from(stockAlerts)
      .where(sql`${stockAlerts.threshold} >= ${available}`),
    db
      .select({
        variantId: backorders.variantId,
        title: sql<string>`max(${backorders.variantTitle})`,
        waiting: count(),
        available: availableOf(backorders.variantId),
      })
      .from(backorders)
      .where(and(isNull(backorders.filledAt), isNull(backorders.cancelledAt)))
      .groupBy(backorders.variantId)
      .orderBy(asc(backorders.variantId)),
  ]);
  const levels = new Map<string, StockLevel>();
  for (const w of waiting) {
    levels.set(w.variantId, {
      variantId: w.variantId,
      title: w.title,
      available: w.available,
      threshold: null,
      waiting: w.waiting,
      low: true,
    });
  }
  for (const t of belowThreshold) {
    const known = levels.get(t.variantId);
    if (known) known.threshold = t.threshold;
    else
      levels.set(t.variantId, {
        variantId: t.variantId,
        title: t.title ?? t.variantId,
        available: t.available,
        threshold: t.threshold,
        waiting: 0,
        low: true,
      });
  }
  return [...levels.values()].sort((a, b) => a.title.localeCompare(b.title));
}

/**
 * Admin: sets (a number) or clears (null) a catalogue variant's low-stock threshold, audited. The
 * alert is checked at once against the new threshold: a shortage it reveals mails the admins.
 */
export async function setStockThreshold(
  deps: MailingDeps,
  catalogue: Catalogue,
  admin: Viewer,
  input: { variantId: string; threshold: number | null },
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ variantTitle: string; threshold: number | null }>> {
  const variant = (await allVariants(catalogue)).find((v) => v.variant.id === input.variantId);
  if (!variant) return fail("invalid", "That variant is not in the catalogue", { field: "variantId" });
  const { db } = deps;
  if (input.threshold === null) {
    await db.delete(stockAlerts).where(eq(stockAlerts.variantId, input.variantId));
  } else {
    // A new threshold keeps a shortage already alerted; checkLowStock re-arms it if stock is now above.
    await db
      .insert(stockAlerts)
      .values({ variantId: input.variantId, threshold: input.threshold })
      .onConflictDoUpdate({ target: stockAlerts.variantId, set: { threshold: input.threshold } });
    await checkLowStock(deps, { id: input.variantId, title: variant.title }, now);
  }
  await audit(
    db,
    admin.id,
    input.threshold === null ? "stock.threshold-clear" : "stock.threshold",
    input.variantId,
    { variant: variant.title, threshold: input.threshold },
    ip,
  );
  return ok({ variantTitle: variant.title, threshold: input.threshold });
}
