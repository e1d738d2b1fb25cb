// "Sold Codes (n)": codes handed out, filtered by variant and by period in the admin's own time
// zone (the browser's offset rides along in the filter form).
import { useEffect, useState } from "react";
import { PERIODS, type Period } from "~/lib/periods";
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { inputClass } from "~/components/ui/input-class";
import { FilterForm, VariantFilter, type VariantOption } from "./code-filters";
import { ScrollList } from "./scroll-list";

/** Codes handed out, the first of them as rows, and how many there are in all. */
export interface SoldCodes {
  rows: {
    id: number;
    code: string;
    variantTitle: string;
    customerEmail: string | null;
    orderId: string | null;
    orderName: string | null;
    usedAt: number | null;
    revokedAt: number | null;
  }[];
  total: number;
}

export function SoldCodesCard({
  codes,
  variants,
  variantId,
  period,
}: {
  codes: SoldCodes;
  variants: VariantOption[];
  variantId: string;
  period: Period;
}) {
  const [tz, setTz] = useState("");
  useEffect(() => setTz(String(new Date().getTimezoneOffset())), []);
  return (
    <Card>
      <h2 className="text-lg font-bold">Sold Codes ({codes.total})</h2>
      <FilterForm keep={["available"]} className="mt-3 flex flex-col gap-2 sm:flex-row">
        <input type="hidden" name="tz" value={tz} />
        <VariantFilter name="sold" value={variantId} variants={variants} label="Filter sold codes by variant" />
        <select name="period" defaultValue={period} aria-label="Time period" className={`${inputClass} sm:w-48`}>
          {Object.entries(PERIODS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </FilterForm>
      <ScrollList label="Sold codes">
        {codes.rows.length === 0 ? <li className="text-sm text-muted">No sold codes in this view.</li> : null}
        {codes.rows.map((row) => (
          <li
            key={row.id}
            className="flex flex-wrap items-center gap-x-4 gap-y-1 rounded-md border border-line bg-panel-2 px-3 py-2 text-sm"
          >
            <span className="font-mono wrap-anywhere">{row.code}</span>
            <span className="text-muted">{row.variantTitle}</span>
            <span className="break-all">{row.customerEmail}</span>
            {row.orderId ? <OrderRef name={row.orderName} id={row.orderId} showId className="text-muted" /> : null}
            {row.usedAt ? <LocalTime ms={row.usedAt} format="datetime" className="text-muted" /> : null}
            <span className="ml-auto">{row.revokedAt ? <Badge tone="red">Revoked</Badge> : <Badge tone="blue">Sold</Badge>}</span>
          </li>
        ))}
      </ScrollList>
    </Card>
  );
}
