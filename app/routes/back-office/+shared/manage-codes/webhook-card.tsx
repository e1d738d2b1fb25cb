// "Webhook Integration": where Shopify sends order events, whether their signatures can be checked,
// how the latest deliveries went, and the fulfilment jobs the queue gave up on, each with "Retry".
import { useFetcher } from "react-router";
import type { Answer } from "~/lib/answer";
import { Webhook } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { useResultToast } from "~/components/use-result-toast";
import { counted } from "~/lib/format";

const OUTCOME_TONE: Record<string, BadgeTone> = {
  processed: "green",
  queued: "yellow",
  processing: "yellow",
  ignored: "gray",
  rejected: "red",
  error: "red",
};

const JOB_LABEL: Record<string, string> = { "shopify-delivery": "Shopify delivery", "crypto-order": "Crypto order" };

interface FailedJob {
  id: string;
  kind: string;
  attempts: number;
  lastError: string;
  deadAt: number | null;
}

/** Where Shopify delivers, whether deliveries can be verified, the latest ones, and the jobs the queue gave up on. */
export interface WebhookStatus {
  endpoint: string;
  secretSet: boolean;
  topics: readonly string[];
  deliveries: {
    id: string;
    topic: string;
    outcome: string;
    detail: string | null;
    orderId: string | null;
    orderName: string | null;
    receivedAt: number;
  }[];
  failedJobs: FailedJob[];
}

// A row leaves the list once its job is sent again, so the rows' fetchers share a key and the card
// (which stays) reports the result.
const RETRY_FETCHER = "failed-jobs";

function FailedJobRow({ job }: { job: FailedJob }) {
  const fetcher = useFetcher<Answer>({ key: RETRY_FETCHER });
  const reference = job.id.slice(job.id.indexOf(":") + 1);
  return (
    <li className="rounded-md border border-red-500/30 bg-red-500/5 px-3 py-2">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <Badge tone="red">failed</Badge>
        <span>
          {JOB_LABEL[job.kind] ?? job.kind} <span className="font-mono break-all">{reference}</span>
        </span>
        <span className="text-muted">
          {counted(job.attempts, "attempt")}, gave up <LocalTime ms={job.deadAt ?? 0} format="datetime" />
        </span>
      </div>
      <p className="mt-1 break-words text-muted">{job.lastError}</p>
      <fetcher.Form method="post" action="/dashboard/manage-codes/jobs" className="mt-2">
        <input type="hidden" name="intent" value="retry" />
        <input type="hidden" name="id" value={job.id} />
        <Button
          type="submit"
          variant="outline"
          disabled={fetcher.state !== "idle"}
          aria-label={`Retry ${JOB_LABEL[job.kind] ?? job.kind} ${reference}`}
        >
          {fetcher.state === "idle" ? "Retry" : "Retrying…"}
        </Button>
      </fetcher.Form>
    </li>
  );
}

export function WebhookCard({ endpoint, secretSet, topics, deliveries, failedJobs }: WebhookStatus) {
  useResultToast(useFetcher<Answer>({ key: RETRY_FETCHER }));
  return (
    <Card>
      <h2 className="flex items-center gap-2 text-lg font-bold">
        <Webhook className="size-5 text-accent" aria-hidden /> Webhook Integration
      </h2>
      <p className="mt-2 text-sm text-muted">
        The webhook is active. It listens for order events from the storefront ({topics.join(", ")}) and e-mails an available code matching
        each purchased variant to the customer; orders without stock are backordered. Each delivery is answered at once and fulfilled from a
        queue moments later; a job that still fails after its retries is listed under Failed jobs.
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
      <h3 className="mt-6 text-sm font-semibold">Failed jobs ({failedJobs.length})</h3>
      <ul className="mt-2 space-y-2 text-sm">
        {failedJobs.length === 0 ? <li className="text-muted">None: every job went through.</li> : null}
        {failedJobs.map((job) => (
          <FailedJobRow key={job.id} job={job} />
        ))}
      </ul>
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
