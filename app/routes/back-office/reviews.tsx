// /dashboard/reviews: every product review, newest first (?show=all|shown|hidden), with its
// author; support and admins hide one with a reason or show it again, audited (the hiding holds the
// member's review of the product, whatever they post: decision 083). A change drops the
// product page's cached copy, so it leaves (or returns to) the page and its average at once.
import { Link } from "~/components/link";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { pageAndData, purgePages } from "~/http/edge-cache.server";
import { requireCapability } from "~/http/guards.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { moderateReviewSchema } from "~/lib/schemas/reviews";
import { REVIEW_FILTERS, type ReviewFilter } from "~/lib/reviews";
import { moderateReview, reviewsForStaff, type StaffReview } from "~/server/reviews/review-moderation.server";
import { Stars } from "~/components/stars";
import { ReviewModeration } from "./+shared/reviews/review-actions";
import type { Route } from "./+types/reviews";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("reviews.moderate")];

export const meta: Route.MetaFunction = () => [{ title: `Reviews | ${BRAND}` }];

const isFilter = (value: string | null): value is ReviewFilter => (REVIEW_FILTERS as readonly (string | null)[]).includes(value);

export async function loader({ request, context }: Route.LoaderArgs) {
  const requested = new URL(request.url).searchParams.get("show");
  const filter = isFilter(requested) ? requested : "all";
  return { filter, reviews: await reviewsForStaff(app(context).db, filter) };
}

const titles: ProblemTitles = { invalid: "Please check the form", conflict: "Nothing changed", "not-found": "Not found" };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "reviews", moderateReviewSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: input, viewer } = submission;
  const result = await moderateReview(app(context).db, viewer, input, clientAddress(request));
  if (result.ok) await purgePages(new URL(request.url).origin, pageAndData(`/product/${result.value.productHandle}`));
  return answer(result, {
    titles,
    intent: input.intent,
    success: { title: input.intent === "hide" ? "Review hidden" : "Review shown again" },
  });
}

const FILTER_LABEL: Record<ReviewFilter, string> = { all: "All", shown: "Shown", hidden: "Hidden" };

function ReviewItem({ review }: { review: StaffReview }) {
  return (
    <li className="rounded-lg border border-line bg-panel-2 p-4 text-sm">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-semibold">
          <Link to={`/product/${review.productHandle}`} className="hover:underline">
            {review.productTitle}
          </Link>{" "}
          <Stars rating={review.rating} />
        </p>
        {review.hiddenAt !== null ? <Badge tone="orange">Hidden</Badge> : <Badge tone="green">Shown</Badge>}
      </div>
      <p className="mt-1 text-xs text-muted wrap-anywhere">
        {review.author ?? "A buyer"} · {review.email} · <LocalTime ms={review.createdAt} format="datetime" />
        {review.updatedAt > review.createdAt ? " · edited" : ""}
      </p>
      <p className="mt-2 whitespace-pre-line wrap-anywhere">{review.body}</p>
      <div className="mt-3 flex flex-wrap items-center justify-between gap-2">
        {review.hiddenAt !== null ? (
          <p className="text-muted">
            Hidden <LocalTime ms={review.hiddenAt} />
            {review.hiddenBy ? ` by ${review.hiddenBy}` : ""}: {review.hiddenReason}
          </p>
        ) : null}
        <div className={review.hiddenAt !== null ? "" : "w-full"}>
          <ReviewModeration review={review.id} hidden={review.hiddenAt !== null} />
        </div>
      </div>
    </li>
  );
}

export default function Reviews({ loaderData }: Route.ComponentProps) {
  const { filter, reviews } = loaderData;
  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-3xl font-black">Reviews</h1>
        <p className="mt-2 max-w-2xl text-sm text-muted">
          Reviews come only from members whose key for the product was activated at least a day before. A hidden review leaves the product
          page and its average, and stays hidden if its author edits it or deletes it and posts again, until it is shown again; its author
          sees it marked hidden, with the reason.
        </p>
      </div>
      <nav aria-label="Filter reviews" className="flex flex-wrap gap-2">
        {REVIEW_FILTERS.map((f) => (
          <Link
            key={f}
            to={`?show=${f}`}
            aria-current={f === filter ? "page" : undefined}
            className={`rounded-full border px-3 py-1 text-sm ${f === filter ? "border-accent bg-accent/10 text-accent" : "border-line text-muted hover:text-white"}`}
          >
            {FILTER_LABEL[f]}
          </Link>
        ))}
      </nav>
      <Card>
        {reviews.length === 0 ? (
          <p className="text-sm text-muted">No reviews here yet.</p>
        ) : (
          <ul aria-label="Reviews" className="space-y-3">
            {reviews.map((review) => (
              <ReviewItem key={review.id} review={review} />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
