// The blocklist (decision 093): staff block an e-mail address or domain, a PC, an IP address or
// range, a country or a Discord account, with a reason and an optional expiry, audited. This module
// answers "is this blocked?" for every door that enforces a block (sign-up and sign-in, Discord
// linking, a paid order, the licence check) and keeps the list. It sits low in the domain
// graph, next to platform, because so many domains ask it.
import { and, desc, eq, gt, gte, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import { type BlockKind, BLOCK_KIND_LABEL } from "~/lib/fraud";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { blockListVersion, blocks } from "../platform/db/schema.server";
import { addressHex, addressRange } from "./addresses.server";

/** A block stands while nobody lifted it and it has not expired. */
export const blockStands = (now: number | SQL) => and(isNull(blocks.liftedAt), or(isNull(blocks.expiresAt), gt(blocks.expiresAt, now)));

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

/** The blocklist's version, as SQL for the licence check's one read (decision 112). */
export const blockListVersionSql = sql<
  number | null
>`(select ${blockListVersion.version} from ${blockListVersion} where ${blockListVersion.id} = 1)`;

/** Who asks, as the licence check's blocklist judges it: the PC, the address as 32 hex digits ("" for none), the country. */
export interface Asker {
  hwid: string;
  address: string;
  country: string;
}

/** The standing PC, address and country blocks, each with when it ends (Infinity: never). */
interface LicenceBlocklist {
  version: number;
  pcs: Map<string, number>;
  countries: Map<string, number>;
  ranges: { start: string; end: string; until: number }[];
}

/**
 * The blocks the licence check judges by, as this isolate last read them. Kept by version, not by
 * time: any change to the blocklist gives it a new version, so the next check of any isolate sees
 * another version in its own read and reads the list again before answering. Only the list is kept, not
 * a read's promise, which one request must not await for another.
 */
let kept: LicenceBlocklist | undefined;

async function readLicenceBlocklist(db: Db, version: number, now: number): Promise<LicenceBlocklist> {
  const rows = await db
    .select({
      kind: blocks.kind,
      value: blocks.value,
      rangeStart: blocks.rangeStart,
      rangeEnd: blocks.rangeEnd,
      expiresAt: blocks.expiresAt,
    })
    .from(blocks)
    // Blocks that end before the present are left out; each check judges the others' ends by its own clock.
    .where(and(blockStands(Math.min(now, Date.now())), or(eq(blocks.kind, "hwid"), eq(blocks.kind, "ip"), eq(blocks.kind, "country"))));
  const list: LicenceBlocklist = { version, pcs: new Map(), countries: new Map(), ranges: [] };
  for (const { kind, value, rangeStart, rangeEnd, expiresAt } of rows) {
    const until = expiresAt ?? Infinity;
    if (kind === "ip" && rangeStart && rangeEnd) list.ranges.push({ start: rangeStart, end: rangeEnd, until });
    const byValue = kind === "hwid" ? list.pcs : kind === "country" ? list.countries : undefined;
    if (byValue) byValue.set(value, Math.max(until, byValue.get(value) ?? 0));
  }
  kept = list;
  return list;
}

/**
 * The licence check's own test (decision 112): which block, if any, stands against the PC (`pc`) or
 * the caller's network (`network`: its address, range or country), judged against the blocklist of
 * `version`, the version the check's own read saw. An empty list costs no more than the map lookups.
 */
export async function licenceBlock(db: Db, version: number | null, asker: Asker, now: number): Promise<"pc" | "network" | null> {
  // The kept list answers without waiting on anything while the version stands.
  const list = kept?.version === (version ?? 0) ? kept : await readLicenceBlocklist(db, version ?? 0, now);
  if ((list.pcs.get(asker.hwid) ?? 0) > now) return "pc";
  const { address } = asker;
  if (address && list.ranges.some((range) => range.until > now && range.start <= address && range.end >= address)) return "network";
  return (list.countries.get(asker.country) ?? 0) > now ? "network" : null;
}

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
