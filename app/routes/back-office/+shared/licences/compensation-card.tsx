// "Add time after downtime": adds days to every running licence of a product (or one plan) after a
// detection or an outage, previewed first and undoable for an hour (decision 104); and the latest
// compensations (decision 047).
import { useState } from "react";
import { useFetcher } from "react-router";
import { LocalTime } from "~/components/local-time";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { BulkChangeList, BulkPreviewDialog } from "~/components/bulk-change";
import { Field, SelectField } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import type { Answer } from "~/lib/answer";
import type { Compensation } from "~/lib/licences";
import type { BulkChangeView } from "~/lib/bulk-changes";
import { counted } from "~/lib/format";
import { compensationPreviewSchema, licenceInputTitle, MAX_COMPENSATION_DAYS } from "~/lib/schemas/licences";

const PLAN_CHOICES = [
  { value: "", label: "Every timed plan" },
  { value: "daily", label: "Daily" },
  { value: "weekly", label: "Weekly" },
  { value: "monthly", label: "Monthly" },
];

/** Adds days to every running licence of a product (or plan) after a detection or an outage. */
export function CompensationCard({
  products,
  compensations,
  changes,
}: {
  products: string[];
  compensations: Compensation[];
  changes: BulkChangeView[];
}) {
  const previewer = useFetcher<Answer>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(previewer, compensationPreviewSchema, {
    title: licenceInputTitle,
    answer: previewer.data?.intent === "compensate-preview" ? previewer.data : null,
  });
  // What was previewed is what the confirmation asks for, whatever the form holds by then.
  const [asked, setAsked] = useState<Record<string, string>>({});
  return (
    <Card className="space-y-4">
      <h2 className="font-bold">Add time after downtime</h2>
      <p className="text-sm text-muted">
        After a detection or an outage, add days to every running licence of a product (or one plan). Each reason counts once per product;
        owners get an e-mail. Keys not yet activated have lost nothing and keep their full term. You see how many licences first, and for an
        hour Undo takes the time back.
      </p>
      <previewer.Form
        ref={formRef}
        method="post"
        noValidate
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 lg:items-end"
        onSubmit={(event) => {
          onSubmit(event);
          if (event.defaultPrevented) return;
          const form = new FormData(event.currentTarget);
          setAsked({
            product: String(form.get("product") ?? ""),
            plan: String(form.get("plan") ?? ""),
            days: String(form.get("days") ?? ""),
            reason: String(form.get("reason") ?? ""),
          });
        }}
      >
        <SelectField
          label="Product"
          name="product"
          required
          placeholder="Choose a product..."
          options={products.map((p) => ({ value: p, label: p }))}
          error={errors.product}
          className="lg:col-span-2"
        />
        <SelectField label="Plan" name="plan" options={PLAN_CHOICES} error={errors.plan} />
        <Field label={`Days to add (1 to ${MAX_COMPENSATION_DAYS})`} name="days" inputMode="numeric" required error={errors.days} />
        <Field
          label="Reason"
          name="reason"
          required
          maxLength={200}
          autoComplete="off"
          hint="Shown to owners, e.g. Detection on Nov 20"
          error={errors.reason}
          className="sm:col-span-2 lg:col-span-3"
        />
        <input type="hidden" name="intent" value="compensate-preview" />
        <Button type="submit" disabled={busy} className="lg:mb-6">
          {busy ? "Looking..." : "Add time"}
        </Button>
      </previewer.Form>
      <BulkPreviewDialog
        previewer={previewer}
        previewIntent="compensate-preview"
        confirmIntent="compensate"
        fields={asked}
        title="Add time to these licences?"
        confirmLabel="Add time"
        busyLabel="Adding..."
      />
      <BulkChangeList changes={changes} describe={describeTime} undoIntent="compensate-undo" />
      {compensations.length > 0 ? (
        <div>
          <h3 className="text-sm font-semibold">Latest</h3>
          <ul className="mt-2 divide-y divide-line text-sm">
            {compensations.map((c) => (
              <li key={c.id} className="flex flex-wrap gap-x-3 gap-y-1 py-2">
                <span className="font-medium">
                  +{c.days} day(s) · {c.product} {c.plan ? `(${c.plan})` : ""}
                </span>
                <span className="text-muted">{c.reason}</span>
                <span className="text-muted sm:ml-auto">
                  {c.licenceCount ?? 0} licence(s) · <LocalTime ms={c.createdAt} />
                </span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Card>
  );
}

const describeTime = (change: BulkChangeView) =>
  `+${counted(Number(change.scope.days ?? 0), "day")} on ${counted(change.count, "licence")} of ${String(change.scope.product ?? "")}`;
