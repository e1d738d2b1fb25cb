// The product page's social proof, only as true as the data (decision 075): how many paid orders
// included the product in the last 24 hours (said only from a threshold staff set), and the sale
// staff set on it with the real time it ends (gone once it has ended). Staff's changes are audited.
import { and, eq, gt, isNull, ne, type SQLWrapper, sql } from "drizzle-orm";
import { DAY_MS } from "~/lib/time";
import { DEFAULT_RECENT_PURCHASERS_THRESHOLD, type ProductSale } from "~/lib/reviews";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { bound, builtOnce, read, type Read } from "../platform/db/reads.server";
import { cryptoOrders, productSales, shopifyOrders, shopifyOrderVariants, storefrontSettings } from "../platform/db/schema.server";

/** The threshold staff set (one row, id 1), as a query to run or to read inside another. */
const thresholdQuery = (db: Db) =>
  db.select({ threshold: storefrontSettings.recentPurchasersThreshold }).from(storefrontSettings).where(eq(storefrontSettings.id, 1));

const thresholdRead = builtOnce((db) => thresholdQuery(db).limit(1).prepare());

/**
 * The social proof as one statement, built once per database (builtOnce) and sent in the product
 * page's one batch: the paid card and crypto orders since `since` with a line for one of the
 * variants (`variantIds`, a JSON array; refunded or cancelled orders do not count), the threshold,
 * and the product's sale while it runs. Each count is a subquery planned on its own index; one
 * statement instead of four spares the round trip three statements' answers.
 */
const promotionsRead = builtOnce((db) => {
  const since = sql.placeholder("since");
  const ofVariants = (column: SQLWrapper) => sql`${column} in (select value from json_each(${sql.placeholder("variantIds")}))`;
  const card = db
    .select({ n: sql`count(distinct ${shopifyOrderVariants.orderId})` })
    .from(shopifyOrderVariants)
    .innerJoin(shopifyOrders, eq(shopifyOrders.id, shopifyOrderVariants.orderId))
    .where(
      and(
        ofVariants(shopifyOrderVariants.variantId),
        gt(shopifyOrderVariants.paidAt, since),
        // The index finds the product's sales; the order itself says whether one counts.
        gt(shopifyOrders.paidAt, since),
        isNull(shopifyOrders.refundedAt),
        isNull(shopifyOrders.cancelledAt),
      ),
    );
  const crypto = db
    .select({ n: sql`count(*)` })
    .from(cryptoOrders)
    .where(
      and(
        ofVariants(cryptoOrders.variantId),
        gt(cryptoOrders.paidAt, since),
        eq(cryptoOrders.purpose, "key"),
        ne(cryptoOrders.status, "cancelled"),
      ),
    );
  return db
    .select({
      card: sql<number>`${card}`,
      crypto: sql<number>`${crypto}`,
      threshold: sql<number | null>`${thresholdQuery(db)}`,
      saleLabel: productSales.label,
      saleEndsAt: productSales.endsAt,
    })
    .from(sql`(select 1)`)
    .leftJoin(productSales, and(eq(productSales.productId, sql.placeholder("productId")), gt(productSales.endsAt, sql.placeholder("now"))))
    .prepare();
});

export async function recentPurchasersThreshold(db: Db): Promise<number> {
  const [row] = await thresholdRead(db).execute();
  return row?.threshold ?? DEFAULT_RECENT_PURCHASERS_THRESHOLD;
}

/** What the product page may claim: recent purchasers (null below the threshold) and the running sale; a read to batch with the page's others. */
export function productPromotionsRead(
  db: Db,
  product: { id: string; variants: readonly { id: string }[] },
  now = Date.now(),
): Read<{ recentPurchasers: number | null; sale: ProductSale | null }> {
  const values = { since: now - DAY_MS, variantIds: JSON.stringify(product.variants.map((v) => v.id)), productId: product.id, now };
  return read([bound(promotionsRead(db), values)], ([[row]]) => {
    // No variant, no order can hold one.
    const purchasers = product.variants.length === 0 || !row ? 0 : row.card + row.crypto;
    const threshold = row?.threshold ?? DEFAULT_RECENT_PURCHASERS_THRESHOLD;
    const sale = row?.saleLabel != null && row.saleEndsAt != null ? { label: row.saleLabel, endsAt: row.saleEndsAt } : null;
    return { recentPurchasers: purchasers >= threshold ? purchasers : null, sale };
  });
}

/** Staff: every product's sale (running or ended), by product id. */
export async function productSaleList(db: Db) {
  return db.select({ productId: productSales.productId, label: productSales.label, endsAt: productSales.endsAt }).from(productSales);
}

/** Staff: the recent-purchasers threshold; audited. */
export async function setRecentPurchasersThreshold(
  db: Db,
  staff: Viewer,
  threshold: number,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ threshold: number }>> {
  await db
    .insert(storefrontSettings)
    .values({ id: 1, recentPurchasersThreshold: threshold, updatedAt: now, updatedBy: staff.id })
    .onConflictDoUpdate({
      target: storefrontSettings.id,
      set: { recentPurchasersThreshold: threshold, updatedAt: now, updatedBy: staff.id },
    });
  await audit(db, staff.id, "storefront.recent-purchasers", "storefront", { threshold }, ip);
  return ok({ threshold });
}

/** Staff: sets (or replaces) the sale on a product, which must end in the future; audited. */
export async function setProductSale(
  db: Db,
  staff: Viewer,
  productId: string,
  sale: ProductSale,
  ip: string | null,
  now = Date.now(),
): Promise<Result<ProductSale>> {
  if (sale.endsAt <= now) return fail("invalid", "The sale must end in the future", { field: "endsAt" });
  await db
    .insert(productSales)
    .values({ productId, ...sale, updatedAt: now, updatedBy: staff.id })
    .onConflictDoUpdate({ target: productSales.productId, set: { ...sale, updatedAt: now, updatedBy: staff.id } });
  await audit(db, staff.id, "storefront.sale", `product:${productId}`, { ...sale }, ip);
  return ok(sale);
}

/** Staff: ends a product's sale now; audited. */
export async function endProductSale(db: Db, staff: Viewer, productId: string, ip: string | null): Promise<Result> {
  const gone = await db
    .delete(productSales)
    .where(eq(productSales.productId, productId))
    .returning({ productId: productSales.productId })
    .get();
  if (!gone) return fail("not-found", "This product has no sale");
  await audit(db, staff.id, "storefront.sale-end", `product:${productId}`, {}, ip);
  return ok();
}
