// Webhooks: a Hono app under /webhooks. Callers prove themselves with an HMAC signature instead
// of a session, so these routes sit outside the CSRF check. The answer does not wait for e-mail
// delivery (Shopify allows 5 seconds); mail goes out through waitUntil.
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { problemStatus } from "~/http/answer.server";
import { type DeliveryOutcome, receiveShopifyWebhook } from "~/server/fulfilment/shopify-webhook.server";
import { database } from "~/server/platform/db/client.server";

export const webhooks = new Hono<{ Bindings: Env }>();

const ACCEPTED: Record<DeliveryOutcome, string> = { processed: "OK", "already-processed": "Already processed", ignored: "Ignored" };

webhooks.post("/webhooks/shopify", async (c) => {
  const deps = { db: database(c.env.DB), mail: c.env, waitUntil: (p: Promise<unknown>) => c.executionCtx.waitUntil(p) };
  const delivery = { body: await c.req.arrayBuffer(), headers: c.req.raw.headers };
  const result = await receiveShopifyWebhook(deps, c.env.SHOPIFY_WEBHOOK_SECRET, delivery);
  if (result.ok) return c.text(ACCEPTED[result.value], 200);
  return c.text(result.problem.message, problemStatus(result.problem) as ContentfulStatusCode);
});

webhooks.all("*", (c) => c.text("Not found", 404));
