// "Revoke many keys": staff paste keys (a leaked batch, a reseller's abused keys) with a reason, see
// how many working licences that stops and whose, confirm, and for an hour can undo it
// (decision 104). Posts to the Licences page.
import { useFetcher } from "react-router";
import { BulkChangeList, BulkPreviewDialog } from "~/components/bulk-change";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, TextAreaField } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import type { Answer } from "~/lib/answer";
import type { BulkChangeView } from "~/lib/bulk-changes";
import { counted } from "~/lib/format";
import { licenceInputTitle, revokePreviewSchema } from "~/lib/schemas/licences";

const describe = (change: BulkChangeView) => `${counted(change.count, "licence")} revoked: ${String(change.scope.reason ?? "")}`;

export function RevokeManyCard({ changes }: { changes: BulkChangeView[] }) {
  const previewer = useFetcher<Answer>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(previewer, revokePreviewSchema, {
    title: licenceInputTitle,
    answer: previewer.data?.intent === "revoke-preview" ? previewer.data : null,
  });
  return (
    <Card className="space-y-4">
      <h2 className="font-bold">Revoke many keys</h2>
      <p className="text-sm text-muted">
        Paste keys, one per line: their working licences stop (the program is told REVOKED) with their subscriptions. You see how many and
        whose first; for an hour Undo makes them work again, except those changed since.
      </p>
      <previewer.Form ref={formRef} method="post" noValidate className="space-y-3" onSubmit={onSubmit}>
        <input type="hidden" name="intent" value="revoke-preview" />
        <TextAreaField label="Keys to revoke (one per line)" name="keys" rows={4} monospace error={errors.keys} />
        <Field label="Reason" name="reason" maxLength={200} autoComplete="off" hint="For the audit log" error={errors.reason} />
        <Button type="submit" variant="outline" disabled={busy}>
          {busy ? "Looking..." : "Preview revocation"}
        </Button>
      </previewer.Form>
      <BulkPreviewDialog
        previewer={previewer}
        previewIntent="revoke-preview"
        confirmIntent="revoke-many"
        title="Revoke these keys?"
        confirmLabel="Revoke keys"
        busyLabel="Revoking..."
      />
      <BulkChangeList changes={changes} describe={describe} undoIntent="revoke-undo" />
    </Card>
  );
}
