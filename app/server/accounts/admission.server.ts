// The one door every sign-in goes through before a session (or the second step) starts: a banned
// account is refused here, whichever way it proved itself (password, passkey, Discord, second
// factor), and a staff account's sign-in is written to the audit log.
import { eq } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { Role } from "~/lib/roles";
import { ACCOUNT_SUSPENDED } from "~/lib/schemas/auth";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { userRoles, users } from "../platform/db/schema.server";
import { createSession } from "./session.server";
import { clientAddress } from "./throttle.server";

/** The cookie a proven identity gets: its session, or the challenge when a second factor is due. */
export interface SignInCookie {
  cookie: string;
  secondFactor: boolean;
}

/**
 * Whether the account may sign in at all: `forbidden` (and an audit entry) when it is banned.
 * Answers the account's role, so the caller can tell a staff sign-in.
 */
export async function admit(db: Db, userId: string, request: Request): Promise<Result<{ role: Role | null }>> {
  const row = await db
    .select({ bannedAt: users.bannedAt, role: userRoles.role })
    .from(users)
    .leftJoin(userRoles, eq(userRoles.userId, users.id))
    .where(eq(users.id, userId))
    .get();
  if (!row) return fail("unauthenticated", "This account no longer exists.");
  if (row.bannedAt !== null) {
    await audit(db, userId, "sign-in.banned", userId, {}, clientAddress(request));
    return fail("forbidden", ACCOUNT_SUSPENDED);
  }
  return ok({ role: row.role });
}

/** Opens a session for a proven identity, unless the account is banned. Staff sign-ins are audited. */
export async function openSession(db: Db, userId: string, request: Request, now = Date.now()): Promise<Result<SignInCookie>> {
  const admitted = await admit(db, userId, request);
  if (!admitted.ok) return admitted;
  const cookie = await createSession(db, userId, request, now);
  const { role } = admitted.value;
  if (role) await audit(db, userId, "staff.sign-in", userId, { role }, clientAddress(request));
  return ok({ cookie, secondFactor: false });
}
