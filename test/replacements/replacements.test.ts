// Replacement keys for keys banned in game: asked for by their owner within 48 hours of activation,
// once per key; approved by staff on the shop's one key path (same plan and entitlements, a fresh
// clock, the old key revoked, the new one e-mailed) or declined with a reason the member is e-mailed.
import { env } from "cloudflare:workers";
import { and, eq, inArray, like } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { addCodes } from "~/server/keys/stock.server";
import { decideReplacement } from "~/server/replacements/replacement-decisions.server";
import { auditLog, licences, mailOutbox, productCodes, replacementRequests } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, hwid, latestMail, signIn, type TestAccount, unique, validate } from "../helpers";

const SPARE = "SPARE-";

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
  const [row] = await db
    .update(licences)
    .set({ activatedAt: Date.now() - hoursAgo * HOUR })
    .where(eq(licences.key, key))
    .returning();
  const code = await db.select().from(productCodes).where(eq(productCodes.code, key)).get();
  await addCodes(db, { id: code!.variantId, title: code!.variantTitle }, unique(SPARE));
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
    await db
      .update(licences)
      .set({ entitlements: ["beta", "configs", "priority-support", "custom-grant"] })
      .where(eq(licences.id, member.licenceId));
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
    expect(fresh).toMatchObject({
      plan: "monthly",
      activatedAt: null,
      expiresAt: null,
      revokedAt: null,
      entitlements: ["beta", "configs", "priority-support", "custom-grant"],
    });
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

