// The blocklist (decision 093): staff block an e-mail address or domain, a PC, an IP address or
// range, a country or a Discord account, with a reason and an optional expiry, audited. This module
// answers "is this blocked?" for every door that enforces a block (sign-up and sign-in, Discord
// linking, a paid order; the licence check through licence-blocklist.server) and keeps the list. It sits low in the domain
// graph, next to platform, because so many domains ask it.
import { and, desc, eq, gte, lte, or, type SQL, sql } from "drizzle-orm";
import { type BlockKind, BLOCK_KIND_LABEL } from "~/lib/fraud";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { blockListVersion, blocks } from "../platform/db/schema.server";
import { addressHex, addressRange } from "./addresses.server";
import { blockStands } from "./licence-blocklist.server";

interface BlockValue {
  value: string;
  rangeStart?: string;
  rangeEnd?: string;
}

/** A block's value as stored (lower-cased, canonical), or why it cannot be one. */
export function blockValue(kind: BlockKind, raw: string): Result<BlockValue> {
  const text = raw.trim();
  switch (kind) {
    case "email": {
      const email = text.toLowerCase();
      return /^[^\s@]+@[^\s@]+$/.test(email) ? ok({ value: email }) : fail("invalid", "Enter an e-mail address", { field: "value" });
    }
    case "domain": {
      const domain = text.toLowerCase().replace(/^@/, "");
      return /^([a-z0-9-]+\.)+[a-z0-9-]{2,}$/.test(domain)
        ? ok({ value: domain })
        : fail("invalid", "Enter a domain such as example.com", { field: "value" });
    }
    case "hwid":
      return text.length >= 16 && text.length <= 256
        ? ok({ value: text })
        : fail("invalid", "A hardware id is 16 to 256 characters", { field: "value" });
    case "ip": {
      const range = addressRange(text);
      return range
        ? ok({ value: range.canonical, rangeStart: range.start, rangeEnd: range.end })
        : fail("invalid", "Enter an address (203.0.113.7) or a range (203.0.113.0/24, 2001:db8::/48)", { field: "value" });
    }
    case "country": {
      const country = text.toUpperCase();
      return /^[A-Z]{2}$/.test(country)
        ? ok({ value: country })
        : fail("invalid", "Enter a country's two letters, such as DE", { field: "value" });
    }
    case "discord":
      return /^\d{5,25}$/.test(text) ? ok({ value: text }) : fail("invalid", "Enter the Discord user id (a number)", { field: "value" });
  }
}

/** What a door knows of who is asking; each one is checked against the blocks of its kind. */
export interface Subject {
  email?: string | null;
  ip?: string | null;
  country?: string | null;
  discord?: string | null;
  hwid?: string | null;
}

export interface Match {
  id: number;
  kind: BlockKind;
  value: string;
  reason: string;
}

/** The standing blocks that match any part of `subject` (none when nothing of it is blocked). */
export async function blocksMatching(db: Db, subject: Subject, now = Date.now()): Promise<Match[]> {
  const terms: SQL[] = [];
  const email = subject.email?.trim().toLowerCase();
  if (email) {
    terms.push(and(eq(blocks.kind, "email"), eq(blocks.value, email))!);
    const domain = email.split("@")[1];
    if (domain) terms.push(and(eq(blocks.kind, "domain"), eq(blocks.value, domain))!);
  }
  const hex = subject.ip ? addressHex(subject.ip) : null;
  if (hex) terms.push(and(eq(blocks.kind, "ip"), lte(blocks.rangeStart, hex), gte(blocks.rangeEnd, hex))!);
  if (subject.country) terms.push(and(eq(blocks.kind, "country"), eq(blocks.value, subject.country.toUpperCase()))!);
  if (subject.discord) terms.push(and(eq(blocks.kind, "discord"), eq(blocks.value, subject.discord))!);
  if (subject.hwid) terms.push(and(eq(blocks.kind, "hwid"), eq(blocks.value, subject.hwid))!);
  if (terms.length === 0) return [];
  return db
    .select({ id: blocks.id, kind: blocks.kind, value: blocks.value, reason: blocks.reason })
    .from(blocks)
    .where(and(blockStands(now), or(...terms)));
}

