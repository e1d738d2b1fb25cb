// Accounts: sign-up with e-mail verification, re-sending the verification link, and deleting
// registrations that were never verified. Signing in is in sign-in.server.ts. Opening the link
// changes nothing (mail scanners open every link): it leads to a page that names the account, and
// only the Confirm button there, a POST, verifies the address (decision 042).
import { and, desc, eq, gt, isNull, lte } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { fail, ok, type Result } from "~/lib/result";
import type { ConfirmEmailInput, ResendInput, SignupInput } from "~/lib/schemas/auth";
import { randomToken, sha256Hex, tokenHash } from "../platform/tokens.server";
import type { Db } from "../platform/db/client.server";
import { emailVerificationTokens, users } from "../platform/db/schema.server";
import { mailBody } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { findByEmail, findById, isLiveAccount, REGISTRATION_TTL_MS } from "./directory.server";
import { openAccount } from "./open-account.server";
import { hashPassword, verifyPassword } from "./password.server";
import { attemptSucceeded, reserveAttempt, type ThrottleKey, throttled, throttleKeys } from "./throttle.server";
import type { Caller } from "../platform/caller.server";
import { refusedByBlocks } from "./blocked.server";
import { counted } from "~/lib/format";

const RESEND_INTERVAL_MS = 60 * 1000;

/** "24 hours", "5 hours", "40 minutes": how long a link has left, rounded down. */
function timeLeft(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  if (hours >= 1) return `${counted(hours, "hour")}`;
  const minutes = Math.max(1, Math.floor(ms / 60_000));
  return `${counted(minutes, "minute")}`;
}

/**
 * Mails a verification link, which works as long as the registration lasts (a day from sign-up).
 * The mail says that someone signed up with this address, so that whoever owns the mailbox and
 * did not can simply ignore it: the registration then lapses.
 */
export async function sendVerification(
  deps: MailingDeps,
  user: { id: string; email: string; username: string; createdAt: number },
  origin: string,
  now = Date.now(),
) {
  const token = randomToken();
  const expiresAt = user.createdAt + REGISTRATION_TTL_MS;
  await deps.db.insert(emailVerificationTokens).values({ tokenHash: await sha256Hex(token), userId: user.id, createdAt: now, expiresAt });
  const link = `${origin}/auth/verify?token=${token}`;
  await sendMail(deps, {
    to: user.email,
    subject: `Verify your ${BRAND} account`,
    ...mailBody([
      `Someone signed up for a ${BRAND} account with this e-mail address, under the username "${user.username}".`,
      "If that was you, open this link and confirm the address to finish creating the account:",
      { href: link, label: "Confirm my e-mail address" },
      `The link works for ${timeLeft(expiresAt - now)}.`,
      "If it was not you, ignore this message. Without the confirmation the account never opens, and it is deleted after a day.",
    ]),
  });
}

/**
 * Creates an unverified account and mails its verification link. An unverified account with the
 * same address is replaced (see open-account.server.ts); a verified one answers `conflict`.
 */
export async function signUp(deps: MailingDeps, caller: Caller, input: SignupInput, now = Date.now()): Promise<Result> {
  const { username, email, password } = input;
  const { db } = deps;

  const blocked = await refusedByBlocks(db, caller, email, now);
  if (!blocked.ok) return blocked;
  const ip = caller.ip;
  const signupKeys: ThrottleKey[] = [{ policy: "signupFromClient", key: `signup:${ip}` }];
  const reservation = await reserveAttempt(db, signupKeys, now);
  if (!reservation.ok) return throttled(reservation.waitMs, "sign-ups from this connection");

  const opened = await openAccount(
    db,
    { email, username, passwordHash: await hashPassword(password), verifiedAt: null },
    { how: "sign-up", ip, now },
  );
  if (!opened.ok) return opened;
  await sendVerification(deps, { id: opened.value.id, email, username, createdAt: now }, caller.origin, now);
  return ok();
}

