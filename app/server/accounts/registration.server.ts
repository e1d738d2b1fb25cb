// Accounts: sign-up with e-mail verification, sign-in by e-mail or username, and re-sending the
// verification link. Each function returns what the form should tell the user; routes only
// translate that into a response.
import { and, desc, eq, gt, sql } from "drizzle-orm";
import * as v from "valibot";
import { BRAND } from "~/lib/brand";
import { loginSchema, resendSchema, signupSchema } from "~/lib/schemas/auth";
import type { Toast } from "~/lib/toast";
import { randomToken, sha256Hex } from "../platform/tokens.server";
import type { Db } from "../platform/db/client.server";
import { emailVerificationTokens, profiles, users } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import { type MailConfig, sendMail } from "../platform/mail.server";
import { startChallenge } from "./login-challenge.server";
import { claimSubscriptions } from "../fulfilment/subscriptions.server";
import { burnPasswordCheck, hashPassword, verifyPassword } from "./password.server";
import { createSession } from "./session.server";
import { hasTwoFactor } from "./two-factor.server";
import { attemptSucceeded, reserveAttempt, type ThrottleKey, throttled, throttleKeys } from "./throttle.server";

export const VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;
const RESEND_INTERVAL_MS = 60 * 1000;

export interface AuthDeps {
  db: Db;
  mail: MailConfig;
  waitUntil: (promise: Promise<unknown>) => void;
}

export type AuthOutcome =
  | { ok: true; toast: Toast; setCookie?: string; secondFactor?: boolean }
  | { ok: false; status: number; toast: Toast; retryAfterSeconds?: number; unverified?: boolean };

const invalid = (description: string): AuthOutcome => ({
  ok: false,
  status: 400,
  toast: { title: "Validation Error", description, variant: "destructive" },
});

export function clientAddress(request: Request): string {
  return request.headers.get("CF-Connecting-IP") ?? "local";
}

async function findByEmail(db: Db, email: string) {
  return db
    .select({ id: users.id, email: users.email, passwordHash: users.passwordHash, verifiedAt: users.emailVerifiedAt, username: profiles.username })
    .from(users)
    .innerJoin(profiles, eq(profiles.id, users.id))
    .where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
    .get();
}

async function findByUsername(db: Db, username: string) {
  return db
    .select({ id: users.id, email: users.email, passwordHash: users.passwordHash, verifiedAt: users.emailVerifiedAt, username: profiles.username })
    .from(profiles)
    .innerJoin(users, eq(users.id, profiles.id))
    .where(sql`lower(${profiles.username}) = ${username.toLowerCase()}`)
    .get();
}

async function sendVerification(deps: AuthDeps, user: { id: string; email: string; username: string }, origin: string) {
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

export async function signUp(deps: AuthDeps, request: Request, input: unknown): Promise<AuthOutcome> {
  const parsed = v.safeParse(signupSchema, input);
  if (!parsed.success) return invalid(parsed.issues[0].message);
  const { username, email, password } = parsed.output;
  const { db } = deps;

  const signupKeys: ThrottleKey[] = [{ policy: "signupFromClient", key: `signup:${clientAddress(request)}` }];
  const reservation = await reserveAttempt(db, signupKeys);
  if (!reservation.ok) return throttled(reservation.waitMs, "sign-ups from this connection");

  const accountExists: AuthOutcome = {
    ok: false,
    status: 409,
    toast: { title: "Account Exists", description: "This email is already registered. Try logging in instead.", variant: "destructive" },
  };
  const usernameTaken: AuthOutcome = {
    ok: false,
    status: 409,
    toast: { title: "Username Taken", description: "This username is already taken. Please choose another.", variant: "destructive" },
  };
  if (await findByEmail(db, email)) return accountExists;
  if (await findByUsername(db, username)) return usernameTaken;

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
    if (message.includes("users_email_unique") || message.includes("users.email")) return accountExists;
    if (message.includes("profiles_username_unique") || message.includes("profiles.username")) return usernameTaken;
    throw error;
  }
  await sendVerification(deps, { id, email, username }, new URL(request.url).origin);
  return {
    ok: true,
    toast: { title: "Account Created!", description: "Please check your email to verify your account before logging in." },
  };
}

