// Server-side sessions. The browser holds a random 256-bit token; the database holds only its
// SHA-256, so a leaked table cannot be replayed. Sessions end after 7 idle days or 30 days in all,
// or when the member ends them (one, all but this one, or all of them: see `endSessions`).
import { and, desc, eq, gt, isNull, lt, ne, or, type SQL, sql } from "drizzle-orm";
import type { Viewer } from "~/lib/viewer";
import { type Caller, forgetToken, keepToken, type TokenChange } from "../platform/caller.server";
import { randomToken, sha256Hex, tokenHash } from "../platform/tokens.server";
import type { Db } from "../platform/db/client.server";
import { builtOnce, type Read, read, readAlone } from "../platform/db/reads.server";
import { profiles, sessions, userRoles, users } from "../platform/db/schema.server";
import { describeDevice } from "./device.server";

export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
// Sliding renewal writes at most once an hour per session, not on every request.
const TOUCH_INTERVAL_MS = 60 * 60 * 1000;

/** Starts a fresh session (never reuses one) and returns the token the browser is to keep. */
export async function createSession(db: Db, userId: string, caller: Caller, now = Date.now()): Promise<TokenChange> {
  const token = randomToken();
  await db.insert(sessions).values({
    id: await sha256Hex(token),
    publicId: randomToken(),
    userId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + SESSION_ABSOLUTE_MS,
    userAgent: caller.userAgent,
    place: caller.place,
    ip: caller.ip === "local" ? null : caller.ip,
  });
  return keepToken("session", token, SESSION_ABSOLUTE_MS / 1000);
}

export function sessionIdFrom(caller: Caller): Promise<string | null> {
  return tokenHash(caller.tokens.session ?? null);
}

// Every signed-in request reads its session: the statement is built once per database, in each
// isolate, and a request binds only its token's hash. Building it cost about as much CPU as running it.
function prepareSessionRead(db: Db) {
  return (
    db
      .select({
        publicId: sessions.publicId,
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
      .leftJoin(userRoles, eq(userRoles.userId, sessions.userId))
      // A banned account's sessions are ended when it is banned; this keeps any straggler out.
      .where(and(eq(sessions.id, sql.placeholder("id")), isNull(users.bannedAt)))
      .prepare()
  );
}

const sessionRead = builtOnce(prepareSessionRead);

/** The signed-in account of this caller and the public name of its session, or null. */
export async function getSession(db: Db, caller: Caller, now = Date.now()): Promise<{ viewer: Viewer; publicId: string } | null> {
  const id = await sessionIdFrom(caller);
  if (!id) return null;
  const row = await sessionRead(db).get({ id });
  if (!row) return null;
  if (row.expiresAt <= now || row.lastSeenAt + SESSION_IDLE_MS <= now) {
    await db.delete(sessions).where(eq(sessions.id, id));
    return null;
  }
  if (now - row.lastSeenAt >= TOUCH_INTERVAL_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, id));
  }
  return {
    viewer: { id: row.userId, email: row.email, username: row.username, avatarUrl: row.avatarUrl, role: row.role },
    publicId: row.publicId,
  };
}

/** The signed-in account of this caller, or null. Expired sessions are deleted on sight. */
export async function getViewer(db: Db, caller: Caller, now = Date.now()): Promise<Viewer | null> {
  return (await getSession(db, caller, now))?.viewer ?? null;
}

/**
 * Told the public names of sessions that have just ended, so that whatever they hold open (chat
 * sockets) closes too. The accounts domain does not know what that is; the Worker wires it up.
 */
export type SessionsEnded = (publicIds: string[]) => Promise<void>;

export interface SessionDeps {
  db: Db;
  sessionsEnded: SessionsEnded;
}

/** Which of an account's sessions to end. */
export type SessionSelection =
  | { all: true }
  /** Every session but the one this caller is signed in with. */
  | { allBut: Caller }
  | { publicId: string };

/** Deletes the sessions `where` selects and tells whoever listens which ended. */
async function endWhere({ db, sessionsEnded }: SessionDeps, where: SQL | undefined): Promise<{ id: string; publicId: string }[]> {
  const ended = await db.delete(sessions).where(where).returning({ id: sessions.id, publicId: sessions.publicId });
  if (ended.length > 0) await sessionsEnded(ended.map((s) => s.publicId));
  return ended;
}

/**
 * Ends sessions of `userId` and answers how many ended, and whether the one `caller` is signed in
 * with was among them. A session of another account is never touched.
 */
export async function endSessions(
  deps: SessionDeps,
  userId: string,
  which: SessionSelection,
  caller?: Caller,
): Promise<{ count: number; endedCurrent: boolean }> {
  const mine = eq(sessions.userId, userId);
  let where = mine;
  if ("allBut" in which) {
    const current = await sessionIdFrom(which.allBut);
    where = current ? and(mine, ne(sessions.id, current))! : mine;
  } else if ("publicId" in which) {
    where = and(mine, eq(sessions.publicId, which.publicId))!;
  }
  const ended = await endWhere(deps, where);
  const current = caller ? await sessionIdFrom(caller) : null;
  return { count: ended.length, endedCurrent: current !== null && ended.some((s) => s.id === current) };
}

/** Ends the caller's session (if any); the browser is to forget its token. */
export async function destroySession(deps: SessionDeps, caller: Caller): Promise<TokenChange> {
  const id = await sessionIdFrom(caller);
  if (id) await endWhere(deps, eq(sessions.id, id));
  return forgetToken("session");
}

export interface SessionSummary {
  publicId: string;
  /** "Chrome on Windows", from the User-Agent the session started with. */
  device: string;
  place: string | null;
  createdAt: number;
  lastSeenAt: number;
  /** The session the caller is signed in with. */
  current: boolean;
}

/** An account's live sessions, the most recently used first; `current` is the caller's own session (`sessionIdFrom`). */
export function sessionsRead(db: Db, userId: string, current: string | null, now = Date.now()): Read<SessionSummary[]> {
  return read(
    [
      db
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, now), gt(sessions.lastSeenAt, now - SESSION_IDLE_MS)))
        .orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt)),
    ],
    ([rows]) =>
      rows.map((row) => ({
        publicId: row.publicId,
        device: describeDevice(row.userAgent),
        place: row.place,
        createdAt: row.createdAt,
        lastSeenAt: row.lastSeenAt,
        current: row.id === current,
      })),
  );
}

/** An account's live sessions, the most recently used first. */
export async function listSessions(db: Db, userId: string, caller: Caller, now = Date.now()): Promise<SessionSummary[]> {
  return readAlone(db, sessionsRead(db, userId, await sessionIdFrom(caller), now));
}

/** Housekeeping for the cron trigger: drop sessions past either limit. */
export async function deleteExpiredSessions(deps: SessionDeps, now = Date.now()): Promise<void> {
  await endWhere(deps, or(lt(sessions.expiresAt, now), lt(sessions.lastSeenAt, now - SESSION_IDLE_MS)));
}
