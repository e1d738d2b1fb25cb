// Deleting an account (decision 099): by its member from the Security page (password, and the
// second factor where it is on) or by an admin at the member's request. Sessions end, chat
// messages and reviews go, Discord roles are taken back, the member's keys stop with a last
// e-mail, and orders stay, anonymised, for accounting.
import { env } from "cloudflare:workers";
import { and, eq, sql } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { joinGuild, setBotRoleLow, simulatedGuild } from "~/server/discord/dev-discord.server";
import { addRoleRule, discordSetup, saveGuild } from "~/server/discord/role-setup.server";
import { SIMULATED_GUILD_ID, SIMULATED_ROLES } from "~/server/discord/simulated-discord.server";
import { startEnrolment, confirmEnrolment } from "~/server/accounts/two-factor.server";
import { callerOf } from "~/http/caller.server";
import {
  affiliates,
  auditLog,
  cryptoOrders,
  discordRoleRules,
  licences,
  mailOutbox,
  oauthAccounts,
  productCodes,
  productReviews,
  sessions,
  shopifyOrders,
  userSubscriptions,
  users,
} from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, latestMail, nextId, ORIGIN, signIn, type TestAccount, unique, validate } from "../helpers";
import { chatHistory, memberWithEverything, sayInChat } from "./privacy-helpers";

const { subscriber: SUBSCRIBER } = SIMULATED_ROLES;
const pseudonym = (id: string) => `deleted-${id}@deleted.invalid`;

let admin: TestAccount;

beforeAll(async () => {
  admin = await createAccount({ admin: true });
  await db.delete(discordRoleRules);
  await saveGuild(db, admin.id, SIMULATED_GUILD_ID);
  expect((await addRoleRule({ db, setup: discordSetup(env, db) }, admin.id, { grant: "any", roleId: SUBSCRIBER })).ok).toBe(true);
  await setBotRoleLow(db, false);
}, 30_000);

/** A member with a paid key, linked to a Discord account in the guild holding the role it grants. */
async function linkedBuyer() {
  const member = await createAccount();
  const discordId = String(1_300_000_000_000_000_000n + BigInt(nextId()));
  await db.insert(oauthAccounts).values({
    provider: "discord",
    providerUserId: discordId,
    providerUsername: member.username,
    userId: member.id,
    createdAt: Date.now(),
  });
  await joinGuild(db, discordId, member.username);
  const bought = await boughtKey("30 Days", member.email);
  await vi.waitFor(async () => expect(await rolesOf(discordId)).toEqual([SUBSCRIBER]), { timeout: 15_000, interval: 50 });
  return { ...member, discordId, bought, cookie: await signIn(member, unique("ip")) };
}

async function rolesOf(discordId: string) {
  return (await simulatedGuild(db)).members.find((member) => member.userId === discordId)?.roles ?? null;
}

const deleteOwn = (cookie: string, form: { password: string; code?: string }) =>
  call("/dashboard/security", { cookie, form: { intent: "delete-account", password: form.password, code: form.code ?? "" } });

const nonce = () => crypto.randomUUID().replaceAll("-", "");
const hwid = () => `HWID-${unique("pc")}-0123456789`;

