// What deleting an account does to the accounts domain's own tables (decision 099): every way in
// goes (password, passkeys, two-factor, reset and verification links, sign-ins in progress, the
// linked Discord account), and the `users` row stays under a pseudonym, because the orders and
// money records that point at it are kept for accounting. Before a member deletes their own
// account they prove it is theirs: the password, and the second factor where it is on.
import { and, eq, isNull, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import type { Caller } from "../platform/caller.server";
import type { Db } from "../platform/db/client.server";
import {
  authThrottle,
  emailVerificationTokens,
  oauthAccounts,
  passkeys,
  passwordResetTokens,
  profiles,
  recoveryCodes,
  totpFactors,
  userRoles,
  users,
} from "../platform/db/schema.server";
import { verifyPassword } from "./password.server";
import { signInsInProgress } from "./password-reset.server";
import { attemptSucceeded, reserveAttempt, throttled, throttleKeys } from "./throttle.server";
import { checkSecondFactor, hasTwoFactor } from "./two-factor.server";

/**
 * The address a deleted account's records carry instead of the member's: the same for all of
 * them, so one member's orders still read as one customer's, and undeliverable by design (the
 * reserved `.invalid` domain), so nothing is ever mailed to it.
 */
export const pseudonymOf = (userId: string) => `deleted-${userId}@deleted.invalid`;
/** The username a deleted account shows where its name is still drawn (an order, the audit log). */
export const deletedUsernameOf = (userId: string) => `deleted-${userId.slice(0, 8)}`;

/** The account as deleting it needs it: who it is, and whether it may be deleted at all. */
export async function closableAccount(db: Db, userId: string): Promise<Result<{ email: string; username: string }>> {
  const row = await db
    .select({ email: users.email, username: profiles.username, deletedAt: users.deletedAt, role: userRoles.role })
    .from(users)
    .innerJoin(profiles, eq(profiles.id, users.id))
    .leftJoin(userRoles, eq(userRoles.userId, users.id))
    .where(eq(users.id, userId))
    .get();
  if (!row) return fail("not-found", "No such account");
  if (row.deletedAt !== null) return fail("conflict", "This account has already been deleted");
  // Deleting a staff account could leave the shop without its last admin: the role goes first.
  if (row.role) return fail("conflict", "Staff accounts cannot be deleted: an admin makes it a member account first");
  return ok({ email: row.email, username: row.username });
}

/**
 * The member proves the account is theirs before it is deleted: the current password (counted
 * against the same allowance as failed sign-ins) and, where two-factor is on, a code from the app
 * or a recovery code.
 */
export async function confirmAccountOwner(
  db: Db,
  totpKey: string,
  viewer: Viewer,
  caller: Caller,
  input: { password: string; code: string },
  now = Date.now(),
): Promise<Result> {
  const reservation = await reserveAttempt(db, throttleKeys(caller.ip, viewer.id), now);
  if (!reservation.ok) return throttled(reservation.waitMs, "failed password attempts");
  const account = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, viewer.id)).get();
  if (!account?.passwordHash) {
    return fail("conflict", 'Your account has no password yet. Use "Forgot your password?" on the sign-in page to set one first.');
  }
  if (!(await verifyPassword(input.password, account.passwordHash))) {
    return fail("unauthenticated", "Your password is not right.", { field: "password" });
  }
  await attemptSucceeded(db, reservation, now);
  if (!(await hasTwoFactor(db, viewer.id))) return ok();
  if (!input.code.trim()) return fail("invalid", "Enter a code from your authenticator app, or a recovery code", { field: "code" });
  return checkSecondFactor(db, totpKey, viewer, caller, input.code, now);
}

/**
 * The accounts domain's statements of a deletion, for the caller's one batch: the row anonymised
 * and marked deleted (only if it still is not), and every credential and link gone. Sessions end
 * apart, through `endSessions`, so the chat closes their sockets.
 */
export function accountClosure(db: Db, userId: string, now: number) {
  return [
    db
      .update(users)
      .set({ email: pseudonymOf(userId), passwordHash: null, emailVerifiedAt: null, banReason: null, deletedAt: now })
      .where(and(eq(users.id, userId), isNull(users.deletedAt))),
    db
      .update(profiles)
      .set({ username: deletedUsernameOf(userId), avatarUrl: null })
      .where(eq(profiles.id, userId)),
    db.delete(passkeys).where(eq(passkeys.userId, userId)),
    db.delete(totpFactors).where(eq(totpFactors.userId, userId)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)),
    db.delete(passwordResetTokens).where(eq(passwordResetTokens.userId, userId)),
    db.delete(emailVerificationTokens).where(eq(emailVerificationTokens.userId, userId)),
    // The Discord link goes; the role sync then takes back the roles the shop gave that account.
    db.delete(oauthAccounts).where(eq(oauthAccounts.userId, userId)),
    ...signInsInProgress(db, userId),
    // Failed-attempt counters named after the account (sign-in, codes, resets, reviews).
    db.delete(authThrottle).where(sql`instr(${authThrottle.key}, ${userId}) > 0`),
  ] as const;
}

/** What the Security page's deletion form asks for: the password (if the account has one), a code (if two-factor is on). */
export async function deletionNeeds(db: Db, userId: string): Promise<{ hasPassword: boolean; secondFactor: boolean; staff: boolean }> {
  const [row, secondFactor] = await Promise.all([
    db
      .select({ passwordHash: users.passwordHash, role: userRoles.role })
      .from(users)
      .leftJoin(userRoles, eq(userRoles.userId, users.id))
      .where(eq(users.id, userId))
      .get(),
    hasTwoFactor(db, userId),
  ]);
  return { hasPassword: Boolean(row?.passwordHash), secondFactor, staff: Boolean(row?.role) };
}
