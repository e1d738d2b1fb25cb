// The one door every sign-in goes through before a session (or the second step) starts: a banned
// account, and a caller or address on the blocklist, is refused here, whichever way it proved itself (password, passkey, Discord, second
// factor), and a staff account's sign-in is written to the audit log.
import { eq } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { Role } from "~/lib/roles";
import { ACCOUNT_SUSPENDED } from "~/lib/schemas/auth";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { userRoles, users } from "../platform/db/schema.server";
import { refusedByBlocks } from "./blocked.server";
import { createSession } from "./session.server";
import type { Caller, TokenChange } from "../platform/caller.server";

/** The token a proven identity gets: its session, or the challenge when a second factor is due. */
export interface SignIn {
  token: TokenChange;
  secondFactor: boolean;
}

/**
 * Whether the account may sign in at all: `forbidden` (and an audit entry) when it is banned.
 * Answers the account's role, so the caller can tell a staff sign-in.
 */
export async function admit(db: Db, userId: string, caller: Caller): Promise<Result<{ role: Role | null }>> {
  const row = await db
    .select({ bannedAt: users.bannedAt, role: userRoles.role, email: users.email })
    .from(users)
    .leftJoin(userRoles, eq(userRoles.userId, users.id))
    .where(eq(users.id, userId))
    .get();
  if (!row) return fail("unauthenticated", "This account no longer exists.");
  if (row.bannedAt !== null) {
    await audit(db, userId, "sign-in.banned", userId, {}, caller.ip);
    return fail("forbidden", ACCOUNT_SUSPENDED);
  }
  // The blocklist: the caller's address or country, or the account's address (decision 093).
  const blocked = await refusedByBlocks(db, caller, row.email);
  if (!blocked.ok) return blocked;
  return ok({ role: row.role });
}

/** Opens a session for a proven identity, unless the account is banned. Staff sign-ins are audited. */
export async function openSession(db: Db, userId: string, caller: Caller, now = Date.now()): Promise<Result<SignIn>> {
  const admitted = await admit(db, userId, caller);
  if (!admitted.ok) return admitted;
  const token = await createSession(db, userId, caller, now);
  const { role } = admitted.value;
  if (role) await audit(db, userId, "staff.sign-in", userId, { role }, caller.ip);
  return ok({ token, secondFactor: false });
}
