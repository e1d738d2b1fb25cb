// Finding an account by its e-mail address or its username, both compared without regard to case.
// A registration whose address was not verified within a day counts as gone here, even before the
// cron job deletes it: it cannot sign in, be verified or be sent a reset link.
import { and, eq, gt, isNotNull, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { profiles, users } from "../platform/db/schema.server";

/** How long an account whose e-mail address was never verified lasts. */
export const REGISTRATION_TTL_MS = 24 * 60 * 60 * 1000;

/** The condition an account meets while it lasts: verified, or registered less than a day ago. */
export function isLiveAccount(now: number) {
  return or(isNotNull(users.emailVerifiedAt), gt(users.createdAt, now - REGISTRATION_TTL_MS))!;
}

const account = {
  id: users.id,
  email: users.email,
  passwordHash: users.passwordHash,
  verifiedAt: users.emailVerifiedAt,
  createdAt: users.createdAt,
  username: profiles.username,
};

/** The lasting account that meets `where`. */
function findLive(db: Db, where: SQL, now: number) {
  return db
    .select(account)
    .from(users)
    .innerJoin(profiles, eq(profiles.id, users.id))
    .where(and(where, isLiveAccount(now)))
    .get();
}

export const findById = (db: Db, id: string, now = Date.now()) => findLive(db, eq(users.id, id), now);

export const findByEmail = (db: Db, email: string, now = Date.now()) =>
  findLive(db, sql`lower(${users.email}) = ${email.toLowerCase()}`, now);

export const findByUsername = (db: Db, username: string, now = Date.now()) =>
  findLive(db, sql`lower(${profiles.username}) = ${username.toLowerCase()}`, now);

/** `findByEmail` for a value with "@", else `findByUsername`: how the sign-in and reset forms read their one field. */
export const findByEmailOrUsername = (db: Db, value: string, now = Date.now()) =>
  value.includes("@") ? findByEmail(db, value, now) : findByUsername(db, value, now);

/**
 * Every account holding `email` or `username`, whether it lasts or not: what a new account has to
 * replace or give way to.
 */
export function holdersOf(db: Db, email: string, username: string) {
  return db
    .select(account)
    .from(users)
    .innerJoin(profiles, eq(profiles.id, users.id))
    .where(sql`lower(${users.email}) = ${email.toLowerCase()} or lower(${profiles.username}) = ${username.toLowerCase()}`)
    .all();
}
