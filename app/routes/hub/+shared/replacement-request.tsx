// "Banned in game?": within 48 hours of a key's activation its owner may ask once for a
// replacement, saying what happened; after that the card shows where the request stands.
import { useFetcher } from "react-router";
import { Button } from "~/components/ui/button";
import { describedBy, FieldNotes } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { REPLACEMENT_WINDOW_HOURS, replacementRequestSchema } from "~/lib/schemas/replacements";

const STATE_WORDS: Record<string, string> = {
  pending: "You asked for a replacement of this key; staff will e-mail you their answer.",
  approved: "Your replacement was approved: the new key is in your e-mail and on this page.",
  declined: "Your replacement request was declined.",
};

export function ReplacementRequest({
  licenceId,
  request,
  open,
}: {
  licenceId: number;
  request: { state: string; reason: string | null } | null;
  open: boolean;
}) {
  const fetcher = useFetcher();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, replacementRequestSchema, { title: "Replacement not requested" });
  const id = `replacement-${licenceId}`;
  if (request) {
    return (
      <p role="status" className="mt-4 border-t border-line pt-4 text-sm text-muted">
        {STATE_WORDS[request.state]}
        {request.state === "declined" && request.reason ? ` Reason: ${request.reason}` : ""}
      </p>
    );
  }
  if (!open) return null;
  return (
    <details className="mt-4 border-t border-line pt-4">
      <summary className="cursor-pointer text-sm font-semibold">Banned in game? Ask for a replacement key</summary>
      <fetcher.Form ref={formRef} method="post" onSubmit={onSubmit} className="mt-3 space-y-3">
        <input type="hidden" name="intent" value="request-replacement" />
        <input type="hidden" name="licenceId" value={licenceId} />
        <div className="space-y-1.5">
          <label htmlFor={id} className="block text-sm font-medium text-zinc-200">
            What happened?
          </label>
          <textarea
            id={id}
            name="description"
            rows={3}
            maxLength={1000}
            required
            className="w-full rounded-md border border-line bg-panel-2 p-3 text-sm"
            {...describedBy(id, { hint: "hint", error: errors.description })}
          />
          <FieldNotes
            id={id}
            hint={`Once per key, within ${REPLACEMENT_WINDOW_HOURS} hours of its activation.`}
            error={errors.description}
          />
        </div>
        <Button type="submit" disabled={busy}>
          {busy ? "Sending..." : "Ask for a replacement"}
        </Button>
      </fetcher.Form>
    </details>
  );
}
