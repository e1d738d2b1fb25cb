// Resetting a forgotten password by e-mail (decision 027). Asking for a link answers the same
// whatever was asked about: finding the account, making the link and mailing it all happen after
// the answer is decided. A link carries a 256-bit token of which only the SHA-256 is stored; it
// works once, for 30 minutes, and a newer request replaces it. Using it sets the password, ends
// every session, revokes the API tokens, unlinks Discord, restarts sign-ins in progress and marks
// the address verified.
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { fail, ok, type Result } from "~/lib/result";
import type { ResetRequestInput } from "~/lib/schemas/auth";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import {
  emailVerificationTokens,
  loginChallenges,
  oauthAccounts,
  passwordResetTokens,
  users,
  webauthnChallenges,
} from "../platform/db/schema.server";
import { mailBody } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { randomToken, sha256Hex, tokenHash } from "../platform/tokens.server";
import { everyTokenRevoked } from "./api-tokens.server";
import { findByEmailOrUsername, findById } from "./directory.server";
import { hashPassword } from "./password.server";
import { endSessions, type SessionDeps } from "./session.server";
import { reserveAttempt, type ThrottleKey, throttled } from "./throttle.server";
import type { Caller } from "../platform/caller.server";

export const RESET_LINK_TTL_MS = 30 * 60 * 1000;

const unusable = () => fail("not-found", "This reset link is invalid or has expired. Please ask for a new one.");

/**
 * Asks for a reset link for the account with this e-mail address or username. Only the throttle,
 * which counts per client and per name asked about (known or not), can change the answer; the
 * account is looked up, and the link made and mailed, once the answer is decided, through
 * `waitUntil`. So the answer, and how long it takes, are the same for every name.
 */
export async function requestPasswordReset(deps: MailingDeps, caller: Caller, input: ResetRequestInput, now = Date.now()): Promise<Result> {
  const name = input.emailOrUsername.toLowerCase();
  const ip = caller.ip;
  const keys: ThrottleKey[] = [
    { policy: "resetRequestFromClient", key: `reset-request:client:${ip}` },
    // Hashed: the table should not keep a list of the addresses people typed.
    { policy: "resetRequestForName", key: `reset-request:name:${await sha256Hex(name)}` },
  ];
  const reservation = await reserveAttempt(deps.db, keys, now);
  if (!reservation.ok) return throttled(reservation.waitMs, "reset requests");
  const origin = caller.origin;
  deps.waitUntil(
    mailResetLink(deps, name, origin, ip, now).catch((error: unknown) => console.error("Password reset link not sent:", error)),
  );
  return ok();
}

async function mailResetLink(deps: MailingDeps, name: string, origin: string, ip: string, now: number): Promise<void> {
  const { db } = deps;
  const account = await findByEmailOrUsername(db, name, now);
  if (!account) return;
  const token = randomToken();
  const link = { tokenHash: await sha256Hex(token), createdAt: now, expiresAt: now + RESET_LINK_TTL_MS };
  // One link per account: a newer request overwrites the older one, which stops working.
  await db
    .insert(passwordResetTokens)
    .values({ ...link, userId: account.id })
    .onConflictDoUpdate({ target: passwordResetTokens.userId, set: link });
  await sendMail(deps, {
    to: account.email,
    subject: `Reset your ${BRAND} password`,
    ...mailBody([
      `Someone asked to reset the password of the ${BRAND} account "${account.username}". If that was you, choose a new password here:`,
      { href: `${origin}/auth/reset?token=${token}`, label: "Choose a new password" },
      "The link works once, within 30 minutes. Only the newest link you asked for works.",
      "If you did not ask, ignore this message: your password stays as it is.",
    ]),
  });
  await audit(db, null, "password.reset-request", account.id, { by: name.includes("@") ? "email" : "username" }, ip);
}

/** The link `token` stands for while it can be used (unexpired, unused), and its lasting account. */
async function findLink(db: Db, token: string | null, now: number) {
  const hash = await tokenHash(token);
  if (!hash) return null;
  const link = await db
    .select({ tokenHash: passwordResetTokens.tokenHash, userId: passwordResetTokens.userId, expiresAt: passwordResetTokens.expiresAt })
    .from(passwordResetTokens)
    .where(and(eq(passwordResetTokens.tokenHash, hash), gt(passwordResetTokens.expiresAt, now)))
    .get();
  const account = link ? await findById(db, link.userId, now) : undefined;
  return link && account ? { ...link, account } : null;
}

/** Whether a reset link can still be used, and whose account it is for (the form names it). */
export async function checkResetLink(
  db: Db,
  token: string | null,
  now = Date.now(),
): Promise<Result<{ username: string; expiresAt: number }>> {
  const link = await findLink(db, token, now);
  return link ? ok({ username: link.account.username, expiresAt: link.expiresAt }) : unusable();
}

