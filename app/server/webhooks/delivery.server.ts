// Delivering webhook messages (decision 102): one attempt per job, signed as Standard Webhooks
// asks, with a timeout; a failure (no 2xx, a timeout, a refused address) is tried again on a
// schedule of about a day, and an endpoint that has failed for a day is disabled and the admins told.
import { and, eq, isNull, lt, lte, or } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { webhookAttempts, webhookEndpoints, webhookMessages } from "../platform/db/schema.server";
import type { JobQueue } from "../platform/job-registry.server";
import { adminAddresses, type MailingDeps, sendMail } from "../platform/mail.server";
import { endpointAddressProblem, isPrivateAddress, LOCAL_RECEIVERS_ALLOWED, needsResolving, resolveHost } from "./endpoint-address.server";
import { queueDeliveries } from "./events.server";
import { signedHeaders } from "./signing.server";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * How long after each failed attempt the next one waits: the published Standard Webhooks
 * schedule. Eight attempts in all, the last some 27.5 hours after the first.
 */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
/** An endpoint whose deliveries have all failed for this long is disabled at its next failure. */
export const DISABLE_AFTER_MS = 24 * HOUR;
/** How long an answer may take. */
export const DELIVERY_TIMEOUT_MS = 10 * SECOND;
/** How much of an answer is kept for the delivery log. */
export const RESPONSE_EXCERPT_CHARS = 500;
/** Requests to outside services one delivery makes: the name's A and AAAA lookups, then the POST. */
export const WEBHOOK_SUBREQUESTS = 3;
/** How long an attempt holds its message, past any timeout, so a second copy of its job waits. */
const CLAIM_MS = 2 * MINUTE;

export interface DeliveryDeps extends MailingDeps {
  fetcher?: typeof fetch;
  /** The DNS-over-HTTPS resolver asked for an endpoint's addresses before each delivery; empty: not asked. */
  resolver: string;
  queue: JobQueue<"webhook-delivery">;
  allowLocal?: boolean;
}

type Outcome = { status: number | null; response: string; error: string | null };

async function send(deps: DeliveryDeps, url: string, headers: Record<string, string>, body: string): Promise<Outcome> {
  const fetcher = deps.fetcher ?? fetch;
  const allowLocal = deps.allowLocal ?? LOCAL_RECEIVERS_ALLOWED;
  // The address is checked again: the rule may be stricter than when the endpoint was saved, and
  // a public name may point inside a network now.
  const problem = endpointAddressProblem(url, allowLocal);
  if (problem) return { status: null, response: "", error: `Not sent: ${problem}` };
  try {
    if (deps.resolver && needsResolving(url, allowLocal)) {
      const addresses = await resolveHost(deps.resolver, new URL(url).hostname, fetcher);
      if (addresses.length === 0) return { status: null, response: "", error: "Not sent: the name does not resolve" };
      const inside = addresses.find(isPrivateAddress);
      if (inside) return { status: null, response: "", error: `Not sent: the name resolves to a private address (${inside})` };
    }
    const response = await fetcher(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body,
      // A redirect could lead anywhere, the shop's own network included: it counts as a failure.
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    return { status: response.status, response: await firstCharacters(response.body, RESPONSE_EXCERPT_CHARS), error: null };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return { status: null, response: "", error: timedOut ? `No answer within ${DELIVERY_TIMEOUT_MS / SECOND} s` : String(error) };
  }
}

/** The start of an answer's body, without reading the rest (an endpoint may answer with anything). */
async function firstCharacters(body: ReadableStream<Uint8Array> | null, max: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < max) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // What arrived before the answer broke off is kept.
  }
  await reader.cancel().catch(() => {});
  return text.slice(0, max);
}

/** The secrets that sign now: the current one, and the one it replaced while that still counts. */
export function signingSecrets(endpoint: typeof webhookEndpoints.$inferSelect, now: number): string[] {
  const previous = endpoint.previousSecret && (endpoint.previousSecretUntil ?? 0) > now ? [endpoint.previousSecret] : [];
  return [endpoint.secret, ...previous];
}

/**
 * One attempt at message `id`, if it is due and no other copy of its job holds it: what the job
 * queue runs. Safe to run twice (the second finds it claimed, delivered or not yet due).
 */
