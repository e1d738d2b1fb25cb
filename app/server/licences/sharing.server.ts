// Shared-key detection (decisions 093 and 105). Each licence check of an existing key tells the
// watch of the key's group (a Durable Object per group of licences, workers/key-watch.ts) where it
// came from: each key and address at most once an hour per isolate, and the addresses new since the
// last message gathered into at most one message a minute per group, sent after the answer and
// with no D1 write of its own: the check's hot path stays one read. The watch counts each key's
// distinct addresses and countries of the window and, when a threshold is reached, this module
// flags the licence on the Licences-at-risk list (once while a flag is open) and, above the second
// threshold when staff set one, suspends it. Staff suspend, ban or dismiss a flag, claiming it first.
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { ANSWER_REASON, type FraudSettings } from "~/lib/fraud";
import { maskKey } from "~/lib/licences";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { licenceRiskFlags, licences } from "../platform/db/schema.server";
import { type KeyWatchNamespace, type Sighting, watchOf } from "./sighting-reports.server";

// What the licence check reports lives apart, so that the check does not load the staff's side.
export {
  type KeyWatchNamespace,
  type LicenceReports,
  type Sighting,
  SightingReports,
  WATCH_GROUPS,
  watchNameOf,
} from "./sighting-reports.server";

/** A licence's sightings, newest first (none when the shop has no watch, as in scripts). */
export async function sightingsOf(watch: KeyWatchNamespace | undefined, licenceId: number): Promise<Sighting[]> {
  if (!watch) return [];
  return (await watchOf(watch, licenceId).sightings(licenceId)).toSorted((a, b) => b.lastSeen - a.lastSeen);
}

const suspendForSharing = (db: Db, licenceId: number, now: number) =>
  db
    .update(licences)
    .set({ suspendedAt: now, suspendedBy: "sharing", suspendReason: ANSWER_REASON.sharing })
    .where(and(eq(licences.id, licenceId), isNull(licences.suspendedAt), isNull(licences.revokedAt), isNull(licences.bannedAt)))
    .returning({ id: licences.id });

/**
 * The watch's judgement on a licence whose window now holds `addresses` distinct addresses from
 * `countries` countries: flagged at the thresholds (once while a flag is open; not again within the
 * window after staff dismissed one), suspended above the second threshold when one is set.
 */
export async function judgeSharing(
  db: Db,
  licenceId: number,
  window: Sighting[],
  settings: FraudSettings,
  now = Date.now(),
): Promise<"flagged" | "suspended" | null> {
  const addresses = window.length;
  const countries = new Set(window.flatMap((s) => (s.country ? [s.country] : []))).size;
  if (addresses < settings.flagAddresses && countries < settings.flagCountries) return null;
  const windowMs = settings.windowHours * 3600_000;
  const evidence = JSON.stringify({
    windowHours: settings.windowHours,
    sightings: window.slice(0, 50).map(({ address, country, firstSeen, lastSeen }) => ({ address, country, firstSeen, lastSeen })),
  });
  const dismissedLately = sql`exists (select 1 from ${licenceRiskFlags} f where f.licence_id = ${licenceId} and f.state = 'dismissed' and f.decided_at > ${now - windowMs})`;
  const [flagged] = await db
    .insert(licenceRiskFlags)
    .select(
      db
        .select({
          id: sql<null>`null`.as("id"),
          licenceId: licences.id,
          state: sql<"open">`'open'`.as("state"),
          addresses: sql<number>`${addresses}`.as("addresses"),
          countries: sql<number>`${countries}`.as("countries"),
          evidence: sql<string>`${evidence}`.as("evidence"),
          flaggedAt: sql<number>`${now}`.as("flagged_at"),
          autoSuspended: sql<boolean>`0`.as("auto_suspended"),
          decidedAt: sql<null>`null`.as("decided_at"),
          decidedBy: sql<null>`null`.as("decided_by"),
        })
        .from(licences)
        .where(and(eq(licences.id, licenceId), isNull(licences.revokedAt), isNull(licences.bannedAt), sql`not ${dismissedLately}`)),
    )
    .onConflictDoNothing()
    .returning({ id: licenceRiskFlags.id });
  if (flagged) await audit(db, null, "licence.flagged", `licence:${licenceId}`, { addresses, countries });
  else
    // An open flag shows what was seen last.
    await db
      .update(licenceRiskFlags)
      .set({ addresses, countries, evidence })
      .where(and(eq(licenceRiskFlags.licenceId, licenceId), eq(licenceRiskFlags.state, "open")));
  const over =
    (settings.suspendAddresses !== null && addresses >= settings.suspendAddresses) ||
    (settings.suspendCountries !== null && countries >= settings.suspendCountries);
  if (!over) return "flagged";
  const [suspended] = await db.batch([
    suspendForSharing(db, licenceId, now),
    db
      .update(licenceRiskFlags)
      .set({ autoSuspended: true })
      .where(and(eq(licenceRiskFlags.licenceId, licenceId), eq(licenceRiskFlags.state, "open"))),
  ]);
  if (suspended.length > 0) await audit(db, null, "licence.auto-suspended", `licence:${licenceId}`, { addresses, countries });
  return "suspended";
}

