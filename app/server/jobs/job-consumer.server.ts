// The job queue's consumer: every kind of background job declared in the job registry
// (app/server/platform/job-registry.server.ts) runs here. Keys for paid orders go out, whether the
// order came by Shopify webhook (the demo checkout's too) or is a paid crypto order; the cron's
// chain checks of open crypto orders run here, spread over messages; so do the e-mails to owners
// of licences given time back, the Discord role syncs and the health pings that show the queue is alive. (Restocking fills the units waiting for
// new codes within the admin's own request.) Messages of a batch run one after another; each is
// acknowledged on its own once its work is done, or retried with backoff, so a failure never holds
// up or repeats the others. After the last retry the queue moves a message to the dead-letter
// queue, whose consumer puts it on the admin's list of failed jobs.
import { fail, ok, type Result } from "~/lib/result";
import { processDelivery } from "../orders/shopify-consumer.server";
import { mailCompensation } from "../licences/compensation.server";
import { settleCryptoOrder } from "../crypto/crypto-settlement.server";
import { cryptoSetup } from "../crypto/crypto-setup.server";
import { runChainChecks } from "../crypto/crypto-watch.server";
import { database } from "../platform/db/client.server";
import { forgetFailures, markJobDead, noteFailedAttempt, resendDeadJob, retryDelaySeconds } from "../platform/job-queue.server";
import { CHECKS_PER_MESSAGE, type Job, type JobQueue, readJob } from "../platform/job-registry.server";
import type { MailingDeps } from "../platform/mail.server";
import type { Db } from "../platform/db/client.server";
import { audit } from "../platform/audit.server";
import { beat } from "../platform/heartbeats.server";
import { runReconcile } from "../discord/reconcile.server";
import { discordSetup, managedRoles, type RoleSettings, roleSettings } from "../discord/role-setup.server";
import { queueSyncForOrder, type RoleSyncDeps, syncMemberRoles } from "../discord/role-sync.server";

/** The dead-letter queue's name (wrangler.toml): its batches are jobs the queue gave up on. */
export const DEAD_LETTERS = "keyshop-jobs-failed";

/**
 * The message as a job, and the job's key: one row per job in `failed_jobs`, shared by copies of
 * its message. A message that is no job says why.
 */
function jobOf(message: Message<unknown>): { key: string; job: Job } | { key: string; problem: string } {
  const read = readJob(message.body);
  return read.ok ? { key: jobKey(read.job), job: read.job } : { key: `message:${message.id}`, problem: read.problem };
}

function jobKey(job: Job): string {
  switch (job.kind) {
    case "shopify-delivery":
      return `shopify:${job.deliveryId}`;
    case "crypto-order":
      return `crypto:${job.orderNumber}`;
    case "chain-check":
      return `chain:${job.orderNumbers[0]}`;
    case "compensation-mail":
      return `compensation:${job.compensationId}`;
    case "discord-sync":
      return `discord:${job.userId}`;
    case "discord-reconcile":
      return `discord-reconcile:${job.userIds[0]}`;
    case "health-ping":
      return `health-ping:${job.sentAt}`;
  }
}

async function run(env: Env, deps: MailingDeps, discord: RoleSyncDeps & { enabled: () => Promise<boolean> }, job: Job): Promise<void> {
  switch (job.kind) {
    case "shopify-delivery": {
      const { orderId } = await processDelivery(deps, job);
      // A purchase, refund or cancellation changes the roles of the order's linked owners now.
      return (await discord.enabled()) ? queueSyncForOrder(discord, orderId) : undefined;
    }
    case "crypto-order":
      await settleCryptoOrder(deps, job);
      return (await discord.enabled()) ? queueSyncForOrder(discord, job.orderNumber) : undefined;
    case "chain-check":
      return runChainChecks({ db: deps.db, setup: cryptoSetup(env, deps.db), queue: env.JOB_QUEUE }, job.orderNumbers);
    case "compensation-mail":
      return mailCompensation(deps, job.compensationId);
    case "discord-sync":
      return syncMemberRoles(discord, job.userId);
    case "discord-reconcile":
      return runReconcile(discord, job.userIds);
    case "health-ping":
      return beat(deps.db, "queue");
  }
}

