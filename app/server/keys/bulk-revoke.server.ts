// Revoking many keys at once (decision 104): staff paste the keys (a leaked batch, a reseller's
// abused keys), see how many working licences that stops and which, and revoke exactly those: the
// code, its licence and its subscription, in one transaction. For an hour, Undo makes each key work
// again as it was, unless something else changed its licence since (a ban, a pause, a PC reset, a
// new owner, more time): those are named and left alone. A held affiliate commission is not voided
// by a bulk revocation, so undoing it has no money to put back.
import { and, isNull, sql } from "drizzle-orm";
import { type BulkPreview, PREVIEW_SAMPLE } from "~/lib/bulk-changes";
import { counted } from "~/lib/format";
import { maskKey } from "~/lib/licences";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { restoreLicencesInBulk, revokeLicencesInBulk } from "../licences/licence-records.server";
import { audit } from "../platform/audit.server";
import {
  changeOf,
  claimApply,
  claimUndo,
  holds,
  MAX_BULK_ROWS,
  openPreview,
  recordOutcome,
  recordPreview,
  targetField,
  targetsOf,
  undoRefusal,
} from "../platform/bulk-changes.server";
import type { Db } from "../platform/db/client.server";
import { licences, productCodes, userSubscriptions } from "../platform/db/schema.server";
import { sha256Hex } from "../platform/tokens.server";
import { parseCodeLines } from "./stock.server";

export interface RevocationScope {
  /** One key per line. */
  keys: string;
  reason: string;
}

/** A working licence as the preview captures it: what undoing needs, and a fingerprint of the rest. */
interface RevokedRow {
  id: number;
  codeId: number | null;
  /** The subscription's status before, to give it back. */
  subscription: "active" | "expired" | null;
  /** A hash of what else may change on the licence (owner, PC, ban, pause, suspension, expiry). */
  fingerprint: string;
  masked: string;
  owner: string;
}

async function workingLicences(db: Db, scope: RevocationScope): Promise<Result<RevokedRow[]>> {
  const { codes: keys } = parseCodeLines(scope.keys);
  if (keys.length === 0) return fail("invalid", "Paste the keys to revoke, one per line", { field: "keys" });
  if (keys.length > MAX_BULK_ROWS) return fail("invalid", `Revoke at most ${MAX_BULK_ROWS} keys at a time`, { field: "keys" });
  const rows = await db
    .select({
      licence: licences,
      subscription: userSubscriptions.status,
    })
    .from(licences)
    .leftJoin(userSubscriptions, sql`${userSubscriptions.productCodeId} = ${licences.productCodeId}`)
    .where(and(sql`${licences.key} in (select value from json_each(${JSON.stringify(keys)}))`, isNull(licences.revokedAt)))
    .orderBy(licences.id);
  if (rows.length === 0) return fail("conflict", "None of these keys has a working licence: nothing to revoke", { field: "keys" });
  return ok(
    await Promise.all(
      rows.map(async ({ licence, subscription }) => ({
        id: licence.id,
        codeId: licence.productCodeId,
        subscription: subscription === "active" || subscription === "expired" ? subscription : null,
        fingerprint: await fingerprintOf(licence),
        masked: maskKey(licence.key),
        owner: licence.ownerEmail,
      })),
    ),
  );
}

/** What else may change on a licence while it is revoked: if any of it did, Undo leaves it alone. */
const fingerprintOf = (licence: typeof licences.$inferSelect) =>
  sha256Hex(
    JSON.stringify([
      licence.ownerEmail,
      licence.hwid,
      licence.bannedAt,
      licence.pausedAt,
      licence.suspendedAt,
      licence.expiresAt,
      licence.entitlements,
    ]),
  );

const same = (a: RevokedRow[], b: RevokedRow[]) =>
  a.length === b.length && a.every((row, i) => row.id === b[i]!.id && row.fingerprint === b[i]!.fingerprint);

/** Which working licences revoking these keys stops, recorded so the revocation stops exactly those. */
export async function previewRevocation(db: Db, admin: Viewer, scope: RevocationScope, now = Date.now()): Promise<Result<BulkPreview>> {
  const rows = await workingLicences(db, scope);
  if (!rows.ok) return rows;
  // The record keeps no address or key: the sample shown now is enough to recognise them.
  const targets = rows.value.map(({ id, codeId, subscription, fingerprint }) => ({ id, codeId, subscription, fingerprint }));
  const token = await recordPreview(db, { kind: "licence-revoke", actorId: admin.id, scope: { reason: scope.reason }, targets }, now);
  const asked = parseCodeLines(scope.keys).codes.length;
  const notWorking = asked - rows.value.length;
  return ok({
    token,
    kind: "licence-revoke",
    count: rows.value.length,
    sample: rows.value.slice(0, PREVIEW_SAMPLE).map((row) => `${row.masked} · ${row.owner}`),
    summary:
      `${counted(rows.value.length, "working licence")} stop${rows.value.length === 1 ? "s" : ""} (REVOKED), with ${rows.value.length === 1 ? "its" : "their"} subscription${rows.value.length === 1 ? "" : "s"}` +
      (notWorking > 0 ? `; ${counted(notWorking, "other key")} ${notWorking === 1 ? "is" : "are"} unknown or revoked already` : "") +
      ". For an hour, Undo makes them work again.",
  });
}

