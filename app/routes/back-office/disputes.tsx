// /dashboard/disputes: payment disputes Shopify reported (decision 092), open ones first by their
// evidence deadline, each with its order, the buyer's licence activity (evidence that the key was
// delivered and used) and a one-click export of that evidence for Shopify's dispute form.
// Capability disputes.view.
import { Link } from "~/components/link";
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import { ResponsiveTable } from "~/components/ui/responsive-table";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { DISPUTE_OUTCOME_LABEL } from "~/lib/fraud";
import { orderPath } from "~/lib/orders";
import { listDisputes } from "~/server/disputes/disputes.server";
import { disputeEvidence } from "~/server/disputes/evidence.server";
import type { KeyWatchNamespace } from "~/server/licences/sharing.server";
import type { Route } from "./+types/disputes";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("disputes.view")];

export const meta: Route.MetaFunction = () => [{ title: `Disputes | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const { open, settled } = await listDisputes(db);
  const watch = env.KEY_WATCH as unknown as KeyWatchNamespace;
  const evidence = await Promise.all(open.slice(0, 50).map((dispute) => disputeEvidence(db, watch, dispute.id)));
  return { open: evidence.flatMap((e) => (e ? [e] : [])), settled };
}

type Open = Route.ComponentProps["loaderData"]["open"][number];

function OpenDispute({ evidence }: { evidence: Open }) {
  const { dispute, order, activity, mails } = evidence;
  const overdue = dispute.evidenceDueBy !== null && dispute.evidenceDueBy < Date.now();
  return (
    <Card as="article" aria-labelledby={`dispute-${dispute.id}`}>
      <div className="flex flex-wrap items-center gap-2">
        <h3 id={`dispute-${dispute.id}`} className="font-semibold">
          {order ? (
            <Link to={orderPath({ source: "shopify", reference: dispute.orderId })} className="text-accent hover:underline">
              Order {order.name}
            </Link>
          ) : (
            `Order ${dispute.orderId}`
          )}
        </h3>
        <Badge tone="orange">{dispute.type}</Badge>
        <Badge tone="gray">{dispute.status.replace(/_/g, " ")}</Badge>
        <span className="text-sm text-muted">{dispute.reason?.replace(/_/g, " ") ?? "no reason given"}</span>
      </div>
      <dl className="mt-3 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
        <div>
          <dt className="inline text-muted">Evidence due: </dt>
          <dd className={`inline ${overdue ? "text-red-300" : ""}`}>
            {dispute.evidenceDueBy ? <LocalTime ms={dispute.evidenceDueBy} format="datetime" /> : "Not given"}
          </dd>
        </div>
        <div>
          <dt className="inline text-muted">Amount: </dt>
          <dd className="inline">
            {dispute.amount ?? "?"} {dispute.currency ?? ""}
          </dd>
        </div>
        <div>
          <dt className="inline text-muted">Buyer: </dt>
          <dd className="inline break-all">{order?.email ?? "unknown"}</dd>
        </div>
        <div>
          <dt className="inline text-muted">Keys e-mailed: </dt>
          <dd className="inline">{mails.length > 0 ? <LocalTime ms={mails.at(-1)!.sentAt ?? 0} format="datetime" /> : "No e-mail sent"}</dd>
        </div>
      </dl>
      {activity.length === 0 ? (
        <p className="mt-3 text-sm text-muted">No key was handed out for this order.</p>
      ) : (
        <ResponsiveTable
          label={`Licence activity for order ${order?.name ?? dispute.orderId}`}
          rows={activity}
          rowKey={(a) => a.key}
          columns={[
            { label: "Key", value: (a) => <span className="font-mono text-xs">{a.key}</span> },
            { label: "First activation", value: (a) => (a.activatedAt ? <LocalTime ms={a.activatedAt} format="datetime" /> : "Never") },
            { label: "PC", value: (a) => (a.pc ? `${a.pc}${a.device ? ` (${a.device})` : ""}` : "None") },
            {
              label: "Last check",
              value: (a) =>
                a.lastCheckAt ? (
                  <>
                    <LocalTime ms={a.lastCheckAt} format="datetime" />
                    {a.lastCheckPlace ? ` · ${a.lastCheckPlace}` : ""}
                  </>
                ) : (
                  "Never"
                ),
            },
            { label: "Countries", value: (a) => (a.countries.length ? a.countries.join(", ") : "—") },
          ]}
        />
      )}
      <a href={`/dashboard/disputes/${dispute.id}/evidence.txt`} download className={buttonClass("primary", "sm", "mt-4")}>
        Export evidence
      </a>
    </Card>
  );
}

export default function Disputes({ loaderData }: Route.ComponentProps) {
  const { open, settled } = loaderData;
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-black">Disputes</h1>
      <p className="text-sm text-muted">
        While a payment is disputed its keys answer SUSPENDED and their Discord roles are paused; a won dispute restores them, a lost one
        revokes them. Export the evidence and add it to the dispute in Shopify before its deadline.
      </p>
      <section aria-labelledby="open-disputes" className="space-y-3">
        <h2 id="open-disputes" className="text-lg font-semibold">
          Open
        </h2>
        {open.length === 0 ? (
          <EmptyState className="text-center" title="No open disputes">
            Shopify's dispute webhooks bring them here.
          </EmptyState>
        ) : (
          open.map((evidence) => <OpenDispute key={evidence.dispute.id} evidence={evidence} />)
        )}
      </section>
      {settled.length > 0 ? (
        <Card as="section" aria-labelledby="settled-disputes">
          <h2 id="settled-disputes" className="text-lg font-semibold">
            Settled
          </h2>
          <ResponsiveTable
            label="Settled disputes"
            rows={settled}
            rowKey={(d) => d.id}
            columns={[
              {
                label: "Order",
                value: (d) => (
                  <Link to={orderPath({ source: "shopify", reference: d.orderId })} className="text-accent hover:underline">
                    {d.orderId}
                  </Link>
                ),
              },
              {
                label: "Outcome",
                value: (d) => <Badge tone={d.outcome === "won" ? "green" : "red"}>{DISPUTE_OUTCOME_LABEL[d.outcome]}</Badge>,
              },
              { label: "Reason", value: (d) => d.reason?.replace(/_/g, " ") ?? "—" },
              { label: "Settled", value: (d) => (d.settledAt ? <LocalTime ms={d.settledAt} format="date" /> : "—") },
            ]}
          />
        </Card>
      ) : null}
    </div>
  );
}
