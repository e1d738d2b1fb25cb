// /dev/webhooks: the local webhook receiver. Register http://localhost:5173/dev/webhooks on the
// back office's Webhooks page and the shop's deliveries land here, each checked as a receiver checks
// it (add ?status=500 to the address to watch the retries). Registered only in development builds.
import { LocalTime } from "~/components/local-time";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { app } from "~/http/context.server";
import { notFound } from "~/http/refusals.server";
import { receipts } from "~/server/webhooks/dev-receiver.server";
import type { Route } from "./+types/webhooks";

export const meta: Route.MetaFunction = () => [{ title: "Dev webhook receiver" }, { name: "robots", content: "noindex" }];

export async function loader({ context }: Route.LoaderArgs) {
  if (!import.meta.env.DEV) throw notFound();
  return { receipts: await receipts(app(context).db) };
}

const VERDICTS = {
  verified: { label: "Signature verified", tone: "green" },
  "bad-signature": { label: "Signature does not verify", tone: "red" },
  "too-old": { label: "Timestamp too far from now", tone: "red" },
  "missing-headers": { label: "No Standard Webhooks headers", tone: "red" },
  "no-endpoint": { label: "No endpoint at this address (deleted?)", tone: "gray" },
} as const;

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export default function DevWebhooks({ loaderData }: Route.ComponentProps) {
  return (
    <div className="mx-auto max-w-4xl space-y-4 px-4 py-10">
      <h1 className="text-2xl font-bold">Dev webhook receiver</h1>
      <p className="text-sm text-muted">
        Deliveries sent to this page&apos;s address, newest first, each checked with the secrets of the endpoints registered here. This page
        exists only in development.
      </p>
      {loaderData.receipts.length === 0 ? <p className="text-muted">Nothing received yet.</p> : null}
      <ul className="space-y-4" aria-label="Deliveries received">
        {loaderData.receipts.map((receipt) => {
          const verdict = VERDICTS[receipt.verdict];
          return (
            <li key={receipt.id}>
              <Card className="space-y-2">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <h2 className="font-semibold break-all">{receipt.type}</h2>
                  <Badge tone={verdict.tone}>{verdict.label}</Badge>
                </div>
                <p className="text-sm break-all text-muted">
                  <LocalTime ms={receipt.receivedAt} format="datetime" /> · {receipt.webhookId ?? "no webhook-id"} · {receipt.url}
                </p>
                <pre tabIndex={0} className="max-h-64 overflow-auto rounded bg-black/40 p-3 text-xs whitespace-pre-wrap">
                  {pretty(receipt.body)}
                </pre>
              </Card>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
