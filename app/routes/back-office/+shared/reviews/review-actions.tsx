// A review's staff form on the reviews page: hide it with a reason, or show it again once hidden.
// One component for both, so its answer's toast survives the page showing the other form. The
// intent is checked against the staff-action table before the rest of the form is read.
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { moderateReviewSchema } from "~/lib/schemas/reviews";

export function ReviewModeration({ review, hidden }: { review: number; hidden: boolean }) {
  const fetcher = useFetcher();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(fetcher, moderateReviewSchema, { title: "Please check the form" });
  if (hidden) {
    return (
      <fetcher.Form method="post">
        <input type="hidden" name="intent" value="unhide" />
        <input type="hidden" name="review" value={review} />
        <Button type="submit" size="sm" variant="outline" disabled={busy}>
          {busy ? "Showing..." : "Show again"}
        </Button>
      </fetcher.Form>
    );
  }
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