/** The statements that make sign-ins begun before a password change start over, with the new password. */
export function signInsInProgress(db: Db, userId: string) {
  return [
    db.delete(loginChallenges).where(eq(loginChallenges.userId, userId)),
    db.delete(webauthnChallenges).where(eq(webauthnChallenges.userId, userId)),
  ] as const;
}

/** Tells the account's address that its password changed (`how` finishes the sentence), and what to do if that was not its owner. */
export async function mailPasswordChanged(
  deps: MailingDeps,
  account: { email: string; username: string },
  caller: Caller,
  how: string,
): Promise<void> {
  const origin = caller.origin;
  await sendMail(deps, {
    to: account.email,
    subject: `Your ${BRAND} password was changed`,
    ...mailBody([
      `The password of the ${BRAND} account "${account.username}" was just changed ${how}`,
      "If that was you, there is nothing more to do.",
      "If it was not you, someone else can read this mailbox. Secure your e-mail account first, then reset your password again (which signs everyone out once more) and tell us through the support page:",
      { href: `${origin}/auth/forgot`, label: "Reset my password" },
      { href: `${origin}/support`, label: "Contact support" },
    ]),
  });
}

export interface PasswordReset {
  id: string;
  email: string;
  /** The address was not verified before; the link, which went to it, has now proven it. */
  verifiedNow: boolean;
}

/**
 * Sets a new password with a reset link, which is used up by it. Every session of the account ends,
 * its API tokens are revoked, a linked Discord account is unlinked, sign-ins in progress start over
 * (a second factor, if on, is still asked at the next sign-in), the address counts as verified,
 * and a notice goes to it. Counted per client and per account.
 */
export async function resetPassword(
  deps: MailingDeps & SessionDeps,
  caller: Caller,
  token: string | null,
  password: string,
  now = Date.now(),
): Promise<Result<PasswordReset>> {
  const { db } = deps;
  const ip = caller.ip;
  const link = await findLink(db, token, now);
  const keys: ThrottleKey[] = [{ policy: "resetLinkFromClient", key: `reset:client:${ip}` }];
  if (link) keys.push({ policy: "resetForAccount", key: `reset:account:${link.userId}` });
  const reservation = await reserveAttempt(db, keys, now);
  if (!reservation.ok) return throttled(reservation.waitMs, "password resets");
  if (!link) return unusable();

  const passwordHash = await hashPassword(password);
  // The link is used up here, once: a second use, or a parallel one, finds nothing to delete.
  const used = await db
    .delete(passwordResetTokens)
    .where(and(eq(passwordResetTokens.tokenHash, link.tokenHash), gt(passwordResetTokens.expiresAt, now)))
    .returning({ userId: passwordResetTokens.userId })
    .get();
  if (!used) return unusable();
  const verifiedNow = link.account.verifiedAt === null;
  const [unlinked, revokedTokens] = await db.batch([
    // A reset takes the account back for whoever holds the mailbox: a Discord account someone else
    // linked (to a registration of this address, or through a session left open) goes with it.
    db.delete(oauthAccounts).where(eq(oauthAccounts.userId, link.userId)).returning({ id: oauthAccounts.providerUserId }),
    // So does every API token: one made through such a session must not outlive the sessions.
    everyTokenRevoked(db, link.userId, now),
    db
      .update(users)
      .set({ passwordHash, emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now})` })
      .where(eq(users.id, link.userId)),
    ...signInsInProgress(db, link.userId),
    // The address is proven now; a verification link still out has nothing left to do.
    db.delete(emailVerificationTokens).where(eq(emailVerificationTokens.userId, link.userId)),
  ]);
  await endSessions(deps, link.userId, { all: true });
  const discord = unlinked.length > 0 ? " Discord was unlinked from it: link your own Discord account again on the Security page." : "";
  const tokens = revokedTokens.length > 0 ? " Its API tokens were revoked: make new ones on the Security page." : "";
  await mailPasswordChanged(
    deps,
    link.account,
    caller,
    `with a reset link sent to this address. Every device signed in to the account has been signed out.${discord}${tokens}`,
  );
  await audit(db, link.userId, "password.reset", link.userId, { verifiedNow, apiTokensRevoked: revokedTokens.length }, ip);
  return ok({ id: link.userId, email: link.account.email, verifiedNow });
}

/** Cron: drops reset links that have expired unused. */
export async function deleteExpiredResetLinks(db: Db, now = Date.now()): Promise<void> {
  await db.delete(passwordResetTokens).where(lt(passwordResetTokens.expiresAt, now));
}
