// Checking a key for the shop's loader: one read, a bind on first use, and an answer the API signs.
// The first valid call with a hardware id activates the key: it binds that PC and, for a timed
// plan, starts the clock. Binding is one conditional update, so of two PCs racing for a new key
// exactly one wins; the other is told HWID_MISMATCH. Nothing here touches sessions or the catalogue.
import { and, Column, eq, fillPlaceholders, getTableColumns, is, isNull, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import type { BatchItem } from "drizzle-orm/batch";
import { ANSWER_REASON } from "~/lib/fraud";
import type { LicenceState } from "~/lib/licences";
import { type LicencePlan, PLAN_DURATION_MS } from "~/lib/plans";
import { fail, ok, type Result } from "~/lib/result";
import type { ValidateLicenceInput } from "~/lib/schemas/licences";
import { addressHex } from "../blocks/addresses.server";
import { type Asker, blockListVersionSql, licenceBlock } from "../blocks/licence-blocklist.server";
import type { Db } from "../platform/db/client.server";
import { onFirstUse } from "../platform/on-first-use.server";
import { bannedHwids, licences, resellerKeys, userSubscriptions, users } from "../platform/db/schema.server";

// A key's first activation is rare beside its checks: the webhooks' code loads with the first one (decision 116).
const licenceEvents = onFirstUse(() => import("./licence-events.server"));

/** The API's stable answer codes (Keygen's vocabulary, where it has one). */
export const LICENCE_CODES = ["VALID", "NOT_FOUND", "NOT_ACTIVATED", "EXPIRED", "SUSPENDED", "REVOKED", "BANNED", "HWID_MISMATCH"] as const;
export type LicenceCode = (typeof LICENCE_CODES)[number];

/** How often a program with a VALID answer should check again (never past the expiry): its heartbeat. */
export const RECHECK_SECONDS = 600;
/** How long a VALID answer lets the program work without reaching the shop, unless configured. */
export const DEFAULT_OFFLINE_HOURS = 72;
const HOUR_MS = 3600_000;
// The bound PC's last check (time and place) is written at most once an hour per key (unless the
// PC's name changes), so the checks of a million licences cost the primary a few hundred small
// writes a second, not one per check (decision 068).
export const CHECK_RECORD_INTERVAL_MS = 60 * 60_000;

export interface LicenceAnswer {
  valid: boolean;
  code: LicenceCode;
  // What was asked, inside the signed body: an answer about another key or PC (a proxy swapping
  // them while keeping the program's nonce) does not pass for this one.
  key: string;
  hwid: string;
  nonce: string;
  issuedAt: string;
  ttl: number;
  // `entitlements`: the names the licence grants (decision 054), for the program to unlock features by.
  // `renewUrl`: a signed link the program opens for its owner to renew a timed licence that runs or
  // has ended (decision 090); null for lifetime, and for a key that was never used.
  licence: {
    product: string;
    plan: string;
    activatedAt: string | null;
    expiresAt: string | null;
    entitlements: string[];
    renewUrl: string | null;
  } | null;
  // Until when the program may keep working offline on this answer; inside the signed body, so
  // editing it breaks the signature. Only VALID answers carry one.
  lease: { until: string } | null;
  // Why a SUSPENDED or BANNED answer stopped the key, in words the program may show its user: a
  // disputed payment, shared-key detection, a blocked PC or network. Absent otherwise.
  reason?: string;
}

/** A number of a [vars] setting: `fallback` when it is empty, not a number, or negative. */
export function nonNegativeSetting(setting: string | undefined, fallback: number): number {
  const value = Number(setting);
  return Number.isFinite(value) && value >= 0 && setting?.trim() !== "" ? value : fallback;
}

/** The offline lease's length from LICENCE_OFFLINE_HOURS (default 72; 0 turns offline use off). */
export const offlineLeaseMs = (setting: string | undefined) => nonNegativeSetting(setting, DEFAULT_OFFLINE_HOURS) * HOUR_MS;

/** The licence as the check's read gives it: its ban tests, and the blocklist's version for judging the caller. */
type LicenceRead = typeof licences.$inferSelect & { hwidBanned: number; ownerBanned: number; blockListVersion: number | null };
type LicenceRow = Omit<LicenceRead, "blockListVersion"> & { blocked: "pc" | "network" | null };

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Where a licence stands, whichever PC asks: a ban first, then revocation, then a suspension by
 * the shop's fraud rules (a disputed payment, a shared key), then a pause (its clock stands still,
 * so it cannot run out meanwhile), then expiry. The hub shows it; the API's verdict starts from it.
 */
