// Time given back after a detection or an outage (decision 047): staff add days to every active
// licence of a product, or of one of its plans. A reason compensates a product once (a unique
// scope key), and the extension is one transaction whose statements all depend on the
// compensation row it inserts, so a second request for the same reason changes nothing. The
// owners are e-mailed by the job queue, one e-mail per owner, deduplicated. The change is
// previewed first and reaches exactly the previewed licences; for an hour it can be undone
// (decision 104).
import { and, desc, eq, inArray, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { counted, formatDate, plural } from "~/lib/format";
import { type BulkPreview, PREVIEW_SAMPLE } from "~/lib/bulk-changes";
import { type Compensation, maskKey } from "~/lib/licences";
import { type LicencePlan, PLAN_DURATION_MS } from "~/lib/plans";
import { fail, ok, type Result } from "~/lib/result";
import type { CompensationInput } from "~/lib/schemas/licences";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import {
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
import { licenceCompensations, licenceExtensions, licences } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import type { JobQueue } from "../platform/job-registry.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { syncSubscriptionExpiry } from "./licences.server";
import { DAY_MS } from "~/lib/time";

/** Plans whose keys run out; a lifetime key has nothing to add time to. */
const TIMED_PLANS = (Object.keys(PLAN_DURATION_MS) as LicencePlan[]).filter((plan) => PLAN_DURATION_MS[plan] !== null);
/** E-mails sent at once per compensation job; the outbox's cron delivers the rest. */
const MAILS_SENT_AT_ONCE = 40;

/** The product and the reason, folded: the same reason compensates a product once, whatever the plan. */
const scopeKeyOf = (input: Pick<CompensationInput, "product" | "reason">) =>
  `${input.product.trim().toLowerCase()}\n${input.reason.trim().replace(/\s+/g, " ").toLowerCase()}`;

/**
 * Licences that still run: a timed plan of the product, not revoked or banned, whose clock has
 * started and not run out (a paused one's clock stopped before it did). A key never used has lost
 * no time: its clock starts at its first use.
 */
function stillRunning(input: Pick<CompensationInput, "product" | "plan">, now: number): SQL {
  return and(
    eq(licences.product, input.product),
    input.plan ? eq(licences.plan, input.plan) : inArray(licences.plan, TIMED_PLANS),
    isNull(licences.revokedAt),
    isNull(licences.bannedAt),
    isNotNull(licences.expiresAt),
    sql`${licences.expiresAt} > coalesce(${licences.pausedAt}, ${now})`,
  )!;
}

/** What the form asked, as the preview recorded it: a confirmation must ask the same. */
const scopeOf = (input: CompensationInput) => ({ product: input.product, plan: input.plan || "", days: input.days, reason: input.reason });

/** The compensation a reason already made for the product, if any; the conflict names it. */
async function alreadyCompensated(db: Db, input: CompensationInput) {
  const existing = await db
    .select()
    .from(licenceCompensations)
    .where(eq(licenceCompensations.scopeKey, scopeKeyOf(input)))
    .get();
  if (!existing) return null;
  return {
    existing,
    problem: fail(
      "conflict",
      `Time was already added to ${existing.product} for this reason on ${formatDate(existing.createdAt)} (${existing.days} days)`,
      { field: "reason" },
    ),
  };
}

/** The running licences the input selects, oldest first: the one query the preview and the change both run. */
const runningLicences = (db: Db, input: CompensationInput, now: number) =>
  db
    .select({ id: licences.id, key: licences.key, ownerEmail: licences.ownerEmail })
    .from(licences)
    .where(stillRunning(input, now))
    .orderBy(licences.id)
    .limit(MAX_BULK_ROWS + 1);

const nothingRunning = (input: CompensationInput) =>
  fail("conflict", `No running licence of ${input.product}${input.plan ? ` (${input.plan})` : ""} to add time to`);

/**
 * Which running licences adding time would reach (decision 104), recorded so the change reaches
 * exactly those: how many, and the first few.
 */
export async function previewCompensation(db: Db, admin: Viewer, input: CompensationInput, now = Date.now()): Promise<Result<BulkPreview>> {
  const used = await alreadyCompensated(db, input);
  if (used) return used.problem;
  const rows = await runningLicences(db, input, now);
  if (rows.length === 0) return nothingRunning(input);
  if (rows.length > MAX_BULK_ROWS) {
    return fail("invalid", `More than ${MAX_BULK_ROWS} licences are running: add time to one plan at a time`, { field: "plan" });
  }
  const token = await recordPreview(
    db,
    { kind: "licence-time", actorId: admin.id, scope: scopeOf(input), targets: rows.map((row) => ({ id: row.id })) },
    now,
  );
  return ok({
    token,
    kind: "licence-time",
    count: rows.length,
    sample: rows.slice(0, PREVIEW_SAMPLE).map((row) => `${maskKey(row.key)} · ${row.ownerEmail}`),
    summary: `${counted(input.days, "day")} go${input.days === 1 ? "es" : ""} on ${counted(rows.length, "running licence")} of ${input.product}, and each owner is e-mailed. For an hour, Undo takes the time back.`,
  });
}

/**
 * Adds `days` to the running licences a preview captured, once per product and reason, audited,
 * and queues the owners' e-mails. A reason already used for the product is a conflict (its
 * e-mails are queued again, deduplicated, in case an earlier attempt stopped before sending them);
 * so is a preview whose licences are no longer exactly the running ones.
 */
export async function compensateLicences(
  deps: { db: Db; queue: JobQueue<"compensation-mail"> },
  admin: Viewer,
  input: CompensationInput,
  token: string | undefined,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ licences: number }>> {
  const { db } = deps;
  const used = await alreadyCompensated(db, input);
  if (used) {
    await queueMail(deps.queue, used.existing.id);
    return used.problem;
  }
  const rows = await runningLicences(db, input, now);
  if (rows.length === 0) return nothingRunning(input);
  if (!token) return fail("invalid", "Preview the change first", { field: "token" });
  const preview = await openPreview(db, token, "licence-time", admin.id, now);
  if (!preview.ok) return preview;
  const previewed = targetsOf<{ id: number }>(preview.value);
  if (JSON.stringify(preview.value.scope) !== JSON.stringify(scopeOf(input))) {
    return fail("conflict", "The form changed since the preview: preview again");
  }
  if (previewed.length !== rows.length || previewed.some((row, i) => row.id !== rows[i]!.id)) {
    return fail("conflict", "The running licences changed since the preview: preview again");
  }

  // The compensation is the bulk change: one id for both, so the change's undo finds its licences.
  const id = token;
  const claim = crypto.randomUUID();
  const ours = sql`exists (select 1 from ${licenceCompensations} where ${licenceCompensations.id} = ${id}) and ${holds(token, claim)}`;
  const extended = sql`select ${licenceExtensions.licenceId} from ${licenceExtensions} where ${licenceExtensions.compensationId} = ${id}`;
  const [claimed] = await db.batch([
    claimApply(db, token, claim, now),
    db
      .insert(licenceCompensations)
      .values({
        id,
        scopeKey: scopeKeyOf(input),
        product: input.product,
        plan: input.plan || null,
        days: input.days,
        reason: input.reason,
        createdBy: admin.id,
        createdAt: now,
      })
      .onConflictDoNothing({ target: licenceCompensations.scopeKey }),
    // Which licences this compensation extends: the previewed ones still running, only if the rows above are ours.
    db.insert(licenceExtensions).select(
      db
        .select({ compensationId: sql<string>`${id}`.as("compensation_id"), licenceId: licences.id })
        .from(licences)
        .where(and(stillRunning(input, now), sql`${licences.id} in ${targetField(token, "$.id")}`, ours)),
    ),
    db
      .update(licences)
      .set({ expiresAt: sql`${licences.expiresAt} + ${input.days * DAY_MS}` })
      .where(sql`${licences.id} in (${extended})`),
    syncSubscriptionExpiry(db, sql`select ${licences.productCodeId} from ${licences} where ${licences.id} in (${extended})`),
    db
      .update(licenceCompensations)
      .set({ licenceCount: sql`(select count(*) from (${extended}))` })
      .where(eq(licenceCompensations.id, id)),
  ]);
  if (claimed.length === 0) return fail("conflict", "This change was already confirmed");
  const saved = await db
    .select()
    .from(licenceCompensations)
    .where(eq(licenceCompensations.scopeKey, scopeKeyOf(input)))
    .get();
  // Another request with the same reason won the race: it extended the licences, once.
  if (saved?.id !== id) return fail("conflict", "Time was just added for this reason by another request", { field: "reason" });
  const total = saved.licenceCount ?? 0;
  await recordOutcome(db, token, { licences: total });
  await audit(
    db,
    admin.id,
    "licence.compensate",
    `compensation:${id}`,
    { product: input.product, plan: input.plan || "all timed plans", days: input.days, reason: input.reason, licences: total },
    ip,
  );
  await queueMail(deps.queue, id);
  return ok({ licences: total });
}

/**
 * Takes time added by a compensation back, once and within the hour: exactly its days, from
 * exactly the licences it reached, whatever happened to them since (a paused one keeps its pause).
 * The compensation goes, so the reason can be used again; e-mails not sent yet are not sent.
 */
export async function undoCompensation(
  db: Db,
  admin: Viewer,
  token: string,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ licences: number; days: number; product: string }>> {
  const compensation = await db.select().from(licenceCompensations).where(eq(licenceCompensations.id, token)).get();
  const claim = crypto.randomUUID();
  const ours = holds(token, claim);
  const extended = sql`select ${licenceExtensions.licenceId} from ${licenceExtensions} where ${licenceExtensions.compensationId} = ${token}`;
  const [claimed, back] = await db.batch([
    claimUndo(db, token, "licence-time", admin.id, claim, now),
    db
      .update(licences)
      .set({ expiresAt: sql`${licences.expiresAt} - ${(compensation?.days ?? 0) * DAY_MS}` })
      .where(and(sql`${licences.id} in (${extended})`, ours))
      .returning({ id: licences.id }),
    syncSubscriptionExpiry(db, sql`select ${licences.productCodeId} from ${licences} where ${licences.id} in (${extended})`),
    db.delete(licenceExtensions).where(and(eq(licenceExtensions.compensationId, token), ours)),
    db.delete(licenceCompensations).where(and(eq(licenceCompensations.id, token), ours)),
  ]);
  if (claimed.length === 0 || !compensation) return undoRefusal(db, token, "licence-time", now);
  await recordOutcome(db, token, { restored: back.length, skipped: 0 });
  await audit(
    db,
    admin.id,
    "licence.compensate.undo",
    `compensation:${token}`,
    { product: compensation.product, days: compensation.days, reason: compensation.reason, licences: back.length },
    ip,
  );
  return ok({ licences: back.length, days: compensation.days, product: compensation.product });
}

async function queueMail(queue: JobQueue<"compensation-mail">, compensationId: string) {
  try {
    await queue.send({ kind: "compensation-mail", compensationId });
  } catch (error) {
    // The time is added whatever happens to the e-mails; sending the form again queues them.
    console.error(`Could not queue the e-mails of compensation ${compensationId}:`, error);
  }
}

/** The latest compensations, newest first, for the staff page that adds them. */
export function recentCompensations(db: Db, limit = 10): Promise<Compensation[]> {
  return db
    .select({
      id: licenceCompensations.id,
      product: licenceCompensations.product,
      plan: licenceCompensations.plan,
      days: licenceCompensations.days,
      reason: licenceCompensations.reason,
      licenceCount: licenceCompensations.licenceCount,
      createdAt: licenceCompensations.createdAt,
    })
    .from(licenceCompensations)
    .orderBy(desc(licenceCompensations.createdAt))
    .limit(limit);
}

/**
 * The job queue's half: one e-mail to each owner of the licences a compensation extended,
 * listing their keys (masked) and new expiry. Safe to run again: each owner's e-mail has a dedupe key.
 */
export async function mailCompensation(deps: MailingDeps, compensationId: string): Promise<void> {
  const { db } = deps;
  const compensation = await db.select().from(licenceCompensations).where(eq(licenceCompensations.id, compensationId)).get();
  if (!compensation) return;
  const rows = await db
    .select({ email: licences.ownerEmail, key: licences.key, expiresAt: licences.expiresAt, pausedAt: licences.pausedAt })
    .from(licenceExtensions)
    .innerJoin(licences, eq(licences.id, licenceExtensions.licenceId))
    .where(eq(licenceExtensions.compensationId, compensationId));
  const owners = new Map<string, typeof rows>();
  for (const row of rows) {
    const owner = row.email.toLowerCase();
    owners.set(owner, [...(owners.get(owner) ?? []), row]);
  }
  const added = `${counted(compensation.days, "day")}`;
  let sentAtOnce = 0;
  for (const [owner, keys] of owners) {
    const lines = keys.map(
      (k) =>
        `${maskKey(k.key)}: ${k.pausedAt !== null ? "paused; the added time counts once it resumes" : `now runs until ${formatDate(k.expiresAt!)} (UTC)`}`,
    );
    const intro = `We added ${added} to your ${compensation.product} ${plural(keys.length, "licence", "licences")}: ${compensation.reason}.`;
    // The first few go out at once; the rest wait for the cron's delivery, a batch at a time.
    const sent = await sendMail(
      deps,
      {
        to: keys[0]!.email,
        subject: `${added} added to your ${BRAND} ${plural(keys.length, "licence", "licences")}`,
        text: [intro, "", ...lines, "", "Nothing to do on your side: your loader picks the new expiry up at its next check."].join("\n"),
        html: `<p>${escapeHtml(intro)}</p><ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join("")}</ul><p>Nothing to do on your side: your loader picks the new expiry up at its next check.</p>`,
        dedupeKey: `compensation:${compensationId}:${owner}`,
      },
      { later: sentAtOnce >= MAILS_SENT_AT_ONCE },
    );
    if (sent) sentAtOnce++;
  }
}