describe("a member deletes their account", () => {
  it("ends every session, deletes their chat messages and reviews, takes their Discord roles back, stops their keys with a last e-mail and keeps their orders anonymised", async () => {
    const member = await linkedBuyer();
    const elsewhere = await signIn(member, unique("ip"));
    const bystander = await createAccount();
    const bystanderCookie = await signIn(bystander, unique("ip"));
    await sayInChat(member.cookie, `Bye from ${member.username}`);
    await sayInChat(bystanderCookie, `Still here, ${bystander.username}`);
    const now = Date.now();
    await db.insert(productReviews).values({
      productId: `gid://shopify/Product/${unique("p")}`,
      productHandle: "vertex-rust",
      productTitle: "Vertex Rust",
      userId: member.id,
      rating: 4,
      body: "Works well",
      createdAt: now,
      updatedAt: now,
    });
    await db.insert(cryptoOrders).values({
      id: crypto.randomUUID(),
      orderNumber: `CRYPTO-${unique("D").toUpperCase()}`,
      userId: member.id,
      status: "complete",
      productTitle: "Vertex Rust",
      variantTitle: "30 Days",
      variantId: "gid://shopify/ProductVariant/1",
      customerEmail: member.email,
      amountCents: 8999,
      currency: "USD",
      cryptoType: "BTC",
      walletAddress: `bc1q${unique("addr")}`,
      paidAt: now,
      createdAt: now,
      updatedAt: now,
    });

    const response = await deleteOwn(member.cookie, { password: member.password });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(response.headers.getSetCookie().join("\n")).toMatch(/__Host-session=;/);

    // Signed out everywhere, and no way back in.
    for (const cookie of [member.cookie, elsewhere]) {
      const page = await call("/dashboard", { cookie });
      expect(page.status).toBe(302);
      expect(page.headers.get("Location")).toMatch(/^\/auth/);
    }
    expect(await db.select().from(sessions).where(eq(sessions.userId, member.id))).toEqual([]);
    await expect(signIn(member, unique("ip"))).rejects.toThrow();

    // Their words are gone; others' stay.
    const history = await chatHistory(bystanderCookie);
    expect(history).toContain(`Still here, ${bystander.username}`);
    expect(history).not.toContain(`Bye from ${member.username}`);
    expect(await db.select().from(productReviews).where(eq(productReviews.userId, member.id))).toEqual([]);

    // Their key answers REVOKED, their subscription ended, and the last e-mail said so.
    expect((await validate({ key: member.bought.key, hwid: hwid(), nonce: nonce() })).json).toMatchObject({
      valid: false,
      code: "REVOKED",
    });
    expect(
      await db.select({ status: userSubscriptions.status }).from(userSubscriptions).where(eq(userSubscriptions.userId, member.id)),
    ).not.toContainEqual({
      status: "active",
    });
    const last = await latestMail(member.email, "has been deleted");
    expect(last?.textBody).toContain("These keys no longer work");
    expect(last?.textBody).toContain(member.bought.key.slice(0, 4));
    expect(last?.textBody).toContain(member.bought.key.slice(-4));

    // Discord: the role the shop gave is taken back.
    await vi.waitFor(async () => expect(await rolesOf(member.discordId)).toEqual([]), { timeout: 15_000, interval: 50 });

    // Orders stay for accounting, under the pseudonym; the address is nowhere in them.
    const card = await db
      .select({ email: shopifyOrders.email })
      .from(shopifyOrders)
      .where(eq(shopifyOrders.id, String(member.bought.orderId)))
      .get();
    expect(card).toEqual({ email: pseudonym(member.id) });
    expect(await db.select({ email: cryptoOrders.customerEmail }).from(cryptoOrders).where(eq(cryptoOrders.userId, member.id))).toEqual([
      { email: pseudonym(member.id) },
    ]);
    expect(
      await db.select({ email: productCodes.customerEmail }).from(productCodes).where(eq(productCodes.code, member.bought.key)),
    ).toEqual([{ email: pseudonym(member.id) }]);
    expect(await db.select({ owner: licences.ownerEmail }).from(licences).where(eq(licences.key, member.bought.key))).toEqual([
      { owner: pseudonym(member.id) },
    ]);
    const [left] = await db.all<{ n: number }>(sql`select count(*) as n from order_index where lower(email) = lower(${member.email})`);
    expect(left?.n).toBe(0);
    const account = await db.select().from(users).where(eq(users.id, member.id)).get();
    expect(account).toMatchObject({ email: pseudonym(member.id), passwordHash: null });
    expect(account?.deletedAt).toBeGreaterThan(0);

    // The address is free for a new account, which inherits nothing.
    const again = await call("/auth", {
      form: { intent: "signup", username: unique("again"), email: member.email, password: "another-pass-1" },
    });
    expect(again.status).toBeLessThan(400);

    const audited = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "account.delete"), eq(auditLog.subject, member.id)))
      .get();
    expect(audited?.actorUserId).toBe(member.id);
    expect(JSON.parse(audited!.detail!)).toMatchObject({ by: "member", keysRevoked: 1, chatMessagesDeleted: 1 });
  });

  it("deletes the member's rows from every table that is not kept for accounting", async () => {
    const member = await memberWithEverything();
    const response = await deleteOwn(member.cookie, { password: member.password });
    expect(response.status).toBe(302);
    const left = {
      passkeys: sql`select count(*) as n from passkeys where user_id = ${member.id}`,
      totp_factors: sql`select count(*) as n from totp_factors where user_id = ${member.id}`,
      recovery_codes: sql`select count(*) as n from recovery_codes where user_id = ${member.id}`,
      password_reset_tokens: sql`select count(*) as n from password_reset_tokens where user_id = ${member.id}`,
      email_verification_tokens: sql`select count(*) as n from email_verification_tokens where user_id = ${member.id}`,
      login_challenges: sql`select count(*) as n from login_challenges where user_id = ${member.id}`,
      webauthn_challenges: sql`select count(*) as n from webauthn_challenges where user_id = ${member.id}`,
      oauth_accounts: sql`select count(*) as n from oauth_accounts where user_id = ${member.id}`,
      auth_throttle: sql`select count(*) as n from auth_throttle where instr(key, ${member.id}) > 0`,
      review_moderation: sql`select count(*) as n from review_moderation where user_id = ${member.id}`,
      product_reviews: sql`select count(*) as n from product_reviews where user_id = ${member.id}`,
      mail_outbox: sql`select count(*) as n from mail_outbox where lower(to_address) = lower(${member.email}) and dedupe_key is not ${`account-deleted:${member.id}`}`,
      "orders by address": sql`select count(*) as n from order_index where lower(email) = lower(${member.email})`,
      backorders: sql`select count(*) as n from backorders where lower(customer_email) = lower(${member.email})`,
      licences: sql`select count(*) as n from licences where lower(owner_email) = lower(${member.email})`,
      "replacement request's words": sql`select count(*) as n from replacement_requests where user_id = ${member.id} and description <> '(removed with the account)'`,
      "affiliate's words": sql`select count(*) as n from affiliates where user_id = ${member.id} and (pitch <> '' or status = 'approved')`,
    };
    const data = await Promise.all(
      Object.entries(left).map(async ([name, query]) => ({ name, n: (await db.all<{ n: number }>(query))[0]!.n })),
    );
    expect(data.filter((row) => row.n > 0)).toEqual([]);
    // Money and orders stay, tied to the deleted account.
    expect(await db.select({ status: affiliates.status }).from(affiliates).where(eq(affiliates.userId, member.id))).toEqual([
      { status: "paused" },
    ]);
    const kept = await db.all<{ n: number }>(sql`select count(*) as n from reseller_ledger where user_id = ${member.id}`);
    expect(kept[0]!.n).toBe(1);
  });

  it("refuses a wrong password, and asks for the second factor when it is on", async () => {
    const member = await createAccount();
    const cookie = await signIn(member, unique("ip"));
    const wrong = await deleteOwn(cookie, { password: "not-the-password" });
    expect(wrong.status).toBe(401);
    expect((await call("/dashboard", { cookie })).status).toBe(200);

    const viewer = { id: member.id, email: member.email, username: member.username, avatarUrl: null, role: null };
    const started = await startEnrolment(db, env.TOTP_ENCRYPTION_KEY, viewer);
    if (!started.ok) throw new Error(started.problem.message);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(started.value.secret), digits: 6, period: 30 });
    const from = callerOf(new Request(ORIGIN, { headers: { "CF-Connecting-IP": unique("ip") } }));
    const confirmed = await confirmEnrolment(
      { db, sessionsEnded: async () => {} },
      env.TOTP_ENCRYPTION_KEY,
      viewer,
      from,
      totp.generate({ timestamp: Date.now() - 30_000 }),
    );
    if (!confirmed.ok) throw new Error(confirmed.problem.message);
    const withFactor = await signInWithCode(member, totp);

    const noCode = await deleteOwn(withFactor, { password: member.password });
    expect(noCode.status).toBe(400);
    expect(await noCode.text()).toContain("Enter a code from your authenticator app, or a recovery code");
    const withRecoveryCode = await deleteOwn(withFactor, { password: member.password, code: confirmed.value.recoveryCodes[0]! });
    expect(withRecoveryCode.status).toBe(302);
    expect((await db.select({ deletedAt: users.deletedAt }).from(users).where(eq(users.id, member.id)).get())?.deletedAt).toBeGreaterThan(
      0,
    );
  });

  it("refuses to delete a staff account", async () => {
    const staff = await createAccount({ role: "support" });
    const response = await deleteOwn(await signIn(staff, unique("ip")), { password: staff.password });
    expect(response.status).toBe(409);
    expect((await db.select({ deletedAt: users.deletedAt }).from(users).where(eq(users.id, staff.id)).get())?.deletedAt).toBeNull();
  });
});

