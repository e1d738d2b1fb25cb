// The read-only parts of an order's back-office page: labelled details, the crypto evidence (quote,
// what the chain shows, what the buyer typed) and the timeline of everything that happened to it.
import type { ReactNode } from "react";
import { formatCoin } from "~/lib/crypto-orders";
import type { CryptoEvidence as Evidence, TimelineEntry } from "~/lib/orders";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";

const TIMELINE_TONE: Record<TimelineEntry["kind"], "green" | "blue" | "yellow" | "red" | "gray" | "orange"> = {
  order: "green",
  webhook: "blue",
  mail: "gray",
  refund: "red",
  crypto: "yellow",
  backorder: "yellow",
  audit: "orange",
};

/** A card with a heading, and a line of its own when it has nothing to list. */
export function Section({ title, empty, children }: { title: string; empty: string | null; children: ReactNode }) {
  return (
    <Card>
      <h2 className="font-bold">{title}</h2>
      {empty ? <p className="mt-2 text-sm text-muted">{empty}</p> : children}
    </Card>
  );
}

export function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-muted">{label}</dt>
      <dd className="break-words">{children}</dd>
    </div>
  );
}

/** What a crypto order's payment looked like: the quote, the chain's evidence, the buyer's txid. */
export function CryptoEvidence({ crypto }: { crypto: Evidence }) {
  return (
    <dl className="mt-4 grid gap-3 text-sm sm:grid-cols-2">
      <Detail label="Coin">{crypto.coin}</Detail>
      <Detail label="Quoted">{crypto.amountUnits === null ? "—" : `${formatCoin(crypto.amountUnits)} ${crypto.coin}`}</Detail>
      <Detail label="Received">{`${formatCoin(crypto.receivedUnits)} ${crypto.coin}`}</Detail>
      <Detail label="Confirmations">{crypto.confirmations}</Detail>
      <Detail label="Address">
        <span className="font-mono break-all">{crypto.walletAddress}</span>
      </Detail>
      {crypto.review ? <Detail label="Review">{crypto.review}</Detail> : null}
      {crypto.payments.map((p) => (
        <Detail key={p.txid} label="Transaction">
          <span className="font-mono break-all">{p.txid}</span> ({formatCoin(p.units)} {crypto.coin},{" "}
          {p.height === null ? "unconfirmed" : `block ${p.height}`})
        </Detail>
      ))}
      {crypto.transactionId ? (
        <Detail label="Transaction (typed by the buyer)">
          <span className="font-mono break-all">{crypto.transactionId}</span>
        </Detail>
      ) : null}
    </dl>
  );
}

export function Timeline({ entries }: { entries: TimelineEntry[] }) {
  return (
    <ol aria-label="Timeline" className="mt-3 space-y-3">
      {entries.map((e, i) => (
        <li key={i} className="flex flex-col gap-1 border-l-2 border-line pl-3 text-sm sm:flex-row sm:gap-4">
          <LocalTime ms={e.at} format="datetime" className="shrink-0 text-muted sm:w-48" />
          <div className="min-w-0 space-y-0.5">
            <p className="flex flex-wrap items-center gap-2">
              <Badge tone={TIMELINE_TONE[e.kind]}>{e.kind}</Badge>
              <span className="break-words">{e.title}</span>
              {e.actor ? <span className="text-muted">by {e.actor}</span> : null}
            </p>
            {e.detail ? <p className="text-muted break-words">{e.detail}</p> : null}
          </div>
        </li>
      ))}
    </ol>
  );
}
