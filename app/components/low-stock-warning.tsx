// The warning staff who manage stock see on the dashboard and on Manage Codes: variants at or
// below their low-stock threshold, and variants that paid orders are waiting for.
import { Link } from "~/components/link";
import { AlertTriangle } from "./icons";

export interface LowStockRow {
  variantId: string;
  title: string;
  available: number;
  threshold: number | null;
  waiting: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function LowStockWarning({ rows, linkToCodes = false }: { rows: LowStockRow[]; linkToCodes?: boolean }) {
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="low-stock-title" className="rounded-xl border border-yellow-500/40 bg-yellow-500/10 p-4 text-sm">
      <h2 id="low-stock-title" className="flex items-center gap-2 font-bold text-yellow-200">
        <AlertTriangle className="size-4 shrink-0" aria-hidden /> Low stock
      </h2>
      <ul className="mt-2 space-y-1">
        {rows.map((row) => (
          <li key={row.variantId}>
            <span className="font-semibold">{row.title}</span>: {plural(row.available, "code", "codes")} available
            {row.threshold !== null ? ` (alert at ${row.threshold})` : ""}
            {row.waiting > 0 ? (
              <span className="text-yellow-200">{` · ${plural(row.waiting, "order unit", "order units")} waiting`}</span>
            ) : null}
          </li>
        ))}
      </ul>
      {linkToCodes ? (
        <Link to="/dashboard/manage-codes" className="mt-3 inline-block font-semibold text-accent hover:underline">
          Add codes in Manage Codes
        </Link>
      ) : null}
    </section>
  );
}
