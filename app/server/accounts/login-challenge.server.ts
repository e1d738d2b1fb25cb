// The second step of signing in with two-factor authentication. After the password, the browser
// gets a five-minute challenge cookie instead of a session; the session starts only once a code
// from the authenticator app (or a recovery code, or one of the account's passkeys) checks out.
// Five failed attempts end the challenge.
import { eq, sql } from "drizzle-orm";
import { counted } from "~/lib/format";
import { fail, ok, type Result } from "~/lib/result";
import { randomToken, sha256Hex, tokenHash } from "../platform/tokens.server";
import type { Db } from "../platform/db/client.server";
import { loginChallenges, users } from "../platform/db/schema.server";
import { openSession, type SignIn } from "./admission.server";
import { attemptSucceeded, reserveAttempt, secondFactorKeys, throttled } from "./throttle.server";
import { verifySecondFactor } from "./two-factor.server";
import { type Caller, keepToken, type TokenChange } from "../platform/caller.server";

export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const MAX_CHALLENGE_ATTEMPTS = 5;

/** Starts the second step for `userId`: the challenge token the browser keeps meanwhile. */
export async function startChallenge(db: Db, userId: string, now = Date.now()): Promise<TokenChange> {
  const token = randomToken();
  await db.delete(loginChallenges).where(eq(loginChallenges.userId, userId));
  await db.insert(loginChallenges).values({ id: await sha256Hex(token), userId, expiresAt: now + CHALLENGE_TTL_MS });
  return keepToken("challenge", token, CHALLENGE_TTL_MS / 1000);
}

async function challengeFrom(db: Db, caller: Caller, now: number) {
  const id = await tokenHash(caller.tokens.challenge ?? null);
  if (!id) return null;
  const row = await db.select().from(loginChallenges).where(eq(loginChallenges.id, id)).get();
  if (!row || row.expiresAt <= now || row.attempts >= MAX_CHALLENGE_ATTEMPTS) return null;
  return row;
}

/** The account whose sign-in this browser's open challenge is waiting to finish, or null. */
export async function challengedAccount(db: Db, caller: Caller, now = Date.now()): Promise<string | null> {
  return (await challengeFrom(db, caller, now))?.userId ?? null;
}

/**
 * Passes the browser's challenge with whatever second factor `check` proves for the account (a
 * code, a passkey) and opens the session. A failed check is its problem with the attempts left; a
 * challenge that is gone (expired, used up, never started) is `unauthenticated` with no field,
 * and the browser has to sign in again.
 */
export async function completeChallengeWith(
  db: Db,
  caller: Caller,
  check: (userId: string) => Promise<Result>,
  now = Date.now(),
): Promise<Result<SignIn>> {
  const challenge = await challengeFrom(db, caller, now);
  const restart = fail("unauthenticated", "Your sign-in timed out or had too many wrong codes. Please log in again.");
  if (!challenge) return restart;
  // Codes are also limited per account across challenges: a new password sign-in starts a new
  // challenge but not a new allowance.
  const reservation = await reserveAttempt(db, secondFactorKeys(caller.ip, challenge.userId), now);
  if (!reservation.ok) return throttled(reservation.waitMs, "wrong codes");
  // Count the attempt before checking, so parallel guesses cannot exceed the limit.
  const [attempt] = await db
    .update(loginChallenges)
    .set({ attempts: sql`${loginChallenges.attempts} + 1` })
    .where(eq(loginChallenges.id, challenge.id))
    .returning({ attempts: loginChallenges.attempts });
  if (!attempt || attempt.attempts > MAX_CHALLENGE_ATTEMPTS) return restart;
  const checked = await check(challenge.userId);
  if (!checked.ok) {
    const left = MAX_CHALLENGE_ATTEMPTS - attempt.attempts;
    if (left <= 0) {
      await db.delete(loginChallenges).where(eq(loginChallenges.id, challenge.id));
      return restart;
    }
    const { message, field } = checked.problem;
    return fail("unauthenticated", `${message} ${counted(left, "attempt")} left.`, { field });
  }
  await db.delete(loginChallenges).where(eq(loginChallenges.id, challenge.id));
  await attemptSucceeded(db, reservation, now);
  // An account banned while its sign-in waited for the second factor gets no session.
  return openSession(db, challenge.userId, caller, now);
}

/** Passes the challenge with a code from the authenticator app or a recovery code (field `code`). */
export async function completeChallenge(db: Db, key: string, caller: Caller, code: string, now = Date.now()): Promise<Result<SignIn>> {
  return completeChallengeWith(
    db,
    caller,
    async (userId) => {
      const user = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).get();
      const right = user !== undefined && (await verifySecondFactor(db, key, userId, user.email, code, now));
      return right ? ok() : fail("unauthenticated", "That code did not work.", { field: "code" });
    },
    now,
  );
}
