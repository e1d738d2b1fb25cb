// Time on licences that staff control (decision 047): pausing and resuming one licence, and adding
// days to every running licence of a product after a detection or an outage — who may, what the
// licence API answers meanwhile, what the owner sees and is told, and that nothing happens twice.
import { and, eq, like } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { expireSubscriptions } from "~/server/licences/subscriptions.server";
import { mailCompensation } from "~/server/licences/compensation.server";
import { addCodes } from "~/server/keys/stock.server";
import { auditLog, bulkChanges, licenceCompensations, licences, mailOutbox, userSubscriptions } from "~/server/platform/db/schema.server";
import { call, createAccount, db, deliver, hwid, latestBulkToken, nextId, paidOrderPayload, signIn, unique, validate } from "../helpers";

const LICENCES = "/dashboard/licences";
const DAY_MS = 24 * 60 * 60 * 1000;

const check = async (key: string, pc: string) =>
  (await validate({ key, hwid: pc, nonce: crypto.randomUUID() })).json as { valid: boolean; code: string; ttl: number };
const licenceOf = async (key: string) => (await db.select().from(licences).where(eq(licences.key, key)).get())!;
const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/<!-- -->/g, "")
    .replace(/\s+/g, " ");

/** A key of `product` on `plan`'s variant sold by a signed order webhook to `email`, optionally activated on a PC. */
async function soldKey(product: string, email: string, { plan = "1 Week", activate = true } = {}) {
  const variant = nextId();
  const key = `TIME-${variant}`;
  await addCodes(db, { id: `gid://shopify/ProductVariant/${variant}`, title: `${product} - ${plan}` }, key);
  await deliver("orders/paid", paidOrderPayload({ variant, variantTitle: plan, title: product, price: "29.99" }, { email }));
  const pc = hwid();
  if (activate) expect((await check(key, pc)).code).toBe("VALID");
  return { key, pc };
}

async function staff(role: "admin" | "support" = "admin") {
  const account = await createAccount({ role });
  return { account, cookie: await signIn(account, unique("ip")) };
}

const manage = (form: Record<string, string>, cookie: string) => call(LICENCES, { form, cookie });

/** Adding time as the page does it: the preview, then its confirmation with the preview's token. */
async function compensate(form: Record<string, string>, who: { account: { id: string }; cookie: string }) {
  const previewed = await manage({ ...form, intent: "compensate-preview" }, who.cookie);
  const previewText = await previewed.text();
  if (previewed.status !== 200) return { previewed, previewText, response: previewed, token: "" };
  const token = await latestBulkToken(who.account.id);
  return { previewed, previewText, response: await manage({ ...form, intent: "compensate", token }, who.cookie), token };
}

