// The Webhooks page's half: endpoints registered, disabled and enabled again, deleted; their
// secrets rotated (the old one still signs for a day) and revealed (decision 101); the delivery log,
// redelivery and test events. Every change is audited, without the secret.
import { and, desc, eq, inArray, ne, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { WebhookEvent } from "~/lib/webhooks";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { webhookAttempts, webhookEndpoints, webhookMessages } from "../platform/db/schema.server";
import { endpointAddressProblem } from "./endpoint-address.server";
import { emitTestEvent, queueDeliveries } from "./events.server";
import { newId, newSecret } from "./signing.server";

/** How long a rotated secret's old one keeps signing, beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Enough for a shop's own systems; each endpoint is a delivery per event. */
export const MAX_ENDPOINTS = 20;
/** The messages the page shows per endpoint, newest first. */
export const LOG_LENGTH = 20;

interface Actor {
  id: string;
  ip: string | null;
}

/** Every endpoint, newest first, with its latest messages and their attempts (secrets left out). */
export async function webhookOverview(db: Db, now = Date.now()) {
  const endpoints = await db.select().from(webhookEndpoints).orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
  const logs = await Promise.all(
    endpoints.map((endpoint) =>
      db
        .select({
          id: webhookMessages.id,
          eventType: webhookMessages.eventType,
          body: webhookMessages.body,
          createdAt: webhookMessages.createdAt,
          state: webhookMessages.state,
          nextAttemptAt: webhookMessages.nextAttemptAt,
        })
        .from(webhookMessages)
        .where(eq(webhookMessages.endpointId, endpoint.id))
        .orderBy(desc(webhookMessages.createdAt), desc(webhookMessages.id))
        .limit(LOG_LENGTH),
    ),
  );
  const messageIds = logs.flat().map((message) => message.id);
  const attempts =
    messageIds.length === 0
      ? []
      : await db.select().from(webhookAttempts).where(inArray(webhookAttempts.messageId, messageIds)).orderBy(desc(webhookAttempts.id));
  return endpoints.map((endpoint, i) => ({
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    state: endpoint.state,
    disabledReason: endpoint.disabledReason,
    disabledAt: endpoint.disabledAt,
    failingSince: endpoint.failingSince,
    createdAt: endpoint.createdAt,
    rotatingUntil: endpoint.previousSecret && (endpoint.previousSecretUntil ?? 0) > now ? endpoint.previousSecretUntil : null,
    messages: logs[i]!.map((message) => ({
      ...message,
      attempts: attempts
        .filter((attempt) => attempt.messageId === message.id)
        .map(({ id, at, status, response, error, requestHeaders }) => ({ id, at, status, response, error, requestHeaders })),
    })),
  }));
}

/** A new endpoint and its secret, which the page shows once (staff may reveal it again, audited). */
export async function registerEndpoint(
  db: Db,
  actor: Actor,
  input: { url: string; description: string; events: WebhookEvent[] },
  now = Date.now(),
): Promise<Result<{ id: string; secret: string }>> {
  const problem = endpointAddressProblem(input.url);
  if (problem) return fail("invalid", problem, { field: "url" });
  const count = await db
    .select({ n: sql<number>`count(*)` })
    .from(webhookEndpoints)
    .get();
  if ((count?.n ?? 0) >= MAX_ENDPOINTS) return fail("conflict", `The shop sends to ${MAX_ENDPOINTS} endpoints at most: delete one first`);
  const id = newId("ep");
  const secret = newSecret();
  await db
    .insert(webhookEndpoints)
    .values({ id, url: input.url, description: input.description, events: input.events, secret, createdBy: actor.id, createdAt: now });
  await audit(db, actor.id, "webhook.endpoint-create", id, { url: input.url, events: input.events }, actor.ip);
  return ok({ id, secret });
}

async function endpointOf(db: Db, id: string) {
  return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();
}
const noSuchEndpoint = () => fail("not-found", "No such endpoint: it may have been deleted");

/** A new secret; the old one signs beside it for a day, so receivers can change over without losing a delivery. */
export async function rotateSecret(db: Db, actor: Actor, id: string, now = Date.now()): Promise<Result<{ secret: string }>> {
  const endpoint = await endpointOf(db, id);
  if (!endpoint) return noSuchEndpoint();
  const secret = newSecret();
  const rotated = await db
    .update(webhookEndpoints)
    .set({ secret, previousSecret: endpoint.secret, previousSecretUntil: now + ROTATION_OVERLAP_MS })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.secret, endpoint.secret)))
    .returning({ id: webhookEndpoints.id });
  if (rotated.length === 0) return fail("conflict", "The secret changed meanwhile; reload and try again");
  await audit(db, actor.id, "webhook.secret-rotate", id, { url: endpoint.url }, actor.ip);
  return ok({ secret });
}

