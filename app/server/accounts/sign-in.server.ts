// Signing in with a password, by e-mail or username. A correct password opens a session or, when
// two-factor authentication is on, only the second step (login-challenge.server.ts).
import { fail, ok, type Result } from "~/lib/result";
import type { LoginInput } from "~/lib/schemas/auth";
import type { Db } from "../platform/db/client.server";
import { admit, openSession, type SignIn } from "./admission.server";
import { findByEmailOrUsername } from "./directory.server";
import { startChallenge } from "./login-challenge.server";
import { burnPasswordCheck, verifyPassword } from "./password.server";
import { attemptSucceeded, reserveAttempt, throttled, throttleKeys } from "./throttle.server";
import { hasTwoFactor } from "./two-factor.server";
import type { Caller } from "../platform/caller.server";

/**
 * Signs in an account that has proven who it is: its session, or the second step when two-factor
 * authentication is on. A banned account is refused before either starts.
 */
export async function signInAs(db: Db, userId: string, caller: Caller, now = Date.now()): Promise<Result<SignIn>> {
  if (await hasTwoFactor(db, userId)) {
    const admitted = await admit(db, userId, caller);
    if (!admitted.ok) return admitted;
    return ok({ token: await startChallenge(db, userId, now), secondFactor: true });
  }
  return openSession(db, userId, caller, now);
}

export async function logIn(db: Db, caller: Caller, input: LoginInput): Promise<Result<SignIn>> {
  const { emailOrUsername, password } = input;
  const byEmail = emailOrUsername.includes("@");
  // A registration that lapsed unverified is not found: it answers as an unknown account.
  const account = await findByEmailOrUsername(db, emailOrUsername);
  const reservation = await reserveAttempt(db, throttleKeys(caller.ip, account?.id));
  if (!reservation.ok) return throttled(reservation.waitMs, "failed sign-in attempts");

  // A missing account still pays for a full PBKDF2 run, so timing does not reveal it.
  const passwordOk = account?.passwordHash
    ? await verifyPassword(password, account.passwordHash)
    : (await burnPasswordCheck(password), false);
  if (!account || !passwordOk) {
    return fail("unauthenticated", !account && !byEmail ? "Username not found or invalid" : "Invalid credentials");
  }
  await attemptSucceeded(db, reservation);

  if (!account.verifiedAt) {
    return fail("forbidden", "Please verify your email before logging in. Check your inbox, or send a new link below.");
  }
  return signInAs(db, account.id, caller);
}
