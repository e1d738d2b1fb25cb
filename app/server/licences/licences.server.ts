// Licences as people see and manage them: a member's own keys with their PC, last check and reset
// history; self-service PC resets under a cooldown; and the staff's view of any key, with resets
// without limit (support and admins) and bans of keys and PCs (admins). Every change is one
// conditional statement (or one batch) so racing requests cannot both win, and every change is audited.
import { and, desc, eq, inArray, isNotNull, isNull, lte, or, type Placeholder, type SQL, sql } from "drizzle-orm";
import { type AdminLicenceView, type LicenceView } from "~/lib/licences";
import { fail, ok, type Result } from "~/lib/result";
import { can } from "~/lib/roles";
import { formatDuration } from "~/lib/format";
import type { LicenceChangeInput } from "~/lib/schemas/licences";
import { STAFF_ACTIONS } from "~/lib/staff-actions";
import type { Viewer } from "~/lib/viewer";
import { entitlementLabels } from "../catalogue/entitlements.server";
import { orderName } from "../platform/db/stored-orders.server";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { bound, builtOnce, read, type Read, readAlone } from "../platform/db/reads.server";
import { bannedHwids, licenceResets, licences, userSubscriptions, users } from "../platform/db/schema.server";
import { emitLicenceEvent } from "./licence-events.server";
import { auditLicence } from "./licence-audit.server";
import { changeLicenceEntitlement } from "./licence-entitlements.server";
import { licenceState, nonNegativeSetting, ownerBanned } from "./validation.server";
import { DAY_MS } from "~/lib/time";

/** The member's cooldown between their own resets in days, from HWID_RESET_COOLDOWN_DAYS (default 7). */
export const resetCooldownDays = (setting: string | undefined): number => nonNegativeSetting(setting, 7);

export const resetCooldownMs = (setting: string | undefined): number => resetCooldownDays(setting) * DAY_MS;

type LicenceRow = typeof licences.$inferSelect;

/** A change made through the seller API: its audit entry names the token that made it (decision 097). */
export type ApiVia = { via: string };

/** Enough of a hardware id to recognise a PC by, not enough to copy it: "4C4C4544…3148". */
export function shortHwid(hwid: string): string {
  return hwid.length <= 12 ? hwid : `${hwid.slice(0, 8)}…${hwid.slice(-4)}`;
}

async function resetsOf(db: Db, ids: number[]) {
  if (ids.length === 0) return new Map<number, LicenceView["resets"]>();
  return resetsByLicence(await resetsRead(db, inArray(licenceResets.licenceId, ids)));
}

/** The PC resets `which` selects, newest first, as a statement not yet run. */
const resetsRead = (db: Db, which: SQL) =>
  db
    .select({ licenceId: licenceResets.licenceId, at: licenceResets.resetAt, by: licenceResets.by })
    .from(licenceResets)
    .where(which)
    .orderBy(desc(licenceResets.resetAt));

function resetsByLicence(rows: { licenceId: number; at: number; by: LicenceView["resets"][number]["by"] }[]) {
  const byLicence = new Map<number, LicenceView["resets"]>();
  for (const { licenceId, at, by } of rows) byLicence.set(licenceId, [...(byLicence.get(licenceId) ?? []), { at, by }]);
  return byLicence;
}

/** The words for each entitlement name; a name staff have since deleted reads as itself. */
function entitlementWordsOf(defined: { name: string; label: string }[]): (name: string) => { name: string; label: string } {
  const labels = new Map(defined.map((entitlement) => [entitlement.name, entitlement.label]));
  return (name) => ({ name, label: labels.get(name) ?? name });
}

async function entitlementWords(db: Db) {
  return entitlementWordsOf(await entitlementLabels(db).execute());
}

