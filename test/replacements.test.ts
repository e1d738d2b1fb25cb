// Replacement keys for keys banned in game: asked for by their owner within 48 hours of activation,
// once per key; approved by staff on the shop's one key path (same plan and entitlements, a fresh
// clock, the old key revoked, the new one e-mailed) or declined with a reason the member is e-mailed.
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { addCodes } from "~/server/fulfilment/keys/stock.server";
import { auditLog, licences, productCodes, replacementRequests } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, hwid, latestMail, signIn, type TestAccount, unique, validate } from "./helpers";

const HOUR = 3600_000;

let admin: string;
beforeAll(async () => {
  admin = await signIn(await createAccount({ admin: true }), unique("ip"));
}, 60_000);

/** A member with a monthly key activated `hoursAgo` hours ago, and a spare code of its variant in stock. */
async function activatedKey(hoursAgo: number): Promise<{ account: TestAccount; cookie: string; key: string; licenceId: number }> {
  const account = await createAccount();
  const { key } = await boughtKey("30 Days", account.email);
  expect((await validate({ key, hwid: hwid(), nonce: "replacement-nonce-01" })).json.code).toBe("VALID");
  const [row] = await db.update(licences).set({ activatedAt: Date.now() - hoursAgo * HOUR }).where(eq(licences.key, key)).returning();
  const code = await db.select().from(productCodes).where(eq(productCodes.code, key)).get();
  await addCodes(db, { id: code!.variantId, title: code!.variantTitle }, unique("SPARE-"));
  return { account, cookie: await signIn(account, unique("ip")), key, licenceId: row!.id };
}

const ask = (cookie: string, licenceId: number, description = "Banned in game after one match, no cheats used") =>
  call("/dashboard/subscriptions", { cookie, form: { intent: "request-replacement", licenceId: String(licenceId), description } });

const requestOf = (licenceId: number) => db.select().from(replacementRequests).where(eq(replacementRequests.licenceId, licenceId)).get();

const decide = (cookie: string, intent: "approve" | "decline", requestId: number, reason = "Confirmed the ban with the game's support") =>
  call("/dashboard/replacements", { cookie, form: { intent, requestId: String(requestId), reason } });

describe("asking for a replacement", () => {
  it("is allowed 47 hours after activation, once per key, and refused at 49 hours", async () => {
    const within = await activatedKey(47);
    expect((await ask(within.cookie, within.licenceId)).status).toBe(200);
    expect(await requestOf(within.licenceId)).toMatchObject({ state: "pending", userId: within.account.id });
    const again = await ask(within.cookie, within.licenceId);
    expect([again.status, await again.text()]).toEqual([409, expect.stringContaining("already asked")]);

    const late = await activatedKey(49);
    const refused = await ask(late.cookie, late.licenceId);
    expect([refused.status, await refused.text()]).toEqual([409, expect.stringContaining("within 48 hours")]);
    expect(await requestOf(late.licenceId)).toBeUndefined();
  });

  it("is refused for someone else's key, a key never activated, and a description too short", async () => {
    const owner = await activatedKey(1);
    const stranger = await signIn(await createAccount(), unique("ip"));
    expect((await ask(stranger, owner.licenceId)).status).toBe(404);
    expect((await ask(owner.cookie, owner.licenceId, "bad")).status).toBe(400);
    const fresh = await createAccount();
    const { key } = await boughtKey("30 Days", fresh.email);
    const unused = await db.select().from(licences).where(eq(licences.key, key)).get();
    expect((await ask(await signIn(fresh, unique("ip")), unused!.id)).status).toBe(409);
    expect(await requestOf(owner.licenceId)).toBeUndefined();
  });
});

describe("deciding a replacement", () => {
  it("approval revokes the old key and e-mails a new one of the same plan and entitlements with a fresh clock, audited", async () => {
    const member = await activatedKey(5);
    await db.update(licences).set({ entitlements: ["beta", "configs", "priority-support", "custom-grant"] }).where(eq(licences.id, member.licenceId));
    await ask(member.cookie, member.licenceId);
    const request = (await requestOf(member.licenceId))!;
    // Support may read but not decide; members may not either.
    expect((await decide(await signIn(await createAccount({ role: "support" }), unique("ip")), "approve", request.id)).status).toBe(403);
    expect((await decide(member.cookie, "approve", request.id)).status).toBe(403);

    expect((await decide(admin, "approve", request.id)).status).toBe(200);
    const old = await db.select().from(licences).where(eq(licences.id, member.licenceId)).get();
    expect(old?.revokedAt).not.toBeNull();
    expect((await validate({ key: member.key, hwid: hwid(), nonce: "replacement-nonce-02" })).json.code).toBe("REVOKED");
    const mail = await latestMail(member.account.email, "key — order");
    const newKey = /SPARE-[A-Za-z0-9]+/.exec(mail?.textBody ?? "")?.[0];
    expect(newKey).toBeTruthy();
    const fresh = await db.select().from(licences).where(eq(licences.key, newKey!)).get();
    expect(fresh).toMatchObject({ plan: "monthly", activatedAt: null, expiresAt: null, revokedAt: null, entitlements: ["beta", "configs", "priority-support", "custom-grant"] });
    expect(await requestOf(member.licenceId)).toMatchObject({ state: "approved" });
    const audited = await db.select().from(auditLog).where(eq(auditLog.subject, member.key));
    expect(audited.map((row) => row.action)).toEqual(expect.arrayContaining(["replacement.request", "replacement.approve"]));
    // Deciding twice changes nothing more.
    expect((await decide(admin, "decline", request.id)).status).toBe(409);
  });

  it("decline keeps the key working and e-mails the reason", async () => {
    const member = await activatedKey(2);
    await ask(member.cookie, member.licenceId);
    const request = (await requestOf(member.licenceId))!;
    expect((await decide(admin, "decline", request.id, "The ban came from a chargeback")).status).toBe(200);
    expect(await requestOf(member.licenceId)).toMatchObject({ state: "declined", reason: "The ban came from a chargeback" });
    expect((await db.select().from(licences).where(eq(licences.id, member.licenceId)).get())?.revokedAt).toBeNull();
    const mail = await latestMail(member.account.email, "replacement request");
    expect(mail?.textBody).toContain("Reason: The ban came from a chargeback");
    // The member's card says so, and offers no second request.
    const page = await (await call("/dashboard/subscriptions", { cookie: member.cookie })).text();
    expect(page).toContain("Your replacement request was declined.");
    expect(page).not.toContain("Ask for a replacement");
  });
});