/**
 * Workers allow 50 subrequests per invocation on the Free plan. The most requests to outside
 * services a job may make: a chain check reads its addresses and two tip heights, a reconcile one
 * member each, a role sync the member and each role the rules hand out (`managedRoles`, at most
 * MAX_MANAGED_ROLES), which it may add or remove.
 */
export const SUBREQUESTS_PER_INVOCATION = 50;
function subrequestsOf(job: Job, managedRoles: number): number {
  switch (job.kind) {
    case "chain-check":
      return CHECKS_PER_MESSAGE + 2;
    case "discord-reconcile":
      return job.userIds.length;
    case "discord-sync":
      return 1 + managedRoles;
    default:
      return 0;
  }
}

/** How long a job put back for a later invocation waits before it runs. */
const PUT_BACK_SECONDS = 2;

/** queue() for the job queue. */
export async function runJobBatch(env: Env, batch: MessageBatch<unknown>, waitUntil: (promise: Promise<unknown>) => void): Promise<void> {
  const db = database(env.DB);
  const deps: MailingDeps = { db, mail: env, waitUntil };
  // The Discord role settings, read once per batch and only when a job needs them.
  let settings: Promise<RoleSettings> | undefined;
  const discordSettings = () => (settings ??= roleSettings(db));
  const discord = {
    db,
    // One id per invocation on every Discord request, for an egress proxy to count them by.
    setup: discordSetup(env, db, crypto.randomUUID()),
    queue: env.JOB_QUEUE,
    pause: { until: 0 },
    enabled: () => discordSettings().then(({ guildId, rules }) => Boolean(guildId && rules.length > 0)),
  };
  let subrequestsLeft = SUBREQUESTS_PER_INVOCATION;
  for (const message of batch.messages) {
    const read = jobOf(message);
    const { key } = read;
    try {
      if ("problem" in read) throw new Error(read.problem);
      // A job that could take the invocation past its subrequests (a backlog bringing several
      // chain checks or reconciles into one batch) is sent back, as a new message, for a later batch.
      const subrequests = subrequestsOf(
        read.job,
        read.job.kind === "discord-sync" ? managedRoles((await discordSettings()).rules).length : 0,
      );
      if (subrequests > subrequestsLeft) {
        await env.JOB_QUEUE.send(read.job, { delaySeconds: PUT_BACK_SECONDS });
      } else {
        subrequestsLeft -= subrequests;
        await run(env, deps, discord, read.job);
      }
      // Only a job that failed before has a row to forget (one an admin sent again has none).
      if (message.attempts > 1) await forgetFailures(db, key);
      message.ack();
    } catch (error) {
      console.error(`Job ${key} failed (attempt ${message.attempts}):`, error);
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
      await noteFailedAttempt(db, key, message.body, message.attempts, error).catch((noteError: unknown) => {
        console.error(`Could not record the failure of ${key}:`, noteError);
      });
    }
  }
}

/** queue() for the dead-letter queue: each message is a job the queue gave up on. */
export async function recordDeadJobs(env: Env, batch: MessageBatch<unknown>): Promise<void> {
  const db = database(env.DB);
  for (const message of batch.messages) {
    try {
      await markJobDead(db, jobOf(message).key, message.body, message.attempts);
      message.ack();
    } catch (error) {
      console.error(`Could not record dead job ${message.id}:`, error);
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}

/** Admin: sends a job the queue gave up on through the job queue again. */
export async function retryDeadJob(deps: { db: Db; queue: JobQueue }, adminId: string, id: string): Promise<Result> {
  let kind: string | null;
  try {
    kind = await resendDeadJob(deps.db, deps.queue, id);
  } catch (error) {
    console.error(`Could not send job ${id} again:`, error);
    return fail("unavailable", "The job queue is not available right now; the job stays on the list");
  }
  if (kind === null) return fail("not-found", "This job is not waiting for a retry: it may have been retried already");
  await audit(deps.db, adminId, "job.retry", id, { kind });
  return ok();
}