describe("an admin deletes an account at its member's request", () => {
  it("does everything the member's own deletion does, audited with the request, and only for admins", async () => {
    const member = await linkedBuyer();
    const support = await createAccount({ role: "support" });
    const refused = await call(`/dashboard/customers/${member.id}`, {
      cookie: await signIn(support, unique("ip")),
      form: { intent: "delete-account", reason: "Ticket 42" },
    });
    expect(refused.status).toBe(403);

    const adminCookie = await signIn(admin, unique("ip"));
    const noReason = await call(`/dashboard/customers/${member.id}`, {
      cookie: adminCookie,
      form: { intent: "delete-account", reason: "" },
    });
    expect(noReason.status).toBe(400);

    const response = await call(`/dashboard/customers/${member.id}`, {
      cookie: adminCookie,
      form: { intent: "delete-account", reason: "Ticket 42" },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Account deleted");
    expect((await call("/dashboard", { cookie: member.cookie })).status).toBe(302);
    expect((await validate({ key: member.bought.key, hwid: hwid(), nonce: nonce() })).json.code).toBe("REVOKED");
    await vi.waitFor(async () => expect(await rolesOf(member.discordId)).toEqual([]), { timeout: 15_000, interval: 50 });
    expect((await latestMail(member.email, "has been deleted"))?.textBody).toContain("at your request");
    const audited = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "account.delete"), eq(auditLog.subject, member.id)))
      .get();
    expect(audited?.actorUserId).toBe(admin.id);
    expect(JSON.parse(audited!.detail!)).toMatchObject({ by: "staff", reason: "Ticket 42" });
    const again = await call(`/dashboard/customers/${member.id}`, {
      cookie: adminCookie,
      form: { intent: "delete-account", reason: "Ticket 42" },
    });
    expect(again.status).toBe(409);
    expect(
      await db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.toAddress, pseudonym(member.id))),
    ).toEqual([]);
  });
});

/** Signs in through both steps: the password, then a code from the app. */
async function signInWithCode(member: TestAccount, totp: OTPAuth.TOTP) {
  const ip = unique("ip");
  const first = await call("/auth", { form: { intent: "login", emailOrUsername: member.email, password: member.password }, ip });
  const challenge = first.headers
    .getSetCookie()
    .map((header) => header.split(";")[0]!)
    .find((pair) => pair.startsWith("__Host-2fa="));
  if (!challenge) throw new Error("no second-factor challenge");
  const second = await call("/auth/2fa", { form: { code: totp.generate() }, cookie: challenge, ip });
  const session = second.headers
    .getSetCookie()
    .map((header) => header.split(";")[0]!)
    .find((pair) => pair.startsWith("__Host-session="));
  if (!session) throw new Error(`second step answered ${second.status}`);
  return session;
}
