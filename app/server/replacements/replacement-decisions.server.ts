// Staff decide members' replacement requests. Approving replaces the key on the shop's one key
// path (the order page's replacement: the old key revoked, a fresh one of the same variant sold on
// the same line, so the same plan and entitlements follow with a clock not yet started) and
// e-mails the new key; declining e-mails the reason. Either first wins the one conditional change
// of a pending request (decision 083); only the winner acts, mails and audits.
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { ReplacementDecision } from "~/lib/schemas/replacements";
import { BRAND } from "~/lib/brand";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { licenceResets, licences, replacementRequests, users } from "../platform/db/schema.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { type Actor, replaceKey } from "../orders/order-actions.server";
import { findOrder } from "../orders/order-list.server";
import { licenceState } from "../licences/validation.server";

/** The requests waiting for a decision, oldest first, with the licence's state and checks, and the latest decided ones. */
export async function replacementQueue(db: Db, now = Date.now()) {
  const rows = await db
    .select({ request: replacementRequests, licence: licences })
    .from(replacementRequests)
    .innerJoin(licences, eq(licences.id, replacementRequests.licenceId))
    .orderBy(desc(replacementRequests.createdAt))
    .limit(200);
  const resets = await Promise.all(
    rows.map(({ licence }) =>
      db.select({ at: licenceResets.resetAt, by: licenceResets.by }).from(licenceResets).where(eq(licenceResets.licenceId, licence.id)),
    ),
  );
  return rows.map(({ request, licence }, i) => ({
    id: request.id,
    state: request.state,
    description: request.description,
    reason: request.reason,
    createdAt: request.createdAt,
    decidedAt: request.decidedAt,
    key: licence.key,
    product: licence.product,
    plan: licence.plan,
    ownerEmail: licence.ownerEmail,
    licenceState: licenceState(licence, now),
    activatedAt: licence.activatedAt,
    lastCheckAt: licence.lastCheckAt,
    lastCheckPlace: licence.lastCheckPlace,
    resets: resets[i]?.length ?? 0,
  }));
}

const requestWithLicence = (db: Db, id: number) =>
  db
    .select({ request: replacementRequests, licence: licences, decider: users.email })
    .from(replacementRequests)
    .innerJoin(licences, eq(licences.id, replacementRequests.licenceId))
    .leftJoin(users, eq(users.id, replacementRequests.decidedBy))
    .where(eq(replacementRequests.id, id))
    .get();

/** The answer to a decision that came second: who took the first, and what it was. */
async function decidedAlready(db: Db, id: number): Promise<Result<never>> {
  const row = await requestWithLicence(db, id);
  if (!row) return fail("not-found", "No such request");
  return fail("conflict", `This request was already ${row.request.state} by ${row.decider ?? "another member of staff"}`);
}

type Decided = "approved" | "declined";

/**
 * Wins the decision: the one conditional change of a pending request, marked with this caller's
 * own `claim` (random), so that nothing else (not even the same admin's second click in the same
 * millisecond) can pass for it. Its result is empty for the caller that came second.
 */
const claimDecision = (db: Db, id: number, state: Decided, actor: Actor, reason: string, now: number, claim: string) =>
  db
    .update(replacementRequests)
    .set({ state, reason, decidedBy: actor.viewer.id, decidedAt: now, claim })
    .where(and(eq(replacementRequests.id, id), eq(replacementRequests.state, "pending")))
    .returning({ id: replacementRequests.id });

/** This caller's decision, as the statement that won it wrote it. */
const ours = (id: number, claim: string) => and(eq(replacementRequests.id, id), eq(replacementRequests.claim, claim));

/** Gives a decision back (its effect could not happen): the request waits again, to be decided anew. */
const undoDecision = (db: Db, id: number, claim: string, when?: SQL) =>
  db
    .update(replacementRequests)
    .set({ state: "pending", reason: null, decidedBy: null, decidedAt: null, claim: null })
    .where(and(ours(id, claim), when));

/**
 * Staff decide a pending request, once: whoever wins the request's conditional change acts, mails
 * and audits; the other is told who decided first and changes nothing. An approval wins the
 * request in the same transaction that replaces the key, so the two never disagree; a decline
 * that cannot write its e-mail gives the request back.
 */
export async function decideReplacement(
  deps: MailingDeps,
  actor: Actor,
  decision: ReplacementDecision,
  now = Date.now(),
): Promise<Result<{ key: string; state: Decided }>> {
  const { db } = deps;
  const found = await requestWithLicence(db, decision.requestId);
  if (!found) return fail("not-found", "No such request");
  if (found.request.state !== "pending") return decidedAlready(db, found.request.id);
  const { request, licence } = found;
  const claim = crypto.randomUUID();
  if (decision.intent === "decline") {
    const [won] = await claimDecision(db, request.id, "declined", actor, decision.reason, now, claim);
    if (!won) return decidedAlready(db, request.id);
    try {
      await sendMail(deps, {
        to: licence.ownerEmail,
        subject: `Your ${BRAND} replacement request`,
        text: `We looked at your request for a replacement of the key ${licence.key} and cannot replace it.\n\nReason: ${decision.reason}\n\nIf you have questions, contact our support.`,
        dedupeKey: `replacement-declined:${request.id}`,
      });
    } catch (error) {
      await undoDecision(db, request.id, claim);
      throw error;
    }
    await audit(db, actor.viewer.id, "replacement.decline", licence.key, { reason: decision.reason }, actor.ip);
    return ok({ key: licence.key, state: "declined" });
  }
  const order = licence.orderId === null ? undefined : await orderOfLicence(db, licence.orderId);
  if (!order || licence.productCodeId === null) return fail("conflict", "This key has no order to replace it on");
  // The shop's one key path, with the request won in the same transaction as the key: with no
  // stock, or a decision taken first, nothing changes.
  const replaced = await replaceKey(deps, actor, order, `c${licence.productCodeId}`, `Banned in game: ${decision.reason}`, now, {
    claim: claimDecision(db, request.id, "approved", actor, decision.reason, now, claim),
    won: sql`exists (select 1 from ${replacementRequests} where ${ours(request.id, claim)})`,
    undo: (nothingMoved) => undoDecision(db, request.id, claim, nothingMoved),
  });
  if (!replaced.ok) {
    const after = await db
      .select({ state: replacementRequests.state })
      .from(replacementRequests)
      .where(eq(replacementRequests.id, request.id))
      .get();
    return after?.state === "pending" ? replaced : decidedAlready(db, request.id);
  }
  await audit(db, actor.viewer.id, "replacement.approve", licence.key, { reason: decision.reason }, actor.ip);
  return ok({ key: licence.key, state: "approved" });
}

/** The order a sold key's licence names: a card order, a crypto order or a manual one ("M-<id>"). */
async function orderOfLicence(db: Db, orderId: string) {
  const manual = /^M-(\d+)$/.exec(orderId);
  if (manual) return findOrder(db, "admin", manual[1]!);
  return (await findOrder(db, "shopify", orderId)) ?? (await findOrder(db, "crypto", orderId));
}
