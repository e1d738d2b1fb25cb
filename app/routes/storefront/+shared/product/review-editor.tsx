// The review form of a member who may review: their own review to edit or delete, and staff's
// hiding of it with the reason. Fetched only for such a member, so the form, its fields and its
// schema stay out of the product page's first load; the server checks every rule again.
import { useEffect, useId } from "react";
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { FieldNotes, TextAreaField } from "~/components/ui/field";
import { LocalTime } from "~/components/local-time";
import { useFetcherForm } from "~/components/use-fetcher-form";
import type { Answer } from "~/lib/answer";
import { REVIEW_MAX_LENGTH, type ReviewHidden, type ReviewStanding } from "~/lib/reviews";
import { saveReviewSchema } from "~/lib/schemas/reviews";
import { counted } from "~/lib/format";

function StarsInput({ defaultValue, error }: { defaultValue: number | undefined; error?: string }) {
  const id = useId();
  return (
    <fieldset aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="text-sm font-medium text-zinc-200">Your rating</legend>
      <div className="mt-1.5 flex flex-wrap gap-2">
        {[1, 2, 3, 4, 5].map((n) => (
          <label
            key={n}
            className="flex cursor-pointer items-center gap-1.5 rounded-md border border-line bg-panel-2 px-3 py-2 text-sm has-checked:border-accent has-checked:bg-accent/10"
          >
            <input
              type="radio"
              name="rating"
              value={n}
              defaultChecked={defaultValue === n}
              className="accent-accent"
              aria-invalid={error ? true : undefined}
            />
            {counted(n, "star")}
          </label>
        ))}
      </div>
      <FieldNotes id={id} error={error} />
    </fieldset>
  );
}

/** Staff hid the member's review: they see it here, with the reason, and that it holds whatever they post. */
function HiddenNotice({ hidden, posted }: { hidden: ReviewHidden; posted: boolean }) {
  return (
    <div className="mt-3 rounded-lg border border-yellow-500/40 bg-yellow-500/10 p-3 text-sm text-yellow-100" data-testid="review-hidden">
      <p className="font-semibold">
        {posted ? "Your review is hidden" : "Your review was hidden"} by our staff (<LocalTime ms={hidden.at} />)
      </p>
      <p className="mt-1 wrap-anywhere">Reason: {hidden.reason}</p>
      <p className="mt-1 text-yellow-100/80">
        It is not shown on this page or counted in its rating, and a review you edit or post again stays hidden until our staff show it
        again. Contact support if you think this is a mistake.
      </p>
    </div>
  );
}

export function ReviewEditor({
  handle,
  standing,
  onChanged,
}: {
  handle: string;
  standing: Extract<ReviewStanding, { kind: "may-review" }>;
  onChanged: () => void;
}) {
  const send = useFetcher<Answer>();
  const { formRef, onSubmit, errors, busy } = useFetcherForm(send, saveReviewSchema, { title: "Please check your review" });
  // After a change: what the member may do now, and the page's reviews and average afresh.
  const answered = send.state === "idle" && send.data?.ok === true ? send.data : null;
  useEffect(() => {
    if (answered) onChanged();
  }, [answered, onChanged]);
  const { own, hidden } = standing;
  return (
    <Card className="mt-6">
      <h3 className="font-bold">{own ? "Your review" : "Review this product"}</h3>
      {hidden ? <HiddenNotice hidden={hidden} posted={own !== null} /> : null}
      <send.Form
        ref={formRef}
        method="post"
        action="/api/reviews"
        className="mt-4 space-y-4"
        onSubmit={onSubmit}
        noValidate
        key={own ? `${own.rating}:${own.body}` : "new"}
      >
        <input type="hidden" name="intent" value="save" />
        <input type="hidden" name="product" value={handle} />
        <StarsInput defaultValue={own?.rating} error={errors.rating} />
        <TextAreaField
          label="Your review"
          name="body"
          rows={4}
          maxLength={REVIEW_MAX_LENGTH}
          defaultValue={own?.body}
          hint="What did it do for you? Other buyers read this before they buy."
          error={errors.body}
        />
        <Button type="submit" disabled={busy}>
          {busy ? "Saving..." : own ? "Save changes" : "Post review"}
        </Button>
      </send.Form>
      {own ? (
        <send.Form method="post" action="/api/reviews" className="mt-3">
          <input type="hidden" name="intent" value="delete" />
          <input type="hidden" name="product" value={handle} />
          <Button type="submit" variant="ghost" disabled={busy}>
            Delete my review
          </Button>
        </send.Form>
      ) : null}
    </Card>
  );
}
