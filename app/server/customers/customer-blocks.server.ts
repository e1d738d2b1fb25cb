// Blocking a customer with what is known of them (decision 093), in one confirmation: their account's
// e-mail address always, and whichever of their known PCs (the PCs their keys are or were bound to),
// addresses (where their sessions started) and other e-mails (their crypto orders') staff left ticked.
// Each block is the blocklist's own, audited there; the whole is audited on the account too.
import { and, desc, eq, isNotNull, sql } from "drizzle-orm";
import type { BlockKind } from "~/lib/fraud";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { addBlock, addressHex } from "../blocks/blocks.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { cryptoOrders, licenceResets, licences, sessions, users } from "../platform/db/schema.server";

export interface KnownOfCustomer {
  email: string;
  emails: string[];
  hwids: string[];
  ips: string[];
}

const LIMIT = 20;

/** What the shop knows of an account that a block could name; null for no such account. */
export async function knownOfCustomer(db: Db, userId: string): Promise<KnownOfCustomer | null> {
  const account = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).get();
  if (!account) return null;
  const email = account.email.toLowerCase();
  const ownKeys = sql`lower(${licences.ownerEmail}) = ${email}`;
  const [orderEmails, bound, previous, addresses] = await Promise.all([
    db
      .selectDistinct({ email: sql<string>`lower(${cryptoOrders.customerEmail})` })
      .from(cryptoOrders)
      .where(eq(cryptoOrders.userId, userId))
      .limit(LIMIT),
    db
      .selectDistinct({ hwid: licences.hwid })
      .from(licences)
      .where(and(ownKeys, isNotNull(licences.hwid)))
      .limit(LIMIT),
    db
      .selectDistinct({ hwid: licenceResets.previousHwid })
      .from(licenceResets)
      .innerJoin(licences, eq(licences.id, licenceResets.licenceId))
      .where(and(ownKeys, isNotNull(licenceResets.previousHwid)))
      .limit(LIMIT),
    db
      .select({ ip: sessions.ip })
      .from(sessions)
      .where(and(eq(sessions.userId, userId), isNotNull(sessions.ip)))
      .orderBy(desc(sessions.createdAt))
      .limit(LIMIT * 2),
  ]);
  return {
    email,
    emails: [...new Set(orderEmails.map((o) => o.email).filter((e) => e && e !== email))],
    hwids: [...new Set([...bound, ...previous].map((row) => row.hwid!))],
    // Only what is an address (a script or test may name its caller otherwise).
    ips: [...new Set(addresses.map((row) => row.ip!))].filter((ip) => addressHex(ip) !== null).slice(0, LIMIT),
  };
}

const KINDS: Record<string, BlockKind> = { email: "email", hwid: "hwid", ip: "ip" };

/**
 * Staff: blocks the account's e-mail and each of `also` ("email:…", "hwid:…", "ip:…"), with one
 * reason and expiry. A value already blocked stays as it was. Refused for staff accounts.
 */
export async function blockCustomer(
  db: Db,
  actor: { viewer: Viewer; ip: string | null },
  userId: string,
  input: { reason: string; expires: number | null; also: string[] },
  now = Date.now(),
): Promise<Result<{ blocked: number }>> {
  if (userId === actor.viewer.id) return fail("forbidden", "You cannot block your own account");
  const known = await knownOfCustomer(db, userId);
  if (!known) return fail("not-found", "No such customer");
  const targets: { kind: BlockKind; value: string }[] = [{ kind: "email", value: known.email }];
  for (const item of input.also) {
    const at = item.indexOf(":");
    const kind = KINDS[item.slice(0, at)];
    if (at > 0 && kind) targets.push({ kind, value: item.slice(at + 1) });
  }
  let blocked = 0;
  for (const target of targets) {
    const added = await addBlock(db, actor, { ...target, reason: input.reason, expires: input.expires }, now);
    if (!added.ok) return added;
    if (added.value.created) blocked++;
  }
  await audit(
    db,
    actor.viewer.id,
    "customer.block",
    userId,
    { reason: input.reason, blocks: targets.map((t) => `${t.kind}:${t.value}`).join(", ") },
    actor.ip,
  );
  return ok({ blocked });
}
