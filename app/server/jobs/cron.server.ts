// Jobs the cron triggers run (see [triggers] in wrangler.toml). Each is idempotent, so running
// them more often than scheduled does no harm.
import { queueChainChecks } from "../crypto/crypto-watch.server";
import { database } from "../platform/db/client.server";
import { beat, pingQueue } from "../platform/heartbeats.server";
import { forgetOldAuditEntries } from "../platform/audit.server";
import { forgetSentClosingMail, type MailingDeps, retryDueMail } from "../platform/mail.server";
import { catalogueFor } from "../catalogue/catalogue.server";
import { runAutoRenewals } from "../renewals/balance-renewals.server";
import { reminderDays, reminderLinks, sendRenewalReminders } from "../renewals/reminders.server";
import { deleteExpiredResetLinks } from "../accounts/password-reset.server";
import { deleteExpiredRegistrations } from "../accounts/registration.server";
import { deleteExpiredCeremonies } from "../accounts/passkey-ceremonies.server";
import { deleteExpiredSessions } from "../accounts/session.server";
import { forgetIdleThrottles } from "../accounts/throttle.server";
import { forgetOldIdempotencyKeys } from "../seller/idempotency.server";
import { expireSubscriptions } from "../licences/subscriptions.server";
import { announceExpiredLicences, announceStoppedLicences } from "../licences/licence-events.server";
import { announceReleasedCommissions } from "../affiliates/ledger.server";
import { requeueStuckDeliveries } from "../orders/shopify-webhook.server";
import { sessionDepsFor } from "../chat/chat-gateway.server";
import { checkGuildHealth, queueReconcile } from "../discord/reconcile.server";
import { discordSetup } from "../discord/role-setup.server";
import { queueOverdueDeliveries } from "../webhooks/delivery.server";

export async function runScheduledJobs(env: Env, now = Date.now()): Promise<void> {
  const db = database(env.DB);
  // Alive: the cron ran, and the queue is asked to show it is consumed (decision 098).
  await beat(db, "cron", now);
  await pingQueue(db, env.JOB_QUEUE, now);
  // Mail the renewal jobs write is delivered before the run ends (the rest waits in the outbox).
  const deliveries: Promise<unknown>[] = [];
  const mailing: MailingDeps = { db, mail: env, waitUntil: (delivery) => deliveries.push(delivery) };
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
  await forgetOldIdempotencyKeys(db, now);
  // Auto-renewal first: a licence it renews is not reminded (decision 091). Each acts once (claimed
  // in D1), so a failure here (the catalogue unreachable) only waits for the next run, and the
  // other jobs still run.
  await runAutoRenewals(mailing, catalogueFor(env), now).catch((error: unknown) => console.error("Auto-renewals failed:", error));
  await sendRenewalReminders(mailing, await reminderLinks(env), reminderDays(env.RENEWAL_REMINDER_DAYS), now).catch((error: unknown) =>
    console.error("Renewal reminders failed:", error),
  );
  await expireSubscriptions(db, now);
  // The shop notices a licence's end here: its webhook event goes out from the same sweep.
  await announceExpiredLicences(db, now);
  // Every other way a licence stops is heard here too, whatever path stopped it.
  await announceStoppedLicences(db, now);
  await announceReleasedCommissions(db, now);
  await requeueStuckDeliveries({ db, queue: env.JOB_QUEUE }, now);
  await queueChainChecks({ db, queue: env.JOB_QUEUE }, now);
  // Webhook deliveries whose job was lost (or never queued) go on the queue again.
  await queueOverdueDeliveries(db, env.JOB_QUEUE, now);
  // Discord roles: the reconcile sweep, and the health check that runs with it (decision 064).
  await queueReconcile({ db, queue: env.JOB_QUEUE }, now);
  await checkGuildHealth({ db, setup: discordSetup(env, db, crypto.randomUUID()) }, now);
  await Promise.allSettled(deliveries);
}
