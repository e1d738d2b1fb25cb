// Webhooks: a Hono app under /webhooks. Callers prove themselves with an HMAC signature instead
// of a session, so these routes sit outside the CSRF check. The body is size-capped before the
// signature is computed over it, so an oversized one costs neither memory nor hashing. The answer
// waits for nothing but the signature and one durable write, the queue message carrying the signed
// body (Shopify allows 5 seconds): the job queue's consumer records the delivery and hands
// out the keys (decisions 031, 067).
import { Hono } from "hono/tiny";
import { problemStatus } from "~/http/problem-status.server";
import type { Problem } from "~/lib/result";
import {
  auditRejectedDelivery,
  type DeliveryClaims,
  type DeliveryOutcome,
  MAX_DELIVERY_BYTES,
  receiveShopifyWebhook,
} from "~/server/orders/shopify-webhook.server";
import { database } from "~/server/platform/db/client.server";
import { readBytes } from "~/http/request-body.server";

export const webhooks = new Hono<{ Bindings: Env }>();

const ACCEPTED: Record<DeliveryOutcome, string> = { queued: "Queued", "already-processed": "Already processed", ignored: "Ignored" };

const refusal = (problem: Problem) => new Response(problem.message, { status: problemStatus(problem) });

/** What the sender claims in the headers Shopify sets; only the body's signature proves anything. */
function claimsOf(request: Request): DeliveryClaims {
  const { headers } = request;
  return {
    topic: headers.get("X-Shopify-Topic") ?? "",
    hmac: headers.get("X-Shopify-Hmac-Sha256"),
    webhookId: headers.get("X-Shopify-Webhook-Id"),
    ip: headers.get("CF-Connecting-IP"),
  };
}

webhooks.post("/webhooks/shopify", async (c) => {
  const db = database(c.env.DB);
  const claims = claimsOf(c.req.raw);
  const body = await readBytes(c.req.raw, MAX_DELIVERY_BYTES);
  if (!body.ok) {
    await auditRejectedDelivery(db, claims, body.problem.message);
    return refusal(body.problem);
  }
  const deps = { db, queue: c.env.JOB_QUEUE };
  const result = await receiveShopifyWebhook(deps, c.env.SHOPIFY_WEBHOOK_SECRET, { ...claims, body: body.value });
  return result.ok ? c.text(ACCEPTED[result.value], 200) : refusal(result.problem);
});

webhooks.all("*", (c) => c.text("Not found", 404));
