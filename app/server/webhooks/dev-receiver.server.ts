// The development server's local receiver (/dev/webhooks): it keeps what arrives, and checks each
// delivery's signature as a receiver would, with the secrets of the endpoints registered at its
// address. Development only: a production build has no route to it.
import { desc } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { simulatedWebhookReceipts, webhookEndpoints } from "../platform/db/schema.server";
import { verifySignature } from "./signing.server";

/** Larger bodies are cut: the receiver only needs to show what came. */
const MAX_BODY_CHARS = 64 * 1024;

export async function keepReceipt(db: Db, receipt: { url: string; headers: Record<string, string>; body: string }, now = Date.now()) {
  await db.insert(simulatedWebhookReceipts).values({ ...receipt, body: receipt.body.slice(0, MAX_BODY_CHARS), receivedAt: now });
}

// The whole address, query included: each endpoint registered here may carry its own (`?status=500`).
const sameAddress = (a: string, b: string) => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
};

/** What arrived, newest first, each with its signature checked against the endpoints at its address. */
export async function receipts(db: Db, limit = 50) {
  const [rows, endpoints] = await Promise.all([
    db.select().from(simulatedWebhookReceipts).orderBy(desc(simulatedWebhookReceipts.id)).limit(limit),
    db.select().from(webhookEndpoints),
  ]);
  return Promise.all(
    rows.map(async (row) => {
      const secrets = endpoints
        .filter((endpoint) => sameAddress(endpoint.url, row.url))
        .flatMap((endpoint) => [endpoint.secret, ...(endpoint.previousSecret ? [endpoint.previousSecret] : [])]);
      let type = "(not JSON)";
      try {
        type = String((JSON.parse(row.body) as { type?: unknown }).type ?? "(no type)");
      } catch {
        // shown as it came
      }
      return {
        id: row.id,
        url: row.url,
        receivedAt: row.receivedAt,
        webhookId: row.headers["webhook-id"] ?? null,
        type,
        body: row.body,
        verdict:
          secrets.length === 0
            ? ("no-endpoint" as const)
            : await verifySignature(secrets, row.headers, row.body, Math.floor(row.receivedAt / 1000)),
      };
    }),
  );
}
