// "Add time after downtime": adds days to every running licence of a product (or one plan) after a
// detection or an outage, confirmed first; and the latest compensations (decision 047).
import { useEffect, useState } from "react";
import { useFetcher } from "react-router";
import { LocalTime } from "~/components/local-time";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Dialog } from "~/components/ui/dialog";
import { Field, SelectField } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import type { Answer } from "~/lib/answer";
import type { Compensation } from "~/lib/licences";
import { compensationSchema, licenceInputTitle, MAX_COMPENSATION_DAYS } from "~/lib/schemas/licences";

const PLAN_CHOICES = [
  { value: "", label: "Every timed plan" },
  { value: "daily", label: "Daily" },
  { value: "weekly", label: "Weekly" },
  { value: "monthly", label: "Monthly" },
];

/** Adds days to every running licence of a product (or plan) after a detection or an outage. */
export function CompensationCard({ products, compensations }: { products: string[]; compensations: Compensation[] }) {
  const fetcher = useFetcher<Answer>();
  const { formRef, errors, onSubmit, busy } = useFetcherForm(fetcher, compensationSchema, {
    title: licenceInputTitle,
    answer: fetcher.data?.intent === "compensate" ? fetcher.data : null,
  });
  const [confirming, setConfirming] = useState<FormData | null>(null);
  const done = fetcher.state === "idle" && fetcher.data?.ok === true && fetcher.data.intent === "compensate";
  useEffect(() => {
    if (done) setConfirming(null);
  }, [done]);
  const asked = confirming
    ? { product: String(confirming.get("product")), plan: String(confirming.get("plan")), days: String(confirming.get("days")) }
    : null;
  return (
    <Card className="space-y-4">
      <h2 className="font-bold">Add time after downtime</h2>
      <p className="text-sm text-muted">
        After a detection or an outage, add days to every running licence of a product (or one plan). Each reason counts once per product;
        owners get an e-mail. Keys not yet activated have lost nothing and keep their full term.
      </p>
      <form
        ref={formRef}
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 lg:items-end"
        onSubmit={(event) => {
          onSubmit(event);
          if (event.defaultPrevented) return;
          // Checked: the dialog asks before anything is sent.
          event.preventDefault();
          setConfirming(new FormData(event.currentTarget));
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
        <input type="hidden" name="intent" value="compensate" />
        <Button type="submit" disabled={busy} className="lg:mb-6">
          Add time
        </Button>
      </form>
      <Dialog
        open={confirming !== null}
        onClose={() => setConfirming(null)}
        title="Add time to every running licence?"
        description={
          asked
            ? `${asked.days} day(s) go on every running ${asked.plan || "timed"} licence of ${asked.product}, and each owner is e-mailed. It cannot be taken back, and this reason cannot be used for ${asked.product} again.`
            : undefined
        }
      >
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="ghost" onClick={() => setConfirming(null)} data-autofocus>
            Cancel
          </Button>
          <Button disabled={busy} onClick={() => confirming && fetcher.submit(confirming, { method: "post" })}>
            {busy ? "Adding..." : "Add time"}
          </Button>
        </div>
      </Dialog>
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
