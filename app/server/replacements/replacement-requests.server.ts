// A member asks for a replacement key when theirs was banned in game within 48 hours of its
// activation (the support page's promise): once per key, for a key they own that was sold to them
// (a reseller's keys are the reseller's to look after). Staff decide (replacement-decisions.server.ts).
import { and, eq, inArray, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { REPLACEMENT_WINDOW_HOURS } from "~/lib/schemas/replacements";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import { type Db, refusedBy } from "../platform/db/client.server";
import { bound, builtOnce, read } from "../platform/db/reads.server";
import { licences, replacementRequests } from "../platform/db/schema.server";

const WINDOW_MS = REPLACEMENT_WINDOW_HOURS * 3600_000;

/** Whether a key activated at `activatedAt` may still be replaced at `now`. */
export const withinReplacementWindow = (activatedAt: number | null, now: number) => activatedAt !== null && now - activatedAt <= WINDOW_MS;

export async function requestReplacement(
  db: Db,
  member: Viewer,
  input: { licenceId: number; description: string },
  now = Date.now(),
): Promise<Result<{ key: string }>> {
  const licence = await db
    .select()
    .from(licences)
    .where(and(eq(licences.id, input.licenceId), sql`lower(${licences.ownerEmail}) = lower(${member.email})`))
    .get();
  if (!licence || licence.productCodeId === null) return fail("not-found", "No such licence");
  if (licence.revokedAt !== null) return fail("conflict", "This key is already revoked");
  if (!withinReplacementWindow(licence.activatedAt, now)) {
    return fail("conflict", `Replacements are for keys banned within ${REPLACEMENT_WINDOW_HOURS} hours of activation`);
  }
  try {
    await db
      .insert(replacementRequests)
      .values({ licenceId: licence.id, userId: member.id, description: input.description, createdAt: now });
  } catch (error) {
    if (refusedBy(error, "replacement_requests.licence_id")) return fail("conflict", "You already asked for a replacement of this key");
    throw error;
  }
  await audit(db, member.id, "replacement.request", licence.key, { description: input.description });
  return ok({ key: licence.key });
}

// Built once per database: the hub's subscriptions page reads it at every visit.
const requestsOfOwnerQuery = builtOnce((db) =>
  db
    .select({ licenceId: replacementRequests.licenceId, state: replacementRequests.state, reason: replacementRequests.reason })
    .from(replacementRequests)
    .where(
      inArray(
        replacementRequests.licenceId,
        db
          .select({ id: licences.id })
          .from(licences)
          .where(sql`lower(${licences.ownerEmail}) = lower(${sql.placeholder("email")})`),
      ),
    )
    .prepare(),
);

/**
 * The requests for replacement of every licence `owner` holds (those `licencesOf` lists), by
 * licence, as a read not yet run: a page sends it in the same batch as the licences themselves.
 */
export function replacementRequestsOfOwnerRead(db: Db, owner: Pick<Viewer, "email">) {
  return read(
    [bound(requestsOfOwnerQuery(db), { email: owner.email })],
    ([rows]) => new Map(rows.map((row) => [row.licenceId, { state: row.state, reason: row.reason }])),
  );
}

/**
 * A deleted account's requests for replacement keys (decision 099): staff's decisions stay with
 * the keys they concern, the member's own account of what happened goes.
 */
export const requestsOfDeletedAccount = (db: Db, userId: string) =>
  db.update(replacementRequests).set({ description: "(removed with the account)" }).where(eq(replacementRequests.userId, userId));
