// Staff decide members' replacement requests. Approving replaces the key on the shop's one key
// path (the order page's replacement: the old key revoked, a fresh one of the same variant sold on
// the same line, so the same plan and entitlements follow with a clock not yet started) and
// e-mails the new key; declining e-mails the reason. Either is one conditional change of a pending
// request, audited.
import { and, desc, eq } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { ReplacementDecision } from "~/lib/schemas/replacements";
import { BRAND } from "~/lib/brand";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { licenceResets, licences, replacementRequests } from "../platform/db/schema.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { type Actor, replaceKey } from "./order-actions.server";
import { findOrder } from "./orders.server";
import { licenceState } from "../licences/validation.server";

/** The requests waiting for a decision, oldest first, with the licence's state and checks, and the latest decided ones. */
export async function replacementQueue(db: Db, now = Date.now()) {
  const rows = await db
    .select({ request: replacementRequests, licence: licences })
    .from(replacementRequests)
    .innerJoin(licences, eq(licences.id, replacementRequests.licenceId))
    .orderBy(desc(replacementRequests.createdAt))
    .limit(200);
  const resets = await Promise.all(rows.map(({ licence }) => db.select({ at: licenceResets.resetAt, by: licenceResets.by }).from(licenceResets).where(eq(licenceResets.licenceId, licence.id))));
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

async function pending(db: Db, id: number) {
  const row = await db
    .select({ request: replacementRequests, licence: licences })
    .from(replacementRequests)
    .innerJoin(licences, eq(licences.id, replacementRequests.licenceId))
    .where(eq(replacementRequests.id, id))
    .get();
  if (!row) return fail("not-found", "No such request");
  if (row.request.state !== "pending") return fail("conflict", `This request was already ${row.request.state}`);
  return ok(row);
}

const decided = (db: Db, id: number, state: "approved" | "declined", actor: Actor, reason: string, now: number) =>
  db
    .update(replacementRequests)
    .set({ state, reason, decidedBy: actor.viewer.id, decidedAt: now })
    .where(and(eq(replacementRequests.id, id), eq(replacementRequests.state, "pending")))
    .returning({ id: replacementRequests.id });

export async function decideReplacement(deps: MailingDeps, actor: Actor, decision: ReplacementDecision, now = Date.now()): Promise<Result<{ key: string; state: "approved" | "declined" }>> {
  const { db } = deps;
  const found = await pending(db, decision.requestId);
  if (!found.ok) return found;
  const { request, licence } = found.value;
  if (decision.intent === "decline") {
    const [row] = await decided(db, request.id, "declined", actor, decision.reason, now);
    if (!row) return fail("conflict", "This request was already decided");
    await audit(db, actor.viewer.id, "replacement.decline", licence.key, { reason: decision.reason }, actor.ip);
    await sendMail(db, deps.mail, deps.waitUntil, {
      to: licence.ownerEmail,
      subject: `Your ${BRAND} replacement request`,
      text: `We looked at your request for a replacement of the key ${licence.key} and cannot replace it.\n\nReason: ${decision.reason}\n\nIf you have questions, contact our support.`,
      dedupeKey: `replacement-declined:${request.id}`,
    });
    return ok({ key: licence.key, state: "declined" });
  }
  const order = licence.orderId === null ? undefined : await orderOfLicence(db, licence.orderId);
  if (!order || licence.productCodeId === null) return fail("conflict", "This key has no order to replace it on");
  // The shop's one key path: with no stock, or a second approval racing this one, nothing changes.
  const replaced = await replaceKey(deps, actor, order, `c${licence.productCodeId}`, `Banned in game: ${decision.reason}`, now);
  if (!replaced.ok) return replaced;
  await decided(db, request.id, "approved", actor, decision.reason, now);
  await audit(db, actor.viewer.id, "replacement.approve", licence.key, { reason: decision.reason }, actor.ip);
  return ok({ key: licence.key, state: "approved" });
}

/** The order a sold key's licence names: a card order, a crypto order or a manual one ("M-<id>"). */
async function orderOfLicence(db: Db, orderId: string) {
  const manual = /^M-(\d+)$/.exec(orderId);
  if (manual) return findOrder(db, "admin", manual[1]!);
  return (await findOrder(db, "shopify", orderId)) ?? (await findOrder(db, "crypto", orderId));
}
