// Accounts: sign-up with e-mail verification and re-sending the verification link. Signing in is
// in sign-in.server.ts.
import { and, desc, eq, gt } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { fail, ok, type Result } from "~/lib/result";
import type { ResendInput, SignupInput } from "~/lib/schemas/auth";
import { randomToken, sha256Hex } from "../platform/tokens.server";
import type { Db } from "../platform/db/client.server";
import { emailVerificationTokens, profiles, users } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { findByEmail, findByUsername } from "./directory.server";
import { hashPassword } from "./password.server";
import { clientAddress, reserveAttempt, type ThrottleKey, throttled } from "./throttle.server";

export const VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;
const RESEND_INTERVAL_MS = 60 * 1000;

async function sendVerification(deps: MailingDeps, user: { id: string; email: string; username: string }, origin: string) {
  const token = randomToken();
  const now = Date.now();
  await deps.db.insert(emailVerificationTokens).values({
    tokenHash: await sha256Hex(token),
    userId: user.id,
    createdAt: now,
    expiresAt: now + VERIFICATION_TTL_MS,
  });
  const link = `${origin}/auth/verify?token=${token}`;
  await sendMail(deps.db, deps.mail, deps.waitUntil, {
    to: user.email,
    subject: `Verify your ${BRAND} account`,
    text: `Hi ${user.username},\n\nConfirm your e-mail address to finish creating your ${BRAND} account:\n${link}\n\nThe link works for 24 hours. If you did not sign up, you can ignore this message.`,
    html: `<p>Hi ${escapeHtml(user.username)},</p><p>Confirm your e-mail address to finish creating your ${BRAND} account:</p><p><a href="${escapeHtml(link)}">Verify my e-mail address</a></p><p>The link works for 24 hours. If you did not sign up, you can ignore this message.</p>`,
  });
}

const accountExists = () => fail("conflict", "This email is already registered. Try logging in instead.", { field: "email" });
const usernameTaken = () => fail("conflict", "This username is already taken. Please choose another.", { field: "username" });

export async function signUp(deps: MailingDeps, request: Request, input: SignupInput): Promise<Result> {
  const { username, email, password } = input;
  const { db } = deps;

  const signupKeys: ThrottleKey[] = [{ policy: "signupFromClient", key: `signup:${clientAddress(request)}` }];
  const reservation = await reserveAttempt(db, signupKeys);
  if (!reservation.ok) return throttled(reservation.waitMs, "sign-ups from this connection");

  if (await findByEmail(db, email)) return accountExists();
  if (await findByUsername(db, username)) return usernameTaken();

  const id = crypto.randomUUID();
  const now = Date.now();
  try {
    await db.batch([
      db.insert(users).values({ id, email, passwordHash: await hashPassword(password), createdAt: now }),
      db.insert(profiles).values({ id, username, createdAt: now }),
    ]);
  } catch (error) {
    // Lost a race with an identical sign-up: the unique indexes decided.
    const message = String(error instanceof Error ? (error.cause ?? error.message) : error);
    if (message.includes("users_email_unique") || message.includes("users.email")) return accountExists();
    if (message.includes("profiles_username_unique") || message.includes("profiles.username")) return usernameTaken();
    throw error;
  }
  await sendVerification(deps, { id, email, username }, new URL(request.url).origin);
  return ok();
}

/** Sends a fresh verification link. Answers the same whether or not the address is known. */
export async function resendVerification(deps: MailingDeps, request: Request, input: ResendInput): Promise<void> {
  const { db } = deps;
  const account = await findByEmail(db, input.email);
  if (account && !account.verifiedAt) {
    const recent = await db
      .select({ createdAt: emailVerificationTokens.createdAt })
      .from(emailVerificationTokens)
      .where(and(eq(emailVerificationTokens.userId, account.id), gt(emailVerificationTokens.createdAt, Date.now() - RESEND_INTERVAL_MS)))
      .orderBy(desc(emailVerificationTokens.createdAt))
      .get();
    if (!recent) await sendVerification(deps, account, new URL(request.url).origin);
  }
}

/**
 * Marks the address behind `token` as verified and answers whose it is. Tokens work once and
 * expire after 24 hours.
 */
export async function verifyEmail(db: Db, token: string | null, now = Date.now()): Promise<Result<{ id: string; email: string }>> {
  const unusable = fail("not-found", "This link is invalid or has expired. Log in to request a new one.");
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return unusable;
  const row = await db
    .delete(emailVerificationTokens)
    .where(eq(emailVerificationTokens.tokenHash, await sha256Hex(token)))
    .returning()
    .get();
  if (!row || row.expiresAt <= now) return unusable;
  const [verified] = await db.batch([
    db.update(users).set({ emailVerifiedAt: now }).where(eq(users.id, row.userId)).returning({ id: users.id, email: users.email }),
    db.delete(emailVerificationTokens).where(eq(emailVerificationTokens.userId, row.userId)),
  ]);
  return verified[0] ? ok(verified[0]) : unusable;
}
