// API tokens a reseller or a member of staff makes for their own programs: shown once, kept only
// as a SHA-256 hash, listed with their last use and revocable in one step (decisions 096 and 097).
// A token's scopes are what it was granted, narrowed at every use to what its account may still
// grant: a member of staff who loses a capability takes it from their tokens too.
import { and, desc, eq, isNull, lte, or, type SQL } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { type ApiScope, type ApiTokenInput, chosenScopes, grantableScopes } from "~/lib/schemas/api-tokens";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Caller } from "../platform/caller.server";
import type { Db } from "../platform/db/client.server";
import { apiTokens, profiles, resellerAccounts, userRoles, users } from "../platform/db/schema.server";
import { randomToken, sha256Hex } from "../platform/tokens.server";
import { confirmPassword } from "./password-confirmation.server";
import { checkSecondFactor, hasTwoFactor } from "./two-factor.server";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The prefix tells a leaked token apart in logs and secret scanners. */
const TOKEN_PREFIX = "vtx_";
/** A token's last use is written at most this often, so a busy program costs no write per call. */
const LAST_USE_INTERVAL_MS = 60_000;

const hasResellerPanel = (db: Db, userId: string) =>
  db.select({ userId: resellerAccounts.userId }).from(resellerAccounts).where(eq(resellerAccounts.userId, userId)).get();

/** The scopes the account may grant now: none for a member without the reseller panel. */
async function scopesOf(db: Db, viewer: Viewer): Promise<ApiScope[]> {
  return grantableScopes({ role: viewer.role, reseller: (await hasResellerPanel(db, viewer.id)) !== undefined });
}

/** The Security page's card: the scopes the account may grant and its tokens, newest first; null when it may hold none. */
export async function apiTokensCard(db: Db, viewer: Viewer, now = Date.now()) {
  const scopes = await scopesOf(db, viewer);
  if (scopes.length === 0) return null;
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
  const tokens = rows.map((row) => ({
    ...row,
    scopes: row.scopes.split(" "),
    active: row.revokedAt === null && (row.expiresAt === null || row.expiresAt > now),
  }));
  return { scopes, tokens, secondFactor: await hasTwoFactor(db, viewer.id) };
}

/**
 * The account's owner proves it is them: a code from the authenticator app (or a recovery code)
 * where two-factor is on, else the password. An account with neither has nothing to prove it with.
 */
async function confirmTokenMaker(db: Db, totpKey: string, viewer: Viewer, caller: Caller, input: ApiTokenInput, now: number) {
  const secondFactor = await hasTwoFactor(db, viewer.id);
  if (input.code && secondFactor) return checkSecondFactor(db, totpKey, viewer, caller, input.code, now);
  const confirmed = await confirmPassword(db, caller, viewer.id, input.password, now);
  if (!confirmed.ok) return confirmed;
  if (confirmed.value.checked) return ok();
  return secondFactor
    ? fail("invalid", "Enter a code from your authenticator app, or a recovery code", { field: "code" })
    : fail("conflict", 'Your account has no password yet. Use "Forgot your password?" on the sign-in page to set one first.');
}

/**
 * A new token, given the password or the second factor (a stolen session alone cannot mint one).
 * The token itself is returned this once; only its hash is stored.
 */
export async function createApiToken(
  db: Db,
  totpKey: string,
  viewer: Viewer,
  caller: Caller,
  input: ApiTokenInput,
  now = Date.now(),
): Promise<Result<{ token: string }>> {
  const allowed = await scopesOf(db, viewer);
  if (allowed.length === 0) return fail("forbidden", "API tokens are for resellers and staff.");
  const scopes = chosenScopes(input);
  if (scopes.length === 0) return fail("invalid", "Choose at least one scope", { field: "scopes" });
  if (scopes.some((scope) => !allowed.includes(scope))) return fail("forbidden", "Your account may not grant that scope.");
  const confirmed = await confirmTokenMaker(db, totpKey, viewer, caller, input, now);
  if (!confirmed.ok) return confirmed;
  const token = `${TOKEN_PREFIX}${randomToken()}`;
  const expiresAt = input.expiresInDays ? now + Number(input.expiresInDays) * DAY_MS : null;
  const row = await db
    .insert(apiTokens)
    .values({ userId: viewer.id, name: input.name, tokenHash: await sha256Hex(token), scopes: scopes.join(" "), createdAt: now, expiresAt })
    .returning({ id: apiTokens.id })
    .get();
  await audit(db, viewer.id, "api-token.create", viewer.id, { token: row.id, name: input.name, scopes }, caller.ip);
  return ok({ token });
}

