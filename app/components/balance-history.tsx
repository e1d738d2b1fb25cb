// A reseller's balance history: top-ups, the shop's credits, affiliate commission (and its holds while
// a referred payment is disputed) and purchases (of keys, or renewals), newest first. The reseller
// sees it on their panel, staff on the member's page in the back office.
import { Link } from "~/components/link";
import { formatUsd } from "~/lib/format";
import { LocalTime } from "./local-time";

const LEDGER_LABEL = {
  "top-up": "Crypto top-up",
  credit: "Credited by the shop",
  purchase: "Keys bought",
  commission: "Affiliate commission",
  "dispute-hold": "Held: a referred payment is disputed",
  "dispute-release": "Released: the dispute was won",
} as const;

export interface LedgerEntry {
  id: number;
  kind: keyof typeof LEDGER_LABEL;
  amountCents: number;
  reference: string | null;
  createdAt: number;
}

/** `topUpHref` says where a top-up's order number leads (the buyer's tracker, the staff's order page). */
export function BalanceHistory({ entries, topUpHref }: { entries: LedgerEntry[]; topUpHref: (orderNumber: string) => string }) {
  if (entries.length === 0) return null;
  return (
    <div className="mt-5">
      <h3 className="text-sm font-semibold">Balance history</h3>
      <ul className="mt-2 divide-y divide-line text-sm">
        {entries.map((entry) => (
          <li key={entry.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
            {/* A purchase that paid for a renewal names it so (its reference is "renewal:…", decision 090). */}
            <span>
              {entry.kind === "purchase" && entry.reference?.startsWith("renewal:") ? "Licence renewed" : LEDGER_LABEL[entry.kind]}
            </span>
            {entry.kind === "top-up" && entry.reference ? (
              <Link to={topUpHref(entry.reference)} className="font-mono text-xs text-accent hover:underline">
                {entry.reference}
              </Link>
            ) : null}
            <span className={`ml-auto font-mono ${entry.amountCents < 0 ? "text-red-300" : "text-green-300"}`}>
              {entry.amountCents < 0 ? "−" : "+"}
              {formatUsd(Math.abs(entry.amountCents))}
            </span>
            <LocalTime ms={entry.createdAt} format="datetime" className="w-full text-xs text-muted sm:w-auto" />
          </li>
        ))}
      </ul>
    </div>
  );
}