describe("pausing a licence", () => {
  it("answers SUSPENDED while paused, keeps the owner's subscription current, and gives the paused time back on resume", async () => {
    const owner = await createAccount();
    const ownerCookie = await signIn(owner, unique("ip"));
    const { key, pc } = await soldKey("Vertex Rust", owner.email);
    const { cookie } = await staff();
    const before = await licenceOf(key);

    const paused = await manage({ intent: "pause", licenceId: String(before.id), reason: "Chargeback under review" }, cookie);
    expect(paused.status).toBe(200);
    expect(await paused.text()).toContain("Key paused");
    const answer = await check(key, pc);
    expect(answer).toMatchObject({ valid: false, code: "SUSPENDED", ttl: 0 });
    // The owner sees it paused with its time left, and cannot spend a reset on it meanwhile.
    const page = textOf(await (await call("/dashboard/subscriptions", { cookie: ownerCookie })).text());
    expect(page).toContain("Paused");
    expect(page).toMatch(/Paused — \d+ days? left when it resumes/);
    const reset = await call("/dashboard/subscriptions", {
      form: { intent: "reset-hwid", licenceId: String(before.id) },
      cookie: ownerCookie,
    });
    expect(reset.status).toBe(409);
    expect(await reset.text()).toContain("This key is paused. Contact support.");

    // Two days later, past the expiry it had when paused: the hourly job leaves the subscription be.
    const pausedAt = Date.now() - 2 * DAY_MS;
    const expiresAt = pausedAt + DAY_MS;
    await db.update(licences).set({ pausedAt, expiresAt }).where(eq(licences.id, before.id));
    await db.update(userSubscriptions).set({ expiryDate: expiresAt }).where(eq(userSubscriptions.productCodeId, before.productCodeId!));
    await expireSubscriptions(db);
    expect(
      (await db.select().from(userSubscriptions).where(eq(userSubscriptions.productCodeId, before.productCodeId!)).get())?.status,
    ).toBe("active");

    const resumed = await manage({ intent: "resume", licenceId: String(before.id) }, cookie);
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toContain("its expiry moved out by 2 days");
    const after = await licenceOf(key);
    expect(after.pausedAt).toBeNull();
    // The day that was left when it was paused is left now.
    expect(after.expiresAt! - expiresAt).toBeGreaterThanOrEqual(2 * DAY_MS);
    expect(after.expiresAt! - expiresAt).toBeLessThan(2 * DAY_MS + 60_000);
    expect(
      (await db.select().from(userSubscriptions).where(eq(userSubscriptions.productCodeId, before.productCodeId!)).get())?.expiryDate,
    ).toBe(after.expiresAt);
    expect((await check(key, pc)).code).toBe("VALID");

    const logged = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.subject, `licence:${before.id}`))
      .all();
    expect(logged.map((l) => l.action)).toEqual(expect.arrayContaining(["licence.pause", "licence.resume"]));
    expect(logged.find((l) => l.action === "licence.pause")?.detail).toContain("Chargeback under review");
  });

  it("pauses a key that was never used without starting its clock", async () => {
    const owner = await createAccount();
    const { key, pc } = await soldKey("Vertex Rust", owner.email, { activate: false });
    const { cookie } = await staff();
    const { id } = await licenceOf(key);
    expect((await manage({ intent: "pause", licenceId: String(id), reason: "Asked by the owner" }, cookie)).status).toBe(200);
    expect((await check(key, pc)).code).toBe("SUSPENDED");
    expect((await licenceOf(key)).hwid).toBeNull();
    expect((await manage({ intent: "resume", licenceId: String(id) }, cookie)).status).toBe(200);
    expect((await check(key, pc)).code).toBe("VALID");
    expect((await licenceOf(key)).expiresAt).toBeGreaterThan(Date.now() + 6 * DAY_MS);
  });

  it("asks for a reason, and refuses to pause twice, to resume a running key, or to pause a banned one", async () => {
    const owner = await createAccount();
    const { key } = await soldKey("Vertex Rust", owner.email);
    const { cookie } = await staff();
    const { id } = await licenceOf(key);
    const noReason = await manage({ intent: "pause", licenceId: String(id), reason: " " }, cookie);
    expect(noReason.status).toBe(400);
    expect(await noReason.text()).toContain("Please give a reason");
    const running = await manage({ intent: "resume", licenceId: String(id) }, cookie);
    expect(running.status).toBe(409);
    expect(await running.text()).toContain("This key is not paused");
    expect((await manage({ intent: "pause", licenceId: String(id), reason: "Review" }, cookie)).status).toBe(200);
    const twice = await manage({ intent: "pause", licenceId: String(id), reason: "Review" }, cookie);
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain("This key is already paused");
    expect((await manage({ intent: "pause", licenceId: "999999999", reason: "Review" }, cookie)).status).toBe(404);

    const other = await soldKey("Vertex Rust", owner.email);
    const otherId = String((await licenceOf(other.key)).id);
    expect((await manage({ intent: "ban-key", licenceId: otherId, reason: "Cheating" }, cookie)).status).toBe(200);
    const banned = await manage({ intent: "pause", licenceId: otherId, reason: "Review" }, cookie);
    expect(banned.status).toBe(409);
    expect(await banned.text()).toContain("A banned or revoked key cannot be paused");
  });

  it("is for admins: support and members are refused with 403 and nothing changes", async () => {
    const owner = await createAccount();
    const { key } = await soldKey("Vertex Rust", owner.email);
    const { id } = await licenceOf(key);
    const support = await staff("support");
    expect((await manage({ intent: "pause", licenceId: String(id), reason: "x" }, support.cookie)).status).toBe(403);
    for (const intent of ["compensate", "compensate-preview"]) {
      expect((await manage({ intent, product: "Vertex Rust", days: "3", reason: "x" }, support.cookie)).status).toBe(403);
    }
    expect((await manage({ intent: "compensate-undo", token: crypto.randomUUID() }, support.cookie)).status).toBe(403);
    const member = await signIn(await createAccount(), unique("ip"));
    expect((await manage({ intent: "pause", licenceId: String(id), reason: "x" }, member)).status).toBe(403);
    expect((await licenceOf(key)).pausedAt).toBeNull();
    // Support opens the page (to reset PCs) but is not offered what it may not do.
    const page = await (await call(LICENCES, { cookie: support.cookie })).text();
    expect(page).not.toContain("Add time after downtime");
  });
});

