// The licence events the shop sends out (webhooks, decision 102): a licence as receivers see it,
// and one call per change. Each is keyed by the licence and the moment of the change, so a step
// that runs twice sends one event.
import { and, gt, isNull, lte, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { WebhookEvent } from "~/lib/webhooks";
import type { Db } from "../platform/db/client.server";
import { licences } from "../platform/db/schema.server";
import { emitWebhookEvent, hasSubscribers } from "../webhooks/events.server";

type LicenceRow = typeof licences.$inferSelect;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A licence as every licence event carries it. */
export function licencePayload(row: LicenceRow) {
  return {
    id: row.id,
    key: row.key,
    product: row.product,
    plan: row.plan,
    ownerEmail: row.ownerEmail,
    orderId: row.orderId,
    activatedAt: iso(row.activatedAt),
    expiresAt: iso(row.expiresAt),
    boundToPc: row.hwid !== null,
  };
}

export async function emitLicenceEvent(
  db: Db,
  type: Extract<WebhookEvent, `licence.${string}`>,
  row: LicenceRow,
  /** The moment (or the record) of the change: with the licence, what makes the event one. */
  at: number | string,
  extra: Record<string, unknown> = {},
  /** When a sweep found the change: only endpoints that existed then receive it. */
  happenedAt?: number,
): Promise<void> {
  await emitWebhookEvent({ db }, type, { licence: licencePayload(row), ...extra }, { key: `${type}:${row.id}:${at}`, happenedAt });
}

/** licence.created for licences made together (a reseller's purchase), read back by their keys. */
export async function announceCreatedLicences(db: Db, keys: string[]): Promise<void> {
  if (keys.length === 0 || !(await hasSubscribers(db, "licence.created"))) return;
  const made = await db
    .select()
    .from(licences)
    .where(sql`${licences.key} in (select value from json_each(${JSON.stringify(keys)}))`);
  for (const row of made) await emitLicenceEvent(db, "licence.created", row, row.createdAt);
}

/** How far back the sweeps look: past a missed cron run or two, each change sent once by its key. */
const SWEEP_WINDOW_MS = 2 * 60 * 60 * 1000;

/** Rows whose `column` moment fell within the sweep's window. */
const changedLately = (column: SQLiteColumn, now: number) => and(gt(column, now - SWEEP_WINDOW_MS), lte(column, now));

/**
 * Cron, beside the subscriptions' expiry: licence.expired for every licence whose time ran out
 * since shortly before (a paused one's time stands still; a revoked one has ended already).
 */
export async function announceExpiredLicences(db: Db, now = Date.now()): Promise<void> {
  if (!(await hasSubscribers(db, "licence.expired"))) return;
  const expired = await db
    .select()
    .from(licences)
    .where(and(changedLately(licences.expiresAt, now), isNull(licences.pausedAt), isNull(licences.revokedAt)));
  for (const row of expired) await emitLicenceEvent(db, "licence.expired", row, row.expiresAt!, {}, row.expiresAt!);
}

/** Why a suspension stands, as receivers read it: the shop's rule, without its record's id. */
const suspendedFor = (by: string | null) => (by ?? "staff").split(":")[0];

/**
 * Cron, the backstop that makes every way of stopping a licence heard: licence.revoked,
 * licence.suspended (a suspension, or staff's pause) and licence.banned for each licence stopped
 * within the window, whatever stopped it (staff's revoke on an order's page or in bulk, a pause,
 * shared-key detection, the seller API, an account's deletion). The paths that announce at once
 * (refunds, cancellations and lost disputes, disputes' suspensions, staff's ban) use the same keys,
 * so each change is sent once.
 */
export async function announceStoppedLicences(db: Db, now = Date.now()): Promise<void> {
  // Each sweep: its event, the column it looks at (the row's moment `at`), and what it sends.
  const sweeps = [
    {
      type: "licence.revoked" as const,
      column: licences.revokedAt,
      at: (row: LicenceRow) => row.revokedAt,
      // Keyed by the key alone, as an order's revocation announces it (order-events).
      send: (row: LicenceRow, at: number) =>
        emitWebhookEvent(
          { db },
          "licence.revoked",
          { licence: licencePayload(row), reason: "revoked" },
          { key: `licence.revoked:${row.key}`, happenedAt: at },
        ),
    },
    {
      type: "licence.suspended" as const,
      column: licences.suspendedAt,
      at: (row: LicenceRow) => row.suspendedAt,
      send: (row: LicenceRow, at: number) =>
        emitLicenceEvent(db, "licence.suspended", row, at, { reason: suspendedFor(row.suspendedBy) }, at),
    },
    {
      type: "licence.suspended" as const,
      column: licences.pausedAt,
      at: (row: LicenceRow) => row.pausedAt,
      send: (row: LicenceRow, at: number) => emitLicenceEvent(db, "licence.suspended", row, `paused:${at}`, { reason: "paused" }, at),
    },
    {
      type: "licence.banned" as const,
      column: licences.bannedAt,
      at: (row: LicenceRow) => row.bannedAt,
      send: (row: LicenceRow, at: number) => emitLicenceEvent(db, "licence.banned", row, at, { reason: row.banReason }, at),
    },
  ];
  for (const { type, column, at, send } of sweeps) {
    if (!(await hasSubscribers(db, type))) continue;
    for (const row of await db.select().from(licences).where(changedLately(column, now))) await send(row, at(row)!);
  }
}
