// The back office's reviews: every review with its author, newest first, and staff hiding one with
// a reason or showing it again (decisions 074 and 083). The decision is kept per member and product
// (review_moderation), written only here, so it holds whatever the author does to the review row:
// edited, or deleted and posted again, a hidden review stays hidden until staff show it. Each
// change is one conditional statement, audited, and names the product page whose cached copy must go.
import { and, desc, eq, isNotNull, isNull, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { fail, ok, type Result } from "~/lib/result";
import type { ReviewFilter } from "~/lib/reviews";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { productReviews, profiles, reviewModeration, users } from "../platform/db/schema.server";

const LIST_LIMIT = 200;

const FILTER: Record<ReviewFilter, SQL | undefined> = {
  all: undefined,
  shown: isNull(reviewModeration.productId),
  hidden: isNotNull(reviewModeration.productId),
};

const moderator = alias(users, "moderator");

const moderationOfReview = and(
  eq(reviewModeration.productId, productReviews.productId),
  eq(reviewModeration.userId, productReviews.userId),
);

/** Staff: the newest reviews (up to 200) under the filter. */
export async function reviewsForStaff(db: Db, filter: ReviewFilter) {
  return db
    .select({
      id: productReviews.id,
      productTitle: productReviews.productTitle,
      productHandle: productReviews.productHandle,
      author: profiles.username,
      email: users.email,
      rating: productReviews.rating,
      body: productReviews.body,
      createdAt: productReviews.createdAt,
      updatedAt: productReviews.updatedAt,
      hiddenAt: reviewModeration.hiddenAt,
      hiddenReason: reviewModeration.reason,
      hiddenBy: moderator.email,
    })
    .from(productReviews)
    .innerJoin(users, eq(users.id, productReviews.userId))
    .leftJoin(profiles, eq(profiles.id, productReviews.userId))
    .leftJoin(reviewModeration, moderationOfReview)
    .leftJoin(moderator, eq(moderator.id, reviewModeration.hiddenBy))
    .where(FILTER[filter])
    .orderBy(desc(productReviews.createdAt), desc(productReviews.id))
    .limit(LIST_LIMIT);
}

export type StaffReview = Awaited<ReturnType<typeof reviewsForStaff>>[number];

/**
 * Staff: hides a shown review with a reason, or shows a hidden one again; audited. Answers the
 * product page to refresh. Of two staff acting at once, one changes it; the other is told.
 */
export async function moderateReview(
  db: Db,
  staff: Viewer,
  input: { intent: "hide"; review: number; reason: string } | { intent: "unhide"; review: number },
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ productHandle: string }>> {
  const review = await db
    .select({ productId: productReviews.productId, userId: productReviews.userId, productHandle: productReviews.productHandle })
    .from(productReviews)
    .where(eq(productReviews.id, input.review))
    .get();
  if (!review) return fail("not-found", "No such review");
  const pair = and(eq(reviewModeration.productId, review.productId), eq(reviewModeration.userId, review.userId));
  if (input.intent === "hide") {
    const [hidden] = await db
      .insert(reviewModeration)
      .values({ productId: review.productId, userId: review.userId, reason: input.reason, hiddenBy: staff.id, hiddenAt: now })
      .onConflictDoNothing()
      .returning({ at: reviewModeration.hiddenAt });
    if (!hidden) {
      const first = await db
        .select({ by: users.email })
        .from(reviewModeration)
        .leftJoin(users, eq(users.id, reviewModeration.hiddenBy))
        .where(pair)
        .get();
      return fail(
        "conflict",
        first
          ? `This review was already hidden by ${first.by ?? "another member of staff"}`
          : "This review changed meanwhile; reload and try again",
      );
    }
  } else {
    const [shown] = await db.delete(reviewModeration).where(pair).returning({ at: reviewModeration.hiddenAt });
    if (!shown) return fail("conflict", "This review is already shown");
  }
  await audit(
    db,
    staff.id,
    `review.${input.intent}`,
    `review:${input.review}`,
    input.intent === "hide" ? { reason: input.reason } : {},
    ip,
  );
  return ok({ productHandle: review.productHandle });
}

/** A deleted account's reviews are gone (decision 099), so staff's decisions about them go too. */
export const moderationOfDeletedAccount = (db: Db, userId: string) =>
  db.delete(reviewModeration).where(eq(reviewModeration.userId, userId));