export function licenceState(row: typeof licences.$inferSelect, now: number): LicenceState {
  if (row.bannedAt !== null) return "banned";
  if (row.revokedAt !== null) return "revoked";
  if (row.suspendedAt !== null) return "suspended";
  if (row.pausedAt !== null) return "paused";
  if (row.expiresAt !== null && row.expiresAt <= now) return "expired";
  return row.activatedAt === null ? "not-activated" : "active";
}

const STOPPED: Partial<Record<LicenceState, LicenceCode>> = {
  banned: "BANNED",
  revoked: "REVOKED",
  paused: "SUSPENDED",
  suspended: "SUSPENDED",
  expired: "EXPIRED",
};

/** What the row says about this PC now, or "bind" when the key is free to bind to it. */
function verdict(row: LicenceRow, input: ValidateLicenceInput, now: number): LicenceCode | "bind" {
  if (row.hwidBanned || row.ownerBanned || row.blocked) return "BANNED";
  const stopped = STOPPED[licenceState(row, now)];
  if (stopped) return stopped;
  if (row.hwid === null) return input.activate ? "bind" : "NOT_ACTIVATED";
  return row.hwid === input.hwid ? "VALID" : "HWID_MISMATCH";
}

/**
 * Whether the account that owns the licence (the verified account of its owner e-mail) is banned.
 * Read at every check rather than copied onto the licence at the ban, so it also covers keys handed
 * to the account after the ban (a backorder filled later) and lifts with the unban.
 */
export const ownerBanned = sql<number>`exists (select 1 from ${users} where lower(${users.email}) = lower(${licences.ownerEmail}) and ${users.emailVerifiedAt} is not null and ${users.bannedAt} is not null)`;

// The check's one read, written once per isolate: drizzle builds its SQL from the schema, and each
// check only binds its key and PC and runs it on its own D1 session. Building and mapping the query
// through the ORM on every check cost about a tenth of the check's CPU (decision 077).
const licenceSelection = {
  ...getTableColumns(licences),
  hwidBanned: sql<number>`exists (select 1 from ${bannedHwids} where ${bannedHwids.hwid} = ${sql.placeholder("hwid")})`,
  ownerBanned,
  // Staff's blocklist (decision 093) is judged against the list its isolate keeps for this version
  // (decision 112): the statement carries one primary-key read, not a subquery per kind of block.
  blockListVersion: blockListVersionSql,
};
const FIND_LICENCE = new QueryBuilder()
  .select(licenceSelection)
  .from(licences)
  .where(eq(licences.key, sql.placeholder("key")))
  .toSQL();
const licenceFields = Object.entries(licenceSelection).map(([name, field]) => ({
  name,
  // As the ORM reads a row: a column's own decoding (the entitlements' JSON), and none for null.
  decode: is(field, Column) ? (value: unknown) => (value === null ? null : field.mapFromDriverValue(value)) : (value: unknown) => value,
}));

async function findLicence(db: Db, key: string, asker: Asker, now: number): Promise<LicenceRow | undefined> {
  const [values] = await db.$client
    .prepare(FIND_LICENCE.sql)
    .bind(...fillPlaceholders(FIND_LICENCE.params, { key, hwid: asker.hwid }))
    .raw();
  if (!values) return undefined;
  const { blockListVersion, ...read } = Object.fromEntries(
    licenceFields.map(({ name, decode }, i) => [name, decode(values[i])]),
  ) as LicenceRead;
  return { ...read, blocked: await licenceBlock(db, blockListVersion, asker, now) };
}

