// Reminders and auto-renewal (decision 091): the cron e-mails a licence's owner 3 days and 1 day
// before it ends and once after, each with a signed one-click renewal link and a List-Unsubscribe
// header, once each across cron runs, never after a renewal, for a lifetime or revoked licence or an
// owner who turned them off; and a licence with auto-renew on is renewed from the balance exactly
// once under a doubled cron, or its owner hears the balance fell short. This file runs the cron over
// the whole database, so it has one of its own (OWN_DATABASE in vitest.config.ts).
import { env } from "cloudflare:workers";
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import { licences, mailOutbox, resellerAccounts } from "~/server/platform/db/schema.server";
import {
  balanceOf,
  boughtKey,
  call,
  createAccount,
  db,
  deliver,
  hwid,
  nextId,
  paidOrderPayload,
  signIn,
  unique,
  validate,
} from "../helpers";

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

const licenceOf = async (key: string) => (await db.select().from(licences).where(eq(licences.key, key)).get())!;
/** The reminders the owner was sent, oldest first (each e-mail names its reminder in its dedupe key). */
const remindersTo = (email: string) =>
  db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.toAddress, email), like(mailOutbox.dedupeKey, "renewal-reminder:%")))
    .orderBy(mailOutbox.id)
    .all();
const mailsTo = (email: string, subject: string) =>
  db
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.toAddress, email), like(mailOutbox.subject, `%${subject}%`)))
    .all();

/** A signed-in member with a weekly key bound to their PC, ending at `endsAt`. */
async function memberWithLicenceEnding(endsAt: number) {
  const account = await createAccount();
  const cookie = await signIn(account, unique("ip"));
  const bought = await boughtKey("1 Week", account.email);
  const pc = hwid();
  expect((await validate({ key: bought.key, hwid: pc, nonce: crypto.randomUUID() })).json.code).toBe("VALID");
  await db.update(licences).set({ expiresAt: endsAt }).where(eq(licences.key, bought.key));
  return { account, cookie, pc, ...bought, licence: await licenceOf(bought.key) };
}

/** Two cron runs at the same moment, as a doubled trigger would start them. */
const doubledCron = (now: number) => Promise.all([runScheduledJobs(env, now), runScheduledJobs(env, now)]);

