// Reviews from verified buyers (decision 074). A member may review a product while they hold a key
// for it that was sold to them (not a reseller's key, not revoked) and activated at least a day
// before; one review per member and product, which they may edit or delete. The product page
// shows the reviews staff have not hidden, their count and their average. Staff's hiding belongs to
// the member and product, so a review edited, or deleted and posted again, stays hidden (083).
import { and, count, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Product } from "~/lib/catalogue";
import { type PublicReview, REVIEW_AFTER_ACTIVATION_MS, REVIEWS_PAGE_SIZE, type ReviewStanding, type ReviewSummary } from "~/lib/reviews";
import { fail, ok, type Result } from "~/lib/result";
import type { SaveReviewInput } from "~/lib/schemas/reviews";
import type { Viewer } from "~/lib/viewer";
import { reserveAttempt, throttled } from "../accounts/throttle.server";
import type { Db } from "../platform/db/client.server";
import { bound, builtOnce, read, type Read } from "../platform/db/reads.server";
import { licences, productReviews, profiles, reviewModeration } from "../platform/db/schema.server";
import { emitWebhookEvent } from "../webhooks/events.server";

export type ReviewedProduct = Pick<Product, "id" | "handle" | "title">;

/** How far into a product's reviews "show more" may reach. */
const MAX_OFFSET = 10_000;

/** Staff's hiding of a member's review of a product: it holds whatever review row the member writes (decision 083). */
const hiddenByStaff = sql`exists (select 1 from ${reviewModeration} where ${reviewModeration.productId} = ${productReviews.productId} and ${reviewModeration.userId} = ${productReviews.userId})`;

// The product page's reads, built once per database (builtOnce): the product, offset and limit are
// placeholders.
const shown = and(eq(productReviews.productId, sql.placeholder("productId")), sql`not ${hiddenByStaff}`);

const totalsRead = builtOnce((db) =>
  db
    .select({ count: count(), average: sql<number | null>`round(avg(${productReviews.rating}), 1)` })
    .from(productReviews)
    .where(shown)
    .prepare(),
);

