// Renewal reminders (decision 091): the cron e-mails a licence's owner a few days before it ends
// (RENEWAL_REMINDER_DAYS, 3 and 1 by default) and once after it ended, each with a signed one-click
// renewal link. Each reminder is claimed first (a row per licence, stage and expiry), so two cron
// runs send it once; a renewal moves the expiry, so the old expiry's reminders are never due again.
// Never for lifetime, revoked, banned or paused licences, an owner without a verified account, one
// who turned reminders off (the Security page, or the e-mail's List-Unsubscribe), or a licence that
// renews itself from the balance (auto-renewal writes when it cannot).
import { and, eq, gt, isNotNull, isNull, lte, ne, type SQL, sql } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { formatDate } from "~/lib/format";
import { maskKey } from "~/lib/licences";
import { PLAN_NAME } from "~/lib/plans";
import { DEFAULT_REMINDER_DAYS, ENDED_REMINDER_DAYS } from "~/lib/renewals";
import { fail, ok, type Result } from "~/lib/result";
import { DAY_MS } from "~/lib/time";
import { renewPath, signedRenewLink } from "../licences/renew-links.server";
import { type LicenceSigner, licenceSigner } from "../licences/signing.server";
import type { Db } from "../platform/db/client.server";
import { autoRenewals, licences, reminderOptOuts, renewalReminders, users } from "../platform/db/schema.server";
import { escapeHtml } from "../platform/html.server";
import { type MailingDeps, sendMail } from "../platform/mail.server";
import { fromBase64, fromBase64Url, toBase64Url } from "../platform/tokens.server";
import { REMINDER_UNSUBSCRIBE_PATH } from "~/lib/entry-paths";

/** The days before the end a reminder goes out, most distant first, from RENEWAL_REMINDER_DAYS ("3,1"; "none": none). */
export function reminderDays(setting: string | undefined): number[] {
  const text = setting?.trim() ?? "";
  if (text === "") return DEFAULT_REMINDER_DAYS;
  if (text.toLowerCase() === "none") return [];
  const days = text.split(",").map((part) => Number(part.trim()));
  if (days.some((d) => !Number.isInteger(d) || d < 1 || d > 60)) return DEFAULT_REMINDER_DAYS;
  return [...new Set(days)].sort((a, b) => b - a);
}

/** Where a reminder's links lead: the shop's address, and its signer (null: plain links to the hub's renewal page). */
export interface ReminderLinks {
  origin: string;
  signer: LicenceSigner | null;
}

/** The cron's links: the configured address, signed with the licence key when it is set. */
export async function reminderLinks(env: Pick<Env, "SHOP_URL" | "WEBAUTHN_ORIGIN" | "LICENCE_SIGNING_KEY">): Promise<ReminderLinks> {
  const signer = await licenceSigner(env.LICENCE_SIGNING_KEY);
  return { origin: shopOrigin(env), signer: signer.ok ? signer.value : null };
}

/** The shop's address for links in mail the cron sends (no request to take it from). */
export function shopOrigin(env: Partial<Pick<Env, "SHOP_URL" | "WEBAUTHN_ORIGIN">>): string {
  const configured = (env.SHOP_URL?.trim() || env.WEBAUTHN_ORIGIN?.trim() || "http://localhost:5173").replace(/\/+$/, "");
  return configured;
}

const unsubscribeBytes = (userId: string) => new TextEncoder().encode(`renewal-reminders-off\n${userId}`);

/** The member's one-click unsubscribe link, signed so that nobody turns off someone else's reminders. */
export async function unsubscribeLink(links: ReminderLinks, userId: string): Promise<string | null> {
  if (!links.signer) return null;
  const signature = toBase64Url(fromBase64(await links.signer.sign(unsubscribeBytes(userId))));
  return `${links.origin}${REMINDER_UNSUBSCRIBE_PATH}?user=${encodeURIComponent(userId)}&signature=${signature}`;
}

/** Whether an unsubscribe link is the shop's, for this account. */
export async function genuineUnsubscribeLink(signer: LicenceSigner, userId: string | null, signature: string | null): Promise<boolean> {
  try {
    return userId !== null && signature !== null && (await signer.verify(unsubscribeBytes(userId), fromBase64Url(signature)));
  } catch {
    return false;
  }
}

/** Turns the member's reminders off from a signed unsubscribe link (once is enough; again changes nothing). */
export async function unsubscribeByLink(
  db: Db,
  signer: LicenceSigner,
  userId: string | null,
  signature: string | null,
  now = Date.now(),
): Promise<Result> {
  if (!(await genuineUnsubscribeLink(signer, userId, signature)) || !userId) return fail("forbidden", "This unsubscribe link is not valid");
  const account = await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).get();
  if (!account) return fail("not-found", "This account no longer exists");
  await setReminders(db, userId, false, now);
  return ok();
}

/** Whether the member gets renewal reminders (on unless they turned them off). */
export async function remindersOn(db: Db, userId: string): Promise<boolean> {
  return !(await db.select({ id: reminderOptOuts.userId }).from(reminderOptOuts).where(eq(reminderOptOuts.userId, userId)).get());
}

/** The Security page's switch (and the unsubscribe link's). */
export async function setReminders(db: Db, userId: string, on: boolean, now = Date.now()): Promise<void> {
  if (on) await db.delete(reminderOptOuts).where(eq(reminderOptOuts.userId, userId));
  else await db.insert(reminderOptOuts).values({ userId, optedOutAt: now }).onConflictDoNothing();
}

/** At most this many reminders per cron run (the next run sends the rest), and this many delivered at once. */
const REMINDERS_PER_RUN = 200;
const SENT_AT_ONCE = 20;

