// The product page's reviews: the real ones from verified buyers, their count and average, newest
// first with "show more", and an honest empty state. Whether the visitor may review (and their own
// review) comes from the private /api/reviews after the page loads, so the page stays the same
// cached bytes for everyone.
import { useEffect, useState } from "react";
import { useFetcher } from "react-router";
import { LocalTime } from "~/components/local-time";
import { Stars } from "~/components/stars";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { type PublicReview, REVIEWS_PAGE_SIZE, type ReviewSummary } from "~/lib/reviews";
import { plural } from "~/lib/format";
import { ReviewForm } from "./review-form";

function ReviewCard({ review }: { review: PublicReview }) {
  return (
    <Card padding="p-5">
      <div className="flex items-center justify-between gap-3">
        <p className="min-w-0 truncate font-semibold">{review.author}</p>
        <Stars rating={review.rating} />
      </div>
      <p className="mt-2 text-sm whitespace-pre-line text-muted wrap-anywhere">{review.body}</p>
      <p className="mt-3 text-xs text-muted">
        Verified purchase · <LocalTime ms={review.createdAt} />
        {review.edited ? " · edited" : ""}
      </p>
    </Card>
  );
}

export function Reviews({ handle, summary }: { handle: string; summary: ReviewSummary }) {
  const more = useFetcher<{ more: PublicReview[] | null }>();
  const [extra, setExtra] = useState<PublicReview[]>([]);
  const { count, average, reviews } = summary;
  // A fresh page of the loader's (after a review changed) starts the list again.
  useEffect(() => setExtra([]), [summary]);
  useEffect(() => {
    const page = more.data?.more;
    if (more.state === "idle" && page) setExtra((shown) => [...shown, ...page.filter((r) => !shown.some((s) => s.id === r.id))]);
  }, [more.state, more.data]);
  const shown = [...reviews, ...extra.filter((r) => !reviews.some((s) => s.id === r.id))];
  return (
    <section aria-labelledby="reviews">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <h2 id="reviews" className="text-xl font-bold">
          Customer Reviews
        </h2>
        {average !== null ? (
          <p className="flex items-center gap-2 text-sm" data-testid="review-average" data-average={average} data-count={count}>
            <Stars rating={average} /> <span className="font-bold">{average.toFixed(1)}/5</span>{" "}
            <span className="text-muted">
              from {count} {plural(count, "review", "reviews")}
            </span>
          </p>
        ) : null}
      </div>
      {shown.length === 0 ? (
        <p className="mt-4 rounded-xl border border-dashed border-line p-6 text-sm text-muted">No reviews yet.</p>
      ) : (
        <div className="mt-4 grid gap-4 md:grid-cols-2" data-testid="review-list">
          {shown.map((review) => (
            <ReviewCard key={review.id} review={review} />
          ))}
        </div>
      )}
      {shown.length < count ? (
        <Button
          variant="outline"
          className="mt-4"
          disabled={more.state !== "idle"}
          onClick={() => void more.load(`/api/reviews?product=${encodeURIComponent(handle)}&offset=${shown.length}`)}
        >
          {more.state !== "idle" ? "Loading..." : `Show more reviews (${Math.min(REVIEWS_PAGE_SIZE, count - shown.length)} more)`}
        </Button>
      ) : null}
      <ReviewForm handle={handle} />
    </section>
  );
}
