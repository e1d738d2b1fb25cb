// Jobs the cron triggers run (see [triggers] in wrangler.toml). Each is idempotent, so running
// them more often than scheduled does no harm.
import { expireUnpaidCryptoOrders } from "./crypto-orders.server";
import { database } from "./db/client.server";
import { retryDueMail } from "./mail.server";
import { deleteExpiredSessions } from "./session.server";
import { expireSubscriptions } from "./subscriptions.server";

export async function runScheduledJobs(env: Env, now = Date.now()): Promise<void> {
  const db = database(env.DB);
  await retryDueMail(db, env, now);
  await deleteExpiredSessions(db, now);
  await expireUnpaidCryptoOrders(db, now);
  await expireSubscriptions(db, now);
}
