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

/** One address a key was checked from, as its watch keeps it. */
export interface Sighting {
  address: string;
  country: string | null;
  firstSeen: number;
  lastSeen: number;
  /** How many times the watch heard of it (each isolate tells it at most once an hour). */
  reports: number;
}

/** One address a check came from, as an isolate reports it. */
export interface Report {
  address: string;
  country: string | null;
  at: number;
}

/** The addresses one licence was checked from since its group's last message. */
export interface LicenceReports {
  licenceId: number;
  reports: Report[];
}

/** What a group's watch answers: the Durable Object's RPC methods the shop calls. */
export interface KeyWatchStub {
  sighted(batch: LicenceReports[]): Promise<void>;
  sightings(licenceId: number): Promise<Sighting[]>;
}
export interface KeyWatchNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): KeyWatchStub;
}

/**
 * How many watches share the shop's licences. A licence belongs to the watch of its number modulo
 * this: an isolate's messages are bounded by the groups, not by the keys it saw, and each watch
 * stays far below what one Durable Object serves.
 */
export const WATCH_GROUPS = 32;
/** The name of the watch that keeps a licence's sightings. */
export const watchNameOf = (licenceId: number) => `licences-${licenceId % WATCH_GROUPS}`;
const watchOf = (watch: KeyWatchNamespace, licenceId: number) => watch.get(watch.idFromName(watchNameOf(licenceId)));

/** How long an isolate stays quiet about a key and address it already reported. */
const REPORT_EVERY_MS = 60 * 60_000;
/** By default an isolate tells a group's watch at most once a minute, carrying every new address since. */
export const DEFAULT_WATCH_SEND_SECONDS = 60;
/** Enough addresses of one key in one message to reach any threshold; more wait for the next. */
const REPORTS_PER_KEY = 64;
/** Enough for one message of a busy minute; more wait for the next. */
const REPORTS_PER_MESSAGE = 5000;
const MEMO_LIMIT = 50_000;

/**
 * An isolate's memory of the sightings it reported and of those waiting for their group's next
 * message. The licence check uses the isolate's one (`sightingReports`).
 */
export class SightingReports {
  readonly #reported = new Map<string, number>();
  readonly #waiting = new Map<string, { sentAt: number; count: number; licences: Map<number, Report[]> }>();

  /**
   * The licence check's hook: notes where a check of an existing key came from, unless this isolate
   * noted the same key and address within the hour, and tells the watch of the key's group after
   * the answer (`waitUntil`): a group's first addresses at once, later ones together at most once a
   * minute per group (LICENCE_WATCH_SEND_SECONDS), carried by any check of a key of that group.
   * No D1 write, and a program checking from one place costs its watch one report an hour.
   */
  report(
    watch: KeyWatchNamespace | undefined,
    waitUntil: (work: Promise<unknown>) => void,
    sighting: { licenceId: number } & Report,
    sendEveryMs = DEFAULT_WATCH_SEND_SECONDS * 1000,
  ): void {
    if (!watch || sighting.address === "local") return;
    const { licenceId, address, country, at } = sighting;
    const group = watchNameOf(licenceId);
    const memo = `${licenceId}\n${address}`;
    const until = this.#reported.get(memo);
    let batch = this.#waiting.get(group);
    if (until === undefined || until <= at) {
      if (!batch) {
        batch = { sentAt: 0, count: 0, licences: new Map() };
        this.#waiting.set(group, batch);
      }
      const reports = batch.licences.get(licenceId) ?? [];
      if (reports.length < REPORTS_PER_KEY && batch.count < REPORTS_PER_MESSAGE) {
        if (this.#reported.size >= MEMO_LIMIT) this.#reported.clear();
        this.#reported.set(memo, at + REPORT_EVERY_MS);
        reports.push({ address, country, at });
        batch.licences.set(licenceId, reports);
        batch.count++;
      }
    }
    // Any check of a key of the group may carry what waits, once the interval is over.
    if (!batch || batch.count === 0 || at - batch.sentAt < sendEveryMs) return;
    const sent = [...batch.licences].map(([id, reports]) => ({ licenceId: id, reports }));
    batch.licences = new Map();
    batch.count = 0;
    batch.sentAt = at;
    waitUntil(
      watchOf(watch, licenceId)
        .sighted(sent)
        .catch((error: unknown) => console.error("Reporting licence checks to the keys' watch failed", error)),
    );
  }
}

/** The isolate's memory of reports, which every licence check it answers shares. */
export const sightingReports = new SightingReports();

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
