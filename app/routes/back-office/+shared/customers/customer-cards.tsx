// The parts of a customer's page that an account and a buyer without one share: their orders
// (every source, newest first) and the licences held under their e-mail, keys masked, each with its
// history: bought, extended, upgraded, each with its order.
import { Link } from "~/components/link";
import { formatCents } from "~/lib/format";
import { PLAN_NAME } from "~/lib/plans";
import type { LicenceHistoryEntry } from "~/lib/renewals";
import { type OrderSource, orderPath } from "~/lib/orders";
import type { LicenceView } from "~/lib/licences";
import { BoundPc, LicenceStateBadge } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { type Column, ResponsiveTable } from "~/components/ui/responsive-table";

export interface CustomerOrder {
  key: string;
  source: OrderSource;
  reference: string;
  number: string;
  state: string;
  totalCents: number;
  currency: string;
  method: string;
  createdAt: number;
}

const ORDER_FIELDS: Column<CustomerOrder>[] = [
  {
    label: "Order",
    value: (o) => (
      <Link to={orderPath(o)} className="font-mono text-accent hover:underline">
        {o.number}
      </Link>
    ),
  },
  {
    label: "State",
    value: (o) => (
      <Badge
        tone={o.state === "paid" || o.state === "complete" ? "green" : o.state === "cancelled" || o.state === "refunded" ? "red" : "gray"}
      >
        {o.state}
      </Badge>
    ),
  },
  { label: "Total", value: (o) => `${formatCents(o.totalCents, o.currency)} · ${o.method}` },
  { label: "Placed", value: (o) => <LocalTime ms={o.createdAt} format="datetime" className="text-muted" /> },
];

export function CustomerOrdersCard({ orders, moreOrders, email }: { orders: CustomerOrder[]; moreOrders: boolean; email: string }) {
  return (
    <Card>
      <h2 className="font-bold">Orders</h2>
      {orders.length === 0 ? (
        <p className="mt-3 text-sm text-muted">No orders with this e-mail.</p>
      ) : (
        <ResponsiveTable rows={orders} columns={ORDER_FIELDS} rowKey={(o) => o.key} label="Orders" />
      )}
      {moreOrders ? (
        <Link to={`/dashboard/orders?q=${encodeURIComponent(email)}`} className="mt-3 inline-block text-sm text-accent hover:underline">
          Every order with this e-mail
        </Link>
      ) : null}
    </Card>
  );
}

type HeldLicence = LicenceView & { history: LicenceHistoryEntry[] };

const HISTORY_WORD = { bought: "Bought", renewal: "Extended", upgrade: "Upgraded" } as const;

/** A licence's history: bought, then each renewal and upgrade, with its order and (once refunded) struck through. */
function LicenceHistory({ history }: { history: LicenceHistoryEntry[] }) {
  return (
    <ol className="space-y-1 text-xs" aria-label="History">
      {history.map((entry, i) => (
        <li key={`${entry.kind}-${entry.at}-${i}`} className={entry.refundedAt === null ? "" : "text-muted line-through"}>
          <span className="font-semibold">{HISTORY_WORD[entry.kind]}</span>
          {entry.kind === "upgrade" ? ` to ${PLAN_NAME[entry.plan]}` : entry.kind === "bought" ? ` (${PLAN_NAME[entry.plan]})` : null}{" "}
          <LocalTime ms={entry.at} className="text-muted" />
          {entry.expiresAt !== null && entry.kind !== "bought" ? (
            <>
              {" "}
              · until <LocalTime ms={entry.expiresAt} />
            </>
          ) : null}
          {entry.priceCents !== null && entry.currency ? ` · ${formatCents(entry.priceCents, entry.currency)}` : null}
          {entry.auto ? " · auto-renewed" : null}
          {entry.order ? (
            <>
              {" · "}
              <Link
                to={orderPath({ source: entry.order.source as OrderSource, reference: entry.order.reference })}
                className="font-mono text-accent hover:underline"
              >
                {entry.order.name}
              </Link>
            </>
          ) : null}
          {entry.refundedAt !== null ? " · refunded" : null}
        </li>
      ))}
    </ol>
  );
}

const LICENCE_FIELDS: Column<HeldLicence>[] = [
  { label: "Key", value: (l) => <span className="font-mono">{l.key}</span> },
  { label: "Product", value: (l) => `${l.product} · ${l.plan}` },
  { label: "Status", value: (l) => <LicenceStateBadge licence={l} /> },
  { label: "PC", value: (l) => <BoundPc licence={l} unbound={<span className="text-muted">Not bound</span>} /> },
  {
    label: "Last check",
    value: (l) =>
      l.lastCheckAt === null ? (
        <span className="text-muted">Never</span>
      ) : (
        <LocalTime ms={l.lastCheckAt} format="datetime" className="text-muted" />
      ),
  },
  { label: "History", value: (l) => <LicenceHistory history={l.history} />, wrap: true },
];

export function CustomerLicencesCard({ licences }: { licences: HeldLicence[] }) {
  return (
    <Card>
      <h2 className="font-bold">Keys</h2>
      <p className="mt-1 text-sm text-muted">
        Keys are masked here: to reset a PC, look up the key the customer reads out on the Licences page.
      </p>
      {licences.length === 0 ? (
        <p className="mt-3 text-sm text-muted">No keys under this e-mail.</p>
      ) : (
        <ResponsiveTable rows={licences} columns={LICENCE_FIELDS} rowKey={(l) => String(l.id)} label="Keys" />
      )}
    </Card>
  );
}
