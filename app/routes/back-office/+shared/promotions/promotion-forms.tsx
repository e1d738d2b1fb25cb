// The promotions page's forms: the recent-purchasers threshold, and one product's sale (set,
// replaced or ended). The sale's end is a UTC date and time, which the server checks is ahead.
import { useFetcher } from "react-router";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useResultToast } from "~/components/use-result-toast";
import type { ProductSale } from "~/lib/reviews";
import { promotionsSchema } from "~/lib/schemas/reviews";

const title = "Please check the form";

export function ThresholdForm({ threshold }: { threshold: number }) {
  const fetcher = useFetcher();
  const { onSubmit, errors, busy } = useFetcherForm(fetcher, promotionsSchema, { title });
  return (
    <Card>
      <h2 className="font-bold">Recent purchasers</h2>
      <p className="mt-1 text-sm text-muted">
        A product page says how often the product was bought in the last 24 hours only from this many paid orders; below it, it says
        nothing.
      </p>
      <fetcher.Form method="post" className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-end" onSubmit={onSubmit} noValidate>
        <input type="hidden" name="intent" value="threshold" />
        <Field
          label="Orders in 24 hours"
          name="threshold"
          inputMode="numeric"
          defaultValue={String(threshold)}
          className="sm:w-48"
          error={errors.threshold}
        />
        <Button type="submit" disabled={busy}>
          {busy ? "Saving..." : "Save threshold"}
        </Button>
      </fetcher.Form>
    </Card>
  );
}

/** The sale's end as the datetime-local field shows it (UTC, to the minute). */
const utcField = (ms: number) => new Date(ms).toISOString().slice(0, 16);

function EndSaleButton({ product }: { product: string }) {
  const fetcher = useFetcher();
  useResultToast(fetcher);
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="end-sale" />
      <input type="hidden" name="product" value={product} />
      <Button type="submit" size="sm" variant="outline" disabled={fetcher.state !== "idle"}>
        End sale now
      </Button>
    </fetcher.Form>
  );
}

export function SaleForm({
  title: productTitle,
  handle,
  sale,
}: {
  title: string;
  handle: string;
  sale: (ProductSale & { productId: string }) | null;
}) {
  const fetcher = useFetcher();
  const { onSubmit, errors, busy } = useFetcherForm(fetcher, promotionsSchema, { title });
  return (
    <li className="rounded-lg border border-line bg-panel-2 p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-semibold">{productTitle}</p>
        {sale ? (
          <p className="flex items-center gap-2 text-sm text-muted">
            <Badge tone="orange">{sale.label}</Badge> ends <LocalTime ms={sale.endsAt} format="datetime" />
          </p>
        ) : (
          <Badge tone="gray">No sale</Badge>
        )}
      </div>
      <fetcher.Form
        method="post"
        className="mt-3 grid gap-2 sm:grid-cols-[minmax(0,1fr)_14rem_auto] sm:items-end"
        onSubmit={onSubmit}
        noValidate
      >
        <input type="hidden" name="intent" value="sale" />
        <input type="hidden" name="product" value={handle} />
        <Field label="Label" name="label" placeholder="Launch week" defaultValue={sale?.label ?? ""} error={errors.label} />
        <Field
          label="Ends (UTC)"
          name="endsAt"
          type="datetime-local"
          defaultValue={sale ? utcField(sale.endsAt) : ""}
          error={errors.endsAt}
        />
        <Button type="submit" size="sm" disabled={busy}>
          {busy ? "Saving..." : sale ? "Save sale" : "Start sale"}
        </Button>
      </fetcher.Form>
      {sale ? (
        <div className="mt-2">
          <EndSaleButton product={handle} />
        </div>
      ) : null}
    </li>
  );
}
