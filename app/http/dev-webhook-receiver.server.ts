// The development server's local webhook receiver: the shop's own deliveries arrive here with no
// Origin, so the Worker answers them before its CSRF check. `?status=500` answers with that status,
// to watch the retries.
import { database } from "~/server/platform/db/client.server";
import { keepReceipt } from "~/server/webhooks/dev-receiver.server";

const RECEIPT_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature", "content-type", "user-agent"];

export async function receiveDevWebhook(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url);
  const headers = Object.fromEntries(
    RECEIPT_HEADERS.flatMap((name) => (request.headers.has(name) ? [[name, request.headers.get(name)!]] : [])),
  );
  await keepReceipt(database(env.DB), { url: url.href, headers, body: await request.text() });
  const status = Number(url.searchParams.get("status") ?? 200);
  return new Response(status === 200 ? "received" : "failing on purpose", {
    status: status >= 200 && status <= 599 ? status : 200,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}
