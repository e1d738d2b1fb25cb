// Time given back after a detection or an outage (decision 047): staff add days to every active
// licence of a product, or of one of its plans. A reason compensates a product once (a unique
// scope key), and the extension is one transaction whose statements all depend on the
// compensation row it inserts, so a second request for the same reason changes nothing. The
// owners are e-mailed by the job queue, one e-mail per owner, deduplicated.
import { and, count, desc, eq, inArray, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { counted, formatDate, plural } from "~/lib/format";
import { type Compensation, maskKey } from "~/lib/licences";
import { type LicencePlan, PLAN_DURATION_MS } from "~/lib/plans";
import { fail, ok, type Result } from "~/lib/result";
import type { CompensationInput } from "~/lib/schemas/licences";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
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

/**
 * Adds `days` to every running licence the input selects, once per product and reason, audited,
 * and queues the owners' e-mails. A reason already used for the product is a conflict (its
 * e-mails are queued again, deduplicated, in case an earlier attempt stopped before sending them).
 */
export async function compensateLicences(
  deps: { db: Db; queue: JobQueue<"compensation-mail"> },
  admin: Viewer,
  input: CompensationInput,
  ip: string | null,
  now = Date.now(),
): Promise<Result<{ licences: number }>> {
  const { db } = deps;
  const scopeKey = scopeKeyOf(input);
  const existing = await db.select().from(licenceCompensations).where(eq(licenceCompensations.scopeKey, scopeKey)).get();
  if (existing) {
    await queueMail(deps.queue, existing.id);
    return fail(
      "conflict",
      `Time was already added to ${existing.product} for this reason on ${formatDate(existing.createdAt)} (${existing.days} days)`,
      { field: "reason" },
    );
  }
  const [running] = await db.select({ n: count() }).from(licences).where(stillRunning(input, now));
  if (!running?.n) return fail("conflict", `No running licence of ${input.product}${input.plan ? ` (${input.plan})` : ""} to add time to`);

  const id = crypto.randomUUID();
  const ours = sql`exists (select 1 from ${licenceCompensations} where ${licenceCompensations.id} = ${id})`;
  const extended = sql`select ${licenceExtensions.licenceId} from ${licenceExtensions} where ${licenceExtensions.compensationId} = ${id}`;
  await db.batch([
    db
      .insert(licenceCompensations)
      .values({
        id,
        scopeKey,
        product: input.product,
        plan: input.plan || null,
        days: input.days,
        reason: input.reason,
        createdBy: admin.id,
        createdAt: now,
      })
      .onConflictDoNothing({ target: licenceCompensations.scopeKey }),
    // Which licences this compensation extends, chosen once: only if the row above is ours.
    db.insert(licenceExtensions).select(
      db
        .select({ compensationId: sql<string>`${id}`.as("compensation_id"), licenceId: licences.id })
        .from(licences)
        .where(and(stillRunning(input, now), ours)),
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
  const saved = await db.select().from(licenceCompensations).where(eq(licenceCompensations.scopeKey, scopeKey)).get();
  // Another request with the same reason won the race: it extended the licences, once.
  if (saved?.id !== id) return fail("conflict", "Time was just added for this reason by another request", { field: "reason" });
  const total = saved.licenceCount ?? 0;
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