/** Revoking the account's tokens still in force, those `which` picks or all of them: a statement not yet run. */
const revocation = (db: Db, userId: string, now: number, which?: SQL) =>
  db
    .update(apiTokens)
    .set({ revokedAt: now })
    .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt), which));

/** Every token of the account revoked, as a statement to batch with a password reset's others; it returns their ids. */
export const everyTokenRevoked = (db: Db, userId: string, now: number) => revocation(db, userId, now).returning({ id: apiTokens.id });

/** Revokes one of the account's own tokens; every use after this is refused. */
export async function revokeApiToken(db: Db, viewer: Viewer, caller: Caller, tokenId: number, now = Date.now()): Promise<Result> {
  const revoked = await revocation(db, viewer.id, now, eq(apiTokens.id, tokenId)).returning({ name: apiTokens.name }).get();
  // Another account's token and one already revoked answer alike.
  if (!revoked) return fail("not-found", "That token is already revoked.");
  await audit(db, viewer.id, "api-token.revoke", viewer.id, { token: tokenId, name: revoked.name }, caller.ip);
  return ok();
}

/** Who a program calling with a token acts as, and what it may do now. */
export interface TokenHolder {
  token: { id: number; name: string; scopes: ApiScope[] };
  viewer: Viewer;
  /** Whether the account has the reseller panel (its own keys and balance). */
  reseller: boolean;
}

const REFUSED = "The token is unknown, revoked or expired";

/**
 * The account behind a bearer token: one indexed read by the token's hash. A revoked or expired
 * token, and one whose account is banned or deleted, opens nothing. The last use (time and
 * address) is written at most once a minute.
 */
export async function tokenHolder(db: Db, bearer: string, ip: string | null, now = Date.now()): Promise<Result<TokenHolder>> {
  if (!bearer.startsWith(TOKEN_PREFIX)) return fail("unauthenticated", REFUSED);
  const row = await db
    .select({
      token: apiTokens,
      email: users.email,
      bannedAt: users.bannedAt,
      deletedAt: users.deletedAt,
      username: profiles.username,
      avatarUrl: profiles.avatarUrl,
      role: userRoles.role,
      reseller: resellerAccounts.userId,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .innerJoin(profiles, eq(profiles.id, apiTokens.userId))
    .leftJoin(userRoles, eq(userRoles.userId, apiTokens.userId))
    .leftJoin(resellerAccounts, eq(resellerAccounts.userId, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, await sha256Hex(bearer)))
    .get();
  if (!row || row.token.revokedAt !== null || (row.token.expiresAt !== null && row.token.expiresAt <= now))
    return fail("unauthenticated", REFUSED);
  if (row.bannedAt !== null || row.deletedAt !== null) return fail("forbidden", "This account may no longer use the API");
  const { token } = row;
  if (token.lastUsedAt === null || token.lastUsedAt <= now - LAST_USE_INTERVAL_MS) {
    await db
      .update(apiTokens)
      .set({ lastUsedAt: now, lastUsedIp: ip })
      // Of two calls in the same moment, one writes.
      .where(and(eq(apiTokens.id, token.id), or(isNull(apiTokens.lastUsedAt), lte(apiTokens.lastUsedAt, now - LAST_USE_INTERVAL_MS))));
  }
  const viewer: Viewer = { id: token.userId, email: row.email, username: row.username, avatarUrl: row.avatarUrl, role: row.role ?? null };
  const reseller = row.reseller !== null;
  const grantable = grantableScopes({ role: viewer.role, reseller });
  const scopes = token.scopes.split(" ").filter((scope): scope is ApiScope => grantable.includes(scope as ApiScope));
  return ok({ token: { id: token.id, name: token.name, scopes }, viewer, reseller });
}
