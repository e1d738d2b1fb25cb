// "Delete Codes in Bulk": a variant's unsold codes, or the listed ones among them, previewed (how
// many, the first few) before anything goes, and the recent bulk deletions with their Undo for an
// hour (decision 104). Posts to the page's stock route.
import { useFetcher } from "react-router";
import { BulkChangeList, BulkPreviewDialog } from "~/components/bulk-change";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { SelectField, TextAreaField } from "~/components/ui/field";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import type { Answer } from "~/lib/answer";
import type { BulkChangeView } from "~/lib/bulk-changes";
import { counted } from "~/lib/format";
import { bulkDeletePreviewSchema } from "~/lib/schemas/stock";
import type { VariantOption } from "./code-filters";

const STOCK = "/dashboard/manage-codes/stock";

const describe = (change: BulkChangeView) => `${counted(change.count, "code")} deleted`;

export function BulkDeleteCard({ variants, changes }: { variants: VariantOption[]; changes: BulkChangeView[] }) {
  const previewer = useFetcher<Answer>();
  useResultToast(previewer);
  const { errors, onSubmit } = useFormCheck(bulkDeletePreviewSchema, {
    title: "Failed to delete code",
    answer: previewer.data?.intent === "bulk-preview" ? previewer.data : null,
  });
  const busy = previewer.state !== "idle";
  return (
    <Card className="space-y-4">
      <h2 className="text-lg font-bold">Delete Codes in Bulk</h2>
      <p className="text-sm text-muted">
        Unsold codes of a variant leave the stock: all of them, or only those listed. You see how many and which before anything goes, and
        for an hour Undo puts them back unsold. Sold codes are never deleted.
      </p>
      <previewer.Form method="post" action={STOCK} className="space-y-4" onSubmit={onSubmit} noValidate>
        <input type="hidden" name="intent" value="bulk-preview" />
        <SelectField
          label="Variant to delete from"
          name="variantId"
          placeholder="Choose a variant..."
          options={variants.map((v) => ({ value: v.id, label: v.title }))}
          error={errors.variantId}
        />
        <TextAreaField
          label="Only these codes (one per line; leave empty for every unsold code)"
          name="codes"
          rows={4}
          monospace
          error={errors.codes}
        />
        <Button type="submit" variant="outline" disabled={busy}>
          {busy ? "Looking..." : "Preview deletion"}
        </Button>
      </previewer.Form>
      <BulkPreviewDialog
        previewer={previewer}
        previewIntent="bulk-preview"
        confirmIntent="bulk-delete"
        action={STOCK}
        title="Delete these codes?"
        confirmLabel="Delete codes"
        busyLabel="Deleting..."
      />
      <BulkChangeList changes={changes} describe={describe} undoIntent="bulk-undo" action={STOCK} />
    </Card>
  );
}
