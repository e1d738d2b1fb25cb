// A member gives their password again before a step that a stolen session alone must not be able
// to take (linking a Discord account, making an API token). Wrong tries count against the same
// allowance as failed sign-ins.
import { fail, ok, type Result } from "~/lib/result";
import type { Caller } from "../platform/caller.server";
import type { Db } from "../platform/db/client.server";
import { findById } from "./directory.server";
import { verifyPassword } from "./password.server";
import { attemptSucceeded, reserveAttempt, throttled, throttleKeys } from "./throttle.server";

/**
 * The account's password checked again. `checked` is false for an account that has none (made
 * through Discord or a passkey): the caller decides whether that is enough.
 */
export async function confirmPassword(
  db: Db,
  caller: Caller,
  userId: string,
  password: string,
  now = Date.now(),
): Promise<Result<{ checked: boolean }>> {
  const account = await findById(db, userId, now);
  if (!account?.passwordHash) return ok({ checked: false });
  const reservation = await reserveAttempt(db, throttleKeys(caller.ip, userId), now);
  if (!reservation.ok) return throttled(reservation.waitMs, "password attempts");
  if (!(await verifyPassword(password, account.passwordHash))) return fail("unauthenticated", "Wrong password", { field: "password" });
  await attemptSucceeded(db, reservation);
  return ok({ checked: true });
}
