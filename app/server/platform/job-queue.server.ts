// Background jobs on a Cloudflare Queue (decision 031). A producer sends a small message naming the
// work; the queue() handler runs it. A job that throws is retried with backoff and its error is
// kept in `failed_jobs`; once the queue gives up, the dead-letter consumer marks that row dead, and
// an admin can send the job again. Every job must be safe to run twice: the queue delivers at
// least once, and a batch that broke halfway is delivered again.
import { and, desc, eq, isNotNull } from "drizzle-orm";
import type { Db } from "./db/client.server";
import { failedJobs } from "./db/schema.server";
import type { Job, JobQueue } from "./job-registry.server";

/** The retry after a failed attempt waits 10 s, then 30 s, 90 s, 270 s, 810 s (`attempts` from 1). */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(10 * 3 ** (Math.max(attempts, 1) - 1), 3600);
}

/**
 * What went wrong, in words an admin can act on: the innermost cause's message (a failed query's
 * own message is mostly its SQL).
 */
export function errorText(error: unknown): string {
  let inner = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  return (inner instanceof Error ? inner.message : String(inner)).slice(0, 500);
}

const kindOf = (body: unknown) =>
  typeof body === "object" && body !== null && "kind" in body ? String(body.kind).slice(0, 50) : "unknown";

/** Notes a failed attempt of the job `id` (its message `body`), keeping the latest error. */
export async function noteFailedAttempt(
  db: Db,
  id: string,
  body: unknown,
  attempts: number,
  error: unknown,
  now = Date.now(),
): Promise<void> {
  const lastError = errorText(error);
  await db
    .insert(failedJobs)
    .values({ id, kind: kindOf(body), body: JSON.stringify(body), attempts, lastError, failedAt: now })
    .onConflictDoUpdate({ target: failedJobs.id, set: { body: JSON.stringify(body), attempts, lastError, failedAt: now, deadAt: null } });
}

/** The queue gave up on the job `id`: it shows on the admin's list until it is sent again. */
export async function markJobDead(db: Db, id: string, body: unknown, attempts: number, now = Date.now()): Promise<void> {
  await db
    .insert(failedJobs)
    // A job that died without a recorded error (the handler itself broke) still shows, saying so.
    .values({
      id,
      kind: kindOf(body),
      body: JSON.stringify(body),
      attempts,
      lastError: "The job failed without reporting an error",
      failedAt: now,
      deadAt: now,
    })
    .onConflictDoUpdate({ target: failedJobs.id, set: { deadAt: now } });
}

/** The job `id` succeeded: whatever it failed before is forgotten. */
export async function forgetFailures(db: Db, id: string): Promise<void> {
  await db.delete(failedJobs).where(eq(failedJobs.id, id));
}

/** Jobs the queue gave up on, newest first, for the admin. */
export function deadJobs(db: Db, limit = 50) {
  return db
    .select({
      id: failedJobs.id,
      kind: failedJobs.kind,
      attempts: failedJobs.attempts,
      lastError: failedJobs.lastError,
      deadAt: failedJobs.deadAt,
    })
    .from(failedJobs)
    .where(isNotNull(failedJobs.deadAt))
    .orderBy(desc(failedJobs.deadAt))
    .limit(limit);
}

/**
 * Sends a dead job again, exactly as it was last sent, then takes it off the list (should it fail
 * again, its failures are noted afresh). Returns the
 * job's kind, or null when no dead job has that id (already retried, or never failed). Two admins
 * pressing "Retry" at once may both send it: a job is safe to run twice.
 */
export async function resendDeadJob(db: Db, queue: JobQueue, id: string): Promise<string | null> {
  const dead = await db
    .select({ kind: failedJobs.kind, body: failedJobs.body })
    .from(failedJobs)
    .where(and(eq(failedJobs.id, id), isNotNull(failedJobs.deadAt)))
    .get();
  if (!dead) return null;
  // Sent first: if sending fails, the job stays on the list.
  await queue.send(JSON.parse(dead.body) as Job);
  await forgetFailures(db, id);
  return dead.kind;
}