describe("renewal reminders", () => {
  it("go out 3 days and 1 day before the end and once after, each once across cron runs, with a signed renewal link and List-Unsubscribe", async () => {
    const now = Date.now();
    const endsAt = now + 2.5 * DAY;
    const { account, licence, cookie } = await memberWithLicenceEnding(endsAt);

    await runScheduledJobs(env, now);
    await runScheduledJobs(env, now + HOUR);
    const [soon, ...none] = await remindersTo(account.email);
    expect(none).toHaveLength(0);
    expect(soon!.subject).toContain("ends in 3 days");
    const link = /https?:\/\/\S+\/dashboard\/renew\/\d+\?plan=weekly&expires=\d+&signature=[\w-]+/.exec(soon!.textBody)![0];
    expect(link).toContain(`/dashboard/renew/${licence.id}?`);
    expect(soon!.headers).toMatchObject({ "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });
    expect(soon!.headers!["List-Unsubscribe"]).toMatch(/^<https?:\/\/\S+\/reminders\/unsubscribe\?user=[^&]+&signature=[\w-]+>$/);

    // The link leads the signed-in owner straight to the checkout of the plan, the licence named.
    const { pathname, search } = new URL(link);
    const opened = await call(`${pathname}${search}`, { cookie });
    expect(opened.status).toBe(302);
    expect(opened.headers.get("Location")).toMatch(/\/checkout\/demo\//);
    // Signed out, the member is asked to sign in first; a link with another licence's id is refused.
    expect((await call(`${pathname}${search}`)).headers.get("Location")).toBe("/auth");
    const forged = await call(`${pathname.replace(/\d+$/, String(licence.id + 1))}${search}`, { cookie });
    expect(forged.headers.get("Location")).toBeNull();

    await doubledCron(now + 2 * DAY);
    expect((await remindersTo(account.email)).map((m) => m.subject)).toEqual([soon!.subject, expect.stringContaining("ends tomorrow")]);
    await doubledCron(endsAt + HOUR);
    await doubledCron(endsAt + 2 * HOUR);
    const all = await remindersTo(account.email);
    expect(all).toHaveLength(3);
    expect(all[2]!.subject).toContain("has ended");
  });

  it("stop once the licence is renewed: nothing for the old end", async () => {
    const now = Date.now();
    const endsAt = now + 2.5 * DAY;
    const { account, licence } = await memberWithLicenceEnding(endsAt);
    await runScheduledJobs(env, now);
    expect(await remindersTo(account.email)).toHaveLength(1);
    const order = {
      ...paidOrderPayload({ variant: nextId(), variantTitle: "1 Week", title: "Vertex Rust", price: "29.99" }, { email: account.email }),
      note_attributes: [{ name: "_renews_licence", value: String(licence.id) }],
    };
    await deliver("orders/paid", order);
    expect((await licenceOf(licence.key)).expiresAt).toBe(endsAt + WEEK);
    await runScheduledJobs(env, now + 2 * DAY);
    await runScheduledJobs(env, endsAt + HOUR);
    expect(await remindersTo(account.email)).toHaveLength(1);
  });

  it("never go to a lifetime or revoked licence, nor to a member who turned them off (on the Security page, or from the e-mail)", async () => {
    const now = Date.now();
    const lifetime = await memberWithLicenceEnding(now + DAY / 2);
    await db.update(licences).set({ plan: "lifetime", expiresAt: null }).where(eq(licences.key, lifetime.key));
    const revoked = await memberWithLicenceEnding(now + DAY / 2);
    await db.update(licences).set({ revokedAt: now }).where(eq(licences.key, revoked.key));
    const optedOut = await memberWithLicenceEnding(now + DAY / 2);
    const off = await call("/dashboard/security", { form: { intent: "renewal-reminders", on: "off" }, cookie: optedOut.cookie });
    expect(off.status).toBe(200);
    await runScheduledJobs(env, now);
    for (const { account } of [lifetime, revoked, optedOut]) expect(await remindersTo(account.email)).toHaveLength(0);

    // The e-mail's one-click unsubscribe: a POST from the mail client, with no Origin and no session.
    const member = await memberWithLicenceEnding(now + 2.5 * DAY);
    await runScheduledJobs(env, now);
    const [reminder] = await remindersTo(member.account.email);
    const unsubscribe = /^<(.+)>$/.exec(reminder!.headers!["List-Unsubscribe"]!)![1]!;
    const { pathname, search } = new URL(unsubscribe);
    const tampered = await fetchPost(`${pathname}${search.replace(/signature=[\w-]+/, "signature=AAAA")}`);
    expect(tampered.status).toBe(403);
    const done = await fetchPost(`${pathname}${search}`);
    expect(done.status).toBe(200);
    expect(await (await call("/dashboard/security", { cookie: member.cookie })).text()).toContain("Turn reminders on");
    await runScheduledJobs(env, now + 2 * DAY);
    expect(await remindersTo(member.account.email)).toHaveLength(1);
  });
});

/** A POST as a mail client sends a one-click unsubscribe: no Origin, no cookie. */
const fetchPost = (path: string) =>
  call(path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site" },
  });

describe("auto-renew", () => {
  async function withBalance(cents: number) {
    const now = Date.now();
    const member = await memberWithLicenceEnding(now + 20 * HOUR);
    await call("/dashboard/resell", { cookie: member.cookie });
    await db.update(resellerAccounts).set({ balanceCents: cents }).where(eq(resellerAccounts.userId, member.account.id));
    const on = await call(`/dashboard/renew/${member.licence.id}`, { form: { intent: "auto-renew", on: "on" }, cookie: member.cookie });
    expect(on.status).toBe(200);
    return { ...member, now };
  }

  it("renews from the balance a day before the end, exactly once under a doubled cron", async () => {
    const { account, licence, now } = await withBalance(5000);
    await doubledCron(now);
    await doubledCron(now + HOUR);
    expect((await licenceOf(licence.key)).expiresAt).toBe(licence.expiresAt! + WEEK);
    const balance = await balanceOf(account.id);
    expect(balance.cents).toBe(5000 - 2999);
    expect(balance.purchases).toHaveLength(1);
    expect(await mailsTo(account.email, "extended until")).toHaveLength(1);
    // Renewed: no reminder for the old end.
    expect(await remindersTo(account.email)).toHaveLength(0);
  });

  it("shows on the member's Subscriptions page, beside that licence only, until it is turned off", async () => {
    const { cookie, licence } = await withBalance(5000);
    const badges = async () =>
      ((await (await call("/dashboard/subscriptions", { cookie })).text()).match(/Renews automatically/g) ?? []).length;
    expect(await badges()).toBe(1);
    const off = await call(`/dashboard/renew/${licence.id}`, { form: { intent: "auto-renew", on: "off" }, cookie });
    expect(off.status).toBe(200);
    expect(await badges()).toBe(0);
  });

  it("refuses a short balance with one e-mail, and takes nothing", async () => {
    const { account, licence, now } = await withBalance(1000);
    await doubledCron(now);
    await runScheduledJobs(env, now + HOUR);
    expect((await licenceOf(licence.key)).expiresAt).toBe(licence.expiresAt);
    expect((await balanceOf(account.id)).cents).toBe(1000);
    const refused = await mailsTo(account.email, "could not be renewed automatically");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.textBody).toContain("Insufficient balance");
  });
});