export async function deliverWebhookMessage(
  deps: DeliveryDeps,
  id: string,
  now = Date.now(),
): Promise<"delivered" | "retry" | "failed" | "skipped"> {
  const { db } = deps;
  const message = await db
    .update(webhookMessages)
    .set({ claimedUntil: now + CLAIM_MS })
    .where(
      and(
        eq(webhookMessages.id, id),
        eq(webhookMessages.state, "pending"),
        lte(webhookMessages.nextAttemptAt, now),
        or(isNull(webhookMessages.claimedUntil), lt(webhookMessages.claimedUntil, now)),
      ),
    )
    .returning()
    .get();
  if (!message) return "skipped";
  const endpoint = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, message.endpointId)).get();
  if (!endpoint || endpoint.state !== "enabled") {
    await db.update(webhookMessages).set({ state: "failed", nextAttemptAt: null, claimedUntil: null }).where(eq(webhookMessages.id, id));
    return "failed";
  }
  const headers = await signedHeaders(signingSecrets(endpoint, now), message, Math.floor(now / SECOND));
  const outcome = await send(deps, endpoint.url, headers, message.body);
  const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const attempts = message.attempts + 1;
  const delay = RETRY_DELAYS_MS[attempts - 1];
  const state = delivered ? "delivered" : delay === undefined ? "failed" : "pending";
  await db.batch([
    db.insert(webhookAttempts).values({
      messageId: id,
      at: now,
      url: endpoint.url,
      requestHeaders: headers,
      status: outcome.status,
      response: outcome.response,
      error: outcome.error ?? (delivered ? null : `The endpoint answered ${outcome.status}`),
    }),
    db
      .update(webhookMessages)
      .set({ state, attempts, nextAttemptAt: state === "pending" ? now + delay! : null, claimedUntil: null })
      .where(eq(webhookMessages.id, id)),
  ]);
  if (delivered) {
    await db.update(webhookEndpoints).set({ failingSince: null }).where(eq(webhookEndpoints.id, endpoint.id));
    return "delivered";
  }
  const disabled = await noteFailure(deps, endpoint, now);
  if (disabled || state === "failed") return "failed";
  await deps.queue.send({ kind: "webhook-delivery", messageId: id }, { delaySeconds: delay! / SECOND });
  return "retry";
}

/** A failed attempt: the endpoint's failing streak starts, or, a day old, disables it and tells the admins (once: the disabling is claimed). */
async function noteFailure(deps: DeliveryDeps, endpoint: typeof webhookEndpoints.$inferSelect, now: number): Promise<boolean> {
  const { db } = deps;
  await db
    .update(webhookEndpoints)
    .set({ failingSince: now })
    .where(and(eq(webhookEndpoints.id, endpoint.id), isNull(webhookEndpoints.failingSince)));
  const disabled = await db
    .update(webhookEndpoints)
    .set({ state: "disabled", disabledReason: "failing", disabledAt: now })
    .where(
      and(
        eq(webhookEndpoints.id, endpoint.id),
        eq(webhookEndpoints.state, "enabled"),
        lte(webhookEndpoints.failingSince, now - DISABLE_AFTER_MS),
      ),
    )
    .returning({ id: webhookEndpoints.id, url: webhookEndpoints.url, failingSince: webhookEndpoints.failingSince })
    .get();
  if (!disabled) return false;
  // What was still waiting for it will not be sent: Redeliver sends any of them once it works again.
  await db
    .update(webhookMessages)
    .set({ state: "failed", nextAttemptAt: null })
    .where(and(eq(webhookMessages.endpointId, endpoint.id), eq(webhookMessages.state, "pending")));
  for (const to of await adminAddresses(db)) {
    await sendMail(deps, {
      to,
      subject: `Webhook endpoint disabled: ${disabled.url}`,
      text:
        `Every delivery to ${disabled.url} has failed since ${new Date(disabled.failingSince ?? now).toISOString()}, so the shop stopped sending to it.\n` +
        "Open Webhooks in the back office to see what it answered, mend the endpoint, enable it again and redeliver what it missed.",
      dedupeKey: `webhook-disabled:${endpoint.id}:${now}:${to}`,
    });
  }
  return true;
}

/**
 * Cron: a job for every message whose attempt is overdue (its job lost, or never queued because
 * the queue refused it). A message in flight is held by its claim, so nothing is sent twice.
 */
export async function queueOverdueDeliveries(db: Db, queue: JobQueue<"webhook-delivery">, now = Date.now()): Promise<void> {
  const overdue = await db
    .select({ id: webhookMessages.id })
    .from(webhookMessages)
    .where(
      and(
        eq(webhookMessages.state, "pending"),
        lte(webhookMessages.nextAttemptAt, now - MINUTE),
        or(isNull(webhookMessages.claimedUntil), lt(webhookMessages.claimedUntil, now)),
      ),
    )
    .orderBy(webhookMessages.nextAttemptAt)
    .limit(100);
  await queueDeliveries(
    overdue.map((message) => message.id),
    queue,
  );
}
