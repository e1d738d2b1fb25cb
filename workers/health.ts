// /api/health: the doctor's door into the shop's health (decision 098). A machine caller, so it
// proves itself with the HEALTH_TOKEN secret as a bearer token rather than a session or an origin;
// without that secret set, the door does not exist. GET answers the report; POST …/queue-ping puts
// a ping on the job queue (the next report says whether it was handled); POST …/mail sends a test
// message to the address given (the support address when none is) and answers the report with its
// outcome.
import { HEALTH_PATH } from "~/lib/entry-paths";
import * as v from "valibot";
import { findingsOf } from "~/lib/health";
import { healthReport } from "~/server/health/health-report.server";
import { database } from "~/server/platform/db/client.server";
import { pingQueue } from "~/server/platform/heartbeats.server";
import { constantTimeEqual } from "~/server/platform/tokens.server";

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });

/** Digests have one length, so comparing them takes the same time whatever was sent. */
const digest = async (text: string) => new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));

/** Where the test message goes: the address given, else the shop's support address. */
const mailRequestSchema = v.object({
  to: v.optional(v.pipe(v.string(), v.trim(), v.email("Give an e-mail address to send the test message to"))),
});

export async function health(request: Request, env: Env): Promise<Response> {
  const expected = env.HEALTH_TOKEN?.trim();
  if (!expected) return json({ message: "Not found" }, 404);
  const given = /^Bearer (.+)$/.exec(request.headers.get("Authorization") ?? "")?.[1] ?? "";
  if (!constantTimeEqual(await digest(given), await digest(expected))) return json({ message: "The health token is not right" }, 401);
  const url = new URL(request.url);
  const db = database(env.DB);
  const deps = { db, env, origin: url.origin, production: import.meta.env.MODE === "production" };
  if (request.method === "GET" && url.pathname === HEALTH_PATH) {
    const report = await healthReport(deps);
    return json({ ...report, findings: findingsOf(report) });
  }
  if (request.method === "POST" && url.pathname === `${HEALTH_PATH}/queue-ping`) {
    const now = Date.now();
    await pingQueue(db, env.JOB_QUEUE, now);
    return json({ sentAt: now }, 202);
  }
  if (request.method === "POST" && url.pathname === `${HEALTH_PATH}/mail`) {
    const input = v.safeParse(mailRequestSchema, await request.json().catch(() => null));
    if (!input.success) return json({ message: input.issues[0].message }, 400);
    const report = await healthReport(deps, { testMailTo: input.output.to ?? env.SUPPORT_EMAIL });
    return json({ ...report, findings: findingsOf(report) });
  }
  return json({ message: "Not found" }, 404);
}
