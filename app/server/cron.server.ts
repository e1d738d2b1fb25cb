// Jobs the cron triggers run (see [triggers] in wrangler.toml).
import { database } from "./db/client.server";
import { retryDueMail } from "./mail.server";
import { deleteExpiredSessions } from "./session.server";

export async function runScheduledJobs(env: Env, now = Date.now()): Promise<void> {
  const db = database(env.DB);
  await retryDueMail(db, env, now);
  await deleteExpiredSessions(db, now);
}