/** Revokes the licences a preview captured, once, if they are still exactly as previewed. */
export async function revokeAsPreviewed(
  db: Db,
  admin: Viewer,
  token: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ revoked: number }>> {
  const preview = await openPreview(db, token, "licence-revoke", admin.id, now);
  if (!preview.ok) return preview;
  const previewed = targetsOf<RevokedRow>(preview.value);
  const current = await workingLicences(db, { keys: await keysOf(db, previewed), reason: "" });
  if (!current.ok || !same(previewed, current.value)) {
    return fail("conflict", "These licences changed since the preview (one was revoked, banned, reset or renewed): preview again");
  }
  const claim = crypto.randomUUID();
  const ours = holds(token, claim);
  const codeIds = targetField(token, "$.codeId");
  const [claimed, , , revoked] = await db.batch([
    claimApply(db, token, claim, now),
    db
      .update(productCodes)
      .set({ revokedAt: now })
      .where(and(sql`${productCodes.id} in ${codeIds}`, isNull(productCodes.revokedAt), ours)),
    ...revokeLicencesInBulk(db, targetField(token, "$.id"), codeIds, now, ours),
  ]);
  if (claimed.length === 0) return fail("conflict", "This change was already confirmed");
  const reason = String(preview.value.scope.reason ?? "");
  await recordOutcome(db, token, { revoked: revoked.length });
  await audit(
    db,
    admin.id,
    "licence.bulk-revoke",
    `bulk:${token}`,
    { licences: revoked.length, reason, ids: previewed.map((r) => r.id) },
    ip,
  );
  return ok({ revoked: revoked.length });
}

/** The previewed licences' keys, read again to run the preview's query. */
async function keysOf(db: Db, rows: { id: number }[]): Promise<string> {
  if (rows.length === 0) return "";
  const found = await db
    .select({ key: licences.key })
    .from(licences)
    .where(sql`${licences.id} in (select value from json_each(${JSON.stringify(rows.map((row) => row.id))}))`);
  return found.map((row) => row.key).join("\n");
}

/**
 * Undoes a bulk revocation once, within the hour: every licence it revoked works again as it was,
 * unless something changed it since (then it is counted as skipped, and stays as it is).
 */
export async function undoRevocation(
  db: Db,
  admin: Viewer,
  token: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ restored: number; skipped: number }>> {
  const claim = crypto.randomUUID();
  const [claimed] = await db.batch([claimUndo(db, token, "licence-revoke", admin.id, claim, now)]);
  if (claimed.length === 0) return undoRefusal(db, token, "licence-revoke", now);
  const change = (await changeOf(db, token))!;
  const revokedAt = change.appliedAt!;
  const rows = targetsOf<RevokedRow>(change);
  const current = new Map(
    (
      await db
        .select()
        .from(licences)
        .where(sql`${licences.id} in ${targetField(token, "$.id")}`)
    ).map((licence) => [licence.id, licence]),
  );
  const codes = new Map(
    (
      await db
        .select({ id: productCodes.id, revokedAt: productCodes.revokedAt })
        .from(productCodes)
        .where(sql`${productCodes.id} in ${targetField(token, "$.codeId")}`)
    ).map((code) => [code.id, code.revokedAt]),
  );
  const restorable: RevokedRow[] = [];
  for (const row of rows) {
    const licence = current.get(row.id);
    if (!licence || licence.revokedAt !== revokedAt) continue;
    if ((await fingerprintOf(licence)) !== row.fingerprint) continue;
    if (row.codeId !== null && codes.get(row.codeId) !== revokedAt) continue;
    restorable.push(row);
  }
  const codeIds = (rows: RevokedRow[]) => rows.flatMap((row) => (row.codeId === null ? [] : [row.codeId]));
  let restored = 0;
  if (restorable.length > 0) {
    const [back] = await db.batch([
      ...restoreLicencesInBulk(
        db,
        {
          licenceIds: restorable.map((row) => row.id),
          activeCodeIds: codeIds(restorable.filter((row) => row.subscription === "active")),
          expiredCodeIds: codeIds(restorable.filter((row) => row.subscription === "expired")),
        },
        revokedAt,
      ),
      db
        .update(productCodes)
        .set({ revokedAt: null })
        .where(
          and(
            sql`${productCodes.id} in (select value from json_each(${JSON.stringify(codeIds(restorable))}))`,
            sql`${productCodes.revokedAt} = ${revokedAt}`,
          ),
        ),
    ]);
    restored = back.length;
  }
  const skipped = rows.length - restored;
  await recordOutcome(db, token, { restored, skipped });
  await audit(db, admin.id, "licence.bulk-revoke.undo", `bulk:${token}`, { restored, skipped }, ip);
  return ok({ restored, skipped });
}
