// The back office's reviews: every review with its author, newest first, and staff hiding one with
// a reason or showing it again (decision 074). Each change is audited and names the product page
// whose cached copy must go.
import { and, desc, eq, isNotNull, isNull, type SQL } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { ReviewFilter } from "~/lib/reviews";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { productReviews, profiles, users } from "../platform/db/schema.server";

const LIST_LIMIT = 200;

const FILTER: Record<ReviewFilter, SQL | undefined> = {
  all: undefined,
  shown: isNull(productReviews.hiddenAt),
  hidden: isNotNull(productReviews.hiddenAt),
};

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
      hiddenAt: productReviews.hiddenAt,
      hiddenReason: productReviews.hiddenReason,
    })
    .from(productReviews)
    .innerJoin(users, eq(users.id, productReviews.userId))
    .leftJoin(profiles, eq(profiles.id, productReviews.userId))
    .where(FILTER[filter])
    .orderBy(desc(productReviews.createdAt), desc(productReviews.id))
    .limit(LIST_LIMIT);
}

export type StaffReview = Awaited<ReturnType<typeof reviewsForStaff>>[number];

/** Staff: hides a shown review with a reason, or shows a hidden one again; audited. Answers the product page to refresh. */
export async function moderateReview(
  db: Db,
  staff: Viewer,
  input: { intent: "hide"; review: number; reason: string } | { intent: "unhide"; review: number },
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ productHandle: string }>> {
  const hiding = input.intent === "hide";
  // One conditional statement: of two staff acting at once, one changes the review.
  const changed = await db
    .update(productReviews)
    .set(hiding ? { hiddenAt: now, hiddenReason: input.reason, hiddenBy: staff.id } : { hiddenAt: null, hiddenReason: null, hiddenBy: null })
    .where(and(eq(productReviews.id, input.review), hiding ? isNull(productReviews.hiddenAt) : isNotNull(productReviews.hiddenAt)))
    .returning({ productHandle: productReviews.productHandle })
    .get();
  if (!changed) {
    const exists = await db.select({ id: productReviews.id }).from(productReviews).where(eq(productReviews.id, input.review)).get();
    return exists ? fail("conflict", hiding ? "This review is already hidden" : "This review is already shown") : fail("not-found", "No such review");
  }
  await audit(db, staff.id, `review.${input.intent}`, `review:${input.review}`, hiding ? { reason: input.reason } : {}, ip);
  return ok(changed);
}
