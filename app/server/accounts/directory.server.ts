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

export async function findByEmail(db: Db, email: string) {
  return db
    .select(account)
    .from(users)
    .innerJoin(profiles, eq(profiles.id, users.id))
    .where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
    .get();
}

export async function findByUsername(db: Db, username: string) {
  return db
    .select(account)
    .from(profiles)
    .innerJoin(users, eq(users.id, profiles.id))
    .where(sql`lower(${profiles.username}) = ${username.toLowerCase()}`)
    .get();
}