function view(
  row: LicenceRow,
  resets: LicenceView["resets"],
  cooldownMs: number,
  now: number,
  hwid: string | null,
  words: (name: string) => { name: string; label: string },
): LicenceView {
  const next = row.lastOwnerResetAt === null ? null : row.lastOwnerResetAt + cooldownMs;
  return {
    id: row.id,
    key: row.key,
    product: row.product,
    plan: row.plan,
    state: licenceState(row, now),
    activatedAt: row.activatedAt,
    expiresAt: row.expiresAt,
    pausedAt: row.pausedAt,
    suspendReason: row.suspendedAt === null ? null : row.suspendReason,
    hwid,
    device: row.hwid === null ? null : row.lastCheckDevice,
    lastCheckAt: row.lastCheckAt,
    lastCheckPlace: row.lastCheckPlace,
    resets,
    // Shown even while no PC is bound: right after a reset, the member learns when the next one is.
    nextOwnerResetAt: next !== null && next > now ? next : null,
    entitlements: row.entitlements.map(words),
  };
}

// Both sides folded by SQLite, so the comparison is the one the index on lower(owner_email) serves.
const ownedBy = (owner: { email: string | Placeholder }) => sql`lower(${licences.ownerEmail}) = lower(${owner.email})`;

/** The member's licences (bought with their e-mail, or generated in their reseller panel), by key. */
export async function licencesOf(
  db: Db,
  owner: Pick<Viewer, "email">,
  cooldownMs: number,
  now = Date.now(),
): Promise<Map<string, LicenceView>> {
  return readAlone(db, licencesRead(db, owner, cooldownMs, now));
}

// The member's licences and their resets, built once per database (the hub's pages read them at
// every visit); the owner's address is the placeholder.
const ownedByPlaceholder = ownedBy({ email: sql.placeholder("email") });
const ownedLicences = builtOnce((db) =>
  db.select().from(licences).where(ownedByPlaceholder).orderBy(desc(licences.createdAt)).limit(500).prepare(),
);
const ownedResets = builtOnce((db) =>
  resetsRead(db, inArray(licenceResets.licenceId, db.select({ id: licences.id }).from(licences).where(ownedByPlaceholder))).prepare(),
);

/**
 * `licencesOf` as a read not yet run, for a page that sends it with other reads in one batch: the
 * licences, their PC resets and the entitlements' words are three statements of that batch.
 */
export function licencesRead(db: Db, owner: Pick<Viewer, "email">, cooldownMs: number, now = Date.now()): Read<Map<string, LicenceView>> {
  return read(
    [bound(ownedLicences(db), { email: owner.email }), bound(ownedResets(db), { email: owner.email }), bound(entitlementLabels(db))],
    ([rows, resets, defined]) => {
      const byLicence = resetsByLicence(resets);
      const words = entitlementWordsOf(defined);
      return new Map(
        rows.map((row) => [row.key, view(row, byLicence.get(row.id) ?? [], cooldownMs, now, row.hwid && shortHwid(row.hwid), words)]),
      );
    },
  );
}

/** Admin: everything about the licence behind a key. */
export async function licenceForAdmin(db: Db, key: string, cooldownMs: number, now = Date.now()): Promise<AdminLicenceView | null> {
  const found = await db
    .select({ row: licences, orderName: orderName(licences.orderId) })
    .from(licences)
    .where(eq(licences.key, key))
    .get();
  if (!found) return null;
  const { row } = found;
  const [resets, words, ban, owner] = await Promise.all([
    resetsOf(db, [row.id]),
    entitlementWords(db),
    row.hwid ? db.select().from(bannedHwids).where(eq(bannedHwids.hwid, row.hwid)).get() : undefined,
    // The account the licence answers BANNED for (see ownerBanned in validation.server.ts).
    db
      .select({ bannedAt: users.bannedAt, reason: users.banReason })
      .from(users)
      .where(and(sql`lower(${users.email}) = lower(${row.ownerEmail})`, isNotNull(users.emailVerifiedAt), isNotNull(users.bannedAt)))
      .get(),
  ]);
  return {
    ...view(row, resets.get(row.id) ?? [], cooldownMs, now, row.hwid, words),
    ownerEmail: row.ownerEmail,
    orderId: row.orderId,
    orderName: found.orderName,
    banReason: row.banReason,
    hwidBan: ban ? { reason: ban.reason, bannedAt: ban.bannedAt } : null,
    ownerBan: owner?.bannedAt ? { reason: owner.reason, bannedAt: owner.bannedAt } : null,
  };
}

