// Finding an account by its e-mail address or its username, both compared without regard to case.
import { eq, sql } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { profiles, users } from "../platform/db/schema.server";

const account = {
  id: users.id,
  email: users.email,
  passwordHash: users.passwordHash,
  verifiedAt: users.emailVerifiedAt,
  username: profiles.username,
};

/** The account whose e-mail (or username) equals `value`, ignoring case. */
function findBy(db: Db, column: typeof users.email | typeof profiles.username, value: string) {
  return db
    .select(account)
    .from(users)
    .innerJoin(profiles, eq(profiles.id, users.id))
    .where(sql`lower(${column}) = ${value.toLowerCase()}`)
    .get();
}

export const findByEmail = (db: Db, email: string) => findBy(db, users.email, email);

export const findByUsername = (db: Db, username: string) => findBy(db, profiles.username, username);
