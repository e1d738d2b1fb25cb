// The blocklist as the licence check judges it (decisions 093 and 112): the PC, address and
// country blocks, read once per version of the list and kept by the isolate. Apart from the staff's
// side of the blocklist (blocks.server: adding, lifting, the audit log), which a licence check
// never loads (decision 116).
import { and, eq, gt, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../platform/db/client.server";
import { blockListVersion, blocks } from "../platform/db/schema.server";

/** A block stands while nobody lifted it and it has not expired. */
export const blockStands = (now: number | SQL) => and(isNull(blocks.liftedAt), or(isNull(blocks.expiresAt), gt(blocks.expiresAt, now)));

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
