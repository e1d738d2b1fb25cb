// The reviews page's staff forms: hiding a review with a reason, and showing a hidden one again.
// Each posts an intent the server checks against the staff-action table before it reads the rest.
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import { moderateReviewSchema } from "~/lib/schemas/reviews";

export function HideReviewForm({ review }: { review: number }) {
  const fetcher = useFetcher();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(fetcher, moderateReviewSchema, { title: "Please check the form" });
  return (
    <fetcher.Form ref={formRef} method="post" className="flex flex-col gap-2 sm:flex-row sm:items-end" onSubmit={onSubmit} noValidate>
      <input type="hidden" name="intent" value="hide" />
      <input type="hidden" name="review" value={review} />
      <Field label="Reason" name="reason" autoComplete="off" className="sm:flex-1" error={errors.reason} />
      <Button type="submit" size="sm" variant="danger" disabled={busy}>
        {busy ? "Hiding..." : "Hide"}
      </Button>
    </fetcher.Form>
  );
}

export function UnhideReviewButton({ review }: { review: number }) {
  const fetcher = useFetcher();
  useResultToast(fetcher);
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="unhide" />
      <input type="hidden" name="review" value={review} />
      <Button type="submit" size="sm" variant="outline" disabled={fetcher.state !== "idle"}>
        {fetcher.state !== "idle" ? "Showing..." : "Show again"}
      </Button>
    </fetcher.Form>
  );
}
