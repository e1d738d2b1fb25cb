// Signing in with a password, by e-mail or username. A correct password opens a session or, when
// two-factor authentication is on, only the second step (login-challenge.server.ts).
import { fail, ok, type Result } from "~/lib/result";
import type { LoginInput } from "~/lib/schemas/auth";
import type { Db } from "../platform/db/client.server";
import { findByEmailOrUsername } from "./directory.server";
import { startChallenge } from "./login-challenge.server";
import { burnPasswordCheck, verifyPassword } from "./password.server";
import { createSession } from "./session.server";
import { attemptSucceeded, clientAddress, reserveAttempt, throttled, throttleKeys } from "./throttle.server";
import { hasTwoFactor } from "./two-factor.server";

/** The cookie a proven identity gets: its session, or the challenge when a second factor is due. */
export interface SignInCookie {
  cookie: string;
  secondFactor: boolean;
}

export async function signInAs(db: Db, userId: string, request: Request, now = Date.now()): Promise<SignInCookie> {
  if (await hasTwoFactor(db, userId)) return { cookie: await startChallenge(db, userId, now), secondFactor: true };
  return { cookie: await createSession(db, userId, request, now), secondFactor: false };
}

export async function logIn(db: Db, request: Request, input: LoginInput): Promise<Result<SignInCookie>> {
  const { emailOrUsername, password } = input;
  const byEmail = emailOrUsername.includes("@");
  // A registration that lapsed unverified is not found: it answers as an unknown account.
  const account = await findByEmailOrUsername(db, emailOrUsername);
  const reservation = await reserveAttempt(db, throttleKeys(clientAddress(request), account?.id));
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
  return ok(await signInAs(db, account.id, request));
}