/**
 * Binds a free key to `hwid`, starting the clock if it has not started (a reset keeps it running).
 * The member's subscription takes the expiry; a reseller's key counts as used. Returns the bound
 * row, or undefined when another call changed the key first.
 */
async function bind(db: Db, row: LicenceRow, hwid: string, now: number): Promise<LicenceRow | undefined> {
  const duration = PLAN_DURATION_MS[row.plan];
  const follow: BatchItem<"sqlite">[] = [];
  if (row.productCodeId !== null) {
    follow.push(
      db
        .update(userSubscriptions)
        .set({ expiryDate: sql`(select ${licences.expiresAt} from ${licences} where ${licences.id} = ${row.id})` })
        .where(eq(userSubscriptions.productCodeId, row.productCodeId)),
    );
  }
  if (row.resellerKeyId !== null)
    follow.push(db.update(resellerKeys).set({ status: "used" }).where(eq(resellerKeys.id, row.resellerKeyId)));
  const [bound] = await db.batch([
    db
      .update(licences)
      .set({
        hwid,
        activatedAt: sql`coalesce(${licences.activatedAt}, ${now})`,
        expiresAt: duration === null ? sql`${licences.expiresAt}` : sql`coalesce(${licences.expiresAt}, ${now + duration})`,
      })
      .where(
        and(
          eq(licences.id, row.id),
          isNull(licences.hwid),
          isNull(licences.revokedAt),
          isNull(licences.bannedAt),
          isNull(licences.suspendedAt),
        ),
      )
      .returning(),
    ...follow,
  ]);
  const [updated] = bound;
  return updated ? { ...updated, hwidBanned: row.hwidBanned, ownerBanned: row.ownerBanned, blocked: row.blocked } : undefined;
}

export interface ValidationHooks {
  now?: number;
  /**
   * Where the caller is ("Berlin, DE"), asked only when the check is recorded: reading the edge's
   * location data costs more than the rest of a check's own work.
   */
  locate?: () => string | null;
  /** How long a VALID answer's offline lease runs (offlineLeaseMs), never past the expiry. */
  leaseMs: number;
  /** Receives the write that notes a valid check's time and place, to finish after the answer. */
  recordCheck: (write: Promise<unknown>) => void;
  /**
   * The per-key limit, asked once the licence is read: `boundPc` says whether the caller is the PC
   * the key is bound to. The bound PC counts against a budget of its own, so strangers who know a
   * key can spend the budget they share, never the owner's.
   */
  admit: (boundPc: boolean) => Promise<boolean>;
  /** The signed renewal link of a licence the answer shows (signedRenewLink); none: no link. */
  renewLink?: (licence: { id: number; plan: LicencePlan }) => Promise<string>;
  /** The caller's address and country, for the blocklist (none in scripts that name neither). */
  address?: string;
  country?: string | null;
  /**
   * Told of every check of a key that exists, after the read: shared-key detection counts the
   * places a key is checked from (decision 093) off the answer's path, with no write of its own here.
   */
  sighted?: (licenceId: number) => void;
}

/** Answers whose licence may be renewed from the program: one that runs, or has ended. */
const RENEWABLE_CODES: LicenceCode[] = ["VALID", "EXPIRED"];

/**
 * The answer for one validation call, or `rate-limited` when the caller's per-key budget is spent.
 * The write noting a valid check goes to `recordCheck` (none when the last one is recent).
 */