/**
 * Frees the PC of a licence (the one `previousHwid` names) and records who did it, in one
 * transaction. `actorId` is null when the owner's program did it, with no session behind it.
 */
async function freePc(db: Db, row: LicenceRow, by: "owner" | "admin", actorId: string | null, extra: ReturnType<typeof and>, now: number) {
  const [freed] = await db.batch([
    db
      .update(licences)
      // The freed PC's name goes with it: the next PC's first check names itself.
      .set(
        by === "owner"
          ? { hwid: null, lastCheckDevice: null, lastResetAt: now, lastOwnerResetAt: now }
          : { hwid: null, lastCheckDevice: null, lastResetAt: now },
      )
      .where(and(eq(licences.id, row.id), eq(licences.hwid, row.hwid ?? ""), extra))
      .returning({ id: licences.id }),
    db.insert(licenceResets).select(
      db
        // Every column, in the table's order (drizzle's rule for insert-select); the id is assigned.
        .select({
          id: sql<number>`null`.as("id"),
          licenceId: licences.id,
          by: sql<string>`${by}`.as("by"),
          actorUserId: sql<string | null>`${actorId}`.as("actor_user_id"),
          previousHwid: sql<string | null>`${row.hwid}`.as("previous_hwid"),
          resetAt: sql<number>`${now}`.as("reset_at"),
        })
        .from(licences)
        // Only if the update above freed the PC just now (a stale second click frees nothing).
        .where(and(eq(licences.id, row.id), isNull(licences.hwid), eq(licences.lastResetAt, now))),
    ),
  ]);
  return freed.length === 1;
}

/**
 * The owner frees their key's PC, at most once per cooldown; the next validation binds the new PC
 * (the clock keeps running). Someone else's key answers like a missing one.
 */
export async function resetOwnHwid(
  db: Db,
  viewer: Viewer,
  licenceId: number,
  cooldownMs: number,
  ip: string | null,
  now = Date.now(),
  via?: ApiVia,
): Promise<Result<{ nextResetAt: number }>> {
  const row = await db
    .select()
    .from(licences)
    .where(and(eq(licences.id, licenceId), ownedBy(viewer)))
    .get();
  if (!row) return fail("not-found", "No such key on your account");
  if (row.bannedAt !== null) return fail("forbidden", "This key is banned. Contact support.");
  if (row.revokedAt !== null) return fail("conflict", "This key was revoked and no longer works");
  if (row.pausedAt !== null) return fail("conflict", "This key is paused. Contact support.");
  if (row.hwid === null) return fail("conflict", "This key is not bound to a PC yet: it binds to the first PC that uses it");
  const next = row.lastOwnerResetAt === null ? now : row.lastOwnerResetAt + cooldownMs;
  const tooSoon = () =>
    fail("rate-limited", "This key's PC was reset recently", { retryAfterSeconds: Math.max(1, Math.ceil((next - now) / 1000)) });
  if (next > now) return tooSoon();
  const cooledDown = or(isNull(licences.lastOwnerResetAt), lte(licences.lastOwnerResetAt, now - cooldownMs));
  if (
    !(await freePc(
      db,
      row,
      "owner",
      viewer.id,
      and(cooledDown, isNull(licences.revokedAt), isNull(licences.bannedAt), isNull(licences.pausedAt)),
      now,
    ))
  ) {
    return fail("conflict", "This key changed meanwhile; reload the page and try again");
  }
  // Support reads these when a member asks why their key moved PCs.
  await auditLicence(db, viewer.id, "licence.owner-reset", row, { previousHwid: row.hwid, ...via }, ip);
  return ok({ nextResetAt: now + cooldownMs });
}

/** The licence API's stable codes for a release of the PC (deactivate). */
export const DEACTIVATION_CODES = ["RELEASED", "NOT_FOUND", "HWID_MISMATCH", "BANNED", "REVOKED", "SUSPENDED", "TOO_SOON"] as const;
export type DeactivationCode = (typeof DEACTIVATION_CODES)[number];

