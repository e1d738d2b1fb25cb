// Opening an account, for an e-mail sign-up or a first sign-in with Discord. An address belongs to
// whoever proves it, so a registration that never verified its address is replaced, not kept:
// registering someone else's address first wins nothing (decision 027).
import { and, inArray, isNull } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { profiles, users } from "../platform/db/schema.server";
import { holdersOf, REGISTRATION_TTL_MS } from "./directory.server";

export interface NewAccount {
  email: string;
  username: string;
  /** Null for an account that signs in only through Discord. */
  passwordHash: string | null;
  /** When the address was proven; null until the verification link is followed. */
  verifiedAt: number | null;
  avatarUrl?: string | null;
}

export interface OpenedAccount {
  id: string;
}

const accountExists = () => fail("conflict", "This email is already registered. Try logging in instead.", { field: "email" });
const usernameTaken = () => fail("conflict", "This username is already taken. Please choose another.", { field: "username" });

/** Which unique index refused an insert, if that is why it failed. */
function uniqueClash(error: unknown): "email" | "username" | null {
  const message = String(error instanceof Error ? (error.cause ?? error.message) : error);
  if (message.includes("users_email_unique") || message.includes("users.email")) return "email";
  if (message.includes("profiles_username_unique") || message.includes("profiles.username")) return "username";
  return null;
}

/**
 * Creates the account. An unverified account with the same address is deleted in the same batch
 * (its sessions, links and second factor go with it), and so is an expired registration holding
 * the username. A verified account with the address, or a lasting one with the username, wins:
 * `conflict`, with the field. `how` says in the audit log what opened the account.
 */
export async function openAccount(
  db: Db,
  account: NewAccount,
  { how, ip, now = Date.now() }: { how: "sign-up" | "discord"; ip: string | null; now?: number },
): Promise<Result<OpenedAccount>> {
  const email = account.email.toLowerCase();
  const username = account.username.toLowerCase();
  // A lost race with another sign-up for the same address or name is looked at once more, with
  // the winner in place: an unverified winner is replaced in turn, a verified one wins.
  for (let attempt = 1; ; attempt++) {
    const holders = await holdersOf(db, email, username);
    const byEmail = holders.find((h) => h.email.toLowerCase() === email);
    const byName = holders.find((h) => h.username.toLowerCase() === username);
    if (byEmail?.verifiedAt) return accountExists();
    const nameExpired = byName !== undefined && byName.verifiedAt === null && byName.createdAt <= now - REGISTRATION_TTL_MS;
    if (byName && byName.id !== byEmail?.id && !nameExpired) return usernameTaken();
    const replaced = [...new Set([byEmail?.id, nameExpired ? byName.id : undefined].filter((id) => id !== undefined))];

    const id = crypto.randomUUID();
    try {
      await db.batch([
        // Only while still unverified: had one been verified meanwhile, it stays, and the insert
        // below fails on its address or name, which undoes the whole batch.
        db.delete(users).where(and(inArray(users.id, replaced), isNull(users.emailVerifiedAt))),
        db
          .insert(users)
          .values({ id, email: account.email, passwordHash: account.passwordHash, emailVerifiedAt: account.verifiedAt, createdAt: now }),
        db.insert(profiles).values({ id, username: account.username, avatarUrl: account.avatarUrl ?? null, createdAt: now }),
      ]);
    } catch (error) {
      const clash = uniqueClash(error);
      if (!clash) throw error;
      if (attempt < 2) continue;
      return clash === "email" ? accountExists() : usernameTaken();
    }
    for (const old of replaced) await audit(db, null, "registration.replace", id, { replacedUserId: old, how }, ip);
    return ok({ id });
  }
}