describe("adding time after downtime", () => {
  it("adds the days to every running licence of the product once per reason, keeps subscriptions in step, audits it and e-mails each owner once", async () => {
    const product = `Product ${unique("p")}`;
    const alice = await createAccount();
    const bob = await createAccount();
    const a1 = await soldKey(product, alice.email);
    const a2 = await soldKey(product, alice.email, { plan: "30 Days" });
    const b1 = await soldKey(product, bob.email);
    // Not given time: a key never used (its clock has not started), an expired one, a revoked one,
    // a lifetime one, and a key of another product.
    const unused = await soldKey(product, bob.email, { activate: false });
    const expired = await soldKey(product, bob.email);
    await db
      .update(licences)
      .set({ expiresAt: Date.now() - DAY_MS })
      .where(eq(licences.key, expired.key));
    const revoked = await soldKey(product, bob.email);
    await db.update(licences).set({ revokedAt: Date.now() }).where(eq(licences.key, revoked.key));
    const lifetime = await soldKey(product, bob.email, { plan: "Lifetime" });
    const otherProduct = await soldKey(`Other ${unique("o")}`, bob.email);
    const keys = [a1, a2, b1, unused, expired, revoked, lifetime, otherProduct].map((k) => k.key);
    const expiries = async () => Object.fromEntries(await Promise.all(keys.map(async (k) => [k, (await licenceOf(k)).expiresAt] as const)));
    const before = await expiries();

    const who = await staff();
    const { account: admin, cookie } = who;
    const { response, previewText } = await compensate({ product, plan: "", days: "3", reason: "Detection on Nov 20" }, who);
    // The preview names how many it reaches, and whose.
    expect(previewText).toContain("3 licences would get the time");
    expect(previewText).toContain(alice.email);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`3 day(s) added to 3 licence(s) of ${product}`);
    const after = await expiries();
    for (const k of [a1, a2, b1]) expect(after[k.key]).toBe(before[k.key]! + 3 * DAY_MS);
    for (const k of [unused, expired, revoked, lifetime, otherProduct]) expect(after[k.key]).toBe(before[k.key]);
    const aliceSubscriptions = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, alice.id)).all();
    expect(aliceSubscriptions.map((s) => s.expiryDate).sort()).toEqual([after[a1.key], after[a2.key]].sort());

    const logged = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "licence.compensate"), eq(auditLog.actorUserId, admin.id)))
      .all();
    expect(logged).toHaveLength(1);
    expect(logged[0]!.detail).toContain("Detection on Nov 20");

    // One e-mail per owner, listing their keys masked, sent by the fulfilment queue.
    const mailTo = (email: string) =>
      db
        .select()
        .from(mailOutbox)
        .where(and(eq(mailOutbox.toAddress, email), like(mailOutbox.dedupeKey, "compensation:%")))
        .all();
    await vi.waitFor(async () => expect(await mailTo(bob.email)).toHaveLength(1), { timeout: 15_000, interval: 50 });
    await vi.waitFor(async () => expect(await mailTo(alice.email)).toHaveLength(1), { timeout: 15_000, interval: 50 });
    const [aliceMail] = await mailTo(alice.email);
    expect(aliceMail!.subject).toBe("3 days added to your Vertex licences");
    expect(aliceMail!.textBody).toContain(`We added 3 days to your ${product} licences: Detection on Nov 20.`);
    expect(aliceMail!.textBody).not.toContain(a1.key);
    expect(aliceMail!.textBody.match(/now runs until/g)).toHaveLength(2);

    // The same reason again (however it is spelled) adds nothing and mails no one twice.
    const again = await manage({ intent: "compensate", product, plan: "weekly", days: "5", reason: "  detection ON nov 20 " }, cookie);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain(`Time was already added to ${product} for this reason`);
    expect(await expiries()).toEqual(after);
    const compensations = await db.select().from(licenceCompensations).where(eq(licenceCompensations.product, product)).all();
    expect(compensations).toHaveLength(1);
    // The mailing job may run again (a retry, the conflict's re-queue): still one e-mail each.
    await mailCompensation({ db, mail: env, waitUntil: () => {} }, compensations[0]!.id);
    expect(await mailTo(alice.email)).toHaveLength(1);
    expect(await mailTo(bob.email)).toHaveLength(1);
  });

  it("adds time to one plan only when one is chosen", async () => {
    const product = `Product ${unique("p")}`;
    const owner = await createAccount();
    const weekly = await soldKey(product, owner.email);
    const monthly = await soldKey(product, owner.email, { plan: "30 Days" });
    const before = { weekly: (await licenceOf(weekly.key)).expiresAt!, monthly: (await licenceOf(monthly.key)).expiresAt! };
    const { response } = await compensate({ product, plan: "monthly", days: "7", reason: "Outage" }, await staff());
    expect(await response.text()).toContain("7 day(s) added to 1 licence(s)");
    expect((await licenceOf(monthly.key)).expiresAt).toBe(before.monthly + 7 * DAY_MS);
    expect((await licenceOf(weekly.key)).expiresAt).toBe(before.weekly);
  });

  it("checks its input, and says so when no licence is running", async () => {
    const { cookie } = await staff();
    const cases: [Record<string, string>, string][] = [
      [{ product: "", days: "3", reason: "x" }, "Choose a product"],
      [{ product: "Vertex Rust", days: "0", reason: "x" }, "Add 1 to 90 days"],
      [{ product: "Vertex Rust", days: "91", reason: "x" }, "Add 1 to 90 days"],
      [{ product: "Vertex Rust", days: "two", reason: "x" }, "Add 1 to 90 days"],
      [{ product: "Vertex Rust", days: "3", reason: "" }, "Please give a reason"],
      [{ product: "Vertex Rust", days: "3", reason: "x", plan: "lifetime" }, "Choose a plan"],
    ];
    for (const [form, message] of cases) {
      const response = await manage({ intent: "compensate", ...form }, cookie);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(message);
    }
    const none = await manage({ intent: "compensate", product: `Nothing ${unique("n")}`, days: "3", reason: "x" }, cookie);
    expect(none.status).toBe(409);
    expect(await none.text()).toContain("No running licence of");
  });

  it("acts on the previewed licences only: a licence running since refuses the change until previewed again", async () => {
    const product = `Product ${unique("p")}`;
    const owner = await createAccount();
    const first = await soldKey(product, owner.email);
    const who = await staff();
    await manage({ intent: "compensate-preview", product, plan: "", days: "2", reason: "Outage" }, who.cookie);
    const token = await latestBulkToken(who.account.id);
    // Another licence starts running after the preview.
    const later = await soldKey(product, owner.email);
    const before = { first: (await licenceOf(first.key)).expiresAt!, later: (await licenceOf(later.key)).expiresAt! };
    const refused = await manage({ intent: "compensate", product, plan: "", days: "2", reason: "Outage", token }, who.cookie);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("The running licences changed since the preview");
    // A fresh preview (another reason) reaches both.
    const { token: fresh } = await compensate({ product, plan: "", days: "2", reason: "Outage two" }, who);
    expect((await licenceOf(first.key)).expiresAt).toBe(before.first + 2 * DAY_MS);
    expect((await licenceOf(later.key)).expiresAt).toBe(before.later + 2 * DAY_MS);
    const again = await manage({ intent: "compensate", product, plan: "", days: "5", reason: "Outage two", token: fresh }, who.cookie);
    expect(again.status).toBe(409);
  });

  it("is undone within the hour by exactly the days it added, once, and the reason can be used again", async () => {
    const product = `Product ${unique("p")}`;
    const owner = await createAccount();
    const a = await soldKey(product, owner.email);
    const b = await soldKey(product, owner.email, { plan: "30 Days" });
    const untouched = await soldKey(`Other ${unique("o")}`, owner.email);
    const keys = [a.key, b.key, untouched.key];
    const expiries = async () => Promise.all(keys.map(async (k) => (await licenceOf(k)).expiresAt));
    const before = await expiries();
    const who = await staff();
    const { response, token } = await compensate({ product, plan: "", days: "4", reason: "Detection" }, who);
    expect(response.status).toBe(200);
    // One licence is paused meanwhile: the days still come off it, exactly.
    await manage({ intent: "pause", licenceId: String((await licenceOf(b.key)).id), reason: "Review" }, who.cookie);
    const paused = await licenceOf(b.key);

    const undone = await manage({ intent: "compensate-undo", token }, who.cookie);
    expect(undone.status).toBe(200);
    expect(await undone.text()).toContain(`4 days taken back from 2 licences of ${product}`);
    const after = await expiries();
    expect(after[0]).toBe(before[0]);
    expect(after[1]).toBe(paused.expiresAt! - 4 * DAY_MS);
    expect(after[2]).toBe(before[2]);
    const subscriptions = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, owner.id)).all();
    expect(subscriptions.map((s) => s.expiryDate)).toContain(after[0]);

    // Twice is refused, and takes nothing more.
    const twice = await manage({ intent: "compensate-undo", token }, (await staff()).cookie);
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain("already undone");
    expect(await expiries()).toEqual(after);
    const logged = await db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(eq(auditLog.subject, `compensation:${token}`))
      .orderBy(auditLog.id);
    expect(logged.map((row) => row.action)).toEqual(["licence.compensate", "licence.compensate.undo"]);
    // The reason is free again.
    expect((await compensate({ product, plan: "", days: "4", reason: "Detection" }, who)).response.status).toBe(200);
  });

  it("refuses to undo after the hour", async () => {
    const product = `Product ${unique("p")}`;
    const owner = await createAccount();
    const a = await soldKey(product, owner.email);
    const who = await staff();
    const { token } = await compensate({ product, plan: "", days: "3", reason: "Late" }, who);
    const added = (await licenceOf(a.key)).expiresAt;
    await db
      .update(bulkChanges)
      .set({ undoUntil: Date.now() - 1 })
      .where(eq(bulkChanges.id, token));
    const late = await manage({ intent: "compensate-undo", token }, who.cookie);
    expect(late.status).toBe(409);
    expect(await late.text()).toContain("can no longer be undone");
    expect((await licenceOf(a.key)).expiresAt).toBe(added);
  });
});