describe("two staff deciding one request", () => {
  const mailsTo = (email: string) => db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, email)).all();
  const decisionsAudited = (key: string) =>
    db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject, key), inArray(auditLog.action, ["replacement.approve", "replacement.decline"])))
      .all();
  const sparesSold = (email: string) =>
    db
      .select()
      .from(productCodes)
      .where(and(eq(productCodes.customerEmail, email), like(productCodes.code, `${SPARE}%`)))
      .all();

  it("at the same moment: one decision takes effect, the other is refused with 409 naming who decided, and the key, the e-mails and the audit log change once", async () => {
    const member = await activatedKey(3);
    await ask(member.cookie, member.licenceId);
    const request = (await requestOf(member.licenceId))!;
    const otherAdmin = await createAccount({ admin: true });
    const other = await signIn(otherAdmin, unique("ip"));

    const mailsBefore = (await mailsTo(member.account.email)).length;
    const [approved, declined] = await Promise.all([
      decide(admin, "approve", request.id),
      decide(other, "decline", request.id, "The ban came from a chargeback"),
    ]);
    expect([approved.status, declined.status].sort()).toEqual([200, 409]);
    const after = (await requestOf(member.licenceId))!;
    const loser = after.state === "approved" ? declined : approved;
    expect(loser.status).toBe(409);
    expect(await loser.text()).toContain(`This request was already ${after.state} by`);

    const licence = await db.select().from(licences).where(eq(licences.id, member.licenceId)).get();
    const mails = await mailsTo(member.account.email);
    expect(await decisionsAudited(member.key)).toHaveLength(1);
    // One e-mail: the new key, or the reason.
    expect(mails).toHaveLength(mailsBefore + 1);
    const mailed = mails.at(-1)!;
    if (after.state === "approved") {
      expect(licence?.revokedAt).not.toBeNull();
      expect(await sparesSold(member.account.email)).toHaveLength(1);
      expect(mailed.textBody).toContain(SPARE);
    } else {
      expect(licence?.revokedAt).toBeNull();
      expect(await sparesSold(member.account.email)).toHaveLength(0);
      expect(mailed.subject).toContain("replacement request");
    }
  });

  it("a decline that lands while an approval is moving the key: the request's state and the key agree, and the loser is told who decided", async () => {
    const member = await activatedKey(2);
    await ask(member.cookie, member.licenceId);
    const request = (await requestOf(member.licenceId))!;
    const otherAdmin = await createAccount({ admin: true });
    const mailsBefore = (await mailsTo(member.account.email)).length;
    // The other admin's decline, committed at the moment the approval hands out the new key.
    const trigger = `decline_meanwhile_${request.id}`;
    await env.DB.exec(
      `CREATE TRIGGER ${trigger} BEFORE UPDATE OF is_used ON product_codes WHEN NEW.customer_email = '${member.account.email}' BEGIN UPDATE replacement_requests SET state = 'declined', reason = 'Declined meanwhile', decided_by = '${otherAdmin.id}', decided_at = 1 WHERE id = ${request.id} AND state = 'pending'; END;`,
    );
    let response: Response;
    try {
      response = await decide(admin, "approve", request.id);
    } finally {
      await env.DB.exec(`DROP TRIGGER ${trigger};`);
    }
    const after = (await requestOf(member.licenceId))!;
    const licence = await db.select().from(licences).where(eq(licences.id, member.licenceId)).get();
    expect(licence?.revokedAt !== null).toBe(after.state === "approved");
    expect(await sparesSold(member.account.email)).toHaveLength(after.state === "approved" ? 1 : 0);
    if (after.state === "approved") {
      expect(response.status).toBe(200);
      expect(await mailsTo(member.account.email)).toHaveLength(mailsBefore + 1);
    } else {
      expect(response.status).toBe(409);
      expect(await response.text()).toContain(`This request was already declined by ${otherAdmin.email}`);
      expect(await mailsTo(member.account.email)).toHaveLength(mailsBefore);
      expect(await decisionsAudited(member.key)).toHaveLength(0);
    }
  });

  it("the same admin approving twice in the same millisecond: one approval stands, and the request reads approved", async () => {
    const member = await activatedKey(3);
    await ask(member.cookie, member.licenceId);
    const request = (await requestOf(member.licenceId))!;
    const staff = await createAccount({ admin: true });
    const actor = {
      viewer: { id: staff.id, email: staff.email, username: staff.username, avatarUrl: null, role: "admin" as const },
      ip: null,
    };
    const deps = { db, mail: env, waitUntil: () => {} };
    const now = Date.now();
    const decision = { intent: "approve" as const, requestId: request.id, reason: "Confirmed the ban with the game's support" };
    const results = await Promise.all([decideReplacement(deps, actor, decision, now), decideReplacement(deps, actor, decision, now)]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect((await requestOf(member.licenceId))!.state).toBe("approved");
    expect(await sparesSold(member.account.email)).toHaveLength(1);
  });

  it("one after the other: a decline arriving after an approval (or the reverse) changes nothing", async () => {
    for (const [first, second] of [
      ["approve", "decline"],
      ["decline", "approve"],
    ] as const) {
      const member = await activatedKey(4);
      await ask(member.cookie, member.licenceId);
      const request = (await requestOf(member.licenceId))!;
      expect((await decide(admin, first, request.id)).status).toBe(200);
      const before = {
        licence: await db.select().from(licences).where(eq(licences.id, member.licenceId)).get(),
        mails: (await mailsTo(member.account.email)).length,
      };
      const late = await decide(await signIn(await createAccount({ admin: true }), unique("ip")), second, request.id);
      expect(late.status).toBe(409);
      expect(await late.text()).toContain(`This request was already ${first === "approve" ? "approved" : "declined"} by`);
      expect(await requestOf(member.licenceId)).toMatchObject({ state: first === "approve" ? "approved" : "declined" });
      expect(await db.select().from(licences).where(eq(licences.id, member.licenceId)).get()).toEqual(before.licence);
      expect(await mailsTo(member.account.email)).toHaveLength(before.mails);
      expect(await sparesSold(member.account.email)).toHaveLength(first === "approve" ? 1 : 0);
      expect(await decisionsAudited(member.key)).toHaveLength(1);
    }
  });

  it("an approval that cannot replace the key (no stock) leaves the request waiting, to be decided again", async () => {
    const member = await activatedKey(6);
    await ask(member.cookie, member.licenceId);
    const request = (await requestOf(member.licenceId))!;
    const code = await db.select().from(productCodes).where(eq(productCodes.code, member.key)).get();
    // Another sale takes the spare first.
    await db
      .update(productCodes)
      .set({ isUsed: true, usedAt: Date.now() })
      .where(and(eq(productCodes.variantId, code!.variantId), eq(productCodes.isUsed, false)));

    const mailsBefore = (await mailsTo(member.account.email)).length;
    const refused = await decide(admin, "approve", request.id);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("codes in stock");
    expect(await requestOf(member.licenceId)).toMatchObject({ state: "pending", decidedBy: null, decidedAt: null });
    expect((await db.select().from(licences).where(eq(licences.id, member.licenceId)).get())?.revokedAt).toBeNull();
    expect(await decisionsAudited(member.key)).toHaveLength(0);
    expect(await mailsTo(member.account.email)).toHaveLength(mailsBefore);

    await addCodes(db, { id: code!.variantId, title: code!.variantTitle }, unique(SPARE));
    expect((await decide(admin, "approve", request.id)).status).toBe(200);
    expect(await requestOf(member.licenceId)).toMatchObject({ state: "approved" });
    expect(await sparesSold(member.account.email)).toHaveLength(1);
  });
});
