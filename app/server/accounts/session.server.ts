// Server-side sessions. The browser holds a random 256-bit token; the database holds only its
// SHA-256, so a leaked table cannot be replayed. Sessions end after 7 idle days or 30 days in all.
import { and, eq, lt, or } from "drizzle-orm";
import type { Viewer } from "~/lib/viewer";
import { clearCookie, readCookie, serializeCookie } from "../platform/cookies.server";
import { randomToken, sha256Hex } from "../platform/tokens.server";
import type { Db } from "../platform/db/client.server";
import { profiles, sessions, userRoles, users } from "../platform/db/schema.server";

export const SESSION_COOKIE = "__Host-session";
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
// Sliding renewal writes at most once an hour per session, not on every request.
const TOUCH_INTERVAL_MS = 60 * 60 * 1000;

/** Starts a fresh session (never reuses one) and returns the Set-Cookie header for it. */
export async function createSession(db: Db, userId: string, request: Request, now = Date.now()): Promise<string> {
  const token = randomToken();
  await db.insert(sessions).values({
    id: await sha256Hex(token),
    userId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + SESSION_ABSOLUTE_MS,
    userAgent: request.headers.get("User-Agent")?.slice(0, 200) ?? null,
  });
  return serializeCookie(SESSION_COOKIE, token, SESSION_ABSOLUTE_MS / 1000);
}

async function sessionIdFrom(request: Request): Promise<string | null> {
  const token = readCookie(request, SESSION_COOKIE);
  // Tokens are 43 base64url characters; anything else is not ours.
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  return sha256Hex(token);
}

/** The signed-in account for this request, or null. Expired sessions are deleted on sight. */
export async function getViewer(db: Db, request: Request, now = Date.now()): Promise<Viewer | null> {
  const id = await sessionIdFrom(request);
  if (!id) return null;
  const row = await db
    .select({
      userId: sessions.userId,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      email: users.email,
      username: profiles.username,
      avatarUrl: profiles.avatarUrl,
      role: userRoles.role,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(profiles, eq(profiles.id, sessions.userId))
    .leftJoin(userRoles, and(eq(userRoles.userId, sessions.userId), eq(userRoles.role, "admin")))
    .where(eq(sessions.id, id))
    .get();
  if (!row) return null;
  if (row.expiresAt <= now || row.lastSeenAt + SESSION_IDLE_MS <= now) {
    await db.delete(sessions).where(eq(sessions.id, id));
    return null;
  }
  if (now - row.lastSeenAt >= TOUCH_INTERVAL_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, id));
  }
  return {
    id: row.userId,
    email: row.email,
    username: row.username,
    avatarUrl: row.avatarUrl,
    isAdmin: row.role === "admin",
  };
}

/** Deletes this request's session row and returns the header that clears the cookie. */
export async function destroySession(db: Db, request: Request): Promise<string> {
  const id = await sessionIdFrom(request);
  if (id) await db.delete(sessions).where(eq(sessions.id, id));
  return clearCookie(SESSION_COOKIE);
}

/** Housekeeping for the cron trigger: drop sessions past either limit. */
export async function deleteExpiredSessions(db: Db, now = Date.now()): Promise<void> {
  await db
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, now), lt(sessions.lastSeenAt, now - SESSION_IDLE_MS)));
}
