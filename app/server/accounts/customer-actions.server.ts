// What staff do to an account from its page: ban and unban it, end its sessions, assign its role
// (crediting its reseller balance is the reseller module's `creditBalance`). Each checks the
// actor's capability itself, whatever the route did, and is written to the audit log with the
// account as its subject. An admin can neither ban nor re-role themselves, nor ban another admin
// (demote first), so the shop can never lose its last admin by a click.
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { type Capability, can, type Role } from "~/lib/roles";
import type { RoleChoice } from "~/lib/schemas/customers";
import type { Viewer } from "~/lib/viewer";
import { endSessions, type SessionDeps } from "./session.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { loginChallenges, userRoles, users } from "../platform/db/schema.server";

/** Who acts, from where: the staff member and their client address, for the audit log. */
export interface StaffActor {
  viewer: Viewer;
  ip: string | null;
}

/** The account `userId` and its role, if the actor's role has `capability`; else the problem. */
async function target(db: Db, actor: Viewer, capability: Capability, userId: string): Promise<Result<{ role: Role | null }>> {
  if (!can(actor.role, capability)) return fail("forbidden", "Your role may not do this");
  const row = await db
    .select({ role: userRoles.role })
    .from(users)
    .leftJoin(userRoles, eq(userRoles.userId, users.id))
    .where(eq(users.id, userId))
    .get();
  return row ? ok({ role: row.role }) : fail("not-found", "No such customer");
}

/** Bans the account: it cannot sign in, every session ends now (chat sockets close with them). */
export async function banCustomer(
  deps: SessionDeps,
  { viewer, ip }: StaffActor,
  userId: string,
  reason: string,
  now = Date.now(),
): Promise<Result<{ sessionsEnded: number }>> {
  const { db } = deps;
  if (userId === viewer.id && can(viewer.role, "customers.ban")) return fail("forbidden", "You cannot ban your own account");
  const found = await target(db, viewer, "customers.ban", userId);
  if (!found.ok) return found;
  if (found.value.role === "admin") return fail("conflict", "Admins cannot be banned: make them a member first");
  const [banned] = await db.batch([
    db
      .update(users)
      .set({ bannedAt: now, banReason: reason })
      .where(and(eq(users.id, userId), isNull(users.bannedAt)))
      .returning({ id: users.id }),
    // A sign-in waiting for its second factor is over too.
    db.delete(loginChallenges).where(eq(loginChallenges.userId, userId)),
  ]);
  if (banned.length === 0) return fail("conflict", "This account is already banned");
  const { count } = await endSessions(deps, userId, { all: true });
  await audit(db, viewer.id, "customer.ban", userId, { reason, sessionsEnded: count }, ip);
  return ok({ sessionsEnded: count });
}

export async function unbanCustomer(db: Db, { viewer, ip }: StaffActor, userId: string): Promise<Result> {
  const found = await target(db, viewer, "customers.ban", userId);
  if (!found.ok) return found;
  const lifted = await db
    .update(users)
    .set({ bannedAt: null, banReason: null })
    .where(and(eq(users.id, userId), isNotNull(users.bannedAt)))
    .returning({ id: users.id });
  if (lifted.length === 0) return fail("conflict", "This account is not banned");
  await audit(db, viewer.id, "customer.unban", userId, {}, ip);
  return ok();
}

/** Ends one session of the account (by its public id) or, with none named, all of them. */
export async function endCustomerSessions(
  deps: SessionDeps,
  { viewer, ip }: StaffActor,
  userId: string,
  session: string,
): Promise<Result<{ ended: number }>> {
  const found = await target(deps.db, viewer, "customers.sessions", userId);
  if (!found.ok) return found;
  const { count } = await endSessions(deps, userId, session ? { publicId: session } : { all: true });
  if (session && count === 0) return fail("not-found", "That session has already ended");
  await audit(deps.db, viewer.id, "customer.end-sessions", userId, session ? { session, ended: count } : { ended: count }, ip);
  return ok({ ended: count });
}

/** Gives the account a staff role, or none (a member). Sessions read the role on every request. */
export async function assignRole(
  db: Db,
  { viewer, ip }: StaffActor,
  userId: string,
  choice: RoleChoice,
): Promise<Result<{ role: Role | null }>> {
  if (userId === viewer.id && can(viewer.role, "roles.assign")) return fail("forbidden", "You cannot change your own role");
  const found = await target(db, viewer, "roles.assign", userId);
  if (!found.ok) return found;
  const from = found.value.role;
  const to = choice === "member" ? null : choice;
  if (from === to) return fail("conflict", "The account already has this role");
  if (to === null) await db.delete(userRoles).where(eq(userRoles.userId, userId));
  else
    await db
      .insert(userRoles)
      .values({ userId, role: to })
      .onConflictDoUpdate({ target: userRoles.userId, set: { role: to } });
  await audit(db, viewer.id, "customer.role", userId, { from: from ?? "member", to: choice }, ip);
  return ok({ role: to });
}