/** The answer to POST /api/v1/licences/deactivate, signed like a validation's. */
export interface DeactivationAnswer {
  released: boolean;
  code: DeactivationCode;
  // What was asked, inside the signed body, as in a validation's answer.
  key: string;
  hwid: string;
  nonce: string;
  issuedAt: string;
  /** TOO_SOON: when the key's PC can next move (by the program or the hub's Reset PC). */
  nextReleaseAt: string | null;
}

export interface ReleaseHooks {
  now?: number;
  cooldownMs: number;
  ip: string | null;
  /** The per-key limit, as validate asks it: `boundPc` says whether the caller is the bound PC. */
  admit: (boundPc: boolean) => Promise<boolean>;
}

/**
 * The owner's program frees its own PC, so the key can move without a support ticket. Only the PC
 * the key is bound to can (any other caller, and a key bound to none, answers HWID_MISMATCH and
 * learns nothing more), and only as often as the hub's Reset PC: both spend the one allowance.
 * Refused while the key, its PC or its owner is banned, or it is revoked or paused, as the hub's
 * reset is. Audited, and listed in the key's reset history as the owner's.
 */
export async function releaseOwnPc(
  db: Db,
  input: { key: string; hwid: string; nonce: string; device?: string | undefined },
  { now = Date.now(), cooldownMs, ip, admit }: ReleaseHooks,
): Promise<Result<DeactivationAnswer>> {
  // The caller's PC, not the licence's column: in a one-table select the column would lose its
  // table's name and the subquery would compare banned_hwids with itself. A release goes through
  // only for the bound PC, so the two are the same whenever it matters.
  const pcBanned = sql<number>`exists (select 1 from ${bannedHwids} where ${bannedHwids.hwid} = ${input.hwid})`;
  const found = await db.select({ row: licences, pcBanned, ownerBanned }).from(licences).where(eq(licences.key, input.key)).get();
  const boundPc = found !== undefined && found.row.hwid !== null && found.row.hwid === input.hwid;
  if (!(await admit(boundPc))) return fail("rate-limited", "Too many requests for this key; try again in a minute");
  const answer = (code: DeactivationCode, nextReleaseAt: number | null = null): Result<DeactivationAnswer> =>
    ok({
      released: code === "RELEASED",
      code,
      key: input.key,
      hwid: input.hwid,
      nonce: input.nonce,
      issuedAt: new Date(now).toISOString(),
      nextReleaseAt: nextReleaseAt === null ? null : new Date(nextReleaseAt).toISOString(),
    });
  if (!found) return answer("NOT_FOUND");
  if (!boundPc) return answer("HWID_MISMATCH");
  const { row } = found;
  if (row.bannedAt !== null || found.pcBanned || found.ownerBanned) return answer("BANNED");
  if (row.revokedAt !== null) return answer("REVOKED");
  if (row.pausedAt !== null) return answer("SUSPENDED");
  const next = row.lastOwnerResetAt === null ? now : row.lastOwnerResetAt + cooldownMs;
  if (next > now) return answer("TOO_SOON", next);
  const cooledDown = or(isNull(licences.lastOwnerResetAt), lte(licences.lastOwnerResetAt, now - cooldownMs));
  const still = and(cooledDown, isNull(licences.revokedAt), isNull(licences.bannedAt), isNull(licences.pausedAt));
  // Another call moved the key first (a reset in the hub, a second release): this PC no longer holds it.
  if (!(await freePc(db, row, "owner", null, still, now))) return answer("HWID_MISMATCH");
  await auditLicence(db, null, "licence.program-release", row, { previousHwid: row.hwid, device: input.device ?? null }, ip);
  return answer("RELEASED");
}

/**
 * Pauses a running (or not yet activated) licence: it answers SUSPENDED and its clock stands still
 * until it is resumed. One conditional statement, so a second click pauses nothing.
 */