const pageRead = builtOnce((db) =>
  db
    .select({
      id: productReviews.id,
      author: profiles.username,
      rating: productReviews.rating,
      body: productReviews.body,
      createdAt: productReviews.createdAt,
      updatedAt: productReviews.updatedAt,
    })
    .from(productReviews)
    .leftJoin(profiles, eq(profiles.id, productReviews.userId))
    .where(shown)
    .orderBy(desc(productReviews.createdAt), desc(productReviews.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare(),
);

const pageValues = (productId: string, offset: number, limit: number) => ({
  productId,
  limit,
  offset: Math.min(Math.max(0, offset), MAX_OFFSET),
});

/** The shown reviews' count and average (one decimal), and the newest page of them: a read to batch with the page's others. */
export function productReviewSummaryRead(db: Db, productId: string): Read<ReviewSummary> {
  return read(
    [bound(totalsRead(db), { productId }), bound(pageRead(db), pageValues(productId, 0, REVIEWS_PAGE_SIZE))],
    ([[totals], rows]) => ({ count: totals?.count ?? 0, average: totals?.average ?? null, reviews: publicReviews(rows) }),
  );
}

/** Shown reviews of a product, newest first. */
export async function reviewPage(db: Db, productId: string, offset: number, limit = REVIEWS_PAGE_SIZE): Promise<PublicReview[]> {
  return publicReviews(await pageRead(db).execute(pageValues(productId, offset, limit)));
}

const publicReviews = (rows: Awaited<ReturnType<ReturnType<typeof pageRead>["execute"]>>): PublicReview[] =>
  rows.map(({ updatedAt, author, ...row }) => ({ ...row, author: author ?? "A buyer", edited: updatedAt > row.createdAt }));

/**
 * Whether `viewer` may review `product` now, and their review if they wrote one. The keys that
 * count were sold to the member's address for this product and are not revoked; the earliest
 * activation among them decides.
 */
export async function reviewStanding(db: Db, viewer: Viewer, product: ReviewedProduct, now = Date.now()): Promise<ReviewStanding> {
  const keys = await db
    .select({ activatedAt: licences.activatedAt })
    .from(licences)
    .where(
      and(
        sql`lower(${licences.ownerEmail}) = lower(${viewer.email})`,
        sql`lower(${licences.product}) = lower(${product.title})`,
        isNotNull(licences.productCodeId),
        isNull(licences.revokedAt),
      ),
    )
    .limit(100);
  if (keys.length === 0) return { kind: "no-licence" };
  const activations = keys.flatMap((key) => (key.activatedAt === null ? [] : [key.activatedAt]));
  if (activations.length === 0) return { kind: "not-activated" };
  const from = Math.min(...activations) + REVIEW_AFTER_ACTIVATION_MS;
  if (from > now) return { kind: "too-soon", from };
  const [own, hidden] = await Promise.all([
    db
      .select({ rating: productReviews.rating, body: productReviews.body })
      .from(productReviews)
      .where(and(eq(productReviews.productId, product.id), eq(productReviews.userId, viewer.id)))
      .get(),
    db
      .select({ reason: reviewModeration.reason, at: reviewModeration.hiddenAt })
      .from(reviewModeration)
      .where(and(eq(reviewModeration.productId, product.id), eq(reviewModeration.userId, viewer.id)))
      .get(),
  ]);
  return { kind: "may-review", own: own ?? null, hidden: hidden ?? null };
}

const REFUSALS: Record<Exclude<ReviewStanding["kind"], "may-review">, string> = {
  "signed-out": "Please log in to review this product",
  "no-licence": "Reviews come from buyers: you need a key for this product",
  "not-activated": "Reviews come from buyers who have used their key: activate yours first",
  "too-soon": "Reviews come from buyers who have used their key for a day",
};

/** Counts a review write against the member's hourly budget. */
async function withinBudget(db: Db, viewer: Viewer, now: number): Promise<Result> {
  const reservation = await reserveAttempt(db, [{ policy: "reviewWritesForAccount", key: `reviews:${viewer.id}` }], now);
  return reservation.ok ? ok() : throttled(reservation.waitMs, "review changes");
}

/** Writes the member's review of the product, or replaces their earlier one; staff's hiding (kept per member and product) stays. */
export async function saveReview(
  db: Db,
  viewer: Viewer,
  product: ReviewedProduct,
  input: Omit<SaveReviewInput, "intent" | "product">,
  now = Date.now(),
): Promise<Result<{ created: boolean }>> {
  const standing = await reviewStanding(db, viewer, product, now);
  if (standing.kind !== "may-review") return fail("forbidden", REFUSALS[standing.kind]);
  const budget = await withinBudget(db, viewer, now);
  if (!budget.ok) return budget;
  const { rating, body } = input;
  // One statement: two sends at once both land on the member's one row (the unique index).
  const row = await db
    .insert(productReviews)
    .values({
      productId: product.id,
      productHandle: product.handle,
      productTitle: product.title,
      userId: viewer.id,
      rating,
      body,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [productReviews.productId, productReviews.userId],
      set: { rating, body, updatedAt: now, productHandle: product.handle },
    })
    .returning({ id: productReviews.id, createdAt: productReviews.createdAt })
    .get();
  const created = row.createdAt === now && standing.own === null;
  await emitWebhookEvent(
    { db },
    "review.posted",
    {
      review: {
        id: row.id,
        product: { id: product.id, handle: product.handle, title: product.title },
        author: viewer.username,
        rating,
        body,
      },
      edited: !created,
    },
    { key: `review.posted:${row.id}:${now}` },
  );
  return ok({ created });
}

/** Deletes the member's own review of the product (there is no other it could reach). */
export async function deleteReview(db: Db, viewer: Viewer, product: ReviewedProduct, now = Date.now()): Promise<Result> {
  const budget = await withinBudget(db, viewer, now);
  if (!budget.ok) return budget;
  const gone = await db
    .delete(productReviews)
    .where(and(eq(productReviews.productId, product.id), eq(productReviews.userId, viewer.id)))
    .returning({ id: productReviews.id })
    .get();
  return gone ? ok() : fail("not-found", "You have not reviewed this product");
}

/** The product pages a member's reviews are shown on: the cached copies a deletion of their reviews makes stale. */
export async function reviewedPagesOf(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ handle: productReviews.productHandle })
    .from(productReviews)
    .where(eq(productReviews.userId, userId));
  return rows.map((row) => row.handle);
}

/** A deleted account's reviews, deleted (decision 099): they leave the product pages and their averages. */
export const reviewsOfDeletedAccount = (db: Db, userId: string) => db.delete(productReviews).where(eq(productReviews.userId, userId));
