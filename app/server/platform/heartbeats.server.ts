// The Worker's heartbeats (decision 098): the cron notes each run and puts a ping on the job queue,
// whose consumer notes it handled it. A cron that stopped, or a queue nobody consumes, shows as a
// heartbeat that grew old, on the Health page and in the doctor's report.
import { sql } from "drizzle-orm";
import type { Db } from "./db/client.server";
import { workerHeartbeats } from "./db/schema.server";
import type { JobQueue } from "./job-registry.server";

export type Heartbeat = "cron" | "queue-ping-sent" | "queue";

export async function beat(db: Db, name: Heartbeat, at = Date.now()): Promise<void> {
  await db
    .insert(workerHeartbeats)
    .values({ name, at })
    .onConflictDoUpdate({ target: workerHeartbeats.name, set: { at: sql`max(${workerHeartbeats.at}, excluded.at)` } });
}

export async function heartbeats(db: Db): Promise<Partial<Record<Heartbeat, number>>> {
  const rows = await db.select().from(workerHeartbeats);
  return Object.fromEntries(rows.map((row) => [row.name, row.at]));
}

/** Puts a ping on the job queue and notes when: the queue is alive when its consumer has handled one sent since. */
export async function pingQueue(db: Db, queue: JobQueue<"health-ping">, now = Date.now()): Promise<void> {
  await queue.send({ kind: "health-ping", sentAt: now });
  await beat(db, "queue-ping-sent", now);
}