/** The Licences-at-risk list: open flags first, then the latest decided ones, with their licence. */
export async function licencesAtRisk(db: Db) {
  const rows = await db
    .select({
      id: licenceRiskFlags.id,
      state: licenceRiskFlags.state,
      addresses: licenceRiskFlags.addresses,
      countries: licenceRiskFlags.countries,
      evidence: licenceRiskFlags.evidence,
      flaggedAt: licenceRiskFlags.flaggedAt,
      autoSuspended: licenceRiskFlags.autoSuspended,
      decidedAt: licenceRiskFlags.decidedAt,
      licenceId: licences.id,
      key: licences.key,
      product: licences.product,
      plan: licences.plan,
      ownerEmail: licences.ownerEmail,
      suspendedAt: licences.suspendedAt,
      bannedAt: licences.bannedAt,
    })
    .from(licenceRiskFlags)
    .innerJoin(licences, eq(licences.id, licenceRiskFlags.licenceId))
    .orderBy(sql`${licenceRiskFlags.state} <> 'open'`, desc(licenceRiskFlags.flaggedAt))
    .limit(200);
  return rows.map(({ key, evidence, ...row }) => ({
    ...row,
    masked: maskKey(key),
    evidence: JSON.parse(evidence) as { windowHours: number; sightings: Omit<Sighting, "reports">[] },
  }));
}

const DECIDED = { suspend: "suspended", ban: "banned", dismiss: "dismissed" } as const;

/**
 * Staff's decision on a flagged licence, claimed first (one conditional update of the flag): suspend
 * it (SUSPENDED, as automatic suspension does), ban it, or dismiss the flag (lifting a suspension
 * for sharing). An open flag takes any; a suspended one may still be banned or dismissed.
 */
export async function decideRiskFlag(
  db: Db,
  { viewer, ip }: { viewer: Viewer; ip: string | null },
  flagId: number,
  intent: keyof typeof DECIDED,
  now = Date.now(),
): Promise<Result<{ state: string }>> {
  const from = intent === "suspend" ? ["open"] : ["open", "suspended"];
  const [claimed] = await db
    .update(licenceRiskFlags)
    .set({ state: DECIDED[intent], decidedAt: now, decidedBy: viewer.id })
    .where(and(eq(licenceRiskFlags.id, flagId), inArray(licenceRiskFlags.state, from as ("open" | "suspended")[])))
    .returning({ licenceId: licenceRiskFlags.licenceId });
  if (!claimed) return fail("conflict", "This flag was already decided; reload the page");
  const { licenceId } = claimed;
  if (intent === "suspend") await suspendForSharing(db, licenceId, now);
  else if (intent === "ban")
    await db
      .update(licences)
      .set({ bannedAt: now, banReason: "Shared key" })
      .where(and(eq(licences.id, licenceId), isNull(licences.bannedAt)));
  else
    await db
      .update(licences)
      .set({ suspendedAt: null, suspendedBy: null, suspendReason: null })
      .where(and(eq(licences.id, licenceId), eq(licences.suspendedBy, "sharing")));
  await audit(db, viewer.id, `licence.risk-${intent}`, `licence:${licenceId}`, { flag: flagId }, ip);
  return ok({ state: DECIDED[intent] });
}