/** The licence's owner: a verified, unbanned account that has not turned reminders off. */
const ownerToRemind = and(
  isNotNull(users.emailVerifiedAt),
  isNull(users.bannedAt),
  sql`not exists (select 1 from ${reminderOptOuts} where ${reminderOptOuts.userId} = ${users.id})`,
);

/** A licence that still works but for its time: timed, not revoked, banned or paused. */
const stillWorks = and(ne(licences.plan, "lifetime"), isNull(licences.revokedAt), isNull(licences.bannedAt), isNull(licences.pausedAt));

const notClaimed = (stage: string | SQL) =>
  sql`not exists (select 1 from ${renewalReminders} where ${renewalReminders.licenceId} = ${licences.id} and ${renewalReminders.stage} = ${stage} and ${renewalReminders.expiresAt} = ${licences.expiresAt})`;

async function dueLicences(db: Db, window: ReturnType<typeof and>, extra?: ReturnType<typeof and>) {
  return db
    .select({ licence: licences, userId: users.id })
    .from(licences)
    .innerJoin(users, sql`lower(${users.email}) = lower(${licences.ownerEmail})`)
    .where(and(stillWorks, isNotNull(licences.expiresAt), window, ownerToRemind, extra))
    .limit(REMINDERS_PER_RUN);
}

type DueLicence = Awaited<ReturnType<typeof dueLicences>>[number];

/** stageOf in SQL, for the licence row: so licences already reminded for their stage are not read again. */
function stageSql(days: number[], now: number): SQL {
  const nearest = [...days].sort((a, b) => a - b);
  const cases = nearest.map((d) => sql`when ${licences.expiresAt} - ${now} <= ${d * DAY_MS} then ${`before:${d}`}`);
  return sql`(case ${sql.join(cases, sql` `)} end)`;
}

/** The stage a licence ending at `expiresAt` is in: the nearest reminder day it has reached. */
function stageOf(days: number[], expiresAt: number, now: number): string | null {
  const reached = days.filter((d) => expiresAt - now <= d * DAY_MS);
  return reached.length === 0 ? null : `before:${Math.min(...reached)}`;
}

/**
 * The cron: every reminder due now, each claimed before its e-mail is written, so a second run (or
 * one running at the same time) sends nothing more. Returns how many were sent.
 */
export async function sendRenewalReminders(deps: MailingDeps, links: ReminderLinks, days: number[], now = Date.now()): Promise<number> {
  const { db } = deps;
  const soonest = days.length === 0 ? 0 : Math.max(...days);
  const before =
    soonest === 0
      ? []
      : await dueLicences(
          db,
          and(gt(licences.expiresAt, now), lte(licences.expiresAt, now + soonest * DAY_MS)),
          and(
            // A licence that renews itself from the balance is left to auto-renewal, which writes if it cannot pay.
            sql`not exists (select 1 from ${autoRenewals} where ${autoRenewals.licenceId} = ${licences.id})`,
            notClaimed(stageSql(days, now)),
          ),
        );
  const after = await dueLicences(
    db,
    and(lte(licences.expiresAt, now), gt(licences.expiresAt, now - ENDED_REMINDER_DAYS * DAY_MS)),
    notClaimed("after"),
  );
  let sent = 0;
  const remind = async (due: DueLicence, stage: string) => {
    const claimed = await db
      .insert(renewalReminders)
      .values({ licenceId: due.licence.id, stage, expiresAt: due.licence.expiresAt!, sentAt: now })
      .onConflictDoNothing()
      .returning({ licenceId: renewalReminders.licenceId });
    if (claimed.length === 0) return;
    await mailReminder(deps, links, due, stage, now, sent >= SENT_AT_ONCE);
    sent++;
  };
  for (const due of before) {
    const stage = stageOf(days, due.licence.expiresAt!, now);
    if (stage) await remind(due, stage);
  }
  for (const due of after) await remind(due, "after");
  return sent;
}

async function mailReminder(deps: MailingDeps, links: ReminderLinks, due: DueLicence, stage: string, now: number, later: boolean) {
  const { licence, userId } = due;
  const expiresAt = licence.expiresAt!;
  const renew = links.signer
    ? await signedRenewLink(links.signer, links.origin, { id: licence.id, plan: licence.plan }, now)
    : `${links.origin}${renewPath(licence.id)}`;
  const unsubscribe = await unsubscribeLink(links, userId);
  const name = `${licence.product} licence ${maskKey(licence.key)} (${PLAN_NAME[licence.plan]})`;
  const ended = stage === "after";
  const left = Math.max(1, Math.ceil((expiresAt - now) / DAY_MS));
  const subject = ended
    ? `Your ${BRAND} licence has ended — renew it with the same key`
    : `Your ${BRAND} licence ends ${left === 1 ? "tomorrow" : `in ${left} days`}`;
  const what = ended
    ? `Your ${name} ended on ${formatDate(expiresAt)} (UTC). Renew it and it runs again from the payment, with the same key on the same PC.`
    : `Your ${name} ends on ${formatDate(expiresAt)} (UTC). Renew it now and the new time is added to its end: same key, same PC, nothing to reinstall.`;
  const optOut = "You get this because you hold this licence. Turn renewal reminders off on your dashboard's Security page.";
  await sendMail(
    deps,
    {
      to: licence.ownerEmail,
      subject,
      text: [what, `Renew: ${renew}`, "The link works for 7 days.", optOut].join("\n\n"),
      html: `<p>${escapeHtml(what)}</p><p><a href="${escapeHtml(renew)}">Renew my licence</a></p><p>The link works for 7 days.</p><p>${escapeHtml(optOut)}</p>`,
      dedupeKey: `renewal-reminder:${licence.id}:${stage}:${expiresAt}`,
      headers: unsubscribe ? { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" } : undefined,
    },
    { later, now },
  );
}
