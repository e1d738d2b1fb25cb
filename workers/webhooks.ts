// Webhooks: a Hono app under /webhooks. Callers prove themselves with an HMAC signature instead
// of a session, so these routes sit outside the CSRF check.
import { Hono } from "hono";
import { database } from "~/server/db/client.server";
import { webhookDeliveries } from "~/server/db/schema";
import { verifyWebhookSignature } from "~/server/shopify-hmac.server";

export const webhooks = new Hono<{ Bindings: Env }>();

webhooks.post("/webhooks/shopify", async (c) => {
  const body = await c.req.arrayBuffer();
  if (!(await verifyWebhookSignature(body, c.req.header("X-Shopify-Hmac-Sha256") ?? null, c.env.SHOPIFY_WEBHOOK_SECRET))) {
    return c.text("Invalid signature", 401);
  }
  const deliveryId = c.req.header("X-Shopify-Webhook-Id") ?? crypto.randomUUID();
  await database(c.env.DB)
    .insert(webhookDeliveries)
    .values({ id: deliveryId, topic: c.req.header("X-Shopify-Topic") ?? "unknown", outcome: "received", receivedAt: Date.now() })
    .onConflictDoNothing();
  return c.text("OK");
});
