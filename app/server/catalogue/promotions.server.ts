// The product page's social proof, only as true as the data (decision 075): how many paid orders
// included the product in the last 24 hours (said only from a threshold staff set), and the sale
// staff set on it with the real time it ends (gone once it has ended). Staff's changes are audited.
import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { DAY_MS } from "~/lib/time";
import { DEFAULT_RECENT_PURCHASERS_THRESHOLD, type ProductSale } from "~/lib/reviews";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { bound, builtOnce, read, type Read } from "../platform/db/reads.server";
import { cryptoOrders, productSales, shopifyOrders, shopifyOrderVariants, storefrontSettings } from "../platform/db/schema.server";

/**
 * The reads behind the social proof, built once per database (builtOnce) and sent in the product
 * page's one batch: paid card and crypto orders since `since` with a line for
 * one of the variants (`variantIds`, a JSON array; refunded or cancelled orders do not count), the
 * threshold, and the product's sale while it runs.
 */
const cardPurchasesRead = builtOnce((db) =>
  db
    .select({ n: sql<number>`count(distinct ${shopifyOrderVariants.orderId})` })
    .from(shopifyOrderVariants)
    .innerJoin(shopifyOrders, eq(shopifyOrders.id, shopifyOrderVariants.orderId))
    .where(
      and(
        sql`${shopifyOrderVariants.variantId} in (select value from json_each(${sql.placeholder("variantIds")}))`,
        gt(shopifyOrderVariants.paidAt, sql.placeholder("since")),
        // The index finds the product's sales; the order itself says whether one counts.
        gt(shopifyOrders.paidAt, sql.placeholder("since")),
        isNull(shopifyOrders.refundedAt),
        isNull(shopifyOrders.cancelledAt),
      ),
    )
    .prepare(),
);

const cryptoPurchasesRead = builtOnce((db) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(cryptoOrders)
    .where(
      and(
        sql`${cryptoOrders.variantId} in (select value from json_each(${sql.placeholder("variantIds")}))`,
        gt(cryptoOrders.paidAt, sql.placeholder("since")),
        eq(cryptoOrders.purpose, "key"),
        ne(cryptoOrders.status, "cancelled"),
      ),
    )
    .prepare(),
);

const thresholdRead = builtOnce((db) =>
  db
    .select({ threshold: storefrontSettings.recentPurchasersThreshold })
    .from(storefrontSettings)
    .where(eq(storefrontSettings.id, 1))
    .limit(1)
    .prepare(),
);

const saleRead = builtOnce((db) =>
  db
    .select({ label: productSales.label, endsAt: productSales.endsAt })
    .from(productSales)
    .where(and(eq(productSales.productId, sql.placeholder("productId")), gt(productSales.endsAt, sql.placeholder("now"))))
    .limit(1)
    .prepare(),
);

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
  const purchases = { since: now - DAY_MS, variantIds: JSON.stringify(product.variants.map((v) => v.id)) };
  return read(
    [
      bound(cardPurchasesRead(db), purchases),
      bound(cryptoPurchasesRead(db), purchases),
      bound(thresholdRead(db)),
      bound(saleRead(db), { productId: product.id, now }),
    ],
    ([card, crypto, [setting], [sale]]) => {
      // No variant, no order can hold one.
      const purchasers = product.variants.length === 0 ? 0 : (card[0]?.n ?? 0) + (crypto[0]?.n ?? 0);
      const threshold = setting?.threshold ?? DEFAULT_RECENT_PURCHASERS_THRESHOLD;
      return { recentPurchasers: purchasers >= threshold ? purchasers : null, sale: sale ?? null };
    },
  );
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
