// /dashboard/sales: sales at a glance for admins (capability sales.view; others get 403): revenue
// of the last 30 UTC days by payment method, units sold and stock per variant, renewals apart from
// new purchases, top resellers.
// Charts are SVG drawn on the server (decision 039).
import type { ReactNode } from "react";
import { BarChart, type ChartSeries } from "~/components/bar-chart";
import { ChartColumn } from "~/components/icons";
import { Card } from "~/components/ui/card";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { formatCount, formatDate, formatUsd, plural } from "~/lib/format";
import { METHOD_LABEL, PAYMENT_METHODS, SALES_DAYS } from "~/lib/sales";
import { salesOverview } from "~/server/orders/sales-figures.server";
import { allVariants } from "~/server/catalogue/catalogue.server";
import type { Route } from "./+types/sales";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("sales.view")];

export const meta: Route.MetaFunction = () => [{ title: `Sales | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db, catalogue } = app(context);
  const variants = await allVariants(catalogue).then(
    (list) => list.map((v) => ({ id: v.variant.id, title: v.title })),
    (error: unknown) => {
      console.error("Failed to load products for the sales page:", error);
      return [];
    },
  );
  return salesOverview(db, variants);
}

const METHOD_COLOURS = { card: "#38bdf8", BTC: "#f7931a", LTC: "#a5b4fc", balance: "#4ade80" } as const;
const METHOD_SERIES: ChartSeries[] = PAYMENT_METHODS.map((m) => ({ key: m, label: METHOD_LABEL[m], color: METHOD_COLOURS[m] }));
const dayLabel = (day: string) => formatDate(Date.parse(`${day}T00:00:00Z`)).slice(0, 6);

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card padding="p-4 sm:p-6" className="min-w-0 space-y-3">
      <h2 className="text-lg font-bold">{title}</h2>
      {children}
    </Card>
  );
}

const Empty = ({ children }: { children: ReactNode }) => <p className="text-sm text-muted">{children}</p>;

/** Renewals apart from new purchases: what came back with the same key, what moved up, and how many who ended came back. */
function RenewalFigures({ figures }: { figures: Route.ComponentProps["loaderData"]["renewals"] }) {
  const share = figures.ended === 0 ? null : Math.round((figures.renewedWithinWeek / figures.ended) * 100);
  return (
    <>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-3 text-sm">
        <div>
          <dt className="text-muted">New purchases</dt>
          <dd className="text-xl font-black tabular-nums">{formatCount(figures.newPurchases)}</dd>
        </div>
        <div>
          <dt className="text-muted">Renewals</dt>
          <dd className="text-xl font-black tabular-nums">{formatCount(figures.renewals)}</dd>
          <dd className="text-xs text-muted">{formatUsd(figures.renewalCents)}</dd>
        </div>
        <div>
          <dt className="text-muted">Renewed within 7 days</dt>
          <dd className="text-xl font-black tabular-nums">{share === null ? "—" : `${share}%`}</dd>
          <dd className="text-xs text-muted">{`${formatCount(figures.renewedWithinWeek)} of ${formatCount(figures.ended)} that ended`}</dd>
        </div>
        <div>
          <dt className="text-muted">Upgrades</dt>
          <dd className="text-xl font-black tabular-nums">{formatUsd(figures.upgradeCents)}</dd>
          <dd className="text-xs text-muted">{`${formatCount(figures.upgrades)} ${plural(figures.upgrades, "upgrade", "upgrades")}`}</dd>
        </div>
      </dl>
      <p className="text-xs text-muted">
        New purchases are keys handed out; renewals extended a licence with the same key (refunded ones left out). Of the licences whose end
        fell in the last {SALES_DAYS} days, the share renewed no later than 7 days after it (early renewals count).
      </p>
    </>
  );
}

export default function Sales({ loaderData }: Route.ComponentProps) {
  const { since, days, otherCurrencies, leftOut, units, renewals, stock, resellers } = loaderData;
  const revenue = days.reduce((sum, d) => sum + PAYMENT_METHODS.reduce((s, m) => s + d[m], 0), 0);
  const period = `${formatDate(since)} to today (UTC)`;
  return (
    <div className="space-y-8">
      <div className="space-y-1">
        <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
          SALES <ChartColumn className="size-6 text-accent" aria-hidden />
        </h1>
        <p className="text-sm text-muted">{`The last ${SALES_DAYS} days: ${period}.`}</p>
      </div>
      <div className="grid grid-cols-1 gap-8 xl:grid-cols-2">
        <Section title="Revenue per day">
          <p className="text-2xl font-black tabular-nums">
            {formatUsd(revenue)} <span className="text-sm font-normal text-muted">in US dollars</span>
          </p>
          {revenue === 0 ? (
            <Empty>No paid orders in US dollars in the last {SALES_DAYS} days.</Empty>
          ) : (
            <BarChart
              title={`Revenue per day, last ${SALES_DAYS} days, by payment method`}
              description={`Paid orders in US dollars per UTC day, stacked by card, Bitcoin, Litecoin and reseller balance; ${formatUsd(revenue)} in all.`}
              series={METHOD_SERIES}
              rows={days.map((d) => ({ key: d.day, label: dayLabel(d.day), values: PAYMENT_METHODS.map((m) => d[m]) }))}
              format={formatUsd}
              layout="beside"
              labelHeader="Day"
            />
          )}
          <p className="text-xs text-muted">
            Counted: card orders paid and neither refunded nor cancelled, crypto key orders complete, reseller purchases from their balance
            (balance top-ups count when spent).
          </p>
          {otherCurrencies.length > 0 ? (
            <p className="text-sm">
              {`Also paid in other currencies (not in the chart): ${otherCurrencies.map((o) => `${(o.cents / 100).toFixed(2)} ${o.currency} in ${formatCount(o.orders)} order(s)`).join("; ")}.`}
            </p>
          ) : null}
          {leftOut.length > 0 ? (
            <p className="text-sm text-muted">
              {`Refunded or cancelled in this period (left out): ${leftOut.map((o) => `${(o.cents / 100).toFixed(2)} ${o.currency || "unknown currency"} in ${formatCount(o.orders)} order(s)`).join("; ")}.`}
            </p>
          ) : null}
        </Section>
        <div className="space-y-8">
          <Section title="Units sold per variant">
            {units.length === 0 ? (
              <Empty>No keys handed out in the last {SALES_DAYS} days.</Empty>
            ) : (
              <BarChart
                title={`Units sold per variant, last ${SALES_DAYS} days`}
                description={`Keys handed out and not revoked, per variant; ${formatCount(units.reduce((s, u) => s + u.units, 0))} in all.`}
                series={[{ key: "units", label: "Units", color: "#f97316" }]}
                rows={units.map((u) => ({ key: u.title, label: u.title, values: [u.units] }))}
                format={formatCount}
                labelHeader="Variant"
              />
            )}
          </Section>
          <Section title="Renewals">
            <RenewalFigures figures={renewals} />
          </Section>
          <Section title="Top resellers">
            {resellers.length === 0 ? (
              <Empty>No reseller purchases in the last {SALES_DAYS} days.</Empty>
            ) : (
              <BarChart
                title={`Top resellers by purchases, last ${SALES_DAYS} days`}
                description="The resellers who spent the most on keys from their balance, in US dollars."
                series={[{ key: "spent", label: "Spent", color: "#4ade80" }]}
                rows={resellers.map((r) => ({
                  key: r.userId,
                  label: `${r.username ?? r.userId} (${formatCount(r.purchases)} ${plural(r.purchases, "purchase", "purchases")})`,
                  values: [r.cents],
                }))}
                format={formatUsd}
                labelHeader="Reseller"
              />
            )}
          </Section>
        </div>
      </div>
      <Section title="Stock levels">
        {stock.length === 0 ? (
          <Empty>No variants and no codes yet.</Empty>
        ) : (
          <BarChart
            title="Available codes per variant"
            description="Codes in stock per variant; a line marks its low-stock alert level, and bars at or below it (or with orders waiting) are red."
            series={[{ key: "available", label: "Available", color: "#38bdf8" }]}
            rows={stock.map((s) => ({
              key: s.variantId,
              label: s.waiting > 0 ? `${s.title} (${formatCount(s.waiting)} waiting)` : s.title,
              values: [s.available],
              marker: s.threshold,
              warn: s.low,
            }))}
            format={formatCount}
            markerLabel="Alert at"
            labelHeader="Variant"
          />
        )}
      </Section>
    </div>
  );
}