/**
 * Gives the blocklist a new version, in the same batch as the change to `blocks`: the licence check
 * reads the version in its one statement and reads the list again when it differs from the one its
 * isolate keeps. A random value rather than a count, so a database restored from a backup never
 * shows again a version an isolate kept for other blocks (kept within JavaScript's safe integers).
 */
const newBlockListVersion = sql`abs(random() % 9007199254740991)`;
const renewBlockListVersion = (db: Db) =>
  db
    .insert(blockListVersion)
    .values({ id: 1, version: newBlockListVersion })
    .onConflictDoUpdate({ target: blockListVersion.id, set: { version: newBlockListVersion } });

export { addressHex };

export interface BlockActor {
  viewer: Viewer;
  ip: string | null;
}

/** Staff: one block, unless the same one already stands. Audited. */
export async function addBlock(
  db: Db,
  { viewer, ip }: BlockActor,
  input: { kind: BlockKind; value: string; reason: string; expires: number | null },
  now = Date.now(),
): Promise<Result<{ id: number; created: boolean }>> {
  if (input.expires !== null && input.expires <= now) return fail("invalid", "The expiry must be in the future", { field: "expires" });
  const value = blockValue(input.kind, input.value);
  if (!value.ok) return value;
  const standing = await db
    .select({ id: blocks.id })
    .from(blocks)
    .where(and(eq(blocks.kind, input.kind), eq(blocks.value, value.value.value), blockStands(now)))
    .get();
  if (standing) return ok({ id: standing.id, created: false });
  const [[inserted]] = await db.batch([
    db
      .insert(blocks)
      .values({
        kind: input.kind,
        ...value.value,
        reason: input.reason,
        expiresAt: input.expires,
        createdAt: now,
        createdBy: viewer.id,
      })
      .returning({ id: blocks.id }),
    renewBlockListVersion(db),
  ]);
  // An insert with `returning` answers the row it made.
  const row = inserted!;
  await audit(
    db,
    viewer.id,
    "block.add",
    `block:${row.id}`,
    { kind: input.kind, value: value.value.value, reason: input.reason, expiresAt: input.expires },
    ip,
  );
  return ok({ id: row.id, created: true });
}

/** Staff: lifts a standing block. The one that wins the conditional update audits; another gets a conflict. */
export async function liftBlock(
  db: Db,
  { viewer, ip }: BlockActor,
  blockId: number,
  now = Date.now(),
): Promise<Result<{ kind: BlockKind; value: string }>> {
  const [[lifted]] = await db.batch([
    db
      .update(blocks)
      .set({ liftedAt: now, liftedBy: viewer.id })
      .where(and(eq(blocks.id, blockId), blockStands(now)))
      .returning({ kind: blocks.kind, value: blocks.value }),
    renewBlockListVersion(db),
  ]);
  if (!lifted) return fail("conflict", "This block was already lifted or has expired");
  await audit(db, viewer.id, "block.lift", `block:${blockId}`, { kind: lifted.kind, value: lifted.value }, ip);
  return ok(lifted);
}

export const BLOCKS_PER_PAGE = 100;

/** The list staff see: standing blocks first (newest first), then the latest lifted or expired ones. */
export async function listBlocks(db: Db, now = Date.now()) {
  const rows = await db
    .select()
    .from(blocks)
    .orderBy(desc(blocks.createdAt), desc(blocks.id))
    .limit(BLOCKS_PER_PAGE * 2);
  const shaped = rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    kindLabel: BLOCK_KIND_LABEL[row.kind],
    value: row.value,
    reason: row.reason,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    liftedAt: row.liftedAt,
    standing: row.liftedAt === null && (row.expiresAt === null || row.expiresAt > now),
  }));
  return {
    standing: shaped.filter((row) => row.standing).slice(0, BLOCKS_PER_PAGE),
    ended: shaped.filter((row) => !row.standing).slice(0, 20),
  };
}
