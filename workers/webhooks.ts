// Webhooks: a Hono app under /webhooks. Callers prove themselves with an HMAC signature instead
// of a session, so these routes sit outside the CSRF check. The answer does not wait for e-mail
// delivery (Shopify allows 5 seconds); mail goes out through waitUntil.
import { Hono } from "hono";
import { database } from "~/server/platform/db/client.server";
import { handleShopifyWebhook } from "~/server/fulfilment/shopify-webhook.server";

export const webhooks = new Hono<{ Bindings: Env }>();

webhooks.post("/webhooks/shopify", async (c) => {
  const deps = { db: database(c.env.DB), mail: c.env, waitUntil: (p: Promise<unknown>) => c.executionCtx.waitUntil(p) };
  const answer = await handleShopifyWebhook(deps, c.env.SHOPIFY_WEBHOOK_SECRET, c.req.raw);
  return c.text(answer.body, answer.status as 200);
});

webhooks.all("*", (c) => c.text("Not found", 404));
