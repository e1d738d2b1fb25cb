// The visitor's part in a product's reviews: the form for a member who may review, or why they may
// not yet. Asked of the private /api/reviews once the page has loaded; the server checks every rule
// again when the form is sent. The form itself is fetched only for a member who may review.
import { Suspense, useCallback, useEffect } from "react";
import { useFetcher, useRevalidator } from "react-router";
import { Link } from "~/components/link";
import { LocalTime } from "~/components/local-time";
import { lazyComponent } from "~/components/lazy";
import { useViewer } from "~/components/viewer";
import type { ReviewStanding } from "~/lib/reviews";

const ReviewEditor = lazyComponent(() => import("./review-editor").then((module) => module.ReviewEditor));

const WHY_NOT: Record<Exclude<ReviewStanding["kind"], "may-review" | "too-soon">, string> = {
  "signed-out": "Reviews come from buyers who have used their key for a day.",
  "no-licence": "Reviews come from buyers: once you have a key for this product and have used it for a day, you can review it here.",
  "not-activated": "Reviews come from buyers who have used their key for a day: activate yours in the loader first.",
};

export function ReviewForm({ handle }: { handle: string }) {
  const { viewer, status } = useViewer();
  const standing = useFetcher<{ standing: ReviewStanding | null }>();
  const revalidator = useRevalidator();
  const { load } = standing;
  const signedIn = viewer !== null;

  useEffect(() => {
    if (signedIn) void load(`/api/reviews?product=${encodeURIComponent(handle)}`);
  }, [signedIn, handle, load]);
  // After a change: what the member may do now, and the page's reviews and average afresh.
  const { revalidate } = revalidator;
  const changed = useCallback(() => {
    void load(`/api/reviews?product=${encodeURIComponent(handle)}`);
    void revalidate();
  }, [handle, load, revalidate]);

  if (status === "loading") return null;
  const current: ReviewStanding | null = signedIn ? (standing.data?.standing ?? null) : { kind: "signed-out" };
  if (!current) return <p className="mt-6 text-sm text-muted">Checking whether you can review this product...</p>;
  if (current.kind !== "may-review") {
    return (
      <p className="mt-6 rounded-xl border border-line bg-panel p-4 text-sm text-muted" data-testid="review-why-not">
        {current.kind === "too-soon" ? (
          <>
            Reviews come from buyers who have used their key for a day: you can review this product from{" "}
            <LocalTime ms={current.from} format="datetime" />.
          </>
        ) : (
          WHY_NOT[current.kind]
        )}{" "}
        {current.kind === "signed-out" ? (
          <Link to="/auth" className="text-accent underline">
            Log in to review
          </Link>
        ) : null}
      </p>
    );
  }
  return (
    <Suspense fallback={<p className="mt-6 text-sm text-muted">Loading the review form...</p>}>
      <ReviewEditor handle={handle} standing={current} onChanged={changed} />
    </Suspense>
  );
}