async function pauseLicence(
  db: Db,
  admin: Viewer,
  row: LicenceRow,
  reason: string,
  ip: string | null,
  now: number,
  via?: ApiVia,
): Promise<Result<LicenceChange>> {
  if (row.pausedAt !== null) return fail("conflict", "This key is already paused");
  if (row.bannedAt !== null || row.revokedAt !== null) return fail("conflict", "A banned or revoked key cannot be paused");
  if (row.expiresAt !== null && row.expiresAt <= now) return fail("conflict", "This key has expired: there is no time left to keep");
  const paused = await db
    .update(licences)
    .set({ pausedAt: now })
    .where(
      and(
        eq(licences.id, row.id),
        isNull(licences.pausedAt),
        isNull(licences.bannedAt),
        isNull(licences.revokedAt),
        or(isNull(licences.expiresAt), sql`${licences.expiresAt} > ${now}`),
      ),
    )
    .returning({ id: licences.id });
  if (paused.length === 0) return fail("conflict", "This key changed meanwhile; reload and try again");
  await auditLicence(db, admin.id, "licence.pause", row, { reason, ...via }, ip);
  return ok({ intent: "pause" });
}

/**
 * Resumes a paused licence: its expiry moves out by the time it was paused, and the owner's
 * subscription with it, in one transaction.
 */
async function resumeLicence(
  db: Db,
  admin: Viewer,
  row: LicenceRow,
  ip: string | null,
  now: number,
  via?: ApiVia,
): Promise<Result<LicenceChange>> {
  if (row.pausedAt === null) return fail("conflict", "This key is not paused");
  const [resumed] = await db.batch([
    db
      .update(licences)
      .set({ pausedAt: null, expiresAt: sql`${licences.expiresAt} + (${now} - ${licences.pausedAt})` })
      .where(and(eq(licences.id, row.id), eq(licences.pausedAt, row.pausedAt)))
      .returning({ expiresAt: licences.expiresAt }),
    syncSubscriptionExpiry(db, sql`select ${licences.productCodeId} from ${licences} where ${licences.id} = ${row.id}`),
  ]);
  if (resumed.length === 0) return fail("conflict", "This key changed meanwhile; reload and try again");
  const pausedFor = now - row.pausedAt;
  await auditLicence(db, admin.id, "licence.resume", row, { pausedFor: formatDuration(pausedFor), ...via }, ip);
  return ok({ intent: "resume", expiryMovedByMs: row.expiresAt === null ? null : pausedFor });
}

/**
 * The subscriptions of the licences `codeIds` selects take their licences' expiry again (a member's
 * subscription shows its key's expiry). A statement for a batch, after the one that moved the expiry.
 */
export function syncSubscriptionExpiry(db: Db, codeIds: SQL) {
  return db
    .update(userSubscriptions)
    .set({
      expiryDate: sql`(select ${licences.expiresAt} from ${licences} where ${licences.productCodeId} = ${userSubscriptions.productCodeId})`,
    })
    .where(sql`${userSubscriptions.productCodeId} in (${codeIds})`);
}

/**
 * What a staff change to a licence did, for the edge to word: a resume says how far the expiry
 * moved (null while the key has not been activated, its clock starting at its first use).
 */
export type LicenceChange =
  { intent: Exclude<LicenceChangeInput["intent"], "resume"> } | { intent: "resume"; expiryMovedByMs: number | null };