export async function validateLicence(
  db: Db,
  input: ValidateLicenceInput,
  { now = Date.now(), locate = () => null, leaseMs, recordCheck, admit, renewLink, address, country, sighted }: ValidationHooks,
): Promise<Result<LicenceAnswer>> {
  const asker = { hwid: input.hwid, address: (address && addressHex(address)) || "", country: country?.toUpperCase() ?? "" };
  let row = await findLicence(db, input.key, asker, now);
  if (!(await admit(row !== undefined && row.hwid !== null && row.hwid === input.hwid))) {
    return fail("rate-limited", "Too many requests for this key; try again in a minute");
  }
  if (row) sighted?.(row.id);
  let code: LicenceCode | "bind" = row ? verdict(row, input, now) : "NOT_FOUND";
  // At most twice: if another call bound (or revoked) the key first, judge it as it is now.
  for (let attempt = 0; row && code === "bind" && attempt < 2; attempt++) {
    const bound = await bind(db, row, input.hwid, now);
    // Its first activation is an event for the shop's webhooks, sent after the answer has gone.
    if (bound && row.activatedAt === null)
      recordCheck(licenceEvents().then(({ emitLicenceEvent }) => emitLicenceEvent(db, "licence.activated", bound, now)));
    row = bound ?? (await findLicence(db, input.key, asker, now));
    code = row ? verdict(row, input, now) : "NOT_FOUND";
  }
  if (code === "bind") code = "HWID_MISMATCH";

  const valid = code === "VALID";
  // Only the bound PC's checks are the owner's to see: anyone who knows a key can make it answer
  // HWID_MISMATCH, and must not be able to overwrite the last check with their own time and place.
  // A renamed PC (or a new one after a reset) shows under its new name at once.
  const device = input.device ?? null;
  if (valid && row && (row.lastCheckAt === null || now - row.lastCheckAt >= CHECK_RECORD_INTERVAL_MS || row.lastCheckDevice !== device)) {
    recordCheck(
      db
        .update(licences)
        .set({ lastCheckAt: now, lastCheckPlace: locate(), lastCheckDevice: device })
        .where(eq(licences.id, row.id))
        .then(() => undefined),
    );
  }
  const secondsLeft = row?.expiresAt ? Math.floor((row.expiresAt - now) / 1000) : RECHECK_SECONDS;
  // The licence's terms (product, plan, dates, entitlements) are its own PC's to read: a key can be
  // read off a screen or a shared config, and whoever knows it must not learn from an EXPIRED,
  // REVOKED or SUSPENDED answer what it was for. A key no PC is bound to shows them only while it
  // is free to bind (NOT_ACTIVATED): whoever holds it then may take it, and learns nothing more.
  const ownPc = row?.hwid != null ? row.hwid === input.hwid : code === "NOT_ACTIVATED";
  const shown = row && ownPc && code !== "BANNED" ? row : undefined;
  const renewable = shown && renewLink && PLAN_DURATION_MS[shown.plan] !== null && RENEWABLE_CODES.includes(code);
  const renewUrl = renewable ? await renewLink({ id: shown.id, plan: shown.plan }) : null;
  return ok({
    valid,
    code,
    key: input.key,
    hwid: input.hwid,
    nonce: input.nonce,
    issuedAt: new Date(now).toISOString(),
    ttl: valid ? Math.max(0, Math.min(RECHECK_SECONDS, secondsLeft)) : 0,
    licence: shown
      ? {
          product: shown.product,
          plan: shown.plan,
          activatedAt: iso(shown.activatedAt),
          expiresAt: iso(shown.expiresAt),
          entitlements: shown.entitlements,
          renewUrl,
        }
      : null,
    lease: valid && row ? { until: new Date(Math.min(now + leaseMs, row.expiresAt ?? Infinity)).toISOString() } : null,
    ...answerReason(row, code),
  });
}

/** The reason a stopped answer carries, when the shop's fraud rules stopped it (absent otherwise, so other answers keep their bytes). */
function answerReason(row: LicenceRow | undefined, code: LicenceCode): { reason?: string } {
  if (!row) return {};
  if (code === "BANNED" && !row.hwidBanned && !row.ownerBanned && row.bannedAt === null && row.blocked)
    return { reason: row.blocked === "pc" ? ANSWER_REASON.blockedPc : ANSWER_REASON.blockedNetwork };
  if (code === "SUSPENDED" && row.suspendedAt !== null && row.suspendReason) return { reason: row.suspendReason };
  return {};
}
