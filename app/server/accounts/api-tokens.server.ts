// API tokens a reseller or a member of staff makes for their own programs: shown once, kept only
// as a SHA-256 hash, listed with their last use and revocable in one step (decision 096).
import { and, desc, eq, isNull } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { ApiTokenInput } from "~/lib/schemas/api-tokens";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Caller } from "../platform/caller.server";
import type { Db } from "../platform/db/client.server";
import { apiTokens, resellerAccounts, users } from "../platform/db/schema.server";
import { randomToken, sha256Hex } from "../platform/tokens.server";
import { verifyPassword } from "./password.server";
import { attemptSucceeded, reserveAttempt, throttled, throttleKeys } from "./throttle.server";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The prefix tells a leaked token apart in logs and secret scanners. */
const TOKEN_PREFIX = "vtx_";

/** Whether the account may hold API tokens: staff, or a member with the reseller panel. */
async function mayHoldTokens(db: Db, viewer: Viewer): Promise<boolean> {
  if (viewer.role) return true;
  const reseller = await db
    .select({ userId: resellerAccounts.userId })
    .from(resellerAccounts)
    .where(eq(resellerAccounts.userId, viewer.id))
    .get();
  return reseller !== undefined;
}

/** The member's tokens, newest first, without anything that would let one be used. */
export async function listApiTokens(db: Db, viewer: Viewer, now = Date.now()) {
  if (!(await mayHoldTokens(db, viewer))) return null;
  const rows = await db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      scopes: apiTokens.scopes,
      createdAt: apiTokens.createdAt,
      expiresAt: apiTokens.expiresAt,
      revokedAt: apiTokens.revokedAt,
      lastUsedAt: apiTokens.lastUsedAt,
      lastUsedIp: apiTokens.lastUsedIp,
    })
    .from(apiTokens)
    .where(eq(apiTokens.userId, viewer.id))
    .orderBy(desc(apiTokens.id))
    .all();
  return rows.map((row) => ({
    ...row,
    scopes: row.scopes.split(" "),
    active: row.revokedAt === null && (row.expiresAt === null || row.expiresAt > now),
  }));
}

/**
 * A new token, given the account's password (a stolen session alone cannot mint one). The token
 * itself is returned this once; only its hash is stored.
 */
export async function createApiToken(
  db: Db,
  viewer: Viewer,
  caller: Caller,
  input: ApiTokenInput,
  now = Date.now(),
): Promise<Result<{ token: string }>> {
  if (!(await mayHoldTokens(db, viewer))) return fail("forbidden", "API tokens are for resellers and staff.");
  const account = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, viewer.id)).get();
  if (account?.passwordHash) {
    const reservation = await reserveAttempt(db, throttleKeys(caller.ip, viewer.id), now);
    if (!reservation.ok) return throttled(reservation.waitMs, "password attempts");
    if (!(await verifyPassword(input.password, account.passwordHash)))
      return fail("unauthenticated", "Wrong password", { field: "password" });
    await attemptSucceeded(db, reservation);
  }
  const token = `${TOKEN_PREFIX}${randomToken()}`;
  const expiresAt = input.expiresInDays ? now + Number(input.expiresInDays) * DAY_MS : null;
  const row = await db
    .insert(apiTokens)
    .values({
      userId: viewer.id,
      name: input.name,
      tokenHash: await sha256Hex(token),
      scopes: input.scopes.join(" "),
      createdAt: now,
      expiresAt,
    })
    .returning({ id: apiTokens.id })
    .get();
  await audit(db, viewer.id, "api-token.create", viewer.id, { token: row.id, name: input.name, scopes: input.scopes }, caller.ip);
  return ok({ token });
}

/** Revokes one of the account's own tokens; every use after this is refused. */
export async function revokeApiToken(db: Db, viewer: Viewer, caller: Caller, tokenId: number, now = Date.now()): Promise<Result> {
  const revoked = await db
    .update(apiTokens)
    .set({ revokedAt: now })
    .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, viewer.id), isNull(apiTokens.revokedAt)))
    .returning({ name: apiTokens.name })
    .get();
  // Another account's token and one already revoked answer alike.
  if (!revoked) return fail("not-found", "That token is already revoked.");
  await audit(db, viewer.id, "api-token.revoke", viewer.id, { token: tokenId, name: revoked.name }, caller.ip);
  return ok();
}