/** The endpoint's current secret, for staff who lost it (audited: whoever reads it could forge deliveries). */
export async function revealSecret(db: Db, actor: Actor, id: string): Promise<Result<{ secret: string }>> {
  const endpoint = await endpointOf(db, id);
  if (!endpoint) return noSuchEndpoint();
  await audit(db, actor.id, "webhook.secret-reveal", id, { url: endpoint.url }, actor.ip);
  return ok({ secret: endpoint.secret });
}

/** Staff stop or resume sending to an endpoint; enabling starts its failure count afresh. */
export async function setEndpointEnabled(db: Db, actor: Actor, id: string, enabled: boolean, now = Date.now()): Promise<Result> {
  const changed = await db
    .update(webhookEndpoints)
    .set(
      enabled
        ? { state: "enabled", disabledReason: null, disabledAt: null, failingSince: null }
        : { state: "disabled", disabledReason: "staff", disabledAt: now },
    )
    .where(and(eq(webhookEndpoints.id, id), ne(webhookEndpoints.state, enabled ? "enabled" : "disabled")))
    .returning({ url: webhookEndpoints.url });
  if (changed.length === 0)
    return (await endpointOf(db, id))
      ? fail("conflict", enabled ? "This endpoint is already enabled" : "This endpoint is already disabled")
      : noSuchEndpoint();
  await audit(db, actor.id, enabled ? "webhook.endpoint-enable" : "webhook.endpoint-disable", id, { url: changed[0]!.url }, actor.ip);
  return ok();
}

/** The endpoint and its log, gone. */
export async function deleteEndpoint(db: Db, actor: Actor, id: string): Promise<Result> {
  const deleted = await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning({ url: webhookEndpoints.url });
  if (deleted.length === 0) return noSuchEndpoint();
  await audit(db, actor.id, "webhook.endpoint-delete", id, { url: deleted[0]!.url }, actor.ip);
  return ok();
}

/** A test event to an enabled endpoint, delivered like any other. */
export async function sendTestEvent(db: Db, actor: Actor, id: string, now = Date.now()): Promise<Result<{ messageId: string }>> {
  const endpoint = await endpointOf(db, id);
  if (!endpoint) return noSuchEndpoint();
  if (endpoint.state !== "enabled") return fail("conflict", "Enable the endpoint first: a disabled endpoint is sent nothing");
  const messageId = await emitTestEvent(db, id, now);
  await audit(db, actor.id, "webhook.test-event", id, { url: endpoint.url, message: messageId }, actor.ip);
  return ok({ messageId });
}

/**
 * A message sent again, with the same webhook-id (receivers that already have it can tell) and
 * a fresh round of retries.
 */
export async function redeliverMessage(db: Db, actor: Actor, endpointId: string, messageId: string, now = Date.now()): Promise<Result> {
  const endpoint = await endpointOf(db, endpointId);
  if (!endpoint) return noSuchEndpoint();
  if (endpoint.state !== "enabled") return fail("conflict", "Enable the endpoint first: a disabled endpoint is sent nothing");
  const again = await db
    .update(webhookMessages)
    .set({ state: "pending", attempts: 0, nextAttemptAt: now, claimedUntil: null })
    .where(and(eq(webhookMessages.id, messageId), eq(webhookMessages.endpointId, endpointId), ne(webhookMessages.state, "pending")))
    .returning({ id: webhookMessages.id, eventType: webhookMessages.eventType });
  if (again.length === 0) return fail("conflict", "This delivery is already on its way, or no longer in the log");
  await queueDeliveries([messageId]);
  await audit(
    db,
    actor.id,
    "webhook.redeliver",
    endpointId,
    { url: endpoint.url, message: messageId, event: again[0]!.eventType },
    actor.ip,
  );
  return ok();
}
