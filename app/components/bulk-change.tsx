// Staff's bulk changes that destroy (decision 104): the dialog a preview opens, saying how many
// rows the change touches and which (the first few), whose confirm sends the preview's token back;
// and the list of recent changes, each with its Undo while the hour lasts.
import { useEffect, useState } from "react";
import { useFetcher } from "react-router";
import type { Answer } from "~/lib/answer";
import type { BulkChangeView, BulkPreview } from "~/lib/bulk-changes";
import { counted } from "~/lib/format";
import { LocalTime } from "./local-time";
import { Button } from "./ui/button";
import { Dialog } from "./ui/dialog";
import { useResultToast } from "./use-result-toast";

/**
 * Opens on each new preview the `previewer` fetcher answers (for `previewIntent`), and confirms it
 * with `confirmIntent`, the preview's token and `fields`.
 */
export function BulkPreviewDialog({
  previewer,
  previewIntent,
  confirmIntent,
  fields = {},
  action,
  title,
  confirmLabel,
  busyLabel,
}: {
  previewer: { state: string; data?: Answer };
  previewIntent: string;
  confirmIntent: string;
  fields?: Record<string, string>;
  action?: string;
  title: string;
  confirmLabel: string;
  busyLabel: string;
}) {
  const [preview, setPreview] = useState<BulkPreview | null>(null);
  const confirmer = useFetcher<Answer>();
  useResultToast(confirmer, () => setPreview(null));
  const answer = previewer.state === "idle" && previewer.data?.ok && previewer.data.intent === previewIntent ? previewer.data : null;
  useEffect(() => {
    if (answer) setPreview(answer.value as BulkPreview);
  }, [answer]);
  const busy = confirmer.state !== "idle";
  const more = preview ? preview.count - preview.sample.length : 0;
  return (
    <Dialog open={preview !== null} onClose={() => setPreview(null)} title={title} description={preview?.summary}>
      {preview ? (
        <div className="space-y-4">
          <p className="font-semibold">{counted(preview.count, "row")} will change</p>
          <ul aria-label="What it will touch" className="max-h-48 space-y-1 overflow-y-auto font-mono text-xs wrap-anywhere text-zinc-300">
            {preview.sample.map((row) => (
              <li key={row}>{row}</li>
            ))}
            {more > 0 ? <li className="font-sans text-muted">and {more} more</li> : null}
          </ul>
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="ghost" onClick={() => setPreview(null)} data-autofocus>
              Cancel
            </Button>
            <Button
              variant="danger"
              disabled={busy}
              onClick={() => confirmer.submit({ ...fields, intent: confirmIntent, token: preview.token }, { method: "post", action })}
            >
              {busy ? busyLabel : confirmLabel}
            </Button>
          </div>
        </div>
      ) : (
        <span />
      )}
    </Dialog>
  );
}

/** One change that ran: what it did, and its Undo while the hour lasts. */
function BulkChangeRow({
  change,
  describe,
  undoIntent,
  action,
}: {
  change: BulkChangeView;
  describe: (change: BulkChangeView) => string;
  undoIntent: string;
  action?: string;
}) {
  const fetcher = useFetcher<Answer>();
  useResultToast(fetcher);
  const restored = Number(change.outcome.restored ?? 0);
  const skipped = Number(change.outcome.skipped ?? 0);
  return (
    <li className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2 text-sm">
      <span className="font-medium">{describe(change)}</span>
      <span className="text-muted">
        <LocalTime ms={change.appliedAt} format="datetime" />
      </span>
      <span className="ml-auto flex items-center gap-2">
        {change.undoneAt !== null ? (
          <span className="text-muted">
            Undone: {restored} back{skipped > 0 ? `, ${skipped} skipped (changed since)` : ""}
          </span>
        ) : change.undoUntil !== null ? (
          <fetcher.Form method="post" action={action} className="flex items-center gap-2">
            <input type="hidden" name="intent" value={undoIntent} />
            <input type="hidden" name="token" value={change.id} />
            <span className="text-xs text-muted">
              until <LocalTime ms={change.undoUntil} format="time" />
            </span>
            <Button type="submit" variant="outline" size="sm" disabled={fetcher.state !== "idle"} aria-label={`Undo: ${describe(change)}`}>
              {fetcher.state !== "idle" ? "Undoing..." : "Undo"}
            </Button>
          </fetcher.Form>
        ) : (
          <span className="text-xs text-muted">Too late to undo</span>
        )}
      </span>
    </li>
  );
}

/** The latest bulk changes of a card, newest first; nothing when there are none. */
export function BulkChangeList(props: {
  changes: BulkChangeView[];
  describe: (change: BulkChangeView) => string;
  undoIntent: string;
  action?: string;
}) {
  if (props.changes.length === 0) return null;
  return (
    <div>
      <h3 className="text-sm font-semibold">Recent bulk changes</h3>
      <ul className="mt-2 divide-y divide-line">
        {props.changes.map((change) => (
          <BulkChangeRow key={change.id} change={change} {...props} />
        ))}
      </ul>
    </div>
  );
}
