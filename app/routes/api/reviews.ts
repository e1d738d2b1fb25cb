// /api/reviews: the product page's reviews as they concern one visitor, private and never cached,
// so the page around them stays the same cached bytes for everyone (decision 074).
// GET ?product=<handle>: whether the visitor may review it (and their own review); with &offset=N,
// also the next shown reviews after the first N ("show more").
// POST intent=save|delete: the member's own review of the product; a change drops the product
// page's cached copy, so the page shows it at once. In development and tests the time is the
// browser's test clock (/dev/clock).
import { data } from "react-router";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { callerOf } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { pageAndData, purgePages } from "~/http/edge-cache.server";
import { readSubmission } from "~/http/submission.server";
import { clockNow } from "~/http/test-clock.server";
import type { Product } from "~/lib/catalogue";
import type { PublicReview, ReviewStanding } from "~/lib/reviews";
import { fail } from "~/lib/result";
import { memberReviewSchema } from "~/lib/schemas/reviews";
import { getViewer } from "~/server/accounts/session.server";
import { deleteReview, reviewPage, reviewStanding, saveReview } from "~/server/reviews/reviews.server";
import type { Route } from "./+types/reviews";

const PRIVATE = { "Cache-Control": "private, no-store" };

export interface ReviewsAnswer {
  standing: ReviewStanding | null;
  more: PublicReview[] | null;
}

async function productOf(context: Route.LoaderArgs["context"], handle: string | null): Promise<Product | null> {
  if (!handle || !/^[a-z0-9][a-z0-9-]{0,99}$/.test(handle)) return null;
  return app(context).catalogue.productByHandle(handle);
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const params = new URL(request.url).searchParams;
  const product = await productOf(context, params.get("product"));
  if (!product) throw data({ message: "No such product" }, { status: 404, headers: PRIVATE });
  const offset = params.get("offset");
  const viewer = await getViewer(db, callerOf(request));
  const [standing, more] = await Promise.all([
    viewer ? reviewStanding(db, viewer, product, clockNow(request)) : ({ kind: "signed-out" } as const),
    offset !== null && /^\d{1,5}$/.test(offset) ? reviewPage(db, product.id, Number(offset)) : null,
  ]);
  return data<ReviewsAnswer>({ standing, more }, { headers: PRIVATE });
}

const titles: ProblemTitles = {
  invalid: "Please check your review",
  forbidden: "Not yet",
  "not-found": "Nothing to delete",
  "rate-limited": "Slow down",
};

export async function action({ request, context }: Route.ActionArgs) {
  const { db } = app(context);
  const viewer = await getViewer(db, callerOf(request));
  if (!viewer)
    return answer(fail("unauthenticated", "Please log in to review this product"), { titles, success: { title: "" }, headers: PRIVATE });
  const submission = await readSubmission(request, memberReviewSchema);
  if (!submission.ok) return answerInvalid(submission, { titles, headers: PRIVATE });
  const input = submission.value;
  const product = await productOf(context, input.product);
  if (!product) return answer(fail("not-found", "No such product"), { titles, success: { title: "" }, headers: PRIVATE });
  const now = clockNow(request);
  const result = input.intent === "save" ? await saveReview(db, viewer, product, input, now) : await deleteReview(db, viewer, product, now);
  if (result.ok) await purgePages(new URL(request.url).origin, pageAndData(`/product/${product.handle}`));
  return answer<unknown>(result, {
    titles,
    intent: input.intent,
    headers: PRIVATE,
    success:
      input.intent === "save" ? { title: "Review saved", description: "Thank you for telling other buyers." } : { title: "Review deleted" },
  });
}
