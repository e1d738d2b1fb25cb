// What a signed-in member controls about how they are signed in: their sessions (end one, end all
// the others) and their password. A new password ends every other session, so whoever else was
// signed in with the old one is out.
import { eq } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { PasswordChangeInput } from "~/lib/schemas/auth";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import { users } from "../platform/db/schema.server";
import type { MailingDeps } from "../platform/mail.server";
import { hashPassword, verifyPassword } from "./password.server";
import { mailPasswordChanged, signInsInProgress } from "./password-reset.server";
import { endSessions, type SessionDeps } from "./session.server";
import { attemptSucceeded, reserveAttempt, throttled, throttleKeys } from "./throttle.server";
import type { Caller } from "../platform/caller.server";

/** Ends one of the member's sessions; `endedCurrent` says whether it was the one asking. */
export async function endOneSession(
  deps: SessionDeps,
  viewer: Viewer,
  caller: Caller,
  publicId: string,
): Promise<Result<{ endedCurrent: boolean }>> {
  const { count, endedCurrent } = await endSessions(deps, viewer.id, { publicId }, caller);
  // Another account's session, or one already gone, answer alike.
  if (count === 0) return fail("not-found", "That session has already ended.");
  await audit(deps.db, viewer.id, "session.end", viewer.id, { session: publicId }, caller.ip);
  return ok({ endedCurrent });
}

/** Signs the member out everywhere but here. */
export async function endOtherSessions(deps: SessionDeps, viewer: Viewer, caller: Caller): Promise<Result<{ ended: number }>> {
  const { count: ended } = await endSessions(deps, viewer.id, { allBut: caller });
  await audit(deps.db, viewer.id, "session.end-others", viewer.id, { ended }, caller.ip);
  return ok({ ended });
}

/**
 * A new password, given the current one. Wrong current passwords count against the same
 * allowance as failed sign-ins, so this form is no side door for guessing.
 */
export async function changePassword(
  deps: SessionDeps & MailingDeps,
  viewer: Viewer,
  caller: Caller,
  input: PasswordChangeInput,
): Promise<Result> {
  const { db } = deps;
  const reservation = await reserveAttempt(db, throttleKeys(caller.ip, viewer.id));
  if (!reservation.ok) return throttled(reservation.waitMs, "failed password attempts");
  const account = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, viewer.id)).get();
  if (!account?.passwordHash) {
    return fail("conflict", 'Your account has no password yet. Use "Forgot your password?" on the sign-in page to set one.');
  }
  if (!(await verifyPassword(input.currentPassword, account.passwordHash))) {
    return fail("unauthenticated", "Your current password is not right.", { field: "currentPassword" });
  }
  await attemptSucceeded(db, reservation);
  await db.batch([
    db
      .update(users)
      .set({ passwordHash: await hashPassword(input.newPassword) })
      .where(eq(users.id, viewer.id)),
    // A sign-in half done with the old password must not finish with its second factor.
    ...signInsInProgress(db, viewer.id),
  ]);
  await signInChanged(deps, viewer, caller, "password.change");
  await mailPasswordChanged(
    deps,
    viewer,
    caller,
    "from a signed-in device. Every other device signed in to the account has been signed out.",
  );
  return ok();
}

/**
 * A change to how the account signs in, done: recorded with the client's address, and every other
 * session ends, so a browser that was signed in before the change (perhaps someone else's) has to
 * sign in again under the new rule. The session that made the change stays.
 */
export async function signInChanged(deps: SessionDeps, viewer: Viewer, caller: Caller, action: string): Promise<void> {
  await audit(deps.db, viewer.id, action, viewer.id, {}, caller.ip);
  await endSessions(deps, viewer.id, { allBut: caller });
}
