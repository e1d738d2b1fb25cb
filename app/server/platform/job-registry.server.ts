// Every kind of background job, declared once: its payload's schema, from which producers and the
// consumer both take their types. A producer sends through `JobQueue<kind>` and can send nothing
// else; the consumer (app/server/jobs/job-consumer.server.ts) reads each message with `readJob`
// and dispatches on its kind. Jobs travel on one queue, bound as JOB_QUEUE, whose dead letters
// land on the back office's list of failed jobs (job-queue.server.ts keeps that list).
import * as v from "valibot";

/**
 * The largest Shopify body carried in a queue message, in bytes. A message may hold 128 KB once
 * serialised, and a string of characters beyond Latin-1 serialises at two bytes a character.
 * Order payloads are a few kilobytes; a larger body is recorded in D1 and the message names it.
 */
export const INLINE_BODY_BYTES = 60 * 1024;

/**
 * Orders per chain-check message: one address lookup each (more only for an address with over 25
 * confirmed payments) plus the tip height per coin: 42 at most, under the 50 subrequests of a Free
 * plan invocation when a message runs alone, as the 2 s spacing makes usual.
 */
export const CHECKS_PER_MESSAGE = 40;

/** Members one Discord reconcile message compares: one Discord request each, under the Free plan's 50 subrequests. */
export const MEMBERS_PER_RECONCILE = 40;

const id = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));
const ids = (max: number, count: number) => v.pipe(v.array(v.pipe(v.string(), v.maxLength(max))), v.minLength(1), v.maxLength(count));

const JOB_SCHEMAS = [
  // A Shopify delivery to apply: its signed body inline, or (too large, or sent again by the cron)
  // only its id, the body being read from the recorded delivery.
  v.object({
    kind: v.literal("shopify-delivery"),
    deliveryId: id(200),
    delivered: v.optional(
      v.object({
        topic: v.pipe(v.string(), v.maxLength(100)),
        receivedAt: v.number(),
        payload: v.pipe(v.string(), v.maxBytes(INLINE_BODY_BYTES * 3)),
      }),
    ),
  }),
  // A paid crypto order's key to hand out: the admin's typed-in code, or the next in stock.
  v.object({ kind: v.literal("crypto-order"), orderNumber: id(64), code: v.nullable(v.pipe(v.string(), v.maxLength(500))) }),
  // A group of open crypto orders to check against the chain.
  v.object({ kind: v.literal("chain-check"), orderNumbers: ids(64, CHECKS_PER_MESSAGE) }),
  // The e-mails to the owners of licences given time back.
  v.object({ kind: v.literal("compensation-mail"), compensationId: v.pipe(v.string(), v.uuid()) }),
  // One member's Discord roles made what their licences justify.
  v.object({ kind: v.literal("discord-sync"), userId: id(64) }),
  // A group of linked members compared with what Discord says they have.
  v.object({ kind: v.literal("discord-reconcile"), userIds: ids(64, MEMBERS_PER_RECONCILE) }),
  // A ping from the cron or the doctor: handling it shows the queue is consumed (decision 098).
  v.object({ kind: v.literal("health-ping"), sentAt: v.number() }),
] as const;

const jobSchema = v.variant("kind", JOB_SCHEMAS);

/** A job of any kind, as it travels on the queue. */
export type Job = v.InferOutput<typeof jobSchema>;
export type JobKind = Job["kind"];
/** The payload of one kind of job. */
export type JobOf<K extends JobKind> = { [P in JobKind]: Extract<Job, { kind: P }> }[K];

/** Where producers put jobs of the kinds `K`: the JOB_QUEUE binding, or anything that sends like it. */
export interface JobQueue<K extends JobKind = JobKind> {
  send(job: JobOf<K>, options?: QueueSendOptions): Promise<unknown>;
  sendBatch(messages: Iterable<MessageSendRequest<JobOf<K>>>, options?: QueueSendBatchOptions): Promise<unknown>;
}

/** A message's body as a job, or why it is none. */
export function readJob(body: unknown): { ok: true; job: Job } | { ok: false; problem: string } {
  const parsed = v.safeParse(jobSchema, body);
  return parsed.success ? { ok: true, job: parsed.output } : { ok: false, problem: `Not a job: ${v.summarize(parsed.issues)}` };
}
