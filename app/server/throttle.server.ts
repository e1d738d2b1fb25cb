// Sign-in throttling. Failures are counted per account, per account-and-client, and per client.
// Against one account the server only slows down (never longer than a minute between tries), so
// nobody can lock a member out by guessing from elsewhere; from one client it stops entirely
// for a while. Counters forget after an hour without failures.
import { eq, inArray, sql } from "drizzle-orm";
import type { Db } from "./db/client.server";
import { authThrottle } from "./db/schema";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DECAY_MS = 60 * MINUTE;

interface Policy {
  /** Lockout after the n-th consecutive failure (index n-1); the last entry repeats. */
  lockouts: number[];
}

export const THROTTLE_POLICIES = {
  account: { lockouts: [0, 0, 0, 2 * SECOND, 5 * SECOND, 15 * SECOND, 30 * SECOND, MINUTE] },
  accountFromClient: { lockouts: [0, 0, 0, 0, 15 * MINUTE] },
  client: { lockouts: [...Array<number>(19).fill(0), 15 * MINUTE] },
  // Sign-ups count as "failures" of their own key: 20 accounts an hour from one client.
  signupFromClient: { lockouts: [...Array<number>(19).fill(0), 60 * MINUTE] },
} satisfies Record<string, Policy>;

export type ThrottleKey = { policy: keyof typeof THROTTLE_POLICIES; key: string };

export function throttleKeys(clientIp: string, accountId?: string): ThrottleKey[] {
  const keys: ThrottleKey[] = [{ policy: "client", key: `client:${clientIp}` }];
  if (accountId) {
    keys.push({ policy: "account", key: `account:${accountId}` });
    keys.push({ policy: "accountFromClient", key: `account:${accountId}:client:${clientIp}` });
  }
  return keys;
}

/** Milliseconds until any of `keys` may try again, or 0 when none is blocked. */
export async function retryAfterMs(db: Db, keys: ThrottleKey[], now = Date.now()): Promise<number> {
  if (keys.length === 0) return 0;
  const rows = await db
    .select({ blockedUntil: authThrottle.blockedUntil })
    .from(authThrottle)
    .where(inArray(authThrottle.key, keys.map((k) => k.key)));
  return Math.max(0, ...rows.map((r) => r.blockedUntil - now));
}

export async function recordFailure(db: Db, keys: ThrottleKey[], now = Date.now()): Promise<void> {
  for (const { policy, key } of keys) {
    // The counter moves in one statement so parallel failures cannot undercount.
    const row = await db
      .insert(authThrottle)
      .values({ key, failures: 1, lastFailureAt: now, blockedUntil: 0 })
      .onConflictDoUpdate({
        target: authThrottle.key,
        set: {
          failures: sql`case when ${authThrottle.lastFailureAt} < ${now - DECAY_MS} then 1 else ${authThrottle.failures} + 1 end`,
          lastFailureAt: now,
        },
      })
      .returning({ failures: authThrottle.failures })
      .get();
    const { lockouts } = THROTTLE_POLICIES[policy];
    const lockout = lockouts[Math.min(row.failures, lockouts.length) - 1] ?? 0;
    if (lockout > 0) {
      await db
        .update(authThrottle)
        .set({ blockedUntil: sql`max(${authThrottle.blockedUntil}, ${now + lockout})` })
        .where(eq(authThrottle.key, key));
    }
  }
}

export async function clearFailures(db: Db, keys: ThrottleKey[]): Promise<void> {
  if (keys.length === 0) return;
  await db.delete(authThrottle).where(inArray(authThrottle.key, keys.map((k) => k.key)));
}

export function describeWait(ms: number): string {
  const seconds = Math.ceil(ms / SECOND);
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}
