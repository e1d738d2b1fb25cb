// The licence events the shop sends out (webhooks, decision 102): a licence as receivers see it,
// and one call per change. Each is keyed by the licence and the moment of the change, so a step
// that runs twice sends one event.
import { and, gt, isNull, lte } from "drizzle-orm";
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
): Promise<void> {
  await emitWebhookEvent({ db }, type, { licence: licencePayload(row), ...extra }, { key: `${type}:${row.id}:${at}` });
}

/** How far back the sweep looks: past a missed cron run or two, each expiry sent once by its key. */
const EXPIRY_WINDOW_MS = 2 * 60 * 60 * 1000;

/**
 * Cron, beside the subscriptions' expiry: licence.expired for every licence whose time ran out
 * since shortly before (a paused one's time stands still; a revoked one has ended already).
 */
export async function announceExpiredLicences(db: Db, now = Date.now()): Promise<void> {
  if (!(await hasSubscribers(db, "licence.expired"))) return;
  const expired = await db
    .select()
    .from(licences)
    .where(
      and(
        gt(licences.expiresAt, now - EXPIRY_WINDOW_MS),
        lte(licences.expiresAt, now),
        isNull(licences.pausedAt),
        isNull(licences.revokedAt),
      ),
    );
  for (const row of expired) await emitLicenceEvent(db, "licence.expired", row, row.expiresAt!);
}
