// "Webhook Integration": where Shopify sends order events, whether their signatures can be checked,
// and how the latest deliveries went.
import type { ManageCodesData } from "~/routes/dashboard.manage-codes";
import { Webhook } from "../icons";
import { LocalTime } from "../local-time";
import { OrderRef } from "../order-ref";
import { Badge, type BadgeTone } from "../ui/badge";
import { Card } from "../ui/card";

const OUTCOME_TONE: Record<string, BadgeTone> = { processed: "green", processing: "yellow", ignored: "gray", rejected: "red", error: "red" };

export function WebhookCard({ endpoint, secretSet, topics, deliveries }: ManageCodesData["webhook"]) {
  return (
    <Card>
      <h2 className="flex items-center gap-2 text-lg font-bold">
        <Webhook className="size-5 text-accent" aria-hidden /> Webhook Integration
      </h2>
      <p className="mt-2 text-sm text-muted">
        The webhook is active. It listens for order events from the storefront ({topics.join(", ")}) and e-mails an available code matching each purchased
        variant to the customer; orders without stock are backordered.
      </p>
      <dl className="mt-4 grid gap-3 text-sm sm:grid-cols-2">
        <div>
          <dt className="text-muted">Endpoint</dt>
          <dd className="font-mono break-all">{endpoint}</dd>
        </div>
        <div>
          <dt className="text-muted">Signing secret</dt>
          <dd>{secretSet ? <Badge tone="green">Set</Badge> : <Badge tone="red">Not set: every delivery is refused</Badge>}</dd>
        </div>
      </dl>
      <h3 className="mt-6 text-sm font-semibold">Latest deliveries</h3>
      <ul className="mt-2 space-y-2 text-sm">
        {deliveries.length === 0 ? <li className="text-muted">No deliveries yet.</li> : null}
        {deliveries.map((d) => (
          <li key={d.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 rounded-md border border-line bg-panel-2 px-3 py-2">
            <Badge tone={OUTCOME_TONE[d.outcome] ?? "gray"}>{d.outcome}</Badge>
            <span className="font-mono">{d.topic}</span>
            {d.orderId ? <OrderRef name={d.orderName} id={d.orderId} showId className="text-muted" /> : null}
            <LocalTime ms={d.receivedAt} format="datetime" className="text-muted" />
            {d.detail ? <span className="w-full text-muted">{d.detail}</span> : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}
