// Events out: a domain that records a change calls `emitWebhookEvent` after it, and every enabled
// endpoint that chose the event gets a message (one row each, its body fixed now) and a job on the
// queue that delivers it. Nothing is sent from the request or job that caused the event.
import { env } from "cloudflare:workers";
import { and, eq, lte, sql } from "drizzle-orm";
import { TEST_EVENT, type WebhookEvent } from "~/lib/webhooks";
import type { Db } from "../platform/db/client.server";
import { webhookEndpoints, webhookMessages } from "../platform/db/schema.server";
import type { JobQueue } from "../platform/job-registry.server";
import { newId } from "./signing.server";

/** The body every delivery carries, as Standard Webhooks describes it. */
export function eventBody(type: string, data: unknown, now: number): string {
  return JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
}

/**
 * The Worker's own job queue. Events come from many domains whose functions take only the
 * database; reading the binding here spares each of them a queue it has no other use for.
 */
const jobQueue = (): JobQueue<"webhook-delivery"> => (env as Env).JOB_QUEUE;

/** Puts a job on the queue for each message; one the queue could not take is sent by the cron's sweep. */
export async function queueDeliveries(messageIds: string[], queue: JobQueue<"webhook-delivery"> = jobQueue()): Promise<void> {
  if (messageIds.length === 0) return;
  try {
    await queue.sendBatch(messageIds.map((messageId) => ({ body: { kind: "webhook-delivery" as const, messageId } })));
  } catch (error) {
    console.error("Could not queue webhook deliveries (the cron sends them):", error);
  }
}

/** The enabled endpoints that chose `type`. */
const subscribers = (db: Db, type: WebhookEvent, happenedAt?: number) =>
  db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.state, "enabled"),
        sql`exists (select 1 from json_each(${webhookEndpoints.events}) where json_each.value = ${type})`,
        // A sweep's event goes to the endpoints that existed when it happened, not to one made since.
        happenedAt === undefined ? undefined : lte(webhookEndpoints.createdAt, happenedAt),
      ),
    );

/** Whether any endpoint would receive `type`: a sweep that looks for events asks first. */
export const hasSubscribers = async (db: Db, type: WebhookEvent) => (await subscribers(db, type)).length > 0;

/**
 * `type` happened: a message for each enabled endpoint that chose it. `key` names what the event
 * is about (an order's payment, a dispute's opening), so a step that runs twice (the queue
 * delivers jobs at least once) still sends one event; without it every call is a new event.
 */
export async function emitWebhookEvent(
  deps: { db: Db },
  type: WebhookEvent,
  data: unknown,
  options: { key?: string; now?: number; happenedAt?: number } = {},
): Promise<void> {
  const { db } = deps;
  const now = options.now ?? Date.now();
  const endpoints = await subscribers(db, type, options.happenedAt);
  if (endpoints.length === 0) return;
  const key = options.key ?? `${type}:${crypto.randomUUID()}`;
  const body = eventBody(type, data, now);
  const created = await db
    .insert(webhookMessages)
    .values(
      endpoints.map((endpoint) => ({
        id: newId("msg"),
        endpointId: endpoint.id,
        eventType: type,
        eventKey: key,
        body,
        createdAt: now,
        nextAttemptAt: now,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: webhookMessages.id });
  await queueDeliveries(created.map((message) => message.id));
}

/** A test event to one endpoint, whatever it chose: what the Send test event button sends. */
export async function emitTestEvent(db: Db, endpointId: string, now = Date.now()): Promise<string> {
  const id = newId("msg");
  const body = eventBody(TEST_EVENT, { endpointId, message: "A test event from the shop's Webhooks page." }, now);
  await db
    .insert(webhookMessages)
    .values({ id, endpointId, eventType: TEST_EVENT, eventKey: `${TEST_EVENT}:${id}`, body, createdAt: now, nextAttemptAt: now });
  await queueDeliveries([id]);
  return id;
}
