// Jobs the cron triggers run (see [triggers] in wrangler.toml). Each is idempotent, so running
// them more often than scheduled does no harm.
import { queueChainChecks } from "../crypto/crypto-watch.server";
import { database } from "../platform/db/client.server";
import { beat, pingQueue } from "../platform/heartbeats.server";
import { forgetSentClosingMail, retryDueMail } from "../platform/mail.server";
import { forgetOldAuditEntries } from "../platform/audit.server";
import { deleteExpiredResetLinks } from "../accounts/password-reset.server";
import { deleteExpiredRegistrations } from "../accounts/registration.server";
import { deleteExpiredCeremonies } from "../accounts/passkey-ceremonies.server";
import { deleteExpiredSessions } from "../accounts/session.server";
import { forgetIdleThrottles } from "../accounts/throttle.server";
import { expireSubscriptions } from "../licences/subscriptions.server";
import { requeueStuckDeliveries } from "../orders/shopify-webhook.server";
import { sessionDepsFor } from "../chat/chat-gateway.server";
import { checkGuildHealth, queueReconcile } from "../discord/reconcile.server";
import { discordSetup } from "../discord/role-setup.server";

export async function runScheduledJobs(env: Env, now = Date.now()): Promise<void> {
  const db = database(env.DB);
  // Alive: the cron ran, and the queue is asked to show it is consumed (decision 098).
  await beat(db, "cron", now);
  await pingQueue(db, env.JOB_QUEUE, now);
  await retryDueMail(db, env, now);
  // What the Privacy Policy promises about keeping: a deleted account's last e-mail goes once sent,
  // the audit log keeps a year.
  await forgetSentClosingMail(db);
  await forgetOldAuditEntries(db, now);
  await deleteExpiredSessions(sessionDepsFor(env, db), now);
  await deleteExpiredRegistrations(db, now);
  await deleteExpiredResetLinks(db, now);
  await deleteExpiredCeremonies(db, now);
  await forgetIdleThrottles(db, now);
  await expireSubscriptions(db, now);
  await requeueStuckDeliveries({ db, queue: env.JOB_QUEUE }, now);
  await queueChainChecks({ db, queue: env.JOB_QUEUE }, now);
  // Discord roles: the reconcile sweep, and the health check that runs with it (decision 064).
  await queueReconcile({ db, queue: env.JOB_QUEUE }, now);
  await checkGuildHealth({ db, setup: discordSetup(env, db, crypto.randomUUID()) }, now);
}
