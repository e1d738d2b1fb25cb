// Sign-in throttling. Attempts are counted per account, per account-and-client, per client, and
// (for second-factor codes) per account on their own. Against one account the password check
// only slows down (never longer than a minute between tries), so nobody can lock a member out by
// guessing from elsewhere; from one client it stops entirely for a while. Counters forget after
// an hour without attempts. Sign-ups and password resets are counted the same way, under their own
// policies.
//
// Every attempt is counted *before* it is checked, in one statement that refuses it while the key
// is blocked: parallel requests cannot all pass a check that only looked at the old count.
import { and, eq, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import { counted } from "~/lib/format";
import { fail } from "~/lib/result";
import type { Db } from "../platform/db/client.server";
import { authThrottle } from "../platform/db/schema.server";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DECAY_MS = 60 * MINUTE;

interface Policy {
  /** Lockout after the n-th counted attempt (index n-1); the last entry repeats. Never decreasing. */
  lockouts: number[];
}

export const THROTTLE_POLICIES = {
  account: { lockouts: [0, 0, 0, 2 * SECOND, 5 * SECOND, 15 * SECOND, 30 * SECOND, MINUTE] },
  accountFromClient: { lockouts: [0, 0, 0, 0, 15 * MINUTE] },
  client: { lockouts: [...Array<number>(19).fill(0), 15 * MINUTE] },
  // Codes from the authenticator app, per account. A correct password does not reset this count,
  // so someone who knows the password cannot keep starting new challenges to guess on.
  secondFactor: { lockouts: [0, 0, 0, 0, 0, 30 * SECOND, MINUTE, 5 * MINUTE, 15 * MINUTE] },
  // Every sign-up attempt counts: 20 an hour from one client.
  signupFromClient: { lockouts: [...Array<number>(19).fill(0), 60 * MINUTE] },
  // Asking for password reset links: ten an hour from one client, whatever names it asks about.
  resetRequestFromClient: { lockouts: [...Array<number>(9).fill(0), 60 * MINUTE] },
  // Per name asked about (an e-mail address or username, known or not, so the limit says nothing
  // about whether it exists): three, then a growing wait capped at 15 minutes. It keeps anyone
  // from filling a member's inbox, and never stops the owner for longer than that.
  resetRequestForName: { lockouts: [0, 0, MINUTE, 5 * MINUTE, 15 * MINUTE] },
  // Using reset links: ten tries from one client, then 15 minutes.
  resetLinkFromClient: { lockouts: [...Array<number>(9).fill(0), 15 * MINUTE] },
  // Per account, three password resets, then a growing wait capped at 15 minutes.
  resetForAccount: { lockouts: [0, 0, MINUTE, 5 * MINUTE, 15 * MINUTE] },
  // Passkey sign-ins started without an account (each stores a challenge): 30 from one client
  // before it waits a quarter of an hour. Finishing one is a sign-in attempt like any other.
  passkeyCeremonyFromClient: { lockouts: [...Array<number>(29).fill(0), 15 * MINUTE] },
  // Writing, editing and deleting product reviews: twenty an hour per account, then an hour's wait.
  reviewWritesForAccount: { lockouts: [...Array<number>(19).fill(0), 60 * MINUTE] },
} satisfies Record<string, Policy>;

export type ThrottlePolicy = keyof typeof THROTTLE_POLICIES;
export type ThrottleKey = { policy: ThrottlePolicy; key: string };

export function throttleKeys(clientIp: string, accountId?: string): ThrottleKey[] {
  const keys: ThrottleKey[] = [{ policy: "client", key: `client:${clientIp}` }];
  if (accountId) {
    keys.push({ policy: "account", key: `account:${accountId}` });
    keys.push({ policy: "accountFromClient", key: `account:${accountId}:client:${clientIp}` });
  }
  return keys;
}

export function secondFactorKeys(clientIp: string, accountId: string): ThrottleKey[] {
  return [
    { policy: "client", key: `client:${clientIp}` },
    { policy: "secondFactor", key: `totp:${accountId}` },
  ];
}

/** Milliseconds until any of `keys` may try again, or 0 when none is blocked. */
async function retryAfterMs(db: Db, keys: ThrottleKey[], now: number): Promise<number> {
  const rows = await db
    .select({ blockedUntil: authThrottle.blockedUntil })
    .from(authThrottle)
    .where(
      inArray(
        authThrottle.key,
        keys.map((k) => k.key),
      ),
    );
  return Math.max(0, ...rows.map((r) => r.blockedUntil - now));
}

/**
 * The lockout (in ms) a policy imposes once `attempts` have been counted, as SQL. The numbers are
 * our own constants, written inline so the statement stays far below D1's bound-parameter limit.
 */
function lockoutAfter(policy: ThrottlePolicy, attempts: SQL): SQL {
  const { lockouts } = THROTTLE_POLICIES[policy];
  const cases = lockouts
    .slice(0, -1)
    .map((ms, i) => ` when ${i + 1} then ${ms}`)
    .join("");
  return sql`(case ${attempts} when 0 then 0${sql.raw(cases)} else ${sql.raw(String(lockouts.at(-1)!))} end)`;
}

interface Counted {
  key: string;
  /** The key's block as this attempt left it. */
  blockedUntil: number;
}

export type Reservation = { ok: true; counted: Counted[]; keys: ThrottleKey[] } | { ok: false; waitMs: number };

/**
 * Counts an attempt against every key before it is checked. When a key refuses (it is blocked),
 * the counts already taken are given back and the attempt does not go ahead.
 */
export async function reserveAttempt(db: Db, keys: ThrottleKey[], now = Date.now()): Promise<Reservation> {
  const counted: Counted[] = [];
  for (const { policy, key } of keys) {
    const attempts = sql`(case when ${authThrottle.lastFailureAt} < ${now - DECAY_MS} then 1 else ${authThrottle.failures} + 1 end)`;
    const lockout = lockoutAfter(policy, attempts);
    const first = THROTTLE_POLICIES[policy].lockouts[0]!;
    const row = await db
      .insert(authThrottle)
      .values({ key, failures: 1, lastFailureAt: now, blockedUntil: first > 0 ? now + first : 0 })
      .onConflictDoUpdate({
        target: authThrottle.key,
        set: {
          failures: attempts,
          lastFailureAt: now,
          blockedUntil: sql`(case when ${lockout} > 0 then max(${authThrottle.blockedUntil}, ${now} + ${lockout}) else ${authThrottle.blockedUntil} end)`,
        },
        setWhere: sql`${authThrottle.blockedUntil} <= ${now}`,
      })
      .returning({ blockedUntil: authThrottle.blockedUntil })
      .get();
    if (!row) {
      await giveBack(db, counted, now);
      return { ok: false, waitMs: Math.max(1, await retryAfterMs(db, keys, now)) };
    }
    counted.push({ key, blockedUntil: row.blockedUntil });
  }
  return { ok: true, counted, keys };
}

/**
 * Takes back counted attempts. A block one of them set is lifted (the attempt was let in, so the
 * key was not blocked before it); a block that a later attempt set stays.
 */
async function giveBack(db: Db, counted: Counted[], now: number): Promise<void> {
  for (const { key, blockedUntil } of counted) {
    await db
      .update(authThrottle)
      .set({
        failures: sql`max(${authThrottle.failures} - 1, 0)`,
        blockedUntil: sql`(case when ${authThrottle.blockedUntil} = ${blockedUntil} and ${blockedUntil} > ${now} then 0 else ${authThrottle.blockedUntil} end)`,
      })
      .where(eq(authThrottle.key, key));
  }
}

/**
 * A successful attempt: per-account counters start over, and the attempt no longer counts
 * against the client (so a shared address is not blocked by its members' sign-ins).
 */
export async function attemptSucceeded(db: Db, reservation: Extract<Reservation, { ok: true }>, now = Date.now()): Promise<void> {
  const perAccount = reservation.keys.filter((k) => k.policy !== "client").map((k) => k.key);
  if (perAccount.length > 0) await db.delete(authThrottle).where(inArray(authThrottle.key, perAccount));
  await giveBack(
    db,
    reservation.counted.filter((c) => !perAccount.includes(c.key)),
    now,
  );
}

function describeWait(ms: number): string {
  const seconds = Math.ceil(ms / SECOND);
  if (seconds < 60) return `${counted(seconds, "second")}`;
  const minutes = Math.ceil(seconds / 60);
  return `${counted(minutes, "minute")}`;
}

/** The problem for an attempt refused by the throttle: what was refused, and when to try again. */
export function throttled(ms: number, what: string) {
  return fail("rate-limited", `Too many ${what}. Please wait ${describeWait(ms)} and try again.`, {
    retryAfterSeconds: Math.ceil(ms / SECOND),
  });
}

/**
 * Housekeeping for the cron trigger: counters idle for longer than they are remembered and no
 * longer blocking. The next attempt under such a key starts from one either way, so removing the
 * row changes no decision; without this, every address that ever failed once kept a row.
 */
export async function forgetIdleThrottles(db: Db, now = Date.now()): Promise<void> {
  await db.delete(authThrottle).where(and(lt(authThrottle.lastFailureAt, now - DECAY_MS), lte(authThrottle.blockedUntil, now)));
}