/** Sends a fresh verification link. Answers the same whether or not the address is known. */
export async function resendVerification(deps: MailingDeps, caller: Caller, input: ResendInput, now = Date.now()): Promise<void> {
  const { db } = deps;
  const account = await findByEmail(db, input.email, now);
  if (account && !account.verifiedAt) {
    const recent = await db
      .select({ createdAt: emailVerificationTokens.createdAt })
      .from(emailVerificationTokens)
      .where(and(eq(emailVerificationTokens.userId, account.id), gt(emailVerificationTokens.createdAt, now - RESEND_INTERVAL_MS)))
      .orderBy(desc(emailVerificationTokens.createdAt))
      .get();
    if (!recent) await sendVerification(deps, account, caller.origin, now);
  }
}

const unusableLink = () => fail("not-found", "This link is invalid or has expired. Log in to request a new one.");

/** The account a verification link is for, as the confirmation page names it. */
export interface LinkedRegistration {
  id: string;
  username: string;
  email: string;
  expiresAt: number;
  /** Opened by a Discord sign-in, without a password: it is confirmed by signing in with that Discord account. */
  withDiscord: boolean;
}

/**
 * The account a verification link is for, while the link can be used: what the confirmation page
 * names. Reading only: a link opened by a mail scanner verifies nothing.
 */
export async function checkVerificationLink(db: Db, token: string | null, now = Date.now()): Promise<Result<LinkedRegistration>> {
  const hash = await tokenHash(token);
  const link = hash
    ? await db
        .select({ userId: emailVerificationTokens.userId, expiresAt: emailVerificationTokens.expiresAt })
        .from(emailVerificationTokens)
        .where(and(eq(emailVerificationTokens.tokenHash, hash), gt(emailVerificationTokens.expiresAt, now)))
        .get()
    : undefined;
  const account = link ? await findById(db, link.userId, now) : undefined;
  if (!link || !account || account.verifiedAt) return unusableLink();
  return ok({
    id: account.id,
    username: account.username,
    email: account.email,
    expiresAt: link.expiresAt,
    withDiscord: account.passwordHash === null,
  });
}

/**
 * The Confirm button: the one who holds the mailbox (the link's token) and chose the password at
 * sign-up confirms the account the page named. Wrong passwords count like failed sign-ins.
 */
export async function confirmWithPassword(
  db: Db,
  caller: Caller,
  token: string | null,
  input: ConfirmEmailInput,
  now = Date.now(),
): Promise<Result<{ id: string; email: string }>> {
  const link = await checkVerificationLink(db, token, now);
  // The page named one account; a link swapped in meanwhile (another tab) confirms nothing.
  if (!link.ok || link.value.id !== input.account) return unusableLink();
  const reservation = await reserveAttempt(db, throttleKeys(caller.ip, link.value.id), now);
  if (!reservation.ok) return throttled(reservation.waitMs, "confirmation attempts");
  const account = await findById(db, link.value.id, now);
  if (!account?.passwordHash || !(await verifyPassword(input.password, account.passwordHash))) {
    return fail("unauthenticated", "That is not the password this account was signed up with", { field: "password" });
  }
  await attemptSucceeded(db, reservation);
  return verifyEmail(db, token, now);
}

/**
 * Marks the address behind `token` as verified and answers whose it is, once the confirmer has
 * proven they are the registrant. Tokens work once, and only while the registration lasts.
 */
export async function verifyEmail(db: Db, token: string | null, now = Date.now()): Promise<Result<{ id: string; email: string }>> {
  const unusable = unusableLink();
  const hash = await tokenHash(token);
  if (!hash) return unusable;
  const row = await db.delete(emailVerificationTokens).where(eq(emailVerificationTokens.tokenHash, hash)).returning().get();
  if (!row || row.expiresAt <= now) return unusable;
  const [verified] = await db.batch([
    // A registration older than a day is gone, even before the cron job has deleted it.
    db
      .update(users)
      .set({ emailVerifiedAt: now })
      .where(and(eq(users.id, row.userId), isLiveAccount(now)))
      .returning({ id: users.id, email: users.email }),
    db.delete(emailVerificationTokens).where(eq(emailVerificationTokens.userId, row.userId)),
  ]);
  return verified[0] ? ok(verified[0]) : unusable;
}

/** Cron: deletes the accounts whose address was not verified within a day of signing up. */
export async function deleteExpiredRegistrations(db: Db, now = Date.now()): Promise<void> {
  await db.delete(users).where(and(isNull(users.emailVerifiedAt), lte(users.createdAt, now - REGISTRATION_TTL_MS)));
}
