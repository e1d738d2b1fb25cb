// The one-click unsubscribe of renewal reminders (RFC 8058, decision 091): a mail client POSTs to
// the List-Unsubscribe link with no Origin and no session, so the Worker answers it before its CSRF
// check; the link's signature is the proof. The page's own button posts here too, and goes back to
// the page, which then says the reminders are off.
import { unsubscribeByLink } from "~/server/renewals/reminders.server";
import { licenceSigner } from "~/server/licences/signing.server";
import { database } from "~/server/platform/db/client.server";
import { problemStatus } from "./problem-status.server";

const NO_STORE = { "Cache-Control": "no-store", "Content-Type": "text/plain; charset=utf-8" };

export async function unsubscribeFromReminders(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url);
  const signer = await licenceSigner(env.LICENCE_SIGNING_KEY);
  if (!signer.ok) return new Response("Unsubscribing is not available right now", { status: 503, headers: NO_STORE });
  const done = await unsubscribeByLink(database(env.DB), signer.value, url.searchParams.get("user"), url.searchParams.get("signature"));
  if (!done.ok) return new Response(done.problem.message, { status: problemStatus(done.problem), headers: NO_STORE });
  if (request.headers.get("Sec-Fetch-Mode") === "navigate") {
    url.searchParams.set("done", "1");
    return new Response(null, { status: 303, headers: { Location: `${url.pathname}${url.search}`, "Cache-Control": "no-store" } });
  }
  return new Response("Renewal reminders are off", { headers: NO_STORE });
}
