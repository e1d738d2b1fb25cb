// Status updates: the public list, each product's current status, and staff's post. A
// product's status is the one its latest post set (decision 046), so it can never disagree with
// the posts the status page lists.
import { and, desc, isNotNull, sql } from "drizzle-orm";
import type { Product } from "~/lib/catalogue";
import { fail, ok, type Result } from "~/lib/result";
import { can } from "~/lib/roles";
import type { StatusUpdateInput } from "~/lib/schemas/status";
import { DEFAULT_PRODUCT_STATUS, type ProductStatus } from "~/lib/status";
import type { Viewer } from "~/lib/viewer";
import type { Db } from "../platform/db/client.server";
import { bound, builtOnce, read, type Read, readAlone } from "../platform/db/reads.server";
import { statusUpdates } from "../platform/db/schema.server";

export const STATUS_LIST_LIMIT = 10;

export function latestStatusUpdates(db: Db) {
  return db
    .select({
      id: statusUpdates.id,
      title: statusUpdates.title,
      description: statusUpdates.description,
      type: statusUpdates.type,
      productId: statusUpdates.productId,
      productStatus: statusUpdates.productStatus,
      createdAt: statusUpdates.createdAt,
    })
    .from(statusUpdates)
    .orderBy(desc(statusUpdates.createdAt), desc(statusUpdates.id))
    .limit(STATUS_LIST_LIMIT);
}

export interface ProductStatusView {
  status: ProductStatus;
  /** When a post set it; null while no post ever has. */
  since: number | null;
}

// The latest status-setting post of each of some products (`productIds`, a JSON array), built once
// per database: the product page reads it at every render.
const latestStatusesQuery = builtOnce((db) => {
  const newer = sql`exists (select 1 from ${statusUpdates} n where n.product_id = ${statusUpdates.productId} and n.product_status is not null
    and (n.created_at > ${statusUpdates.createdAt} or (n.created_at = ${statusUpdates.createdAt} and n.id > ${statusUpdates.id})))`;
  return db
    .select({ productId: statusUpdates.productId, status: statusUpdates.productStatus, createdAt: statusUpdates.createdAt })
    .from(statusUpdates)
    .where(
      and(
        sql`${statusUpdates.productId} in (select value from json_each(${sql.placeholder("productIds")}))`,
        isNotNull(statusUpdates.productStatus),
        sql`not ${newer}`,
      ),
    )
    .prepare();
});

/** Each product's current status, as a read to batch with others: the one its latest status-setting post set, else Undetected. */
export function productStatusesRead(db: Db, productIds: string[]): Read<Map<string, ProductStatusView>> {
  return read([bound(latestStatusesQuery(db), { productIds: JSON.stringify(productIds) })], ([rows]) => {
    const statuses = new Map<string, ProductStatusView>(productIds.map((id) => [id, { status: DEFAULT_PRODUCT_STATUS, since: null }]));
    for (const row of rows) if (row.productId && row.status) statuses.set(row.productId, { status: row.status, since: row.createdAt });
    return statuses;
  });
}

/** Each product's current status: the one its latest status-setting post set, else Undetected. */
export async function productStatuses(db: Db, productIds: string[]): Promise<Map<string, ProductStatusView>> {
  // No products (the catalogue could not be read): no query.
  if (productIds.length === 0) return new Map();
  return readAlone(db, productStatusesRead(db, productIds));
}

/** Who may post an update: a signed-in account whose role has `status.post`. The page is public, so anyone can try. */
export function statusAuthor(viewer: Viewer | null): Result<Viewer> {
  if (!viewer) return fail("unauthenticated", "Please log in to continue");
  if (!can(viewer.role, "status.post")) return fail("forbidden", "You don't have permission to post status updates");
  return ok(viewer);
}

/**
 * Posts an update; one naming a product (and, with it, the product's new status) must name one
 * the catalogue sells. Returns the product the post was about, whose page shows its status.
 */
export async function postStatusUpdate(
  db: Db,
  products: Product[],
  author: Viewer,
  input: StatusUpdateInput,
  now = Date.now(),
): Promise<Result<{ product: Product | null }>> {
  const product = input.product ? products.find((p) => p.id === input.product) : undefined;
  if (input.product && !product) return fail("invalid", "This product is not in the catalogue", { field: "product" });
  await db.insert(statusUpdates).values({
    title: input.title,
    description: input.description,
    type: input.type,
    productId: product?.id ?? null,
    productStatus: product && input.productStatus ? input.productStatus : null,
    authorId: author.id,
    createdAt: now,
  });
  return ok({ product: product ?? null });
}
