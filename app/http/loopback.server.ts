// Requests the Worker sends to itself: the demo checkout's signed webhook goes through the same
// door as Shopify's, to the same origin the page was served from.
import { exports } from "cloudflare:workers";
import type { SignedWebhook } from "~/server/catalogue/checkout.server";

/** Delivers `webhook` to this Worker, at the origin `request` reached, and answers the status it gave. */
export async function deliverToSelf(request: Request, { path, headers, body }: SignedWebhook): Promise<number> {
  const response = await exports.default.fetch(new Request(new URL(path, request.url), { method: "POST", headers, body }));
  return response.status;
}