/** Staff: resets (support and admins), bans, unbans, pauses and resumes (admins), each audited. */
export async function manageLicence(
  db: Db,
  admin: Viewer,
  input: LicenceChangeInput,
  ip: string | null,
  now = Date.now(),
  via?: ApiVia,
): Promise<Result<LicenceChange>> {
  if (!can(admin.role, STAFF_ACTIONS.licence[input.intent])) return fail("forbidden", "Your role may not do this to a licence");
  if (input.intent === "ban-hwid") {
    await db
      .insert(bannedHwids)
      .values({ hwid: input.hwid, reason: input.reason, bannedBy: admin.id, bannedAt: now })
      .onConflictDoUpdate({ target: bannedHwids.hwid, set: { reason: input.reason, bannedBy: admin.id, bannedAt: now } });
    await audit(db, admin.id, "licence.ban-hwid", input.hwid, { reason: input.reason }, ip);
    return ok({ intent: input.intent });
  }
  if (input.intent === "unban-hwid") {
    const removed = await db.delete(bannedHwids).where(eq(bannedHwids.hwid, input.hwid)).returning({ hwid: bannedHwids.hwid });
    if (removed.length === 0) return fail("conflict", "This PC is not banned");
    await audit(db, admin.id, "licence.unban-hwid", input.hwid, {}, ip);
    return ok({ intent: input.intent });
  }
  const row = await db.select().from(licences).where(eq(licences.id, input.licenceId)).get();
  if (!row) return fail("not-found", "No such key");
  if (input.intent === "pause") return pauseLicence(db, admin, row, input.reason, ip, now, via);
  if (input.intent === "resume") return resumeLicence(db, admin, row, ip, now, via);
  if (input.intent === "grant-entitlement" || input.intent === "remove-entitlement")
    return changeLicenceEntitlement(db, admin, row, input, ip);
  if (input.intent === "reset-hwid") {
    if (row.hwid === null) return fail("conflict", "This key is not bound to a PC");
    if (!(await freePc(db, row, "admin", admin.id, undefined, now)))
      return fail("conflict", "This key changed meanwhile; reload and try again");
    await auditLicence(db, admin.id, "licence.reset-hwid", row, { previousHwid: row.hwid, ...via }, ip);
    return ok({ intent: input.intent });
  }
  if (input.intent === "ban-key") {
    const banned = await db
      .update(licences)
      .set({ bannedAt: now, banReason: input.reason })
      .where(and(eq(licences.id, row.id), isNull(licences.bannedAt)))
      .returning({ id: licences.id });
    if (banned.length === 0) return fail("conflict", "This key is already banned");
    await auditLicence(db, admin.id, "licence.ban", row, { reason: input.reason, ...via }, ip);
    await emitLicenceEvent(db, "licence.banned", { ...row, bannedAt: now, banReason: input.reason }, now, { reason: input.reason });
    return ok({ intent: input.intent });
  }
  const unbanned = await db
    .update(licences)
    .set({ bannedAt: null, banReason: null })
    .where(and(eq(licences.id, row.id), isNotNull(licences.bannedAt)))
    .returning({ id: licences.id });
  if (unbanned.length === 0) return fail("conflict", "This key is not banned");
  await auditLicence(db, admin.id, "licence.unban", row, { ...via }, ip);
  return ok({ intent: input.intent });
}

/** Who suspended a reseller's key: the reseller, apart from the shop's own suspensions (decision 092). */
const SELLER_SUSPENSION = "seller";

/**
 * A reseller suspends a key they generated (it answers SUSPENDED, its clock keeps running), or lifts
 * their own suspension; a suspension by the shop's fraud rules is not theirs to lift. One
 * conditional statement, so of two calls at once one changes the key.
 */
export async function suspendSoldKey(
  db: Db,
  reseller: Pick<Viewer, "id" | "email">,
  licenceId: number,
  suspend: boolean,
  ip: string | null,
  now = Date.now(),
  via?: ApiVia,
): Promise<Result> {
  const mine = and(eq(licences.id, licenceId), ownedBy(reseller), isNotNull(licences.resellerKeyId));
  const row = await db.select().from(licences).where(mine).get();
  if (!row) return fail("not-found", "No such key in your panel");
  if (row.revokedAt !== null) return fail("conflict", "This key was revoked and no longer works");
  const changed = await db
    .update(licences)
    .set(
      suspend
        ? { suspendedAt: now, suspendedBy: SELLER_SUSPENSION, suspendReason: "Suspended by the seller" }
        : {
            suspendedAt: null,
            suspendedBy: null,
            suspendReason: null,
          },
    )
    .where(and(mine, isNull(licences.revokedAt), suspend ? isNull(licences.suspendedAt) : eq(licences.suspendedBy, SELLER_SUSPENSION)))
    .returning({ id: licences.id });
  if (changed.length === 0) {
    return fail("conflict", suspend ? "This key is already suspended" : "This key is not suspended by you");
  }
  await auditLicence(db, reseller.id, suspend ? "licence.seller-suspend" : "licence.seller-unsuspend", row, { ...via }, ip);
  return ok();
}
