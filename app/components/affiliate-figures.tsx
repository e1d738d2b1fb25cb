// An affiliate's figures as the affiliate sees them in the hub and staff see them in the back
// office: clicks, orders, conversion, pending / available / paid-out money, the 30-day chart and
// the referred orders, buyers masked. One component, so both always show the same thing.
import { BarChart } from "./bar-chart";
import { LocalTime } from "./local-time";
import { Badge } from "./ui/badge";
import { Card } from "./ui/card";
import { type Column, ResponsiveTable } from "./ui/responsive-table";
import { HOLD_DAYS } from "~/lib/affiliates";
import { formatCount, formatDate, formatUsd } from "~/lib/format";

export interface AffiliateFiguresData {
  clicks: number;
  orders: number;
  conversion: number;
  pending: number;
  available: number;
  paidOut: number;
  requested: number;
  chart: { date: number; clicks: number; orders: number; cents: number }[];
}

export interface ReferredOrder {
  id: number;
  buyer: string;
  orderCents: number | null;
  amountCents: number;
  availableAt: number;
  createdAt: number;
  state: "pending" | "available" | "voided";
}

export interface LedgerMovement {
  id: number;
  kind: "commission" | "void" | "withdrawal" | "payout";
  amountCents: number;
  availableAt: number;
  createdAt: number;
  paidAt: number | null;
  transaction: string | null;
}

const MOVEMENT_LABEL: Record<LedgerMovement["kind"], string> = {
  commission: "Commission",
  void: "Voided (refund, cancellation or revocation)",
  withdrawal: "Withdrawn to reseller balance",
  payout: "Crypto payout",
};

const movementColumns: Column<LedgerMovement>[] = [
  { label: "Date", value: (m) => <LocalTime ms={m.createdAt} className="text-muted" /> },
  { label: "Movement", value: (m) => MOVEMENT_LABEL[m.kind] },
  {
    label: "Amount",
    value: (m) => <span className={m.amountCents < 0 ? "text-red-400" : "text-green-400"}>{formatUsd(m.amountCents)}</span>,
  },
  {
    label: "Note",
    value: (m) =>
      m.kind === "payout" ? (
        m.paidAt ? (
          <span className="font-mono wrap-anywhere">Sent: {m.transaction}</span>
        ) : (
          "Requested"
        )
      ) : m.kind === "commission" ? (
        <>
          Available from <LocalTime ms={m.availableAt} />
        </>
      ) : (
        "—"
      ),
    wrap: true,
  },
];

const STATE_BADGE = {
  pending: <Badge tone="yellow">Held</Badge>,
  available: <Badge tone="green">Available</Badge>,
  voided: <Badge tone="red">Voided</Badge>,
};

const orderColumns: Column<ReferredOrder>[] = [
  { label: "Date", value: (o) => <LocalTime ms={o.createdAt} className="text-muted" /> },
  { label: "Buyer", value: (o) => <span className="font-mono">{o.buyer}</span> },
  { label: "Paid", value: (o) => (o.orderCents === null ? "—" : formatUsd(o.orderCents)) },
  { label: "Commission", value: (o) => formatUsd(o.amountCents) },
  { label: "State", value: (o) => STATE_BADGE[o.state] },
  { label: "Available from", value: (o) => (o.state === "voided" ? "—" : <LocalTime ms={o.availableAt} className="text-muted" />) },
];

function Stat({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <Card padding="p-4">
      <p className="text-sm text-muted">{label}</p>
      <p className="mt-1 text-2xl font-black">{value}</p>
      {note ? <p className="mt-1 text-xs text-muted">{note}</p> : null}
    </Card>
  );
}

export function AffiliateFigures({
  figures,
  orders,
  movements,
}: {
  figures: AffiliateFiguresData;
  orders: ReferredOrder[];
  movements: LedgerMovement[];
}) {
  const { chart } = figures;
  return (
    <div className="space-y-6">
      <div className="grid grid-cols-2 gap-3 lg:grid-cols-3 xl:grid-cols-6">
        <Stat label="Clicks" value={formatCount(figures.clicks)} />
        <Stat label="Orders" value={formatCount(figures.orders)} />
        <Stat label="Conversion" value={`${figures.conversion}%`} />
        <Stat label="Pending" value={formatUsd(figures.pending)} note={`Held ${HOLD_DAYS} days`} />
        <Stat
          label="Available"
          value={formatUsd(figures.available)}
          note={figures.requested > 0 ? `${formatUsd(figures.requested)} payout requested` : undefined}
        />
        <Stat label="Paid out" value={formatUsd(figures.paidOut)} />
      </div>
      <Card>
        <BarChart
          title={`Commission per day, last ${chart.length} days`}
          description={`Commission earned per UTC day from referred orders; ${formatCount(chart.reduce((n, d) => n + d.clicks, 0))} clicks and ${formatCount(chart.reduce((n, d) => n + d.orders, 0))} orders in the period.`}
          series={[{ key: "commission", label: "Commission", color: "#f97316" }]}
          rows={chart.map((d) => ({ key: String(d.date), label: formatDate(d.date).slice(0, 6), values: [d.cents] }))}
          format={formatUsd}
          layout="beside"
          labelHeader="Day"
        />
      </Card>
      <Card>
        <h2 className="font-bold">Referred orders</h2>
        {orders.length === 0 ? (
          <p className="mt-3 text-sm text-muted">No referred orders yet. Share your link or code to get the first one.</p>
        ) : (
          <ResponsiveTable rows={orders} columns={orderColumns} rowKey={(o) => String(o.id)} label="Referred orders" />
        )}
      </Card>
      <Card>
        <h2 className="font-bold">Ledger</h2>
        {movements.length === 0 ? (
          <p className="mt-3 text-sm text-muted">Nothing has moved yet.</p>
        ) : (
          <ResponsiveTable rows={movements} columns={movementColumns} rowKey={(m) => String(m.id)} label="Ledger" />
        )}
      </Card>
    </div>
  );
}
