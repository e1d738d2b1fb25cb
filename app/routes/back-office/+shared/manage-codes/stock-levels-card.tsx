// "Stock levels": every variant's available codes, its low-stock threshold (a small form to set or
// clear it) and the order units waiting for it. The forms post to the page's stock route.
import { useRef } from "react";
import { useFetcher } from "react-router";
import { MAX_STOCK_THRESHOLD, stockThresholdSchema } from "~/lib/schemas/stock";
import type { Answer } from "~/lib/answer";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import type { LowStockRow } from "~/components/low-stock-warning";
import { ScrollList } from "./scroll-list";

const STOCK_ACTION = "/dashboard/manage-codes/stock";

function ThresholdForm({ row }: { row: LowStockRow }) {
  const fetcher = useFetcher<Answer>();
  const clearer = useFetcher<Answer>();
  const formRef = useRef<HTMLFormElement>(null);
  useResultToast(fetcher);
  useResultToast(clearer, () => {
    const input = formRef.current?.elements.namedItem("threshold") as HTMLInputElement | null;
    if (input) input.value = "";
  });
  const { errors, onSubmit } = useFormCheck(stockThresholdSchema, { title: "Invalid threshold", answer: fetcher.data });
  const busy = fetcher.state !== "idle" || clearer.state !== "idle";
  return (
    <div className="flex flex-wrap items-end gap-2">
      <fetcher.Form ref={formRef} method="post" action={STOCK_ACTION} onSubmit={onSubmit} noValidate className="flex items-end gap-2">
        <input type="hidden" name="intent" value="threshold" />
        <input type="hidden" name="variantId" value={row.variantId} />
        <Field
          label="Alert at"
          name="threshold"
          type="number"
          inputMode="numeric"
          min={0}
          max={MAX_STOCK_THRESHOLD}
          step={1}
          defaultValue={row.threshold ?? ""}
          placeholder="Off"
          className="w-28"
          error={errors.threshold ?? errors.variantId}
        />
        <Button type="submit" size="sm" variant="outline" disabled={busy} className="mb-1">
          {fetcher.state !== "idle" ? "Saving..." : "Save"}
        </Button>
      </fetcher.Form>
      {row.threshold !== null ? (
        <clearer.Form method="post" action={STOCK_ACTION}>
          <input type="hidden" name="intent" value="clear-threshold" />
          <input type="hidden" name="variantId" value={row.variantId} />
          <Button
            type="submit"
            size="sm"
            variant="ghost"
            disabled={busy}
            className="mb-1"
            aria-label={`Remove the low-stock alert of ${row.title}`}
          >
            Clear
          </Button>
        </clearer.Form>
      ) : null}
    </div>
  );
}

export function StockLevelsCard({ levels }: { levels: (LowStockRow & { low: boolean })[] }) {
  return (
    <Card>
      <h2 className="text-lg font-bold">Stock levels</h2>
      <p className="mt-1 text-sm text-muted">
        Every admin is e-mailed once when a variant&apos;s available codes drop to its alert level; restocking above it arms the alert
        again.
      </p>
      <ScrollList label="Stock levels">
        {levels.length === 0 ? <li className="text-sm text-muted">No variants yet.</li> : null}
        {levels.map((row) => (
          <li
            key={row.variantId}
            className={`flex flex-col gap-3 rounded-md border px-3 py-2 sm:flex-row sm:items-end sm:justify-between ${row.low ? "border-yellow-500/40 bg-yellow-500/5" : "border-line bg-panel-2"}`}
          >
            <div className="min-w-0 space-y-1">
              <p className="font-semibold break-words">{row.title}</p>
              <p className="flex flex-wrap gap-2">
                <Badge tone={row.low ? "yellow" : "green"}>{`${row.available} available`}</Badge>
                {row.waiting > 0 ? <Badge tone="red">{`${row.waiting} waiting`}</Badge> : null}
              </p>
            </div>
            <ThresholdForm row={row} />
          </li>
        ))}
      </ScrollList>
    </Card>
  );
}
