// Staff's bulk changes that destroy, previewed and undoable (decision 104). The domain that owns the
// rows (keys for stock codes, licences for licences) captures them in a preview here, then acts on
// exactly those rows once its confirm wins the preview's claim, and reverses them once its undo
// wins the change's claim within the window. This module only keeps the record and its steps;
// every write to the rows themselves stays with their owner.
import { and, desc, eq, gt, inArray, type SQL, sql } from "drizzle-orm";
import type { BulkChangeView, BulkKind } from "~/lib/bulk-changes";
import { fail, ok, type Result } from "~/lib/result";
import type { Db } from "./db/client.server";
import { bulkChanges } from "./db/schema.server";

/** How long a change can be undone after it ran. */
export const UNDO_WINDOW_MS = 60 * 60_000;
/** How long a preview can be confirmed: past it, the rows are looked at again. */
export const PREVIEW_TTL_MS = 15 * 60_000;
/** At most this many rows in one bulk change (and in its preview's record). */
export const MAX_BULK_ROWS = 1000;

export type BulkChange = typeof bulkChanges.$inferSelect;

/** Records what a preview found; answers its token, which the confirmation sends back. */
export async function recordPreview(
  db: Db,
  preview: { kind: BulkKind; actorId: string; scope: Record<string, unknown>; targets: unknown[] },
  now = Date.now(),
): Promise<string> {
  const id = crypto.randomUUID();
  await db.insert(bulkChanges).values({
    id,
    kind: preview.kind,
    actorUserId: preview.actorId,
    scope: preview.scope,
    targets: JSON.stringify(preview.targets),
    count: preview.targets.length,
    createdAt: now,
  });
  return id;
}

/** The actor's own preview of `kind`, still fresh and not confirmed yet. */
export async function openPreview(db: Db, id: string, kind: BulkKind, actorId: string, now = Date.now()): Promise<Result<BulkChange>> {
  const row = await db
    .select()
    .from(bulkChanges)
    .where(and(eq(bulkChanges.id, id), eq(bulkChanges.kind, kind), eq(bulkChanges.actorUserId, actorId)))
    .get();
  if (!row) return fail("not-found", "This preview is not yours or does not exist; preview again");
  if (row.state !== "previewed") return fail("conflict", "This change was already confirmed");
  if (row.createdAt <= now - PREVIEW_TTL_MS) return fail("conflict", "This preview is too old; preview again");
  return ok(row);
}

/** A change's record, whatever its state. */
export const changeOf = (db: Db, id: string) => db.select().from(bulkChanges).where(eq(bulkChanges.id, id)).get();

/** The targets a change recorded, as its preview captured them. */
export const targetsOf = <T>(change: Pick<BulkChange, "targets">) => JSON.parse(change.targets) as T[];

/**
 * The confirmation's claim, first in the batch that acts: the preview becomes applied for the
 * caller holding `claim`, only while it is still a fresh preview.
 */
export const claimApply = (db: Db, id: string, claim: string, now: number) =>
  db
    .update(bulkChanges)
    .set({ state: "applied", claim, appliedAt: now, undoUntil: now + UNDO_WINDOW_MS })
    .where(and(eq(bulkChanges.id, id), eq(bulkChanges.state, "previewed"), gt(bulkChanges.createdAt, now - PREVIEW_TTL_MS)))
    .returning({ id: bulkChanges.id });

/** Holds while the caller with `claim` won the change's last step: the guard of every statement that acts. */
export const holds = (id: string, claim: string): SQL =>
  sql`exists (select 1 from ${bulkChanges} where ${bulkChanges.id} = ${id} and ${bulkChanges.claim} = ${claim})`;

/**
 * One field of each of the change's targets (`$.id`), as an SQL list read from its record inside
 * the statement: a statement acts on exactly the rows the preview captured, however many.
 */
export const targetField = (id: string, path: string): SQL =>
  sql`(select json_extract(value, ${path}) from json_each((select ${bulkChanges.targets} from ${bulkChanges} where ${bulkChanges.id} = ${id})))`;

/** The change's targets as SQL rows (`value`, one JSON object each), for an insert that puts them back. */
export const targetObjects = (id: string): SQL =>
  sql`json_each((select ${bulkChanges.targets} from ${bulkChanges} where ${bulkChanges.id} = ${id}))`;

/**
 * The undo's claim, first in the batch that reverses: an applied change of `kind` becomes undone for
 * the caller holding `claim`, only within its window. Nobody else wins it after.
 */
export const claimUndo = (db: Db, id: string, kind: BulkKind, by: string, claim: string, now: number) =>
  db
    .update(bulkChanges)
    .set({ state: "undone", claim, undoneAt: now, undoneBy: by })
    .where(and(eq(bulkChanges.id, id), eq(bulkChanges.kind, kind), eq(bulkChanges.state, "applied"), gt(bulkChanges.undoUntil, now)))
    .returning({ id: bulkChanges.id });

/** Why an undo did not win its claim, read after the fact: unknown, already undone, or too late. */
export async function undoRefusal(db: Db, id: string, kind: BulkKind, now = Date.now()): Promise<Result<never>> {
  const row = await db
    .select()
    .from(bulkChanges)
    .where(and(eq(bulkChanges.id, id), eq(bulkChanges.kind, kind)))
    .get();
  if (!row || row.state === "previewed") return fail("not-found", "No such change to undo");
  if (row.state === "undone") return fail("conflict", "This change was already undone");
  if ((row.undoUntil ?? 0) <= now) return fail("conflict", "This change can no longer be undone: its hour has passed");
  return fail("conflict", "This change was just undone by another request");
}

/** Keeps what a step did, for the page to say. */
export async function recordOutcome(db: Db, id: string, outcome: Record<string, unknown>): Promise<void> {
  const row = await db.select({ outcome: bulkChanges.outcome }).from(bulkChanges).where(eq(bulkChanges.id, id)).get();
  await db
    .update(bulkChanges)
    .set({ outcome: { ...row?.outcome, ...outcome } })
    .where(eq(bulkChanges.id, id));
}

/** The latest changes of these kinds that ran, newest first, and whether each can still be undone. */
export async function recentBulkChanges(db: Db, kinds: BulkKind[], now = Date.now(), limit = 5): Promise<BulkChangeView[]> {
  const rows = await db
    .select()
    .from(bulkChanges)
    .where(and(inArray(bulkChanges.kind, kinds), inArray(bulkChanges.state, ["applied", "undone"])))
    .orderBy(desc(bulkChanges.appliedAt))
    .limit(limit);
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    scope: row.scope,
    count: row.count,
    appliedAt: row.appliedAt ?? row.createdAt,
    undoUntil: row.state === "applied" && (row.undoUntil ?? 0) > now ? row.undoUntil : null,
    undoneAt: row.undoneAt,
    outcome: row.outcome ?? {},
  }));
}