export async function logIn(deps: AuthDeps, request: Request, input: unknown): Promise<AuthOutcome> {
  const parsed = v.safeParse(loginSchema, input);
  if (!parsed.success) return invalid(parsed.issues[0].message);
  const { emailOrUsername, password } = parsed.output;
  const { db } = deps;
  const ip = clientAddress(request);

  const byEmail = emailOrUsername.includes("@");
  const account = byEmail ? await findByEmail(db, emailOrUsername) : await findByUsername(db, emailOrUsername);
  const keys = throttleKeys(ip, account?.id);
  const reservation = await reserveAttempt(db, keys);
  if (!reservation.ok) return throttled(reservation.waitMs, "failed sign-in attempts");

  // A missing account still pays for a full PBKDF2 run, so timing does not reveal it.
  const passwordOk = account?.passwordHash
    ? await verifyPassword(password, account.passwordHash)
    : (await burnPasswordCheck(password), false);

  if (!account || !passwordOk) {
    return {
      ok: false,
      status: 401,
      toast: {
        title: "Login Failed",
        description: !account && !byEmail ? "Username not found or invalid" : "Invalid credentials",
        variant: "destructive",
      },
    };
  }
  await attemptSucceeded(db, reservation);

  if (!account.verifiedAt) {
    return {
      ok: false,
      status: 403,
      unverified: true,
      toast: {
        title: "Email Not Verified",
        description: "Please verify your email before logging in. Check your inbox, or send a new link below.",
        variant: "destructive",
      },
    };
  }

  // With two-factor authentication on, the password only opens the second step.
  if (await hasTwoFactor(db, account.id)) {
    return { ok: true, secondFactor: true, setCookie: await startChallenge(db, account.id), toast: { title: "Two-factor authentication", description: "Enter the code from your authenticator app" } };
  }
  return {
    ok: true,
    setCookie: await createSession(db, account.id, request),
    toast: { title: "Welcome back!", description: "You've successfully logged in" },
  };
}

/** Sends a fresh verification link. Answers the same whether or not the address is known. */
export async function resendVerification(deps: AuthDeps, request: Request, input: unknown): Promise<AuthOutcome> {
  const parsed = v.safeParse(resendSchema, input);
  if (!parsed.success) return invalid(parsed.issues[0].message);
  const { db } = deps;
  const account = await findByEmail(db, parsed.output.email);
  if (account && !account.verifiedAt) {
    const recent = await db
      .select({ createdAt: emailVerificationTokens.createdAt })
      .from(emailVerificationTokens)
      .where(and(eq(emailVerificationTokens.userId, account.id), gt(emailVerificationTokens.createdAt, Date.now() - RESEND_INTERVAL_MS)))
      .orderBy(desc(emailVerificationTokens.createdAt))
      .get();
    if (!recent) await sendVerification(deps, account, new URL(request.url).origin);
  }
  return {
    ok: true,
    toast: {
      title: "Verification Email Sent",
      description: "If that address has an account waiting for verification, a new link is on its way.",
    },
  };
}

/** Marks the address behind `token` as verified. Tokens work once and expire after 24 hours. */
export async function verifyEmail(db: Db, token: string | null, now = Date.now()): Promise<boolean> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
  const row = await db
    .delete(emailVerificationTokens)
    .where(eq(emailVerificationTokens.tokenHash, await sha256Hex(token)))
    .returning()
    .get();
  if (!row || row.expiresAt <= now) return false;
  const [verified] = await db.batch([
    db.update(users).set({ emailVerifiedAt: now }).where(eq(users.id, row.userId)).returning({ email: users.email }),
    db.delete(emailVerificationTokens).where(eq(emailVerificationTokens.userId, row.userId)),
  ]);
  // Keys bought with this address before the account was verified now show as subscriptions.
  const email = verified[0]?.email;
  if (email) await claimSubscriptions(db, row.userId, email);
  return true;
}
